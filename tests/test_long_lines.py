"""Long lines are never cut short where text is written back: :func:`charwise.io.iter_windows` gives
every character of a line of any length in windows cut after whitespace, ``charwise correct``
corrects such a line window by window (the sentence state carried across windows, so the result is
that of the whole line) and writes it back whole, in bounded memory; ``charwise.repair`` keeps its
offsets on long texts. The tiny speller of tests/conftest.py; the shipped one marked ``real``."""

from __future__ import annotations

import io
import json
import random
import re
import tracemalloc

import pytest

import charwise.io as cio
from charwise.cli import main
from charwise.errors import InputError
from charwise.io import ReadReport, iter_windows, text_windows
from charwise.speller import Speller
from charwise.speller.repair import repair
from conftest import fresh_cache_unless_real

WORDS = ["the", "house", "and", "horse", "said", "after", "stop", "here", "night", "business", "weird"]
TYPOS = {"recieve": "receive", "pakage": "package", "horsee": "horse"}  # Horsee: only at a sentence start


@pytest.fixture(autouse=True)
def cache_dir(request, tmp_path, monkeypatch):
    fresh_cache_unless_real(request, tmp_path, monkeypatch)


@pytest.fixture
def speller(tiny_speller) -> Speller:
    return tiny_speller


@pytest.fixture
def tiny_cli(speller, monkeypatch):
    """``charwise correct`` with the tiny speller."""
    monkeypatch.setattr(Speller, "load", classmethod(lambda cls, *args, **kwargs: speller))
    return speller


def long_line(chars: int, seed: int = 0) -> str:
    """Sentences of the tiny lexicon's words with misspellings and names (``Horsee``: a name by its
    case mid-sentence, left alone; ``Recieve`` at a sentence start: corrected), every kind of space."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < chars:
        sentence: list[str] = []
        while len(sentence) < rng.randint(3, 12):  # no word twice in a row: the speller deletes `the the`
            word = rng.choice(WORDS + ["recieve", "pakage", "Horsee"])
            if not sentence or word.lower() != sentence[-1].lower():
                sentence.append(word)
        if rng.random() < 0.3:
            sentence[0] = "Recieve"
        text = " ".join(sentence) + rng.choice([".", "!", " ,", ";"]) + rng.choice([" ", "  ", "\t", "\u00a0 ", " "])
        parts.append(text)
        size += len(text)
    joined = "".join(parts)
    cut = joined[:chars]
    if joined[chars:chars + 1].isalpha():  # a word cut in two would be a misspelling (``sto``)
        cut = cut[:cut.rfind(" ")]
    return cut.rstrip() + " here"


def tokens_match_outside_corrections(written: str, read: str) -> int:
    """Whether ``written`` is ``read`` with only misspellings replaced (every other character, whitespace
    included, identical); returns the number of changed words."""
    a, b = re.split(r"(\w+)", read), re.split(r"(\w+)", written)
    assert len(a) == len(b)
    changed = 0
    for x, y in zip(a, b):
        if x != y:
            assert TYPOS.get(x.lower()) == y.lower(), (x, y)
            changed += 1
    return changed


# --- reading: every character, in windows -------------------------------------------------------------
def test_iter_windows_gives_every_character_of_a_multi_megabyte_line(tmp_path):
    line = long_line(3_000_000)
    path = tmp_path / "long.txt"
    path.write_bytes(b"\xef\xbb\xbf" + line.encode("utf-8") + b"\r\nshort line\r\n\nlast")
    report = ReadReport()
    windows = list(iter_windows(path, max_chars=1000, report=report))
    lines, current = [], ""
    for window in windows:
        assert len(window.text) <= 1000 and not window.verbatim
        assert window.line_start == (current == "")
        current += window.text
        if window.line_end:
            lines.append(current)
            current = ""
        else:
            assert window.text[-1].isspace()  # cut after whitespace: never inside a word
    assert lines == [line, "short line", "", "last"] == cio.read_lines(path)
    assert (report.lines, report.windowed, report.verbatim, report.cut) == (4, 1, 0, 0)
    assert report.warnings(str(path), 1000) == []


def test_a_stretch_without_whitespace_comes_verbatim():
    text = "a b " + "x," * 1500 + " c d"
    report = ReadReport()
    windows = list(text_windows(text, 1000, report))
    assert "".join(w.text for w in windows) == text
    assert [len(w.text) for w in windows if w.verbatim] == [1000, 1000, 1000]
    assert [w.text for w in windows if not w.verbatim] == ["a b ", " c d"]
    assert report.verbatim == 1 and "without whitespace" in report.warnings("x", 1000)[0]
    assert [w.text for w in text_windows("x" * 2500, 1000)] == ["x" * 1000, "x" * 1000, "x" * 500]
    assert list(text_windows("", 10)) == [cio.TextWindow("")]


def test_a_bad_byte_far_into_a_long_line_is_named(tmp_path):
    data = b"word " * 400_000 + b"\xff" + b" more\n"
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    with pytest.raises(InputError) as windows_error:
        list(iter_windows(path))
    with pytest.raises(InputError) as lines_error:
        cio.read_lines(path)
    assert str(windows_error.value) == str(lines_error.value)
    assert "line 1" in str(windows_error.value) and "byte 2000000 of the line" in str(windows_error.value)
    fixed = [w.text for w in iter_windows(path, errors="replace")]
    assert "".join(fixed) == data[:-1].decode("utf-8", errors="replace")


# --- charwise correct: a long line comes back whole ---------------------------------------------------
@pytest.mark.parametrize("window", [pytest.param(1000, marks=pytest.mark.slow), 100_000])  # 100_000: the default
def test_correct_command_writes_a_multi_megabyte_line_back_whole(tiny_cli, tmp_path, capsys, window):
    line = long_line(2_000_000)
    path = tmp_path / "in.txt"
    path.write_text(line + "\nThe pakage.\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    # one-time set-up outside the measure (three unknown words: the foreign-sentence check's table too)
    assert main(["correct", "--text", "the pakage and Horsee recieved teh qwzx", "--plain"]) == 0
    if window == 1000:
        tracemalloc.start()
    try:
        # one process: the tiny speller is this process's (worker processes load their own)
        assert main(["correct", str(path), "--plain", "--out", str(out), "--max-line-chars", str(window),
                     "--workers", "1"]) == 0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    written = out.read_text(encoding="utf-8").split("\n")
    assert len(written) == 3 and written[1:] == ["The package.", ""]
    assert len(written[0]) >= len(line) and tokens_match_outside_corrections(written[0], line) > 10_000
    # window by window is the whole line corrected at once: the sentence state carries across windows
    # (a capitalised name mid-sentence at a window's start is still a name)
    assert written[0] == tiny_cli.correct_lines([line])[0].corrected
    assert "Horsee" in written[0] and "Receive" in written[0]
    err = capsys.readouterr().err
    assert "warning" not in err and "cut" not in err
    # memory is bounded by the window, not by the line: no structure per word of the whole line
    if window == 1000:  # (the whole line at once holds hundreds of MB: an object per word)
        assert peak < 20_000_000, peak


def test_correct_command_json_and_marked_on_a_long_line(tiny_cli, tmp_path, capsys):
    line = long_line(300_000, seed=1)
    path = tmp_path / "in.txt"
    path.write_text(line + "\nthe pakage\n", encoding="utf-8")
    whole = tiny_cli.correct_lines([line])[0]
    assert main(["correct", str(path), "--json", "--max-line-chars", "500"]) == 0
    objects = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(objects) == 2 and objects[1]["corrected"] == "the package"
    first = objects[0]
    assert first["text"] == line and first["corrected"] == whole.corrected
    # offsets into the whole line; a word kept says why with the words around it in its window
    # (a confusion member at a window's edge may read 0.01 whole and 0.00 cut), so only changes are compared whole
    def changes(words: list[dict]) -> list[dict]:
        return [w if w["changed"] else {k: v for k, v in w.items() if k != "decided_by"} for w in words]
    assert changes(first["words"]) == changes(whole.to_dict()["words"])
    assert all(line[w["start"] : w["end"]] == w["word"] for w in first["words"])
    assert main(["correct", str(path), "--max-line-chars", "500"]) == 0
    assert capsys.readouterr().out.splitlines() == [whole.marked(), "the [pakage -> package]"]
    assert main(["correct", "--text", line, "--plain", "--max-line-chars", "500"]) == 0  # --text too
    assert capsys.readouterr().out == whole.corrected + "\n"


def test_correct_command_passes_a_stretch_without_whitespace_through(tiny_cli, tmp_path, capsys):
    stretch = "pakage," * 400  # 2800 characters, no place to cut a window of 1000
    text = f"the pakage {stretch} and the pakage"
    path = tmp_path / "in.txt"
    path.write_text(text + "\n", encoding="utf-8")
    assert main(["correct", str(path), "--plain", "--max-line-chars", "1000"]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"the package {stretch} and the package\n"
    assert "1 stretches of more than 1000 characters without whitespace were written back as they are" in captured.err


# --- charwise.repair: long texts keep every character and their offsets ------------------------------
def test_repair_of_a_long_text_keeps_every_character_and_offset(speller):
    text = long_line(1_000_000, seed=2)
    (fixed,) = repair([text], speller=speller)
    assert fixed.text == text and tokens_match_outside_corrections(fixed.corrected, text) > 5_000
    assert all(text[w.start : w.end] == w.word for w in fixed.words)
    changed = [w for w in fixed.words if w.changed]
    assert changed and all(TYPOS[w.word.lower()] == w.correction.lower() for w in changed)


# --- the shipped speller ------------------------------------------------------------------------------
@pytest.mark.real
@pytest.mark.slow
def test_real_speller_corrects_a_multi_megabyte_line_whole(tmp_path, capsys):
    sentences = ["I recieved the pacakge and it was definately late.", "We met Okrent in High Wycombe yesterday.",
                 "The weather was beautiful, and the business went on as usual.", "Their chai was lovely tonight."]
    fixes = {"recieved": "received", "pacakge": "package", "definately": "definitely"}
    rng = random.Random(0)
    parts, size = [], 0
    while size < 2_000_000:
        parts.append(rng.choice(sentences) + rng.choice([" ", "  ", "\t"]))
        size += len(parts[-1])
    line = "".join(parts).rstrip()
    path = tmp_path / "in.txt"
    path.write_text(line + "\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    assert main(["correct", str(path), "--plain", "--out", str(out)]) == 0
    written = out.read_text(encoding="utf-8")
    expected = line
    for bad, good in fixes.items():
        expected = expected.replace(bad, good)
    assert written == expected + "\n"
    assert "warning" not in capsys.readouterr().err
    stream = io.StringIO()
    from charwise.cli.correct import correct_windows

    speller = Speller.load("en")
    speller.correct(sentences[0])  # one-time set-up (the lexicon's lookup index) outside the measure
    tracemalloc.start()
    try:
        correct_windows(speller, text_windows(line), stream, "plain")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert stream.getvalue() == expected + "\n" and peak < 100_000_000, peak


# --- charwise tag predict: every word of a long line gets its tag ------------------------------------
def test_tag_predict_reads_a_long_line_whole(tmp_path, capsys):
    import argparse

    from charwise.cli.tag_predict import _read_for_prediction
    from charwise.words import split_words

    line = long_line(500_000, seed=3) + " " + "x" * 3000  # a stretch longer than the window: read too
    path = tmp_path / "in.txt"
    path.write_text(line + "\nshort one\n", encoding="utf-8")
    sentences, _ = _read_for_prediction(str(path), "auto", argparse.Namespace(errors="strict", max_line_chars=1000))
    assert sentences == [split_words(line).words, ["short", "one"]]
    assert capsys.readouterr().err == ""  # nothing was cut, nothing left unread


@pytest.mark.filterwarnings("ignore:.*were truncated")  # the model's own token limit
def test_tag_predict_streams_every_word_of_a_long_line(tmp_path, tiny_bert_dir, capsys):
    """The CLI tags plain text a batch of windows at a time: every word in order, a long line (even
    one with stretches longer than a window and without whitespace) is still one sentence."""
    from charwise.tagging import TaggerConfig
    from charwise.tagging.model import build_tagger
    from charwise.teachers import Teacher
    from charwise.words import split_words

    config = TaggerConfig(task="toy", teacher=str(tiny_bert_dir), policy="none", pool="first")
    build_tagger(config, ["A", "B"], teacher=Teacher.load(str(tiny_bert_dir))).save(tmp_path / "tagger")
    line = long_line(20_000, seed=5) + " " + "x" * 3000 + "don't" + "." * 2500 + " end"
    path = tmp_path / "in.txt"
    path.write_text("first one\n\n" + line + "\nlast\n", encoding="utf-8")
    out = tmp_path / "out.conll"
    assert main(["tag", "predict", str(tmp_path / "tagger"), str(path), "--max-line-chars", "1000",
                 "--out", str(out)]) == 0
    with open(out, encoding="utf-8", newline="") as f:
        blocks = f.read().split("\n\n")
    assert blocks[-1] == ""
    rows = [[row.split("\t") for row in block.split("\n")] for block in blocks[:-1]]
    assert [[word for word, _ in block] for block in rows] == [["first", "one"], split_words(line).words, ["last"]]
    assert {tag for block in rows for _, tag in block} <= {"A", "B"}
    err = capsys.readouterr().err
    assert "3 sentences tagged" in err and "1 sentences had more than" in err and "unread" not in err
