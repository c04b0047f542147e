"""Fitting the confusion models of :mod:`charwise.speller.confusions` (run by
``benchmarks/correction/confusions.py --ship`` and ``accent_twins.py --ship``; the speller only reads
what they wrote).

Example::

    >>> model = fit("en", [["its", "a", "dog"], ["it's", "a", "dog"], ["the", "dog", "wagged", "its", "tail"]],
    ...             None, None, 1.0)
    >>> model.sets[2]
    ('its', "it's")
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

import numpy as np

from charwise.speller.confusions import SETS, ConfusionModel, features, member_index, normal, set_at
from charwise.speller.lexicon import ACCENTED

if TYPE_CHECKING:
    from charwise.speller.context import NgramContext
    from charwise.speller.word_classes import WordClasses


def examples(sentences: Iterable[Sequence[str]], sets: Sequence[Sequence[str]],
             untold: Callable[[str], bool] | None = None) -> Iterable[tuple[list[str], int, int]]:
    """(sentence, index, set) for every member of a set in ``sentences`` (words as written; the
    sentence given back lower-case, normal), ``of`` only after a modal; ``untold``: whether a word as
    written cannot tell which member it is (the Bible of 1909 writes no accent on a capital: ``El``
    is ``el`` or ``él``), and so is no example."""
    index_of = member_index(sets)
    for sentence in sentences:
        words = [normal(w) for w in sentence]
        for i in range(len(words)):
            found = set_at(index_of, sets, words, i)
            if found is not None and not (untold is not None and untold(sentence[i])):
                yield words, i, found


def fit(language: str, sentences: Sequence[Sequence[str]], classes: WordClasses | None,
        context: NgramContext | None, strength: float, written: Sequence[Sequence[str]] = (),
        standard: frozenset[str] = frozenset(), priors: Mapping[str, float] | None = None,
        untold: Callable[[str], bool] | None = None) -> ConfusionModel:
    """One multinomial logistic model per set, fitted (scikit-learn, L2 with inverse strength
    ``strength``) on every member of a set in ``sentences`` (text where members are used as meant)
    and in ``written`` (text as people write it: mostly as meant), each read as meant. From
    ``written`` only the ``standard`` words are learned: a member that is not one (``whats``) is a
    slip wherever it is written, and would be learned as meant. The threshold is left at 1
    (nothing changed) until it is chosen.

    ``priors`` (a member's Zipf frequency in the text the speller will read) moves each set's
    intercepts from how often the training text uses each member to those frequencies, the
    context weights kept (the prior-shift correction of Saerens, Latinne and Decaestecker, 2002,
    "Adjusting the outputs of a classifier to new a priori probabilities"): the Spanish verses of
    1909 write ``mas`` ("but") 2.5 times as often as ``más``, today's Spanish the other way round.
    ``untold``: see :func:`examples`."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    sets = SETS[language]
    grouped: dict[int, tuple[list[dict[str, float]], list[int]]] = {}
    found = itertools.chain(examples(sentences, sets, untold), ((w, i, k) for w, i, k in examples(written, sets)
                                                                if w[i] in standard))
    for words, i, k in found:
        rows, labels = grouped.setdefault(k, ([], []))
        rows.append(features(words, i, sets[k], classes, context, language in ACCENTED))
        labels.append(sets[k].index(words[i]))
    weights: list[dict[str, np.ndarray]] = []
    intercepts: list[np.ndarray] = []
    for k, members in enumerate(sets):
        rows, labels = grouped.get(k, ([], []))
        table: dict[str, np.ndarray] = {}
        intercept = np.zeros(len(members), dtype=np.float32)
        seen = sorted(set(labels))
        if len(seen) >= 2:
            vectorizer = DictVectorizer()
            x = vectorizer.fit_transform(rows)
            model = LogisticRegression(C=strength, max_iter=2000)
            model.fit(x, labels)
            coef = model.coef_ if len(seen) > 2 else np.vstack([-model.coef_[0] / 2, model.coef_[0] / 2])
            bias = model.intercept_ if len(seen) > 2 else np.array([-model.intercept_[0] / 2, model.intercept_[0] / 2])
            for j, name in enumerate(vectorizer.get_feature_names_out()):
                row = np.zeros(len(members), dtype=np.float32)
                row[seen] = coef[:, j]
                if np.any(np.abs(row) > 1e-4):
                    table[str(name)] = row
            intercept[seen] = bias
            if priors is not None:
                counts = np.bincount(labels, minlength=len(members))[seen]
                modern = np.array([priors[members[m]] for m in seen]) * math.log(10)
                intercept[seen] += modern - np.log(counts / counts.sum())
            # a member never seen as meant gets no probability worth changing to
            intercept[[m for m in range(len(members)) if m not in seen]] = -30.0
        elif len(seen) == 1:
            intercept[:] = -30.0
            intercept[seen[0]] = 0.0
        weights.append(table)
        intercepts.append(intercept)
    return ConfusionModel(language, sets, weights, intercepts, 1.0, "not chosen yet", classes, context,
                          context is not None)
