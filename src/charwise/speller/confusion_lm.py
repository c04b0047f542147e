"""The confusion decision where a language model reads the sentence (``context="smollm2"``).

Without a model, :class:`~charwise.speller.confusions.ConfusionModel` decides from the words around a
member and bigram counts, which learned from so little text that only two sets can be trusted
(:mod:`charwise.speller.confusions`). A language model reads the whole sentence: put each member in
place of the written word and compare the sentence's log-probabilities. SmolLM2 finds ``they're
going`` 5.9 nats likelier than ``their going`` and ``your help`` 10.2 nats likelier than ``you're
help``, and the dog's tail 4.1 nats likelier with ``its`` than ``it's``.

The model alone is fooled by informal text (``country fair`` -> ``county``, see
:mod:`charwise.speller.real_words`), so its gain is one feature of a fitted decision
(:class:`LMDecision`), beside the bigram fit of the member against the written word, whether those
pairs were counted, how much more common the member is (Zipf), and whether the two differ only by
an apostrophe (where bigram counts, taken without apostrophes, are blind). For each other member of
the written word's set the logistic model gives the probability that the writer meant it; the word is
changed to the likeliest when that reaches :attr:`LMDecision.threshold`, in the sets the decision
decides. ``benchmarks/correction/confusions_lm.py --ship`` fits the weights on development
sentences (every member as written, and swapped for another member) and chooses the threshold and
the sets on development tweets whose changes were read and labelled by hand, each set decided right
at least 90 % of the time (``threshold_source`` in ``lm.json`` says so).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Collection, Sequence

from charwise.errors import ConfigError
from charwise.speller.logistic_decision import logistic

if TYPE_CHECKING:
    from charwise.speller.confusions import ConfusionModel
    from charwise.speller.context import NgramContext
    from charwise.speller.context_model import ContextModel
    from charwise.speller.corrections import WordCorrection

LM_FILE = "lm.json"
#: The evidence for one other member of the written word's set (see the module docstring)
LM_FEATURES: tuple[str, ...] = ("lm_gain", "bigram_gain", "bigram_seen", "zipf_gap", "apostrophe")


def set_name(members: Sequence[str]) -> str:
    return "/".join(members)


@dataclass
class LMDecision:
    """A logistic model over :data:`LM_FEATURES`: the probability that the writer meant another
    member; a change at :attr:`threshold`, in the sets named in :attr:`decides` (``"its/it's"``)."""

    weights: dict[str, float]
    bias: float
    threshold: float = 1.0
    threshold_source: str = "not chosen yet"
    decides: tuple[str, ...] = ()
    #: of the decided sets' changes, those made (``its->it's``); empty: every one
    directions: tuple[str, ...] = ()
    #: how often writers make each slip, over this decision's log-odds (as the n-gram model's
    #: :attr:`~charwise.speller.confusions.ConfusionModel.slips`)
    slips: tuple[dict[str, float], float] | None = None

    def probability(self, row: dict[str, float], change: str = "") -> float:
        """The probability that the writer meant the member of ``row``; ``change`` (``its->it's``):
        read with the writers' slips, where the decision has them."""
        return logistic(slipped(self.slips, log_odds(self.weights, self.bias, row), change))

    def makes(self, change: str) -> bool:
        """Whether a change (``its->it's``) of a decided set is made."""
        return makes_change(self.directions, change)

    def to_dict(self) -> dict[str, object]:
        return {"features": list(LM_FEATURES), "weights": {k: round(v, 5) for k, v in self.weights.items()},
                "bias": round(self.bias, 5), "threshold": self.threshold, "threshold_source": self.threshold_source,
                "decides": list(self.decides),
                **({"directions": list(self.directions)} if self.directions else {}), **slips_entry(self.slips)}

    @classmethod
    def read(cls, path: Path) -> "LMDecision":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if list(data["features"]) != list(LM_FEATURES):
                raise ValueError(f"features {data['features']}, this charwise reads {list(LM_FEATURES)}")
            return cls({str(k): float(v) for k, v in data["weights"].items()}, float(data["bias"]),
                       float(data["threshold"]), str(data["threshold_source"]), tuple(str(s) for s in data["decides"]),
                       tuple(str(c) for c in data.get("directions", ())), read_slips(data))
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ConfigError(f"cannot read the language-model confusion decision {path}: {e}") from None


def log_odds(weights: dict[str, float], bias: float, row: dict[str, float]) -> float:
    """A logistic model's log-odds for a row of named features (a name without a weight counts 0)."""
    return bias + sum(weights.get(name, 0.0) * value for name, value in row.items())


def slipped(slips: tuple[dict[str, float], float] | None, z: float, change: str) -> float:
    """A decision's log-odds ``z`` for ``change`` (``its->it's``) read with the writers' slips (the
    log-odds and the change's indicator in a logistic model of their own); ``z`` without them."""
    if slips is None or not change:
        return z
    return log_odds(*slips, {"decision": z, f"change={change}": 1.0})


def makes_change(directions: Collection[str], change: str) -> bool:
    """Whether a decision naming the changes ``directions`` it makes (none named: every one) makes
    ``change`` (``its->it's``)."""
    return not directions or change in directions


def slips_entry(slips: tuple[dict[str, float], float] | None) -> dict[str, object]:
    """The ``slips`` entry of a decision's file (nothing without slips)."""
    if slips is None:
        return {}
    return {"slips": {"weights": {k: round(v, 5) for k, v in sorted(slips[0].items())}, "bias": round(slips[1], 5)}}


def read_slips(data: dict) -> tuple[dict[str, float], float] | None:
    """The slips of a decision's file, or None (a file written before them)."""
    slips = data.get("slips")
    return None if slips is None else ({str(k): float(v) for k, v in slips["weights"].items()}, float(slips["bias"]))


def lm_features(words: Sequence[str], index: int, member: str, gain: float,
                context: "NgramContext", gain_name: str = "lm_gain") -> dict[str, float]:
    """The evidence for ``member`` in place of ``words[index]`` (the sentence lower-case, normal):
    the ``gain`` of the member over the written word (``lm_gain``: the language model's, nats;
    ``cloze_gain``: the confusion model's log-odds, without one), the bigram fit's gain (log10)
    and whether the member's pairs were counted, the unigram gap (log10) and whether only an
    apostrophe differs."""
    from charwise.speller.context import is_word

    written = words[index]
    left = words[index - 1] if index > 0 and is_word(words[index - 1]) else None
    right = words[index + 1] if index + 1 < len(words) and is_word(words[index + 1]) else None

    def fit(word: str) -> tuple[float, bool]:
        score, seen = 0.0, True
        if left is not None:
            s, counted = context.log_score(word, left)
            score, seen = score + s, seen and counted
        if right is not None:
            s, counted = context.log_score(right, word)
            score, seen = score + s, seen and counted
        return score, seen

    mine, _ = fit(written)
    theirs, seen = fit(member)
    return {gain_name: gain, "bigram_gain": theirs - mine, "bigram_seen": float(seen and (left or right) is not None),
            "zipf_gap": context.log_unigram(member) - context.log_unigram(written),
            "apostrophe": float(member.replace("'", "") == written.replace("'", ""))}


def decided_members(model: "ConfusionModel") -> frozenset[str]:
    """The words the language-model decision reads, and decides alone (none without one): the members
    of the sets it decides that it may change (``there`` when ``there->their`` is decided)."""
    from charwise.speller.confusions import direction

    if model.lm is None:
        return frozenset()
    return frozenset(w for members in model.sets if set_name(members) in model.lm.decides for w in members
                     if any(model.lm.makes(direction(w, m)) for m in members if m != w))


def member_targets(model: "ConfusionModel", corrected: Sequence[Sequence["WordCorrection"]], only: frozenset[str],
                   spaces: Sequence[Sequence[bool] | None] | None = None) -> list[tuple[int, int]]:
    """(sentence, position) of each word of the speller's output that the confusion decision reads:
    a member of a set (``of`` after a modal) among ``only``, not looked at, changed or protected by
    the speller, in lower case or capitalised, not glued to a full stop by ``spaces`` (``user.id``)."""
    from charwise.speller.confusions import normal, reads

    found = []
    for s, entries in enumerate(corrected):
        words: list[str] | None = None
        for i in range(len(entries)):
            if not reads(entries, i, only, space_before=spaces[s] if spaces else None):
                continue
            words = words or [normal(e.correction) for e in entries]
            if model.set_of(words, i) is not None:
                found.append((s, i))
    return found


def decide_with_lm(model: "ConfusionModel", corrected: list[list["WordCorrection"]], lm: "ContextModel",
                   spaces: Sequence[Sequence[bool] | None] | None = None) -> None:
    """Change in place each member of a set the decision decides that the sentence, read by ``lm``
    and the counts, says the writer meant as another member (kind ``real_word``); the language
    model reads every such word of every sentence in one batch."""
    from charwise.speller.confusions import direction, normal
    from charwise.speller.corrections import same_case
    from charwise.speller.normalisation_judge import lm_gains

    decision = model.lm
    if decision is None or model.context is None:
        return
    targets = member_targets(model, corrected, decided_members(model), spaces)
    if not targets:
        return
    texts = [[e.correction for e in entries] for entries in corrected]
    lows = {s: [normal(w) for w in texts[s]] for s, _ in targets}
    others = [[m for m in model.sets[model.set_of(lows[s], i)] if m != lows[s][i]] for s, i in targets]  # type: ignore[index]
    gains = lm_gains(lm, texts, [(s, i, texts[s][i], o) for (s, i), o in zip(targets, others)])
    for (s, i), row in zip(targets, gains):
        words = lows[s]
        scored = [(decision.probability(lm_features(words, i, normal(m), g, model.context),
                                        direction(words[i], normal(m))), m) for m, g in row.items()]
        p, member = max(scored)
        entry = corrected[s][i]
        k = model.set_of(words, i)
        makes = decision.makes(direction(words[i], normal(member)))
        if p < decision.threshold or not makes:
            why = f"< {decision.threshold:.2f}" if makes else "(a change the decision does not make)"
            entry.decided_by = (f"confusion decision with a language model ({set_name(model.sets[k])}): "  # type: ignore[index]
                                f"kept; {normal(member)} {p:.2f} {why} (the model's gain {row[member]:+.1f} nats)")
            continue
        entry.correction, entry.kind, entry.probability = same_case(entry.word, member), "real_word", p
        slips = ", how often writers make this slip" if decision.slips else ""
        entry.decided_by = (f"confusion decision with a language model ({set_name(model.sets[k])}): {p:.2f} >= "  # type: ignore[index]
                            f"{decision.threshold:.2f} (the model's gain {row[member]:+.1f} nats, the bigram counts, "
                            f"how common each member is{slips})")
