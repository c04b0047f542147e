"""Known misspellings: the forms people write for a word often enough that editors list them
(``wierd`` -> ``weird``, ``definately`` -> ``definitely``, ``teh`` -> ``the``).

Web word lists hold such forms as words (wordfreq gives ``wierd`` a Zipf frequency of 2.6), so a
speller that trusts frequency alone takes them for rare valid words. A list of known misspellings
is evidence of another kind: the written form is one people are known to get wrong, and the list
says what they meant. It enters the speller as a candidate source (the listed corrections of a
written word, flag :data:`~charwise.speller.candidates.LISTED`) and as features of the one fitted
scorer (``listed``: the candidate is a listed correction of the written word, weighted by how many
corrections the list gives; ``best_listed``, ``written_listed``); the scorer decides, never the
list alone.

The list is codespell's main dictionary (``codespell_lib/data/dictionary.txt``, 64,980 entries in
codespell 2.4.3, 62,936 of them a word corrected by single words; derived from Wikipedia's lists
of common misspellings; the dictionary is released under CC BY-SA 3.0, the program under
GPL-2.0), read from the installed ``codespell`` package at run time and never copied into
charwise. Only English has a list; other languages get none.

Example::

    >>> listed_corrections("definately")
    ('definitely',)
    >>> listed_corrections("weird")
    ()
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Iterator

from charwise.errors import ConfigError

#: the language whose misspellings the list holds
LANGUAGE = "en"


def parse_entry(line: str) -> tuple[str, tuple[str, ...]] | None:
    """``(misspelling, corrections)`` of one line of a codespell dictionary, or None for a line
    that is no entry. codespell's format: ``wrong->right``; ``wrong->a, b,`` (several corrections,
    a trailing comma); ``wrong->right, reason`` (one correction and why it is not applied
    automatically: the reason is dropped)."""
    wrong, arrow, rest = line.partition("->")
    wrong, rest = wrong.strip().lower(), rest.strip().lower()
    if not arrow or not wrong or not rest:
        return None
    if "," not in rest:  # one correction: most entries
        return wrong, (rest,)
    parts = [p.strip() for p in rest.split(",")]
    return wrong, tuple(p for p in parts if p) if rest.endswith(",") else (parts[0],)


def _entries() -> Iterator[tuple[str, tuple[str, ...]]]:
    """Every entry of codespell's main dictionary: (misspelling, corrections), lower-case (read
    again by each table: kept, the 64,980 entries would cost 8 MB)."""
    try:
        text = (resources.files("codespell_lib") / "data" / "dictionary.txt").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as error:
        raise ConfigError("the list of known misspellings comes from the codespell package: "
                          "pip install codespell") from error
    return (entry for entry in map(parse_entry, text.splitlines()) if entry is not None)


@lru_cache(maxsize=1)
def known_misspellings() -> dict[str, tuple[str, ...]]:
    """Every listed misspelling -> its corrections (lower-case, in the list's order), for words
    written with letters and inner apostrophes only and corrected by single words (an entry with a
    correction of several words, ``alot`` -> ``a lot, allot``, is left out: its other corrections
    are not what writers mean)."""
    table: dict[str, tuple[str, ...]] = {}
    for wrong, corrections in _entries():
        words = tuple(c for c in corrections if c != wrong)
        if _one_word(wrong) and words and all(map(_one_word, words)):
            table[wrong] = words
    return table


@lru_cache(maxsize=1)
def listed_run_together() -> dict[str, str]:
    """Every listed word run together -> the words apart, when the list gives that as its first
    correction (``atleast`` -> ``at least``, ``everytime`` -> ``every time``, ``alot`` -> ``a lot``;
    ``allready`` -> ``already, all ready`` and ``togather`` -> ``together, to gather`` are slips of
    one word first, and left out)."""
    table: dict[str, str] = {}
    for wrong, corrections in _entries():
        first = corrections[0]
        if _one_word(wrong) and " " in first and all(map(_one_word, first.split())):
            table[wrong] = first
    return table


def _one_word(form: str) -> bool:
    return form.replace("'", "").isalpha() and form[0] != "'" and form[-1] != "'"


def listed_corrections(word: str, language: str = LANGUAGE) -> tuple[str, ...]:
    """The listed corrections of lower-case ``word`` (none when the list lacks it or the language
    has no list)."""
    if language != LANGUAGE:
        return ()
    return known_misspellings().get(word, ())


def listed_cut(word: str, cut: str, language: str = LANGUAGE) -> bool:
    """Whether the list names ``cut`` (words apart, lower-case) as the correction of ``word`` run
    together (:func:`listed_run_together`)."""
    return language == LANGUAGE and listed_run_together().get(word) == cut


def listed_share(word: str, candidate: str, language: str = LANGUAGE) -> float:
    """1 / (the number of listed corrections of ``word``) when ``candidate`` is one of them, else 0:
    a form listed with one correction says more than one listed with five."""
    corrections = listed_corrections(word, language)
    return 1.0 / len(corrections) if candidate in corrections else 0.0
