"""Realistic spelling errors: one to three edits per word, by sound, by rule and by keyboard.

:class:`Noiser` (:mod:`charwise.typos.single`) makes one synthetic keyboard-style edit per word.
People also misspell by sound and by rule (recieve, occured, seperate, independant, rythm) and
often make two or three errors in one word. :class:`RealisticNoiser` has the same interface
(``eligible(word)``, ``corrupt(word, rng) -> (noisy, description)``) and models both:

* the number of edits is drawn from ``MisspellConfig.edit_counts`` (default 1 edit 60 %,
  2 edits 30 %, 3 edits 10 %); each edit applies to the result of the previous one;
* each edit's *kind* is drawn by weight among the kinds that can change the current string:
  the language's confusion rules (:data:`LANGUAGES`, together ``rule_share`` = 60 % of the
  weight, split among the rule kinds by the sum of their rules' weights), and the
  language-free kinds of :data:`KIND_WEIGHTS` sharing the other 40 %: ``syllable`` (drop an
  inner consonant-vowel chunk, or repeat one) and the six operations of :class:`Noiser`
  (``mistype``, ``repeat``, ``swap``, ``drop``, ``toggle``, ``punct``), run through
  :meth:`Noiser.apply`. ``toggle`` is left out for uncased teachers (the other weights scale up).

A rule kind is a list of :class:`Rule` s: a regular expression searched in the lower-cased word
and its replacements (the case of the matched text is carried over). Adding a language means
adding a ``{kind: [Rule, ...]}`` table to :data:`LANGUAGES`.

The result never equals the word and is never empty: when the drawn edits cancel out (ie -> ei
-> ie) the whole draw is repeated, up to ``max_tries`` times, and then :class:`NoiseNotApplicable`
is raised. All randomness comes from the ``random.Random`` passed in, so results are
deterministic given its seed.
"""

from __future__ import annotations

import random
import re
import unicodedata
from dataclasses import dataclass, field
from typing import NamedTuple

from charwise.errors import ConfigError
from charwise.languages import check_language
from charwise.typos.single import OPERATIONS, NoiseConfig, NoiseNotApplicable, Noiser

__all__ = ["KIND_WEIGHTS", "LANGUAGES", "MisspellConfig", "RealisticNoiser", "Rule", "check_noise_language"]

#: Default relative weights of the language-free kinds (they share ``1 - rule_share`` of all
#: edits: with the default 0.4, syllable 10 %, mistype 8 %, swap 8 %, drop 6 %, repeat 4 %,
#: toggle 2 %, punct 2 %).
KIND_WEIGHTS: dict[str, float] = {
    "syllable": 25.0, "mistype": 20.0, "swap": 20.0, "drop": 15.0, "repeat": 10.0, "toggle": 5.0, "punct": 5.0,
}


@dataclass(frozen=True)
class MisspellConfig:
    """Configuration of :class:`RealisticNoiser`.

    Attributes:
        language: key of :data:`LANGUAGES` whose confusion rules are used.
        edit_counts: ``edit_counts[i]`` is the relative weight of making ``i + 1`` edits.
        rule_share: share of edits drawn from the language's rule kinds (the rest go to
            ``kind_weights``), in [0, 1].
        kind_weights: relative weights of the language-free kinds (see :data:`KIND_WEIGHTS`).
        layouts: keyboard layouts of ``mistype`` (one drawn per edit when several).
        cased: False for lower-casing teachers: ``toggle`` is never used.
        min_length: only words of at least this many code points are eligible (as :class:`Noiser`).
        max_tries: draws attempted before giving up on a word.

    Raises:
        ConfigError: unknown language, kind or layout, or a value out of range.
    """

    language: str = "en"
    edit_counts: tuple[float, ...] = (0.6, 0.3, 0.1)
    rule_share: float = 0.6
    kind_weights: dict[str, float] = field(default_factory=lambda: dict(KIND_WEIGHTS))
    layouts: tuple[str, ...] = ("us",)
    cased: bool = True
    min_length: int = 5
    max_tries: int = 8

    def __post_init__(self) -> None:
        object.__setattr__(self, "edit_counts", tuple(self.edit_counts))
        object.__setattr__(self, "layouts", tuple(self.layouts))
        check_noise_language(self.language)
        if not self.edit_counts or min(self.edit_counts) < 0 or sum(self.edit_counts) <= 0:
            raise ConfigError(f"edit_counts must be non-negative weights with a positive sum, got {self.edit_counts}")
        if not 0.0 <= self.rule_share <= 1.0:
            raise ConfigError(f"rule_share must be in [0, 1], got {self.rule_share}")
        unknown = sorted(set(self.kind_weights) - set(KIND_WEIGHTS))
        if unknown:
            raise ConfigError(f"unknown noise kind(s) {unknown}; expected some of {tuple(KIND_WEIGHTS)}")
        if any(w < 0 for w in self.kind_weights.values()):
            raise ConfigError(f"kind weights must be >= 0, got {self.kind_weights}")
        if self.min_length < 1 or self.max_tries < 1:
            raise ConfigError(f"min_length and max_tries must be >= 1, got {self.min_length}, {self.max_tries}")


class Rule(NamedTuple):
    """One spelling confusion.

    Attributes:
        pattern: regular expression searched in the lower-cased word.
        replacements: ``re`` templates (``\\1`` allowed); one that changes the match is drawn uniformly.
        weight: relative weight of the rule; a kind's weight is the sum of its rules' weights.
        after_first_vowel: the match must start after the word's first vowel (an unstressed-looking
            position: "separate" -> "seperate", never "sapirate").
    """

    pattern: str
    replacements: tuple[str, ...]
    weight: float = 1.0
    after_first_vowel: bool = False


_C = "[bcdfghjklmnpqrstvwxz]"  # consonant letters (y counts as a vowel)
_V = "[aeiouy]"
_DOUBLABLE = "[bcdfgklmnprstz]"

#: English confusions: ``{kind: rules}``; the kinds' weights (sums) total 100.
ENGLISH: dict[str, list[Rule]] = {
    # receive -> recieve, believe -> beleive
    "ie-ei": [Rule("ie", ("ei",), 5), Rule("ei", ("ie",), 5)],
    # occurred -> occured / ocurred, accommodate -> acommodate; until -> untill, omit -> ommit
    "double": [Rule(rf"({_DOUBLABLE})\1", (r"\1",), 12), Rule(rf"(?<={_V})({_DOUBLABLE})(?={_V})", (r"\1\1",), 8)],
    # separate -> seperate, definite -> definate, independent -> independant
    "schwa": [Rule(rf"(?<={_C})[aeio](?={_C})", ("a", "e", "i", "o"), 20, after_first_vowel=True)],
    # appearance -> appearence, relevant -> relevent, responsible -> responsable, realise -> realize
    "suffix": [
        Rule(r"(?<=..)ance(?=s?$)", ("ence",), 1.5), Rule(r"(?<=..)ence(?=s?$)", ("ance",), 1.5),
        Rule(r"(?<=..)ant(?=s?$|ly$)", ("ent",), 1.5), Rule(r"(?<=..)ent(?=s?$|ly$)", ("ant",), 1.5),
        Rule(r"(?<=..)ab(?=l[ey]$)", ("ib",), 1), Rule(r"(?<=..)ib(?=l[ey]$)", ("ab",), 1),
        Rule(r"(?<=..)is(?=e[sd]?$|ing$|ations?$)", ("iz",), 1),
        Rule(r"(?<=..)iz(?=e[sd]?$|ing$|ations?$)", ("is",), 1),
    ],
    # knowledge -> nowledge, wrong -> rong, thumb -> thum, rhythm -> rythm, ghost -> gost, definite -> definit
    "silent": [
        Rule("^kn", ("n",), 2), Rule("^wr", ("r",), 2), Rule("(?<=m)b(?=s?$)", ("",), 2),
        Rule("(?<=[rgw])h", ("",), 2), Rule(rf"(?<={_C})e$", ("",), 2),
    ],
    # physical -> fysical, fantastic -> phantastic
    "ph-f": [Rule("ph", ("f",), 3), Rule("(?<!f)f(?!f)", ("ph",), 1)],
    # tackle -> takle / tacle, music -> musik, kangaroo -> cangaroo, panic -> panick, making -> macking
    "c-k": [
        Rule("ck", ("k", "c"), 2), Rule("c(?=[aoulr]|$)", ("k",), 1.5), Rule("(?<!c)k", ("c",), 1),
        Rule("(?<=[aeiou])c(?=[aoulr]|$)", ("ck",), 0.75), Rule("(?<=[aeiou])k", ("ck",), 0.75),
    ],
    # decide -> deside, consider -> concider
    "c-s": [Rule("c(?=[eiy])", ("s",), 3), Rule("(?<=[aeiouyn])s(?=[eiy])", ("c",), 3)],
    # should -> shold, colour <-> color
    "ou-o": [Rule("ou", ("o",), 2), Rule("(?<=..)or(?=s?$)", ("our",), 1), Rule("(?<=..)our(?=s?$)", ("or",), 1)],
    # rhythm -> rhithm, easy -> easi, simple -> symple
    "y-i": [Rule("(?<=.)y", ("i",), 2.5), Rule(rf"(?<={_C})i(?={_C})", ("y",), 1.5)],
    # position -> posision, version -> vertion, mission -> mition / mision
    "tion-sion": [Rule("tion", ("sion",), 2.5), Rule("(?<!s)sion", ("tion",), 2), Rule("ssion", ("tion", "sion"), 1.5)],
}

#: Spanish confusions (the letters that sound alike, the silent h, the written accent).
SPANISH: dict[str, list[Rule]] = {
    # vino -> bino, haber -> haver
    "b-v": [Rule("b", ("v",), 12), Rule("v", ("b",), 12)],
    # caballo -> cabayo, yo -> llo
    "ll-y": [Rule("ll", ("y",), 8), Rule("(?<=[aeiou])y(?=[aeiou])", ("ll",), 4)],
    # hacer -> aser / haser, cielo -> sielo, zapato -> sapato, casa -> caza
    "c-s-z": [Rule("c(?=[ei])", ("s", "z"), 8), Rule("z", ("s",), 8), Rule("(?<=[aeiou])s(?=[aeiou])", ("z", "c"), 4)],
    # hombre -> ombre, ahora -> aora, orden -> horden
    "h": [Rule("^h", ("",), 8), Rule("(?<=[aeiou])h", ("",), 4), Rule("^(?=[aeiou])", ("h",), 2)],
    # corazón -> corazon, también -> tambien, fué -> fue
    "accent": [Rule("á", ("a",), 4), Rule("é", ("e",), 4), Rule("í", ("i",), 4), Rule("ó", ("o",), 4),
               Rule("ú", ("u",), 2)],
    # gente -> jente, mujer -> muger
    "g-j": [Rule("g(?=[ei])", ("j",), 4), Rule("j(?=[ei])", ("g",), 4)],
    # tierra -> tiera, perro -> pero
    "rr-r": [Rule("rr", ("r",), 4)],
}

#: Confusion-rule tables by language code (add one to support a language).
LANGUAGES: dict[str, dict[str, list[Rule]]] = {"en": ENGLISH, "es": SPANISH}

_VOWELS = re.compile(r"[aeiou]|(?<=.)y")
_CV = re.compile(rf"(?=({_C}{_V}))")  # every consonant-vowel chunk, overlapping


def check_noise_language(language: str) -> None:
    """Raise a one-line :class:`ConfigError` unless ``language`` has a rule table (or is several
    joined by ``+``, as ``"en+es"``: see :func:`languages_of`)."""
    for part in languages_of(language):
        check_language(part, sorted(LANGUAGES), "misspelling rules", " (several joined by '+', as en+es)")


def languages_of(language: str) -> list[str]:
    """``"en+es"`` -> ``["en", "es"]``: a multilingual encoder learns the misspellings of several languages."""
    return language.split("+")


def _match_case(source: str, text: str) -> str:
    """``text`` in the case of ``source`` (all capitals, capitalised or as is)."""
    if any(c.isalpha() for c in source) and source.isupper():
        return text.upper()
    if source[:1].isupper():
        return text[:1].upper() + text[1:]
    return text


def _expand(match: re.Match[str], template: str) -> str:
    """``match.expand(template)``, skipping the template parser for plain strings."""
    return match.expand(template) if "\\" in template else template


def _splits_cluster(word: str, end: int) -> bool:
    """Whether position ``end`` falls between a letter and its combining marks."""
    return end < len(word) and unicodedata.category(word[end]).startswith("M")


class RealisticNoiser:
    """Applies one to three realistic spelling errors to a word.

    Args:
        config: see :class:`MisspellConfig`.
    """

    def __init__(self, config: MisspellConfig = MisspellConfig()) -> None:
        self.config = config
        self.rules: dict[str, list[tuple[re.Pattern[str], Rule]]] = {
            kind: [(re.compile(rule.pattern), rule) for rule in rules]
            for kind, rules in LANGUAGES[config.language].items()
        }
        self.keyboard = Noiser(NoiseConfig(layouts=config.layouts, cased=config.cased))
        rule_total = sum(rule.weight for rules in LANGUAGES[config.language].values() for rule in rules)
        other = {k: w for k, w in config.kind_weights.items() if config.cased or k != "toggle"}
        other_total = sum(other.values())
        weights: dict[str, float] = {}
        for kind, rules in LANGUAGES[config.language].items():
            weights[kind] = config.rule_share * sum(r.weight for r in rules) / rule_total if rule_total else 0.0
        for kind, w in other.items():
            weights[kind] = (1 - config.rule_share) * w / other_total if other_total else 0.0
        #: Probability of each kind being drawn (when every kind applies); zero weights left out.
        self.weights: dict[str, float] = {k: w for k, w in weights.items() if w > 0}
        if not self.weights:
            raise ConfigError("every noise kind has weight zero")

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds :meth:`corrupt` may draw from."""
        return tuple(self.weights)

    def eligible(self, word: str) -> bool:
        """True iff ``word`` has at least ``config.min_length`` code points."""
        return len(word) >= self.config.min_length

    # --- single edits ------------------------------------------------------------------------
    def _rule_edit(self, word: str, kind: str, rng: random.Random) -> str:
        low = word.lower()
        if len(low) != len(word):  # e.g. "İ": indices would not line up; match the word as is
            low = word
        first = _VOWELS.search(low)
        first_vowel = first.start() if first else len(low)
        options: list[tuple[Rule, list[re.Match[str]]]] = []
        for pattern, rule in self.rules[kind]:
            matches = [m for m in pattern.finditer(low)
                       if not (rule.after_first_vowel and m.start() <= first_vowel)
                       and not _splits_cluster(word, m.end())
                       and any(_expand(m, r) != m.group(0) for r in rule.replacements)]
            if matches:
                options.append((rule, matches))
        if not options:
            raise NoiseNotApplicable(f"no {kind!r} rule applies to {word!r}")
        rule, matches = options[0] if len(options) == 1 else rng.choices(options, [o[0].weight for o in options])[0]
        m = rng.choice(matches)
        new = [t for t in (_expand(m, r) for r in rule.replacements) if t != m.group(0)]
        source = word[m.start() : m.end()]
        return word[: m.start()] + _match_case(source, rng.choice(new)) + word[m.end() :]

    def _syllable_edit(self, word: str, rng: random.Random) -> str:
        low = word.lower()
        if len(low) != len(word):
            low = word
        chunks = [(m.start(1), m.end(1)) for m in _CV.finditer(low) if not _splits_cluster(word, m.end(1))]
        inner = [(a, b) for a, b in chunks if a > 0 and b < len(word)]  # dropped syllables are inner ones
        options = [("drop", c) for c in inner] + [("repeat", c) for c in chunks]
        if not options:
            raise NoiseNotApplicable(f"no consonant-vowel chunk in {word!r}")
        how, (a, b) = rng.choice(options)
        return word[:a] + word[b:] if how == "drop" else word[:b] + word[a:]

    def apply(self, word: str, kind: str, rng: random.Random) -> str:
        """Make exactly one edit of ``kind`` (a rule kind of the language, or a key of
        :data:`KIND_WEIGHTS`) to ``word``; eligibility is not checked.

        Returns:
            The edited string: never ``word``, never empty.

        Raises:
            NoiseNotApplicable: the kind cannot change this word.
            ConfigError: unknown kind.
        """
        if kind in self.rules:
            out = self._rule_edit(word, kind, rng)
        elif kind == "syllable":
            out = self._syllable_edit(word, rng)
        elif kind in OPERATIONS:
            out = self.keyboard.apply(word, kind, rng)
        else:
            raise ConfigError(f"unknown noise kind {kind!r}; expected one of {tuple(self.rules) + tuple(KIND_WEIGHTS)}")
        if not out or out == word:
            raise NoiseNotApplicable(f"{kind!r} cannot change {word!r}")
        return out

    def _edit_once(self, word: str, rng: random.Random) -> tuple[str, str] | None:
        """One edit of a kind drawn by weight among those that apply; None when none applies."""
        kinds, weights = list(self.weights), list(self.weights.values())
        while kinds:
            i = rng.choices(range(len(kinds)), weights)[0] if len(kinds) > 1 else 0
            try:
                return self.apply(word, kinds[i], rng), kinds[i]
            except NoiseNotApplicable:
                del kinds[i], weights[i]
        return None

    # --- the noiser ----------------------------------------------------------------------------
    def corrupt(self, word: str, rng: random.Random) -> tuple[str, str]:
        """Corrupt an eligible word with one to three edits (see the module docstring).

        Returns:
            ``(noisy, description)``: ``noisy`` differs from ``word`` and is not empty;
            ``description`` names the edits in order, joined by ``+`` (e.g. ``"schwa+swap"``).

        Raises:
            NoiseNotApplicable: the word is too short, or ``max_tries`` draws left it unchanged.
        """
        if not self.eligible(word):
            raise NoiseNotApplicable(f"{word!r} is shorter than min_length={self.config.min_length}")
        counts = range(1, len(self.config.edit_counts) + 1)
        for _ in range(self.config.max_tries):
            n = rng.choices(counts, self.config.edit_counts)[0]
            text, done = word, []
            for _ in range(n):
                edited = self._edit_once(text, rng)
                if edited is None:
                    break
                text = edited[0]
                done.append(edited[1])
            if done and text and text != word:
                return text, "+".join(done)
        raise NoiseNotApplicable(f"no realistic misspelling changes {word!r}")
