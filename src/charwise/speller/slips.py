"""Slips of the keyboard between words, read in a text once its words are corrected and their offsets
known: a word typed twice (``at the the right time``), an apostrophe typed as another mark
(``don´t``: :mod:`charwise.speller.apostrophes`) and the apostrophe of a dropped g (``goin'`` ->
``going``: :func:`~charwise.speller.normalisation_rules.take_dropped_g_marks`); and ``a`` before a
vowel sound (``a apple``: :mod:`charwise.speller.articles`). :func:`mend_text` runs them, where the
language has them.

**A word typed twice.** A finger that strikes a word again leaves ``the the``, ``to to``, ``and and``;
writers also repeat words on purpose (``very very``, ``please please``, ``so so``, ``bye bye``), and a
sentence may repeat a word across a clause it does not mark (``the state he was in in this world``,
``looking for for 28 bucks``). The second of two identical words, with nothing but a space between
them, is deleted when

* the word is one that edited English writes twice no more often than chance would put it beside
  itself (:func:`doubled_at_chance`: in the English context model's counts, symspellpy's Google Books
  pairs, ``the the``, ``to to``, ``and and``, ``of of`` fall at or below that; ``that that``, ``had
  had``, ``very very``, ``no no`` far above it), and
* it is not a word whose doublings on real text were right less than nine times in ten
  (:data:`LEFT_DOUBLED`: a preposition ends one clause and starts the next: ``in in``, ``for for``);

and the second is not capitalised while the first is not (``only this This make me``: a sentence
begun without a full stop), and neither is beside the same word once more (``and and and``: repeated
on purpose). The second word is then joined away (its correction empty; kind
``spelling``) and the text loses it with the space before it. Every such change on real text was
read by hand (``python -m benchmarks.correction.slips``).

Example::

    >>> from charwise.speller import Speller
    >>> Speller.load("en").correct("turned off at the the right time, very very late").corrected
    'turned off at the right time, very very late'
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Collection, Sequence

from charwise.speller.apostrophes import MARK_BEFORE_LETTER, typed_apostrophes
from charwise.speller.articles import ARTICLE, put_an
from charwise.speller.normalisation_rules import APOSTROPHES, RULES, take_dropped_g_marks

if TYPE_CHECKING:
    from charwise.speller.corrections import WordCorrection
    from charwise.speller.lexicon import Lexicon

KIND = "spelling"
#: doubled words below chance in edited English whose doublings on real text (WNUT17's raw tweets, YouTube,
#: Reddit and Stack Overflow text, UD EWT train) were right less than nine times in ten, with their counts
LEFT_DOUBLED = {"in": "3 right of 5 (``the state he was in in this world``, ``I'm coming in in a minute``)",
                "for": "1 right of 2 (``looking for for about 28 bucks``)",
                "all": "1 right of 2 (``We all all fighting``)",
                "this": "5 right of 6 (``this this is it``)"}


def doubled_at_chance(word: str, language: str) -> bool:
    """Whether edited text of ``language`` writes lower-case ``word`` twice in a row no more often than
    chance would (the pair's count at most the square of the word's share of the counts times their
    total; a pair the list lacks counts as the list's cut, the most it can have). English only: the
    counts of the other languages (Bible verses) are too few to say."""
    return word in _at_chance(language)


@lru_cache(maxsize=None)
def _at_chance(language: str) -> frozenset[str]:
    """Every word :func:`doubled_at_chance` holds for (one pass over the counts: a word must be frequent,
    its count squared at least the counts' total, for any pair to be at or below chance)."""
    from charwise.speller.context import NgramContext

    if language != "en":
        return frozenset()
    counts = NgramContext.load(language)
    return frozenset(word for word, alone in counts.unigrams.items()
                     if alone * alone >= counts.total and word.isalpha()
                     and math.log10((counts.bigrams.get(f"{word} {word}") or counts.pair_cut) * counts.total
                                    / (alone * alone)) <= 0.0)


@lru_cache(maxsize=None)
def deleted_when_doubled(language: str) -> frozenset[str]:
    """The words whose second of two is deleted: :func:`doubled_at_chance`, less :data:`LEFT_DOUBLED`."""
    return _at_chance(language) - frozenset(LEFT_DOUBLED)


@lru_cache(maxsize=None)
def typed_twice_pattern(language: str) -> re.Pattern[str] | None:
    """Two of a word of :func:`deleted_when_doubled` with only spaces between, or None when the language
    has none: what a text must hold for :func:`typed_twice`."""
    words = sorted(deleted_when_doubled(language))
    return re.compile(r"(?<![\w'])(" + "|".join(words) + r")\s+\1(?![\w'])", re.IGNORECASE) if words else None


def typed_twice(entries: Sequence[WordCorrection], lexicon: Lexicon, allowed: Collection[str]) -> int:
    """Join away the second of each word of ``entries`` (a text's words, their offsets known) typed
    twice (see the module docstring), in place; returns how many were."""
    if KIND not in allowed:
        return 0
    done = 0
    for i, (first, second) in enumerate(zip(entries, entries[1:])):
        word = first.word.lower()
        if second.word.lower() != word:
            continue  # nearly every pair: nothing more to read
        around = {e.word.lower() for e in entries[max(0, i - 1):i]} | {e.word.lower() for e in entries[i + 2:i + 3]}
        if (word not in deleted_when_doubled(lexicon.language) or word in around
                or (second.word[:1].isupper() and not first.word[:1].isupper())
                or any(e.changed or e.protected for e in (first, second))):
            continue
        second.correction, second.kind, second.probability = "", KIND, 1.0
        second.decided_by = f"a word typed twice: edited text writes {word!r} twice no more often than chance"
        done += 1
    return done


def mend_text(text: str, entries: Sequence[WordCorrection], lexicon: Lexicon, allowed: Collection[str],
              start: bool = True) -> None:
    """The slips between the words of a corrected ``text`` (``entries``, their offsets known; ``start``:
    whether it begins a sentence), in place, where the lexicon's language has them (see the module
    docstring), and ``a`` before a vowel sound (:mod:`charwise.speller.articles`). A text that holds no
    candidate (nearly every one) costs a few scans of its characters (a few per cent of the speller's
    time on text it has seen before)."""
    dropped_g, apostrophes, twice, pairs, articles = _readers(lexicon.language)
    if dropped_g is not None and "normalisation" in allowed and dropped_g.search(text):
        take_dropped_g_marks(entries)
    if apostrophes and MARK_BEFORE_LETTER.search(text):
        typed_apostrophes(entries, lexicon, allowed)
    if twice is not None:
        low = text.lower()  # a pair written with one space (else, a space more than one: the pattern)
        if any(pair in low for pair in pairs) or (("  " in text or "\t" in text) and twice.search(text)):
            typed_twice(entries, lexicon, allowed)
    if articles and ARTICLE.search(text):
        put_an(entries, lexicon, allowed, start)


@lru_cache(maxsize=None)
def _readers(language: str) -> tuple[re.Pattern[str] | None, bool, re.Pattern[str] | None, tuple[str, ...], bool]:
    """What :func:`mend_text` reads in ``language``: a pattern of the marks of a dropped g (None: the
    language drops none), whether it reads apostrophes typed as other marks, :func:`typed_twice_pattern`
    and its words twice with one space between (``the the``), whether it reads ``a`` before a vowel sound."""
    rules = RULES.get(language)
    dropped_g = re.compile("[" + re.escape("".join(sorted(APOSTROPHES))) + "]") if rules and rules.dropped_g else None
    return (dropped_g, bool(rules and rules.apostrophes), typed_twice_pattern(language),
            tuple(f"{w} {w}" for w in sorted(deleted_when_doubled(language))), language == "en")
