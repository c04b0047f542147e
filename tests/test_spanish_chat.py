"""Spanish chat forms and dropped accents or tildes, corrected in context by the shipped speller."""

from __future__ import annotations

import pytest

from charwise.speller import Speller

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def speller() -> Speller:
    return Speller.load("es")


def corrected(speller: Speller, lines: list[str]) -> list[str]:
    return [t.corrected for t in speller.correct_lines(lines)]


def test_chat_abbreviations_are_expanded(speller):
    lines = ["tmb quiero ir al cine", "xq no me llamaste ayer", "gracias x todo", "la casa d mi abuela",
             "toy muy cansado hoy", "dime q piensas"]
    assert corrected(speller, lines) == ["también quiero ir al cine", "porque no me llamaste ayer",
                                         "gracias por todo", "la casa de mi abuela", "estoy muy cansado hoy",
                                         "dime que piensas"]


def test_a_dropped_tilde_or_accent_of_a_rare_verb_form_is_put_back_inside_a_sentence(speller):
    assert corrected(speller, ["nos vemos manana en clase", "ayer fui al medico con mi hermano",
                               "la musica de este ano"]) == [
        "nos vemos mañana en clase", "ayer fui al médico con mi hermano", "la música de este año"]


def test_protected_tokens_and_clean_sentences_stay(speller):
    lines = ["@q_ana mira https://ejemplo.es/x #tmb", "el médico llegó tarde", "quiero un café con leche"]
    assert corrected(speller, lines) == lines


@pytest.mark.parametrize("text, expected", [
    ("q haces mañana", "qué haces mañana"),  # a question without its marks, as chat writes it
    ("k tal estas", "qué tal estás"),
    ("dile q venga", "dile que venga"),
    ("lo q quieras", "lo que quieras"),
    # accents of the sets decided at thresholds of their own
    ("de que hablas", "de qué hablas"),
    ("cual es tu nombre", "cuál es tu nombre"),
    ("el perro es de el", "el perro es de él"),
    ("que bonito es", "que bonito es"),
    ("el tiene razon", "el tiene razón"),
])
def test_spanish_chat_forms_and_accent_twins_as_the_sentence_means_them(speller, text, expected):
    assert speller.correct(text).corrected == expected


@pytest.mark.parametrize("text, expected", [
    ("buenos dias a todos", "buenos días a todos"),  # a stressed i beside a vowel
    ("ojala vengas pronto", "ojalá vengas pronto"),
    ("eso fue lo ultimo que dijo", "eso fue lo último que dijo"),
    ("pasaran los años", "pasarán los años"),
    # both spellings meant as written: a verb, not the noun with the accent or tilde
    ("vale la pena intentarlo", "vale la pena intentarlo"),
    ("mi padre bebe vino tinto", "mi padre bebe vino tinto"),
    ("hoy llevo la camiseta roja", "hoy llevo la camiseta roja"),
    ("el que mucho abarca poco aprieta", "el que mucho abarca poco aprieta"),
])
def test_accent_twins_of_valid_words_are_put_back_where_the_decision_is_sure(speller, text, expected):
    assert speller.correct(text).corrected == expected
