"""Real-word errors: confusion sets read against the sentence's bigram counts."""

from __future__ import annotations

import pytest

from charwise.errors import ConfigError
from charwise.speller import Speller, SpellerSettings
from charwise.speller.context import NgramContext
from charwise.speller.lexicon import DICTIONARY, LexiconEntry
from charwise.speller.real_words import CONFUSION_SETS, RealWordChecker, RealWordSettings
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
    # "off" ends the clause: its right neighbour is the full stop
    assert checker.check("call the whole thing off .".split(), 4) is None
    # a comma parts the word from its neighbours
    assert checker.gain("we went to , there house".split(), 4) is None
    assert checker.check(["there"], 0) is None
    assert checker.gain(["there", "."], 0) is None


def test_each_side_must_favour_the_other_member(checker):
    # "too" right of "kids" is rarer than "to", but "too many" far commoner than "to many"
    assert checker.gain("kids too many knives".split(), 1) is None


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
    known = {w: LexiconEntry(5.0, DICTIONARY) for w in ("we", "went", "to", "there", "their", "house", "said", "he")}
    return Speller(tiny_lexicon(known), tiny_speller.encoder, tiny_speller.scorer, tiny_speller.settings)


def test_the_speller_changes_real_words_with_offsets_and_marks_them(speller):
    text = "We went to there house, said he."
    result = speller.correct(text)
    changed = [w for w in result.words if w.changed]
    assert [(w.word, w.correction, w.real_word, w.kind) for w in changed] == [("there", "their", True, "real_word")]
    assert 0.99 <= changed[0].probability < 1  # the context's odds of 10^2 or more, as a probability
    assert text[changed[0].start : changed[0].end] == "there"
    assert result.corrected == "We went to their house, said he."
    assert [w["word"] for w in result.to_dict()["words"] if w["real_word"]] == ["there"]


def test_real_words_can_be_turned_off(speller):
    off = Speller(speller.lexicon, speller.encoder, speller.scorer,
                  SpellerSettings(threshold=0.5, neighbours=3, changes=("spelling", "accent")))
    assert off.real_word_checker is None
    assert off.correct("We went to there house.").corrected == "We went to there house."


def test_a_capitalised_word_keeps_its_capital_and_upper_case_is_left(speller):
    assert speller.correct("went to There house").corrected == "went to Their house"
    assert speller.correct("went to THERE house").corrected == "went to THERE house"
