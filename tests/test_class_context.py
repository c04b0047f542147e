"""The neighbours' classes as evidence (charwise.speller.class_context): counts, the fit, the treebank reader."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from charwise.cache import StringTable
from charwise.speller.class_context import BOUNDARY, CLASSES, ClassContext, class_gains, class_of, treebank_sentences
from charwise.speller.word_classes import WordClasses

CLASSES_OF = WordClasses.from_counts({"you": Counter(PRON=3), "they": Counter(PRON=2), "are": Counter(AUX=4),
                                      "happy": Counter(ADJ=2), "sad": Counter(ADJ=1), "the": Counter(DET=3),
                                      "dog": Counter(NOUN=2), "ran": Counter(VERB=1)})
SENTENCES = [["you", "are", "happy"], ["they", "are", "sad", "."], ["the", "dog", "ran"], ["you", "ran", "."]]


def context() -> ClassContext:
    arrays = ClassContext.count(SENTENCES, CLASSES_OF)
    return ClassContext(CLASSES_OF, StringTable(arrays["blob"], arrays["starts"], arrays["slots"]),
                        arrays["before"], arrays["after"])


def test_counts_read_neighbours_through_their_classes() -> None:
    found = context()
    are = found.words.find("are")
    before = dict(zip(CLASSES, found.before[are].tolist()))
    after = dict(zip(CLASSES, found.after[are].tolist()))
    assert before["PRON"] == 2 and sum(before.values()) == 2
    assert after["ADJ"] == 2 and sum(after.values()) == 2
    ran = found.words.find("ran")
    assert found.after[ran, CLASSES.index(BOUNDARY)] == 2  # the sentence's end and a full stop: one class


def test_fit_prefers_the_classes_a_word_is_seen_beside() -> None:
    found = context()
    assert found.fit("are", "you", "happy") > 0 > found.fit("are", None, None)
    assert found.fit("are", "you", "sad") == pytest.approx(found.fit("are", "they", "happy"))  # classes, not words
    assert found.fit("zzz", "you", "happy") == 0.0  # a word the corpus lacks says nothing
    # several words: the first one's left neighbour and the last one's right
    assert found.fit("you are", None, "happy") == pytest.approx(
        found._pmi(found.before, "you", BOUNDARY) + found._pmi(found.after, "are", "ADJ"))


def test_neighbours_that_are_no_words_are_one_class() -> None:
    assert class_of(CLASSES_OF, None) == class_of(CLASSES_OF, ",") == class_of(CLASSES_OF, "42") == BOUNDARY
    assert class_of(CLASSES_OF, "happy") == "ADJ"


def test_shapes_are_checked() -> None:
    arrays = ClassContext.count(SENTENCES, CLASSES_OF)
    words = StringTable(arrays["blob"], arrays["starts"], arrays["slots"])
    with pytest.raises(ValueError, match="class counts"):
        ClassContext(CLASSES_OF, words, arrays["before"][:, :3], arrays["after"])
    with pytest.raises(ValueError, match="class counts"):
        ClassContext(CLASSES_OF, words, np.zeros((1, len(CLASSES)), np.int32), np.zeros((1, len(CLASSES)), np.int32))


def test_treebank_sentences_read_words_as_written(tmp_path) -> None:
    path = tmp_path / "t.conllu"
    path.write_text("# text = I don't know.\n1\tI\t_\n2-3\tdon't\t_\n2\tdo\t_\n3\tn't\t_\n4\tknow\t_\n4.1\tgone\t_\n"
                    "5\t.\t_\n\n# text = Yes\n1\tYes\t_\n", encoding="utf-8")
    assert treebank_sentences(path) == [["i", "don't", "know", "."], ["yes"]]


@pytest.mark.real
def test_the_english_treebank_tells_are_from_a_letter() -> None:
    shipped = ClassContext.load("en")
    assert shipped is not None and ClassContext.load("es") is None
    assert shipped.fit("are", "you", "happy") > 1.0 > -1.0 > shipped.fit("are", "catz", None)
    assert shipped.fit("with", "stressed", "my") > 0 > shipped.fit("with", None, None)
    assert ClassContext.load("en") is shipped  # read once per process


@pytest.mark.real
def test_the_gain_is_the_candidates_fit_over_the_written_words_and_a_change_says_it():
    from charwise.speller import Speller

    shipped = ClassContext.load("en")
    assert class_gains("en", ["are"], "r", "you", "happy") == {"are": pytest.approx(
        shipped.fit("are", "you", "happy") - shipped.fit("r", "you", "happy"))}
    assert class_gains("es", ["que"], "q", None, "haces") is None  # no tagged Spanish corpus
    changed = [w for w in Speller.load("en").correct("you guys r the best").words if w.changed]
    assert [w.correction for w in changed] == ["are"] and "neighbours' word classes +" in changed[0].decided_by
