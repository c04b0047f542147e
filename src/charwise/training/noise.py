"""Single-character typo noise for words and sentences.

The six operations follow Char2Subword (Aguilar et al., 2021, table 1):

* ``mistype`` -- replace a random character by one of its neighbouring keys
  on a keyboard layout;
* ``repeat``  -- repeat (duplicate) a random character;
* ``swap``    -- swap a character with the next one;
* ``drop``    -- drop a random character;
* ``toggle``  -- toggle the case of a random character;
* ``punct``   -- insert a punctuation mark commonly used inside words
  (see :data:`WITHIN_WORD_PUNCTUATION`) strictly inside the word.

Exactly one edit is made per sample and, as in the paper, only strings longer
than four characters are eligible (``NoiseConfig.min_length = 5``).

Uses:

* augmenting the training data of a character encoder (the noisy string keeps
  the clean target) -- :class:`Noiser` / :meth:`Noiser.corrupt`;
* building noisy evaluation sets and noisy test sentences --
  :func:`add_typos`.

All randomness comes from ``random.Random`` instances passed in (never the
global ``random`` state), so results are deterministic given a seed.

Strings are handled as Unicode code points, except that a base character and
the combining marks following it form one *unit*: ``repeat``, ``swap``,
``drop`` and the insertion points of ``punct`` work on units, so an accent is
never detached from its letter (and no output starts with a combining mark
unless the input already did).
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "LAYOUTS",
    "OPERATIONS",
    "WITHIN_WORD_PUNCTUATION",
    "NoiseConfig",
    "NoiseNotApplicable",
    "Noiser",
    "add_typos",
    "keyboard_neighbours",
]

OPERATIONS: tuple[str, ...] = ("mistype", "repeat", "swap", "drop", "toggle", "punct")

#: Punctuation marks that commonly occur *inside* words, drawn uniformly by
#: the ``punct`` operation: hyphen ("well-known"), period ("e.g", "U.S"),
#: apostrophe ("don't"), underscore ("snake_case"), slash ("and/or") and
#: ampersand ("AT&T").
WITHIN_WORD_PUNCTUATION: tuple[str, ...] = ("-", ".", "'", "_", "/", "&")

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
    for layer in (1, 2):
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


def _neighbours(char: str, layout: str) -> tuple[str, ...]:
    """Unchecked fast path of :func:`keyboard_neighbours`."""
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
        ValueError: unknown layout or ``char`` not a single code point.
    """
    if layout not in _TABLES:
        raise ValueError(f"unknown layout {layout!r}; expected one of {LAYOUTS}")
    if not isinstance(char, str) or len(char) != 1:
        raise ValueError(f"expected a single character, got {char!r}")
    return _neighbours(char, layout)


# --------------------------------------------------------------------------
# Edit operations
# --------------------------------------------------------------------------


class NoiseNotApplicable(ValueError):
    """The requested operation cannot change this word (or the word is not
    eligible for noise)."""


def _split_units(word: str) -> list[str]:
    """Split into units: a base code point plus its following combining marks.

    Leading orphan marks (malformed input) form a unit of their own.
    """
    if word.isascii():  # fast path: no combining marks possible
        return list(word)
    units: list[str] = []
    for c in word:
        if units and unicodedata.category(c)[0] == "M":
            units[-1] += c
        else:
            units.append(c)
    return units


@lru_cache(maxsize=8192)
def _togglable(char: str) -> bool:
    """Whether toggling case changes exactly this one code point reversibly.

    Excludes e.g. "ß" ("SS": length changes) and "ı"/"ſ"/"µ" (no round trip).
    """
    other = char.swapcase()
    return len(other) == 1 and other != char and other.swapcase() == char


def _fail(operation: str, word: str) -> NoiseNotApplicable:
    return NoiseNotApplicable(f"{operation!r} cannot change {word!r}")


# Applicability checks: cheap, short-circuiting, used by Noiser.corrupt.
def _can_mistype(units: list[str], layout: str) -> bool:
    return any(_neighbours(u[0], layout) for u in units)


def _can_repeat(units: list[str], layout: str) -> bool:
    return len(units) >= 1


def _can_swap(units: list[str], layout: str) -> bool:
    return any(units[i] != units[i + 1] for i in range(len(units) - 1))


def _can_drop(units: list[str], layout: str) -> bool:
    return len(units) >= 2  # dropping the only unit would leave no word


def _can_toggle(units: list[str], layout: str) -> bool:
    return any(_togglable(c) for u in units for c in u)


def _can_punct(units: list[str], layout: str) -> bool:
    return len(units) >= 2  # need an inner gap


# Edits: take units, return the new string; raise NoiseNotApplicable.
def _mistype(units: list[str], rng: random.Random, layout: str) -> str:
    candidates = [i for i, u in enumerate(units) if _neighbours(u[0], layout)]
    if not candidates:
        raise _fail("mistype", "".join(units))
    i = rng.choice(candidates)
    unit = units[i]
    # Substitute the base code point only; its combining marks stay on it.
    new = rng.choice(_neighbours(unit[0], layout)) + unit[1:]
    return "".join(units[:i]) + new + "".join(units[i + 1 :])


def _repeat(units: list[str], rng: random.Random, layout: str) -> str:
    if not units:
        raise _fail("repeat", "")
    i = rng.randrange(len(units))
    return "".join(units[: i + 1]) + "".join(units[i:])


def _swap(units: list[str], rng: random.Random, layout: str) -> str:
    candidates = [i for i in range(len(units) - 1) if units[i] != units[i + 1]]
    if not candidates:
        raise _fail("swap", "".join(units))
    i = rng.choice(candidates)
    return "".join(units[:i]) + units[i + 1] + units[i] + "".join(units[i + 2 :])


def _drop(units: list[str], rng: random.Random, layout: str) -> str:
    if len(units) < 2:
        raise _fail("drop", "".join(units))
    i = rng.randrange(len(units))
    return "".join(units[:i]) + "".join(units[i + 1 :])


def _toggle(units: list[str], rng: random.Random, layout: str) -> str:
    word = "".join(units)
    candidates = [i for i, c in enumerate(word) if _togglable(c)]
    if not candidates:
        raise _fail("toggle", word)
    i = rng.choice(candidates)
    return word[:i] + word[i].swapcase() + word[i + 1 :]


def _punct(units: list[str], rng: random.Random, layout: str) -> str:
    if len(units) < 2:
        raise _fail("punct", "".join(units))
    gap = rng.randrange(1, len(units))  # strictly inside: never at either end
    mark = rng.choice(WITHIN_WORD_PUNCTUATION)
    return "".join(units[:gap]) + mark + "".join(units[gap:])


_Edit = Callable[[list[str], random.Random, str], str]
_Check = Callable[[list[str], str], bool]

_EDITS: dict[str, _Edit] = {
    "mistype": _mistype,
    "repeat": _repeat,
    "swap": _swap,
    "drop": _drop,
    "toggle": _toggle,
    "punct": _punct,
}
_CHECKS: dict[str, _Check] = {
    "mistype": _can_mistype,
    "repeat": _can_repeat,
    "swap": _can_swap,
    "drop": _can_drop,
    "toggle": _can_toggle,
    "punct": _can_punct,
}

# --------------------------------------------------------------------------
# Public configuration and noiser
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class NoiseConfig:
    """Configuration of :class:`Noiser` / :func:`add_typos`.

    Attributes:
        layouts: keyboard layouts (from :data:`LAYOUTS`); one is drawn
            uniformly per sample for ``mistype``.
        operations: operations (from :data:`OPERATIONS`) that ``corrupt``
            may draw from.
        min_length: only strings with ``len(word) >= min_length`` code
            points are eligible (default 5, i.e. longer than 4).
        cased: set False for lower-casing teachers; ``corrupt`` then never
            uses ``toggle``.

    Raises:
        ValueError: on unknown/duplicate layouts or operations, empty
            selections, or ``min_length < 1``.
    """

    layouts: tuple[str, ...] = ("us",)
    operations: tuple[str, ...] = OPERATIONS
    min_length: int = 5
    cased: bool = True

    def __post_init__(self) -> None:
        # Accept lists for convenience but store tuples (hashable, frozen).
        object.__setattr__(self, "layouts", tuple(self.layouts))
        object.__setattr__(self, "operations", tuple(self.operations))
        for kind, values, allowed in (
            ("layout", self.layouts, LAYOUTS),
            ("operation", self.operations, OPERATIONS),
        ):
            if not values:
                raise ValueError(f"at least one {kind} is required")
            unknown = [v for v in values if v not in allowed]
            if unknown:
                raise ValueError(f"unknown {kind}(s) {unknown}; expected some of {allowed}")
            if len(set(values)) != len(values):
                raise ValueError(f"duplicate {kind}s in {values}")
        if not self.cased and all(op == "toggle" for op in self.operations):
            raise ValueError("cased=False excludes 'toggle', leaving no operation")
        if self.min_length < 1:
            raise ValueError(f"min_length must be >= 1, got {self.min_length}")


class Noiser:
    """Applies one single-character typo to a word.

    Args:
        config: see :class:`NoiseConfig`.
    """

    def __init__(self, config: NoiseConfig = NoiseConfig()) -> None:
        self.config = config
        # Operations corrupt() may draw from (toggle removed when uncased).
        self._operations: tuple[str, ...] = tuple(
            op for op in config.operations if config.cased or op != "toggle"
        )
        self._needs_layout = "mistype" in self._operations

    def eligible(self, word: str) -> bool:
        """True iff ``word`` has at least ``config.min_length`` code points."""
        return len(word) >= self.config.min_length

    def _draw_layout(self, rng: random.Random) -> str:
        layouts = self.config.layouts
        # Only consume randomness when there is a real choice.
        return layouts[0] if len(layouts) == 1 else rng.choice(layouts)

    def apply(self, word: str, operation: str, rng: random.Random, layout: str | None = None) -> str:
        """Make exactly one edit of kind ``operation`` to ``word``.

        Eligibility (length) is NOT checked, and any operation of
        :data:`OPERATIONS` is accepted, even one left out of the config.

        Args:
            word: the string to corrupt.
            operation: one of :data:`OPERATIONS`.
            rng: source of randomness.
            layout: layout for ``mistype``; None draws one of
                ``config.layouts`` (only when ``operation == "mistype"``).

        Returns:
            The noisy string, always different from ``word``.

        Raises:
            NoiseNotApplicable: the operation cannot change this word (e.g.
                toggle on "12345", swap on "aaaaa", drop on a 1-char word).
            ValueError: unknown operation or layout.
        """
        edit = _EDITS.get(operation)
        if edit is None:
            raise ValueError(f"unknown operation {operation!r}; expected one of {OPERATIONS}")
        if layout is None:
            layout = self._draw_layout(rng) if operation == "mistype" else self.config.layouts[0]
        elif layout not in _TABLES:
            raise ValueError(f"unknown layout {layout!r}; expected one of {LAYOUTS}")
        return edit(_split_units(word), rng, layout)

    def corrupt(self, word: str, rng: random.Random) -> tuple[str, str]:
        """Corrupt an eligible word with one random applicable operation.

        The operation is drawn uniformly among the configured ones that can
        change this word (``toggle`` excluded when ``config.cased`` is False).

        Args:
            word: the string to corrupt.
            rng: source of randomness.

        Returns:
            ``(noisy, operation)``; ``noisy != word``.

        Raises:
            NoiseNotApplicable: the word is too short, or no operation applies.
        """
        if not self.eligible(word):
            raise NoiseNotApplicable(f"{word!r} is shorter than min_length={self.config.min_length}")
        units = _split_units(word)
        layout = self._draw_layout(rng) if self._needs_layout else self.config.layouts[0]
        applicable = [op for op in self._operations if _CHECKS[op](units, layout)]
        if not applicable:
            raise NoiseNotApplicable(f"no configured operation can change {word!r}")
        operation = applicable[0] if len(applicable) == 1 else rng.choice(applicable)
        return _EDITS[operation](units, rng, layout), operation


def add_typos(
    words: list[str], rate: float, seed: int, config: NoiseConfig = NoiseConfig()
) -> tuple[list[str], list[bool]]:
    """Sentence-level noise: corrupt each eligible word with probability ``rate``.

    Args:
        words: the tokens of a sentence (or any list of strings).
        rate: probability in [0, 1] that an eligible word is corrupted.
        seed: seed of the private ``random.Random`` (deterministic output).
        config: see :class:`NoiseConfig`.

    Returns:
        ``(new_words, changed)``: a list of the same length as ``words``
        and a mask, True exactly where the word was corrupted. Ineligible
        words (too short, or no operation applies) are kept as they are, so
        ``rate=1`` changes every word that can be changed.

    Raises:
        ValueError: ``rate`` outside [0, 1].
    """
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"rate must be in [0, 1], got {rate}")
    rng = random.Random(seed)
    noiser = Noiser(config)
    new_words: list[str] = []
    changed: list[bool] = []
    for word in words:
        if noiser.eligible(word) and rng.random() < rate:
            try:
                word = noiser.corrupt(word, rng)[0]
                changed.append(True)
            except NoiseNotApplicable:
                changed.append(False)
        else:
            changed.append(False)
        new_words.append(word)
    return new_words, changed
