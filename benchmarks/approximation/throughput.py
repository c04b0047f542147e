"""Encoder throughput: words per second at batch 1024 (inference, CPU unless a GPU is present).

    python -m benchmarks.approximation.throughput            # writes benchmarks/results/throughput.json + .png

Every preset of every encoder is built for MiniLM's dimension (384) and timed on the same 16,384
real words (MiniLM vocabulary surfaces, half of them given one typo), after one warm-up pass; the
shipped encoder is timed too. Numbers depend on the machine: the JSON records its CPU count and
torch's thread count.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

import torch

from benchmarks.approximation.render import (
    render_throughput as render,  # noqa: F401  (make_results reads it)
)
from benchmarks.common.paths import RESULTS
from benchmarks.common.report import write_result

WRITES = ("throughput",)
PAGE = "approximation.md"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    result = run(parser.parse_args())  # no options: the parser answers --help
    print(json.dumps(result["rows"], indent=2))
    return write_result(RESULTS / "throughput.json", result, plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Words per second of every preset of every encoder and of the shipped encoders."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from charwise.encoders import ENCODERS
    from charwise.encoders.shipped import available, load
    from charwise.teachers import Teacher
    from charwise.training.approximation import TrainConfig, build_for_teacher
    from charwise.typos.single import NoiseConfig, NoiseNotApplicable, Noiser

    teacher = Teacher.load("minilm")
    rng = random.Random(0)
    surfaces = [s for s, k in zip(teacher.vocab.surfaces, teacher.vocab.kinds) if k == "normal"]
    noiser = Noiser(NoiseConfig(cased=False, operations=("mistype", "repeat", "swap", "drop", "punct")))
    words = []
    for _ in range(16384):
        w = rng.choice(surfaces)
        if noiser.eligible(w) and rng.random() < 0.5:
            try:
                w, _ = noiser.corrupt(w, rng)
            except NoiseNotApplicable:
                pass
        words.append(w)
    batch = 1024

    def time_encoder(encoder) -> float:
        encoder.embed(words[:batch], batch_size=batch)  # warm-up
        started = time.perf_counter()
        encoder.embed(words, batch_size=batch)
        return len(words) / (time.perf_counter() - started)

    rows = []
    for kind, cls in ENCODERS.items():
        for preset in cls.PRESETS:
            encoder = build_for_teacher(teacher, TrainConfig(encoder=kind, preset=preset))
            rows.append({"encoder": kind, "preset": preset, "parameters": encoder.num_parameters(),
                         "words_per_s": time_encoder(encoder)})
            print(rows[-1], file=sys.stderr)
    for name in available():
        encoder = load(name)
        rows.append({"encoder": f"shipped:{name}", "preset": encoder.training_info.get("config", {}).get("preset"),
                     "parameters": encoder.num_parameters(), "words_per_s": time_encoder(encoder)})
        print(rows[-1], file=sys.stderr)
    result = {
        "command": "python -m benchmarks.approximation.throughput",
        "batch_size": batch,
        "words": len(words),
        "device": "cpu" if not torch.cuda.is_available() else torch.cuda.get_device_name(),
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "machine": platform.machine(),
        "rows": rows,
    }
    return result


def plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["rows"]
    fig, ax = plt.subplots(figsize=(9, 4))
    labels = [f"{r['encoder']}/{r['preset']}" for r in rows]
    ax.barh(labels, [r["words_per_s"] for r in rows])
    ax.set_xlabel(f"words / s at batch {result['batch_size']} ({result['device']}, {result['torch_threads']} threads)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
