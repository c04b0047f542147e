"""What a correction never changes: URLs, e-mails, @handles, #hashtags, paths, identifiers, numbers
with units, emoticons and the user's own patterns (charwise.words.protected_spans), in every path
that changes text (Speller.correct_lines / correct_words, charwise.repair, the repair policy, the
CLI); change kinds that can be switched off; a speller shared by threads."""

from __future__ import annotations

import json
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from charwise.errors import ConfigError
from charwise.speller import Speller, SpellerSettings
from charwise.speller.corrections import CHANGE_KINDS, SPELLING
from charwise.words import (
    PROTECTED_PATTERNS,
    compile_patterns,
    protected_spans,
    split_words,
    tokenised_spacing,
    words_protected,
)

PROTECTED = {
    "url": ["http://youtu.be/xi8qJ3IKK8U", "https://example.org/a/b?q=1", "www.officetally.com", "youtu.be/abc",
            "bit.ly/2xYz"],
    "email": ["jon.smiht@gmial.com", "a_b+c@mail.example.co.uk"],
    "handle": ["@joejonas", "@Tay_lor13"],
    "hashtag": ["#theroom", "#storyofmylife", "#Sundayfunday"],
    "path": ["/usr/bin/pyhton", "~/documnets/notes.txt", "C:\\Users\\bob\\fiel.txt", "src/modle.py"],
    "identifier": ["my_varible", "getUsrName", "np.linalg.norm", "os.path.join(", "self.recieve("],
    "initials": ["U.S.", "e.g."],
    "number": ["5km", "10:30pm", "3.5kg", "100%", "22 nd"],
    "reddit": ["u/BordNaMonaLisa", "/r/newzealand"],
    "emoticon": [":)", ":D", "xD", "<3", "^_^", ";-)"],
    "math": ["$\\vert n\\rangle$", "$x^2 + y_i$", "$$\\frac{a}{b}$$"],
    "command": ["\\alpha", "\\nalert"],
    "code": ["`recieve()`", "`its`"],
    "sql": ["SELECT * FROM users WHERE id = 1;", "select * from u where x = 1;", "UPDATE t SET a = 2;"],
    "quoted": ["'its'", '"teh"', "\u2018whats\u2019", "'it's'"],
    "masked": ["f*ck", "s*n", "sh**ting", "N*I*K*K*I"],
}


def covered(text: str, part: str) -> bool:
    """Whether every character of ``part`` (found in ``text``) is inside a protected span."""
    start = text.index(part)
    spans = protected_spans(text)
    return all(any(s <= i < e for s, e in spans) for i in range(start, start + len(part)))


@pytest.mark.parametrize(("kind", "example"), [(k, e) for k, examples in PROTECTED.items() for e in examples])
def test_each_kind_is_protected_whole_inside_a_sentence(kind, example):
    assert kind in PROTECTED_PATTERNS
    text = f"i saw {example} yesterdy, realy"
    assert covered(text, example.rstrip("("))  # the call's parenthesis is punctuation
    assert not covered(text, "yesterdy") and not covered(text, "realy")


def test_sql_is_protected_and_prose_that_names_its_words_is_read():
    assert covered("SELECT * FROM U WHERE X = 1", "FROM U")  # U is a table, not `you`
    for prose in ("select a photo from your gallery", "we where late from work", "set the table"):
        assert protected_spans(prose) == []


@pytest.mark.parametrize("text", ["I recieved teh pakage", "it is bigger then mine.", "home.Then we left",
                                  "don't stop-believing", "so we went", "2day gr8", "in 2 years",
                                  "the kids' toys and dogs' bowls", "I said 'its fine' to him",
                                  "that was *realy* good"])
def test_plain_words_are_not_protected(text):
    split = split_words(text)
    flags = words_protected(split.words, split.space_before)
    assert not any(w for w, p in zip(split.words, flags) if p and w.isalpha())


# Texts made of the characters the built-in kinds turn on, so that every kind can match somewhere.
AWKWARD = "aAbxXdDpPwWmkcoOtT_-.:/\\@#$^<38 \u2026()=;'\"`\u2018\u2019*"
awkward_text = st.text(alphabet=AWKWARD, max_size=40) | st.sampled_from(
    [f"see {e} now" for examples in PROTECTED.values() for e in examples])


@settings(max_examples=300, deadline=None)
@given(text=awkward_text)
def test_property_skipping_kinds_a_text_cannot_hold_finds_the_same_spans(text):
    """protected_spans leaves out the kinds whose characters a text lacks: the spans must be those
    of every kind in one expression."""
    from charwise.words import _built_in

    every = _built_in(tuple(PROTECTED_PATTERNS))
    assert protected_spans(text) == [m.span() for m in every.finditer(text) if m.end() > m.start()]


def test_a_truncated_posts_last_word_and_a_glued_scheme_are_protected():
    # a post cut short: its last word is a piece of a word, never a misspelling to correct
    assert covered("the following stateme…", "stateme…")
    assert covered("is this girli… https://t.co/pYYLmZ", "girli…")
    assert not covered("I recieved the pakage… and left", "pakage")  # an ellipsis inside the text is a pause
    # a scheme glued to the word before it still starts a URL
    text = "so proud omg ahttps://twitter.com/bb/status/823"
    assert covered(text, "https://twitter.com/bb/status/823") and not covered(text, "proud")
    split = split_words(text)
    flags = dict(zip(split.words, words_protected(split.words, split.space_before)))
    assert flags["ahttps"]  # the word the URL touches is left whole


def test_words_split_from_a_handle_are_protected_together():
    split = split_words("thanks @joejonas and #theroom!")
    flags = dict(zip(split.words, words_protected(split.words, split.space_before)))
    assert flags["joejonas"] and flags["theroom"] and not flags["thanks"] and not flags["!"]
    # written apart, "@ joejonas" is a sign and a word like any other
    assert words_protected(["@", "joejonas"], [True, True]) == [False, False]


@pytest.mark.parametrize(("tokens", "kept"), [
    ("@ Qmechanic yeah", "Qmechanic"), ("# Catalonia is", "Catalonia"), ("@ serina _ sgill hi", "sgill"),
    ("thanks to / u / uncle _ retardo", "retardo"), ("Hey u / nicklovettnz -", "nicklovettnz"),
    ("see r / soccer now", "soccer")])
def test_a_tokenizers_cuts_of_handles_and_names_are_glued_back(tokens, kept):
    # CoNLL files (WNUT17, UD) cut @Qmechanic, #Catalonia, md_addam and /u/name into tokens; their
    # spacing is lost, so those signs are read glued to their neighbours again
    words = tokens.split()
    flags = dict(zip(words, words_protected(words)))
    assert flags[kept] and not flags[words[-1]] or words[-1] == kept
    for plain in (["this", "and", "/", "or", "that"], ["u", "can", "go"], ["_", "_", "is"], ["a", "_", "b"][:2]):
        assert not any(p for w, p in zip(plain, words_protected(plain)) if w.isalpha())
    assert tokenised_spacing(["@", "5", "pm"]) == [True, False, True]  # a number: left alone either way
    assert covered("ask u/BordNaMonaLisa or /r/soccer", "u/BordNaMonaLisa") and covered(
        "ask u/BordNaMonaLisa or /r/soccer", "/r/soccer")


def test_user_patterns_and_their_errors():
    assert covered("call Jonh Smiht now", "Jonh Smiht") is False
    spans = protected_spans("call Jonh Smiht now", [r"Jonh\s+Smiht"])
    assert (5, 15) in spans
    with pytest.raises(ConfigError, match="invalid protected pattern"):
        compile_patterns(["(unclosed"])
    with pytest.raises(ConfigError, match="matches the empty string"):
        compile_patterns(["x*"])
    with pytest.raises(ConfigError, match="invalid protected pattern"):
        SpellerSettings(protect=("[",))


# --- the speller never changes them (tiny speller at threshold 0: it changes all it can) -------------
@pytest.fixture
def eager(tiny_speller) -> Speller:
    return Speller(tiny_speller.lexicon, tiny_speller.encoder, tiny_speller.scorer,
                   SpellerSettings(threshold=0.0, capital_threshold=0.0, neighbours=3, changes=SPELLING))


word = st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9)
protected_token = st.one_of(
    st.builds(lambda a, b: f"https://{a}.com/{b}", word, word),
    st.builds(lambda a, b: f"www.{a}.org/{b}", word, word),
    st.builds(lambda a: f"{a}.be/x9", word),
    st.builds(lambda a, b: f"{a}.{b}@gmial.com", word, word),
    st.builds(lambda a: "@" + a, word),
    st.builds(lambda a, b: f"#{a}{b}", word, word),
    st.builds(lambda a, b: f"/home/{a}/{b}.txt", word, word),
    st.builds(lambda a, b: f"{a}_{b}", word, word),
    st.builds(lambda a, b: f"{a}{b.capitalize()}", word, word),
    st.builds(lambda a, b, c: f"{a}.{b}.{c}", word, word, word),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(token=protected_token, before=word, after=word, glue=st.sampled_from([" ", " (", ", "]))
def test_property_nothing_inside_a_protected_token_changes(eager, token, before, after, glue):
    text = f"{before}{glue}{token} {after}"
    result = eager.correct(text)
    start = text.index(token, len(before))
    assert result.corrected.count(token) >= 1, (text, result.marked())
    for w in result.words:
        if start <= w.start < start + len(token):
            assert w.protected and not w.changed and not w.looked_at
    # the same through correct_words with split_words' spacing
    split = split_words(text)
    again = eager.correct_words([split.words], space_before=[split.space_before])[0]
    assert [w.correction for w in again] == [w.correction for w in result.words]


def test_the_tiny_speller_still_corrects_outside_and_reports_kinds(eager):
    result = eager.correct("recieve @recieve #recieve recieve_it")
    changed = [(w.word, w.correction, w.kind) for w in result.words if w.changed]
    assert changed == [("recieve", "receive", "spelling")]
    assert all(w.probability > 0 for w in result.words if w.changed)
    off = Speller(eager.lexicon, eager.encoder, eager.scorer, SpellerSettings(threshold=0.0, changes=("accent",)))
    assert off.correct("recieve").corrected == "recieve"
    assert eager.correct("recieve it", protect=[r"recieve"]).corrected == "recieve it"
    assert eager.correct(["recieve", "ok recieve"], protect=["ok"])[1].corrected == "ok receive"


def test_change_kinds_and_styles_match_the_cli_choices():
    from charwise.cli import correct
    from charwise.speller.settings import STYLES

    assert correct.CHANGE_KINDS == CHANGE_KINDS
    assert sorted(correct.STYLES) == sorted(STYLES) and correct.STYLES[0] == SpellerSettings().style


# --- real weights ----------------------------------------------------------------------------------------
ISSUE_TEXTS = ["thanks @joejonas", "watch http://youtu.be/xi8qJ3IKK8U now", "mail jon.smiht@gmial.com today",
               "see www.officetally.com", "#theroom is on", "#storyofmylife", "open ~/documnets/reciept.txt",
               "call getUsrNmae() on self.recieve_msg"]


@pytest.mark.real
def test_real_speller_leaves_protected_tokens_and_corrects_the_rest():
    speller = Speller.load("en")
    for text in ISSUE_TEXTS:
        assert speller.correct(text).corrected == text, text
    result = speller.correct("thanks @joejonas, I recieved the pakage at www.officetally.com")
    assert result.corrected == "thanks @joejonas, I received the package at www.officetally.com"
    assert {w.kind for w in result.words if w.changed} <= {"spelling", "normalisation"}


@pytest.mark.real
def test_real_speller_is_safe_to_share_between_threads():
    speller = Speller.load("en")
    texts = [f"I recieved {w} pakage number {i} from tehm, we went to there house"
             for i, w in enumerate(["teh", "the", "a", "thier"] * 10)]
    expected = [r.corrected for r in speller.correct(texts)]
    speller.clear_cache()
    results: dict[int, list[str]] = {}
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for _ in range(3):
                results[k] = [r.corrected for r in speller.correct(texts[k::2] + texts[::3])]
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(4):
        assert results[k] == [expected[i] for i in [*range(len(texts))[k::2], *range(len(texts))[::3]]]


@pytest.mark.real
def test_cli_protect_skip_and_json_kinds(capsys):
    from charwise.cli import main

    assert main(["correct", "--json", "--text", "the Jonh Smiht recieved it, we went to there house",
                 "--protect", r"Jonh Smiht"]) == 0
    line = json.loads(capsys.readouterr().out)
    changed = {w["word"]: (w["kind"], w["probability"]) for w in line["words"] if w["changed"]}
    assert set(changed) == {"recieved", "there"} and changed["there"][0] == "real_word"
    assert all(p > 0 for _, p in changed.values())
    assert main(["correct", "--plain", "--text", "recieved it, we went to there house", "--skip", "real_word"]) == 0
    assert capsys.readouterr().out.strip() == "received it, we went to there house"
    assert main(["correct", "--text", "x", "--protect", "(bad"]) == 2
    assert "invalid protected pattern" in capsys.readouterr().err


def test_tex_math_and_commands_are_protected_and_prices_are_not():
    text = r"why $\vert n\rangle$ maps to $\sqrt{n!}\xi^n$, try '\nalert(1)'"
    for kept in (r"$\vert n\rangle$", r"$\sqrt{n!}\xi^n$", r"\nalert"):
        assert covered(text, kept), kept
    assert not covered(text, "maps") and not covered(text, "why")
    # dollars are prices unless what they enclose is TeX (a command, ^, _ or braces)
    assert protected_spans("it costs $5 and $10 now") == [(10, 11), (17, 19)]  # the numbers alone
    assert covered("and $$a_1 + b^2$$ too", "$$a_1 + b^2$$")
    # a tokenizer's cuts: "\ vert" is read glued, and the n inside the math is left alone
    words = "the ket $ \\ vert n \\ rangle $ maps n to 1".split()
    flags = words_protected(words)
    assert [w for w, p in zip(words, flags) if p] == ["$", "\\", "vert", "n", "\\", "rangle", "$", "1"]
    assert tokenised_spacing(["\\", "nalert"]) == [True, False]
