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
(``Müller``, ``Düsseldorf``) turn up in text of every language. Only a sentence with at least
:data:`MIN_FOREIGN_WORDS` words the lexicon lacks is looked at this closely, so clean text costs
nothing.

Example::

    >>> from charwise.speller.lexicon import Lexicon
    >>> foreign = ForeignSentences(Lexicon.build("en", teacher="minilm"), ("de", "fr"))
    >>> foreign("kann man sehen , dass der nicht nur in die Menge fährt".split())
    True
    >>> foreign("lol im gonna see u tmrw haha".split())
    False
"""

from __future__ import annotations

from collections.abc import Sequence

from charwise.speller.lexicon import Lexicon

#: the languages whose words a sentence is checked against, per speller language (English only)
OTHER_LANGUAGES: dict[str, tuple[str, ...]] = {"en": ("de", "fr", "es", "pt", "it", "nl", "id")}
FOREIGN_ZIPF = 3.0  # a word of another language: at least this Zipf frequency there (one per million)
FOREIGN_MARGIN = 1.0  # ... and ten times as frequent there as in the speller's language
MIN_FOREIGN_WORDS = 3  # a sentence needs this many such words...
FOREIGN_SHARE = 0.5  # ... making at least half of its words (mixed tweets keep their English parts)
CACHE_SIZE = 100_000  # words whose verdict is remembered, then forgotten at once


class ForeignSentences:
    """Whether a sentence (its words) is written in one of ``languages`` rather than the lexicon's."""

    def __init__(self, lexicon: Lexicon, languages: Sequence[str]) -> None:
        self.lexicon = lexicon
        self.languages = tuple(languages)
        self._verdicts: dict[str, bool] = {}

    @classmethod
    def for_language(cls, lexicon: Lexicon) -> "ForeignSentences | None":
        """The check for the lexicon's language (None for a language without one: the Spanish speller
        was not measured with it)."""
        others = OTHER_LANGUAGES.get(lexicon.language)
        return cls(lexicon, others) if others else None

    def __call__(self, words: Sequence[str]) -> bool:
        # lower-case words only: names (Müller, Düsseldorf) belong to every language's text
        letters = [w for w in words if len(w) >= 2 and w.isalpha() and w.islower()]
        if sum(not self.lexicon.knows(w) for w in letters) < MIN_FOREIGN_WORDS:
            return False
        foreign = sum(self._foreign(w) for w in letters)
        return foreign >= MIN_FOREIGN_WORDS and foreign >= FOREIGN_SHARE * len(letters)

    def _foreign(self, word: str) -> bool:
        verdict = self._verdicts.get(word)
        if verdict is None:
            from wordfreq import zipf_frequency

            best = max(zipf_frequency(word, language, wordlist="small") for language in self.languages)
            verdict = best >= FOREIGN_ZIPF and best >= self.lexicon.zipf(word) + FOREIGN_MARGIN
            if len(self._verdicts) >= CACHE_SIZE:
                self._verdicts.clear()
            self._verdicts[word] = verdict
        return verdict
