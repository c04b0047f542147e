"""The Subword-to-Word Transformer on Spanish -> English (Reina-Valera 1909 -> King James Version).

Rows (all the same size, data, split and schedule; see ROWS):

* transformer: the baseline, every layer on subwords;
* transformer+copy: Sennrich & Haddow: the word features (lemma, shape) added to every piece;
* s2w: N_sw encoder layers on subwords, a GRU merge, the rest on words; the first decoder layers
  read words, the last ones subwords;
* s2w+merge: the features added once per word, after the merge;
* s2w-words: every decoder layer reads word states only;
* s2w+chars: a character vector of each word (CharCNN + highway, trained with the model) added
  after the merge.

Each run is `charwise translate train` then `charwise translate eval` on the test split, clean and
with realistic Spanish typos in a share of the source words (`--typos`). Reported: BLEU and chrF
(sacrebleu, signatures stored), copy accuracy of names and numbers, BLEU with typos, parameters,
positions per sentence in the upper encoder layers, training target pieces/s and decoding
sentences/s (beam 5). Seeds: `--seeds 0 1` for every row, or `--key-seeds` for the rows the
targets compare (transformer, s2w, transformer+copy, s2w+merge).

`--average-last K` trains with checkpoint averaging (the mean of the weights at the last K
evaluations) and also scores the averaged model (the `*_averaged` columns).

Runs finished in `--work` are reused (a killed run resumes), so several copies of the script can
run side by side on different `--rows` and a last `--collect` gathers them.
Writes benchmarks/results/translation.json and .png.
Run: python -m benchmarks.translation.translation [--rows ...] [--seeds 0] [--steps 400] [--split verses]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks.common.paths import RESULTS, ROOT
from benchmarks.translation.render import render_translation as render  # noqa: F401  (make_results reads it)
from charwise.io import write_json

WRITES = ("translation",)
PAGE = "translation.md"

OUT = RESULTS
ROWS: dict[str, list[str]] = {
    "transformer": ["--architecture", "transformer"],
    "transformer+copy": ["--architecture", "transformer", "--features", "copy"],
    "s2w": ["--architecture", "s2w"],
    "s2w+merge": ["--architecture", "s2w", "--features", "merge"],
    "s2w-words": ["--architecture", "s2w-words"],
    "s2w+chars": ["--architecture", "s2w", "--char-vectors"],
}


def run_cli(args: list[str]) -> None:
    print("+", " ".join(args), flush=True)
    subprocess.run([sys.executable, "-m", "charwise.cli", *args], check=True, cwd=ROOT,
                   env={**os.environ, "HF_HUB_OFFLINE": "1"})


def one_run(row: str, seed: int, args: argparse.Namespace) -> dict | None:
    out = ROOT / args.work / f"{args.split}-{row}-s{seed}"
    clean, noisy = out / "test.json", out / "test_typos.json"
    evaluations = [("model", clean, 0.0), ("model", noisy, args.typos)]
    if args.average_last:
        evaluations += [("model-averaged", out / "test_averaged.json", 0.0),
                        ("model-averaged", out / "test_averaged_typos.json", args.typos)]
    averaging = ["--average-last", str(args.average_last)] if args.average_last else []
    if not args.collect:
        if not (out / "model").is_dir() or not (out / "checkpoint" / "state.json").is_file() or \
                json.loads((out / "checkpoint" / "state.json").read_text())["step"] < args.steps:
            resume = ["--resume"] if (out / "checkpoint").is_dir() else []
            run_cli(["translate", "train", "--out", str(out), *ROWS[row], "--split", args.split, "--seed", str(seed),
                     "--steps", str(args.steps), "--eval-every", str(args.eval_every), "--dim", str(args.dim),
                     "--ffn", str(4 * args.dim), "--vocab", str(args.vocab), "--batch-tokens", str(args.batch_tokens),
                     "--warmup", str(args.warmup), "--lr", str(args.lr), "--quiet", *averaging, *resume])
        for model, path, typos in evaluations:
            if not path.is_file():
                run_cli(["translate", "eval", str(out / model), "--beam", str(args.beam), "--typos", str(typos),
                         "--limit", str(args.limit), "--json", str(path), "--quiet"])
    if not all(path.is_file() for _, path, _ in evaluations):
        return None
    c, n = json.loads(clean.read_text()), json.loads(noisy.read_text())
    state = json.loads((out / "checkpoint" / "state.json").read_text())
    info = json.loads((out / "model" / "training.json").read_text())
    data = info["data"]
    pieces_per_step = data["train_target_pieces"] / info["train_batches"]  # the mean batch
    return {"row": row, "seed": seed, "parameters": c["parameters"], "steps": state["step"],
            "best_step": info["step"], "dev_nll": round(info["validation"]["nll"], 4),
            "bleu": c["bleu"], "chrf": c["chrf"], "copy_accuracy": round(c["copy_accuracy"], 2),
            "copy_candidates": c["copy_candidates"], "bleu_typos": n["bleu"], "chrf_typos": n["chrf"],
            "copy_accuracy_typos": round(n["copy_accuracy"], 2), "words_changed_typos": n["words_changed"],
            "upper_encoder_positions_per_sentence": c["upper_encoder_positions_per_sentence"],
            "source_pieces_per_sentence": c["source_pieces_per_sentence"],
            "train_target_pieces_per_s": round(state["step"] * pieces_per_step / state["train_seconds"], 1),
            "decode_sentences_per_s": c["sentences_per_s"], "test_sentences": c["sentences"],
            "bleu_signature": c["bleu_signature"], "chrf_signature": c["chrf_signature"],
            "examples": [{"hypothesis": h} for h in c["hypotheses"][:3]], **averaged(out, args)}


def averaged(out: Path, args: argparse.Namespace) -> dict:
    """The averaged model's scores (runs with ``--average-last``)."""
    if not args.average_last:
        return {}
    c, n = (json.loads((out / name).read_text()) for name in ("test_averaged.json", "test_averaged_typos.json"))
    info = json.loads((out / "model-averaged" / "training.json").read_text())
    return {"averaged_steps": info["averaged_steps"], "dev_nll_averaged": round(info["validation"]["nll"], 4),
            "bleu_averaged": c["bleu"], "chrf_averaged": c["chrf"],
            "copy_accuracy_averaged": round(c["copy_accuracy"], 2), "bleu_typos_averaged": n["bleu"]}


def summarise(rows: list[dict]) -> list[dict]:
    """Mean (and spread where there are several seeds) per row name."""
    out = []
    for name in ROWS:
        mine = [r for r in rows if r["row"] == name]
        if not mine:
            continue
        entry: dict = {"row": name, "seeds": [r["seed"] for r in mine], "parameters": mine[0]["parameters"]}
        for key in ("bleu", "chrf", "copy_accuracy", "bleu_typos", "chrf_typos", "copy_accuracy_typos",
                    "upper_encoder_positions_per_sentence", "train_target_pieces_per_s", "decode_sentences_per_s",
                    "bleu_averaged", "chrf_averaged", "copy_accuracy_averaged", "bleu_typos_averaged"):
            if key not in mine[0]:
                continue
            values = [r[key] for r in mine]
            entry[key] = round(statistics.mean(values), 2)
            if len(values) > 1:
                entry[key + "_sd"] = round(statistics.stdev(values), 2)
        out.append(entry)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", nargs="+", default=list(ROWS), choices=list(ROWS))
    ap.add_argument("--seeds", nargs="+", type=int, default=[0])
    ap.add_argument("--split", default="verses", choices=["verses", "books"])
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--eval-every", type=int, default=200)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--vocab", type=int, default=4000)
    ap.add_argument("--batch-tokens", type=int, default=2048)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("--limit", type=int, default=0, help="score the first N test verses only (0: all)")
    ap.add_argument("--typos", type=float, default=0.2, help="share of eligible source words given typos")
    ap.add_argument("--average-last", type=int, default=0, metavar="K",
                    help="train with checkpoint averaging over the last K evaluations; score both models")
    ap.add_argument("--work", default="runs/translate")
    ap.add_argument("--json", help="output file (default: benchmarks/results/translation[_SPLIT].json; the PNG "
                                   "beside it)")
    ap.add_argument("--collect", action="store_true", help="only gather finished runs into the JSON")
    args = ap.parse_args()
    result = run(args)
    if args.collect or set(args.rows) == set(ROWS):  # a subset of the rows waits for a --collect
        suffix = "" if args.split == "verses" else "_" + args.split
        path = Path(args.json) if args.json else OUT / f"translation{suffix}.json"
        write_json(path, result)
        plot(result["summary"], path.with_suffix(".png"))


def run(args: argparse.Namespace) -> dict:
    """Every (seed, row) asked for (runs finished in ``--work`` reused; with ``--collect``, only those) and
    their summary."""
    rows = []
    for seed in args.seeds:
        for row in (args.rows if not args.collect else list(ROWS)):
            result = one_run(row, seed, args)
            if result is not None:
                rows.append(result)
    summary = summarise(rows)
    by = {s["row"]: s for s in summary}
    targets = {}
    if "transformer" in by and "s2w" in by:
        targets["s2w_bleu_minus_transformer"] = round(by["s2w"]["bleu"] - by["transformer"]["bleu"], 2)
    if "s2w+merge" in by and "transformer+copy" in by:
        targets["merged_minus_copied_bleu"] = round(by["s2w+merge"]["bleu"] - by["transformer+copy"]["bleu"], 2)
    if "s2w-words" in by and "s2w" in by:
        targets["words_only_minus_s2w_copy_accuracy"] = round(
            by["s2w-words"]["copy_accuracy"] - by["s2w"]["copy_accuracy"], 2)
    return {"benchmark": "Spanish -> English on the verse-aligned Bible: Transformer vs S2W, word features, "
                         "character vectors",
            "command": command(rows, args),
            "split": args.split, "threads_per_run": os.environ.get("OMP_NUM_THREADS", "default"),
            "device": "CPU", "summary": summary, "targets": targets, "runs": rows}


def command(rows: list[dict], args: argparse.Namespace) -> str:
    """The options that reproduce ``rows``."""
    seeds = " ".join(map(str, sorted({r["seed"] for r in rows})))
    names = [name for name in ROWS if any(r["row"] == name for r in rows)]
    subset = f"--rows {' '.join(names)} " if len(names) < len(ROWS) else ""
    return (f"python -m benchmarks.translation.translation {subset}--split {args.split} --steps {args.steps} "
            f"--dim {args.dim} "
            f"--vocab {args.vocab} --batch-tokens {args.batch_tokens} --typos {args.typos} --limit {args.limit} "
            f"--eval-every {args.eval_every} --seeds {seeds}"
            + (f" --average-last {args.average_last}" if args.average_last else "")
            + (f" --work {args.work}" if args.work != "runs/translate" else ""))


def plot(summary: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    x = range(len(summary))
    bars = [("bleu", "BLEU clean"), ("bleu_typos", "BLEU with typos")]
    if all("bleu_averaged" in s for s in summary):
        bars.append(("bleu_averaged", "BLEU, checkpoints averaged"))
    width = 0.8 / len(bars)
    for k, (key, label) in enumerate(bars):
        ax.bar([i + (k - (len(bars) - 1) / 2) * width for i in x], [s[key] for s in summary], width, label=label)
    ax.set_xticks(list(x), [s["row"] for s in summary], rotation=20, fontsize=8)
    ax.set_ylabel("BLEU (test)")
    ax.set_title("es -> en Bible: Transformer vs subword-to-word")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
