"""Split words joined without a language model, by the web counts' frequencies (``note book`` ->
``notebook``, kind ``merge``), and the run-together rule measured beside it
(:mod:`charwise.speller.run_together`)."""

from __future__ import annotations

import pytest

from charwise.speller import Speller
from charwise.speller.corrections import CorrectedText, WordCorrection, word_spans
from charwise.speller.lexicon import DICTIONARY, LexiconEntry
from charwise.speller.normalisation_rules import RULES
from charwise.speller.run_together import JOIN_GAP, MERGE, join_by_counts, join_gap, pair_zipf, run_together_split
from charwise.words import split_words
from conftest import tiny_lexicon


def entries(text: str) -> list[WordCorrection]:
    words = list(split_words(text).words)
    out = [WordCorrection(w, w, False) for w in words]
    for entry, (start, end) in zip(out, word_spans(text, words)):
        entry.start, entry.end = start, end
    return out


@pytest.fixture(scope="module")
def lexicon():
    words = {"i": 7.0, "bought": 4.5, "a": 7.0, "note": 5.0, "book": 5.0, "notebook": 4.5, "per": 5.5,
             "cent": 4.0, "percent": 5.0, "of": 7.0, "it": 7.0, "may": 6.0, "be": 6.5, "maybe": 5.4}
    return tiny_lexicon({w: LexiconEntry(z, DICTIONARY) for w, z in words.items()})


def joined(lexicon, text: str) -> str:
    row = entries(text)
    join_by_counts([row], lexicon, [True])
    return CorrectedText(text, row).corrected


def test_the_joined_word_must_be_written_far_more_often_than_the_pair(lexicon):
    # "note book" is below the list's cut (1.99 Zipf at most); "may be" is far above "maybe"'s share
    assert join_gap(lexicon, "note", "book") >= JOIN_GAP > join_gap(lexicon, "may", "be")
    assert pair_zipf("note", "book", cut=False) is None and pair_zipf("may", "be") > 5
    assert joined(lexicon, "i bought a note book") == "i bought a notebook"
    assert joined(lexicon, "it may be") == "it may be"


def test_a_national_spelling_is_never_joined(lexicon):
    assert joined(lexicon, "a per cent") == "a per cent"  # British, not a split "percent"


def test_a_join_is_a_merge_with_the_odds_as_probability(lexicon):
    row = entries("i bought a note book")
    assert join_by_counts([row], lexicon, [True]) == 1
    assert [e.kind for e in row] == ["", "", "", MERGE, MERGE] and row[4].correction == ""
    assert 0.5 < row[3].probability < 1


def test_the_run_together_rule_reads_function_words_foreign_words_and_dropped_gs():
    speller = Speller.load("en")
    lex, rules = speller.lexicon, RULES["en"]
    assert run_together_split(lex, rules, "noteven") == "not even"
    assert run_together_split(lex, rules, "realestate") is None  # content words only: a name or a tag
    assert run_together_split(lex, rules, "sono") is None  # Italian
    assert run_together_split(lex, rules, "stressin") is None  # the normaliser's dropped g
    assert run_together_split(lex, rules, "thankyou") is None  # too often written together to tell


# --- the shipped speller ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def speller() -> Speller:
    return Speller.load("en")


@pytest.mark.real
def test_split_words_are_joined_by_default(speller):
    assert speller.correct("my girl friend loves the new web site").corrected == "my girlfriend loves the new website"
    assert speller.correct("i cant find my note book any where").corrected == "i can't find my notebook anywhere"
    assert speller.correct("the thumb nail looks blurry").corrected == "the thumbnail looks blurry"


@pytest.mark.real
def test_pairs_right_as_written_stay(speller):
    for text in ("it may be late, every day is busy", "you should check out the new shop",
                 "he gave every one of them a book", "about 40 per cent of voters agreed",
                 "she is back to her old self"):
        assert speller.correct(text).corrected == text


@pytest.mark.real
def test_joins_can_be_left_out(speller):
    kinds = tuple(k for k in speller.settings.changes if k != MERGE)
    plain = Speller(speller.lexicon, speller.encoder, speller.scorer, speller.settings.__class__(changes=kinds),
                    featurizer=speller.featurizer)
    assert plain.correct("my girl friend is here").corrected == "my girl friend is here"


def test_a_listed_cut_is_made_at_any_gap_and_an_unlisted_one_needs_the_web_counts():
    speller = Speller.load("en")
    lex, rules = speller.lexicon, RULES["en"]
    # "every time" is written apart only 0.17 Zipf more often than together: the list decides it
    assert run_together_split(lex, rules, "everytime", gap=float("inf")) == "every time"
    assert run_together_split(lex, rules, "noteven", gap=float("inf")) is None  # unlisted: the gap decides


@pytest.mark.real
def test_the_default_cuts_words_the_list_names_and_keeps_the_rest(speller):
    found = speller.correct("Atleast we tried, and everytime i see you i smile aswell")
    assert found.corrected == "At least we tried, and every time i see you i smile as well"
    assert {w.kind for w in found.words if w.changed} == {"split"}
    assert all("known misspelling" in w.decided_by for w in found.words if w.changed)
    for text in ("tune in to the radio", "the realestate market", "I love my team", "no one came"):
        assert speller.correct(text).corrected == text
    kinds = tuple(k for k in speller.settings.changes if k != "split")
    plain = Speller(speller.lexicon, speller.encoder, speller.scorer, speller.settings.__class__(changes=kinds),
                    featurizer=speller.featurizer)
    assert plain.correct("atleast we tried").corrected == "atleast we tried"
