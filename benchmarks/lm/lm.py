"""Kim et al.'s claim on the Bible: a character-aware LSTM language model against a word LSTM.

For each language (`en`: King James Version; `es`: Reina-Valera 1909, morphologically richer) and
each preset (`word-small` / `char-small` by default; `-large` where time allows), one
`charwise lm train` run (the split by book of `charwise.lm.data`: validation Daniel + Hebrews, test
Zechariah, Malachi, Jude, Revelation), then `charwise lm eval` (validation and test perplexity,
batch 1, state carried through the whole split; OOV rates). Reported: parameters, perplexities,
minutes per epoch (training steps only), the ratio char / word per language, and Kim et al.'s
table 6 for a few words (nearest words before / after the highway layers; the word model's
embedding neighbours where it has the word).

Runs finished in `--work` are reused (a killed run resumes from its checkpoint), so the script can
be re-run until it has every row. Writes benchmarks/results/lm.json and .png.
Run: python -m benchmarks.lm.lm [--epochs 1 --max-train-tokens 0 --languages en es --presets word-small char-small]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.common.paths import RESULTS, ROOT
from benchmarks.common.report import write_result
from benchmarks.lm.render import render_lm as render  # noqa: F401  (make_results reads it)

WRITES = ("lm",)
PAGE = "lm.md"

OUT = RESULTS
QUERIES = {"en": ["LORD", "king", "said", "kings", "kingdoms", "LOOOORD", "kingg", "reigneth", "shepherds'"],
           "es": ["Señor", "rey", "dijo", "reyes", "reinos", "SEÑOOOR", "reyy", "reinaréis", "pastoras"]}


def run_cli(args: list[str]) -> None:
    print("+", " ".join(args), flush=True)
    subprocess.run([sys.executable, "-m", "charwise.cli", *args], check=True, cwd=ROOT,
                   env={**os.environ, "HF_HUB_OFFLINE": "1"})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--languages", nargs="+", default=["en", "es"])
    ap.add_argument("--presets", nargs="+", default=["word-small", "char-small"])
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--max-train-tokens", type=int, default=0)
    ap.add_argument("--work", default="runs/lm")
    ap.add_argument("--collect", action="store_true", help="only collect finished runs into the JSON")
    ap.add_argument("--json", default=str(OUT / "lm.json"), help="where to write the results (and the .png beside)")
    args = ap.parse_args()
    result = run(args)
    write_result(Path(args.json), result, plot)


def run(args: argparse.Namespace) -> dict:
    """Every (language, preset) run (finished ones in ``--work`` reused; none started with ``--collect``)
    and its evaluation."""
    work = ROOT / args.work
    rows = []
    for language in args.languages:
        for preset in args.presets:
            out = work / f"{language}-{preset}"
            report = out / "eval.json"
            if not args.collect and not report.is_file():
                resume = ["--resume"] if (out / "checkpoint").is_dir() else []
                run_cli(["lm", "train", "--language", language, "--preset", preset, "--out", str(out), "--epochs",
                         str(args.epochs), "--max-train-tokens", str(args.max_train_tokens), "--quiet", *resume])
                run_cli(["lm", "eval", str(out / "model"), "--json", str(report)])
            if not report.is_file():
                continue
            rep = json.loads(report.read_text())
            log = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines() if line.strip()]
            state = json.loads((out / "checkpoint" / "state.json").read_text())
            from charwise.lm.explore import nearest_words
            from charwise.lm.model import CharAwareLM

            model = CharAwareLM.from_pretrained(out / "model")
            stages = ["cnn", "highway"] if model.config.input == "chars" else ["highway"]
            rows.append({"language": language, "preset": preset, "parameters": rep["parameters"],
                         "epochs": state["epoch"], "steps": state["step"],
                         "minutes_per_epoch": round(state["train_seconds"] / 60 / max(1, state["epoch"]), 1),
                         "validation_ppl": round(rep["validation"]["ppl"], 2), "test_ppl": round(rep["test"]["ppl"], 2),
                         "train_tokens": rep["data"]["train_tokens"], "vocabulary": rep["data"]["vocabulary"],
                         "test_oov": rep["data"]["test_oov"], "validation_oov": rep["data"]["validation_oov"],
                         "validations": [round(r["validation"]["ppl"], 2) for r in log if "validation" in r],
                         "neighbours": {stage: nearest_words(model, QUERIES[language], 5, stage) for stage in stages}})
    ratios = {}
    for language in args.languages:
        mine = {r["preset"].split("-")[1]: {} for r in rows if r["language"] == language}
        for r in rows:
            if r["language"] == language:
                mine[r["preset"].split("-")[1]][r["preset"].split("-")[0]] = r["test_ppl"]
        ratios[language] = {size: round(v["char"] / v["word"], 3) for size, v in mine.items() if len(v) == 2}
    result = {"benchmark": "character-aware vs word LSTM language models, Bible split by book",
              "command": f"python -m benchmarks.lm.lm --epochs {args.epochs} "
                         f"--max-train-tokens {args.max_train_tokens} "
                         f"--languages {' '.join(args.languages)} --presets {' '.join(args.presets)}"
              + ("" if Path(args.json) == OUT / "lm.json"
                 else f" --json {Path(args.json).resolve().relative_to(ROOT)}"),
              "threads_per_run": os.environ.get("OMP_NUM_THREADS", "default"), "rows": rows,
              "char_over_word_test_ppl": ratios}
    return result


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["rows"]
    fig, ax = plt.subplots(figsize=(6, 4))
    labels = [f"{r['language']}\n{r['preset']}\n{r['parameters'] / 1e6:.1f} M" for r in rows]
    ax.bar(range(len(rows)), [r["test_ppl"] for r in rows],
           color=["tab:orange" if r["preset"].startswith("char") else "tab:blue" for r in rows])
    ax.set_xticks(range(len(rows)), labels, fontsize=8)
    ax.set_ylabel("test perplexity (lower is better)")
    ax.set_title("Bible LMs: word vs character input")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
