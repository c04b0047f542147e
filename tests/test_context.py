"""Context evidence for the speller: counts, stupid back-off, neighbours, the feature columns."""

from __future__ import annotations

import math

import numpy as np
import pytest

from charwise.errors import ConfigError
from charwise.speller.context import BACKOFF, CONTEXT_FEATURES, FLOOR, NgramContext, neighbours

SENTENCES = [["I", "like", "tea", "."], ["I", "like", "it", ",", "you", "like", "tea"], ["they", "lie", "."]]


@pytest.fixture(scope="module")
def tiny() -> NgramContext:
    return NgramContext.from_sentences("en", SENTENCES, fallback_zipf={"lake": 3.0})


def test_counts_skip_punctuation_and_break_at_clause_ends(tiny):
    assert tiny.unigrams == {"i": 2, "like": 3, "tea": 2, "it": 1, "you": 1, "they": 1, "lie": 1}
    # "it , you" is read across the comma; "tea . they" would cross a sentence end and is not
    assert tiny.bigrams["it you"] == 1 and "tea they" not in tiny.bigrams
    assert tiny.bigrams["i like"] == 2 and tiny.total == 11


def test_stupid_backoff_by_hand(tiny):
    score, seen = tiny.log_score("like", "i")
    assert seen and score == pytest.approx(0.0)  # every "i" is followed by "like"
    score, seen = tiny.log_score("tea", "like")
    assert seen and score == pytest.approx(math.log10(2 / 3))
    score, seen = tiny.log_score("lie", "i")  # unseen pair: back-off times the unigram
    assert not seen and score == pytest.approx(math.log10(BACKOFF) + math.log10(1 / 11))
    assert tiny.log_unigram("lake") == pytest.approx(3.0 - 9.0)  # the fallback Zipf frequency
    assert tiny.log_unigram("zzzxq") == FLOOR


def test_columns_prefer_the_candidate_the_neighbours_expect(tiny):
    cols = tiny.columns("i", ["lie", "like", "lake"], "tea")
    assert list(cols) == list(CONTEXT_FEATURES)
    assert all(v.dtype == np.float32 and v.shape == (3,) for v in cols.values())
    assert cols["ctx_gap"].argmax() == 1 and cols["ctx_gap"][1] == 0.0
    assert cols["ctx_seen_left"].tolist() == [0.0, 1.0, 0.0]
    assert cols["ctx_seen_right"].tolist() == [0.0, 1.0, 0.0]
    empty = tiny.columns(None, ["lie", "like"], None)  # no neighbours: no evidence either way
    assert all(not v.any() for v in empty.values())
    assert all(v.shape == (0,) for v in tiny.columns("i", [], "tea").values())


def test_neighbours_skip_commas_and_stop_at_clause_ends():
    words = ["Well", ",", "I", "lke", "tea", ".", "Yes"]
    assert neighbours(words, 3) == ("i", "tea")
    assert neighbours(words, 0) == (None, "i")
    assert neighbours(words, 6) == (None, None)
    assert neighbours(["a", "(", "b", ")"], 2) == (None, None)


def test_a_model_without_counts_is_refused():
    with pytest.raises(ConfigError, match="unigram"):
        NgramContext("en", {}, {})


def test_english_counts_from_symspellpy():
    context = NgramContext.load("en")
    assert context is NgramContext.load("en")  # built once per process
    assert len(context.bigrams) > 200_000 and context.unigrams["the"] > context.unigrams["cat"]
    cols = context.columns("you", ["are", "art"], "going")
    assert cols["ctx_gap"].tolist()[0] == 0.0 and cols["ctx_gap"][1] < -3


def test_contractions_are_read_as_counts_without_apostrophes_write_them():
    # counts that write "i can't" as "i cant" (symspellpy's English pairs)
    unigrams = {"i": 100.0, "an": 50.0, "can": 40.0, "cant": 20.0, "ill": 10.0, "be": 30.0, "can't": 1.0,
                "will": 25.0}
    bigrams = {"i can": 30.0, "i cant": 15.0, "an ill": 5.0, "ill be": 8.0, "cant go": 4.0, "i will": 12.0}
    plain = NgramContext("en", unigrams, bigrams, apostrophes=False)
    # after a neighbour a contraction is the word it starts with; before one it is written as counted
    assert plain.log_score("can't", "i") == plain.log_score("can", "i") != plain.log_score("cant", "i")
    # "an i" was never counted: backed off to the contraction's own count, not to the frequent "i"
    assert plain.log_score("i'll", "an") == (pytest.approx(math.log10(BACKOFF) + plain.log_unigram("ill")), False)
    assert plain.log_score("i'll", "an")[0] < plain.log_score("ill", "an")[0]
    assert plain.log_score("be", "i'll") == plain.log_score("be", "ill") and plain.log_score("be", "i'll")[1]
    assert plain.log_score("go", "can't") == plain.log_score("go", "cant")
    assert plain.log_unigram("can't") == plain.log_unigram("cant")  # not the list's own placeholder count
    assert plain.log_score("won't", "i") == plain.log_score("will", "i")
    # counts that keep apostrophes are read as written
    kept = NgramContext("en", unigrams, bigrams)
    assert kept.log_unigram("can't") != kept.log_unigram("cant") and not kept.log_score("be", "i'll")[1]


def test_english_contractions_fit_as_the_words_they_stand_for():
    context = NgramContext.load("en")
    assert context.log_score("can't", "i")[1] and context.log_score("believe", "can't")[1]
    assert context.log_score("i'll", "an")[0] < context.log_score("ill", "an")[0]  # an ill-advised term


@pytest.mark.slow
def test_spanish_counts_from_the_training_verses():
    context = NgramContext.load("es")
    cols = context.columns("y", ["después", "despues"], "de")
    assert cols["ctx_gap"][0] == 0.0 and cols["ctx_gap"][1] < -1
    with pytest.raises(ConfigError):
        NgramContext.load("xx")
