"""Split words joined without a language model, by the web counts' frequencies (``note book`` ->
``notebook``, kind ``merge``), and the run-together rule measured beside it
(:mod:`charwise.speller.run_together`)."""

from __future__ import annotations

import pytest

from charwise.errors import ConfigError
from charwise.speller import Speller
from charwise.speller.context import NgramContext
from charwise.speller.corrections import CorrectedText, WordCorrection, word_spans
from charwise.speller.lexicon import DICTIONARY, LexiconEntry
from charwise.speller.normalisation_rules import RULES
from charwise.speller.run_together import (
    JOIN_GAP,
    MERGE,
    SPLIT_FEATURES,
    SplitDecision,
    association,
    join_by_counts,
    join_candidates,
    join_gap,
    pair_zipf,
    run_together_split,
    split_candidates,
    split_features,
    split_run_together,
)
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
    # a pair written apart more often than together is no candidate at all
    assert join_candidates([entries("it may be")], lexicon, [True]) == []
    [(_, i, word, gap, margin)] = join_candidates([entries("i bought a note book")], lexicon, [True])
    assert (i, word) == (3, "notebook") and gap >= JOIN_GAP and margin > 0


def test_a_national_spelling_is_never_joined(lexicon):
    assert joined(lexicon, "a per cent") == "a per cent"  # British, not a split "percent"


def test_a_join_is_a_merge_with_the_odds_as_probability(lexicon):
    row = entries("i bought a note book")
    assert join_by_counts([row], lexicon, [True]) == 1
    assert [e.kind for e in row] == ["", "", "", MERGE, MERGE] and row[4].correction == ""
    assert 0.5 < row[3].probability == row[4].probability < 1 and "web counts" in row[3].decided_by


def test_the_run_together_rule_reads_function_words_foreign_words_and_dropped_gs():
    speller = Speller.load("en")
    lex, rules = speller.lexicon, RULES["en"]
    assert run_together_split(lex, rules, "noteven") == "not even"
    assert run_together_split(lex, rules, "realestate") is None  # content words only: a name or a tag
    assert run_together_split(lex, rules, "sono") is None  # Italian
    assert run_together_split(lex, rules, "stressin") is None  # the normaliser's dropped g
    assert run_together_split(lex, rules, "thankyou") == "thank you"  # a candidate: the decision decides


def test_a_broken_decision_file_is_a_one_line_error(tmp_path, monkeypatch):
    import charwise.speller.logistic_decision as ld

    (tmp_path / "normalisation-en").mkdir()
    (tmp_path / "normalisation-en" / "run_together.json").write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(ld, "DATA", tmp_path)
    ld._shipped.cache_clear()
    try:
        with pytest.raises(ConfigError, match="not valid JSON.*reinstall charwise"):
            SplitDecision.load("en")
        assert SplitDecision.load("es") is None  # no decision: no cuts
    finally:
        ld._shipped.cache_clear()


def test_the_split_decision_reads_its_evidence_and_rejects_bad_files():
    decision = SplitDecision.from_dict({"weights": [1.0, 3.0, 0.5, 0.0, 1.0, 0.5], "bias": -2.0, "threshold": 0.9,
                                        "source": "an example"})
    assert decision.probability([4.0, 0, 0, 0, 0, 0]) > decision.probability([1.0, 0, 0, 0, 0, 0])
    assert decision.probability([0.2, 1.0, 0, 0, 0, 0]) > decision.probability([0.2, 0, 0, 0, 0, 0])
    assert decision.probability([0.2, 0, 0, 0, 1.0, 2.0]) > decision.probability([0.2, 0, 0, 0, 0, 0])
    assert SplitDecision.from_dict(decision.to_dict()) == decision
    with pytest.raises(ConfigError, match="6 finite weights"):
        SplitDecision.from_dict({**decision.to_dict(), "weights": [1.0, 2.0]})
    with pytest.raises(ConfigError, match="probability"):
        SplitDecision.from_dict({**decision.to_dict(), "threshold": 1.5})
    with pytest.raises(ConfigError, match="needs weights"):
        SplitDecision.from_dict({"weights": [1, 2, 3, 4, 5, 6]})


def test_the_cut_reads_a_pronoun_and_how_strongly_its_parts_belong_together():
    # "thank you" is written 10^1.8 times as often as its words' frequencies predict; "and is" 10^0.1
    assert association(["thank", "you"]) > 1.5 > 0.5 > association(["and", "is"])
    assert association(["i", "love", "you"]) > association(["i", "love"])  # each pair adds its own
    speller = Speller.load("en")
    counts = NgramContext.load("en")
    pronoun = SPLIT_FEATURES.index("pronoun")
    thanks = split_features(speller.lexicon, counts, ["thankyou", "for", "coming"], 0, "thank you")
    not_even = split_features(speller.lexicon, counts, ["we", "did", "noteven", "try"], 2, "not even")
    assert len(thanks) == len(SPLIT_FEATURES) and thanks[pronoun] == 1.0 and not_even[pronoun] == 0.0


def test_a_cut_is_made_where_the_decision_is_sure_enough():
    speller = Speller.load("en")
    lex, rules = speller.lexicon, RULES["en"]
    sure = SplitDecision((1.0, 0, 0, 0, 0, 0), 0.0, 0.9, "a test: the gap alone")
    row = entries("we did noteven try")
    assert split_run_together([row], lex, rules, [True], sure) == 1  # "not even" 4.3 Zipf apart
    assert [e.correction for e in row] == ["we", "did", "not even", "try"] and row[2].kind == "split"
    assert "split decision" in row[2].decided_by and row[2].probability >= 0.9
    never = SplitDecision((1.0, 0, 0, 0, 0, 0), -100.0, 0.9, "a test: never")
    row = entries("we did noteven try")
    assert split_run_together([row], lex, rules, [True], never) == 0 and not row[2].changed
    assert row[2].decided_by == "split decision: kept; not even 0.00 < 0.9"  # --json says why


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
                 "she is back to her old self", "it's raining in my home town today"):
        assert speller.correct(text).corrected == text
    # --json says why a pair read was kept apart, on its first word
    every = speller.correct("he gave every one of them a book").words[2]
    assert every.decided_by.startswith("join: kept; everyone: the bigram counts favour the pair (-")


@pytest.mark.real
def test_joins_can_be_left_out(speller):
    kinds = tuple(k for k in speller.settings.changes if k != MERGE)
    plain = Speller(speller.lexicon, speller.encoder, speller.scorer, speller.settings.__class__(changes=kinds),
                    featurizer=speller.featurizer)
    assert plain.correct("my girl friend is here").corrected == "my girl friend is here"


def test_the_shipped_decision_has_a_source_and_cuts_listed_words_at_a_small_gap():
    decision = SplitDecision.load("en")
    assert decision is not None and "run_together.py" in decision.source
    speller = Speller.load("en")
    lex, rules = speller.lexicon, RULES["en"]
    # "every time" is written apart only 0.17 Zipf more often than together: the list decides it
    found = split_candidates([entries("i cry everytime")], lex, rules, [True], NgramContext.load("en"))
    assert [(i, cut) for _, i, cut, _ in found] == [(2, "every time")]
    assert decision.probability(found[0][3]) >= decision.threshold


@pytest.mark.real
def test_the_default_cuts_words_the_list_names_and_keeps_the_rest(speller):
    found = speller.correct("Atleast we tried, and everytime i see you i smile aswell")
    assert found.corrected == "At least we tried, and every time i see you i smile as well"
    assert {w.kind for w in found.words if w.changed} == {"split"}
    assert all("known misspelling" in w.decided_by for w in found.words if w.changed)


@pytest.mark.real
def test_the_default_cuts_common_run_together_words_and_leaves_names_and_tags(speller):
    found = speller.correct("Theguys are here")  # unlisted: 3.3 Zipf more often apart, a capital
    assert found.corrected == "The guys are here" and "split decision" in found.words[0].decided_by
    # a pronoun among the parts, which belong together far more than chance: 0.96 (names seldom hold one)
    assert speller.correct("you are so good keepit up").corrected == "you are so good keep it up"
    for text in ("we tried the tunein app", "can i get a shoutout", "Funtime Foxy is back", "give a pushback"):
        assert speller.correct(text).corrected == text
    for text in ("tune in to the radio", "the realestate market", "I love my team", "no one came"):
        assert speller.correct(text).corrected == text
    kinds = tuple(k for k in speller.settings.changes if k != "split")
    plain = Speller(speller.lexicon, speller.encoder, speller.scorer, speller.settings.__class__(changes=kinds),
                    featurizer=speller.featurizer)
    assert plain.correct("atleast we tried").corrected == "atleast we tried"
