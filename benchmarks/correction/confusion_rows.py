"""What both confusion decisions are fitted on (``confusions.py`` without a language model,
``confusions_lm.py`` with one): every member of a set in development sentences read as written
(label 0 for each other member) and swapped at random for another member (label 1 for the member
meant), each other member described by its gain over the written word and the counts' evidence
(:func:`charwise.speller.confusion_lm.lm_features`)."""

from __future__ import annotations

import random
from typing import Any, Callable, Container, Sequence

Targets = Sequence[tuple[list[str], int, list[str]]]  # (sentence as written, position, other members)
GainsOf = Callable[[Targets], list[dict[str, float]]]  # per target: other member -> its gain


class ClozeGains:
    """The context model's gains: log-odds of each other member against the written one."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def __call__(self, targets: Targets) -> list[dict[str, float]]:
        from charwise.speller.confusions import normal

        return [self.model.cloze_gains([normal(w) for w in words], i) for words, i, _ in targets]


def members_of(model: Any, sentences: Sequence[Sequence[str]]) -> list[tuple[list[str], int, int]]:
    """(sentence as written, position, set) of every member the speller would read (lower case or
    capitalised; ``of`` after a modal)."""
    from charwise.speller.confusions import normal

    found = []
    for words in sentences:
        low = [normal(w) for w in words]
        for i, word in enumerate(words):
            k = model.set_of(low, i) if (word.islower() or word.istitle()) else None
            if k is not None:
                found.append((list(words), i, k))
    return found


def scored(model: Any, gains: GainsOf, found: Sequence[tuple[list[str], int, int]],
           gain_name: str = "lm_gain") -> list[list[tuple[str, dict]]]:
    """Per member found: (other member, its features) for each other member of its set."""
    from charwise.speller.confusion_lm import lm_features
    from charwise.speller.confusions import normal

    targets = [(w, i, [m for m in model.sets[k] if m != normal(w[i])]) for w, i, k in found]
    out = []
    for (words, i, cands), row in zip(targets, gains(targets)):
        low = [normal(w) for w in words]
        out.append([(m, lm_features(low, i, m, row[m], model.context, gain_name)) for m in cands])
    return out


def development_rows(model: Any, gains: GainsOf, sentences: Sequence[Sequence[str]],
                     gain_name: str = "lm_gain", left_out: Container[str] = ()) -> tuple[list, list, list]:
    """Features and labels: each member as written (every other member 0) and swapped at random
    (the member meant 1, any third 0); and, per swap, which member was meant. The sets named in
    ``left_out`` (``id/i'd``) give no rows."""
    from charwise.speller.confusions import normal
    from charwise.speller.corrections import same_case

    rng = random.Random(0)
    written = [(w, i, k) for w, i, k in members_of(model, sentences) if "/".join(model.sets[k]) not in left_out]
    swapped, meant = [], []
    for words, i, k in written:
        other = rng.choice([m for m in model.sets[k] if m != normal(words[i])])
        copy = list(words)
        copy[i] = same_case(words[i], other)
        swapped.append((copy, i, k))
        meant.append(normal(words[i]))
    written_scores = scored(model, gains, written, gain_name)
    swapped_scores = scored(model, gains, swapped, gain_name)
    rows, labels = [], []
    for found in written_scores:
        rows += [f for _, f in found]
        labels += [0] * len(found)
    for found, member in zip(swapped_scores, meant):
        rows += [f for _, f in found]
        labels += [int(m == member) for m, _ in found]
    names = ["/".join(model.sets[k]) for _, _, k in written]
    return rows, labels, list(zip(written_scores, swapped_scores, meant, names))


def fit_weights(rows: list[dict[str, float]], labels: list[int],
                names: Sequence[str]) -> tuple[dict[str, float], float]:
    """A logistic model's weights over the features ``names`` and its bias (scikit-learn, its
    default strength, not tuned)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    x = np.array([[r[name] for name in names] for r in rows])
    fitted = LogisticRegression(C=1.0, max_iter=2000).fit(x, np.array(labels))
    return {n: float(w) for n, w in zip(names, fitted.coef_[0])}, float(fitted.intercept_[0])


SLIP_FOLDS = 5  # the labelled changes' folds for the out-of-fold probabilities the threshold is chosen on


def slip_row(change: dict[str, Any], names: Sequence[str]) -> dict[str, float]:
    """A change's row of the writers' slips: the decision's log-odds and its change's indicator."""
    import math

    p = min(max(change["probability"], 1e-9), 1 - 1e-9)
    row = dict.fromkeys(names, 0.0)
    row["decision"] = math.log(p / (1 - p))
    if f"change={change['direction']}" in row:
        row[f"change={change['direction']}"] = 1.0
    return row


def fit_slips(changes: list[dict[str, Any]], labels: dict[str, bool], left_out: Container[str] = ()
              ) -> tuple[tuple[dict[str, float], float], list[dict[str, Any]]]:
    """The writers' slips (:attr:`charwise.speller.confusions.ConfusionModel.slips`) fitted on the
    labelled ``changes`` (each with the decision's ``probability``, its ``direction`` and ``set``; each shown once)
    but those of the sets ``left_out``, and every change with its probability out of fold: rescored by slips fitted
    without its fold (a change shown alike twice falls in one fold), what the threshold is chosen on."""
    import zlib

    from charwise.speller.confusion_lm import log_odds
    from charwise.speller.logistic_decision import logistic

    # one row per change shown: a tweet posted sixteen times (``400 lets seeeeeeee``) is one piece of evidence
    learned = [c for c in changes if c["change"] in labels and c.get("set") not in left_out]
    labelled = list({c["change"]: c for c in learned}.values())
    names = ["decision", *sorted({f"change={c['direction']}" for c in labelled})]

    def fitted(part: list[dict[str, Any]]) -> tuple[dict[str, float], float]:
        return fit_weights([slip_row(c, names) for c in part], [int(labels[c["change"]]) for c in part], names)

    def fold(change: dict[str, Any]) -> int:
        return zlib.crc32(change["change"].encode("utf-8")) % SLIP_FOLDS

    by_fold = [fitted([c for c in labelled if fold(c) != k]) for k in range(SLIP_FOLDS)]
    rescored = [{**c, "probability": logistic(log_odds(*by_fold[fold(c)], slip_row(c, names)))} for c in changes]
    return fitted(labelled), rescored
