"""Edit distances between words: charwise's one implementation, ``editdistpy``'s C code.

* :func:`osa_distance`: Damerau-Levenshtein distance in its optimal-string-alignment variant
  (insertions, deletions, substitutions and adjacent transpositions; no substring edited twice);
  ``recieve`` -> ``receive`` is one edit;
* :func:`levenshtein_distance`: without transpositions (``recieve`` -> ``receive`` is two).

Both compare code points. ``cap`` bounds the work: a distance above it is returned as ``cap``
(``editdistpy`` stops early). Symspellpy's candidate lookup (:mod:`charwise.speller.candidates`)
uses the same C code through its ``DAMERAU_OSA_FAST`` comparer.

Example::

    osa_distance("recieve", "receive")            # 1
    levenshtein_distance("recieve", "receive")    # 2
    osa_distance("dephinatelly", "definitely", cap=2)   # 2 (the distance is 4)
"""

from __future__ import annotations

from typing import Callable

from editdistpy import damerau_osa, levenshtein

_PRIVATE_USE = 0xF0000  # supplementary private use area A: stand-ins for lone surrogates


def _without_surrogates(a: str, b: str) -> tuple[str, str]:
    """``a`` and ``b`` with each distinct lone surrogate (Python's stand-in for an undecodable byte,
    which editdistpy cannot encode) replaced by a distinct code point neither string holds."""
    present = set(a) | set(b)
    stand_in: dict[int, str] = {}
    code = _PRIVATE_USE
    for char in sorted(c for c in present if 0xD800 <= ord(c) <= 0xDFFF):
        while chr(code) in present:
            code += 1
        stand_in[ord(char)] = chr(code)
        code += 1
    return a.translate(stand_in), b.translate(stand_in)


def _distance(function: Callable[[str, str, int], int], a: str, b: str, cap: int | None) -> int:
    limit = max(len(a), len(b)) if cap is None else cap
    try:
        distance = function(a, b, limit)
    except UnicodeEncodeError:
        distance = function(*_without_surrogates(a, b), limit)
    return limit if distance < 0 else distance


def osa_distance(a: str, b: str, cap: int | None = None) -> int:
    """Optimal-string-alignment (Damerau-Levenshtein) distance; above ``cap``: ``cap``."""
    return _distance(damerau_osa.distance, a, b, cap)


def levenshtein_distance(a: str, b: str, cap: int | None = None) -> int:
    """Levenshtein distance (no transpositions); above ``cap``: ``cap``."""
    return _distance(levenshtein.distance, a, b, cap)
