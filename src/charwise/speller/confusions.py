"""Real-word errors and contractions decided by one fitted model: which member of a confusion set
the sentence around a word means (``their`` / ``there`` / ``they're``, ``its`` / ``it's``,
``your`` / ``you're``, ``then`` / ``than``, ``could of`` / ``could have``), in English; in Spanish,
which accent twin (``esta`` / ``está``, ``el`` / ``él``) a word written without its accent is.

A dictionary cannot see these errors: every member is a valid word. The sentence can. For each set a multinomial
logistic model (:class:`ConfusionModel`) gives each member a probability from the words around the written one, as
in Golding and Roth's context-sensitive spelling correction (1999): the neighbouring words themselves, their word
classes (the most frequent universal part-of-speech tag of each word in UD English-EWT's training sentences, and for
a word EWT lacks the tag its last three letters most often carry there), pairs of them (``could`` before a verb, a
determiner after the word), and how often each member was seen between the two neighbours in the bigram counts of
:class:`~charwise.speller.context.NgramContext`. The models learn from text where the members are used as meant:
edited English (UD EWT's training sentences, and the lines of the ``fortunes`` collection and of WordNet's glosses
that hold a member: ``charwise/data/edited_en``), tweets as their annotators normalised them (LexNorm 2015's
training tweets), and tweets as written (WNUT17's raw tweets: mostly used as meant, the few slips outweighed);
``benchmarks/correction/confusions.py --ship`` fits them and chooses the threshold.

The models say which member the sentence means in text where members are used as meant, not
whether this writer slipped. That is decided by a second fitted model (:attr:`ConfusionModel.decision`,
the shape of the language-model decision of :mod:`charwise.speller.confusion_lm`): for each other
member, a logistic model over the context model's log-odds of that member against the written one
(``cloze_gain``), the bigram fit's gain, whether its pairs were counted, how much more common the
member is and whether only an apostrophe differs, fitted on development sentences where every
member is read as written and swapped for another member. Swapped at random, a member is as likely
written for one as for the other; writers are not: they drop an apostrophe (``its`` for ``it's``)
far more often than they add one. So the English decision's log-odds are read once more, by a
logistic model of the writers' slips (:attr:`ConfusionModel.slips`) over those log-odds and one
indicator per change (``its->it's``), fitted on real changes read by hand (the development tweets'
labelled changes). A written member is changed to the likeliest other member when that probability
reaches :attr:`ConfusionModel.threshold`, and only in the sets the model decides
(:attr:`ConfusionModel.decides`) and, where the model names them, the changes it makes
(:attr:`ConfusionModel.directions`). Some sets and changes defeat a model that learned from so
little text: the threshold and the changes were chosen together on development tweets, every
change read and labelled by hand, to make the most right changes while each change decided is right
at least nine times in ten there and on fresh informal text (``benchmarks/correction/confusions.py``;
``threshold_source`` in the model file says so). A change too rare in those tweets (``you're->your``) is chosen
on its own, at a threshold of its own (:attr:`ConfusionModel.own_thresholds`), on the tweets and the fresh text;
so is, in Spanish, each accent of a set left undecided (``que->qué`` at 0.99).
Without a decision (Spanish), the context model's probability of the other member is the one
compared with the threshold. The model file holds every number it uses (``charwise/data/confusions-*``).

Example (run by tests/test_doctests.py)::

    >>> model = ConfusionModel.load("en")
    >>> model.change(["its", "a", "long", "way", "home"], 0)[0]
    "it's"
    >>> model.change(["the", "dog", "wagged", "its", "tail"], 3) is None
    True
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Container, Iterable, Sequence

import numpy as np

from charwise.cache import LRUCache
from charwise.errors import ConfigError
from charwise.speller.confusion_lm import makes_change
from charwise.speller.context import asks
from charwise.speller.corrections import after_glued_dot
from charwise.speller.lexicon import ACCENTED, strip_accents
from charwise.speller.real_words import CONFUSION_SETS
from charwise.speller.word_classes import END, START, WordClasses

if TYPE_CHECKING:
    from charwise.speller.confusion_lm import LMDecision
    from charwise.speller.context import NgramContext
    from charwise.speller.context_model import ContextModel
    from charwise.speller.corrections import WordCorrection

DATA = Path(__file__).resolve().parents[1] / "data"
FORMAT = 1
#: windows of five words judged and remembered (running text repeats them: ``going to the``; a model
#: reads the same texts again in every epoch): a few MB
BEST_CACHE_SIZE = 50_000
TINY = 1e-12  # the least probability a log is taken of (a member never seen as meant has about 1e-13)
#: The evidence of :attr:`ConfusionModel.decision` for one other member (see the module docstring)
CLOZE_FEATURES: tuple[str, ...] = ("cloze_gain", "bigram_gain", "bigram_seen", "zipf_gap", "apostrophe")
APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'"})

#: The confusion sets each model decides between (lower-case). English: Golding and Roth's sets that informal
#: text does not defeat, learner English's pairs, and those whose members differ by an apostrophe (which bigram
#: counts taken without apostrophes cannot tell apart; ``id`` and ``wont`` are words too) or a word (``could of``).
SETS: dict[str, tuple[tuple[str, ...], ...]] = {
    "en": (
        ("their", "there", "they're"), ("your", "you're"), ("its", "it's"), ("then", "than"),
        ("to", "too"), ("lose", "loose"), ("affect", "effect"), ("lets", "let's"), ("whats", "what's"),
        ("hows", "how's"), ("shes", "she's"), ("wheres", "where's"), ("heres", "here's"), ("whose", "who's"),
        ("were", "we're"), ("hear", "here"), ("accept", "except"), ("advice", "advise"), ("breath", "breathe"),
        ("quiet", "quite"), ("weather", "whether"), ("chose", "choose"), ("passed", "past"), ("peace", "piece"),
        ("principal", "principle"), ("though", "through"), ("no", "know"), ("new", "knew"), ("of", "have"),
        ("id", "i'd"), ("wont", "won't"), ("hell", "he'll"), ("well", "we'll"), ("shell", "she'll"),
    ),
    # Spanish: a word and its accented twin (el/él, esta/está, mas/más), the real-word checker's sets;
    # only an accent left out is put back (a writer who writes one means it)
    "es": CONFUSION_SETS["es"],
}
#: Words the written text puts before a verb where ``have`` was meant (``could of`` -> ``could
#: have``): ``of`` there is a member of the set {of, have}, read only after one of these.
MODALS = frozenset({"could", "would", "should", "must", "might", "may", "will", "shall", "cannot"})
HAVE_SET = ("of", "have")


#: every member of a language's sets (a cheap test before a model is loaded)
MEMBERS: dict[str, frozenset[str]] = {lang: frozenset(m for s in sets for m in s) for lang, sets in SETS.items()}


def member_index(sets: Sequence[Sequence[str]]) -> dict[str, int]:
    """Each member -> the first set that holds it."""
    found: dict[str, int] = {}
    for k, members in enumerate(sets):
        for member in members:
            found.setdefault(member, k)
    return found


def set_at(index_of: dict[str, int], sets: Sequence[Sequence[str]], words: Sequence[str], i: int) -> int | None:
    """The set of the word at ``words[i]`` (lower-case, normal), ``of`` only after a modal, or None."""
    k = index_of.get(words[i])
    if k is not None and tuple(sets[k]) == HAVE_SET and not (i > 0 and words[i - 1] in MODALS):
        return None
    return k


def direction(written: str, member: str) -> str:
    """The name of a change from one member to another (``its->it's``)."""
    return f"{written}->{member}"


def normal(word: str) -> str:
    """A word as the models read it: lower-case, curly apostrophes straight."""
    lower = word.lower()
    return lower if lower.isalpha() else lower.translate(APOSTROPHES)  # letters alone: no apostrophe


def features(words: Sequence[str], index: int, members: Sequence[str], classes: WordClasses | None,
             context: NgramContext | None, fold_accents: bool = False) -> dict[str, float]:
    """The evidence for the member at ``words[index]`` (lower-case, normal): its neighbours, their classes and
    pairs of them, and each member's bigram fit between the neighbours. With ``fold_accents`` (Spanish) the
    neighbours are read without their accents (``mi mama esta en casa`` reads as ``mi mamá está en casa``
    would), and an interrogative that opens a question says so (:func:`~charwise.speller.context.asks`)."""
    def at(i: int) -> str:
        word = START if i < 0 else END if i >= len(words) else words[i]
        return strip_accents(word) if fold_accents else word

    l2, l1, r1, r2 = at(index - 2), at(index - 1), at(index + 1), at(index + 2)
    found = {"bias": 1.0, f"l1={l1}": 1.0, f"r1={r1}": 1.0, f"l2={l2}": 1.0, f"r2={r2}": 1.0,
             f"l1r1={l1}_{r1}": 1.0}
    if classes is not None:
        t2, t1, u1, u2 = classes(l2), classes(l1), classes(r1), classes(r2)
        found.update({f"t1={t1}": 1.0, f"u1={u1}": 1.0, f"u1u2={u1}_{u2}": 1.0, f"t2t1={t2}_{t1}": 1.0,
                      f"t1u1={t1}_{u1}": 1.0, f"l1u1={l1}_{u1}": 1.0, f"t1r1={t1}_{r1}": 1.0,
                      f"r1u2={r1}_{u2}": 1.0})
    if fold_accents and asks(words, index):
        found["question"] = 1.0
    if context is not None:
        for member in members:
            if "'" in member:  # the counts were taken without apostrophes: `you're` is read as `youre`
                continue
            fit = 0.0
            if l1 not in (START, END) and any(c.isalnum() for c in l1):
                fit += context.log_score(member, l1)[0]
            if r1 not in (START, END) and any(c.isalnum() for c in r1):
                fit += context.log_score(r1, member)[0]
            found[f"fit={member}"] = fit
    return found


@dataclass
class ConfusionModel:
    """Per confusion set, a multinomial logistic model over the set's members (see the module
    docstring): ``weights[set][feature]`` is a row of one weight per member."""

    language: str
    sets: tuple[tuple[str, ...], ...]
    weights: list[dict[str, np.ndarray]]
    intercepts: list[np.ndarray]
    threshold: float
    threshold_source: str
    classes: WordClasses | None = None
    context: NgramContext | None = None
    uses_context: bool = True
    #: per set: whether its changes are made (the others' probabilities are only reported)
    decides: tuple[bool, ...] = ()
    #: the decision where a language model reads the sentence (:mod:`charwise.speller.confusion_lm`)
    lm: LMDecision | None = None
    #: weights and bias of the decision without one, over :data:`CLOZE_FEATURES` (see the module
    #: docstring); None: the context model's probability of the other member decides
    decision: tuple[dict[str, float], float] | None = None
    #: the sets (``your/you're``) whose members' probabilities the normaliser reads (:meth:`shares`)
    normaliser_reads: frozenset[str] = frozenset()
    #: of the decided sets' changes, those made (``its->it's``: writers drop an apostrophe far more
    #: often than they add one, so the two directions of a set are chosen apart); empty: every one
    directions: frozenset[str] = frozenset()
    #: how often writers make each slip (see the module docstring): weights and bias of a logistic
    #: model over the decision's log-odds (``decision``) and one indicator per change (``change=its->it's``)
    slips: tuple[dict[str, float], float] | None = None
    #: of :attr:`directions`, those decided at thresholds of their own (``you're->your``: too rare in the tweets)
    own_thresholds: dict[str, float] = field(default_factory=dict)
    _set_of: dict[str, int] = field(default_factory=dict, init=False, repr=False)
    _best: LRUCache = field(default_factory=lambda: LRUCache(BEST_CACHE_SIZE), init=False, repr=False, compare=False)

    def __setattr__(self, name: str, value: object) -> None:
        super().__setattr__(name, value)
        if name != "_best" and "_best" in self.__dict__:
            self._best.clear()  # a model changed after use (a benchmark sets its slips) judges afresh

    def __post_init__(self) -> None:
        if not self.decides:
            self.decides = (True,) * len(self.sets)
        if len(self.decides) != len(self.sets):
            raise ConfigError(f"{len(self.decides)} decided flags for {len(self.sets)} confusion sets")
        self._set_of = member_index(self.sets)
        decided = {direction(a, b) for members, d in zip(self.sets, self.decides) if d
                   for a in members for b in members if a != b}
        made = self.directions or decided  # no changes named: every change of a decided set is made
        if self.directions - decided or set(self.own_thresholds) - made:
            odd = sorted(self.directions - decided) + sorted(set(self.own_thresholds) - made)
            raise ConfigError(f"changes {odd} are no change between two members of a set the model decides, "
                              "or have a threshold of their own and are not made")

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and normal(word) in self._set_of

    def set_of(self, words: Sequence[str], index: int) -> int | None:
        """The set the word at ``index`` belongs to (``of`` only after a modal), or None."""
        return set_at(self._set_of, self.sets, words, index)

    def probabilities(self, words: Sequence[str], index: int) -> dict[str, float] | None:
        """Each member's probability at ``words[index]`` (the sentence lower-case, normal: see
        :func:`normal`), or None when the word is no member."""
        k = self.set_of(words, index)
        if k is None:
            return None
        members = self.sets[k]
        found = features(words, index, members, self.classes, self.context if self.uses_context else None,
                         self.language in ACCENTED)
        table = self.weights[k]
        logits = self.intercepts[k].astype(np.float64).copy()
        for name, value in found.items():
            row = table.get(name)
            if row is not None:
                logits += value * row
        logits -= logits.max()
        odds = np.exp(logits)
        odds /= odds.sum()
        return dict(zip(members, odds.tolist()))

    def best(self, words: Sequence[str], index: int) -> tuple[str, float] | None:
        """The member other than the written one the writer likeliest meant and that probability (by :attr:`decision`
        where the model has one), or None when the word is no member. Read from the two words on each side
        (and whether a Spanish interrogative opens a question), so a window judged once is remembered."""
        key = (*(words[j] if 0 <= j < len(words) else (START if j < 0 else END) for j in range(index - 2, index + 3)),
               self.language in ACCENTED and asks(words, index))
        found = self._best.get(key)
        if found is None:
            found = self._best_uncached(words, index) or ()
            self._best.put(key, found)
        return found or None

    def _best_uncached(self, words: Sequence[str], index: int) -> tuple[str, float] | None:
        if self.decision is None or self.context is None:
            probabilities = self.probabilities(words, index)
            if probabilities is None:
                return None
            p, member = max((p, m) for m, p in probabilities.items() if m != words[index])
            return member, p
        gains = self.cloze_gains(words, index)
        if gains is None:
            return None
        from charwise.speller.confusion_lm import lm_features, log_odds, slipped
        from charwise.speller.logistic_decision import logistic

        scored = []
        for member, gain in gains.items():
            z = log_odds(*self.decision, lm_features(words, index, member, gain, self.context, "cloze_gain"))
            scored.append((logistic(slipped(self.slips, z, direction(words[index], member))), member))
        p, member = max(scored)
        return member, p

    def cloze_gains(self, words: Sequence[str], index: int) -> dict[str, float] | None:
        """For each member other than the written one, its log-odds against the written one (the
        decision's ``cloze_gain``), or None when the word is no member."""
        probabilities = self.probabilities(words, index)
        if probabilities is None:
            return None
        mine = math.log(max(probabilities[words[index]], TINY))
        return {m: math.log(max(p, TINY)) - mine for m, p in probabilities.items() if m != words[index]}

    def shares(self, words: Sequence[str], index: int, forms: Iterable[str]) -> dict[str, float] | None:
        """For a word that is no member (``ur``), when two or more of ``forms`` (its candidates) are
        members of one set of :attr:`normaliser_reads`: each of those members' probability at
        ``words[index]`` (the sentence lower-case, normal), among them (``you're`` before ``a
        legend``); else None, and None for a word without a word among the two on each side: alone
        (a word list's ``k``), it would read as a question (``qué``), and the table's 14 to 2 for
        ``que`` should decide."""
        near = (*words[max(0, index - 2):index], *words[index + 1:index + 3])
        if words[index] in self._set_of or not any(c.isalnum() for word in near for c in word):
            return None
        found: dict[int, list[str]] = {}
        for form in forms:
            if form in self._set_of:
                found.setdefault(self._set_of[form], []).append(form)
        for k, members in found.items():
            if len(members) >= 2 and "/".join(self.sets[k]) in self.normaliser_reads:
                probabilities = self.probabilities([*words[:index], self.sets[k][0], *words[index + 1:]], index)
                if probabilities is not None:
                    total = sum(probabilities[m] for m in members)
                    return {m: probabilities[m] / total for m in members}
        return None

    def change(self, words: Sequence[str], index: int) -> tuple[str, float] | None:
        """The member the word at ``index`` should be changed to and its probability, when the
        model decides its set and that probability reaches :meth:`threshold_of` the change; else None."""
        k = self.set_of(words, index)
        if k is None or not self.decides[k]:
            return None
        found = self.best(words, index)
        if found is None or not self.makes(change := direction(words[index], found[0])):
            return None
        return found if found[1] >= self.threshold_of(change) else None

    def makes(self, change: str) -> bool:
        """Whether a change (``its->it's``) of a decided set is made."""
        return makes_change(self.directions, change)

    def threshold_of(self, change: str) -> float:
        """The probability a change (``its->it's``) needs: its own threshold, or :attr:`threshold`."""
        return self.own_thresholds.get(change, self.threshold)

    # --- files ----------------------------------------------------------------------------------
    def save(self, folder: Path, description: str) -> None:
        """Write the model to ``folder`` (``model.json``: the weights of the sets it decides and of
        those the normaliser reads, the threshold and its source; ``classes.tsv``: the word classes),
        atomically."""
        from charwise.io import atomic_file, write_json
        from charwise.speller.confusion_lm import slips_entry

        folder.mkdir(parents=True, exist_ok=True)
        write_json(folder / "model.json", {
            "format": FORMAT, "language": self.language, "description": description,
            "sets": [list(s) for s in self.sets], "threshold": self.threshold,
            "threshold_source": self.threshold_source, "decides": list(self.decides),
            **({"directions": sorted(self.directions)} if self.directions else {}),
            **({"own_thresholds": dict(sorted(self.own_thresholds.items()))} if self.own_thresholds else {}),
            "uses_context": self.uses_context, "normaliser_reads": sorted(self.normaliser_reads),
            **({} if self.decision is None else {"decision": {
                "features": list(CLOZE_FEATURES), "weights": {k: round(v, 5) for k, v in self.decision[0].items()},
                "bias": round(self.decision[1], 5)}}),
            **slips_entry(self.slips),
            "intercepts": [np.round(b, 5).tolist() for b in self.intercepts],
            # the weights of the sets decided or read by the normaliser (the others are read by nothing at run time)
            "weights": [{name: np.round(row, 4).tolist() for name, row in table.items() if np.any(np.abs(row) >= 1e-3)}
                        if decided or "/".join(members) in self.normaliser_reads else {}
                        for table, decided, members in zip(self.weights, self.decides, self.sets)]}, indent=None)
        if self.classes is not None:
            with atomic_file(folder / "classes.tsv", "w") as f:
                f.write("".join(f"word\t{w}\t{t}\n" for w, t in sorted(self.classes.tags.items())))
                f.write("".join(f"suffix\t{s}\t{t}\n" for s, t in sorted(self.classes.suffixes.items())))

    @classmethod
    def read(cls, folder: Path, context: NgramContext | None = None) -> "ConfusionModel":
        """The model saved in ``folder`` (a one-line ConfigError for a missing or damaged one)."""
        try:
            data = json.loads((folder / "model.json").read_text(encoding="utf-8"))
            if data.get("format") != FORMAT:
                raise ConfigError(f"{folder}/model.json: format {data.get('format')!r}, this charwise reads {FORMAT}")
            classes = WordClasses.read(folder / "classes.tsv") if (folder / "classes.tsv").is_file() else None
            from charwise.speller.confusion_lm import LM_FILE, LMDecision, read_slips

            lm = LMDecision.read(folder / LM_FILE) if (folder / LM_FILE).is_file() else None
            decision = None
            if "decision" in data:
                if list(data["decision"]["features"]) != list(CLOZE_FEATURES):
                    raise ValueError(f"decision features {data['decision']['features']}, this charwise reads "
                                     f"{list(CLOZE_FEATURES)}")
                decision = ({str(k): float(v) for k, v in data["decision"]["weights"].items()},
                            float(data["decision"]["bias"]))
            return cls(data["language"], tuple(tuple(s) for s in data["sets"]),
                       [{name: np.asarray(row, dtype=np.float32) for name, row in table.items()}
                        for table in data["weights"]],
                       [np.asarray(b, dtype=np.float32) for b in data["intercepts"]], float(data["threshold"]),
                       str(data["threshold_source"]), classes, context, bool(data.get("uses_context", True)),
                       tuple(bool(d) for d in data["decides"]), lm, decision,
                       frozenset(str(name) for name in data.get("normaliser_reads", ())),
                       frozenset(str(change) for change in data.get("directions", ())), read_slips(data),
                       {str(change): float(t) for change, t in data.get("own_thresholds", {}).items()})
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ConfigError(f"cannot read the confusion model in {folder}: {e}") from None

    @classmethod
    def load(cls, language: str = "en") -> "ConfusionModel":
        """The shipped model of ``language``, with its bigram counts."""
        return _shipped(language)


@lru_cache(maxsize=None)
def _shipped(language: str) -> ConfusionModel:
    from charwise.speller.context import NgramContext

    folder = DATA / f"confusions-{language}"
    if not (folder / "model.json").is_file():
        raise ConfigError(f"no confusion model for {language!r}; real-word errors are decided in: "
                          f"{', '.join(sorted(p.name.split('-', 1)[1] for p in DATA.glob('confusions-*')))}")
    return ConfusionModel.read(folder, NgramContext.load(language))


def reads(entries: Sequence[WordCorrection], i: int, members: Container[str], shouting: bool = False,
          space_before: Sequence[bool] | None = None) -> bool:
    """Whether a confusion decision reads word ``i`` of the speller's output: a word of ``members`` (normal) the
    speller did not look at, change or protect, lower-case, capitalised, or in capitals where ``shouting`` (amid text
    in capitals: :func:`~charwise.speller.looking.in_capitals_text`), not glued to a full stop (``user.id``)."""
    entry, written = entries[i], entries[i].word
    return (normal(written) in members and not (entry.looked_at or entry.protected or entry.changed)
            and (written.islower() or written.istitle() or (shouting and written.isupper()))
            and not after_glued_dot(entries, space_before, i))


def decided_by_model(model: ConfusionModel) -> frozenset[str]:
    """The members the model alone changes (without a language model): those of the sets it decides, where it
    names its changes those it makes every change from at its threshold (``its``; not ``their``, whose
    ``their->there`` needs 0.9: the bigram rule, read first, fixes ``when their is no toilets``: 0.23 here)."""
    return frozenset(w for members, decided in zip(model.sets, model.decides) if decided for w in members
                     if all(model.makes(c := direction(w, m)) and c not in model.own_thresholds
                            for m in members if m != w))


def kept_reason(model: ConfusionModel, words: Sequence[str], index: int) -> str:
    """Why the member at ``words[index]`` (the sentence normal) is kept as written, for ``--json``:
    the likeliest other member, its probability and what it needed, or that the model does not make
    that change (its changes were right less than nine times in ten on the development tweets)."""
    k, found = model.set_of(words, index), model.best(words, index)
    if k is None or found is None:
        return ""
    member, p = found
    change = direction(words[index], member)
    why = (f"< {model.threshold_of(change):.2f}" if model.decides[k] and model.makes(change)
           else "(a change the model does not make: right less than nine times in ten on development text)")
    return f"confusion model ({'/'.join(model.sets[k])}): kept; {member} {p:.2f} {why}"


def decide_sentences(model: ConfusionModel, corrected: list[list[WordCorrection]], allowed: Sequence[str],
                     lm: ContextModel | None = None, spaces: Sequence[Sequence[bool] | None] | None = None) -> None:
    """Change in place each word of ``corrected`` (the speller's output) that belongs to a set the
    model decides and that the sentence, as corrected so far, says the writer meant as another
    member (:meth:`ConfusionModel.change`): kind ``real_word``, or ``accent`` when the member only
    puts back accents the word lacks (in a language with accents, the only change made), when
    ``allowed``. Words the speller looked at or changed, protected words and words glued to a full stop by
    ``spaces`` (each word's ``space_before``, per sentence) are left; a word in capitals is read only in text in
    capitals (``in_capitals_text``), lower-cased as every word is, and given back in capitals. With a language
    model ``lm`` and a decision fitted for one (:attr:`ConfusionModel.lm`), the sets that decision decides are
    decided by it alone (:func:`~charwise.speller.confusion_lm.decide_with_lm`), except in text in capitals."""
    from charwise.speller.confusion_lm import decide_with_lm, decided_members
    from charwise.speller.corrections import restores_accents, same_case
    from charwise.speller.looking import in_capitals_text

    accents_only = model.language in ACCENTED
    if ("accent" if accents_only else "real_word") not in allowed:
        return
    members = every_member = model._set_of  # most words are no member: that is asked first
    if lm is not None and model.lm is not None:
        decide_with_lm(model, corrected, lm, spaces)
        by_lm = decided_members(model)
        members = {w: k for w, k in members.items() if w not in by_lm}
    for s, entries in enumerate(corrected):
        words: list[str] | None = None  # the sentence read normal, once a word of it is a member
        as_written: list[str] | None = None  # the sentence as written, once a word of it is in capitals
        for i, entry in enumerate(entries):
            written = entry.word
            shouting = False
            if written.isupper():
                as_written = as_written or [e.word for e in entries]
                shouting = in_capitals_text(as_written, i)
            if not reads(entries, i, every_member if shouting else members, shouting, spaces[s] if spaces else None):
                continue
            if words is None:  # no word before this one was changed: the sentence as it came
                words = [normal(e.correction) for e in entries]
            found = model.change(words, i)
            kind = "accent" if found is not None and restores_accents(words[i], found[0]) else "real_word"
            name = "/".join(model.sets[model._set_of[words[i]]])
            if found is not None and kind in allowed and (kind == "accent" or not accents_only):
                entry.correction, entry.kind, entry.probability = same_case(written, found[0]), kind, found[1]
                classes = ", their word classes" if model.classes is not None else ""
                common = ", how common each member is" if model.decision is not None else ""
                common += ", how often writers make this slip" if model.slips is not None else ""
                entry.decided_by = (f"confusion model ({name}): {found[1]:.2f} >= "
                                    f"{model.threshold_of(direction(words[i], found[0])):.2f} "
                                    f"(the neighbours{classes}, the bigram counts{common})")
                words[i] = found[0]
            elif found is None:
                entry.decided_by = kept_reason(model, words, i)
            else:  # a change of a kind not made here
                entry.decided_by = (f"confusion model ({name}): kept; {found[0]} {found[1]:.2f}, but "
                                    + ("only accents left out are put back" if accents_only else f"{kind} is skipped"))
