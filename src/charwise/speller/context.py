"""Context evidence for the speller: how well each candidate fits between the words around it.

:class:`NgramContext` is a bigram language model over word counts that packages ship, with
*stupid back-off* (Brants et al. 2007, "Large Language Models in Machine Translation"): the
score of ``c`` after ``l`` is ``count(l c) / count(l)`` when the pair was seen, else
``backoff * P(c)``. It is not a normalised probability, which a feature does not need, and it
costs one dictionary look-up per pair.

* English: symspellpy's bigram dictionary (``frequency_bigramdictionary_en_243_342.txt``,
  242,342 pairs) and its unigram dictionary (``frequency_dictionary_en_82_765.txt``), both
  counted on the same Google Books n-grams; words neither lists come from wordfreq's Zipf
  frequency on the same scale (a Zipf value is log10 of a word's count per 10^9 words). The
  pairs write contractions without their apostrophe (``i cant``: 82 M, ``i can't``: absent; the
  word list gives ``can't`` a placeholder count), so a contraction is looked up as the pairs write
  it (``can't`` as ``cant``) when the word list holds that spelling; after a left neighbour it is
  read as the word it starts with (``an i'll`` as ``an i``, ``i can't`` as ``i can``), since the
  counts of ``an ill`` cannot tell ``ill`` from ``i'll``.
* Spanish: no package ships Spanish bigrams, so both counts are taken from the training verses
  of the Spanish-English Bible (``charwise.translation.data``; the dev and test verses are never
  read), with wordfreq's Spanish unigrams for words the verses lack. Archaic and small: the
  evidence is weaker than in English, and the scorer learns how much to trust it.

For a written word with left neighbour ``l`` and right neighbour ``r`` (the nearest words of the
sentence; none across punctuation that ends a clause), :meth:`NgramContext.columns` gives each
candidate ``c`` the named feature columns of :data:`CONTEXT_FEATURES`:

* ``ctx_left`` = log10 score(c | l) and ``ctx_right`` = log10 score(r | c) - log10 P(r), both
  0 without that neighbour, floored at :data:`FLOOR`;
* ``ctx_seen_left`` / ``ctx_seen_right``: whether the pair was counted (not backed off);
* ``ctx_gap``: the candidate's ``ctx_left + ctx_right`` minus the best candidate's;
* ``ctx_present``: whether the word has a neighbour at all (words scored alone have none).

Example::

    >>> context = NgramContext.load("en")
    >>> gaps = context.columns("i", ["like", "lake", "lie"], "to")["ctx_gap"]  # "i ___ to"
    >>> [round(float(v), 1) for v in gaps]
    [0.0, -4.0, -3.7]
"""

from __future__ import annotations

import gzip
import math
from collections import Counter
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

import numpy as np

from charwise.errors import ConfigError
from charwise.speller.lexicon import strip_accents

CONTEXT_FEATURES: tuple[str, ...] = ("ctx_left", "ctx_right", "ctx_seen_left", "ctx_seen_right", "ctx_gap",
                                     "ctx_present")
# log10 scores below this are this: an unseen rare word is not infinitely unlikely. Below every score a
# counted word gets (the English table's rarest word: -7.6; wordfreq's lists stop at Zipf 1, -8)
FLOOR = -10.0
BACKOFF = 0.4  # stupid back-off's factor (Brants et al.)
CACHE_FORMAT = 1  # the counts cached for a corpus (Spanish); a new format is a new file
#: tokens across which no context is read: a clause or sentence ends there
BREAKS = frozenset(".!?;:()[]{}\"…¡¿")
OPENING = frozenset("¿¡([{\"")  # marks that open a clause
#: English contraction endings, and the negations whose first word is spelled otherwise (won't: will)
CONTRACTION_ENDINGS = ("n't", "'ll", "'re", "'ve", "'m", "'d", "'s")
IRREGULAR_NEGATIONS = {"ca": "can", "wo": "will", "sha": "shall", "ai": "am"}


class NgramContext:
    """Unigram and bigram counts of one language, lower-case (see the module docstring)."""

    def __init__(self, language: str, unigrams: Mapping[str, float], bigrams: Mapping[str, float],
                 fallback_zipf: dict[str, float] | None = None, *, total: float | None = None,
                 apostrophes: bool = True) -> None:
        if not unigrams:
            raise ConfigError("a context model needs unigram counts")
        self.language = language
        # False: the counts write a contraction without its apostrophe (symspellpy's English pairs
        # count "i can't" as "i cant"), so a word is looked up that way when the counts hold it
        self.apostrophes = apostrophes
        self.unigrams = unigrams
        self.bigrams = bigrams  # "left right" -> count
        # ``total``: the unigrams' sum, given when they are a CountTable (summing it costs a look-up per word)
        self.total = float(sum(unigrams.values())) if total is None else total
        self.fallback_zipf = fallback_zipf or {}

    @cached_property
    def pair_cut(self) -> float:
        """The smallest count in the pair list: a pair the list lacks was counted less often
        (symspellpy's English pairs were cut at 6.4 M), which bounds its score from above."""
        bigrams = self.bigrams
        if isinstance(bigrams, CountTable):
            return bigrams.smallest()
        return min(bigrams.values(), default=0.0)

    def log_score_at_most(self, word: str, previous: str) -> float:
        """log10 score(word | previous) where the pair was counted; where the list lacks it, the most
        it can be (counted just under :attr:`pair_cut` times), not the back-off: a missing pair is
        rarer than the cut, which says little against it."""
        score, seen = self.log_score(word, previous)
        before = self.unigrams.get(self.counted_form(previous))
        if seen or not before or not self.pair_cut:
            return score
        return min(math.log10(self.pair_cut / before), 0.0)

    def fit_between(self, seq: Sequence[str], left: str | None, right: str | None) -> float:
        """log10 score of the lower-case words ``seq`` between the neighbours ``left`` and ``right``
        (None: a clause break or the text's edge), each pair inside ``seq`` at
        :meth:`log_score_at_most`: how well a word, its cut or its join fits where it was written."""
        score = self.log_unigram(seq[0]) if left is None else self.log_score(seq[0], left)[0]
        score += sum(self.log_score_at_most(b, a) for a, b in zip(seq, seq[1:]))
        return score + (self.log_score(right, seq[-1])[0] if right is not None else 0.0)

    # --- building -------------------------------------------------------------------------------
    @classmethod
    def load(cls, language: str = "en") -> "NgramContext":
        """The context model of ``language`` (built once per process)."""
        from charwise.languages import check_language

        check_language(language)
        return _load(language)

    @classmethod
    def from_sentences(cls, language: str, sentences: Iterable[Sequence[str]],
                       fallback_zipf: dict[str, float] | None = None) -> "NgramContext":
        """Counts of the words and neighbouring word pairs of ``sentences`` (word lists)."""
        unigrams: Counter[str] = Counter()
        bigrams: Counter[str] = Counter()
        for words in sentences:
            previous: str | None = None
            for word in words:
                w = word.lower()
                if not is_word(w):
                    previous = None if w in BREAKS or not w else previous
                    continue
                unigrams[w] += 1
                if previous is not None:
                    bigrams[f"{previous} {w}"] += 1
                previous = w
        return cls(language, dict(unigrams), dict(bigrams), fallback_zipf)

    # --- scores ---------------------------------------------------------------------------------
    def counted_form(self, word: str) -> str:
        """``word`` as the counts write it (see ``apostrophes``)."""
        if self.apostrophes or "'" not in word:
            return word
        plain = word.replace("'", "")
        return plain if plain in self.unigrams else word

    def _first_word(self, word: str) -> str:
        """The word that a contraction starts with (``i'll`` -> ``i``, ``can't`` -> ``can``): what
        follows its left neighbour, where the counts cannot tell ``i'll`` from ``ill``."""
        if self.apostrophes or "'" not in word:
            return word
        for ending in CONTRACTION_ENDINGS:
            if word.endswith(ending) and len(word) > len(ending):
                base = word[: -len(ending)]
                return IRREGULAR_NEGATIONS.get(base, base) if ending == "n't" else base
        return self.counted_form(word)

    def log_unigram(self, word: str) -> float:
        """log10 P(word), wordfreq's Zipf frequency for words the counts lack, floored."""
        word = self.counted_form(word)
        count = self.unigrams.get(word)
        if count:
            return max(math.log10(count / self.total), FLOOR)
        zipf = self.fallback_zipf.get(word)
        if zipf is None:
            from charwise.speller.frequencies import zipf_frequency

            zipf = zipf_frequency(word, self.language)
        return max(zipf - 9.0, FLOOR) if zipf > 0 else FLOOR

    def log_score(self, word: str, previous: str) -> tuple[float, bool]:
        """(log10 score(word | previous) with stupid back-off, whether the pair was counted)."""
        previous = self.counted_form(previous)
        pair = self.bigrams.get(f"{previous} {self._first_word(word)}")
        before = self.unigrams.get(previous)
        if pair and before:
            # at most 0: the pair and word lists were cut at different counts
            return min(max(math.log10(pair / before), FLOOR), 0.0), True
        return max(math.log10(BACKOFF) + self.log_unigram(word), FLOOR), False

    def columns(self, left: str | None, candidates: Sequence[str], right: str | None) -> dict[str, np.ndarray]:
        """The :data:`CONTEXT_FEATURES` columns (float32, one value per candidate) for candidates
        (lower-case) written between ``left`` and ``right`` (lower-case words or None)."""
        n = len(candidates)
        out = {name: np.zeros(n, dtype=np.float32) for name in CONTEXT_FEATURES}
        if left is not None:
            for j, c in enumerate(candidates):
                out["ctx_left"][j], out["ctx_seen_left"][j] = self.log_score(c, left)
        if right is not None:
            prior = self.log_unigram(right)
            for j, c in enumerate(candidates):
                score, seen = self.log_score(right, c)
                out["ctx_right"][j], out["ctx_seen_right"][j] = score - prior, seen
        if n:
            total = out["ctx_left"] + out["ctx_right"]
            out["ctx_gap"] = total - total.max()
        out["ctx_present"][:] = left is not None or right is not None
        return out


def neighbours(words: Sequence[str], index: int) -> tuple[str | None, str | None]:
    """The lower-case words left and right of ``words[index]`` that context is read from: the
    nearest word on each side, None across a clause break (:data:`BREAKS`) or the text's edge;
    other tokens (commas, numbers, symbols) are skipped."""
    return _nearest(words, index, -1), _nearest(words, index, 1)


def opens_question(words: Sequence[str], index: int) -> bool:
    """Whether ``words[index]`` begins a clause that ends with a question mark, the marks that open a
    clause (``¿``, quotes, brackets) aside: ``¿como estas?``, and as chat writes it, ``como estas?``
    (a Spanish interrogative so placed takes its accent: ``cómo``)."""
    if words[index] in BREAKS:
        return False
    i = index - 1
    while i >= 0 and words[i] in OPENING:
        i -= 1
    opened = any(words[j] in ("¿", "¡") for j in range(i + 1, index))  # ``mas ¿que ...``: the mark opens a clause
    if not opened and i >= 0 and words[i] not in BREAKS and words[i] != ",":
        return False
    for word in words[index + 1:]:
        # ``hola, ¿como estas?``: a question opened later is a clause of its own; ``?.``, ``?!`` end one too
        if word in BREAKS or (not any(ch.isalnum() for ch in word) and any(ch in BREAKS for ch in word)):
            return word[0] == "?"
    return False


#: Spanish interrogatives written without their accent: one that opens a question takes it (RAE's Ortografía)
INTERROGATIVES = frozenset({"que", "cual", "quien", "como", "cuan", "cuanto", "cuando", "donde", "adonde"})


def asks(words: Sequence[str], index: int) -> bool:
    """Whether ``words[index]`` is a Spanish interrogative that opens a question (``como estas?``)."""
    return strip_accents(words[index]) in INTERROGATIVES and opens_question(words, index)


def _nearest(words: Sequence[str], index: int, step: int) -> str | None:
    i = index + step
    while 0 <= i < len(words):
        w = words[i].lower()
        if is_word(w):
            return w
        if w in BREAKS or any(ch in BREAKS for ch in w):
            return None
        i += step
    return None


def is_word(token: str) -> bool:
    """Whether ``token`` is a word context is read from: letters (an apostrophe allowed)."""
    return bool(token) and token.replace("'", "").isalpha()


class CountTable(Mapping[str, float]):
    """Read-only ``key -> count`` over flat arrays memory-mapped from the cache (a
    :class:`~charwise.cache.StringTable` of the keys and their counts): the 243k English pairs
    read as Python dicts would take most of a second and about 60 MB in every process that
    corrects a word; mapped, a start costs a few milliseconds and the pages are shared."""

    def __init__(self, blob: np.ndarray, starts: np.ndarray, slots: np.ndarray, counts: np.ndarray) -> None:
        from charwise.cache import StringTable

        self._keys = StringTable(blob, starts, slots)
        self._counts = counts

    def get(self, key: str, default: float | None = None) -> float | None:  # type: ignore[override]
        i = self._keys.find(key)
        return float(self._counts.item(i)) if i >= 0 else default

    def __getitem__(self, key: str) -> float:
        i = self._keys.find(key)
        if i < 0:
            raise KeyError(key)
        return float(self._counts.item(i))

    def __contains__(self, key: object) -> bool:
        return self._keys.find(key) >= 0

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys.strings())

    def __len__(self) -> int:
        return len(self._keys)

    def smallest(self) -> float:
        """The smallest count (0 for an empty table)."""
        return float(self._counts.min()) if len(self._counts) else 0.0


@lru_cache(maxsize=None)
def _load(language: str) -> NgramContext:
    if language == "en":
        return _english_counts()
    return _bible_counts(language)


def _english_counts() -> NgramContext:
    """symspellpy's English unigram and bigram counts, memory-mapped from a cache entry made
    from its two text files once (keyed by their contents)."""
    import symspellpy

    from charwise.cache import (
        StringTable,
        building,
        cache_lock,
        cache_root,
        file_sha256,
        map_table,
        mark_used,
        save_tables,
    )

    folder = Path(symspellpy.__file__).parent
    files = [folder / "frequency_dictionary_en_82_765.txt", folder / "frequency_bigramdictionary_en_243_342.txt"]
    key = "-".join(file_sha256(f)[:8] for f in files)
    path = cache_root() / "speller" / f"context-en-{CACHE_FORMAT}-{key}.safetensors"
    names = ("blob", "starts", "slots", "counts")
    with cache_lock(path):
        try:
            unigrams, bigrams = (CountTable(*(map_table(path, f"{part}_{name}") for name in names))
                                 for part in ("unigrams", "bigrams"))
            total = float(map_table(path, "total")[0])
            mark_used(path)
            return NgramContext("en", unigrams, bigrams, total=total, apostrophes=False)
        except (OSError, ValueError, KeyError):  # missing or damaged: read from the text files (again)
            pass
        what = "the en bigram context counts (symspellpy's word and pair counts)"
        with building(what, path):
            context = NgramContext("en", _read_counts(files[0], 1)[0], _read_counts(files[1], 2)[0], apostrophes=False)
            tables = {"total": np.array([context.total])}
            for part, counts in (("unigrams", context.unigrams), ("bigrams", context.bigrams)):
                tables.update({f"{part}_{name}": array for name, array in StringTable.arrays(list(counts)).items()})
                tables[f"{part}_counts"] = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
            try:
                save_tables(tables, path, what)
            except OSError:
                pass  # a read-only cache costs reading the text files next time, nothing else
        return context


def _bible_counts(language: str) -> NgramContext:
    """Counts of the Bible's training verses (see the module docstring), cached on disk: counting
    takes seconds, reading the cache a fraction of one."""
    from charwise.cache import building, cache_lock, cache_root, file_sha256, mark_used
    from charwise.io import atomic_file, bible_path

    path = cache_root() / "speller" / f"context-{language}-{CACHE_FORMAT}-{file_sha256(bible_path())[:16]}.tsv.gz"
    with cache_lock(path):
        if path.is_file():
            try:
                unigrams, bigrams = _read_counts(path, 1, 2)
                if unigrams:
                    mark_used(path)
                    return NgramContext(language, unigrams, bigrams)
            except (OSError, ValueError, EOFError):
                pass  # a damaged cache is rebuilt
        from charwise.translation.data import read_pairs, source_words, split_pairs

        with building(f"the {language} bigram context counts", path):
            verses = (source_words(pair.source) for pair in split_pairs(read_pairs())["train"])
            model = NgramContext.from_sentences(language, verses)
            try:
                with atomic_file(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
                    for table in (model.unigrams, model.bigrams):
                        f.write("".join(f"{key} {count:g}\n" for key, count in table.items()).encode("utf-8"))
                mark_used(path)
            except OSError:
                pass  # a read-only cache directory costs a recount next time, nothing else
        return model


def _read_counts(path: Path, *sizes: int) -> list[dict[str, float]]:
    """One table per entry size of ``sizes`` (words per entry) from a symspellpy frequency file
    (``w1 [w2] count`` per line, gzip when the name ends in ``.gz``), lower-case, in one pass."""
    counts: list[dict[str, float]] = [{} for _ in sizes]
    table = {size + 1: counts[k] for k, size in enumerate(sizes)}  # fields per line -> its table
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            parts = line.split()
            into = table.get(len(parts))
            if into is None:
                continue
            key = " ".join(parts[:-1]).lower()
            into[key] = into.get(key, 0.0) + float(parts[-1])
    return counts
