"""Which words the speller looks at (the rules of :mod:`charwise.speller.speller`'s docstring), each
word's kind judged once and remembered: running text repeats its words.

A word is looked at when it is alphabetic, between the settings' ``min_length`` and ``max_length``,
unknown to the lexicon, plain ASCII in English, and without a capital after its first letter, unless
it is written in capitals (:func:`shouted`) and long enough not to be an acronym; a capitalised word
not when the lexicon knows its lower-case form, and inside a sentence only where asked
(``inside_capitals``: the capitals decision has a threshold for such words).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from charwise.speller.corrections import SENTENCE_END, ends_sentence

if TYPE_CHECKING:
    from charwise.speller.lexicon import Lexicon
    from charwise.speller.settings import SpellerSettings

WORD_KINDS_SIZE = 200_000  # words whose kind (looked at or not) is remembered, then forgotten at once
# looked at at a sentence start (and inside one where capitalised words are read there), inside one; a letter
# or digit; ends in . ! or ?
Kind = tuple[bool, bool, bool, bool]


def shouted(word: str) -> bool:
    """Whether ``word`` is written in capitals (``SERVISE``; two letters at least: ``I`` and ``A``
    are capitalised words)."""
    return len(word) > 1 and word.isupper()


def in_capitals_text(words: Sequence[str], index: int) -> bool:
    """Whether ``words[index]`` is written in capitals amid text in capitals: it is (a single letter
    too: ``U``, ``R``), and so is every word of two letters or more among the two on each side, of
    which there is one at least. An acronym in running text (``the ITS team``) is not."""
    if not words[index].isupper():
        return False
    near = [w for w in (*words[max(0, index - 2):index], *words[index + 1:index + 3])
            if sum(c.isalpha() for c in w) >= 2]
    return bool(near) and all(w.isupper() for w in near)


def capitalised(word: str) -> bool:
    """Whether ``word`` is written with a capital first letter and is not in capitals (``Teh``, ``Yo``)."""
    return word[:1].isupper() and not shouted(word)


#: the contractions of the pronoun ``I`` (``I'm``, ``I've``, ``I'll``, ``I'd``: English has no other) without
#: their apostrophe
PRONOUN_CONTRACTIONS = frozenset({"im", "ive", "ill", "id"})


def named_by_capital(words: Sequence[str], index: int) -> bool:
    """Whether ``words[index]``, inside a sentence, is capitalised as a name is: any capitalised word
    but a contraction of ``I`` written without its apostrophe (``yes Im here``, ``the best Ive had``),
    whose capital is the pronoun's, unless a capitalised word comes before it (``Jony Ive``)."""
    word = words[index]
    if not word[:1].isupper():
        return False
    pronoun = word[:1] == "I" and word[1:].islower() and word.lower() in PRONOUN_CONTRACTIONS
    return not pronoun or (index > 0 and words[index - 1][:1].isupper())


def one_word(words: Sequence[str]) -> bool:
    """Whether exactly one of ``words`` holds a letter or digit (a text that is one word alone); it
    stops at the second such word."""
    seen = False
    for word in words:
        if word.isalnum() or any(c.isalnum() for c in word):
            if seen:
                return False
            seen = True
    return seen


class WordKinds:
    """Each word's :data:`Kind`, judged once for the settings it was judged with, and remembered."""

    def __init__(self) -> None:
        self._kinds: tuple[tuple[int, ...], dict[str, Kind]] = ((), {})

    def clear(self) -> None:
        self._kinds = ((), {})

    def looked_at(self, settings: SpellerSettings, lexicon: Lexicon, words: Sequence[str],
                  start: bool = True, inside_capitals: bool = False) -> tuple[list[bool], list[bool]]:
        """Which ``words`` are looked at, and which begin a sentence; ``start``: whether the first
        does; ``inside_capitals``: whether capitalised words are read inside a sentence too."""
        lengths = (settings.min_length, settings.max_length,
                   settings.capitals_min_length if settings.read_capitals else 0)
        if self._kinds[0] != lengths or len(self._kinds[1]) >= WORD_KINDS_SIZE:
            self._kinds = (lengths, {})
        kinds = self._kinds[1]
        flags, starts = [], []
        previous = ""
        for word in words:
            kind = kinds.get(word)
            if kind is None:
                kind = kinds[word] = word_kind(settings, lexicon, word)
            flags.append(kind[0] if start or inside_capitals else kind[1])
            starts.append(start)
            if kind[2]:  # a word with a letter or digit: what follows no longer starts the sentence
                start = False
            if kind[3] and ends_sentence(word, previous):  # an abbreviation's full stop ends none
                start = True
            previous = word
        return flags, starts


def word_kind(settings: SpellerSettings, lexicon: Lexicon, word: str) -> Kind:
    """What :meth:`WordKinds.looked_at` needs to know of ``word`` (see :data:`Kind`)."""
    # a word in capitals is read as its lower-case form when long enough not to be an acronym (the
    # lexicon knows the acronyms it has in any case: accepts("NASA")); other capitals inside a
    # word (McDonal) mark a name
    caps = settings.read_capitals and len(word) >= settings.capitals_min_length and shouted(word)
    look = (settings.min_length <= len(word) <= settings.max_length and word.isalpha()
            and not lexicon.accepts(word)
            and (word.isascii() or lexicon.language != "en")
            and (caps or not any(c.isupper() for c in word[1:])))
    if caps:
        return (look, look, True, False)  # alphabetic: a letter, no sentence end
    capital = word[:1].isupper()
    return (look and not (capital and word.lower() in lexicon.entries), look and not capital,
            any(c.isalnum() for c in word), bool(word) and word[-1] in SENTENCE_END)
