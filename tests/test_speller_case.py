"""Words written in capitals (``SERVISE``, ``EXPERINCED``): read as their lower-case form with the same scorer
and thresholds, corrected in capitals; acronyms (short, or known to the lexicon) and protected tokens left as
written. On sentences written for these tests; the shipped speller marked ``real``."""

from __future__ import annotations

import pytest

from charwise.errors import ConfigError
from charwise.speller import Speller, SpellerSettings
from charwise.speller.speller import shouted
from conftest import fresh_cache_unless_real


@pytest.fixture(autouse=True)
def cache_dir(request, tmp_path, monkeypatch):
    fresh_cache_unless_real(request, tmp_path, monkeypatch)


def test_what_counts_as_written_in_capitals():
    assert shouted("SERVISE") and shouted("OK")
    assert not any(shouted(w) for w in ("I", "A", "Servise", "McDONALD", "servise", "123", ""))


def test_capital_settings_are_checked():
    with pytest.raises(ConfigError, match="read_capitals must be True or False"):
        SpellerSettings(read_capitals=1)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="capitals_min_length must be an integer >= 2"):
        SpellerSettings(capitals_min_length=1)


def test_the_tiny_speller_reads_capitals_from_the_minimum_length(tiny_speller):
    # the tiny speller changes a capitalised word at its plain threshold: the capitals alone decide here
    assert tiny_speller.correct("we RECIEVE it").corrected == "we RECEIVE it"
    assert tiny_speller.looked_at(["HOUSE", "HOUS", "HOU"], start=False) == [False, True, False]  # known; short
    tiny_speller.settings.capitals_min_length = 8
    assert tiny_speller.correct("we RECIEVE it").corrected == "we RECIEVE it"
    tiny_speller.settings.capitals_min_length = 4
    tiny_speller.settings.read_capitals = False
    assert tiny_speller.correct("we RECIEVE it").corrected == "we RECIEVE it"


# --- the shipped English speller -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def real_speller() -> Speller:
    return Speller.load("en")


@pytest.mark.real
@pytest.mark.parametrize("text, expected", [
    ("MY COMPUTER IS VERY SLOWW TODAY", "MY COMPUTER IS VERY SLOW TODAY"),
    ("The SERVISE at this place is terrible", "The SERVICE at this place is terrible"),
    ("She is an EXPERINCED teacher", "She is an EXPERIENCED teacher"),
    ("CALL ME AGIAN TOMORROW", "CALL ME AGAIN TOMORROW"),
    ("PLEASE REMEMBER TO BRING YOUR RECIEPT", "PLEASE REMEMBER TO BRING YOUR RECEIPT"),
    ("SERVISE", "SERVICE"),  # a word alone, and a sentence's first word: the lower-case threshold all the same
])
def test_misspellings_in_capitals_are_corrected_in_capitals(real_speller, text, expected):
    result = real_speller.correct(text)
    assert result.corrected == expected
    changed = [w for w in result.words if w.changed]
    assert changed and all(w.kind == "spelling" and w.correction.isupper() for w in changed)


@pytest.mark.real
@pytest.mark.parametrize("text, expected", [
    ("I CANT BELEIVE IT", "I CAN'T BELIEVE IT"),  # the normaliser reads them too, as their lower-case forms
    ("WE DONT KNOW THATS WHY", "WE DON'T KNOW THAT'S WHY"),
    ("OMG IM SO HAPPY", "OMG I'M SO HAPPY"),  # shorter words too, amid text in capitals (below)
])
def test_informal_words_in_capitals_are_normalised_in_capitals(real_speller, text, expected):
    assert real_speller.correct(text).corrected == expected
    plain = Speller(real_speller.lexicon, real_speller.encoder, real_speller.scorer,
                    SpellerSettings(read_capitals=False), featurizer=real_speller.featurizer)
    plain.normaliser = real_speller.normaliser
    assert plain.correct(text).corrected == text  # read_capitals=False: neither the speller nor the normaliser


@pytest.mark.real
@pytest.mark.parametrize("text, expected", [
    ("OMG IM SO HAPPY", "OMG I'M SO HAPPY"),
    ("U ARE THE BEST", "YOU ARE THE BEST"),  # a single letter too, given back in capitals (not `You`)
    ("U should come", "You should come"),  # a capitalised first word in running text keeps its case
    ("THE FBI IS HERE", "THE FBI IS HERE"),
    ("the IM window is open", "the IM window is open"),  # amid lower case: an acronym
])
def test_shorter_words_are_read_only_amid_text_in_capitals(real_speller, text, expected):
    result = real_speller.correct(text)
    assert result.corrected == expected
    # at the threshold of a capitalised word: a short word in capitals is as often an acronym or a name
    judge = real_speller.normaliser.judge
    assert all(w.probability >= judge.threshold_for(False, True) for w in result.words if w.changed)


@pytest.mark.real
@pytest.mark.parametrize("text", [
    "I love NASA and the FBI and IBM",  # acronyms the lexicon knows
    "WTF OMG LOL IDK",  # three letters or fewer: acronyms far more often than typos
    "The CEO of ACME said so",
    "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG",  # words known in any case
])
def test_acronyms_and_known_words_in_capitals_stay(real_speller, text):
    assert real_speller.correct(text).corrected == text


@pytest.mark.real
@pytest.mark.parametrize("text", [
    "Visit HTTP://EXAMPLE.COM/SERVISE or mail SERVISE@EXAMPLE.COM",
    "cc @SERVISE about #SERVISE today",
    "set MAX_SERVISE and getSERVISE in /usr/SERVISE/bin",
])
def test_protected_tokens_in_capitals_are_never_changed(real_speller, text):
    result = real_speller.correct(text)
    assert result.corrected == text
    assert not any(w.looked_at for w in result.words if "SERVISE" in w.word)


@pytest.mark.real
def test_reading_capitals_can_be_switched_off(real_speller):
    plain = Speller(real_speller.lexicon, real_speller.encoder, real_speller.scorer,
                    SpellerSettings(read_capitals=False), featurizer=real_speller.featurizer)
    assert plain.correct("The SERVISE was SLOWW").corrected == "The SERVISE was SLOWW"
    assert real_speller.correct("The SERVISE was SLOWW").corrected == "The SERVICE was SLOW"


# --- capitalised sentence starts: the capitals decision ---------------------------------------------------
def test_the_capitals_decision_is_read_and_checked():
    from charwise.speller.capital_decision import SCORER_THRESHOLD, CapitalDecision

    rule = CapitalDecision.from_dict(None)  # a scorer without a fitted decision: its probability at 0.925
    assert rule.reads_scorer_only and rule.threshold == SCORER_THRESHOLD
    assert rule.probability(0.93, listed=1.0, written_zipf=3.0, best_zipf=6.0, first_changed=1.0) == pytest.approx(0.93)
    fitted = CapitalDecision.from_dict({"weights": [1.0, 2.0, -0.5, 0.5, -1.0], "bias": -1.0, "threshold": 0.8,
                                        "source": "a test"})
    # the list's evidence lifts a listed form; a form written often on the web is slang or a name;
    # a candidate with another first letter is another name more often than a slip
    assert fitted.probability(0.8, 1.0, 0.0, 5.0, 0.0) > fitted.probability(0.8, 0.0, 0.0, 5.0, 0.0)
    assert fitted.probability(0.8, 0.0, 4.0, 5.0, 0.0) < fitted.probability(0.8, 0.0, 0.0, 5.0, 0.0)
    assert fitted.probability(0.8, 0.0, 0.0, 5.0, 1.0) < fitted.probability(0.8, 0.0, 0.0, 5.0, 0.0)
    assert CapitalDecision.from_dict(fitted.to_dict()) == fitted
    assert fitted.capitals_threshold is None  # words in capitals keep the scorer's rule without their own
    for bad, message in (({"weights": [1.0], "bias": 0, "threshold": 0.5, "source": ""}, "5 finite weights"),
                         ({"weights": [1, 0, 0, 0, 0], "bias": 0, "threshold": 2, "source": ""}, "probability"),
                         ({"weights": [1, 0, 0, 0, 0]}, "needs weights, bias, threshold and source")):
        with pytest.raises(ConfigError, match=message):
            CapitalDecision.from_dict(bad)


def test_a_scorer_without_a_decision_keeps_the_scorer_rule(tiny_speller):
    from charwise.speller.capital_decision import SCORER_THRESHOLD

    assert tiny_speller.capital_decision.reads_scorer_only
    tiny_speller.settings.capital_threshold = None
    assert tiny_speller.decision("Recieve", 0.9, 0.5, "receive") == (0.9, SCORER_THRESHOLD)
    assert tiny_speller.decision("recieve", 0.9, 0.5, "receive") == (0.9, 0.5)
    assert tiny_speller.decision("RECIEVE", 0.9, 0.5, "receive") == (0.9, SCORER_THRESHOLD)
    tiny_speller.settings.capital_threshold = 0.6  # the user's threshold in place of either
    assert tiny_speller.decision("Recieve", 0.9, 0.5, "receive") == (0.9, 0.6)


@pytest.mark.real
@pytest.mark.parametrize("text, expected", [
    ("Wierd how nobody noticed.", "Weird how nobody noticed."),  # a listed misspelling: 0.88 by the scorer
    ("Teh meeting starts at noon.", "The meeting starts at noon."),
    ("Definately the best pizza in town.", "Definitely the best pizza in town."),
    ("Jahmaal met us at the station.", "Jahmaal met us at the station."),  # a name: left
    ("Welp we tried.", "Welp we tried."),  # slang people write: left (the scorer's best: well)
    ("Hancocks opened late.", "Hancocks opened late."),
    ("SEE YOU ON WENSDAY", "SEE YOU ON WEDNESDAY"),  # in capitals: a listed misspelling, 0.90 by the scorer
])
def test_capitalised_sentence_starts_are_decided_by_the_fitted_decision(real_speller, text, expected):
    decision = real_speller.capital_decision
    assert decision.threshold >= real_speller.threshold and decision.capitals_threshold >= real_speller.threshold
    assert "capitals.py" in decision.source
    assert real_speller.correct(text).corrected == expected


def test_a_full_stop_after_an_abbreviation_ends_no_sentence():
    from charwise.speller.corrections import abbreviations, ends_sentence, starts_after

    found = abbreviations()  # from UD EWT's training sentences
    assert {"mr", "dr", "st", "vs", "ft"} <= found and not {"etc", "no", "i"} & found
    assert not ends_sentence(".", "ft") and not ends_sentence(".", "Dr") and not ends_sentence("Mr.")
    assert ends_sentence(".", "now") and ends_sentence(".", "etc") and ends_sentence(".", "no")
    assert ends_sentence("...", "ft") and ends_sentence("!", "ft") and ends_sentence(".") and not ends_sentence("ft")
    assert not starts_after(".", False, "ft") and starts_after(".", False, "now")


def test_a_capital_after_an_abbreviation_reads_as_inside_a_sentence(tiny_speller):
    # inside a sentence a capitalised unknown word is a name, not looked at
    assert tiny_speller.looked_at(["now", ".", "Hous"])[2] and not tiny_speller.looked_at(["ft", ".", "Hous"])[2]
    assert not tiny_speller.sentence_start_after(["see", "Dr", "."]) and tiny_speller.sentence_start_after(["go", "."])


@pytest.mark.real
@pytest.mark.parametrize("text", [
    "New song ft. Kool John out now.",  # Kool: a name after ft., no sentence start
    "We saw Dr. Smyth and St. Jhon there.",
])
def test_names_after_abbreviations_are_kept(real_speller, text):
    assert real_speller.correct(text).corrected == text
    # the same word after a sentence's full stop is read as a start: a typo there is corrected
    assert real_speller.correct("We were late. Teh end.").corrected == "We were late. The end."


# --- capitalised words inside a sentence: names put right only as names ----------------------------------
def test_the_inside_threshold_and_odds_are_read_and_checked():
    from charwise.speller.capital_decision import CapitalDecision, capitalised_odds

    base = {"weights": [1.0, 0.0, 0.0, 0.0, 0.0], "bias": 0.5, "threshold": 0.9, "source": "a test"}
    assert CapitalDecision.from_dict(base).inside_threshold is None  # a decision without one: such words unread
    fitted = CapitalDecision.from_dict({**base, "inside_threshold": 0.85, "inside_odds": 1.0})
    assert (fitted.inside_threshold, fitted.inside_odds) == (0.85, 1.0)
    assert CapitalDecision.from_dict(fitted.to_dict()) == fitted
    for bad, message in (({"inside_threshold": 1.5}, "inside_threshold must be a probability"),
                         ({"inside_threshold": "high"}, "inside_threshold must be a number"),
                         ({"inside_odds": "x"}, "inside_odds must be a number"),
                         ({"inside_odds": float("nan")}, "inside_odds must be finite")):
        with pytest.raises(ConfigError, match=message):
            CapitalDecision.from_dict({**base, **bad})
    # XLM-R's vocabulary writes these capitalised far more often than not; common words not at all
    assert capitalised_odds("wednesday") > 5 and capitalised_odds("london") > 1
    assert capitalised_odds("matter") == capitalised_odds("shoulder") == 0.0


def test_capitalised_words_inside_a_sentence_are_read_only_where_the_decision_says(tiny_speller):
    import dataclasses

    from charwise.speller.capital_decision import CapitalDecision

    kept = tiny_speller.capital_decision
    assert not tiny_speller.looked_at(["we", "saw", "Hous"])[2]  # no inside threshold: a name, unread
    try:
        tiny_speller.capital_decision = CapitalDecision((1.0, 0.0, 0.0, 0.0, 0.0), 0.1, 0.9, "a test",
                                                        inside_threshold=0.95, inside_odds=1.0)
        tiny_speller.settings.capital_threshold = None
        assert tiny_speller.looked_at(["we", "saw", "Hous"])[2] and tiny_speller.looked_at(["Hous", "now"])[0]
        # inside: its own threshold, and a candidate that is no name (house) is never taken
        assert tiny_speller.decision("Hous", 0.99, 0.5, "house", inside=True) == (0.0, 0.95)
        value, needed = tiny_speller.decision("Londn", 0.99, 0.5, "london", inside=True)
        assert value > 0.99 and needed == 0.95
        assert tiny_speller.decision("Hous", 0.99, 0.5, "house")[1] == 0.9  # a sentence start: the start's
        assert tiny_speller.decision("HOUS", 0.99, 0.5, "house", inside=True)[0] > 0  # in capitals: not a name
        tiny_speller.capital_decision = dataclasses.replace(tiny_speller.capital_decision, inside_threshold=None)
        assert not tiny_speller.looked_at(["we", "saw", "Hous"])[2]
    finally:
        tiny_speller.capital_decision = kept


@pytest.mark.real
@pytest.mark.parametrize("text, expected", [
    ("See you on Wendesday at noon.", "See you on Wednesday at noon."),
    ("My birthday is in Febuary.", "My birthday is in February."),
    ("We flew to Califronia last week.", "We flew to California last week."),
    ("I met Jahmaal and Bisconti at the Hyatt.", "I met Jahmaal and Bisconti at the Hyatt."),  # names: left
    ("Buy a Matfer pan for the kitchen.", "Buy a Matfer pan for the kitchen."),  # a brand, never `matter`
    ("My aunt worked for Anna Wintor in NY.", "My aunt worked for Anna Wintor in NY."),  # never `winter`
])
def test_capitalised_misspellings_inside_a_sentence_are_put_right_as_names(real_speller, text, expected):
    decision = real_speller.capital_decision
    assert decision.inside_threshold >= real_speller.threshold and decision.inside_odds > 0
    assert real_speller.correct(text).corrected == expected


def test_a_missing_or_broken_file_of_capitalised_words_is_a_one_line_error(tmp_path, monkeypatch):
    import charwise.speller.capital_decision as capital_decision

    for name, content in (("missing.tsv.gz", None), ("broken.tsv.gz", b"not gzip")):
        path = tmp_path / name
        if content is not None:
            path.write_bytes(content)
        monkeypatch.setattr(capital_decision, "CAPITALISED", path)
        capital_decision._capitalised.cache_clear()
        with pytest.raises(ConfigError, match="cannot read the words written capitalised") as caught:
            capital_decision.capitalised_odds("wednesday")
        assert "\n" not in str(caught.value)
    capital_decision._capitalised.cache_clear()
