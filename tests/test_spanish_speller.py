"""Spanish: inflected forms in the lexicon, accent-dropped spellings out of it, missing accents put back."""

from __future__ import annotations

import pytest
from wordfreq import get_frequency_dict

from charwise.errors import ConfigError
from charwise.speller import Speller, SpellerSettings
from charwise.speller.corrections import restores_accents
from charwise.speller.lexicon import DICTIONARY, Lexicon, LexiconEntry, _without_dropped_accents, strip_accents
from conftest import fitted_scorer, tiny_encoder


def test_strip_accents_keeps_the_tilde_of_enye():
    assert strip_accents("después") == "despues"
    assert strip_accents("pingüino") == "pinguino"
    assert strip_accents("año") == "año"
    assert strip_accents("ÁRBOL") == "ARBOL"


def test_restores_accents_is_only_accents_put_back():
    assert restores_accents("despues", "después")
    assert not restores_accents("después", "despues")  # taking accents away is not putting them back
    assert not restores_accents("despues", "despues")
    assert not restores_accents("despuez", "después")
    assert not restores_accents("ano", "año")  # ñ is a letter of its own, not an accent


def test_accent_dropped_copies_of_a_more_frequent_word_are_left_out():
    freq = get_frequency_dict("es", "best")
    words = {"después", "despues", "así", "asi", "hablo", "habló", "publico", "público", "esta", "está",
             "mas", "más"}
    kept = _without_dropped_accents(words, "es", freq)
    assert {"despues", "asi"}.isdisjoint(kept)
    # verb forms beside their accented forms, and words listed on their own, stay
    assert {"después", "así", "hablo", "habló", "publico", "público", "esta", "está", "mas", "más"} <= kept


def test_dictionaries_of_a_language_are_checked():
    with pytest.raises(ConfigError, match="no simplemma dictionary for 'en'"):
        Lexicon.build("en", dictionaries=("simplemma",), cache=False)


@pytest.fixture
def spanish_speller(make_encoder, wordpiece_teacher) -> Speller:
    entries = {w: LexiconEntry(z, DICTIONARY) for w, z in
               {"después": 5.9, "de": 7.5, "la": 7.3, "fiesta": 4.9, "fuerte": 4.8, "fiestas": 4.3}.items()}
    return Speller(Lexicon("es", entries, {"test": "tiny"}), tiny_encoder(make_encoder, wordpiece_teacher),
                   fitted_scorer(language="es"), SpellerSettings(threshold=1.0, neighbours=3))


def test_a_missing_accent_is_put_back_below_the_threshold(spanish_speller):
    suggestions, p = spanish_speller._score(["despues"])[0]
    assert suggestions[0].word == "después" and p < 1.0
    assert spanish_speller.correct("despues de la fiesta").corrected == "después de la fiesta"
    # another slip needs the threshold
    assert spanish_speller.correct("de la fiestta").corrected == "de la fiestta"
    strict = Speller(spanish_speller.lexicon, spanish_speller.encoder, spanish_speller.scorer,
                     SpellerSettings(threshold=1.0, neighbours=3, accent_threshold=1.0))
    assert strict.correct("despues de la fiesta").corrected == "despues de la fiesta"


def test_accent_threshold_is_checked():
    with pytest.raises(ConfigError, match="accent_threshold must be a probability"):
        SpellerSettings(accent_threshold=2)


@pytest.mark.real
def test_the_real_spanish_lexicon_has_verb_forms_and_not_accent_drops():
    lexicon = Lexicon.build("es", teacher="e5-multilingual")
    for word in ("hay", "está", "fue", "años", "comieron", "hablábamos", "dijeron", "hablo", "habló"):
        assert lexicon.knows(word), word
    for word in ("despues", "asi", "aqui", "tecnica", "habiamos"):
        assert not lexicon.knows(word), word


@pytest.mark.real
def test_the_real_spanish_speller_puts_accents_back():
    speller = Speller.load("es")
    assert speller.correct("despues de la fiesta").corrected == "después de la fiesta"
    assert speller.correct("Comieron y hablaron despues.").corrected == "Comieron y hablaron después."
