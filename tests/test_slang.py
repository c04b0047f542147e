"""The slang dictionary (noslang.com's, as the ekphrasis package ships it, read at run time): which
entries the normaliser may propose, that it is one candidate source among the others and never
decides alone, and what the shipped English normaliser (marked ``real``) makes of chat forms the
annotated tweets never showed it, on sentences written for these tests."""

from __future__ import annotations

import sys

import pytest

from charwise.errors import ConfigError
from charwise.speller import Speller
from charwise.speller.context import NgramContext
from charwise.speller.lexicon import DICTIONARY, Lexicon, LexiconEntry
from charwise.speller.normalise import NormalisationTable, Normaliser
from charwise.speller.slang import MAX_WORDS, expansions, slang_dictionary
from conftest import fresh_cache_unless_real

WORDS = {"thanks": 5.5, "today": 5.8, "tomorrow": 5.2, "you": 7.0, "because": 6.0, "when": 6.3, "they": 6.6,
         "i": 7.3, "don't": 6.2, "know": 6.3, "stupid": 4.6, "the": 7.5, "bros": 4.0, "brothers": 4.9}


@pytest.fixture(autouse=True)
def cache_dir(request, tmp_path, monkeypatch):
    fresh_cache_unless_real(request, tmp_path, monkeypatch)


def tiny(language: str = "en") -> Lexicon:
    return Lexicon(language, {w: LexiconEntry(z, DICTIONARY) for w, z in WORDS.items()}, {"test": "tiny"})


def test_the_dictionary_is_read_lower_case_from_the_installed_package(tmp_path, monkeypatch):
    slang_dictionary.cache_clear()
    monkeypatch.chdir(tmp_path)
    table = slang_dictionary()
    assert list(tmp_path.iterdir()) == []  # read as data: nothing written here (ekphrasis pickles it on import)
    assert len(table) > 5_000
    assert table["thnx"] == "thanks" and table["2day"] == "today"
    assert all(k == k.lower() and v == " ".join(v.split()) for k, v in table.items())


def test_only_expansions_into_known_words_of_a_readable_form_are_kept():
    kept = expansions(tiny())
    assert kept["thnx"] == "thanks" and kept["2day"] == "today" and kept["coz"] == "because"
    assert kept["idk"] == "i don't know"  # several words, each known
    assert "lol" not in kept  # "laughing out loud": the tiny lexicon lacks the words
    assert all(len(v.split(" ")) <= MAX_WORDS for v in kept.values())
    assert "*4u" in slang_dictionary() and "*4u" not in kept  # no word the normaliser reads
    assert expansions(tiny("es")) == {}  # only English has a dictionary


def test_a_missing_package_says_what_to_install(monkeypatch):
    slang_dictionary.cache_clear()
    monkeypatch.setitem(sys.modules, "ekphrasis", None)  # an import of it fails
    try:
        with pytest.raises(ConfigError, match="pip install ekphrasis"):
            slang_dictionary()
    finally:
        slang_dictionary.cache_clear()


def test_slang_is_one_candidate_source_and_the_first_source_keeps_its_name():
    table = NormalisationTable.from_pairs([("coz", "because"), ("coz", "because")])
    normaliser = Normaliser(tiny(), table, None, NgramContext.from_sentences("en", [["i", "know"]] * 3))
    assert normaliser.candidates("thnx") == {"thanks": "slang"}
    assert normaliser.candidates("stoopid")["stupid"] == "slang"
    assert normaliser.candidates("coz") == {"because": "table"}  # the annotated table proposed it first
    assert "thanks" not in normaliser.candidates("thanks")  # never the word itself
    assert expansions(tiny())["bros"] == "brothers"
    assert "brothers" not in normaliser.candidates("bros")  # a valid word: the dictionary alone proposes nothing


@pytest.mark.real
@pytest.mark.parametrize("written, intended", [
    ("i was late bcoz of the rain", "i was late because of the rain"),
    ("we need an xtra chair", "we need an extra chair"),
    ("i cant live widout music", "i can't live without music"),
    ("see you next tym", "see you next time"),
])
def test_the_shipped_normaliser_puts_right_chat_forms_the_tweets_never_showed(written, intended):
    speller = Speller.load("en")
    assert not any(w in speller.normaliser.table.counts for w in ("bcoz", "xtra", "widout", "tym"))
    assert speller.correct(written).corrected == intended


@pytest.mark.real
@pytest.mark.parametrize("clean", [
    "The pita bread was warm.",
    "Use sed to replace the text.",  # sed: "said" in the dictionary; the tweets' table and the context keep it
    "lol that was great",  # the tweets' annotators left lol alone: the table outweighs the dictionary
])
def test_the_shipped_normaliser_leaves_words_the_dictionary_misreads(clean):
    assert Speller.load("en").correct(clean).corrected == clean
