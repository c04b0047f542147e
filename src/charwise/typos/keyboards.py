"""Keyboard layouts and the neighbour tables of the ``mistype`` typo (:mod:`charwise.typos.single`).

Five layouts (:data:`LAYOUTS`: US and UK QWERTY, German QWERTZ, French AZERTY, Spanish QWERTY) are
modelled as staggered rows of keys; two keys are neighbours when they touch (same row, or
adjacent rows with centres less than one key width apart), on the same shift layer. Characters
that have no key of their own fall back to the base letter's neighbours (precomposed letters) or
to nearby code points of the same Unicode category and script (:func:`keyboard_neighbours`).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Literal

from charwise.errors import ConfigError

__all__ = ["LAYOUTS", "check_layout", "keyboard_neighbours", "neighbours"]

# --------------------------------------------------------------------------
# Keyboard layouts
# --------------------------------------------------------------------------

_ABSENT = "\0"  # a key position with no character on that layer

# Each layout: rows from the digit row down, as (x offset, unshifted, shifted).
# Offsets model the physical stagger (unit = one key width, the "1" key at
# x = 0), so keys on adjacent rows touch when their centres are < 1 apart.
# Dead keys (^ ´ ` ¨) are kept as the characters they print when mistyped.
_LAYOUT_ROWS: dict[str, tuple[tuple[float, str, str], ...]] = {
    # US QWERTY (ANSI).
    "us": (
        (-1.0, "`1234567890-=", "~!@#$%^&*()_+"),
        (0.5, "qwertyuiop[]\\", "QWERTYUIOP{}|"),
        (0.75, "asdfghjkl;'", 'ASDFGHJKL:"'),
        (1.25, "zxcvbnm,./", "ZXCVBNM<>?"),
    ),
    # UK QWERTY (ISO: extra "#~" key on the home row, "\|" left of Z).
    "uk": (
        (-1.0, "`1234567890-=", '¬!"£$%^&*()_+'),
        (0.5, "qwertyuiop[]", "QWERTYUIOP{}"),
        (0.75, "asdfghjkl;'#", "ASDFGHJKL:@~"),
        (0.25, "\\zxcvbnm,./", "|ZXCVBNM<>?"),
    ),
    # German QWERTZ (ISO).
    "de": (
        (-1.0, "^1234567890ß´", '°!"§$%&/()=?`'),
        (0.5, "qwertzuiopü+", "QWERTZUIOPÜ*"),
        (0.75, "asdfghjklöä#", "ASDFGHJKLÖÄ'"),
        (0.25, "<yxcvbnm,.-", ">YXCVBNM;:_"),
    ),
    # French AZERTY (ISO; digits are on the shifted layer).
    "fr": (
        (-1.0, "²&é\"'(-è_çà)=", _ABSENT + "1234567890°+"),
        (0.5, "azertyuiop^$", "AZERTYUIOP¨£"),
        (0.75, "qsdfghjklmù*", "QSDFGHJKLM%µ"),
        (0.25, "<wxcvbn,;:!", ">WXCVBN?./§"),
    ),
    # Spanish QWERTY (ISO).
    "es": (
        (-1.0, "º1234567890'¡", 'ª!"·$%&/()=?¿'),
        (0.5, "qwertyuiop`+", "QWERTYUIOP^*"),
        (0.75, "asdfghjklñ´ç", "ASDFGHJKLÑ¨Ç"),
        (0.25, "<zxcvbnm,.-", ">ZXCVBNM;:_"),
    ),
}

LAYOUTS: tuple[str, ...] = tuple(_LAYOUT_ROWS)


def _dedupe(chars: list[str], exclude: str) -> tuple[str, ...]:
    """Order-preserving de-duplication, dropping ``exclude`` and absent keys."""
    seen: dict[str, None] = {}
    for c in chars:
        if c != exclude and c != _ABSENT:
            seen.setdefault(c, None)
    return tuple(seen)


def _build_table(rows: tuple[tuple[float, str, str], ...]) -> dict[str, tuple[str, ...]]:
    """Neighbour table ``char -> adjacent chars`` for one layout.

    Neighbours are taken on the same layer (shift held or not), so upper-case
    letters get upper-case neighbours. Unshifted letters whose upper case is
    not on the shifted layer (e.g. AZERTY "é" -> "É") get caps-lock style
    neighbours: the lower-case neighbours, upper-cased where they are letters.
    """
    for _, plain, shifted in rows:
        assert len(plain) == len(shifted), (plain, shifted)
    collected: dict[str, list[str]] = {}
    unshifted: list[str] = []  # chars on the unshifted layer, in key order
    layers: tuple[Literal[1, 2], ...] = (1, 2)
    for layer in layers:
        for r, row in enumerate(rows):
            offset, keys = row[0], row[layer]
            for j, char in enumerate(keys):
                if char == _ABSENT:
                    continue
                if layer == 1:
                    unshifted.append(char)
                near = []
                if j > 0:
                    near.append(keys[j - 1])
                if j + 1 < len(keys):
                    near.append(keys[j + 1])
                x = offset + j
                for rr in (r - 1, r + 1):
                    if 0 <= rr < len(rows):
                        o2, k2 = rows[rr][0], rows[rr][layer]
                        near.extend(c for jj, c in enumerate(k2) if abs(o2 + jj - x) < 1.0)
                collected.setdefault(char, []).extend(near)
    table = {c: _dedupe(n, c) for c, n in collected.items()}
    for char in unshifted:
        up = char.upper()
        if char.isalpha() and len(up) == 1 and up != char and up not in table:
            table[up] = _dedupe(
                [n.upper() if n.isalpha() and len(n.upper()) == 1 else n for n in table[char]], up
            )
    return table


# Precomputed once at import: layout -> {char: neighbours}.
_TABLES: dict[str, dict[str, tuple[str, ...]]] = {
    name: _build_table(rows) for name, rows in _LAYOUT_ROWS.items()
}

# --------------------------------------------------------------------------
# Layout-free fallback
# --------------------------------------------------------------------------

_FALLBACK_SPAN = 0x400  # how far (in code points) to look for same-script chars
_FALLBACK_PER_SIDE = 2  # neighbours taken below and above the char


def _script(char: str) -> str:
    """Crude script tag: first word of the Unicode name ("CYRILLIC", "GREEK")."""
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0]


def _scan(char: str, category: str, script: str | None, span: int) -> tuple[str, ...]:
    """Nearest code points (up to ``_FALLBACK_PER_SIDE`` each side within
    ``span``) with the same general category (and script, if given)."""
    cp = ord(char)
    found: list[int] = []
    for step in (-1, 1):
        taken = 0
        other = cp + step
        while taken < _FALLBACK_PER_SIDE and 0 <= other <= 0x10FFFF and abs(other - cp) <= span:
            c = chr(other)
            if unicodedata.category(c) == category and (script is None or _script(c) == script):
                found.append(other)
                taken += 1
            other += step
    return tuple(chr(o) for o in sorted(found))


@lru_cache(maxsize=65536)
def _fallback_neighbours(char: str) -> tuple[str, ...]:
    """Layout-free neighbours: nearby code points of the same general category
    (same script preferred). Empty for marks, separators and control chars,
    which are not typed as standalone keys; never empty for letters/numbers."""
    category = unicodedata.category(char)
    if category[0] not in "LNPS":
        return ()
    found = _scan(char, category, _script(char), _FALLBACK_SPAN)
    if not found:
        found = _scan(char, category, None, _FALLBACK_SPAN)
    if not found and category[0] in "LN":
        # Rare isolated categories: widen to the whole code space (cached).
        found = _scan(char, category, None, 0x110000)
    return found


@lru_cache(maxsize=65536)
def _off_layout_neighbours(char: str, layout: str) -> tuple[str, ...]:
    """Neighbours of a char that has no key of its own on ``layout``.

    A precomposed letter whose base letter is on the layout (e.g. "á" on US,
    typed with a dead key or compose) gets the base letter's neighbours plus
    the bare base letter (the forgotten accent); anything else uses
    :func:`_fallback_neighbours`.
    """
    table = _TABLES[layout]
    decomposed = unicodedata.normalize("NFD", char)
    base = decomposed[0]
    if len(decomposed) > 1 and base in table:
        return _dedupe([*table[base], base], char)
    return _fallback_neighbours(char)


def neighbours(char: str, layout: str) -> tuple[str, ...]:
    """Unchecked fast path of :func:`keyboard_neighbours` (``layout`` must be one of :data:`LAYOUTS`)."""
    found = _TABLES[layout].get(char)
    if found is None:
        found = _off_layout_neighbours(char, layout)
    return found


def keyboard_neighbours(char: str, layout: str = "us") -> tuple[str, ...]:
    """Keys physically adjacent to ``char`` on ``layout``.

    Args:
        char: a single code point.
        layout: one of :data:`LAYOUTS`.

    Returns:
        The characters on the keys to the left/right in the same row and the
        touching keys on the rows above/below, on the same shift layer (so an
        upper-case letter gets upper-case neighbours). Characters not on the
        layout use a fallback: a precomposed letter whose base letter is on
        the layout gets that letter's neighbours plus the base letter itself;
        anything else gets nearby code points of the same Unicode general
        category and (preferably) script, e.g. Cyrillic letters for a
        Cyrillic letter. Never contains ``char``; never empty for letters and
        numbers; empty for combining marks, whitespace and control chars.

    Raises:
        ConfigError: unknown layout (a ``ValueError``).
        ValueError: ``char`` not a single code point.
    """
    check_layout(layout)
    if not isinstance(char, str) or len(char) != 1:
        raise ValueError(f"expected a single character, got {char!r}")
    return neighbours(char, layout)


def check_layout(layout: str) -> str:
    """``layout`` if it is one of :data:`LAYOUTS`, else a :class:`~charwise.errors.ConfigError`."""
    if layout not in _TABLES:
        raise ConfigError(f"unknown layout {layout!r}; expected one of {LAYOUTS}")
    return layout
