"""What the scorer learns from: real misspellings in their sentences (UD EWT's annotated typos) are
misspellings, and no word a typo annotation or the list of known misspellings names is taught as a
valid word the lexicon lacks."""

from __future__ import annotations

import pytest

import charwise.training.scorer as training
from charwise.training.scorer import ScorerTraining, annotated_typo_pairs, annotated_typos, valid_unknown_words
from conftest import tiny_lexicon


@pytest.fixture(scope="module")
def typos() -> list[tuple[list[str], int, str]]:
    return annotated_typos("en")


def test_annotated_typos_are_ewts_marked_words_with_the_form_meant(typos):
    meant = {(words[i].lower(), form) for words, i, form in typos}
    assert ("definately", "definitely") in meant and ("recieved", "received") in meant
    # the form meant differs from the written one, and is one word of letters
    assert all(words[i].lower() != form and form.isalpha() and form.islower() for words, i, form in typos)
    assert 500 < len(typos) < 600  # 543 of the 932 marked words of EWT train are meant as one word of letters
    assert annotated_typos("es") == []  # no annotated Spanish text


def test_annotated_typo_pairs_are_those_the_speller_looks_at_and_can_fix(monkeypatch):
    sentence = ["i", "definately", "liked", "the", "hosue"]
    monkeypatch.setattr(training, "annotated_typos", lambda language: [
        (sentence, 1, "definitely"), (sentence, 4, "house"), (["a", "TV"], 1, "tv"), (["teh"], 0, "the")])
    pairs = annotated_typo_pairs(tiny_lexicon(), ScorerTraining(words=1, negatives=1))
    # read between their neighbours; `TV` (two letters) is left out
    assert pairs == [("definately", "definitely", ("i", "liked")), ("hosue", "house", ("the", None)),
                     ("teh", "the", (None, None))]
    assert annotated_typo_pairs(tiny_lexicon(), ScorerTraining(words=1, negatives=1, sentence_words=0)) == []
    monkeypatch.setattr(training, "annotated_typos", lambda language: [(sentence, 4, "hose")])
    assert annotated_typo_pairs(tiny_lexicon(), ScorerTraining(words=1, negatives=1)) == []  # `hose`: no lexicon word


def test_misspellings_are_not_taught_as_valid_words_the_lexicon_lacks(monkeypatch):
    monkeypatch.setattr(training, "training_sentences", lambda language: [
        ["we", "definately", "met", "blorpington", "and", "becuse", "of", "hosue", "rules"]])
    monkeypatch.setattr(training, "annotated_typos", lambda language: [(["a", "hosue"], 1, "house")])
    words = {w for w, _, _ in valid_unknown_words(tiny_lexicon(), ScorerTraining(words=1, negatives=1))}
    # `definately` and `becuse` are listed misspellings, `hosue` an annotated typo; the name stays
    assert {"blorpington", "met", "rules"} <= words
    assert not words & {"definately", "becuse", "hosue"}
