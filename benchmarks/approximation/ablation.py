"""Loss and architecture ablation on MiniLM: short runs of ``charwise train`` that differ in one
setting each, compared on the trainer's validation set (held-in words, clean and with one typo).

    python -m benchmarks.approximation.ablation --steps 1200  # all variants: results/ablation_minilm.json + .png
    python -m benchmarks.approximation.ablation --steps 1200 --only no-contrastive

Each variant's exact command is stored with its validation curve. Held-out words are not used
for these choices.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.approximation.render import ablation_commands as commands  # noqa: F401  (make_results reads it)
from benchmarks.approximation.render import render_ablation as render  # noqa: F401
from benchmarks.common.paths import RESULTS
from charwise.io import write_json

WRITES = ("ablation",)
PAGE = "approximation.md"

BASE = ["--teacher", "minilm", "--encoder", "cnn", "--preset", "wide-mlp", "--quiet", "--no-report"]
VARIANTS: dict[str, list[str]] = {
    "default": [],
    "no-contrastive": ["--contrastive", "0"],
    "ce-scale-30": ["--ce-scale", "30"],
    "highway-instead-of-mlp": ["--preset", "wide"],
    "no-noise": ["--noise-ratio", "0"],
}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=1200)
    p.add_argument("--only", nargs="*", help="variants to run (default: all)")
    p.add_argument("--runs", default="runs/ablation")
    args = p.parse_args()
    plot(run(args))
    return 0


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The variants asked for, after those the JSON already holds for the same ``--steps`` (it is
    rewritten after each variant, so a stopped run resumes): every variant's curve."""
    out = RESULTS / "ablation_minilm.json"
    results = json.loads(out.read_text()) if out.exists() else {"steps": args.steps, "variants": {}}
    if results.get("steps") != args.steps:
        results = {"steps": args.steps, "variants": {}}
    for name in args.only or list(VARIANTS):
        directory = Path(args.runs) / name
        extra = ["--steps", str(args.steps), "--eval-every", str(args.steps // 4), "--out", str(directory)]
        cmd = ["charwise", "train", *BASE, *VARIANTS[name], *extra]
        started = time.time()
        subprocess.run([sys.executable, "-m", "charwise.cli", *cmd[1:]], check=True,
                       env=dict(os.environ, HF_HUB_OFFLINE="1"))
        records = [json.loads(line) for line in (directory / "log.jsonl").read_text().splitlines()]
        curve = [{"step": r["step"], **r["validation"]} for r in records if "validation" in r]
        results["variants"][name] = {"command": shlex.join(cmd), "minutes": (time.time() - started) / 60,
                                     "curve": curve, "final": curve[-1]}
        write_json(out, results)  # after every variant: an interrupted run resumes from here
        print(name, curve[-1], file=sys.stderr)
    return results


def plot(results: dict[str, Any]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = ("accuracy", "avg_prec", "cosine", "noisy_top1", "noisy_top10")
    names = list(results["variants"])
    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.8 / max(1, len(names))
    for n, name in enumerate(names):
        final = results["variants"][name]["final"]
        ax.bar([i + n * width for i in range(len(keys))], [100 * final[k] for k in keys], width, label=name)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(keys))], keys)
    ax.set_ylabel(f"% after {results['steps']} steps (validation)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / "ablation_minilm.png", dpi=110)


if __name__ == "__main__":
    sys.exit(main())
