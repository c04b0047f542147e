"""charwise.speller.slips and charwise.speller.apostrophes: an apostrophe typed as another mark (``don´t``,
``I`m``, ``it,s``) is put back and a word typed twice (``the the``) typed once; lists, code, quotes, Spanish
accents typed apart, repetitions on purpose and protected text are left alone."""

from __future__ import annotations

import pytest

from charwise.speller import Speller, SpellerSettings
from charwise.speller.apostrophes import contraction, mark_means_apostrophe
from charwise.speller.lexicon import DICTIONARY, Lexicon, LexiconEntry
from charwise.speller.slips import LEFT_DOUBLED, doubled_at_chance

KNOWN = ["don't", "it's", "i'm", "we're", "he'll", "mama's", "dog's", "ma's", "a's", "x'd", "i'd"]


@pytest.fixture
def lexicon() -> Lexicon:
    return Lexicon("en", {w: LexiconEntry(5.0, DICTIONARY) for w in KNOWN}, {"test": "tiny"})


def test_a_contraction_is_a_word_and_the_part_after_a_contractions_apostrophe():
    assert contraction("don", "t") == "don't" and contraction("we", "re") == "we're"
    assert contraction("it", "s") == "it's"
    assert contraction("do", "t") is None  # n't only
    assert contraction("rock", "n") is None and contraction("a", "b") is None and contraction("5", "s") is None


def test_which_marks_stand_for_an_apostrophe(lexicon):
    for first, mark, second in [("don", "\u00b4", "t"), ("I", "`", "m"), ("it", ",", "s"), ("don", '"', "t"),
                                ("We", ",", "re"), ("mama", "`", "s"), ("he", "\u2032", "ll"), ("i", ",", "d")]:
        assert mark_means_apostrophe(first, mark, second, lexicon), (first, mark, second)
    for first, mark, second in [
        ("dog", ",", "s"),  # a comma before s: a possessive is never read (lists: dogs,cats)
        ("a", ",", "s"), ("x", "\"", "d"),  # one letter other than i: lists and code
        ("ma", "\u00b4", "s"),  # Spanish más, its accent typed apart
        ("cat", "\u00b4", "s"),  # a possessive the lexicon does not accept
        ("don", ".", "t"), ("don", "&", "t"),  # marks that stand for other things
    ]:
        assert not mark_means_apostrophe(first, mark, second, lexicon), (first, mark, second)


@pytest.fixture(scope="module")
def speller() -> Speller:
    return Speller.load("en")


@pytest.mark.real
def test_an_apostrophe_typed_as_another_mark_is_put_back(speller):
    for written, meant in [("I don\u00b4t know", "I don't know"), ("I`m so tired", "I'm so tired"),
                           ("it,s late", "it's late"), ('I don"t know', "I don't know"), ("we,re done", "we're done"),
                           ("DON\u00b4T GO", "DON'T GO"), ("Yo mama`s so fat", "Yo mama's so fat"),
                           ("they`re here, he\u00b4ll see", "they're here, he'll see")]:
        assert speller.correct(written).corrected == meant, written
    result = speller.correct("I don\u00b4t know")
    (changed,) = [w for w in result.words if w.changed]
    assert (changed.word, changed.correction, changed.kind) == ("\u00b4", "'", "spelling")
    assert "apostrophe" in changed.decided_by and result.text[changed.start:changed.end] == "\u00b4"
    assert result.marked() == "I don[\u00b4 -> ']t know"


@pytest.mark.real
def test_marks_that_are_not_apostrophes_are_left_alone(speller):
    for text in ["a,b and x,y", "the dog,s bone", "no lo se, ma\u00b4s o menos", "rock \u00b4n\u00b4 roll",
                 'the 5"x7" frame', "I don \u00b4t know", "run `ls` now", "see http://x.com/don\u00b4t",
                 "@don`t_stop", "1,000 and 2`s"]:
        assert speller.correct(text).corrected == text, text
    assert Speller.load("es").correct("no lo se, ma\u00b4s o menos").corrected == "no lo sé, ma\u00b4s o menos"


@pytest.mark.real
def test_the_apostrophe_is_a_spelling_change_and_follows_the_changes_asked_for():
    only_normalisation = Speller.load("en", settings=SpellerSettings(changes=("normalisation",)))
    assert only_normalisation.correct("I don\u00b4t know").corrected == "I don\u00b4t know"


@pytest.mark.real
def test_repair_in_front_of_a_model_puts_the_apostrophe_back_too():
    from charwise.speller.repair import repair

    (fixed,) = repair(["I don\u00b4t know, it,s late"])
    assert fixed.corrected == "I don't know, it's late"
    assert [(w.word, w.correction, w.start, w.end) for w in fixed.words if w.changed] == [
        ("\u00b4", "'", 5, 6), (",", "'", 16, 17)]


@pytest.mark.real
def test_edited_english_writes_function_words_twice_at_chance_and_repeats_others_on_purpose():
    for word in ["the", "to", "and", "of", "your"]:
        assert doubled_at_chance(word, "en"), word
    for word in ["that", "had", "very", "really", "no", "bye", "blah", "please", "so"]:
        assert not doubled_at_chance(word, "en"), word
    assert not doubled_at_chance("the", "es")  # the Spanish counts are the Bible's: too few to say
    assert {"in", "for"} <= set(LEFT_DOUBLED)


@pytest.mark.real
def test_a_word_typed_twice_is_typed_once(speller):
    for written, meant in [("at the the right time", "at the right time"),
                           ("thanks to to the Shox", "thanks to the Shox"),
                           ("evolving and and as a result", "evolving and as a result"), ("THE THE END", "THE END"),
                           ("The the best day", "The best day"), ("use of of Python", "use of Python")]:
        assert speller.correct(written).corrected == meant, written
    result = speller.correct("at the the right time")
    (gone,) = [w for w in result.words if w.changed]
    assert (gone.word, gone.correction, gone.kind, gone.joined_away) == ("the", "", "spelling", True)
    assert result.marked() == "at [the the -> the] right time" and "twice" in gone.decided_by
    for text in ["very very funny", "please please come", "that that is fine", "he had had enough",
                 "the state he was in in this world", "looking for for 28 bucks", "only this This make me soft",
                 "tied and and and more", "go to\nto the shop", "see the, the end", "@the the_end"]:
        assert speller.correct(text).corrected == text, text


@pytest.mark.real
def test_a_before_a_vowel_sound_becomes_an(speller):
    for written, meant in [("I ate a apple in a hour", "I ate an apple in an hour"),
                           ("A apple a day", "An apple a day"), ("what a awesome day", "what an awesome day"),
                           ("a FBI agent and a MBA", "an FBI agent and an MBA"),
                           ("he is a honest man", "he is an honest man")]:
        assert speller.correct(written).corrected == meant, written
    (changed,) = [w for w in speller.correct("I ate a apple").words if w.changed]
    assert (changed.word, changed.correction, changed.kind) == ("a", "an", "real_word")
    assert "vowel" in changed.decided_by
    for text in ["a unique one", "a one-time thing", "a European trip", "a url", "Plan A is fine", "grade A eggs",
                 "a and b", "option a or b", "voy a ella", "him a eat food", "a h", "great video a always",
                 "a house", "an apple"]:
        assert speller.correct(text).corrected == text, text
    assert Speller.load("en", settings=SpellerSettings(changes=("spelling",))).correct("a apple").corrected == "a apple"
