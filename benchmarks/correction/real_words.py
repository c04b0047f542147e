"""Real-word errors on development data: choose the checker's margin here (never on test sets).

    OMP_NUM_THREADS=1 python -m benchmarks.correction.real_words
    OMP_NUM_THREADS=1 python -m benchmarks.correction.real_words --context smollm2   # -> real_words_smollm2.*
    OMP_NUM_THREADS=1 python -m benchmarks.correction.real_words --edited            # -> real_words_edited.*

``--edited`` measures sets that were tried for edited text and left out (:data:`EDITED_TEXT_SETS`), on
UD EWT dev alone, beside the shipped ones.

Data (development, seeded): UD EWT dev and WNUT17 dev sentences. ``errors``: every sentence holding a word of a
confusion set gets one such word replaced by another member of its set (case kept): the checker
should put it back. ``clean``: the same sentences as written: every change there is a false alarm
(EWT holds a few real-word errors of its own; they count against the checker here).

For each margin: errors corrected (%), clean confusion-set words changed (%), clean words changed (%
of all words), and per confusion set the errors corrected and the false alarms, so that a set that
only does harm can be seen and dropped. JSON + PNG under ``benchmarks/results/real_words.*``.

With ``--context smollm2`` the language model judges, as ``Speller.load("en", context="smollm2")``
does (:func:`charwise.speller.real_words.check_sentences`): each member in place of the word in its
window, margins in nats, the member the bigram counts favour too (``lm_verdict``); with ``--items``
on a seeded sample of the swaps and clean words; the bigram checker at its shipped margin on the
same words beside it (``real_words_smollm2.*``).
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
PAGE = "correction-experiments.md"

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--margins", type=float, nargs="+", default=None,
                        help="margins to sweep: log10 for the bigrams (default 0.5 to 4), nats with --context "
                             "smollm2 (default 2 to 10)")
    parser.add_argument("--context", default="ngram", choices=["ngram", "smollm2"],
                        help="who judges: the bigram counts, or SmolLM2 reading each member in its window")
    parser.add_argument("--items", type=int, default=0,
                        help="with --context smollm2: a seeded sample of this many swaps and as many times two "
                             "clean words (0: all; the language model reads about 3 windows a second)")
    parser.add_argument("--edited", action="store_true",
                        help="the sets tried for edited text and left out (EDITED_TEXT_SETS) beside the shipped ones, "
                             "on UD EWT dev alone -> real_words_edited.json")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="default: real_words.json (real_words_smollm2.json)")
    args = parser.parse_args(argv)
    if args.edited and args.context != "ngram":
        parser.error("--edited measures the bigram checker (leave --context out)")
    if args.margins is None:
        args.margins = ([0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0] if args.context == "ngram"
                        else [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0])
    if args.out is None:
        args.out = RESULTS / ("real_words_edited.json" if args.edited else "real_words.json" if args.context == "ngram"
                              else "real_words_smollm2.json")
    command = " ".join(["python -m benchmarks.correction.real_words", *sys.argv[1:]])
    return write_result(args.out, {"command": command, **run(args)}, plot)


# Sets tried for edited text and left out: informal text defeats them (``log off now``, ``and than
# you``), and in edited text too their changes to real sentences were mostly wrong (docs/correction.md)
EDITED_TEXT_SETS = (("of", "off"), ("to", "too"), ("though", "thought"), ("on", "one"), ("every", "very"),
                    ("an", "and"), ("hear", "here"), ("buy", "by"), ("then", "than"))
Gain = tuple[str, float] | None  # the best other member and how much better it fits; None: no verdict


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The checker at every margin on the seeded errors and the clean sentences."""
    from charwise.speller.corrections import same_case
    from charwise.speller.real_words import CONFUSION_SETS, RealWordChecker, adjacent_words
    from charwise.tagging.data import load_task
    from charwise.training.scorer import clean_dev_words

    edited = getattr(args, "edited", False)
    checker = RealWordChecker.load("en")
    if edited:
        checker = RealWordChecker(checker.context, [*CONFUSION_SETS["en"], *EDITED_TEXT_SETS], checker.settings)
    alternatives = checker.alternatives
    rng = random.Random(args.seed)
    sentences = clean_dev_words("en")
    if not edited:  # the tried sets were meant for edited text
        sentences += [s.words for s in load_task("wnut17", splits=("dev",)).dev]
    errors: list[tuple[list[str], int, str]] = []  # (noisy words, position, the word it should be)
    clean_positions: list[tuple[list[str], int]] = []
    for words in sentences:
        positions = [i for i, w in enumerate(words) if w.lower() in alternatives]
        clean_positions += [(words, i) for i in positions]
        if positions:
            i = rng.choice(positions)
            wrong = rng.choice(alternatives[words[i].lower()])
            errors.append((words[:i] + [same_case(words[i], wrong)] + words[i + 1 :], i, words[i].lower()))
    total_words = sum(len(w) for w in sentences)
    role = ("development: UD EWT dev, seeded swaps, the sets tried for edited text included" if edited
            else "development: UD EWT dev + WNUT17 dev, seeded swaps")
    result: dict[str, Any] = {"role": role, "sentences": len(sentences),
                              "words": total_words, "errors": len(errors), "clean_set_words": len(clean_positions),
                              "shipped_margin": checker.settings.margin, "context": args.context}
    if args.context == "smollm2" and args.items:
        sample = random.Random(f"{args.seed}-sample")
        errors = sample.sample(errors, min(args.items, len(errors)))
        clean_positions = sample.sample(clean_positions, min(2 * args.items, len(clean_positions)))
        # the clean words of the sample stand for all: a rate per word scales by the share sampled
        total_words = round(total_words * len(clean_positions) / result["clean_set_words"])
        result.update(sampled_errors=len(errors), sampled_clean_set_words=len(clean_positions),
                      sampled_words=total_words)
    bigram_errors = [checker.gain(w, i) for w, i, _ in errors]
    bigram_clean = [checker.gain(w, i) for w, i in clean_positions]
    if args.context == "ngram":
        error_gains, clean_gains = bigram_errors, bigram_clean
    else:
        from charwise.speller.neural import LMReranker
        from charwise.speller.normalisation_judge import lm_gains
        from charwise.speller.real_words import LM_MARGIN, lm_verdict

        lm = LMReranker.load("smollm2")
        items = [(w, i) for w, i, _ in errors] + clean_positions
        gains: list[Gain] = []
        for start in range(0, len(items), 64):  # the runtime's rule: a word right beside it on each side
            chunk = items[start : start + 64]
            found = lm_gains(lm, [w for w, _ in chunk], [(k, i, w[i], checker.alternatives[w[i].lower()])
                                                       for k, (w, i) in enumerate(chunk)])
            gains += [lm_verdict(g, checker.gain(w, i)) if None not in adjacent_words(w, i) else None
                      for (w, i), g in zip(chunk, found)]
            print(f"  {start + len(chunk)} of {len(items)} read", flush=True)
        error_gains, clean_gains = gains[: len(errors)], gains[len(errors) :]
        result["shipped_lm_margin"] = LM_MARGIN
        result["bigram_same_items"] = sweep(bigram_errors, bigram_clean, errors, clean_positions, total_words,
                                            [checker.settings.margin])
    result["margins"] = sweep(error_gains, clean_gains, errors, clean_positions, total_words, args.margins)
    return result


def sweep(error_gains: list[Gain], clean_gains: list[Gain], errors: list[tuple[list[str], int, str]],
          clean_positions: list[tuple[list[str], int]], total_words: int, margins: list[float]) -> dict[str, Any]:
    """Per margin: swaps put back, swaps changed to a third word, clean words changed, by pair."""
    rows: dict[str, Any] = {}
    for margin in margins:
        fixed_by: Counter[str] = Counter()
        errors_by: Counter[str] = Counter()
        alarms_by: Counter[str] = Counter()
        fixed = wrong_fix = 0
        for gain, (words, i, gold) in zip(error_gains, errors):
            key = "/".join(sorted({gold, words[i].lower()}))
            errors_by[key] += 1
            if gain is not None and gain[1] >= margin:
                if gain[0] == gold:
                    fixed += 1
                    fixed_by[key] += 1
                else:
                    wrong_fix += 1
        alarms = 0
        for gain, (words, i) in zip(clean_gains, clean_positions):
            if gain is not None and gain[1] >= margin:
                alarms += 1
                alarms_by["/".join(sorted({gain[0], words[i].lower()}))] += 1
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
    return rows


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()

    margins = [float(m) for m in result["margins"]]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(margins, [r["errors_corrected"] for r in result["margins"].values()], "o-", label="errors corrected %")
    ax2 = ax.twinx()
    ax2.plot(margins, [r["clean_words_changed"] for r in result["margins"].values()], "s--", color="tab:red",
             label="clean words changed %")
    ax.set_xlabel("margin (log10)" if result.get("context", "ngram") == "ngram" else "margin (nats, SmolLM2)")
    ax.set_ylabel("errors corrected %")
    ax2.set_ylabel("clean words changed %")
    ax.axvline(result.get("shipped_lm_margin", result["shipped_margin"]), color="grey", lw=0.8)
    ax.set_title("Real-word errors, " + ("UD EWT dev, tried sets too" if "tried" in result.get("role", "")
                                         else "UD EWT + WNUT17 dev") + " (development)")
    fig.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
