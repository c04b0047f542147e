"""In informal text, which of the speller's corrections stand: the fitted undo decision of
:mod:`charwise.speller.social_undo` against the judge's probability alone (``undo_below``), on
corrections read by hand.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.social_undo           # fit, measure (about 10 minutes)
    OMP_NUM_THREADS=1 python -m benchmarks.correction.social_undo --ship    # and write the decision

The default English speller corrects every line of the texts below on its own, the undo switched
off; every correction of a word it did not know in a line it reads as informal, that the
normalisation judge took no candidate over, is a row: what the decision reads
(:data:`~charwise.speller.social_undo.UNDO_FEATURES`), the judge's probability and the hand label
of ``social_undo_labels.tsv`` (right when the correction is the word the writer meant, spelled as
edited text spells it; wrong for names, slang, other languages and words mistaken for others).

Roles: ``fitting`` (WNUT17's raw YouTube, Reddit and Stack Overflow texts and the ``rigo`` and
``gurez`` tenths of its raw tweets: every row read) and ``held-out`` (the ``ile`` and ``palm``
tenths: reported, read where the decision and the judge's rule disagree). The decision (a logistic
model, scikit-learn's default strength) is fitted on the fitting rows; its threshold is chosen on
its probabilities out of fold (five folds, a written form never in two): the one that keeps the
most right corrections while keeping no more wrong ones than the judge's ``undo_below`` kept on the
same rows (the higher of a tie). LexNorm's tweets are not read here: they measure the decision
(``lexnorm_misses``, ``lexnorm``).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from benchmarks.common.labels import fit_labelled, in_context, read_labels, tallies, tally
from benchmarks.common.markdown import render_generic as render  # noqa: F401  (make_results reads it)
from benchmarks.common.paths import RESULTS
from benchmarks.common.report import pyplot, save_figure, write_result

if TYPE_CHECKING:
    from charwise.speller.corrections import WordCorrection

os.environ.setdefault("HF_HUB_OFFLINE", "1")
WRITES = ("social_undo",)
PAGE = "correction-experiments.md"
LABELS = Path(__file__).parent / "social_undo_labels.tsv"
RAW = Path(__file__).resolve().parents[2] / "src" / "charwise" / "data" / "wnut17" / "raw_text"
TEXTS = {"fitting": ("yt-filter", "redd.tok.uniq", "stacko-src", "rigo.10000", "gurez.10000"),
         "held-out": ("ile.10000", "palm.10000")}
THRESHOLDS = tuple(round(0.05 * k, 2) for k in range(1, 20))
FOLDS = 5
STRENGTH = 1.0  # scikit-learn's C: its default (0.1 to 100 give out-of-fold AUCs within 0.003 of it)


def shown(line: str, word: str) -> str:
    """The line's words around the first one holding ``word``, it in brackets (the labels' key)."""
    tokens = line.split()
    i = next((k for k, t in enumerate(tokens) if word in t), 0)
    return in_context(tokens, i, i + 1)


def rows_of(names: Sequence[str], limit: int | None) -> list[dict[str, Any]]:
    """Every correction the undo decision reads in the lines of ``names`` (module docstring)."""
    from charwise.speller import Speller
    from charwise.speller.social_undo import UndoDecision

    seen: list[tuple[WordCorrection, list[float]]] = []

    class Everything(UndoDecision):
        """Keeps every correction (the undo switched off) and notes what it read."""

        def keeps(self, features: Sequence[float], entry: WordCorrection | None = None) -> bool:
            if entry is not None:
                seen.append((entry, list(features)))
            return True

    speller = Speller.load("en")
    assert speller.normaliser is not None and speller.normaliser.judge is not None
    speller.normaliser.undo = Everything((0.0,) * len(UndoDecision.FEATURES), 0.0, 0.0, "keeps every correction")
    undo_below = speller.normaliser.judge.undo_below
    labels = read_labels(LABELS, keys=3)
    out: list[dict[str, Any]] = []
    for name in names:
        lines = [line.strip() for line in (RAW / name).read_text(encoding="utf-8", errors="replace").splitlines()
                 if line.strip()][:limit]
        for line in lines:
            seen.clear()
            speller.correct(line)
            last = {id(entry): (entry.word, entry.correction, features) for entry, features in seen}  # the last pass
            for word, correction, features in last.values():
                context = shown(line, word)
                label, why = labels.get((word, correction, context), ("not labelled", ""))
                judged = 1.0 / (1.0 + math.exp(-features[0]))  # back from the log-odds it was given as
                out.append({"text": name, "word": word, "correction": correction, "context": context,
                            "features": [round(v, 4) for v in features], "judged": round(judged, 4),
                            "judge_keeps": judged >= undo_below, "label": label, "why": why})
    return out


def choose(items: list[dict[str, Any]],
           out_of_fold: list[float]) -> tuple[float, dict[str, dict[str, int]], dict[str, int]]:
    """The threshold of the module docstring, the sweep it was chosen on and the judge's rule's tally."""
    sweep = {f"{t:g}": tallies(items, [p >= t for p in out_of_fold]) for t in THRESHOLDS}
    baseline = tallies(items, [item["judge_keeps"] for item in items])
    allowed = [t for t in THRESHOLDS if sweep[f"{t:g}"]["wrong"] <= baseline["wrong"]]
    return max(allowed, key=lambda t: (sweep[f"{t:g}"]["right"], t)), sweep, baseline


def run(args: argparse.Namespace) -> dict[str, Any]:
    from charwise.speller.normalisation_judge import UNDO_BELOW
    from charwise.speller.social_undo import UNDO_FEATURES, UndoDecision

    found = {role: rows_of(names, args.limit) for role, names in TEXTS.items()}
    fitting = [item for item in found["fitting"] if item["label"] in ("right", "wrong")]
    weights, bias, oof = fit_labelled(fitting, STRENGTH, FOLDS)
    threshold, sweep, baseline = choose(fitting, oof)
    chosen = sweep[f"{threshold:g}"]
    source = (f"benchmarks/correction/social_undo.py ({args.date}): fitted on the {len(fitting)} corrections of the "
              "informal development texts read by hand (WNUT17's raw YouTube, Reddit and Stack Overflow texts, "
              "its rigo and gurez tweets); the threshold that keeps the most right corrections out of fold "
              f"({FOLDS} folds by written form) while keeping no more wrong ones than the judge's undo_below "
              f"{UNDO_BELOW:g} did: {chosen['right']} right and {chosen['wrong']} wrong kept, against "
              f"{baseline['right']} and {baseline['wrong']}")
    decision = UndoDecision(tuple(weights), bias, threshold, source)
    from sklearn.metrics import roc_auc_score

    right = [item["label"] == "right" for item in fitting]
    ranks = {"the decision, out of fold": round(float(roc_auc_score(right, oof)), 3),
             "the judge's probability alone": round(float(roc_auc_score(right, [i["judged"] for i in fitting])), 3)}
    for item, p in zip(fitting, oof):
        item["out_of_fold"] = round(p, 4)
    texts: dict[str, Any] = {}
    for role, items in found.items():
        for item in items:
            item["probability"] = round(decision.probability(item["features"]), 4)
        for name in TEXTS[role]:
            here = [item for item in items if item["text"] == name]
            texts[name] = {"role": role, "corrections judged": len(here),
                           "kept by the decision": tallies(here, [i["probability"] >= threshold for i in here]),
                           "kept by the judge's undo_below": tallies(here, [i["judge_keeps"] for i in here]),
                           "labels": tally(here)}
    unread = [i for items in found.values() for i in items
              if i["label"] == "not labelled" and (i["probability"] >= threshold) != i["judge_keeps"]]
    for item in unread:
        print(f"not labelled, decided otherwise than before: {item['word']} -> {item['correction']}\t{item['context']}")
    if args.ship:
        from charwise.io import write_json

        write_json(UndoDecision.path("en"), decision.to_dict())
    return {"command": "python -m benchmarks.correction.social_undo" + (" --ship" if args.ship else ""),
            "decision": {**decision.to_dict(), "features": list(UNDO_FEATURES)},
            "fitting": {"corrections": len(fitting), "ranked right above wrong (AUC)": ranks,
                        "kept out of fold at the threshold": chosen,
                        "kept by the judge's undo_below": baseline, "undo_below": UNDO_BELOW},
            "sweep_out_of_fold": sweep, "texts": texts, "unread_disagreements": len(unread),
            "rows": sorted((i for items in found.values() for i in items), key=lambda i: i["probability"])}


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.2))
    sweep, base = result["sweep_out_of_fold"], result["fitting"]["kept by the judge's undo_below"]
    ts = [float(t) for t in sweep]
    ax.plot(ts, [sweep[t]["right"] for t in sweep], "o-", color="tab:green", label="right kept (decision)")
    ax.plot(ts, [sweep[t]["wrong"] for t in sweep], "o-", color="tab:red", label="wrong kept (decision)")
    ax.axhline(base["right"], color="tab:green", linestyle=":", label="right kept (judge's undo_below)")
    ax.axhline(base["wrong"], color="tab:red", linestyle=":", label="wrong kept (judge's undo_below)")
    ax.axvline(result["decision"]["threshold"], color="grey", linestyle="--", label="chosen")
    ax.set_xlabel("threshold on the decision's probability (out of fold)")
    ax.set_ylabel("corrections kept")
    ax.legend(fontsize=7)
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    import datetime

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="the first lines of each text only")
    parser.add_argument("--ship", action="store_true", help="write the fitted decision into charwise/data")
    parser.add_argument("--date", default=datetime.date.today().isoformat(), help="recorded in the source")
    parser.add_argument("--out", type=Path, default=RESULTS / "social_undo.json")
    args = parser.parse_args(argv)
    if args.ship and args.limit is not None:
        parser.error("--ship fits on every line: drop --limit")
    return write_result(args.out, run(args), plot)


if __name__ == "__main__":
    sys.exit(main())
