"""The list of known misspellings (codespell's dictionary, read at run time): how its lines are read,
what it lists, and that it is evidence for the fitted scorer rather than a rule: a candidate source
and feature columns; the shipped English speller (marked ``real``) puts right the common
misspellings people type at a sentence start, on sentences written for these tests."""

from __future__ import annotations

import numpy as np
import pytest

from charwise.speller import Speller
from charwise.speller.candidates import LISTED
from charwise.speller.features import RANK_FEATURES, WORD_FEATURES, rank_order
from charwise.speller.known_misspellings import known_misspellings, listed_corrections, listed_share, parse_entry
from conftest import fresh_cache_unless_real


@pytest.fixture(autouse=True)
def cache_dir(request, tmp_path, monkeypatch):
    fresh_cache_unless_real(request, tmp_path, monkeypatch)


@pytest.mark.parametrize("line, entry", [
    ("wierd->weird", ("wierd", ("weird",))),
    ("Teh->the\n", ("teh", ("the",))),
    ("youre->your, you're,", ("youre", ("your", "you're"))),  # several corrections end with a comma
    ("clas->class, disabled because of name clash in c++", ("clas", ("class",))),  # one correction and a reason
    ("# a comment", None),
    ("->nothing", None),
    ("nothing->", None),
])
def test_codespell_lines_are_read_as_written(line, entry):
    assert parse_entry(line) == entry


def test_the_list_holds_one_word_corrections_of_words_only():
    table = known_misspellings()
    assert len(table) > 50_000
    assert table["definately"] == ("definitely",)
    # an entry whose first correction is several words would give the others alone: it is left out
    assert "alot" not in table
    assert all(w.replace("'", "").isalpha() and all(c.replace("'", "").isalpha() for c in cs)
               for w, cs in list(table.items())[:5000])


def test_shares_say_how_many_corrections_the_list_gives():
    assert listed_share("wierd", "weird") == 1.0
    assert listed_share("youre", "you're") == 0.5
    assert listed_share("wierd", "wired") == 0.0
    assert listed_share("weird", "weird") == 0.0  # a valid word is listed as no misspelling
    assert listed_corrections("wierd", "es") == ()  # only English has a list


def test_listed_corrections_are_candidates_and_features(tiny_speller):
    featurizer = tiny_speller.featurizer
    found = featurizer.index.lookup("wierd")
    assert found.get("weird", 0) & LISTED
    batch = featurizer.featurize(["wierd", "house"])
    names, rows = batch.of(0)
    listed = rows[:, RANK_FEATURES.index("listed")]
    assert listed[names.index("weird")] == 1.0 and np.count_nonzero(listed) == 1
    _, house_rows = batch.of(1)
    assert not house_rows[:, RANK_FEATURES.index("listed")].any()
    scores = np.zeros(len(batch.names))
    order = rank_order(scores, batch.offsets)
    words = featurizer.word_rows(batch, scores, order)
    assert words[0, WORD_FEATURES.index("written_listed")] == 1.0
    assert words[1, WORD_FEATURES.index("written_listed")] == 0.0


@pytest.fixture(scope="module")
def real_speller() -> Speller:
    return Speller.load("en")


@pytest.mark.real
@pytest.mark.parametrize("text, expected", [
    ("Teh meeting starts at noon.", "The meeting starts at noon."),
    ("Definately the best pizza in town.", "Definitely the best pizza in town."),
    ("Thier house is by the river.", "Their house is by the river."),
    ("I will recieve it tomorrow.", "I will receive it tomorrow."),
])
def test_common_misspellings_at_a_sentence_start_are_corrected(real_speller, text, expected):
    assert real_speller.correct(text).corrected == expected


@pytest.mark.real
@pytest.mark.parametrize("text, expected", [
    # web word lists hold these forms; the scorer once learned them as valid words from its training
    # sentences, which hold them too (charwise.training.scorer.valid_unknown_words)
    ("we definetly should go", "we definitely should go"),
    ("that was noticable from here", "that was noticeable from here"),
])
def test_known_misspellings_inside_a_sentence_are_corrected(real_speller, text, expected):
    assert real_speller.correct(text).corrected == expected


@pytest.mark.real
@pytest.mark.parametrize("text", [
    "Chanel opened a new shop in Paris.",  # a name the list holds as a misspelling of channel
    "The weird thing is that it works.",
    "Claus came home late.",
])
def test_names_and_valid_words_the_list_holds_stay(real_speller, text):
    assert real_speller.correct(text).corrected == text


def test_a_missing_codespell_package_says_how_to_install_it(monkeypatch):
    import charwise.speller.known_misspellings as module
    from charwise.errors import ConfigError

    def missing(name):
        raise ModuleNotFoundError(f"No module named {name!r}")

    def clear():
        for cached in (module.known_misspellings, module.listed_run_together):
            cached.cache_clear()

    monkeypatch.setattr(module.resources, "files", missing)
    clear()
    try:
        with pytest.raises(ConfigError, match="pip install codespell"):
            module.known_misspellings()
        with pytest.raises(ConfigError, match="pip install codespell"):
            module.listed_run_together()
    finally:
        monkeypatch.undo()
        clear()
    assert module.listed_corrections("wierd") == ("weird",)  # read again once the package is there


def test_words_run_together_are_listed_with_their_cut_alone():
    from charwise.speller.known_misspellings import listed_corrections, listed_cut

    assert listed_cut("atleast", "at least") and listed_cut("everytime", "every time")
    assert not listed_cut("atleast", "atle ast")  # only the cut the list names
    assert not listed_cut("theif", "the if")  # listed, but corrected by one word (thief)
    assert not listed_cut("allready", "all ready")  # "already" first: a slip of one word
    assert not listed_cut("atleast", "at least", "es")  # English's list only
    assert listed_corrections("alot") == ()  # several-word corrections stay out of the single-word table
