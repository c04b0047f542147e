"""What the speller's scorer reads: one row of numbers per (written word, candidate), and one per word.

:class:`Featurizer` works on a whole batch of written words at once: their candidates
(:class:`~charwise.speller.candidates.CandidateFinder`) come as one flat
:class:`~charwise.speller.candidates.CandidateBatch` with per-word offsets, and every feature is a
named column over all of them (:meth:`Featurizer.columns`: name -> ``(n,)`` array), stacked in
:data:`RANK_FEATURES` order. The encoder's cosines are one gather and one product for the batch;
per-word quantities (the best of a word's candidates) are reductions over the offsets
(``np.maximum.reduceat``); string work without a vector form (edit distances, sound keys, letter
pairs) is a loop that fills arrays. A new family of features is a set of new named columns.

Candidate features (:data:`RANK_FEATURES`), for the lower-case written word ``w`` and candidate ``c``:

* edits: Damerau-Levenshtein distance as three indicators (1, 2, 3 or more), whether a
  transposition is one of the edits, whether the one edit is a neighbouring key (the language's layout),
  the length difference, the same first and last letter, whether the sound keys match
  (:func:`charwise.typos.sounds.sound_key`), whether ``c`` is ``w`` itself;
* frequency: wordfreq's Zipf frequency of ``c`` (and whether wordfreq lacks it);
* the list of known misspellings (:mod:`charwise.speller.known_misspellings`): ``listed``, the
  share ``c`` has of the corrections the list gives ``w`` (0 when it gives none or others);
* shape: the share of ``w`` that ``c`` starts with, whether the one edit swaps a vowel for another,
  the Dice overlap of their letter pairs;
* against the other candidates: ``c``'s Zipf frequency and encoder cosine minus the best of all;
* the encoder: the cosine of the encoder's vectors of ``w`` and ``c`` (lexicon vectors precomputed),
  the cosine of ``w``'s projected vector with the teacher's row of ``c`` when ``c`` has one, and the
  reciprocal rank of ``c`` among ``w``'s nearest whole-word rows (0 when it is not among them).

Word features (:data:`WORD_FEATURES`, :meth:`Featurizer.word_rows`), from the ranked candidates: the
best candidate's score and its margin over the second, the best's softmax share, its edit distance,
sound-key match and Zipf frequency, the written word's own Zipf frequency and how much more
frequent the best candidate is (wordfreq lists names, slang and common misspellings alike,
``recieved`` at 2.8: what tells a common misspelling from a rare valid word is a far more frequent
word one slip away, ``received`` at 5.0), whether the list of known misspellings holds the written
word and gives the best candidate, its length and the number of candidates.

Example::

    featurizer = Featurizer(lexicon, encoder)
    batch = featurizer.featurize(["recieve", "pakage"])    # batch.rows: (n, len(RANK_FEATURES))
    batch.of(0)                                            # word 0's candidates and rows
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from charwise.errors import ConfigError
from charwise.speller.candidates import WRITTEN, CandidateBatch, CandidateFinder, CandidateIndex
from charwise.speller.context import CONTEXT_FEATURES, NgramContext
from charwise.speller.known_misspellings import listed_corrections, listed_share
from charwise.typos.distance import levenshtein_distance, osa_distance
from charwise.typos.keyboards import neighbours as keyboard_neighbours
from charwise.typos.sounds import sound_key

if TYPE_CHECKING:
    from charwise.speller.lexicon import Lexicon
    from charwise.speller.vectors import LexiconVectors, WordEncoder

LAYOUT = {"en": "us", "es": "es"}  # the keyboard of a language's slips
RANK_FEATURES: tuple[str, ...] = (
    "dl1", "dl2", "dl3+", "transposition", "keyboard", "len_diff", "same_first", "same_last", "same_sound",
    "written", "zipf", "zipf_missing", "cos_encoder", "cos_row", "has_row", "neighbour",
    "zipf_gap", "cos_gap", "prefix", "vowel_swap", "bigram_dice", *CONTEXT_FEATURES, "listed",
)
#: the judge's context features: how well the best candidate fits between the word's neighbours
CONTEXT_WORD_FEATURES: tuple[str, ...] = ("best_ctx", "best_ctx_gap", "best_ctx_seen", "has_context")
WORD_FEATURES: tuple[str, ...] = (
    "best_score", "margin", "best_share", "best_dl", "best_same_sound", "best_zipf", "written_zipf",
    "length", "log_candidates", "frequency_gain", *CONTEXT_WORD_FEATURES, "best_listed", "written_listed",
)
VOWELS = frozenset("aeiouyáéíóúü")
_RANK = {name: i for i, name in enumerate(RANK_FEATURES)}


@lru_cache(maxsize=200_000)
def _bigrams(word: str) -> frozenset[str]:
    padded = f"^{word}$"
    return frozenset(padded[i : i + 2] for i in range(len(padded) - 1))


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _lengths(strings: list[str]) -> np.ndarray:
    return np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))


def segment_max(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """For each element of ``values`` (flat, per-word segments given by ``offsets``), the maximum of
    its word's segment."""
    counts = np.diff(offsets)
    nonempty = counts > 0
    if not nonempty.any():
        return values.copy()
    return np.repeat(np.maximum.reduceat(values, offsets[:-1][nonempty]), counts[nonempty])


def rank_order(scores: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Flat candidate indices, word by word, each word's candidates best first (ties in their
    order): ``order[offsets[i]]`` is word ``i``'s best candidate."""
    word = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    return np.lexsort((-scores, word))


def edit_columns(written: list[str], names: list[str], layout: str) -> dict[str, np.ndarray]:
    """The edit features of each (written word, candidate) pair: ``dl1``, ``dl2``, ``dl3+``,
    ``transposition``, ``keyboard`` (the one edit is a neighbouring key of ``layout``),
    ``vowel_swap`` (the one edit swaps a vowel for another)."""
    n = len(names)
    dl = np.fromiter((osa_distance(w, c, 4) for w, c in zip(written, names)), dtype=np.int64, count=n)
    lev = np.fromiter((levenshtein_distance(w, c, 4) for w, c in zip(written, names)), dtype=np.int64, count=n)
    keyboard = np.zeros(n, dtype=np.bool_)
    vowel = np.zeros(n, dtype=np.bool_)
    # one substitution: which letters were swapped
    for j in np.flatnonzero((dl == 1) & (lev == 1) & (_lengths(written) == _lengths(names))):
        w, c = written[j], names[j]
        i = next(i for i, (a, b) in enumerate(zip(w, c)) if a != b)
        keyboard[j] = w[i] in keyboard_neighbours(c[i], layout)
        vowel[j] = w[i] in VOWELS and c[i] in VOWELS
    return {"dl1": dl == 1, "dl2": dl == 2, "dl3+": dl >= 3, "transposition": lev > dl, "keyboard": keyboard,
            "vowel_swap": vowel}


def shape_columns(written: list[str], names: list[str], language: str) -> dict[str, np.ndarray]:
    """The letter features of each (written word, candidate) pair: ``len_diff``, ``same_first``,
    ``same_last``, ``same_sound``, ``prefix``, ``bigram_dice``."""
    n = len(names)
    length = _lengths(written)
    return {
        "len_diff": np.minimum(np.abs(length - _lengths(names)), 4) / 4,
        "same_first": np.fromiter((w[:1] == c[:1] for w, c in zip(written, names)), dtype=np.bool_, count=n),
        "same_last": np.fromiter((w[-1:] == c[-1:] for w, c in zip(written, names)), dtype=np.bool_, count=n),
        "same_sound": np.fromiter((sound_key(w, language) == sound_key(c, language) for w, c in zip(written, names)),
                                  dtype=np.bool_, count=n),
        "prefix": np.fromiter((_common_prefix(w, c) for w, c in zip(written, names)), dtype=np.int64, count=n)
        / np.maximum(1, length),
        "bigram_dice": np.fromiter((_dice(_bigrams(w), _bigrams(c)) for w, c in zip(written, names)),
                                   dtype=np.float64, count=n),
    }


def _dice(a: frozenset[str], b: frozenset[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b))


def stack(columns: dict[str, np.ndarray], names: tuple[str, ...]) -> np.ndarray:
    """``(n, len(names))`` float32: the named columns side by side, in ``names`` order."""
    missing = [name for name in names if name not in columns]
    if missing:
        raise ConfigError(f"no feature column for {', '.join(missing)}")
    return np.stack([np.asarray(columns[name], dtype=np.float32) for name in names], axis=1)


class Featurizer:
    """Candidates and feature rows for batches of written words (see the module docstring).

    Args:
        lexicon: the words candidates are drawn from.
        encoder: the character encoder (its teacher's whole-word rows give neighbours and ``cos_row``).
        max_distance, per_key: the edit and sound sources (:class:`~charwise.speller.candidates.CandidateIndex`).
        neighbours: the encoder's nearest whole-word rows added as candidates (a call may ask for another number).
        vectors: the lexicon's vectors, when they are already built for this lexicon and encoder.
    """

    def __init__(self, lexicon: Lexicon, encoder: WordEncoder, *, max_distance: int = 2, per_key: int = 10,
                 neighbours: int = 20, vectors: LexiconVectors | None = None) -> None:
        from charwise.speller.vectors import LexiconVectors

        if isinstance(neighbours, bool) or not isinstance(neighbours, int) or neighbours < 0:
            raise ConfigError(f"neighbours must be an integer >= 0, got {neighbours!r}")
        if vectors is not None and (vectors.lexicon is not lexicon or vectors.encoder is not encoder):
            raise ConfigError("the lexicon vectors were built for another lexicon or encoder")
        self.lexicon = lexicon
        self.language = lexicon.language
        self.layout = LAYOUT.get(self.language, "us")
        self.neighbours = neighbours
        self.vectors = vectors if vectors is not None else LexiconVectors(lexicon, encoder)
        self.finder = CandidateFinder(CandidateIndex(lexicon, max_distance, per_key), self.vectors)
        # Zipf frequency of each lexicon word, by lexicon position
        self.zipf = np.array([e.zipf for e in lexicon.entries.values()], dtype=np.float64)
        self._context: NgramContext | None = None

    @property
    def encoder(self) -> WordEncoder:
        return self.vectors.encoder

    @property
    def index(self) -> CandidateIndex:
        """The edit and sound sources (the symmetric-delete index is built on first use)."""
        return self.finder.index

    @property
    def context(self) -> NgramContext:
        """The language's context model (:mod:`charwise.speller.context`), loaded on first use."""
        if self._context is None:
            self._context = NgramContext.load(self.language)
        return self._context

    def featurize(self, words: list[str], neighbours: int | None = None,
                  contexts: Sequence[tuple[str | None, str | None]] | None = None) -> CandidateBatch:
        """The candidates of lower-case ``words`` with their feature rows (``batch.rows``, float32
        ``(n, len(RANK_FEATURES))``); ``neighbours`` overrides :attr:`neighbours` for this call.
        ``contexts``: each word's left and right neighbour (lower-case, or None;
        :func:`charwise.speller.context.neighbours`); without them the context columns are 0, as
        for a word scored alone."""
        k = self.neighbours if neighbours is None else neighbours
        if contexts is not None and len(contexts) != len(words):
            raise ValueError(f"{len(contexts)} contexts for {len(words)} words")
        if not words:
            empty = np.zeros(0, dtype=np.int64)
            return CandidateBatch([], np.zeros(1, dtype=np.int64), [], empty, empty, empty,
                                  np.zeros((0, len(RANK_FEATURES)), dtype=np.float32))
        raw, projected = self.vectors.embed(words)
        batch = self.finder.gather(words, projected, k)
        batch.rows = stack(self.columns(batch, raw, projected, contexts), RANK_FEATURES)
        return batch

    def context_columns(self, batch: CandidateBatch,
                        contexts: Sequence[tuple[str | None, str | None]] | None) -> dict[str, np.ndarray]:
        """The :data:`~charwise.speller.context.CONTEXT_FEATURES` of ``batch``'s candidates (0
        without ``contexts``)."""
        columns = {name: np.zeros(len(batch.names), dtype=np.float32) for name in CONTEXT_FEATURES}
        if contexts is None or not any(left is not None or right is not None for left, right in contexts):
            return columns
        offsets = batch.offsets.tolist()
        for i, (left, right) in enumerate(contexts):
            a, b = offsets[i], offsets[i + 1]
            if a < b and (left is not None or right is not None):
                for name, values in self.context.columns(left, batch.names[a:b], right).items():
                    columns[name][a:b] = values
        return columns

    def columns(self, batch: CandidateBatch, raw: np.ndarray, projected: np.ndarray,
                contexts: Sequence[tuple[str | None, str | None]] | None = None) -> dict[str, np.ndarray]:
        """Every candidate feature of ``batch``, by name (``raw`` and ``projected``: the written
        words' unit vectors, one row per word; ``contexts``: see :meth:`featurize`)."""
        word = batch.word_index
        written = [batch.words[i] for i in word.tolist()]
        columns: dict[str, Any] = {**edit_columns(written, batch.names, self.layout),
                                   **shape_columns(written, batch.names, self.language)}
        zipf = self.zipf[batch.ids]
        columns["written"] = (batch.flags & WRITTEN) > 0
        columns["zipf"] = zipf / 8
        columns["zipf_missing"] = zipf == 0
        columns["listed"] = np.fromiter((listed_share(w, c, self.language) for w, c in zip(written, batch.names)),
                                        dtype=np.float64, count=len(batch.names))
        columns.update(self.encoder_columns(batch, raw, projected))
        # how a candidate compares with the best of its word's candidates: frequency and encoder cosine
        scaled = columns["zipf"].astype(np.float32)
        columns["zipf_gap"] = scaled - segment_max(scaled, batch.offsets)
        columns["cos_gap"] = columns["cos_encoder"] - segment_max(columns["cos_encoder"], batch.offsets)
        columns.update(self.context_columns(batch, contexts))
        return columns

    def encoder_columns(self, batch: CandidateBatch, raw: np.ndarray, projected: np.ndarray) -> dict[str, np.ndarray]:
        """``cos_encoder``, ``cos_row``, ``has_row`` and ``neighbour``: one gather of the candidates'
        vectors and one row-wise product for the whole batch (float32 vectors, float64 sums,
        float32 results: a candidate's cosine does not depend on the batch it is in)."""
        word = batch.word_index
        vectors = self.vectors
        cos_encoder = np.einsum("nd,nd->n", vectors.vectors[batch.ids].astype(np.float32), raw[word],
                                dtype=np.float64).astype(np.float32)
        row = vectors.row_of[batch.ids]
        has_row = row >= 0
        cos_row = np.zeros(len(row), dtype=np.float32)
        if has_row.any():
            cos_row[has_row] = np.einsum("nd,nd->n", vectors.row_array[row[has_row]], projected[word[has_row]],
                                         dtype=np.float64)
        rank = batch.neighbour_rank
        return {"cos_encoder": cos_encoder, "cos_row": cos_row, "has_row": has_row,
                "neighbour": np.where(rank >= 0, 1 / (1 + np.maximum(rank, 0)), 0.0)}

    def word_rows(self, batch: CandidateBatch, scores: np.ndarray, order: np.ndarray) -> np.ndarray:
        """``(m, len(WORD_FEATURES))`` float32 for the ``m`` words of ``batch`` that have candidates
        (in order), given the candidates' ranker ``scores`` and their :func:`rank_order`."""
        counts = batch.counts
        has = counts > 0
        starts, n = batch.offsets[:-1][has], counts[has]
        best = order[starts]
        second = np.where(n > 1, scores[order[np.minimum(starts + 1, len(order) - 1)]], scores[best] - 10.0)
        shares = np.exp(scores - segment_max(scores, batch.offsets))  # the best: exp(0) = 1
        rows = batch.rows[best]
        best_zipf = rows[:, _RANK["zipf"]]
        written = [w for w, h in zip(batch.words, has) if h]
        written_zipf = np.array([self.lexicon.zipf(w) for w in written], dtype=np.float64)
        columns = {
            "best_score": scores[best],
            "margin": np.minimum(scores[best] - second, 10.0),
            "best_share": 1.0 / np.add.reduceat(shares, starts) if len(starts) else np.zeros(0),
            "best_dl": 1 * rows[:, _RANK["dl1"]] + 2 * rows[:, _RANK["dl2"]] + 3 * rows[:, _RANK["dl3+"]],
            "best_same_sound": rows[:, _RANK["same_sound"]],
            "best_zipf": best_zipf,
            "written_zipf": written_zipf / 8,
            "length": np.minimum(_lengths(written), 20) / 20,
            "log_candidates": np.array([math.log(c) for c in n.tolist()], dtype=np.float64),
            "frequency_gain": best_zipf - (written_zipf / 8).astype(np.float32),
            "best_ctx": rows[:, _RANK["ctx_left"]] + rows[:, _RANK["ctx_right"]],
            "best_ctx_gap": rows[:, _RANK["ctx_gap"]],
            "best_ctx_seen": rows[:, _RANK["ctx_seen_left"]] + rows[:, _RANK["ctx_seen_right"]],
            "has_context": rows[:, _RANK["ctx_present"]],
            "best_listed": rows[:, _RANK["listed"]],
            "written_listed": np.array([bool(listed_corrections(w, self.language)) for w in written], dtype=np.float64),
        }
        return stack(columns, WORD_FEATURES)


def describe(features: np.ndarray, names: tuple[str, ...]) -> dict[str, Any]:
    """A feature row as a name -> value mapping (for ``--json`` output and debugging)."""
    return {name: round(float(v), 4) for name, v in zip(names, features)}
