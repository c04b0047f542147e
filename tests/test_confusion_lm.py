"""The confusion decision with a language model (:mod:`charwise.speller.confusion_lm`).

Unit tests run a tiny random Llama on SmolLM2's real tokenizer (``tiny_llama_teacher``); the
``real`` tests read the shipped decision with SmolLM2 itself, on sentences written for them.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from charwise.errors import ConfigError
from charwise.speller import Speller, WordCorrection
from charwise.speller.confusion_lm import LM_FEATURES, LMDecision, decide_with_lm, decided_members, lm_features
from charwise.speller.confusions import ConfusionModel, decide_sentences
from charwise.speller.context import NgramContext
from charwise.speller.neural import LMReranker, RerankSettings
from charwise.speller.normalisation_judge import lm_gains


@pytest.fixture
def reranker(tiny_llama_teacher) -> LMReranker:
    return LMReranker.from_teacher(tiny_llama_teacher, RerankSettings(batch_size=3))


def rows_of(words: list[str]) -> list[list[WordCorrection]]:
    return [[WordCorrection(w, w, False) for w in words]]


def test_the_decision_file_round_trips_and_a_damaged_one_is_a_one_line_error(tmp_path):
    decision = LMDecision({"lm_gain": 0.8, "bigram_gain": 0.3}, -4.0, 0.9, "chosen on labelled tweets", ("its/it's",))
    (tmp_path / "lm.json").write_text(json.dumps(decision.to_dict()))
    assert LMDecision.read(tmp_path / "lm.json") == decision
    assert decision.probability({"lm_gain": 10.0}) > decision.probability({"lm_gain": 2.0}) > 0
    damaged = {**decision.to_dict(), "features": ["lm_gain"]}
    (tmp_path / "lm.json").write_text(json.dumps(damaged))
    with pytest.raises(ConfigError) as caught:
        LMDecision.read(tmp_path / "lm.json")
    assert "\n" not in str(caught.value) and "features" in str(caught.value)


def test_the_writers_slips_and_the_changes_named_are_read_and_saved(tmp_path):
    """A decision with slips reads each change's weight on its log-odds; one naming its changes makes
    those alone; both survive the file; the words it changes alone are those it makes every change from."""
    slips = ({"decision": 1.0, "change=its->it's": 3.0, "change=it's->its": -3.0}, 0.0)
    decision = LMDecision({"lm_gain": 1.0}, 0.0, 0.9, "test", ("its/it's",), ("its->it's",), slips)
    row = {"lm_gain": 0.0}
    assert decision.probability(row, "its->it's") > 0.9 > 0.1 > decision.probability(row, "it's->its")
    assert decision.probability(row) == pytest.approx(0.5)  # no change named: the decision alone
    assert decision.makes("its->it's") and not decision.makes("it's->its")
    (tmp_path / "lm.json").write_text(json.dumps(decision.to_dict()))
    assert LMDecision.read(tmp_path / "lm.json") == decision
    from charwise.speller.confusion_lm import decided_members

    model = dataclasses.replace(ConfusionModel.load("en"), lm=decision)
    assert decided_members(model) == {"its"}  # it reads the words it may change, and those alone
    there = LMDecision({"lm_gain": 1.0}, 0.0, 0.9, "test", ("their/there/they're",), ("there->their",))
    assert decided_members(dataclasses.replace(model, lm=there)) == {"there"}


def test_the_evidence_reads_the_counts_and_the_apostrophe():
    context = NgramContext.load("en")
    words = "he is taller then his brother".split()
    row = lm_features(words, 3, "than", 4.0, context)
    assert set(row) == set(LM_FEATURES)
    assert row["lm_gain"] == 4.0 and row["bigram_gain"] > 0 and row["apostrophe"] == 0.0
    assert lm_features("its a long way".split(), 0, "it's", 1.0, context)["apostrophe"] == 1.0
    assert lm_features(["then"], 0, "than", 0.0, context)["bigram_seen"] == 0.0  # no neighbour, nothing counted


def test_the_decision_changes_what_the_model_and_threshold_say_and_nothing_else(reranker):
    model = dataclasses.replace(ConfusionModel.load("en"), lm=None)
    words = ["i", "think", "their", "going", "home", "now"]
    (gains,) = lm_gains(reranker, [words], [(0, 2, "their", ["there", "they're"])])
    member = max(gains, key=gains.__getitem__)
    # the language model's gain alone decides, at a threshold just under / over its probability
    model.lm = LMDecision({"lm_gain": 1.0}, 0.0, 0.0, "test", ("their/there/they're",))
    p = model.lm.probability({"lm_gain": gains[member]})
    model.lm.threshold = p - 1e-6
    rows = rows_of(words)
    decide_with_lm(model, rows, reranker)
    changed = [e for e in rows[0] if e.changed]
    assert [(e.word, e.correction, e.kind) for e in changed] == [("their", member, "real_word")]
    assert abs(changed[0].probability - p) < 1e-9 and "language model" in changed[0].decided_by
    model.lm.threshold = p + 1e-6
    rows = rows_of(words)
    decide_with_lm(model, rows, reranker)
    assert not any(e.changed for e in rows[0])
    # kept, and --json says why: the likeliest member, its probability and what it needed
    assert rows[0][2].decided_by.endswith(f"kept; {member} {p:.2f} < {p + 1e-6:.2f} (the model's gain "
                                          f"{gains[member]:+.1f} nats)")
    # a set the decision does not decide, a word in capitals, a protected word: left
    model.lm = LMDecision({"lm_gain": 1.0}, 50.0, 0.5, "test", ("its/it's",))
    for sentence in (words, ["i", "think", "THEIR", "going"]):
        rows = rows_of(sentence)
        decide_with_lm(model, rows, reranker)
        assert not any(e.changed for e in rows[0])


def test_with_a_language_model_the_sets_it_decides_are_its_alone(reranker):
    model = dataclasses.replace(ConfusionModel.load("en"))
    model.lm = LMDecision({"lm_gain": 0.0}, -50.0, 0.5, "test", ("its/it's", "whats/what's"))  # never changes
    assert {"its", "it's", "whats", "what's"} <= decided_members(model)
    rows = rows_of(["its", "a", "long", "way", "home"])
    decide_sentences(model, rows, ("real_word",))  # no language model: the n-gram model decides
    assert rows[0][0].correction == "it's"
    rows = rows_of(["its", "a", "long", "way", "home"])
    decide_sentences(model, rows, ("real_word",), lm=reranker)  # with one: the decision, which keeps it
    assert not rows[0][0].changed
    assert decided_members(dataclasses.replace(model, lm=None)) == frozenset()


# --- SmolLM2 and the shipped decision -------------------------------------------------------------
@pytest.fixture(scope="module")
def smollm2_speller() -> Speller:
    return Speller.load("en", context="smollm2")


@pytest.mark.real
def test_the_shipped_decision_reads_its_file_with_its_source():
    decision = ConfusionModel.load("en").lm
    assert decision is not None and decision.decides and "labelled by hand" in decision.threshold_source
    assert decision.slips is not None and "its->it's" in decision.directions and "than->then" not in decision.directions


@pytest.mark.real
@pytest.mark.parametrize("written, meant", [
    ("i could of told you that", "i could have told you that"),
    ("dont loose your keys again", "don't lose your keys again"),
    ("he is taller then his brother", "he is taller than his brother"),
    ("whats the plan for today", "what's the plan for today"),
    ("lets go to the beach", "let's go to the beach"),
    ("I think your right about that", "I think you're right about that"),
    ("it was to late to call", "it was too late to call"),
    ("there car is parked outside", "their car is parked outside"),  # a word the decision may change
    ("my friends are there now", "my friends are there now"),
    ("The dog wagged its tail.", "The dog wagged its tail."),
    ("We ate first, then we went home.", "We ate first, then we went home."),
    ("Their house is bigger than ours.", "Their house is bigger than ours."),
    ("Let them know whose bag this is.", "Let them know whose bag this is."),
])
def test_smollm2_decides_everyday_confusions(smollm2_speller, written, meant):
    assert smollm2_speller.correct(written).corrected == meant
