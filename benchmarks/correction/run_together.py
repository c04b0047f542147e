"""Words run together cut apart without a language model (``noteven`` -> ``not even``): every candidate
of :mod:`charwise.speller.run_together` on real text, with its evidence, the hand label of
``run_together_labels.tsv`` and the probability of the split decision fitted here.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.run_together           # fit, measure
    OMP_NUM_THREADS=1 python -m benchmarks.correction.run_together --ship    # and write the decision
    OMP_NUM_THREADS=2 python -m benchmarks.correction.run_together --context smollm2  # SmolLM2's gain too

The default English speller, its cuts left out, corrects each text; every unchanged word of its
output that may run words together is a candidate (:func:`~charwise.speller.run_together.split_candidates`).

Roles: ``dev`` (the LexNorm 2015 training tweets, UD EWT dev, the ``gurez`` tenth of WNUT17's raw
tweets and web text) and ``fresh`` (WNUT17's raw YouTube comments, Reddit posts and Stack Overflow
text) are the fitting texts: every candidate in them was read and labelled, and the decision (a
logistic model, each cut read weighed once) is fitted there; its threshold is chosen on its
probabilities out of fold (five folds, a written form never in two), where right - 9 x wrong is
highest: what a lower threshold adds is right less than nine times in ten. ``held-out`` (the
``rigo``, ``ile`` and ``palm`` tenths of WNUT17's raw tweets) was read only after the decision was
shipped: its cuts at the threshold are labelled, the rest not.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from benchmarks.common.labels import fit_labelled, in_context, nine_to_one, read_labels, tallies
from benchmarks.common.paths import RESULTS, SPELLING_DATA
from benchmarks.common.report import plot_right_wrong, write_result
from benchmarks.correction.render import render_run_together as render  # noqa: F401  (make_results reads it)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
WRITES = ("run_together",)
PAGE = "correction-experiments.md"
LABELS = Path(__file__).parent / "run_together_labels.tsv"
DATA = Path(__file__).resolve().parents[2] / "src" / "charwise" / "data"
RAW = DATA / "wnut17" / "raw_text"
ROLES = ("dev", "fresh", "held-out")
FITTING = ("dev", "fresh")
THRESHOLDS = tuple(round(0.05 * k, 2) for k in range(1, 20))
FOLDS = 5
# inverse L2 strength on the raw features: 1 (scikit-learn's default) shrinks ``listed`` until the
# decision makes fewer right cuts than the list alone (out of fold: 92 right, 7 wrong against 73, 0);
# 10 and above give the same cuts (90 right, 1 wrong)
STRENGTH = 10.0


def texts(role: str) -> dict[str, list[str]]:
    """Raw lines of each text of ``role``."""
    from benchmarks.common.retrieval import ewt_texts
    from benchmarks.correction.lexnorm import read_tweets

    if role == "fresh":
        return {name: (RAW / name).read_text(encoding="utf-8").splitlines()
                for name in ("yt-filter", "redd.tok.uniq", "stacko-src")}
    if role == "held-out":
        return {name: (RAW / name).read_text(encoding="utf-8").splitlines()
                for name in ("rigo.10000", "ile.10000", "palm.10000")}
    tweets = read_tweets(SPELLING_DATA / "lexnorm2015_en" / "train.norm")
    return {"lexnorm2015 train": [" ".join(raw for raw, _ in t) for t in tweets],
            "ud ewt dev": ewt_texts(DATA / "ud_en_ewt" / "en_ewt-ud-dev.conllu"),
            "wnut17 raw gurez": (RAW / "gurez.10000").read_text(encoding="utf-8").splitlines()}


def candidates(roles: tuple[str, ...], limit: int | None, context: str | None = None) -> list[dict[str, Any]]:
    """Every candidate cut of the texts of ``roles``, with its features and hand label; with a
    ``context`` model, its gain for the cut in place of the word too (nats; the candidates and their
    neighbours are the default speller's)."""
    import dataclasses

    from charwise.speller import Speller
    from charwise.speller.context import NgramContext
    from charwise.speller.neural import load_context_model
    from charwise.speller.normalisation_judge import lm_gains
    from charwise.speller.run_together import SPLIT, split_candidates

    speller = Speller.load("en")
    speller.settings = dataclasses.replace(speller.settings,
                                           changes=tuple(k for k in speller.settings.changes if k != SPLIT))
    assert speller.normaliser is not None
    labels, counts = read_labels(LABELS, keys=2), NgramContext.load("en")
    lm = None if context is None else load_context_model(context, "en")
    found: list[dict[str, Any]] = []
    for role in roles:
        for name, lines in texts(role).items():
            rows = [text.words for text in speller.correct_lines(lines[:limit])]
            here = split_candidates(rows, speller.lexicon, speller.normaliser.rules, [True] * len(rows), counts)
            if lm is not None:  # the model's gain for the cut in place of the word, a fifth feature
                words = [[e.correction for e in row] for row in rows]
                gains = lm_gains(lm, words, [(s, i, words[s][i], [cut]) for s, i, cut, _ in here])
                here = [(s, i, cut, [*f, g[cut]]) for (s, i, cut, f), g in zip(here, gains)]
            for s, i, cut, features in here:
                shown = in_context([x.word for x in rows[s]], i, i + 1)
                label, why = labels.get((cut, shown), ("not labelled", ""))
                found.append({"role": role, "text": name, "word": rows[s][i].word.lower(), "cut": cut,
                              "features": [round(v, 4) for v in features], "context": shown,
                              "label": label, "why": why})
    return found


def choose(fitting: list[dict[str, Any]], out_of_fold: list[float]) -> tuple[float, dict[str, dict[str, int]]]:
    """The threshold where right - 9 x wrong is highest on the out-of-fold probabilities (the lower
    of a tie), and the sweep it was chosen on."""
    sweep = {f"{t:g}": tallies(fitting, [p >= t for p in out_of_fold]) for t in THRESHOLDS}
    return nine_to_one(sweep, THRESHOLDS), sweep


def run(args: argparse.Namespace) -> dict[str, Any]:
    from charwise.speller.run_together import SPLIT_FEATURES, SplitDecision

    found = candidates(args.roles, args.limit, args.context)
    fitting = [f for f in found if f["role"] in FITTING and f["label"] != "not labelled"]
    weights, bias, oof = fit_labelled(fitting, STRENGTH, FOLDS)
    threshold, sweep = choose(fitting, oof)
    source = (f"benchmarks/correction/run_together.py ({args.date}): fitted on the {len(fitting)} candidate cuts of "
              "the development and fresh texts read by hand; the threshold where "
              f"right - 9 x wrong is highest out of fold ({FOLDS} folds by written form)")
    decision = SplitDecision(tuple(weights), bias, threshold, source)
    fitted = {**decision.to_dict(), "features": [*SPLIT_FEATURES, *(["lm gain"] if args.context else [])]}
    for item, p in zip(fitting, oof):
        item["out_of_fold"] = round(p, 4)
    for item in found:
        item["probability"] = round(decision.probability(item["features"]), 4)
    by_text: dict[str, Any] = {}
    for name in dict.fromkeys(f["text"] for f in found):
        here = [f for f in found if f["text"] == name]
        scored = [f.get("out_of_fold", f["probability"]) for f in here]
        by_text[name] = {"role": here[0]["role"], "candidates": len(here),
                         "decision": tallies(here, [p >= threshold for p in scored]),
                         "listed rule": tallies(here, [bool(f["features"][1]) for f in here])}
    if args.ship:
        from charwise.io import write_json

        write_json(SplitDecision.path("en"), decision.to_dict())
    given = (["--context", args.context] if args.context else []) + (["--ship"] if args.ship else [])
    return {"command": " ".join(["python -m benchmarks.correction.run_together", *given]), "context": args.context,
            "roles": list(args.roles), "decision": fitted, "sweep_out_of_fold": sweep,
            "texts": by_text, "found": sorted(found, key=lambda f: -f["probability"])}


def plot(result: dict[str, Any], path: Path) -> None:
    plot_right_wrong({"": result["sweep_out_of_fold"]}, result["decision"]["threshold"], "chosen",
                     "threshold on the decision's probability (out of fold)",
                     f"{result.get('unit', 'cuts')} in the fitting texts", path)


def main(argv: list[str] | None = None) -> int:
    import datetime

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--roles", nargs="+", choices=ROLES, default=ROLES)
    parser.add_argument("--limit", type=int, default=None, help="the first lines of each text only")
    parser.add_argument("--ship", action="store_true", help="write the fitted decision into charwise/data")
    parser.add_argument("--date", default=datetime.date.today().isoformat(), help="recorded in the source")
    parser.add_argument("--context", choices=("smollm2",), default=None,
                        help="fit with this language model's gain for each cut as a fifth feature (measured, "
                             "not shipped: the speller reads the four)")
    parser.add_argument("--out", type=Path, default=None,
                        help="default: results/run_together.json, run_together_smollm2.json with --context")
    args = parser.parse_args(argv)
    suffix = "" if args.context is None else f"_{args.context}"
    args.out = args.out or RESULTS / f"run_together{suffix}.json"
    args.roles = tuple(args.roles)
    if args.ship and args.context:
        parser.error("--ship writes the speller's decision, which reads no language model: drop --context")
    if not set(FITTING) <= set(args.roles):
        parser.error("the decision is fitted on the dev and fresh texts: --roles must include both")
    return write_result(args.out, run(args), plot)


if __name__ == "__main__":
    sys.exit(main())
