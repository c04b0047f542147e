"""A known word written without the accent or tilde of its twin (Spanish ``dias`` -> ``días``,
``musica`` -> ``música``, ``medico`` -> ``médico``, ``manana`` -> ``mañana``): both spellings are
words, so neither the dictionary nor the normalisation judge (whose annotated tweets leave valid
words unmarked) sees the slip. One fitted decision (:class:`TwinDecision`) reads, for the written
word and its most frequent twin,

* how much more frequent the twin is (wordfreq's Zipf, through the lexicon);
* how much better the twin goes with the word before and with the word after, in the bigram counts
  (pointwise: a neighbour that goes with every word says nothing);
* whether any of those pairs was counted, and whether a word comes before it at all (not at a
  sentence's start or after punctuation);
* the kind of twin (:func:`twin_kind`): a stressed last syllable in ``-ó`` (``llegó``: a verb's
  past, whose plain twin ``llego`` is its present), in ``-é`` (``pensé``, against the subjunctive
  ``pense``), in ``-á`` (``será``, ``estarás``, against ``estaras``), in ``-í`` or ``-ú``; a stressed
  ``í`` or ``ú`` beside a vowel (``días``, ``tenía``, ``tío``); an accent earlier in the word
  (``música``, ``último``); or a tilde (``mañana``),

and gives the probability that the twin was meant. It is fitted on edited Spanish where every word
is written as meant (the Bible's development verses and the lines of ``fortunes-es`` that write
accents) with each twin's accents taken out. Each kind of twin has a threshold of its own: among
those at which it is right at least nine times in ten in every development text (those two and the
Tweet-Norm development tweets, read by hand), the one where right - 9 x wrong is highest (a wrong
edit costs nine right ones; ``python -m benchmarks.correction.twin_decision --ship``, which writes
``charwise/data/normalisation-es/twins.json``). A kind no threshold makes right nine times in ten in
every text is left as written.

Accents modern spelling dropped (:data:`DROPPED`: ``sólo``, ``éste``, ``fué``, ``guión``) are never
put back.

Example (run by tests/test_doctests.py)::

    >>> twin_kind("dias", "días"), twin_kind("llego", "llegó"), twin_kind("manana", "mañana")
    ('hiatus', 'final -ó', 'tilde')
    >>> from charwise.speller.context import NgramContext
    >>> from charwise.speller.lexicon import Lexicon
    >>> decision, lexicon, context = TwinDecision.load("es"), Lexicon.build("es"), NgramContext.load("es")
    >>> p = decision.probability(twin_evidence(lexicon, context, "dias", "días", "los", None))
    >>> p >= decision.threshold_of("dias", "días")
    True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Container, Iterable, Mapping

from charwise.errors import ConfigError
from charwise.speller.lexicon import strip_accents
from charwise.speller.logistic_decision import LogisticDecision

if TYPE_CHECKING:
    from charwise.speller.context import NgramContext
    from charwise.speller.lexicon import Lexicon

#: the kinds of twin, each with a weight of its own and decided or not on its own (:func:`twin_kind`)
KINDS = ("final -ó", "final -é", "final -á", "final -í", "hiatus", "inner", "tilde")
FEATURES = ("Zipf gap", "left fit", "right fit", "pair counted", "no word before", *(f"kind {k}" for k in KINDS))
#: Accents the Real Academia's Ortografía (2010) dropped: ``solo`` and the demonstratives as pronouns,
#: monosyllables by the written convention (``fue``, ``dio``, ``vio``, ``guion``, ``rio`` "he laughed"),
#: ``o`` between numbers. Older text writes them; a speller must not put them back.
DROPPED = frozenset({
    "sólo", "éste", "ésta", "éstos", "éstas", "ése", "ésa", "ésos", "ésas", "aquél", "aquélla", "aquéllos",
    "aquéllas", "ó", "fué", "fuí", "dió", "vió", "guión", "guiones", "truhán", "rió", "lió", "crió", "fió",
    "guió", "pió", "huí", "huís", "riáis", "piés",
})
#: Candidates: a twin at most ten times rarer than the written word (Zipf 1.0). Of the rarer twins of the
#: fitting and report texts, 112 in 25,157 were meant (0.4 %; python -m benchmarks.correction.twin_decision:
#: ``below_min_gap``)
MIN_GAP = -1.0
VOWELS = frozenset("aeiouáéíóú")


def plain_spelling(word: str) -> str:
    """``word`` without its accents and tildes, as a writer who leaves them out types it (``mañana`` -> ``manana``)."""
    return strip_accents(word).replace("ñ", "n")


def twin_kind(plain: str, twin: str) -> str:
    """Which of :data:`KINDS` the twin of ``plain`` is (see the module docstring)."""
    if "ñ" in twin and "ñ" not in plain:
        return "tilde"
    last = max(i for i, c in enumerate(twin) if strip_accents(c) != c)
    beside = twin[last - 1:last] + twin[last + 1:last + 2]
    if twin[last] in "íú" and any(c in VOWELS for c in beside):
        return "hiatus"
    if twin[last + 1:] in ("", "s", "n"):
        return {"ó": "final -ó", "é": "final -é", "á": "final -á"}.get(twin[last], "final -í")
    return "inner"


def accented_words(lexicon: Lexicon) -> list[tuple[str, float]]:
    """The words of ``lexicon`` that carry an accent, with their Zipf frequencies."""
    # only a word with a letter beyond ASCII can carry an accent (a cheap test before the costly one)
    return [(w, e.zipf) for w, e in lexicon.entries.items() if not w.isascii() and strip_accents(w) != w]


def accent_twins(lexicon: Lexicon, accented: Iterable[tuple[str, float]], min_gap: float = MIN_GAP,
                 decided_elsewhere: Container[str] = ()) -> dict[str, str]:
    """Known word -> its most frequent twin with accents or a tilde (from the ``accented`` words of
    ``lexicon`` with their Zipf frequencies, and those with an ñ), at most ``min_gap`` rarer and not
    an accent modern spelling dropped (:data:`DROPPED`); none of ``decided_elsewhere`` (the
    confusion sets' members, which the accent model decides)."""
    twins: dict[str, str] = {}
    candidates = list(accented) + [(w, e.zipf) for w, e in lexicon.entries.items() if "ñ" in w]
    for w, _ in sorted(candidates, key=lambda item: item[1], reverse=True):
        plain = plain_spelling(w)
        if plain in twins or plain == w or w in DROPPED or plain in decided_elsewhere or not lexicon.knows(plain):
            continue
        twins[plain] = w  # the most frequent twin, even where it is too rare to offer
    return {p: w for p, w in twins.items() if lexicon.zipf(w) >= lexicon.zipf(p) + min_gap}


def twin_evidence(lexicon: Lexicon, context: NgramContext, word: str, twin: str, left: str | None,
                  right: str | None) -> tuple[float, ...]:
    """The decision's :data:`FEATURES` for ``twin`` against ``word`` (lower case) between the words
    ``left`` and ``right`` (None: a clause break or the text's edge)."""
    left_fit = right_fit = 0.0
    seen = False
    if left is not None:
        (t, t_seen), (w, w_seen) = context.log_score(twin, left), context.log_score(word, left)
        left_fit = (t - context.log_unigram(twin)) - (w - context.log_unigram(word))
        seen = t_seen or w_seen
    if right is not None:
        (t, t_seen), (w, w_seen) = context.log_score(right, twin), context.log_score(right, word)
        right_fit, seen = t - w, seen or t_seen or w_seen
    kind = twin_kind(word, twin)
    return (lexicon.zipf(twin) - lexicon.zipf(word), left_fit, right_fit, float(seen), float(left is None),
            *(float(kind == k) for k in KINDS))


@dataclass(frozen=True)
class TwinDecision(LogisticDecision):
    """The fitted accent-twin decision (see the module docstring): a twin of a kind it decides is
    put in when its probability reaches that kind's threshold; :attr:`threshold` is the least of them."""

    kind_thresholds: Mapping[str, float] = field(default_factory=dict)  # kinds decided -> the probability they need
    FEATURES = FEATURES
    NAME = "the accent-twin decision"
    FILE = "twins.json"

    def probability(self, evidence: tuple[float, ...]) -> float:
        """The probability that the twin was meant, from :func:`twin_evidence`."""
        return self.logistic(evidence)

    def threshold_of(self, word: str, twin: str) -> float | None:
        """The probability ``twin`` needs in place of ``word``, None where its kind is not decided."""
        return self.kind_thresholds.get(twin_kind(word, twin))

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "kind_thresholds": dict(self.kind_thresholds)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "TwinDecision":
        kinds = data.get("kind_thresholds")
        if not isinstance(kinds, dict) or not set(kinds) <= set(KINDS) or not all(
                isinstance(t, (int, float)) and not isinstance(t, bool) and 0.0 <= t <= 1.0 for t in kinds.values()):
            raise ConfigError(f"{cls.NAME} needs 'kind_thresholds', each kind of twin it decides ({', '.join(KINDS)}) "
                              f"-> the probability it needs; got {kinds!r}")
        return cls(*cls.fields(data), kind_thresholds={k: float(t) for k, t in kinds.items()})


@dataclass(frozen=True)
class AccentTwins:
    """What a language with accents reads of its lexicon's accents (``Normaliser.accents``): each
    accent-dropped spelling's most frequent accented word (``aqui`` -> ``aquí``), the known words
    that have a twin (:func:`accent_twins`) and the decision that puts the twin in."""

    accented: Mapping[str, str]
    twins: Mapping[str, str]
    decision: TwinDecision | None
    lexicon: Lexicon
    context: NgramContext

    @classmethod
    def load(cls, lexicon: Lexicon, context: NgramContext) -> "AccentTwins":
        """The accents of ``lexicon``, with the shipped decision of its language (no twins without one)."""
        from charwise.speller.confusions import MEMBERS

        accented = accented_words(lexicon)
        forms: dict[str, str] = {}
        for w, _ in sorted(accented, key=lambda item: item[1], reverse=True):
            forms.setdefault(strip_accents(w), w)
        decision = TwinDecision.load(lexicon.language)
        twins = {} if decision is None else accent_twins(lexicon, accented,
                                                         decided_elsewhere=MEMBERS.get(lexicon.language, ()))
        return cls(forms, twins, decision, lexicon, context)

    def read(self, word: str, left: str | None, right: str | None) -> tuple[str, float, float] | None:
        """(twin, its probability, the probability it needs) where the decision reads a twin of lower-case
        ``word`` (of a kind it decides) between ``left`` and ``right``: the twin is put in where its
        probability reaches what it needs; else None."""
        twin, decision = self.twins.get(word), self.decision
        if twin is None or decision is None or (needed := decision.threshold_of(word, twin)) is None:
            return None
        return twin, decision.probability(twin_evidence(self.lexicon, self.context, word, twin, left, right)), needed
