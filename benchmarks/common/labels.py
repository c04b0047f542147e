"""Changes read and labelled by hand: a TSV of ``key fields<TAB>right|wrong<TAB>why`` (``#`` lines are
comments), the context a change is shown and keyed in, and the counts of each label.

    labels = read_labels(LABELS, keys=3)            # (written, correction, context) -> (label, why)
    shown = in_context(words, i, i + 1)             # six words each side, the changed words in brackets
    weights, bias, out_of_fold = fit_labelled(items, strength=1.0, folds=5)   # a decision read from them
    chosen = nine_to_one(counts_per_threshold, thresholds)   # right - 9 x wrong at its highest
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

LABELS = ("right", "wrong", "not labelled")
WINDOW = 6  # words shown on each side of a change


def read_labels(path: Path, keys: int) -> dict[tuple[str, ...], tuple[str, str]]:
    """The first ``keys`` fields of each line -> (label, why; "" without one)."""
    labels = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            fields = line.split("\t")
            label, *why = fields[keys:]
            labels[tuple(fields[:keys])] = (label, why[0] if why else "")
    return labels


def in_context(words: Sequence[str], start: int, end: int, width: int = WINDOW, right: int | None = None) -> str:
    """``words[start:end]`` in brackets between the ``width`` words before them and the ``right``
    words after them (default: ``width``)."""
    after = width if right is None else right
    return " ".join([*words[max(0, start - width):start], "[" + " ".join(words[start:end]) + "]",
                     *words[end:end + after]])


def nine_to_one(made: dict[str, dict[str, int]], values: Sequence[float]) -> float:
    """Of ``values``, the one whose changes (``made[f"{value:g}"]``: ``right`` and ``wrong`` counts) make
    right - 9 x wrong highest (a wrong edit costs nine right ones; the lower value of a tie)."""
    return max(values, key=lambda v: (made[f"{v:g}"]["right"] - 9 * made[f"{v:g}"]["wrong"], -v))


def tally(items: Iterable[dict[str, Any]]) -> dict[str, int]:
    """How many items have each label (their ``label`` key)."""
    chosen = [item["label"] for item in items]
    return {label: chosen.count(label) for label in LABELS}


def tallies(items: Sequence[dict[str, Any]], chosen: Sequence[bool]) -> dict[str, int]:
    """How many of the ``chosen`` items (a flag per item) have each label."""
    return tally(item for item, c in zip(items, chosen) if c)


def fit_labelled(items: Sequence[dict[str, Any]], strength: float, folds: int,
                 group: Callable[[dict[str, Any]], str] = lambda item: item["word"].lower()
                 ) -> tuple[list[float], float, list[float]]:
    """A logistic decision (scikit-learn, inverse L2 strength ``strength``) fitted on labelled
    ``items`` (their ``features``; ``label`` right or wrong): (weights, bias) and each item's
    probability out of fold, ``folds`` folds grouped by ``group`` (a written form is never in two)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold

    x = np.array([item["features"] for item in items], dtype=float)
    y = np.array([item["label"] == "right" for item in items], dtype=int)
    out = np.zeros(len(items))
    for train, test in GroupKFold(n_splits=folds).split(x, y, groups=[group(item) for item in items]):
        model = LogisticRegression(C=strength, max_iter=2000).fit(x[train], y[train])
        out[test] = model.predict_proba(x[test])[:, 1]
    model = LogisticRegression(C=strength, max_iter=2000).fit(x, y)
    return [float(w) for w in model.coef_[0]], float(model.intercept_[0]), [float(p) for p in out]
