"""What charwise's front end costs beside the model it feeds: batch preparation against the fast
tokenizer, and sentences per second against plain sentence-transformers, on CPU (and on a GPU when
CUDA is present).

    OMP_NUM_THREADS=2 python -m benchmarks.hybrid.front_end     # writes benchmarks/results/front_end.json + .png

Texts: the first ``--texts`` WNUT17 test tweets as written (names, slang and typos: the speller
has work to do). all-MiniLM-L6-v2 (MiniLM architecture and tokenizer), batch size ``--batch``.
Every timing is the median of ``--repeats`` passes after a warm-up pass (caches warm: the
speller's scores, the protected spans of each text, the policy's word pieces and character
vectors), measured in one process:

* **preparation**: ``HybridModel.prepare_texts`` per batch under ``torch.inference_mode()``, as
  ``SentenceEncoder`` runs it (word splitting, policy decisions, speller look-ups, word pieces from
  the cache, index tensors, the table look-up) for ``none`` and ``repair``, against the fast
  tokenizer's own call on the same texts (``tokenizer(texts, padding=True, truncation=True)``):
  the ratio is what preparation costs in tokenizer units;
* **model**: the transformer's forward pass on the tokenizer's batch (what preparation has to keep
  up with; on a GPU it is small, so preparation becomes the bottleneck). The batches of these three
  hold the texts sorted by length, as sentence-transformers batches them;
* **end to end**: sentences per second of plain ``SentenceTransformer.encode`` (the base),
  ``SentenceEncoder(policy="none" | "repair").encode`` and ``repairing(model).encode``, and of
  ``Speller.correct_lines`` alone (what ``charwise correct`` does per sentence; its score cache
  warm, like the policies');
* **new text** (:func:`new_text`): one pass each over the same tweets with the speller's caches
  empty, as a stream of text nobody has read is encoded (the warm passes above see each word's
  decision remembered: they time the speller at its fastest): sentence-transformers, ``none``,
  ``repair``, and ``repair`` with its speller in ``--prepare-workers`` processes
  (``SentenceEncoder(prepare_workers=N)``); and the batches of ``repair`` prepared with no model
  run, in this process and with the workers: the most sentences per second a GPU could be fed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

from benchmarks.common.paths import RESULTS
from benchmarks.common.report import pyplot, write_result
from benchmarks.hybrid.render import render_front_end as render  # noqa: F401  (make_results reads it)

WRITES = ("front_end",)
PAGE = "hybrid.md"

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def median_seconds(run: Callable[[], Any], repeats: int) -> float:
    """The median wall time of ``run()`` over ``repeats`` passes, after one warm-up pass."""
    run()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def batches(texts: list[str], size: int) -> list[list[str]]:
    return [texts[i : i + size] for i in range(0, len(texts), size)]


def measure(device: str, texts: list[str], batch: int, repeats: int) -> dict[str, Any]:
    import torch
    from sentence_transformers import SentenceTransformer

    from charwise import SentenceEncoder
    from charwise.hybrid.st_repair import repairing
    from charwise.speller import Speller
    from charwise.teachers import Teacher, builtin_teacher_path

    teacher = Teacher.load("minilm")
    tokenizer = teacher.tokenizer
    encoders = {policy: SentenceEncoder("minilm", policy=policy, device=device) for policy in ("none", "repair")}
    model = encoders["none"].hybrid.model
    # by length, as sentence-transformers batches them: padding is what it would be there
    chunks = batches(sorted(texts, key=len), batch)

    def tokenize() -> None:
        for chunk in chunks:
            tokenizer(chunk, padding=True, truncation=True, max_length=256, return_tensors="pt")

    def prepare(policy: str) -> Callable[[], None]:
        hybrid = encoders[policy].hybrid

        def run() -> None:
            with torch.inference_mode():  # as SentenceEncoder prepares its batches: no gradient recorded
                for chunk in chunks:
                    hybrid.prepare_texts(chunk)
        return run

    tokenized = [tokenizer(c, padding=True, truncation=True, max_length=256, return_tensors="pt").to(device)
                 for c in chunks]

    def forward() -> None:
        with torch.inference_mode():
            for inputs in tokenized:
                model(**inputs)
        if device.startswith("cuda"):
            torch.cuda.synchronize()

    # all-MiniLM-L6-v2 as the package ships it (its modules.json: transformer, mean pooling, normalisation)
    plain = SentenceTransformer(str(builtin_teacher_path("minilm")), device=device)
    repaired = repairing(plain)
    speller = Speller.load("en")

    def encode(encoder: Any) -> Callable[[], None]:
        def run() -> None:
            encoder.encode(texts, batch_size=batch)
            if device.startswith("cuda"):
                torch.cuda.synchronize()
        return run

    seconds = {
        "tokenizer": median_seconds(tokenize, repeats),
        "prepare none": median_seconds(prepare("none"), repeats),
        "prepare repair": median_seconds(prepare("repair"), repeats),
        "model forward": median_seconds(forward, repeats),
        "sentence-transformers": median_seconds(encode(plain), repeats),
        "charwise none": median_seconds(encode(encoders["none"]), repeats),
        "charwise repair": median_seconds(encode(encoders["repair"]), repeats),
        "repairing(model)": median_seconds(encode(repaired), repeats),
        "correct": median_seconds(lambda: speller.correct_lines(texts), repeats),
    }
    n = len(texts)
    return {
        "device": device if device == "cpu" else torch.cuda.get_device_name(torch.device(device)),
        "torch_threads": torch.get_num_threads(),
        "seconds": {k: round(v, 4) for k, v in seconds.items()},
        "preparation_over_tokenizer": {p: round(seconds[f"prepare {p}"] / seconds["tokenizer"], 2)
                                       for p in ("none", "repair")},
        "sentences_per_second": {k: round(n / seconds[k], 1) for k in
                                 ("sentence-transformers", "charwise none", "charwise repair", "repairing(model)",
                                  "correct")},
        "relative_to_sentence_transformers": {k: round(seconds["sentence-transformers"] / seconds[k], 3) for k in
                                              ("charwise none", "charwise repair", "repairing(model)")},
    }


def new_text(device: str, texts: list[str], warm_up: list[str], batch: int, counts: list[int]) -> dict[str, Any]:
    """Sentences per second in one pass over text the speller has not read, as a stream of new text
    is: plain sentence-transformers, ``none``, ``repair`` with its speller in this process and with
    it in each of ``counts`` worker processes (``prepare_workers``). Every encoder first encodes
    ``warm_up`` (other tweets: lazy loads, kernels, the workers' start), its caches emptied before."""
    import torch
    from sentence_transformers import SentenceTransformer

    from charwise import SentenceEncoder
    from charwise.teachers import builtin_teacher_path

    def one_pass(encoder: Any) -> float:
        encoder.encode(warm_up, batch_size=batch)
        started = time.perf_counter()
        encoder.encode(texts, batch_size=batch)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        return round(len(texts) / (time.perf_counter() - started), 1)

    def preparation_pass(encoder: Any) -> float:
        """The batches prepared and no model run: the most a fast GPU could take."""
        chunks = [sorted(texts, key=len)[i : i + batch] for i in range(0, len(texts), batch)]
        for _ in encoder._prepared([warm_up]):
            pass
        started = time.perf_counter()
        for _ in encoder._prepared(chunks):
            pass
        return round(len(texts) / (time.perf_counter() - started), 1)

    def fresh(policy: str, workers: int = 0) -> SentenceEncoder:
        encoder = SentenceEncoder("minilm", policy=policy, device=device, prepare_workers=workers)
        encoder.hybrid.clear_cache()
        if policy == "repair":
            encoder.policy.speller.clear_cache()  # the process's shared speller: other passes filled it
        return encoder

    rates = {"sentence-transformers": one_pass(SentenceTransformer(str(builtin_teacher_path("minilm")),
                                                                   device=device)),
             "charwise none": one_pass(fresh("none")),
             "charwise repair": one_pass(fresh("repair"))}
    preparation = {"repair": preparation_pass(fresh("repair"))}
    for count in counts:
        with SentenceEncoder("minilm", policy="repair", device=device, prepare_workers=count) as encoder:
            rates[f"charwise repair, {count} prepare workers"] = one_pass(encoder)  # new processes: cold
        with SentenceEncoder("minilm", policy="repair", device=device, prepare_workers=count) as encoder:
            preparation[f"repair, {count} prepare workers"] = preparation_pass(encoder)
    base = rates["sentence-transformers"]
    return {"texts": len(texts), "warm_up_texts": len(warm_up), "sentences_per_second": rates,
            "relative_to_sentence_transformers": {k: round(v / base, 3) for k, v in rates.items()
                                                  if k != "sentence-transformers"},
            "preparation_alone_sentences_per_second": preparation}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--prepare-workers", type=int, default=2,
                        help="processes for the speller's pass in the second `repair` preparation row")
    parser.add_argument("--out", type=Path, default=RESULTS / "front_end.json")
    args = parser.parse_args(argv)
    if args.prepare_workers < 1:
        parser.error(f"--prepare-workers must be >= 1, got {args.prepare_workers}")
    command = " ".join(["python -m benchmarks.hybrid.front_end", *sys.argv[1:]])
    return write_result(args.out, {"command": command, **run(args)}, plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The measurements on the CPU, and on the GPU when CUDA is present."""
    import torch

    from charwise.tagging.data import load_task

    task = load_task("wnut17", splits=("dev", "test"))
    texts = [" ".join(s.words) for s in task.test][: args.texts]
    warm_up = [" ".join(s.words) for s in task.dev][:200]  # other tweets, for the passes over new text
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    rows = {}
    for device in devices:
        rows[device] = measure(device, texts, args.batch, args.repeats)
        rows[device]["new_text"] = new_text(device, texts, warm_up, args.batch, [args.prepare_workers])
        print(device, json.dumps(rows[device]), flush=True)
    return {"texts": len(texts), "batch": args.batch, "repeats": args.repeats,
            "prepare_workers": args.prepare_workers, "cpus": os.cpu_count(),
            "platform": platform.platform(), "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
            "devices": rows}


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()

    devices = list(result["devices"])
    fig, axes = plt.subplots(1, len(devices), figsize=(6 * len(devices), 4), squeeze=False)
    for ax, device in zip(axes[0], devices):
        rates = result["devices"][device]["sentences_per_second"]
        ax.barh(list(rates), list(rates.values()), color="tab:blue")
        ax.set_xlabel("sentences / s")
        ax.set_title(f"{result['devices'][device]['device']}, {result['texts']} WNUT17 tweets")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
