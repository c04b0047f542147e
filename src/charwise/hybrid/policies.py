"""Encoding policies: which words of a sentence a hybrid model builds from characters.

XRayEmb (Pinter et al., 2021, section 2 and table 2) calls this the encoding policy pi^t; Char2Subword
(Aguilar et al., 2021, section 3.3) has two fixed ones, *full* and *hybrid* mode. Every policy sees the
words of one sentence and the teacher's token ids for each word and returns one flag per word:
``True`` = one vector from the character encoder, ``False`` = the teacher's pieces from its table.

A policy may also *repair* words before they are tokenised (:meth:`Policy.repairs`): ``repair``,
the default, asks the speller (:mod:`charwise.speller`) about every word and replaces only the words
it is confident are misspelled by their correction, whose own pieces the model then reads. Every
other word, names and foreign words included, keeps the model's own pieces, so a sentence whose words
are all known reaches the model exactly as without charwise.

Write your own by subclassing :class:`Policy`::

    class LongWords(Policy):
        name = "long"
        def select(self, words, pieces, teacher):
            return [len(w) > 12 for w in words]
"""

from __future__ import annotations

import hashlib
import random
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, NamedTuple, Sequence

from charwise.errors import ConfigError

if TYPE_CHECKING:
    from charwise.speller import Speller

# XRayEmb footnote 4: the most common second-and-final tokens under GPT-2's tokenisation.
SUFFIXES: frozenset[str] = frozenset(
    ["s", "ed", "es", "ing", "ly", "al", "ally", "'m", "'re", "'ve", "y", "ive", "er", "'t", "'ll", "an", "ers"]
)


class Repair(NamedTuple):
    """A word the model reads as another: ``word`` as written, ``correction`` read instead."""

    word: str
    correction: str
    probability: float  # the speller's, that ``word`` is a misspelling of ``correction``


class Policy(ABC):
    """Chooses the words of a sentence that the character encoder represents."""

    name: str = ""
    needs_encoder: bool = True  # whether select() can pick words (so a character encoder is needed)

    @abstractmethod
    def select(self, words: Sequence[str], pieces: Sequence[Sequence[int]], teacher) -> list[bool]:
        """One flag per word; ``pieces[i]`` are the teacher's ids for ``words[i]`` in context."""

    def repairs(self, sentences: Sequence[Sequence[str]],
                space_before: Sequence[Sequence[bool]] | None = None) -> list[dict[int, Repair]]:
        """Per sentence, the words (by index) to read as another word before tokenising; none by default.
        ``space_before`` (per word: whitespace before it; None: words split by a tokenizer, whose
        spacing is lost, :func:`charwise.words.tokenised_spacing`) tells which words were written
        together (``@`` + ``joejonas``: one handle, never repaired).

        Called once per batch, before :meth:`select`, which then sees the repaired words. A repair
        replaces one word by one word, so word counts and positions never change.
        """
        return [{} for _ in sentences]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class NoPolicy(Policy):
    """``none``: every word from the table, so the model is exactly the base model."""

    name = "none"
    needs_encoder = False

    def select(self, words, pieces, teacher):
        return [False] * len(words)


class OOVPolicy(Policy):
    """``oov`` (Char2Subword hybrid mode): every word that is not exactly one normal vocabulary token.

    That is every word split into several pieces, plus words that became ``[UNK]`` or another
    special token (emoji under BERT), which :class:`MultiPolicy` leaves alone.
    """

    name = "oov"

    def select(self, words, pieces, teacher):
        normal = teacher.vocab.kinds
        return [len(p) != 1 or normal[p[0]] != "normal" for p in pieces]


class MultiPolicy(Policy):
    """``multi`` (XRayEmb all-multi): every word the tokenizer splits into more than one token."""

    name = "multi"

    def select(self, words, pieces, teacher):
        return [len(p) > 1 for p in pieces]


class NoSuffixPolicy(Policy):
    """``no-suffix`` (XRayEmb all no-suff): multi-token words, except ``[token + suffix]`` ones.

    A word of exactly two tokens whose second token is a continuation whose text is in
    ``suffixes`` (default: XRayEmb's English :data:`SUFFIXES`) stays with the table.
    """

    name = "no-suffix"

    def __init__(self, suffixes: Sequence[str] = tuple(SUFFIXES)) -> None:
        self.suffixes = frozenset(suffixes)

    def select(self, words, pieces, teacher):
        surfaces, starts = teacher.vocab.surfaces, teacher.vocab.word_start
        out = []
        for p in pieces:
            simple = len(p) == 2 and not starts[p[1]] and surfaces[p[1]] in self.suffixes
            out.append(len(p) > 1 and not simple)
        return out


class RandomPolicy(Policy):
    """``random:p`` (XRayEmb stochastic): each word with probability ``p``, seeded.

    The draw depends only on (seed, sentence, position), so a sentence gets the same choice in
    any batch and any order, and base-vs-hybrid comparisons are reproducible.
    """

    def __init__(self, p: float, seed: int = 0) -> None:
        if not 0.0 <= p <= 1.0:
            raise ConfigError(f"random policy probability must be in [0, 1], got {p}")
        self.p, self.seed = float(p), int(seed)
        self.name = f"random:{p:g}"

    def select(self, words, pieces, teacher):
        key = hashlib.blake2b(f"{self.seed}\x00{chr(31).join(words)}".encode("utf-8", "surrogatepass"),
                              digest_size=8).digest()
        rng = random.Random(int.from_bytes(key, "little"))
        return [rng.random() < self.p for _ in words]


class AllPolicy(Policy):
    """``all`` (Char2Subword full mode): every word from the character encoder."""

    name = "all"

    def select(self, words, pieces, teacher):
        return [True] * len(words)


class RepairPolicy(Policy):
    """``repair`` (default): the model reads confidently misspelled words as their correction.

    The speller of ``language`` (``repair`` is English, ``repair:es`` Spanish) looks at the words its
    lexicon does not know and that do not look like names; a word whose best correction has
    probability >= ``threshold`` (default: the speller's, tuned on dev text so that clean text is
    left alone) is replaced by that correction, whose own pieces the model reads: exactly the clean
    input. Every other word keeps its pieces.

    With ``chars_for_unsure`` (``repair+oov``) the words the speller looked at but did not correct
    and that the tokenizer splits are built from characters, as ``oov`` builds them; with
    ``lower_only`` as well (``repair+oov-lower``), only those written without a capital (a capital
    is the one sign of a name the text gives). On WNUT17 tweets it scores as ``repair+oov`` does:
    tweets write most names in lower case (docs/tagging.md).
    """

    def __init__(self, language: str = "en", threshold: float | None = None, *, chars_for_unsure: bool = False,
                 lower_only: bool = False, speller: "Speller | None" = None) -> None:
        from charwise.languages import check_language
        from charwise.speller.settings import check_threshold

        self.language = check_language(language)
        self.threshold = check_threshold(threshold, "repair threshold")
        if lower_only and not chars_for_unsure:
            raise ConfigError("lower_only chooses which unsure words get character vectors: it needs chars_for_unsure")
        self.chars_for_unsure = chars_for_unsure
        self.lower_only = lower_only
        self.needs_encoder = chars_for_unsure
        self._speller = speller
        self.speller_given = speller is not None  # not the shared speller of the language: this process's only
        family = "repair+oov-lower" if lower_only else "repair+oov" if chars_for_unsure else "repair"
        self.name = family + ("" if language == "en" else f":{language}")

    @property
    def speller(self) -> "Speller":
        """The speller asked (the process-wide one of :attr:`language` unless one was given)."""
        if self._speller is None:
            from charwise.speller.repair import shared_speller

            self._speller = shared_speller(self.language)
        return self._speller

    def repairs(self, sentences, space_before=None):
        corrected = self.speller.correct_words([list(words) for words in sentences], self.threshold,
                                               space_before=space_before)
        # a join (kind "merge", a speller given with a language model) or an apostrophe taken into the word
        # before it would leave a word without pieces, and the model's word positions cannot follow it
        return [{i: Repair(w.word, w.correction, w.probability) for i, w in enumerate(words)
                 if w.changed and w.kind != "merge" and not w.joined_away} for words in corrected]

    def select(self, words, pieces, teacher):
        if not self.chars_for_unsure:
            return [False] * len(words)
        normal = teacher.vocab.kinds
        # repaired words are known: not looked at again; capitalised words inside a sentence are names here
        unsure = self.speller.looked_at(list(words), inside_capitals=False)
        return [u and (len(p) != 1 or normal[p[0]] != "normal") and not (self.lower_only and w != w.lower())
                for u, p, w in zip(unsure, pieces, words)]


# --- in worker processes: a repair policy's speller away from the model's process -------------------
def load_repair_policy(language: str, threshold: float | None) -> RepairPolicy:
    """A worker's state: the repair policy of ``language`` with the process's shared speller."""
    return RepairPolicy(language, threshold)


def warm_repair_policy(policy: RepairPolicy) -> None:
    """The policy's speller warmed (:func:`charwise.speller.repair.warm_speller`)."""
    from charwise.speller.repair import warm_speller

    warm_speller(policy.speller)


def repairs_of(policy: RepairPolicy,
               request: tuple[list[list[str]], list[list[bool]] | None]) -> list[dict[int, Repair]]:
    """A worker's part: the repairs of one batch (:meth:`HybridModel.repair_request
    <charwise.hybrid.model.HybridModel.repair_request>`)."""
    return policy.repairs(*request)


_NAMED: dict[str, type[Policy]] = {"none": NoPolicy, "oov": OOVPolicy, "multi": MultiPolicy,
                                   "no-suffix": NoSuffixPolicy, "all": AllPolicy}
POLICY_NAMES = ("repair", "repair:LANG", "repair+oov", "repair+oov:LANG", "repair+oov-lower", *_NAMED, "random:P")


def get_policy(spec: str | Policy, seed: int = 0) -> Policy:
    """A policy from its name (``repair``, ``repair:es``, ``repair+oov``, ``none``, ``oov``, ``multi``,
    ``no-suffix``, ``random:0.1``, ``all``)."""
    if isinstance(spec, Policy):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"policy must be a name or a Policy, got {type(spec).__name__}")
    if spec in _NAMED:
        return _NAMED[spec]()
    family, _, language = spec.partition(":")
    if family in ("repair", "repair+oov", "repair+oov-lower"):
        if ":" in spec and not language:
            raise ConfigError(f"bad policy '{spec}': expected {family}:LANG, e.g. {family}:es")
        return RepairPolicy(language or "en", chars_for_unsure=family != "repair", lower_only=family.endswith("-lower"))
    if spec.startswith("random:"):
        try:
            p = float(spec.split(":", 1)[1])
        except ValueError:
            raise ConfigError(f"bad policy '{spec}': expected random:P with P a number in [0, 1]") from None
        return RandomPolicy(p, seed)
    raise ConfigError(f"unknown policy '{spec}' (known: {', '.join(POLICY_NAMES)})")
