"""Real-word errors: a valid word written for another (``there`` for ``their``, ``loose`` for ``lose``).

A dictionary cannot see these, since both words are spelled right; only the sentence can. The
:class:`RealWordChecker` looks at each known word that belongs to a **confusion set** (words that
are confused with each other; :data:`CONFUSION_SETS`, after Golding and Roth 1999, "A Winnow-Based
Approach to Context-Sensitive Spelling Correction", plus pairs common in learner English) and
compares how well each member fits between the word's neighbours under the bigram context model
(:class:`~charwise.speller.context.NgramContext`):

    fit(c) = log10 score(c | left) + log10 score(right | c)

The word is changed to the best other member only on strong evidence: the word has a word right
beside it on each side (at a clause's edge, ``call the whole thing off .``, or beside a comma,
``so busy, too, which``, one side says too little), each
side on its own favours the member (``kids, too many`` stays: ``to many`` is common, but ``too
many`` more so), its fit is at least ``margin`` (log10 units: 2.0 is a hundred times) above the
written word's, and both of the member's pairs were seen in the counts (never on back-off alone).
The margin was chosen on development sentences (UD EWT dev, members swapped in at random) so that
clean text is left alone: ``benchmarks/correction/real_words.py`` reports both sides.

With a language model (``Speller.load("en", context="smollm2")``) the model judges too: each
member in place of the word in its window of the sentence, the best member taken when the model
finds the sentence :data:`LM_MARGIN` nats likelier with it and the bigram counts favour the same
member on both sides (:func:`lm_verdict`). On the development sentences the model alone would put
back 55.7 % of the swaps (against the bigrams' 29.7 %) at 6 nats, but on informal text it was
right in only 4 of 9 changes (``the country fair`` -> ``county``); with the bigrams' agreement it
puts back 31.3 %, with 4 clean words changed against the bigrams' 5. The members of the sets that
the fitted confusion decision with a language model decides (``lose``/``loose``, ...:
:mod:`charwise.speller.confusion_lm`) are left to it there, and the members of the sets the fitted
confusion model decides (:mod:`charwise.speller.confusions`: most Spanish accent twins) are left to
it everywhere.

Sets that informal text defeats are left out: read by hand on 20,000 lines of tweets and web text,
``off`` -> ``of`` (``log off now``, ``day off tmrw``), ``too`` -> ``to``, ``thought`` -> ``though``,
``on`` -> ``one`` (``on day one``), ``every`` -> ``very`` (``each and every``), ``an`` -> ``and``,
``hear`` -> ``here``, ``buy`` -> ``by`` and ``then`` <-> ``than`` (``and than you`` for "thank you")
were wrong more often than right, since the bigram counts come from edited text
(``docs/correction.md`` lists the changes read). Later, reading 556k words of tweets and comments,
``form``/``from`` (``the from field`` -> ``form``, ``so you form a country protest`` -> ``from``: 0
of 2 right) and ``were``/``where`` (3 of 5) fell short of being right 90 % of the time, what a change
of a valid word must be, and were dropped too.

Sets whose members differ only by an apostrophe (``its``/``it's``, ``your``/``you're``) are not
here: the English bigram counts were taken with apostrophes stripped (``its a`` counts ``it's a``),
so they cannot tell those apart.

Example::

    >>> checker = RealWordChecker.load("en")
    >>> checker.check(["we", "went", "to", "there", "house"], 3)
    'their'
    >>> checker.check(["and", "there", "we", "left"], 1) is None
    True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from charwise.errors import ConfigError
from charwise.speller.context import NgramContext, is_word

if TYPE_CHECKING:
    from charwise.speller.context_model import ContextModel
    from charwise.speller.corrections import WordCorrection

#: Confusion sets per language (lower-case). Each word maps to the others of its set.
CONFUSION_SETS: dict[str, tuple[tuple[str, ...], ...]] = {
    "en": (
        ("accept", "except"), ("advice", "advise"), ("affect", "effect"), ("among", "between"),
        ("begin", "being"), ("breath", "breathe"), ("cite", "sight", "site"), ("country", "county"),
        ("desert", "dessert"), ("lead", "led"), ("lose", "loose"), ("passed", "past"), ("peace", "piece"),
        ("principal", "principle"), ("quiet", "quite"), ("their", "there"),
        ("weather", "whether"), ("chose", "choose"),
        ("later", "latter"), ("though", "through"), ("lightening", "lightning"),
        ("week", "weak"), ("dose", "does"), ("wonder", "wander"),
        ("no", "know"), ("new", "knew"), ("brake", "break"),
    ),
    # Spanish: a word and its accented twin, both valid (el/él, mas/más, esta/está, hablo/habló): the
    # pairs whose members are both counted at least 20 times in the Bible's training verses (the
    # Spanish counts), less names (Amán, César) and accents modern spelling dropped (éste, sólo, á)
    "es": (
        ("aun", "aún"), ("amo", "amó"), ("cual", "cuál"), ("cuando", "cuándo"), ("cuanto", "cuánto"),
        ("como", "cómo"), ("de", "dé"), ("donde", "dónde"), ("el", "él"), ("envio", "envió", "envío"),
        ("esta", "está"), ("estas", "estás"), ("este", "esté"), ("hablo", "habló"), ("hacia", "hacía"),
        ("ira", "irá"), ("junto", "juntó"), ("libro", "libró"), ("lloro", "lloró"), ("mando", "mandó"),
        ("mas", "más"), ("mi", "mí"), ("oro", "oró"), ("que", "qué"), ("quien", "quién"), ("reino", "reinó"),
        ("saco", "sacó"), ("se", "sé"), ("si", "sí"), ("tome", "tomé"), ("tu", "tú"),
    ),
}
# nats: how much likelier a language model must find the sentence with another member of the set
# (which the bigram counts must favour too), chosen on development sentences as the lowest margin
# that changes no more clean words than the bigrams alone (benchmarks/correction/real_words.py --context smollm2)
LM_MARGIN = 2.0
GAINS_SIZE = 100_000  # (left, word, right) triples whose gain is remembered, then forgotten at once


@dataclass
class RealWordSettings:
    """When the :class:`RealWordChecker` changes a valid word: :meth:`RealWordChecker.check` and
    :func:`check_sentences` read these unless a call gives its own."""

    # log10, under the bigram counts: the other member must fit this much better (2.0: a hundred
    # times), chosen on development sentences (benchmarks/correction/real_words.py; module docstring)
    margin: float = 2.0
    # nats, with a language model (which then judges instead of the bigrams' margin): :data:`LM_MARGIN`
    lm_margin: float = LM_MARGIN

    def __post_init__(self) -> None:
        for name in ("margin", "lm_margin"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise ConfigError(f"{name} must be a number >= 0, got {value!r}")


class RealWordChecker:
    """Confusion sets + a context model (see the module docstring)."""

    def __init__(self, context: NgramContext, sets: Sequence[Sequence[str]],
                 settings: RealWordSettings | None = None) -> None:
        self.context = context
        self.settings = settings or RealWordSettings()
        self._gains: dict[tuple[str, str, str], tuple[str, float] | None] = {}  # the context is read-only
        self.alternatives: dict[str, tuple[str, ...]] = {}
        for members in sets:
            for word in members:
                others = tuple(m for m in members if m != word)
                self.alternatives[word] = tuple(dict.fromkeys(self.alternatives.get(word, ()) + others))

    @classmethod
    def load(cls, language: str = "en", settings: RealWordSettings | None = None) -> "RealWordChecker":
        """The checker of ``language`` (a one-line :class:`ConfigError` for a language without
        confusion sets)."""
        if language not in CONFUSION_SETS:
            raise ConfigError(f"no confusion sets for {language!r}; real-word errors are checked in: "
                              f"{', '.join(CONFUSION_SETS)}")
        return cls(NgramContext.load(language), CONFUSION_SETS[language], settings)

    def clear_cache(self) -> None:
        """Forget the gains computed so far."""
        self._gains = {}

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.lower() in self.alternatives

    def fit(self, word: str, left: str, right: str) -> tuple[float, float, bool]:
        """(log10 score of lower-case ``word`` after ``left``, of ``right`` after it, whether both
        pairs were counted)."""
        after_left, seen_left = self.context.log_score(word, left)
        before_right, seen_right = self.context.log_score(right, word)
        return after_left, before_right, seen_left and seen_right

    def check(self, words: Sequence[str], index: int, margin: float | None = None) -> str | None:
        """The member of its confusion set that ``words[index]`` should be (lower-case), or None to
        leave it; ``margin`` overrides the settings' for this call."""
        found = self.gain(words, index)
        needed = self.settings.margin if margin is None else margin
        return found[0] if found is not None and found[1] >= needed else None

    def gain(self, words: Sequence[str], index: int) -> tuple[str, float] | None:
        """(the other member that fits best, how much better than the written word it fits, in
        log10) among the members that both neighbours favour, on counted pairs; None when there is
        none or the word lacks a neighbour on either side."""
        written = words[index].lower()
        others = self.alternatives.get(written)
        left, right = adjacent_words(words, index)
        if not others or left is None or right is None:
            return None  # one side only is too little evidence against a valid word (``call it off .``)
        key = (left, written, right)
        gains = self._gains  # running text repeats its word triples ("want to go")
        if key in gains:
            return gains[key]
        found = self._gain(written, others, left, right)
        if len(gains) >= GAINS_SIZE:
            self._gains = gains = {}  # a fresh table: a thread reading the old one keeps reading it
        gains[key] = found
        return found

    def _gain(self, written: str, others: Sequence[str], left: str, right: str) -> tuple[str, float] | None:
        base_left, base_right, _ = self.fit(written, left, right)
        best: tuple[str, float] | None = None
        for other in others:
            after_left, before_right, seen = self.fit(other, left, right)
            if not seen or after_left < base_left or before_right < base_right:
                continue  # each side must favour it: "kids too many" is not "kids to many"
            gain = after_left + before_right - base_left - base_right
            if best is None or gain > best[1]:
                best = (other, gain)
        return best


def adjacent_words(words: Sequence[str], index: int) -> tuple[str | None, str | None]:
    """The lower-case words right before and after ``words[index]`` when they are words; None for
    punctuation or the text's edge (``busy, too, which``: a comma parts them from the word). A token
    already corrected into several words gives its nearest one (``gonna b`` as ``going to b``: ``to``)."""
    left = words[index - 1].lower().rsplit(" ", 1)[-1] if index > 0 else None
    right = words[index + 1].lower().split(" ", 1)[0] if index + 1 < len(words) else None
    return (left if left is not None and is_word(left) else None,
            right if right is not None and is_word(right) else None)


def check_sentences(checker: RealWordChecker, corrected: list[list[WordCorrection]], allowed: Sequence[str],
                    margin: float | None = None, accents_only: bool = False, lm: ContextModel | None = None,
                    lm_margin: float | None = None, skip: frozenset[str] = frozenset()) -> None:
    """Change in place each word of ``corrected`` (the speller's output) that belongs to a
    confusion set and that its neighbours, as corrected, say is another member, by ``margin``
    (log10, bigram counts; default: the checker's ``settings.margin``): kind ``accent`` when the
    member only puts back accents the word lacks, else ``real_word``, each only when ``allowed``.
    Words the speller looked at or changed, protected words and words with capitals inside are left.
    ``accents_only`` (a language with accents): an accent the writer wrote stays (``él`` is never
    made ``el``).

    With a language model ``lm`` (``context="smollm2"``) the model judges instead of the bigrams'
    margin: each member in place of the word in its window of the sentence, all words of all
    sentences in one batch (:func:`~charwise.speller.normalisation_judge.lm_gains`); the best member
    replaces the word when its log-probability is at least ``lm_margin`` nats (default: the
    checker's ``settings.lm_margin``) above the written word's and the bigram counts favour it too
    (:func:`lm_verdict`). Either way the change's probability is the context's odds of the member
    against the word. Words in ``skip`` (lower-case) are left to another decision."""
    from charwise.speller.corrections import restores_accents, same_case

    margin = checker.settings.margin if margin is None else margin
    lm_margin = checker.settings.lm_margin if lm_margin is None else lm_margin
    members = checker.alternatives  # a word no set holds is never checked: looked up before the rest
    sentences = [[e.correction for e in entries] for entries in corrected]
    targets = [(s, i, entry.word) for s, entries in enumerate(corrected) for i, entry in enumerate(entries)
               if entry.word.lower() in members and entry.word.lower() not in skip and _checked(checker, entry)
               and None not in adjacent_words(sentences[s], i)]
    if lm is not None:
        from charwise.speller.normalisation_judge import lm_gains

        gains = lm_gains(lm, sentences, [(s, i, w, checker.alternatives[w.lower()]) for s, i, w in targets])
        found = {}
        for (s, i, _), row in zip(targets, gains):
            verdict = lm_verdict(row, checker.gain(sentences[s], i))
            if verdict is not None and verdict[1] >= lm_margin:
                found[(s, i)] = (verdict[0], verdict[1] / math.log(10))  # nats -> log10
    for s, i, written in targets:
        if lm is None:
            best = checker.gain(sentences[s], i)  # the bigrams read neighbours as changed so far
            if best is None or best[1] < margin:
                continue
        elif (s, i) not in found:
            continue
        else:
            best = found[(s, i)]
        entry = corrected[s][i]
        kind = "accent" if restores_accents(written.lower(), best[0]) else "real_word"
        if kind in allowed and (kind == "accent" or not accents_only):
            entry.correction, entry.kind = same_case(written, best[0]), kind
            entry.decided_by = (f"language model: {best[1] * math.log(10):.1f} nats >= {lm_margin:.1f}, the bigram "
                                "counts agreeing" if lm is not None else
                                f"bigram counts: fits 10^{best[1]:.1f} times better between the neighbours "
                                f"(margin 10^{margin:.1f})")
            # the context's odds of the member against the written word, as a probability
            entry.probability = 1.0 / (1.0 + 10.0 ** -best[1])
            sentences[s][i] = entry.correction


def lm_verdict(gains: dict[str, float], counted: tuple[str, float] | None) -> tuple[str, float] | None:
    """The member a language model prefers (with its gain in nats over the written word) when the
    bigram counts agree: the same member is the one both of its counted pairs favour
    (``counted``: :meth:`RealWordChecker.gain`). Informal text defeats the model alone: it makes
    ``country fair`` a ``county fair`` and a name ``Super Site`` a ``Super Sight``."""
    if not gains or counted is None:
        return None
    member = max(gains, key=gains.__getitem__)
    return (member, gains[member]) if member == counted[0] else None


def _checked(checker: RealWordChecker, entry: WordCorrection) -> bool:
    """Whether a word of the speller's output is one the confusion sets may change."""
    written = entry.word
    return not (entry.looked_at or entry.protected or entry.changed
                or not (written.islower() or written.istitle()) or written not in checker)
