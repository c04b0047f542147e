"""What only a GPU can show, in one run of a few minutes on a machine with CUDA.

    python -m benchmarks.scaling.gpu_checks      # writes benchmarks/results/gpu_checks.json (+ .png)

Sections:

1. **resume**: the RNN trainers' checkpoint-and-resume tests (the suite's own, :data:`RESUME_TESTS`:
   the approximation encoder, the decoder, the language model, the translation model, the
   generation head, second pre-training, fine-tuning and the tagger), run in this process with
   CUDA visible. The training engine's ``Accelerator`` puts every model on the GPU, so these are
   the suite's assertions (a run stopped and resumed ends with the weights of an uninterrupted
   one) under cuDNN's RNN kernels. Bitwise equality on a GPU needs PyTorch's deterministic
   algorithms (atomic additions, as in ``scatter_add_``, sum in any order otherwise): they are on
   for this section, and the operations that have no deterministic CUDA kernel are listed. Each
   test's outcome and seconds, and the GPU memory they used (proof that they ran there).
2. **overlap**: ``SentenceEncoder.encode`` with ``overlap=True`` (the next batch prepared on a
   second thread while the GPU runs this one) against ``overlap=False`` (batches in turn, the
   default), for the policies ``none`` and ``repair``.
3. **front end**: ``front_end.py``'s measurement on the GPU: sentences per second of plain
   sentence-transformers, ``SentenceEncoder(policy="none" | "repair")`` and ``repairing(model)``.
4. **prepare workers**: ``front_end.py``'s pass over new text (the speller's caches empty, as a
   stream of unread text meets it; the sections above repeat passes over the same tweets, which
   the speller's caches remember): sentence-transformers, ``none``, ``repair`` with its speller
   in this process, and ``SentenceEncoder(policy="repair", prepare_workers=N)`` (the speller in N
   processes, ahead of the GPU) for each N of ``--prepare-workers``.
5. **speller with its language model**: ``Speller.load("en", context="smollm2", device="cuda")``
   correcting tweets, tweets per second in one pass with cold caches, against the speller without it.

Texts: the first ``--texts`` WNUT17 tweets (test, dev, then train: 5,690 in all; a pass over 1,000
takes a tenth of a second on an H200, too short to time reliably); batch ``--batch``; each timing
the median of ``--repeats`` passes after a warm-up pass. The JSON is rewritten after every section, so a run
cut short keeps what finished; a section whose model files are missing says so and is skipped.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common.paths import RESULTS, ROOT
from benchmarks.common.report import pyplot, write_result
from benchmarks.hybrid.front_end import measure, median_seconds, new_text
from benchmarks.scaling.render import render_gpu_checks as render  # noqa: F401  (make_results reads it)

WRITES = ("gpu_checks",)
PAGE = "scaling.md"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # cuBLAS's deterministic mode (set before CUDA starts)

RESUME_TESTS = (
    "tests/test_trainer.py::test_resume_after_interruption_matches_uninterrupted_run",
    "tests/test_trainer.py::test_bilstm_encoder_in_cudnn_flat_layout_checkpoints_resumes_saves_and_loads",
    "tests/test_decoder.py::test_training_resumes_to_the_same_weights",
    "tests/test_lm.py::test_resume_mid_epoch_gives_the_same_weights",
    "tests/test_translation.py::test_resume_gives_the_same_weights",
    "tests/test_translation.py::test_checkpoint_averaging_keeps_the_last_snapshots_and_resumes",
    "tests/test_generation.py::test_resume_gives_the_same_head",
    "tests/test_pretraining.py::test_resume_gives_the_same_weights",
    "tests/test_tuning.py::test_resume_gives_the_same_weights",
    "tests/test_tagging.py::test_rnn_tagger_resumes_to_the_same_weights",
)


class Outcomes:
    """A pytest plugin that keeps each test's outcome, seconds and failure text."""

    def __init__(self) -> None:
        self.tests: dict[str, dict[str, Any]] = {}
        self.nondeterministic: set[str] = set()

    def pytest_warning_recorded(self, warning_message: Any, when: str, nodeid: str, location: Any) -> None:
        text = str(warning_message.message)
        if "does not have a deterministic implementation" in text:
            self.nondeterministic.add(text.split(" does not")[0])

    def pytest_runtest_logreport(self, report: Any) -> None:
        entry = self.tests.setdefault(report.nodeid, {"outcome": "passed", "seconds": 0.0})
        entry["seconds"] = round(entry["seconds"] + report.duration, 2)
        if report.failed:
            entry["outcome"] = "failed" if report.when == "call" else f"error in {report.when}"
            entry["message"] = str(report.longrepr)[-1500:]
        elif report.skipped:
            entry["outcome"] = "skipped"
            entry["message"] = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else str(report.longrepr)


def resume_checks(device: str) -> dict[str, Any]:
    import pytest
    import torch

    outcomes = Outcomes()
    cuda = device.startswith("cuda")
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    started = time.perf_counter()
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--rootdir", str(ROOT),
                     *(str(ROOT / t) for t in RESUME_TESTS)], plugins=[outcomes])
    finally:
        torch.use_deterministic_algorithms(False)
    tests = {nodeid.split("tests/")[-1]: entry for nodeid, entry in outcomes.tests.items()}
    return {"tests": tests, "seconds": round(time.perf_counter() - started, 1),
            "passed": sum(t["outcome"] == "passed" for t in tests.values()),
            "failed": sum(t["outcome"] not in ("passed", "skipped") for t in tests.values()),
            "skipped": sum(t["outcome"] == "skipped" for t in tests.values()),
            "deterministic_algorithms": True, "without_deterministic_kernel": sorted(outcomes.nondeterministic),
            "gpu_peak_mib": round(torch.cuda.max_memory_allocated() / 2**20, 1) if cuda else None}


def overlap_checks(device: str, texts: list[str], batch: int, repeats: int) -> dict[str, Any]:
    import torch

    from charwise import SentenceEncoder

    rows: dict[str, Any] = {}
    for policy in ("none", "repair"):
        encoder = SentenceEncoder("minilm", policy=policy, device=device)
        for overlap in (True, False):
            def run(encoder: Any = encoder, overlap: bool = overlap) -> None:
                encoder.encode(texts, batch_size=batch, overlap=overlap)
                if device.startswith("cuda"):
                    torch.cuda.synchronize()
            seconds = median_seconds(run, repeats)
            rows[f"{policy}, {'overlap' if overlap else 'in turn'}"] = round(len(texts) / seconds, 1)
    return {"sentences_per_second": rows,
            "overlap_over_in_turn": {p: round(rows[f"{p}, overlap"] / rows[f"{p}, in turn"], 3)
                                     for p in ("none", "repair")}}


def lm_speller_checks(device: str, texts: list[str], warm_up: list[str]) -> dict[str, Any]:
    """One pass over ``texts`` with cold score caches (a repeated pass would time the caches), after
    a warm-up on other tweets (``warm_up``: the kernels, the lazy loads). For the LM mode, how many
    forward passes the language model ran and the seconds inside them (the device synchronised):
    the rest of the pass is the speller's own work on the CPU."""
    import torch

    from charwise.speller import Speller

    rates, lm_work = {}, {"forward_passes": 0, "seconds": 0.0}
    for name, speller in (("ngram", Speller.load("en")),
                          (f"smollm2 on {device}", Speller.load("en", context="smollm2", device=device))):
        if speller.context_model is not None:
            timed_forward(speller.context_model, device, lm_work)
        speller.correct_lines(warm_up)
        lm_work.update(forward_passes=0, seconds=0.0)
        started = time.perf_counter()
        speller.correct_lines(texts)
        rates[name] = round(len(texts) / (time.perf_counter() - started), 1)
    return {"tweets_per_second": rates, "tweets": len(texts), "warm_up_tweets": len(warm_up),
            "lm_forward_passes": lm_work["forward_passes"], "lm_forward_seconds": round(lm_work["seconds"], 2),
            "torch_threads": torch.get_num_threads(),
            "caches": "cold: one pass, after a warm-up on other tweets"}


def timed_forward(reranker: Any, device: str, totals: dict[str, Any]) -> None:
    """Count ``reranker``'s forward passes and the seconds inside them into ``totals``."""
    import torch

    forward = reranker._forward

    def counted(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return forward(*args, **kwargs)
        finally:
            if device.startswith("cuda"):
                torch.cuda.synchronize()
            totals["forward_passes"] += 1
            totals["seconds"] += time.perf_counter() - started

    reranker._forward = counted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=4000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sections", default="resume,overlap,front_end,prepare_workers,lm_speller",
                        help="comma-separated: resume, overlap, front_end, prepare_workers, lm_speller")
    parser.add_argument("--prepare-workers", default="2,4,8",
                        help="comma-separated process counts for the prepare_workers section")
    parser.add_argument("--device", default="cuda", help="cuda (or cpu: the same code, to try the script)")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch's CPU threads for the whole run (0: torch's default, one per core). The first "
                             "H200 run had 1 and the second 16: the speller's share of the time may depend on it")
    parser.add_argument("--out", type=Path, default=RESULTS / "gpu_checks.json")
    args = parser.parse_args(argv)
    unknown = set(chosen(args)) - {"resume", "overlap", "front_end", "prepare_workers", "lm_speller"}
    if unknown:
        parser.error(f"unknown sections: {', '.join(sorted(unknown))}")
    try:
        args.prepare_workers = [int(n) for n in args.prepare_workers.split(",") if n.strip()]
    except ValueError:
        parser.error(f"--prepare-workers takes comma-separated whole numbers, got {args.prepare_workers!r}")
    if any(n < 1 for n in args.prepare_workers):
        parser.error("--prepare-workers: every count must be >= 1")

    import torch

    if args.threads < 0:
        parser.error(f"--threads must be >= 0, got {args.threads}")
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("gpu_checks: torch sees no CUDA device; these checks need one", file=sys.stderr)
        return 2
    run(args)
    return 0


def chosen(args: argparse.Namespace) -> list[str]:
    """The sections ``--sections`` names, in its order."""
    return [s.strip() for s in args.sections.split(",") if s.strip()]


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The sections asked for, the JSON rewritten after each (a run cut short keeps what finished)."""
    import torch

    from charwise.tagging.data import load_task

    if args.threads:
        torch.set_num_threads(args.threads)
    task = load_task("wnut17")
    tweets = [" ".join(s.words) for split in (task.test, task.dev, task.train) for s in split]
    texts, warm_up = tweets[: args.texts], tweets[-100:]  # the warm-up tweets are not timed
    result: dict[str, Any] = {
        "command": " ".join(["python -m benchmarks.scaling.gpu_checks", *sys.argv[1:]]),
        "device": torch.cuda.get_device_name(0) if args.device.startswith("cuda") else "cpu",
        "torch": torch.__version__, "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(), "cpus": os.cpu_count(), "platform": platform.platform(),
        "torch_threads": torch.get_num_threads(), "texts": len(texts), "batch": args.batch, "repeats": args.repeats,
        "sections": {}}
    checks = {"resume": lambda: resume_checks(args.device),
              "overlap": lambda: overlap_checks(args.device, texts, args.batch, args.repeats),
              "front_end": lambda: measure(args.device, texts, args.batch, args.repeats),
              "prepare_workers": lambda: new_text(args.device, texts, warm_up, args.batch, args.prepare_workers),
              "lm_speller": lambda: lm_speller_checks(args.device, texts, warm_up)}
    for name in chosen(args):
        started = time.perf_counter()
        try:
            section = checks[name]()
        except Exception as error:  # one missing model file must not lose the other sections
            section = {"error": f"{type(error).__name__}: {error}"[:2000]}
        section["section_seconds"] = round(time.perf_counter() - started, 1)
        result["sections"][name] = section
        print(name, section, flush=True)
        write_result(args.out, result, plot)
    return result


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()

    rates: dict[str, float] = {}
    front = result["sections"].get("front_end", {})
    rates.update(front.get("sentences_per_second", {}))
    for key, value in result["sections"].get("overlap", {}).get("sentences_per_second", {}).items():
        rates[f"charwise {key}"] = value
    for key, value in result["sections"].get("prepare_workers", {}).get("sentences_per_second", {}).items():
        rates[f"{key}, new text"] = value
    fig, ax = plt.subplots(figsize=(7, 4))
    if rates:
        ax.barh(list(rates), list(rates.values()), color="tab:green")
    ax.set_xlabel("sentences / s")
    ax.set_title(f"{result['device']}, {result['texts']} WNUT17 tweets, batch {result['batch']}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
