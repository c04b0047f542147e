"""Split words joined (``some one`` -> ``someone``, kind ``merge``): candidates, the bigram margin,
the join in the speller's output and in the corrected text.

Unit tests run a tiny random Llama on SmolLM2's real byte-BPE tokenizer (``tiny_llama_teacher``) at
margins that make its random scores irrelevant; the tests with SmolLM2 itself are in
``test_neural_context.py``, which loads it once for every judgement it makes."""

from __future__ import annotations

import math

import pytest

from charwise.speller import Speller
from charwise.speller.context import NgramContext
from charwise.speller.corrections import CHANGE_KINDS, CorrectedText, WordCorrection, word_spans
from charwise.speller.lexicon import DICTIONARY, LexiconEntry
from charwise.speller.merges import MERGE, bigram_margin, join_split_words, merge_targets
from charwise.speller.neural import LMReranker, RerankSettings
from charwise.words import split_words
from conftest import tiny_lexicon

WORDS = ("i", "have", "a", "head", "ache", "headache", "today", "it", "may", "be", "maybe", "true", "some", "one",
         "someone", "thing", "something", "tho", "ugh", "though")


@pytest.fixture(scope="module")
def lexicon():
    return tiny_lexicon({w: LexiconEntry(4.0, DICTIONARY) for w in WORDS})


@pytest.fixture(scope="module")
def counts() -> NgramContext:
    return NgramContext.load("en")


def entries(text: str) -> tuple[list[str], list[WordCorrection]]:
    words = list(split_words(text).words)
    out = [WordCorrection(w, w, False) for w in words]
    for entry, (start, end) in zip(out, word_spans(text, words)):
        entry.start, entry.end = start, end
    return words, out


def test_merge_is_a_change_kind_everywhere():
    from charwise.cli.correct import CHANGE_KINDS as CLI_KINDS

    assert MERGE in CHANGE_KINDS and CLI_KINDS == CHANGE_KINDS


def test_candidates_are_pairs_of_plain_valid_words_whose_join_is_valid(lexicon):
    _, row = entries("I have a head ache today")
    assert merge_targets(lexicon, row) == [3]  # "a head" and "ache today" join into no word
    _, row = entries("Head ache today")
    assert merge_targets(lexicon, row, start=True) == [0]  # a capital at a sentence start is no name
    assert merge_targets(lexicon, row, start=False) == []  # elsewhere it may be one
    _, row = entries("i have a head ache")
    row[3].protected = True  # inside a protected span: never joined
    assert merge_targets(lexicon, row) == []
    _, row = entries("i have a head ache")
    row[4].correction, row[4].kind = "acne", "spelling"  # already changed: left as the speller made it
    assert merge_targets(lexicon, row) == []
    _, row = entries("some one tho ugh")
    assert merge_targets(lexicon, row) == [0, 2]
    assert merge_targets(lexicon, row, informal=frozenset({"tho"})) == [0]  # a slang spelling: no split
    national = tiny_lexicon({w: LexiconEntry(4.0, DICTIONARY) for w in ("my", "home", "town", "hometown", "per",
                                                                        "cent", "percent")})
    for text in ("my home town", "ten per cent"):  # one nation's standard spelling of the other's word
        assert merge_targets(national, entries(text)[1]) == []


def test_the_bigram_margin_tells_a_split_word_from_two_words(counts):
    assert bigram_margin(counts, "i have a head ache today".split(), 3) > 0
    assert bigram_margin(counts, "it may be true".split(), 1) < 0  # "may be" is two words far more often
    # a pair the counts lack is scored at the most it can have been counted, not backed off to nothing
    assert counts.pair_cut == pytest.approx(6.4e6)
    assert "head ache" not in counts.bigrams


def test_a_join_keeps_offsets_and_the_rest_of_the_text():
    text = "I have a  head\tache, today."
    words = list(split_words(text).words)
    row = [WordCorrection(w, w, False) for w in words]
    for entry, (start, end) in zip(row, word_spans(text, words)):
        entry.start, entry.end = start, end
    head, tail = row[words.index("head")], row[words.index("ache")]
    head.correction, head.kind = "headache", MERGE
    tail.correction, tail.kind = "", MERGE
    result = CorrectedText(text, row)
    assert result.corrected == "I have a  headache, today."  # the space inside the pair goes, the one before stays
    assert result.marked() == "I have a  [head\tache -> headache], today."
    assert tail.joined_away and not head.joined_away
    assert [w["word"] for w in result.to_dict()["words"] if w["kind"] == MERGE] == ["head", "ache"]


@pytest.fixture(scope="module")
def reranker(tiny_llama_teacher) -> LMReranker:
    return LMReranker.from_teacher(tiny_llama_teacher, RerankSettings(batch_size=3))


def test_both_readers_must_agree(lexicon, reranker):
    sentences = ["i have a head ache today", "it may be true"]

    def joined(margin: float) -> list[str]:
        rows = [entries(s)[1] for s in sentences]
        done = join_split_words(rows, lexicon, reranker, [True, True], margin=margin)
        texts = [CorrectedText(s, row).corrected for s, row in zip(sentences, rows)]
        assert done == sum(e.kind == MERGE for row in rows for e in row) // 2
        return texts

    # any gain of the (random) model: the bigrams decide, and they join only "head ache"
    assert joined(-math.inf) == ["i have a headache today", "it may be true"]
    assert joined(math.inf) == sentences  # the model never agrees: nothing is joined


def test_overlapping_pairs_join_once(reranker):
    # counts in which both "someone" and "onething" are words and neither pair is: both pairs qualify
    counts = NgramContext.from_sentences("en", [["someone", "thing"]] * 50 + [["some", "onething"]] * 50
                                         + [["some"], ["one"], ["thing"]] * 5)
    assert all(bigram_margin(counts, ["some", "one", "thing"], i) > 0 for i in (0, 1))
    known = tiny_lexicon({w: LexiconEntry(4.0, DICTIONARY) for w in ("some", "one", "thing", "someone", "onething")})
    text = "some one thing"
    row = entries(text)[1]
    assert join_split_words([row], known, reranker, [True], margin=-math.inf, counts=counts) == 1
    assert CorrectedText(text, row).corrected == "someone thing"  # the first pair takes "one"
    assert [e.kind for e in row] == [MERGE, MERGE, ""]


def test_without_a_language_model_the_web_counts_join(tiny_speller):
    speller = Speller(tiny_lexicon({w: LexiconEntry(4.0, DICTIONARY) for w in WORDS}), tiny_speller.encoder,
                      tiny_speller.scorer, tiny_speller.settings.__class__(changes=CHANGE_KINDS))
    assert speller.context_model is None
    # "headache" is written far more often than "head ache" (charwise.speller.run_together); "may be" is common
    assert speller.correct("i have a head ache today").corrected == "i have a headache today"
    assert speller.correct("it may be true").corrected == "it may be true"
    no_merge = tuple(kind for kind in CHANGE_KINDS if kind != MERGE)
    kept = Speller(speller.lexicon, speller.encoder, speller.scorer, speller.settings.__class__(changes=no_merge))
    assert kept.correct("i have a head ache today").corrected == "i have a head ache today"
