"""Sentences written in another language: :class:`ForeignSentences` tells them apart, and the speller
leaves them whole.

An English speller reading ``kann man sehen, dass der nicht nur...`` or ``eu te aviso qnd eu for``
finds unknown words and "corrects" them into English ones (``dass -> that's``, ``nochmal -> normal``,
``qnd -> and``): a sentence in another language holds no English misspelling to fix. A sentence
is foreign when at least :data:`MIN_FOREIGN_WORDS` of its words, and at least :data:`FOREIGN_SHARE`
of them, are words of another language: a Zipf frequency of at least :data:`FOREIGN_ZIPF` there
(once per million words, in wordfreq's small lists) and :data:`FOREIGN_MARGIN` higher than in the
speller's own language. The margin keeps the web's English slang, frequent in every language's
lists (``lol``, ``gonna``, ``haha``), on the English side; only lower-case words count, as names
(``Müller``, ``Düsseldorf``) turn up in text of every language; in a sentence written mostly in
capitals the words in capitals count instead, read in lower case as the speller reads them
(``REAL MADRID E SUA ... DE TOMAR GOL``: ``TOMAR`` became ``TOMORROW``; the acronyms of a sentence in
lower case, ``RT``, ``LOL``, would count as English words). Only a sentence with at least
:data:`MIN_FOREIGN_WORDS` words the lexicon lacks is looked at this closely, so clean text costs
nothing.

The other languages' frequencies are one memory-mapped table in the cache (every word at or above
:data:`FOREIGN_ZIPF` in one of their lists, with its highest Zipf frequency there; built once in
under a second): reading the seven word lists themselves cost a third of a second at the first
sentence of every process.

Example::

    >>> from charwise.speller.lexicon import Lexicon
    >>> foreign = ForeignSentences(Lexicon.build("en", teacher="minilm"), ("de", "fr"))
    >>> foreign("kann man sehen , dass der nicht nur in die Menge fährt".split())
    True
    >>> foreign("lol im gonna see u tmrw haha".split())
    False
"""

from __future__ import annotations

import hashlib
import json
import math
import unicodedata
from collections.abc import Sequence

import numpy as np

from charwise.cache import StringTable, cache_root, mapped_or_built
from charwise.speller.lexicon import Lexicon, _version

#: the languages whose words a sentence is checked against, per speller language (English only)
OTHER_LANGUAGES: dict[str, tuple[str, ...]] = {"en": ("de", "fr", "es", "pt", "it", "nl", "id")}
# A word of another language: at least this Zipf frequency there (once per million words). It and the
# next two swept on the LexNorm 2015 tweets (2.5 to 4; 0.5 to 2; 2 to 5: python -m
# benchmarks.correction.normaliser_constants). Here the sweep's best, 4 (ERR 59.97 -> 60.34), was
# read line by line and left: on every line of WNUT17, LexNorm and 62,327 fresh comments it adds 5
# wrong edits in other languages' text (jaket -> jacket, me hace -> have) for 3 right (docs/correction-experiments.md)
FOREIGN_ZIPF = 3.0
FOREIGN_MARGIN = 1.0  # ... and ten times as frequent there as in the speller's language
MIN_FOREIGN_WORDS = 3  # a sentence needs this many such words...
FOREIGN_SHARE = 0.5  # ... making at least half of its words (mixed tweets keep their English parts)
CACHE_SIZE = 100_000  # words whose verdict is remembered, then forgotten at once
FORMAT = 1  # of the cached table of other languages' words
KNOWN, UNKNOWN = 1, 2  # a lower-case word of letters that the lexicon knows, or lacks (ForeignSentences._kind)
SHOUTED = 2  # added to the kind of a word in capitals (3, 4)


class ForeignSentences:
    """Whether a sentence (its words) is written in one of ``languages`` rather than the lexicon's."""

    def __init__(self, lexicon: Lexicon, languages: Sequence[str]) -> None:
        self.lexicon = lexicon
        self.languages = tuple(languages)
        self._verdicts: dict[str, bool] = {}
        self._kinds: dict[str, int] = {}  # word -> _kind(word)
        self._table: tuple[StringTable, np.ndarray] | None = None  # loaded at the first word looked up

    @classmethod
    def for_language(cls, lexicon: Lexicon) -> "ForeignSentences | None":
        """The check for the lexicon's language (None for a language without one: the Spanish speller
        was not measured with it)."""
        others = OTHER_LANGUAGES.get(lexicon.language)
        return cls(lexicon, others) if others else None

    def __call__(self, words: Sequence[str]) -> bool:
        # lower-case words only (in capitals, if most are): names (Müller, Düsseldorf) belong to every language
        kinds = self._kinds
        found = list(map(kinds.get, words))
        if None in found:  # each word's kind once: running text repeats its words
            if len(kinds) >= CACHE_SIZE:
                self._kinds = kinds = {}  # a fresh table: a thread reading the old one keeps reading it
            for j, (w, kind) in enumerate(zip(words, found)):
                if kind is None:
                    found[j] = kinds[w] = self._kind(w)
        if found.count(UNKNOWN) + found.count(UNKNOWN + SHOUTED) < MIN_FOREIGN_WORDS:  # most sentences
            return False
        read = [k or 0 for k in found]  # every kind is known now
        shouted = sum(k > SHOUTED for k in read) > sum(0 < k <= SHOUTED for k in read)  # mostly in capitals
        read = [k - SHOUTED if k > SHOUTED and shouted else 0 if k > SHOUTED or shouted else k for k in read]
        if read.count(UNKNOWN) < MIN_FOREIGN_WORDS:  # too few words the lexicon lacks, in the case read
            return False
        letters = [w.lower() for w, kind in zip(words, read) if kind]
        foreign = sum(self._foreign(w) for w in letters)
        return foreign >= MIN_FOREIGN_WORDS and foreign >= FOREIGN_SHARE * len(letters)

    def _kind(self, word: str) -> int:
        """0: not a word of letters (two at least) in lower case or in capitals; :data:`KNOWN` or
        :data:`UNKNOWN`: one in lower case that the lexicon knows or lacks, :data:`SHOUTED` more for
        one in capitals (read in lower case)."""
        if not (len(word) >= 2 and word.isalpha() and (word.islower() or word.isupper())):
            return 0
        return (UNKNOWN if not self.lexicon.knows(word.lower()) else KNOWN) + (SHOUTED if word.isupper() else 0)

    def _foreign(self, word: str) -> bool:
        verdict = self._verdicts.get(word)
        if verdict is None:
            if self._table is None:
                self._table = foreign_words(self.languages)
            table, zipf_centi = self._table
            # wordfreq's own look-up key: case-folded (straße -> strasse), NFC
            i = table.find(unicodedata.normalize("NFC", word.casefold()))
            best = zipf_centi.item(i) / 100 if i >= 0 else 0.0
            verdict = best >= FOREIGN_ZIPF and best >= self.lexicon.zipf(word) + FOREIGN_MARGIN
            if len(self._verdicts) >= CACHE_SIZE:
                self._verdicts.clear()
            self._verdicts[word] = verdict
        return verdict


def foreign_words(languages: Sequence[str]) -> tuple[StringTable, np.ndarray]:
    """Every word at or above :data:`FOREIGN_ZIPF` in wordfreq's small list of one of ``languages``,
    and its highest Zipf frequency among them in hundredths (what ``wordfreq.zipf_frequency`` gives),
    from the cache or built once."""
    key = hashlib.sha256(json.dumps([FORMAT, sorted(languages), FOREIGN_ZIPF, _version("wordfreq")]).encode())
    path = cache_root() / "speller" / f"foreign-{key.hexdigest()[:16]}.safetensors"

    def build() -> dict[str, np.ndarray]:
        from wordfreq import get_frequency_dict

        best: dict[str, int] = {}
        for language in languages:
            for word, frequency in get_frequency_dict(language, "small").items():
                centi = round(round(math.log10(frequency) + 9, 2) * 100) if frequency > 0 else 0
                if centi >= FOREIGN_ZIPF * 100 and centi > best.get(word, 0):
                    best[word] = centi
        words = list(best)
        return {**StringTable.arrays(words), "zipf_centi": np.asarray([best[w] for w in words], dtype=np.int16)}

    what = f"the table of {', '.join(languages)} words (sentences in another language)"
    arrays = mapped_or_built(path, what, ("blob", "starts", "slots", "zipf_centi"), build)
    return StringTable(arrays["blob"], arrays["starts"], arrays["slots"]), arrays["zipf_centi"]
