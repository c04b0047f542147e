"""Real-word errors: confusion sets read against the sentence's bigram counts."""

from __future__ import annotations

import dataclasses
import math

import pytest

from charwise.errors import ConfigError
from charwise.speller import Speller, SpellerSettings
from charwise.speller.context import NgramContext
from charwise.speller.corrections import WordCorrection
from charwise.speller.lexicon import DICTIONARY, LexiconEntry
from charwise.speller.real_words import (
    CONFUSION_SETS,
    RealWordChecker,
    RealWordSettings,
    adjacent_words,
    check_sentences,
)
from conftest import tiny_lexicon


@pytest.fixture(scope="module")
def checker() -> RealWordChecker:
    return RealWordChecker.load("en")


def test_a_member_that_fits_far_better_replaces_the_written_word(checker):
    assert checker.check("we went to there house".split(), 3) == "their"
    assert checker.check("i dont know weather to go".split(), 3) == "whether"
    assert checker.check("it is quiet good".split(), 2) == "quite"


def test_a_word_that_fits_is_left_alone(checker):
    assert checker.check("and there we left".split(), 1) is None
    assert checker.check("we went to their house".split(), 3) is None
    assert checker.check("the cat sat".split(), 1) is None  # not in any set


def test_one_side_of_context_is_not_enough(checker):
    # "know whether" is far commoner than "know weather", but the full stop after it says nothing
    assert checker.check("i dont know weather to go".split(), 3) == "whether"
    assert checker.check("i dont know weather .".split(), 3) is None
    # a comma parts the word from its neighbours
    assert checker.check("we went to there house".split(), 3) == "their"
    assert checker.gain("we went to , there house".split(), 4) is None
    assert checker.check(["there"], 0) is None
    assert checker.gain(["there", "."], 0) is None


def test_each_side_must_favour_the_other_member(checker):
    # "every week" is far commoner than "every weak", and on the whole "week" fits far better, but
    # "weak or" is commoner than "week or": one side against it, the word stays
    base_left, base_right, _ = checker.fit("weak", "every", "or")
    left, right, seen = checker.fit("week", "every", "or")
    assert seen and left + right - base_left - base_right > checker.settings.margin and right < base_right
    assert checker.gain("once every weak or so".split(), 2) is None


def test_the_margin_decides(checker):
    words = "we went to there house".split()
    other, gain = checker.gain(words, 3)
    assert other == "their" and gain > 0
    assert checker.check(words, 3, margin=gain + 0.01) is None
    assert checker.check(words, 3, margin=gain - 0.01) == "their"


def test_sets_are_symmetric_and_exclude_apostrophes(checker):
    for members in CONFUSION_SETS["en"]:
        assert all("'" not in m for m in members)
        for word in members:
            assert set(members) - {word} <= set(checker.alternatives[word])


def test_the_neighbours_are_the_words_next_to_it_as_corrected_so_far():
    assert adjacent_words(["i", "b", "late"], 1) == ("i", "late")
    # a token already corrected into several words gives its nearest word (gonna b late: `to`, not nothing)
    assert adjacent_words(["going to", "b", "as soon as possible"], 1) == ("to", "as")
    assert adjacent_words([",", "b", "!"], 1) == (None, None)  # punctuation parts a word from its neighbours
    assert adjacent_words(["b"], 0) == (None, None)


def test_bad_settings_and_languages_are_one_line_errors():
    with pytest.raises(ConfigError, match="margin must be a number >= 0"):
        RealWordSettings(margin=-1)
    with pytest.raises(ConfigError, match="no confusion sets for 'de'"):
        RealWordChecker.load("de")
    with pytest.raises(ConfigError, match="unknown change kind 'real_words'"):
        SpellerSettings(changes=("real_words",))
    with pytest.raises(ConfigError, match="must be a collection of change kinds"):
        SpellerSettings(changes="real_word")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="margin must be a number"):
        SpellerSettings(real_word_margin=-0.5)


def test_a_custom_context_and_sets():
    context = NgramContext.from_sentences("en", [["a", "red", "car"]] * 50 + [["a", "read", "book"]] * 50)
    custom = RealWordChecker(context, [("red", "read")], RealWordSettings(margin=1.0))  # "read car": backed off
    assert custom.check(["a", "read", "car"], 1) == "red"
    assert custom.check(["a", "red", "car"], 1) is None


@pytest.fixture
def speller(tiny_speller) -> Speller:
    """The tiny speller with the words of these sentences in its lexicon."""
    words = ("we", "went", "to", "there", "their", "house", "it", "was", "quiet", "quite", "good", "said", "he")
    known = {w: LexiconEntry(5.0, DICTIONARY) for w in words}
    return Speller(tiny_lexicon(known), tiny_speller.encoder, tiny_speller.scorer, tiny_speller.settings)


# quiet/quite: a set the fitted confusion model does not decide, so the bigram rule does
def test_the_speller_changes_real_words_with_offsets_and_marks_them(speller):
    text = "It was quiet good, said he."
    result = speller.correct(text)
    changed = [w for w in result.words if w.changed]
    assert [(w.word, w.correction, w.real_word, w.kind) for w in changed] == [("quiet", "quite", True, "real_word")]
    assert 0.99 <= changed[0].probability < 1  # the context's odds of 10^2 or more, as a probability
    assert text[changed[0].start : changed[0].end] == "quiet"
    assert result.corrected == "It was quite good, said he."
    assert [w["word"] for w in result.to_dict()["words"] if w["real_word"]] == ["quiet"]


def test_real_words_can_be_turned_off(speller):
    off = Speller(speller.lexicon, speller.encoder, speller.scorer,
                  SpellerSettings(threshold=0.5, neighbours=3, changes=("spelling", "accent")))
    assert off.real_word_checker is None
    assert off.correct("It was quiet good.").corrected == "It was quiet good."


class LikesTheir:
    """A context model that finds a sentence 10 nats likelier with ``liked`` in it (to test the decisions)."""

    def __init__(self, liked: str = "their"):
        self.liked = liked

    def score(self, sentences, targets, candidates):
        return [[-50.0 + 10.0 * (w.lower() == self.liked) for w in words] for words in candidates]

    def has_context(self, words, index):
        return True

    def rerank(self, sentences, corrected):
        return 0


def test_the_speller_reads_its_real_word_margins_with_and_without_a_context_model(speller):
    text = "It was quiet good, said he."
    settings = speller.settings
    for margin, changed in ((2.0, True), (50.0, False)):  # bigrams: "quite good" is 10^4.6 times likelier
        speller.settings = dataclasses.replace(settings, real_word_margin=margin)
        assert (speller.correct(text).corrected != text) is changed, margin
    speller.context_model = LikesTheir("quite")  # the model judges instead: its margin, in nats, decides
    for lm_margin, changed in ((5.0, True), (15.0, False)):
        speller.settings = dataclasses.replace(settings, real_word_margin=50.0, real_word_lm_margin=lm_margin)
        result = speller.correct(text)
        assert (result.corrected == "It was quite good, said he.") is changed, lm_margin
    assert speller.correct(text).words[2].probability == 0.0  # unchanged: no probability of a change
    speller.settings = dataclasses.replace(settings, real_word_lm_margin=5.0)
    (changed,) = [w for w in speller.correct(text).words if w.changed]
    assert changed.probability == pytest.approx(1 / (1 + math.exp(-10.0)))  # the model's odds


def test_check_sentences_reads_the_checkers_own_margins(checker):
    words = "we went to there house".split()
    _, gain = checker.gain(words, 3)
    for margin, expected in ((gain - 0.01, "their"), (gain + 0.01, "there")):
        custom = RealWordChecker(checker.context, CONFUSION_SETS["en"], RealWordSettings(margin=margin))
        rows = [[WordCorrection(w, w, False) for w in words]]
        check_sentences(custom, rows, ("real_word",))  # no margin given: the checker's settings
        assert rows[0][3].correction == expected
    for lm_margin, expected in ((9.0, "their"), (11.0, "there")):
        custom = RealWordChecker(checker.context, CONFUSION_SETS["en"], RealWordSettings(lm_margin=lm_margin))
        rows = [[WordCorrection(w, w, False) for w in words]]
        check_sentences(custom, rows, ("real_word",), lm=LikesTheir())
        assert rows[0][3].correction == expected
    with pytest.raises(ConfigError, match="lm_margin must be a number >= 0"):
        SpellerSettings(real_word_lm_margin=-1.0)


def test_a_capitalised_word_keeps_its_capital_and_upper_case_is_left(speller):
    assert speller.correct("went to There house").corrected == "went to Their house"
    assert speller.correct("went to THERE house").corrected == "went to THERE house"
