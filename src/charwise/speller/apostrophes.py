"""Apostrophes typed as other marks: ``don´t``, ``I`m``, ``it,s`` -> ``don't``, ``I'm``, ``it's``.

Keyboards without an apostrophe key where the writer looks for one give the acute accent ``´`` or
the backtick (European layouts, phones), and a finger one key off gives the comma (below the
apostrophe's row on some layouts) or, with shift held, the double quote. The word splitter reads such
a mark as punctuation, so ``don´t`` reaches a model as three pieces (``don ´ t``) and the speller
leaves them alone (a piece of a contraction is never changed on its own). Here, after the words are
corrected and their offsets known, a mark written between two words it touches is made an apostrophe
when what it joins is an English contraction or possessive:

* the acute accent, the backtick and the prime (:data:`STAND_INS`) stand for little else between
  two letters: the join needs a contraction's ending (:data:`~charwise.speller.context.CONTRACTION_ENDINGS`:
  ``n't``, ``'s``, ``'re``, ``'ve``, ``'ll``, ``'d``, ``'m``) and the lexicon to accept the joined word
  (``trump´s`` -> ``trump's``: it accepts the possessives of the words it knows); a possessive
  only after a word of three letters or more (``ma´s`` is Spanish ``más``, its accent typed apart);
* the comma and the double quote (:data:`SLIPS`) are also written between words without a space
  (``a,b``, ``5"x7"``, code): only a contraction is joined (``don,t``, ``it,s``, ``i,m``, ``we,re``;
  ``'s`` only after the words of :data:`S_CONTRACTIONS`), never a possessive (``dog,s``) and never
  after a letter other than ``i`` (``a,s``, ``x,d``: lists and code).

Nothing is changed when a word is protected (a URL, a handle, code) or already changed, or when a
space stands on either side of the mark (``rock ´ n ´ roll`` as quoted). The mark alone changes
(kind ``spelling``): the output keeps every other character as written. Every change this makes on
the project's real text was read by hand (``python -m benchmarks.correction.slips``). The speller runs
it with the other slips between words (:func:`charwise.speller.slips.mend_text`).

Example::

    >>> from charwise.speller import Speller
    >>> Speller.load("en").correct("I don´t know, it,s late").corrected
    "I don't know, it's late"
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Collection, Sequence

from charwise.speller.context import CONTRACTION_ENDINGS

if TYPE_CHECKING:
    from charwise.speller.corrections import WordCorrection
    from charwise.speller.lexicon import Lexicon

#: marks that between two letters stand only for an apostrophe: the acute accent, the backtick, the prime
STAND_INS = frozenset("\u00b4`\u2032")
#: keys struck for the apostrophe that are also written between words: the comma, the double quote
SLIPS = frozenset(',"')
MARKS = STAND_INS | SLIPS
#: a mark of :data:`MARKS` written between two letters (what a text must hold for :func:`typed_apostrophes`)
MARKED = re.compile(r"[^\W\d_][" + re.escape("".join(sorted(MARKS))) + r"][^\W\d_]")
#: a mark of :data:`MARKS` before a letter: what :data:`MARKED` needs, found ten times faster (the mark first)
MARK_BEFORE_LETTER = re.compile(r"[" + re.escape("".join(sorted(MARKS))) + r"][^\W\d_]")
APOSTROPHE = "'"
#: what follows the apostrophe of a contraction, and the letter before it for ``n't``
ENDINGS = frozenset(ending.split(APOSTROPHE)[1] for ending in CONTRACTION_ENDINGS)
KIND = "spelling"
#: the words whose ``'s`` is ``is``, ``has`` or ``us`` (a grammar's closed list): pronouns, ``wh-`` words,
#: ``there``, ``here``, ``that``, ``let``
S_CONTRACTIONS = frozenset("it he she that what where who there here how when why let".split())


def contraction(first: str, second: str) -> str | None:
    """The contraction or possessive ``first'second`` (lower-case) when ``second`` is the part after
    a contraction's apostrophe (``don`` + ``t``: ``don't``; ``it`` + ``s``: ``it's``), else None."""
    if not (first.isalpha() and second.isalpha()) or second not in ENDINGS:
        return None
    if second == "t" and not first.endswith("n"):
        return None
    return f"{first}{APOSTROPHE}{second}"


def mark_means_apostrophe(first: str, mark: str, second: str, lexicon: Lexicon) -> bool:
    """Whether ``mark``, written between ``first`` and ``second`` without spaces, is an apostrophe
    typed as another mark (see the module docstring)."""
    first, second = first.lower(), second.lower()
    joined = contraction(first, second)
    if joined is None or mark not in MARKS:
        return False
    possessive = second == "s" and first not in S_CONTRACTIONS
    if mark in SLIPS and (possessive or (len(first) == 1 and first != "i")):
        return False
    # a possessive after a word of one or two letters is more often an accent typed apart (``ma´s``: más)
    return not (possessive and len(first) < 3) and lexicon.accepts(joined)


def typed_apostrophes(entries: Sequence[WordCorrection], lexicon: Lexicon, allowed: Collection[str]) -> int:
    """Make apostrophes of the marks of ``entries`` (a text's words, their offsets known) typed for
    one (see the module docstring), in place; returns how many were."""
    if KIND not in allowed:
        return 0
    done = 0
    for j in range(1, len(entries) - 1):
        if entries[j].word not in MARKS:
            continue  # nearly every word: nothing more to read
        first, mark, second = entries[j - 1], entries[j], entries[j + 1]
        if (first.end != mark.start or mark.end != second.start
                or any(e.changed or e.protected for e in (first, mark, second))):
            continue
        if mark_means_apostrophe(first.word, mark.word, second.word, lexicon):
            mark.correction, mark.kind, mark.probability = APOSTROPHE, KIND, 1.0
            mark.decided_by = (f"an apostrophe typed as {mark.word!r}: "
                               f"{first.word}{APOSTROPHE}{second.word} is a contraction or possessive")
            done += 1
    return done

