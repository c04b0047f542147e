"""What LexNorm 2015's damage counts, read by hand: every change of the default English speller that the
annotators' normal form counts as wrong, labelled right or wrong in its tweet.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.lexnorm_damage    # -> results/lexnorm_damage.json + .png

ERR and damage score a change against one annotation. The annotators left many forms as written that
standard spelling changes (``suprised``, ``its`` for ``it's``, ``every one``, ``tho``), so a part of the
"damage" is right, and the part that is not (names, other languages, sounds, slang made into another
word) is what a user sees as a wrong edit. The protocol of ``normaliser_constants.py``
(:class:`~benchmarks.correction.normaliser_constants.Folds`: the normalisation table and judge learned
on one half of the training tweets, the default speller scored on the other, both ways). Each change
to a token the annotators kept (``damage``), or normalised to another form (``other form``), is looked
up in ``lexnorm_damage_labels.tsv`` by its written word, output and tweet; a change the labels lack
is reported as unlabelled, to be read and added. The labels file has the project's format
(:mod:`benchmarks.common.labels`).

Development data only (the LexNorm training split): nothing here is a test figure.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from benchmarks.common.labels import in_context
from benchmarks.common.labels import read_labels as read_keyed
from benchmarks.common.paths import RESULTS, SPELLING_DATA
from benchmarks.common.report import pyplot, save_figure, write_result
from benchmarks.correction.lexnorm import MAX_DAMAGE
from benchmarks.correction.render import render_lexnorm_damage as render  # noqa: F401  (make_results reads it)

WRITES = ("lexnorm_damage",)
PAGE = "correction-experiments.md"
LABELS = Path(__file__).with_name("lexnorm_damage_labels.tsv")
STATUSES = ("damage", "other form")  # a token the annotators kept; one they normalised to another form
LEFT, RIGHT = 4, 3  # words of the tweet shown on each side of a change


def context(words: Sequence[str], i: int) -> str:
    """The words around ``words[i]``, the word itself in brackets (the labels' key)."""
    return in_context(words, i, i + 1, LEFT, RIGHT)


def read_labels(path: Path = LABELS) -> dict[tuple[str, ...], tuple[str, str]]:
    """(written, output, tweet around it) -> (``right`` or ``wrong``, what it is)."""
    labels = read_keyed(path, keys=3)
    odd = sorted({label for label, _ in labels.values()} - {"right", "wrong"})
    if odd:
        raise ValueError(f"{path.name}: label {odd[0]!r} is neither right nor wrong")
    return labels


def run(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.correction.normaliser_constants import Folds

    labels = read_labels(args.labels)
    folds = Folds("en", args.data)
    kept, seen = 0, set()  # kept: tokens the annotators kept as written, damage's denominator
    counts: dict[str, Counter[str]] = {s: Counter() for s in STATUSES}
    shown: dict[str, list[dict[str, str]]] = {"wrong": [], "unlabelled": []}
    for test, changes in folds.outputs(args.max_damage):
        for t, tweet in enumerate(test):
            words = [raw for raw, _ in tweet]
            kept += sum(raw == normal for raw, normal in tweet)
            for i, (raw, normal) in enumerate(tweet):
                out = changes.get((t, i), raw)
                if out == raw or out == normal:
                    continue
                key = (raw, out, context(words, i))
                label, why = labels.get(key, ("unlabelled", ""))
                status = STATUSES[0] if raw == normal else STATUSES[1]
                counts[status][label] += 1
                seen.add(key)
                if label in shown:
                    shown[label].append({"status": status, "written": raw, "output": out, "normal": normal,
                                         "what": why, "tweet": key[2]})
    damage = counts["damage"]
    return {"command": "python -m benchmarks.correction.lexnorm_damage", "labels": args.labels.name,
            "kept_tokens": kept, "statuses": {s: dict(c) for s, c in counts.items()},
            "damage_percent": round(100 * sum(damage.values()) / kept, 3),
            "damage_percent_read": round(100 * damage["wrong"] / kept, 3),
            "labels_not_met": len(set(labels) - seen),
            "wrong_by_what": dict(Counter(w["what"].split(" (")[0] for w in shown["wrong"]).most_common()),
            "wrong": shown["wrong"], "unlabelled": shown["unlabelled"]}


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 2.8))
    names = list(result["statuses"])
    left = [0] * len(names)
    for label, colour in (("right", "tab:green"), ("wrong", "tab:red"), ("unlabelled", "tab:grey")):
        values = [result["statuses"][s].get(label, 0) for s in names]
        ax.barh(names, values, left=left, color=colour, label=label)
        left = [a + b for a, b in zip(left, values)]
    ax.set_xlim(0, 1.3 * max(left))  # room for the legend
    ax.set_xlabel("changes the annotation counts as wrong")
    ax.set_title(f"LexNorm 2015, two folds: damage {result['damage_percent']} % annotated, "
                 f"{result['damage_percent_read']} % read")
    ax.legend(loc="lower right")
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SPELLING_DATA)
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--max-damage", type=float, default=MAX_DAMAGE, help="the judges' damage bound, as lexnorm's")
    parser.add_argument("--out", type=Path, default=RESULTS / "lexnorm_damage.json")
    args = parser.parse_args(argv)
    return write_result(args.out, run(args), plot)


if __name__ == "__main__":
    sys.exit(main())
