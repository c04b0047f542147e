"""Sentences in another language are left whole by the English speller; mixed and slangy English ones
are not (charwise.speller.foreign)."""

from __future__ import annotations

import unicodedata

import pytest
from wordfreq import zipf_frequency

from charwise.speller import Speller
from charwise.speller.foreign import (
    FOREIGN_SHARE,
    FOREIGN_ZIPF,
    MIN_FOREIGN_WORDS,
    OTHER_LANGUAGES,
    ForeignSentences,
    foreign_words,
)
from conftest import tiny_lexicon

GERMAN = "Im Video kann man sehen , dass der nicht nur in die Menge fährt , sondern auch nochmal zurücksetzt"
FRENCH = "Ca serait meme plutot le contraire , sans ce feu , il n y aurait eu probablement pas de survivant"
PORTUGUESE = "vc me ama , eu te aviso qnd eu for fzr pra vc entrar"
SHOUTED = "MADRID E SUA FILHADAPUTAGEM DE TOMAR GOL NO FINAL"  # in capitals: read in lower case
ENGLISH = [
    "lol im gonna see u tmrw haha",  # the web's slang is frequent in every language's lists
    "I recieved teh pakage from Müller in Düsseldorf",  # names belong to every language
    "dan buat yang lolos , congrats ! enjoy the feedback of your hardwork , yey",  # mixed: the English half stays
    "I like this sentence",
    "THE SERVISE WAS SLOWW AND THE FOOD COLD OMG",
    "",
]


@pytest.fixture
def foreign() -> ForeignSentences:
    return ForeignSentences(tiny_lexicon(), OTHER_LANGUAGES["en"])


@pytest.mark.parametrize("text", [GERMAN, FRENCH, PORTUGUESE, SHOUTED])
def test_sentences_in_another_language_are_foreign(foreign, text):
    assert foreign(text.split())


@pytest.mark.parametrize("text", ENGLISH)
def test_english_slang_names_and_mixed_sentences_are_not(foreign, text):
    assert not foreign(text.split())


def test_a_few_foreign_words_are_not_a_foreign_sentence(foreign):
    words = "we had kaffee und kuchen at the cafe with my friends yesterday".split()
    share = sum(foreign._foreign(w) for w in words) / len(words)
    assert 0 < share < FOREIGN_SHARE  # some words are German, most are not
    assert not foreign(words)
    assert not foreign(["dass", "nicht"])  # fewer than MIN_FOREIGN_WORDS words
    assert MIN_FOREIGN_WORDS > 2


def test_spanish_has_no_check():
    assert ForeignSentences.for_language(tiny_lexicon()) is not None
    spanish = tiny_lexicon()
    spanish.language = "es"
    assert ForeignSentences.for_language(spanish) is None


@pytest.mark.real
def test_real_speller_leaves_a_foreign_sentence_whole():
    speller = Speller.load("en")
    for text in (GERMAN, FRENCH, PORTUGUESE, SHOUTED):
        result = speller.correct(text)
        assert result.corrected == text and all(w.protected for w in result.words)
    assert speller.correct("I recieved teh pakage from Müller").corrected == "I received the package from Müller"


def test_the_cached_table_gives_wordfreqs_own_frequencies():
    languages = OTHER_LANGUAGES["en"]
    table, zipf_centi = foreign_words(languages)
    for word in ("dass", "nochmal", "straße", "aujourd", "qnd", "obrigado", "sehen", "the", "lol", "xqzt"):
        expected = max(zipf_frequency(word, language, wordlist="small") for language in languages)
        i = table.find(unicodedata.normalize("NFC", word.casefold()))  # wordfreq's key: straße -> strasse
        found = zipf_centi.item(i) / 100 if i >= 0 else 0.0
        assert found == (expected if expected >= FOREIGN_ZIPF else 0.0), word
    assert foreign_words(languages)[0].find("dass") >= 0  # read back from the cache
