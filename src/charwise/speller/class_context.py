"""How well a word fits the classes of its neighbours: evidence the bigram counts cannot give where
the written form is itself common in web text.

Informal forms are written so often that web bigram counts hold them (``u r``, ``w my``, ``in
d``), so those counts barely prefer ``are`` to ``r``. The classes of the neighbours still tell:
``are`` is read after a pronoun or noun and before an adjective or a verb, ``with`` before a
determiner or pronoun, ``the`` before a noun, and none of them beside punctuation or the text's
edge (``mad catz r . a . t``, ``* w *``). :class:`ClassContext` counts, in a tagged corpus (UD
English-EWT's training sentences), which class stands right before and right after each word, the
neighbours' classes read as the speller reads them at run time (each word's most frequent class:
:class:`~charwise.speller.word_classes.WordClasses`; punctuation and the text's edge one class,
:data:`BOUNDARY`). A word's fit between two neighbours is the pointwise mutual information of the
word with the class on each side, ``log P(class | word) - log P(class)``, summed; a word the corpus
saw rarely is drawn towards no information by a Dirichlet prior of :data:`PRIOR` observations of
the corpus-wide class distribution. The normalisation judge reads the candidate's fit minus the
written word's (``class_gain``, :mod:`charwise.speller.normalisation_judge`). The counts are built
once from the corpus and kept in the cache (``charwise cache``), memory-mapped after that.

Example::

    >>> context = ClassContext.load("en")
    >>> context.fit("are", "you", "happy") > context.fit("are", "catz", None)
    True
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from charwise.cache import StringTable, cache_root, file_sha256, mapped_or_built
from charwise.speller.context import is_word

if TYPE_CHECKING:
    from charwise.speller.word_classes import WordClasses

FORMAT = 1
#: the class of a neighbour that is no word (punctuation, a number, a symbol) or the text's edge
BOUNDARY = "<b>"
#: the classes counted: the universal part-of-speech tags, and BOUNDARY
CLASSES = ("ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN", "PUNCT",
           "SCONJ", "SYM", "VERB", "X", BOUNDARY)
_INDEX = {c: k for k, c in enumerate(CLASSES)}
#: observations of the corpus-wide class distribution a word's own counts are drawn towards: chosen
#: on the LexNorm 2015 training tweets, two folds, among 1, 5, 20, 50, 100 and 200 (the highest
#: summed ERR: 59.6, 59.7, 60.2, 60.1, 60.1, 60.0;
#: ``python -m benchmarks.correction.normaliser_constants --language en --only PRIOR``)
PRIOR = 20.0
TREEBANK = Path(__file__).resolve().parents[1] / "data" / "ud_en_ewt" / "en_ewt-ud-train.conllu"
#: the tagged corpus each language's counts are read from (a language without one has no class evidence)
CORPORA = {"en": TREEBANK}


class ClassContext:
    """Per word, the classes counted right before and right after it (see the module docstring):
    ``before[i, k]``, ``after[i, k]`` for word ``i`` of ``words`` and class ``CLASSES[k]``."""

    def __init__(self, classes: WordClasses, words: StringTable, before: np.ndarray, after: np.ndarray) -> None:
        if before.shape != after.shape or before.shape != (len(words), len(CLASSES)):
            raise ValueError(f"class counts of shape {before.shape} and {after.shape} for {len(words)} words")
        self.classes = classes
        self.words = words
        self.before, self.after = before, after
        totals = before.sum(axis=0).astype(np.float64) + 1.0  # every class seen once more: none has no chance
        self.prior = (totals / totals.sum()).tolist()
        self.seen = before.sum(axis=1)

    @staticmethod
    def count(sentences: Iterable[Sequence[str]], classes: WordClasses) -> dict[str, np.ndarray]:
        """The arrays of a :class:`ClassContext` (``StringTable`` arrays, ``before``, ``after``) over
        ``sentences`` (word lists, lower-case), neighbours read through ``classes``."""
        kind_of: dict[str, int] = {}  # each word's class once (a corpus repeats its words)
        before: Counter[tuple[str, int]] = Counter()
        after: Counter[tuple[str, int]] = Counter()
        edge = _INDEX[BOUNDARY]
        for words in sentences:
            kinds = [edge]
            for w in words:
                kind = kind_of.get(w)
                if kind is None:
                    kind = kind_of[w] = _INDEX.get(class_of(classes, w), _INDEX["X"])
                kinds.append(kind)
            kinds.append(edge)
            before.update(zip(words, kinds))
            after.update(zip(words, kinds[2:]))
        vocabulary = list(kind_of)
        row = {w: i for i, w in enumerate(vocabulary)}
        arrays = {name: np.zeros((len(vocabulary), len(CLASSES)), dtype=np.int32) for name in ("before", "after")}
        for name, counts in (("before", before), ("after", after)):
            for (word, kind), n in counts.items():
                arrays[name][row[word], kind] = n
        return {**StringTable.arrays(vocabulary), **arrays}

    def _pmi(self, table: np.ndarray, word: str, kind: str) -> float:
        i = self.words.find(word)
        if i < 0:
            return 0.0  # a word the corpus lacks: no evidence either way
        k = _INDEX.get(kind, _INDEX["X"])
        prior = self.prior[k]
        return math.log((table.item(i, k) + PRIOR * prior) / (self.seen.item(i) + PRIOR) / prior)

    def fit(self, text: str, left: str | None, right: str | None) -> float:
        """How much the neighbours' classes say for ``text`` (one or more words, lower-case) between
        the words ``left`` and ``right`` (None: punctuation or the edge), in nats."""
        parts = text.split(" ")
        return (self._pmi(self.before, parts[0], class_of(self.classes, left))
                + self._pmi(self.after, parts[-1], class_of(self.classes, right)))

    @classmethod
    def load(cls, language: str) -> "ClassContext | None":
        """The counts of ``language``'s tagged corpus (from the cache, or built once), or None without one."""
        return _load(language) if language in CORPORA else None


def class_gains(language: str, candidates: Iterable[str], written: str, left: str | None,
                right: str | None) -> dict[str, float] | None:
    """For each of ``candidates``, how much more the neighbours' classes say for it than for ``written``
    between ``left`` and ``right`` (nats, :meth:`ClassContext.fit`), or None for a language without a
    tagged corpus."""
    context = ClassContext.load(language)
    if context is None:
        return None
    mine = context.fit(written, left, right)
    return {c: context.fit(c, left, right) - mine for c in candidates}


def class_of(classes: WordClasses, word: str | None) -> str:
    """The class a neighbour is read as: its most frequent class, :data:`BOUNDARY` for no word."""
    return BOUNDARY if word is None or not is_word(word) else classes(word)


def treebank_sentences(path: Path) -> list[list[str]]:
    """The sentences of a CoNLL-U file as written, lower-case: a multi-word token (``don't`` = 3-4)
    read as its surface form, as text writes it."""
    sentences: list[list[str]] = []
    words: list[str] = []
    inside = 0  # the last word of the multi-word token being read
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                if words:
                    sentences.append(words)
                    words, inside = [], 0
            elif not line.startswith("#"):
                number, form = line.split("\t", 2)[:2]
                if "-" in number:
                    words.append(form.lower())
                    inside = int(number.split("-")[1])
                elif number.isdigit() and int(number) > inside:  # an empty node (8.1) is no word
                    words.append(form.lower())
    if words:
        sentences.append(words)
    return sentences


@lru_cache(maxsize=None)
def corpus_sha256(language: str) -> str:
    """The SHA-256 of the shipped treebank of ``language`` (package data: hashed once per process)."""
    return file_sha256(CORPORA[language])


@lru_cache(maxsize=None)
def _load(language: str) -> ClassContext:
    from charwise.speller.confusions import DATA
    from charwise.speller.word_classes import shipped_classes

    table = DATA / f"confusions-{language}" / "classes.tsv"  # the shipped confusion model's word classes
    classes = shipped_classes(language)
    corpus = CORPORA[language]
    key = hashlib.sha256(json.dumps([FORMAT, CLASSES, corpus.stat().st_size, corpus_sha256(language),
                                     file_sha256(table)]).encode())
    path = cache_root() / "speller" / f"class-context-{language}-{key.hexdigest()[:16]}.safetensors"
    arrays = mapped_or_built(path, f"the classes around each word of {corpus.name}",
                             ("blob", "starts", "slots", "before", "after"),
                             lambda: ClassContext.count(treebank_sentences(corpus), classes))
    return ClassContext(classes, StringTable(arrays["blob"], arrays["starts"], arrays["slots"]),
                        arrays["before"], arrays["after"])
