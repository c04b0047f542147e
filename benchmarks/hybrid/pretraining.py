"""Second pre-training of MiniLM: masked-piece accuracy of a `charwise pretrain` run, as it trains.

    python -m benchmarks.hybrid.pretraining --run runs/2pt/full          # summarise a finished run
    python -m benchmarks.hybrid.pretraining --run runs/2pt/full --train  # run it first (the command below)

The run (``--train``): ``charwise pretrain`` on the repository's corpora (UD EWT train, the WNUT17
raw tweets, the King James Bible), MiniLM and its shipped encoder, policy ``oov``, mixed typos,
15 % of words masked; ``--mode`` and ``--steps`` as given. The summary reads the run's
``log.jsonl``: every validation (256 held-out sentences of the corpora, seeded masks and typos):
accuracy and loss of the masked pieces with the typo'd text read through the hybrid policy (the
score), the same text as plain pieces, and the clean text (hybrid); wall time per step. Writes
``benchmarks/results/pretraining_<name>.json`` and a PNG of the curves.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from benchmarks.common.paths import RESULTS
from benchmarks.common.report import write_result
from benchmarks.hybrid.render import render_pretraining as render  # noqa: F401  (make_results reads it)

WRITES = ("pretraining",)
PAGE = "hybrid.md"

DATA = "src/charwise/data"
CORPORA = [f"{DATA}/ud_en_ewt/en_ewt-ud-train.conllu", *(f"{DATA}/wnut17/raw_text/{n}.10000"
                                                          for n in ("gurez", "ile", "palm", "rigo")),
           f"{DATA}/kjv/kjv_verses.txt"]


def summarise(run: Path) -> dict:
    config = json.loads((run / "pretrain_config.json").read_text(encoding="utf-8"))
    records = [json.loads(line) for line in (run / "log.jsonl").read_text(encoding="utf-8").splitlines() if line]
    evals = [r for r in records if "validation" in r]
    steps = [r for r in records if "loss" in r and "validation" not in r]
    last = steps[-1] if steps else {}
    seconds_per_step = None
    if len(steps) >= 2:
        a, b = steps[0], steps[-1]
        seconds_per_step = (b["elapsed_s"] - a["elapsed_s"]) / max(1, b["step"] - a["step"])
    best = max(evals[1:] or evals, key=lambda r: r["validation"]["score"])
    config["corpora"] = [str(Path(c)) for c in config["corpora"]]
    return {"command": f"python -m benchmarks.hybrid.pretraining --run {run} --train --mode {config['mode']} "
                       f"--steps {config['steps']}",
            "config": config, "validations": [{"step": r["step"], **r["validation"]} for r in evals],
            "best_step": best["step"], "best": best["validation"], "last_train_loss": last.get("mlm"),
            "seconds_per_step": seconds_per_step, "torch_threads_note": "OMP_NUM_THREADS=2, nothing else running"}


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    steps = [v["step"] for v in result["validations"]]
    for key, label in (("hybrid_acc", "typos, hybrid oov (score)"), ("pieces_acc", "typos, plain pieces"),
                       ("hybrid_clean_acc", "clean, hybrid oov")):
        ax.plot(steps, [100 * v[key] for v in result["validations"]], marker="o", label=label)
    ax.set_xlabel("step")
    ax.set_ylabel("masked-piece accuracy (%)")
    ax.set_title(f"MiniLM second pre-training, mode {result['config']['mode']}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--run", required=True, help="the run directory of `charwise pretrain`")
    p.add_argument("--train", action="store_true", help="run `charwise pretrain` into --run first")
    p.add_argument("--mode", default="full", choices=["frozen", "full"])
    p.add_argument("--steps", type=int, default=800)
    p.add_argument("--name", default=None, help="results name (default: minilm_<mode>)")
    args = p.parse_args()
    result = run(args)
    name = args.name or f"minilm_{result['config']['mode']}"
    out = RESULTS / f"pretraining_{name}.json"
    return write_result(out, result, plot)


def run(args: argparse.Namespace) -> dict:
    """The summary of the run in ``--run``, trained there first with ``--train``."""
    directory = Path(args.run)
    if args.train:
        subprocess.run([sys.executable, "-m", "charwise.cli", "pretrain", *CORPORA, "--out", str(directory), "--mode",
                        args.mode, "--steps", str(args.steps), "--eval-every", "250", "--quiet"], check=True)
    return summarise(directory)


if __name__ == "__main__":
    sys.exit(main())
