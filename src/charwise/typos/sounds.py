"""Sound keys: one string per word that the realistic misspellings of a language leave unchanged.

The realistic error model (:mod:`charwise.typos.realistic`) misspells by sound and by rule:
``ie``/``ei``, doubled letters, unstressed vowels, ``ph``/``f``, ``c``/``k``/``s``, silent letters,
``-ance``/``-ence``; in Spanish ``b``/``v``, ``ll``/``y``, ``c``/``s``/``z``, the silent ``h``,
``g``/``j`` and the written accent; Spanish keys also write ``m`` for the ``n`` said as one before
``b`` and ``p`` (``tanbien``, ``también``). :func:`sound_key` rewrites a word so that all the spellings
such rules connect share one key (``definately``, ``definitely`` and ``definatly`` all give
``d*f*n*t*l*``), so a speller finds the intended word of a misspelling many edits away from it by
looking its key up: the inverse of the rules, without enumerating their combinations.

English keys keep the first letter and collapse every later vowel (``y`` included) to ``*``;
Spanish vowels are kept (Spanish spelling follows its sounds), accents dropped.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from charwise.languages import check_language

# (pattern, replacement), applied in order to the lower-cased, accent-free word
_ENGLISH: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), r) for p, r in (
    (r"^kn", "n"), (r"^wr", "r"), (r"rh", "r"), (r"^ps", "s"), (r"^wh", "w"), (r"mb$", "m"), (r"ght", "t"),
    (r"gh", "g"), (r"ph", "f"), (r"tch", "ch"), (r"dg", "g"), (r"ck", "k"), (r"c(?=[eiy])", "s"), (r"qu", "kw"),
    (r"q", "k"), (r"x", "ks"), (r"c", "k"), (r"z", "s"), (r"[ts]i(?=on)", "sh"), (r"(.)\1+", r"\1"),
))
_SPANISH: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), r) for p, r in (
    (r"(?<!c)h", ""), (r"v", "b"), (r"w", "b"), (r"n(?=[bp])", "m"), (r"ll", "y"), (r"z", "s"), (r"c(?=[ei])", "s"),
    (r"qu", "k"), (r"c", "k"), (r"g(?=[ei])", "j"), (r"x", "ks"), (r"(.)\1+", r"\1"),
))
_ENGLISH_VOWELS = re.compile(r"(?<=.)[aeiouy]+")
LANGUAGES = ("en", "es")


def strip_accents(word: str) -> str:
    """``canción`` -> ``cancion`` (combining marks removed after NFD; ``ñ`` becomes ``n``)."""
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


@lru_cache(maxsize=400_000)
def sound_key(word: str, language: str = "en") -> str:
    """The word's sound key in ``language`` (``en`` or ``es``); see the module docstring."""
    check_language(language, LANGUAGES, "sound keys")
    key = strip_accents(word.lower())
    if language == "en":
        for pattern, replacement in _ENGLISH:
            key = pattern.sub(replacement, key)
        return _ENGLISH_VOWELS.sub("*", key)
    for pattern, replacement in _SPANISH:
        key = pattern.sub(replacement, key)
    return key
