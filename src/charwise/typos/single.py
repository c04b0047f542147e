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

from charwise.errors import ConfigError
from charwise.typos.keyboards import LAYOUTS, check_layout, keyboard_neighbours, neighbours

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

# Keyboard layouts and neighbour tables live in charwise.typos.keyboards (LAYOUTS and
# keyboard_neighbours are re-exported here).

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
    return any(neighbours(u[0], layout) for u in units)


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
    candidates = [i for i, u in enumerate(units) if neighbours(u[0], layout)]
    if not candidates:
        raise _fail("mistype", "".join(units))
    i = rng.choice(candidates)
    unit = units[i]
    # Substitute the base code point only; its combining marks stay on it.
    new = rng.choice(neighbours(unit[0], layout)) + unit[1:]
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
        ConfigError: on unknown/duplicate layouts or operations, empty
            selections, or ``min_length < 1`` (a ``ValueError``).
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
                raise ConfigError(f"at least one {kind} is required")
            unknown = [v for v in values if v not in allowed]
            if unknown:
                raise ConfigError(f"unknown {kind}(s) {unknown}; expected some of {allowed}")
            if len(set(values)) != len(values):
                raise ConfigError(f"duplicate {kind}s in {values}")
        if not self.cased and all(op == "toggle" for op in self.operations):
            raise ConfigError("cased=False excludes 'toggle', leaving no operation")
        if self.min_length < 1:
            raise ConfigError(f"min_length must be >= 1, got {self.min_length}")


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
            ConfigError: unknown operation or layout (a ``ValueError``).
        """
        edit = _EDITS.get(operation)
        if edit is None:
            raise ConfigError(f"unknown operation {operation!r}; expected one of {OPERATIONS}")
        if layout is None:
            layout = self._draw_layout(rng) if operation == "mistype" else self.config.layouts[0]
        else:
            check_layout(layout)
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
        ConfigError: ``rate`` outside [0, 1] (a ``ValueError``).
    """
    if not 0.0 <= rate <= 1.0:
        raise ConfigError(f"rate must be in [0, 1], got {rate}")
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
