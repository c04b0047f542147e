"""Where a speller's candidates come from, all four sources: :class:`CandidateFinder`.

For a batch of lower-case written words, :meth:`CandidateFinder.gather` returns a
:class:`CandidateBatch`: every word's candidates concatenated into flat arrays, with per-word
offsets (word ``i``'s candidates are ``offsets[i]:offsets[i + 1]``). The sources, in the order a
word's candidates are listed (a candidate found twice is listed once, with both source flags):

* **written**: the word itself, when the lexicon holds it (flag ``WRITTEN``);
* **edits**: every lexicon word within Damerau-Levenshtein distance ``max_distance`` (default 2),
  found by ``symspellpy``'s symmetric-delete index (``Verbosity.ALL``; its C edit distance from
  ``editdistpy``), in symspellpy's order;
* **sounds**: the lexicon words that share the written word's sound key
  (:func:`charwise.typos.sounds.sound_key`: the realistic model's rules, phonetic, doubled letters,
  accents, undone at once), the ``per_key`` most frequent of them;
* **listed**: the corrections a list of known misspellings gives the written word
  (:mod:`charwise.speller.known_misspellings`; English), when the lexicon holds them;
* **neighbours**: the encoder's ``neighbours`` nearest whole-word rows of the teacher that are
  lexicon words (cosine with the written word's projected vector,
  :class:`~charwise.speller.vectors.LexiconVectors`), nearest first.

The first three sources (:class:`CandidateIndex`) are torch-free and consider only the
lexicon's words that wordfreq lists (a word it has never seen is accepted as written but never
suggested, unless it is one of your own words). The symmetric-delete index is made on the first
lookup (a text whose words are all known never pays for it): read from disk where an earlier
process saved it, else built and saved (:mod:`charwise.speller.index_files`, which also keeps the
lexicon's sound keys).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from charwise.encoders.manifold import SCORE_BLOCK
from charwise.errors import ConfigError
from charwise.speller.index_files import sound_keys
from charwise.speller.known_misspellings import listed_corrections
from charwise.speller.lexicon import USER
from charwise.typos.sounds import sound_key

if TYPE_CHECKING:
    from charwise.speller.lexicon import Lexicon
    from charwise.speller.vectors import LexiconVectors

EDITS, SOUNDS, NEIGHBOURS, WRITTEN, LISTED = 1, 2, 4, 8, 16  # candidate source flags


class CandidateIndex:
    """Lexicon words near a written word, by edits, by sound and by the list of known misspellings
    (see the module docstring)."""

    def __init__(self, lexicon: Lexicon, max_distance: int = 2, per_key: int = 10, prefix_length: int = 7,
                 cache: bool = True) -> None:
        for name, value, low in (("max_distance", max_distance, 1), ("per_key", per_key, 0),
                                 ("prefix_length", prefix_length, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(f"{name} must be an integer >= {low}, got {value!r}")
        self.lexicon = lexicon
        self.max_distance = max_distance
        self.per_key = per_key
        self.prefix_length = prefix_length
        self.cache = cache  # read and write the index tables on disk (charwise.speller.index_files)
        self._symspell = None
        # words wordfreq has never seen are accepted as written but not suggested (your own words are)
        self.suggestible = [w for w, e in lexicon.entries.items() if e.zipf > 0 or e.sources & USER]
        keys = np.asarray(sound_keys(self.suggestible, lexicon.language, self._cache_dir()), dtype=str)
        # the words sorted by sound key, each key's most frequent first (a stable sort: ties keep the
        # lexicon's order); a key's words are one slice, found by binary search (no table of 100k keys
        # to build at every start)
        zipf = np.fromiter((lexicon.entries[w].zipf for w in self.suggestible), dtype=float,
                           count=len(self.suggestible))
        order = np.lexsort((-zipf, keys))
        self._keys = keys[order]
        self._key_words = [self.suggestible[i] for i in order.tolist()]

    def same_sound(self, word: str) -> list[str]:
        """The ``per_key`` most frequent suggestible words with the sound key of lower-case ``word``."""
        key = sound_key(word, self.lexicon.language)
        start = int(np.searchsorted(self._keys, key, side="left"))
        end = int(np.searchsorted(self._keys, key, side="right"))
        return self._key_words[start : min(end, start + self.per_key)]

    @property
    def symspell(self) -> Any:
        """The symmetric-delete index (built on first use)."""
        if self._symspell is None:
            from charwise.speller.index_files import edit_index

            counts = [max(1, int(10 ** self.lexicon.entries[word].zipf)) for word in self.suggestible]
            self._symspell = edit_index(self.suggestible, counts, self.max_distance, self.prefix_length,
                                        self._cache_dir())
        return self._symspell

    def _cache_dir(self) -> Path | None:
        from charwise.cache import cache_root

        return cache_root() / "speller" if self.cache else None

    def lookup(self, word: str) -> dict[str, int]:
        """Candidates of a lower-case ``word``: ``{candidate: source flags}`` (the word itself, flag
        ``WRITTEN``, when the lexicon holds it)."""
        from symspellpy import Verbosity

        found: dict[str, int] = {}
        if word in self.lexicon.entries:
            found[word] = WRITTEN
        for item in self.symspell.lookup(word, Verbosity.ALL, max_edit_distance=self.max_distance,
                                         transfer_casing=False):
            found[item.term] = found.get(item.term, 0) | EDITS
        for candidate in self.same_sound(word):
            found[candidate] = found.get(candidate, 0) | SOUNDS
        for candidate in listed_corrections(word, self.lexicon.language):
            if candidate in self.lexicon.entries:
                found[candidate] = found.get(candidate, 0) | LISTED
        return found


@dataclass
class CandidateBatch:
    """The candidates of a batch of written words, flat (see the module docstring).

    ``rows`` holds their feature rows once a :class:`~charwise.speller.features.Featurizer` has
    made them (``(len(names), 0)`` before).
    """

    words: list[str]  # the written words, lower-case
    offsets: np.ndarray  # (len(words) + 1,) int64: word i's candidates are offsets[i]:offsets[i + 1]
    names: list[str]  # the candidates, flat
    ids: np.ndarray  # (len(names),) int64: each one's lexicon position
    flags: np.ndarray  # (len(names),) int64: source flags (EDITS | SOUNDS | NEIGHBOURS | WRITTEN | LISTED)
    neighbour_rank: np.ndarray  # (len(names),) int64: rank among the word's nearest rows (0: nearest), or -1
    rows: np.ndarray  # (len(names), features) float32

    @property
    def counts(self) -> np.ndarray:
        """``(len(words),)``: how many candidates each word has."""
        return np.diff(self.offsets)

    @property
    def word_index(self) -> np.ndarray:
        """``(len(names),)``: the index of the written word each candidate belongs to."""
        return np.repeat(np.arange(len(self.words)), self.counts)

    def of(self, i: int) -> tuple[list[str], np.ndarray]:
        """Word ``i``'s candidates and their feature rows."""
        a, b = int(self.offsets[i]), int(self.offsets[i + 1])
        return self.names[a:b], self.rows[a:b]

    def select(self, keep: np.ndarray) -> "CandidateBatch":
        """The batch with only the candidates where ``keep`` (a boolean ``(len(names),)``) is true."""
        counts = np.bincount(self.word_index[keep], minlength=len(self.words))
        return CandidateBatch(list(self.words), _offsets(counts), [n for n, k in zip(self.names, keep) if k],
                              self.ids[keep], self.flags[keep], self.neighbour_rank[keep], self.rows[keep])

    @classmethod
    def concatenate(cls, batches: list["CandidateBatch"]) -> "CandidateBatch":
        """One batch of the words of ``batches`` (at least one), in order."""
        return cls([w for b in batches for w in b.words], _offsets(np.concatenate([b.counts for b in batches])),
                   [n for b in batches for n in b.names], np.concatenate([b.ids for b in batches]),
                   np.concatenate([b.flags for b in batches]), np.concatenate([b.neighbour_rank for b in batches]),
                   np.concatenate([b.rows for b in batches]))


def _offsets(counts: np.ndarray) -> np.ndarray:
    """Per-word offsets ``(len(counts) + 1,)`` int64 from per-word candidate counts."""
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets


class CandidateFinder:
    """Candidates from all four sources for a batch of written words (see the module docstring)."""

    def __init__(self, index: CandidateIndex, vectors: LexiconVectors) -> None:
        from charwise.speller.normalisation_rules import failed_changes

        self.index = index
        self.vectors = vectors
        self.failed = failed_changes(index.lexicon.language)  # read on fresh text, wrong too often: never proposed

    def nearest(self, projected: np.ndarray, k: int) -> list[dict[str, int]]:
        """For each projected vector, its ``k`` nearest rows' words -> rank (0: the nearest)."""
        words = self.vectors.row_words
        if k <= 0 or not words or not len(projected):
            return [{} for _ in range(len(projected))]
        rows = self.vectors.row_array
        k = min(k, len(words))
        nearest: list[dict[str, int]] = []
        block = max(1, SCORE_BLOCK // len(rows))  # the score matrix stays about 32 MB
        for start in range(0, len(projected), block):
            sims = projected[start : start + block] @ rows.T
            top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
            order = np.argsort(-np.take_along_axis(sims, top, axis=1), axis=1, kind="stable")
            nearest += [{words[r]: rank for rank, r in enumerate(row)}
                        for row in np.take_along_axis(top, order, axis=1).tolist()]
        return nearest

    def gather(self, words: list[str], projected: np.ndarray, neighbours: int) -> CandidateBatch:
        """The candidates of lower-case ``words`` (``projected``: their projected unit vectors, one
        row per word; ``neighbours``: how many nearest rows to add)."""
        nearest = self.nearest(projected, neighbours)
        names: list[str] = []
        flags: list[int] = []
        ranks: list[int] = []
        counts: list[int] = []
        for word, near in zip(words, nearest):
            found = self.index.lookup(word)
            for candidate in near:
                found[candidate] = found.get(candidate, 0) | NEIGHBOURS
            for dropped in ("", *self.failed.get(word, ())):
                found.pop(dropped, None)
            names += found
            flags += found.values()
            ranks += [near.get(c, -1) for c in found]
            counts.append(len(found))
        position = self.vectors.position
        return CandidateBatch(list(words), _offsets(np.array(counts, dtype=np.int64)), names,
                              np.array([position[c] for c in names], dtype=np.int64),
                              np.array(flags, dtype=np.int64), np.array(ranks, dtype=np.int64),
                              np.zeros((len(names), 0), dtype=np.float32))
