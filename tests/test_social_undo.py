"""Whether the speller's corrections stand in informal text: the fitted undo decision
(:mod:`charwise.speller.social_undo`)."""

from __future__ import annotations

import json

import pytest

from charwise.errors import ConfigError
from charwise.speller import Speller
from charwise.speller.corrections import WordCorrection
from charwise.speller.normalisation_judge import NormalisationJudge
from charwise.speller.normalise import DATA_DIR
from charwise.speller.social_undo import (
    UNDO_FEATURES,
    UndoDecision,
    judged_probability,
    log_odds,
    undo_features,
    undoes,
)
from conftest import tiny_lexicon

EXAMPLE = {"weights": [0.2, 0.5, 1.0, 0.2, -0.4, 1.2], "bias": -1.1, "threshold": 0.6, "source": "a test"}


def corrected(word: str, correction: str, probability: float) -> WordCorrection:
    entry = WordCorrection(word, correction, True, probability=probability, kind="spelling")
    entry.decided_by = f"spelling scorer: {probability:.2f}"
    return entry


@pytest.fixture(scope="module")
def judge() -> NormalisationJudge:
    return NormalisationJudge.from_dict(json.loads((DATA_DIR / "normalisation-en" / "judge.json").read_text()))


def test_the_features_read_the_judge_the_speller_the_list_the_written_form_and_drawn_out_letters():
    lexicon = tiny_lexicon()
    listed = undo_features(lexicon, corrected("recieved", "received", 0.99), 0.29)
    assert listed[:3] == [pytest.approx(log_odds(0.29)), pytest.approx(log_odds(0.29)), pytest.approx(log_odds(0.99))]
    assert listed[3] == 1.0 and listed[5] == 0.0  # the list gives received alone; no letter drawn out
    slang = undo_features(lexicon, corrected("unfollow", "follow", 0.91), 0.01)
    assert slang[3] == 0.0 and slang[4] > 2.0  # not listed; a form people write (wordfreq)
    assert undo_features(lexicon, corrected("priveledged", "privileged", 0.99), 0.2)[4] == 0.0  # a slip seldom made
    drawn = undo_features(lexicon, corrected("heellllooooo", "hello", 0.88), 0.0)
    assert drawn[5] == 1.0 and drawn[1] == 0.0 and drawn[0] < -9  # the judge's doubt read apart
    assert log_odds(0.0) == pytest.approx(-log_odds(1.0)) and abs(log_odds(0.0)) < 10  # a judge's 0: a doubt, clipped
    assert len(listed) == len(UNDO_FEATURES)


def test_the_judge_probability_of_a_correction_it_did_not_rank_first_is_at_most_the_best():
    entry = corrected("wierd", "weird", 0.93)
    assert judged_probability(entry, ("weird", "spelling", 0.23)) == 0.23
    assert judged_probability(entry, ("wired", "spelling", 0.4)) == 0.4
    assert judged_probability(corrected("wierd", "weird", 0.2), ("wired", "spelling", 0.4)) == 0.2


def test_the_decision_keeps_or_undoes_and_says_so(judge):
    decision = UndoDecision.from_dict(EXAMPLE)
    lexicon = tiny_lexicon()
    entry = corrected("recieved", "received", 0.997)
    assert not undoes(decision, judge, lexicon, entry, ("received", "spelling", 0.29))
    assert "kept in informal text: the undo decision's" in entry.decided_by
    undoes(decision, judge, lexicon, entry, ("received", "spelling", 0.29))  # a second pass says it once
    assert entry.decided_by.count("kept in informal text") == 1
    seh = corrected("seh", "she", 0.9)
    assert undoes(decision, judge, lexicon, seh, ("she", "spelling", 0.3))
    assert seh.decided_by.startswith("undone in informal text: the undo decision's 0.") and seh.decided_by.endswith(
        f"< {decision.threshold:g} for she")  # --json says why the word stays as written
    # without a decision (Spanish): the judge's undo_below
    undone = corrected("recieved", "received", 0.997)
    assert undoes(None, judge, lexicon, undone, ("received", "spelling", 0.29))
    assert undone.decided_by == ("undone in informal text: the normalisation judge's 0.29 < "
                                 f"{judge.undo_below:g} for received")
    assert not undoes(None, judge, lexicon, corrected("recieved", "received", 0.997), ("received", "spelling", 0.31))


def test_bad_decisions_are_one_line_errors():
    with pytest.raises(ConfigError, match="6 finite weights"):
        UndoDecision.from_dict({**EXAMPLE, "weights": [1.0, 2.0]})
    with pytest.raises(ConfigError, match="threshold must be a probability"):
        UndoDecision.from_dict({**EXAMPLE, "threshold": 1.5})
    with pytest.raises(ConfigError, match="needs weights, bias, threshold and source"):
        UndoDecision.from_dict({"weights": EXAMPLE["weights"]})


def test_the_shipped_decision_reads_its_features_and_says_where_it_comes_from():
    decision = UndoDecision.load("en")
    assert decision is not None and 0.0 < decision.threshold < 1.0
    data = json.loads(UndoDecision.path("en").read_text())
    assert data["features"] == list(UNDO_FEATURES)
    assert "benchmarks/correction/social_undo.py" in decision.source and "read by hand" in decision.source
    assert UndoDecision.load("es") is None  # Spanish: the judge's undo_below


@pytest.fixture(scope="module")
def speller() -> Speller:
    return Speller.load("en")


@pytest.mark.real
def test_in_a_tweet_misspellings_are_corrected_and_names_slang_and_valid_forms_left(speller):
    received = speller.correct("@sam_t i recieved ur message lol")
    assert received.corrected == "@sam_t i received your message lol"
    word = next(w for w in received.words if w.word == "recieved")
    assert "kept in informal text: the undo decision's" in word.decided_by
    assert speller.correct("heellllooooo @jo_b how r u").corrected.startswith("hello @jo_b")
    for line in ("@max_r we can unfollow them lol", "@bob foota yuh fool like lol",
                 "@kay my cousin jordyn is here lol"):
        assert speller.correct(line).corrected.split(" ")[:5] == line.split(" ")[:5], line
    # an e-mail address is no @handle: the line is edited text, its misspelling corrected as there
    emailed = speller.correct("write to anna@gmail.com tomorow please").corrected
    assert emailed == "write to anna@gmail.com tomorrow please"
