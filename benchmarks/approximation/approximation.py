"""Approximation benchmark: train an encoder with the repository's own command, evaluate it, and
write ``benchmarks/results/approximation_<name>.json`` + ``.png``.

    python -m benchmarks.approximation.approximation --name minilm -- --teacher minilm --steps 8000
    python -m benchmarks.approximation.approximation --name minilm --run runs/minilm     # only collect a finished run

Everything after ``--`` goes to ``charwise train`` unchanged. The JSON holds the exact command,
the wall-clock training time, the encoder's size relative to the teacher's table, the
validation curve and the full ``charwise eval`` report (held-in, held-out, noise, baseline).
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

from benchmarks.approximation.render import approximation_commands as commands  # noqa: F401  (make_results reads it)
from benchmarks.approximation.render import render_approximation as render  # noqa: F401
from benchmarks.common.paths import RESULTS
from benchmarks.common.report import write_result

WRITES = ("approximation",)
PAGE = "approximation.md"


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5))
    curve = result["validation_curve"]
    steps = [c["step"] for c in curve]
    for key in ("accuracy", "avg_prec", "cosine", "noisy_top1", "noisy_top10"):
        left.plot(steps, [100 * c[key] for c in curve], marker="o", label=key)
    left.set_xlabel("step")
    left.set_ylabel("% (validation: held-in words)")
    left.set_title(f"training curve ({result['train_minutes']:.1f} min)")
    left.legend()
    report = result["report"]
    ops = [op for op in report["noise_operations"]] + ["mean"]
    x = range(len(ops))
    width = 0.2
    for shift, (who, block, split) in enumerate((
        ("charwise held-in", report, "noise"), ("charwise held-out", report, "noise_heldout"),
        ("baseline held-in", report["baseline"], "noise"), ("baseline held-out", report["baseline"], "noise_heldout"),
    )):
        right.bar([i + (shift - 1.5) * width for i in x], [100 * block[split][op]["top1"] for op in ops], width,
                  label=who)
    right.set_xticks(list(x), ops)
    right.set_ylabel("clean word retrieved top-1 (%)")
    right.set_title(f"one typo, teacher {report['teacher']['name']}")
    right.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    argv = sys.argv[1:]
    train_args = argv[argv.index("--") + 1 :] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--name", required=True, help="result name, e.g. minilm")
    p.add_argument("--run", help="run directory (default runs/<name>)")
    args = p.parse_args(own)
    args.train_args = train_args  # what follows `--`, for `charwise train`
    result = run(args)
    return write_result(RESULTS / f"approximation_{args.name}.json", result, plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """``charwise train`` with ``args.train_args`` (when there are any) into the run directory, then
    what the finished run holds: its command, times, encoder size, validation curve and eval report."""
    directory = Path(args.run or f"runs/{args.name}")
    command = ["charwise", "train", *args.train_args, "--out", str(directory)]
    minutes = None
    if args.train_args:
        env = dict(os.environ, HF_HUB_OFFLINE="1")
        started = time.time()
        subprocess.run([sys.executable, "-m", "charwise.cli", *command[1:]], check=True, env=env)
        minutes = (time.time() - started) / 60
    report = json.loads((directory / "eval.json").read_text())
    records = [json.loads(line) for line in (directory / "log.jsonl").read_text().splitlines()]
    curve = [{"step": r["step"], **r["validation"]} for r in records if "validation" in r]
    train_seconds = max((r.get("elapsed_s", 0) for r in records), default=0)
    from charwise.encoders import CharEncoder
    from charwise.teachers import Teacher

    encoder = CharEncoder.from_pretrained(directory / "encoder")
    parameters = encoder.num_parameters()
    teacher = Teacher.load(report["teacher"]["name"])
    result = {
        "command": shlex.join(command),
        "train_minutes": train_seconds / 60,
        "wall_minutes_including_eval": minutes,
        "encoder": {"kind": encoder.kind, "parameters": parameters,
                    "table_parameters": teacher.embeddings.numel(),
                    "ratio_to_table": parameters / teacher.embeddings.numel(),
                    "best_step": encoder.training_info.get("step")},
        "validation_curve": curve,
        "report": report,
    }
    return result


if __name__ == "__main__":
    sys.exit(main())
