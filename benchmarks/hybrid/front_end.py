"""What charwise's front end costs beside the model it feeds: batch preparation against the fast
tokenizer, and sentences per second against plain sentence-transformers, on CPU (and on a GPU when
CUDA is present).

    OMP_NUM_THREADS=2 python -m benchmarks.hybrid.front_end     # writes benchmarks/results/front_end.json + .png

Texts: the first ``--texts`` WNUT17 test tweets as written (names, slang and typos: the speller
has work to do). all-MiniLM-L6-v2 (MiniLM architecture and tokenizer), batch size ``--batch``.
Every timing is the median of ``--repeats`` passes after a warm-up pass (caches warm: the
speller's scores, the policy's word pieces and character vectors), measured in one process:

* **preparation**: ``HybridModel.prepare_texts`` per batch (word splitting, policy decisions,
  speller look-ups, word pieces from the cache, index tensors, the table look-up) for ``none`` and
  ``repair``, against the fast tokenizer's own call on the same texts
  (``tokenizer(texts, padding=True, truncation=True)``): the ratio is what preparation costs in
  tokenizer units;
  ``repair`` is timed a second time with its speller's pass in ``--prepare-workers`` processes
  (``SentenceEncoder(prepare_workers=N)``), the batches read ahead: what is left in this process;
* **model**: the transformer's forward pass on the tokenizer's batch (what preparation has to keep
  up with; on a GPU it is small, so preparation becomes the bottleneck). The batches of these three
  hold the texts sorted by length, as sentence-transformers batches them;
* **end to end**: sentences per second of plain ``SentenceTransformer.encode`` (the base),
  ``SentenceEncoder(policy="none" | "repair").encode`` and ``repairing(model).encode``, and of
  ``Speller.correct_lines`` alone (what ``charwise correct`` does per sentence; its score cache
  warm, like the policies').
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


def measure(device: str, texts: list[str], batch: int, repeats: int, prepare_workers: int = 2) -> dict[str, Any]:
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
            for chunk in chunks:
                hybrid.prepare_texts(chunk)
        return run

    # the speller's pass in worker processes: what is left of the preparation in this process
    pooled = SentenceEncoder("minilm", policy="repair", device=device, prepare_workers=prepare_workers)

    def prepare_pooled() -> None:
        for _ in pooled._prepared(chunks):
            pass

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
        f"prepare repair, {prepare_workers} prepare workers": median_seconds(prepare_pooled, repeats),
        "model forward": median_seconds(forward, repeats),
        "sentence-transformers": median_seconds(encode(plain), repeats),
        "charwise none": median_seconds(encode(encoders["none"]), repeats),
        "charwise repair": median_seconds(encode(encoders["repair"]), repeats),
        "repairing(model)": median_seconds(encode(repaired), repeats),
        "correct": median_seconds(lambda: speller.correct_lines(texts), repeats),
    }
    pooled.close()
    n = len(texts)
    return {
        "device": device if device == "cpu" else torch.cuda.get_device_name(torch.device(device)),
        "torch_threads": torch.get_num_threads(),
        "seconds": {k: round(v, 4) for k, v in seconds.items()},
        "preparation_over_tokenizer": {p: round(seconds[f"prepare {p}"] / seconds["tokenizer"], 2)
                                       for p in ("none", "repair", f"repair, {prepare_workers} prepare workers")},
        "sentences_per_second": {k: round(n / seconds[k], 1) for k in
                                 ("sentence-transformers", "charwise none", "charwise repair", "repairing(model)",
                                  "correct")},
        "relative_to_sentence_transformers": {k: round(seconds["sentence-transformers"] / seconds[k], 3) for k in
                                              ("charwise none", "charwise repair", "repairing(model)")},
    }


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

    texts = [" ".join(s.words) for s in load_task("wnut17", splits=("test",)).test][: args.texts]
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    rows = {}
    for device in devices:
        rows[device] = measure(device, texts, args.batch, args.repeats, args.prepare_workers)
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
