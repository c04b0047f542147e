"""Real-word errors on development data: choose the checker's margin here (never on test sets).

    OMP_NUM_THREADS=1 python -m benchmarks.correction.real_words

Data (development, seeded): UD EWT dev and WNUT17 dev sentences. ``errors``: every sentence holding a word of a
confusion set gets one such word replaced by another member of its set (case kept): the checker
should put it back. ``clean``: the same sentences as written: every change there is a false alarm
(EWT holds a few real-word errors of its own; they count against the checker here).

For each margin: errors corrected (%), clean confusion-set words changed (%), clean words changed (%
of all words), and per confusion set the errors corrected and the false alarms, so that a set that
only does harm can be seen and dropped. JSON + PNG under ``benchmarks/results/real_words.*``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.common.paths import RESULTS
from benchmarks.common.report import pyplot, write_result
from benchmarks.correction.render import render_real_words as render  # noqa: F401  (make_results reads it)

WRITES = ("real_words",)
PAGE = "correction.md"

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--margins", type=float, nargs="+", default=[0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS / "real_words.json")
    args = parser.parse_args(argv)
    command = " ".join(["python -m benchmarks.correction.real_words", *sys.argv[1:]])
    return write_result(args.out, {"command": command, **run(args)}, plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The checker at every margin on the seeded errors and the clean sentences."""
    from charwise.speller.corrections import same_case
    from charwise.speller.real_words import RealWordChecker
    from charwise.training.scorer import clean_dev_words

    checker = RealWordChecker.load("en")
    rng = random.Random(args.seed)
    from charwise.tagging.data import load_task

    sentences = clean_dev_words("en") + [s.words for s in load_task("wnut17", splits=("dev",)).dev]
    errors: list[tuple[list[str], int, str]] = []  # (noisy words, position, the word it should be)
    clean_positions: list[tuple[list[str], int]] = []
    for words in sentences:
        positions = [i for i, w in enumerate(words) if w.lower() in checker.alternatives]
        clean_positions += [(words, i) for i in positions]
        if positions:
            i = rng.choice(positions)
            wrong = rng.choice(checker.alternatives[words[i].lower()])
            errors.append((words[:i] + [same_case(words[i], wrong)] + words[i + 1 :], i, words[i].lower()))
    total_words = sum(len(w) for w in sentences)
    # each position's best other member and its gain; a margin is then a comparison
    error_gains = [(checker.gain(w, i), gold, w[i].lower()) for w, i, gold in errors]
    clean_gains = [(checker.gain(w, i), w[i].lower()) for w, i in clean_positions]
    rows: dict[str, Any] = {}
    for margin in args.margins:
        fixed_by: Counter[str] = Counter()
        errors_by: Counter[str] = Counter()
        alarms_by: Counter[str] = Counter()
        fixed = wrong_fix = 0
        for gain, gold, written in error_gains:
            key = "/".join(sorted({gold, written}))
            errors_by[key] += 1
            if gain is not None and gain[1] >= margin:
                if gain[0] == gold:
                    fixed += 1
                    fixed_by[key] += 1
                else:
                    wrong_fix += 1
        alarms = 0
        for gain, written in clean_gains:
            if gain is not None and gain[1] >= margin:
                alarms += 1
                alarms_by["/".join(sorted({gain[0], written}))] += 1
        rows[f"{margin:g}"] = {
            "errors_corrected": round(100 * fixed / max(1, len(errors)), 2),
            "errors_changed_wrongly": wrong_fix,
            "clean_set_words_changed": round(100 * alarms / max(1, len(clean_positions)), 3),
            "clean_words_changed": round(100 * alarms / max(1, total_words), 4),
            "false_alarms": alarms,
            "by_pair": {k: {"errors": errors_by[k], "corrected": fixed_by[k], "false_alarms": alarms_by[k]}
                        for k in sorted(set(errors_by) | set(alarms_by))},
        }
        print(f"margin {margin:g}: corrected {rows[f'{margin:g}']['errors_corrected']} %, false alarms "
              f"{alarms} ({rows[f'{margin:g}']['clean_words_changed']} % of words)", flush=True)
    return {"role": "development: UD EWT dev + WNUT17 dev, seeded swaps", "sentences": len(sentences),
            "words": total_words, "errors": len(errors), "clean_set_words": len(clean_positions),
            "shipped_margin": checker.settings.margin, "margins": rows}


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()

    margins = [float(m) for m in result["margins"]]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(margins, [r["errors_corrected"] for r in result["margins"].values()], "o-", label="errors corrected %")
    ax2 = ax.twinx()
    ax2.plot(margins, [r["clean_words_changed"] for r in result["margins"].values()], "s--", color="tab:red",
             label="clean words changed %")
    ax.set_xlabel("margin (log10)")
    ax.set_ylabel("errors corrected %")
    ax2.set_ylabel("clean words changed %")
    ax.axvline(result["shipped_margin"], color="grey", lw=0.8)
    ax.set_title("Real-word errors, UD EWT + WNUT17 dev (development)")
    fig.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
