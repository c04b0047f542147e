"""What XRayEmb's cycle loops do to the encoder and the decoder: an ablation with the encoder trained.

Three runs continue the shipped MiniLM decoder and encoder for `--steps` steps with
`charwise decoder train --train-encoder` (rows and the encoder's approximation loss in all three):

* `no loops`: `--cycle-ed 0` (the encoder learns only from its approximation loss: the control for
  the extra training itself);
* `E->D`: `--cycle-ed 1` (string -> encoder -> decoder -> clean string; reaches the encoder);
* `E->D + D->E`: `--cycle-ed 1 --cycle-de 0.5` (vector -> decoder -> encoder -> vector, encoder only).

For each trained encoder: `charwise eval` (fidelity on held-in and held-out rows, one-typo top-1)
and the real-misspelling benchmark (`benchmarks/approximation/misspellings.py`, top-1/10, same pairs); for each
decoder: `charwise decoder train`'s report (greedy exact match of held-in and held-out words from
rows and from the encoder's vectors of clean and noisy strings). The shipped encoder and decoder
are the reference row. Runs already finished in `--work` are reused, so the script resumes.

Writes benchmarks/results/cycle_loops_minilm.json and .png.
Run: python -m benchmarks.correction.cycle_loops [--steps 600 --work runs/abl]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.common.paths import RESULTS, ROOT
from benchmarks.common.report import write_result
from benchmarks.correction.render import render_cycle_loops as render  # noqa: F401  (make_results reads it)

WRITES = ("cycle_loops",)
PAGE = "decoder.md"

OUT = RESULTS
SHIPPED_DECODER = "src/charwise/pretrained/decoders/minilm"
RUNS = {"no loops": ("none", ["--cycle-ed", "0"]), "E->D": ("ed", ["--cycle-ed", "1"]),
        "E->D + D->E": ("ed_de", ["--cycle-ed", "1", "--cycle-de", "0.5"])}


def run_python(args: list[str]) -> None:
    print("+", " ".join(args), flush=True)
    subprocess.run([sys.executable, *args], check=True, cwd=ROOT, env={**os.environ, "HF_HUB_OFFLINE": "1"})


def fidelity(report: dict) -> dict:
    return {"heldin_avg_prec": report["heldin"]["avg_prec"], "heldin_cosine": report["heldin"]["cosine"],
            "heldout_prec1": report["heldout"]["prec@1"], "one_typo_top1": report["noise"]["mean"]["top1"],
            "raw_heldin_cosine": report["raw"]["heldin"]["cosine"]}


def spelling(report: dict) -> dict:
    return {f"{group}_{source}": report[group][source]["greedy"]["exact"]
            for group in ("heldin", "heldout") for source in ("rows", "encoder_clean", "encoder_noisy")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--work", default="runs/abl")
    args = ap.parse_args()
    result = run(args)
    write_result(OUT / "cycle_loops_minilm.json", result, plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The three runs (those finished in ``--work`` reused), their evaluations and the shipped reference row."""
    work = ROOT / args.work
    cli = ["-m", "charwise.cli"]
    for folder, flags in RUNS.values():
        out = work / folder
        if not (out / "eval.json").is_file():
            run_python([*cli, "decoder", "train", "--encoder", "minilm", "--init-decoder", SHIPPED_DECODER,
                        "--train-encoder", *flags, "--out", str(out), "--steps", str(args.steps), "--eval-every", "200",
                        "--quiet"])
        if not (out / "fidelity.json").is_file():
            run_python([*cli, "eval", str(out / "encoder"), "--json", str(out / "fidelity.json")])
    misspelled = work / "misspellings.json"
    if not misspelled.is_file():
        run_python(["-m", "benchmarks.approximation.misspellings", "--teachers", "minilm", "--threads", "1",
                    "--pyspell-budget", "0",
                    "--json", str(misspelled),
                    *[f"--encoder={name}={work / folder / 'encoder'}" for name, (folder, _) in RUNS.items()]])
    systems = json.loads(misspelled.read_text())["teachers"]["minilm"]["systems"]
    rows = [{"run": "shipped (no further training)", "steps": 0,
             **fidelity(json.loads((OUT / "eval_minilm_v2.json").read_text())),
             **spelling(json.loads((OUT / "decoder_minilm.json").read_text())),
             "misspellings_top1": systems["charwise"]["top1"], "misspellings_top10": systems["charwise"]["top10"]}]
    for name, (folder, flags) in RUNS.items():
        out = work / folder
        rows.append({"run": name, "flags": " ".join(flags), "steps": args.steps,
                     **fidelity(json.loads((out / "fidelity.json").read_text())),
                     **spelling(json.loads((out / "eval.json").read_text())),
                     "misspellings_top1": systems[name]["top1"], "misspellings_top10": systems[name]["top10"]})
    result = {"benchmark": "cycle-loop ablation, MiniLM, encoder trained", "steps": args.steps,
              "command": f"python -m benchmarks.correction.cycle_loops --steps {args.steps} --work {args.work}",
              "common": "charwise decoder train --encoder minilm --init-decoder " + SHIPPED_DECODER
              + " --train-encoder --eval-every 200 (rows 1, approx 1, noise mixed 0.5)", "rows": rows}
    return result


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = [("misspellings_top1", "real misspellings top-1"), ("one_typo_top1", "one typo top-1"),
               ("heldin_encoder_noisy", "decoder: noisy -> clean"), ("heldout_encoder_clean", "decoder: held-out")]
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(result["rows"])
    for j, row in enumerate(result["rows"]):
        ax.bar([i + width * j for i in range(len(metrics))], [100 * row[m] for m, _ in metrics], width=width,
               label=row["run"])
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(metrics))], [label for _, label in metrics], fontsize=8)
    ax.set_ylabel("%")
    ax.set_title(f"Cycle loops, MiniLM, {result['steps']} steps with the encoder trained")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
