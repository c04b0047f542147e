"""charwise.io: the reading rules (UTF-8, BOM, CR, only \\n ends a line, stdin), format detection,
the '#' comment rule, atomic writers and the data root."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

import charwise
import charwise.io as cio
from charwise.corpora import parse_labelled_conll, parse_labelled_conllu, read_sentences
from charwise.errors import CharwiseError, ConfigError, InputError, MissingInputError
from charwise.io import (
    atomic_directory,
    atomic_file,
    check_format,
    data_root,
    detect_format,
    is_comment,
    read_json,
    read_lines,
    text_sentences,
    write_json,
    write_text,
)


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# --- reading -------------------------------------------------------------------------------------
def test_bom_is_dropped(tmp_path):
    path = write(tmp_path, "bom.txt", b"\xef\xbb\xbfhello\nworld\n")
    assert read_lines(path) == ["hello", "world"]


def test_crlf_and_missing_final_newline(tmp_path):
    assert read_lines(write(tmp_path, "crlf.txt", b"a\r\nb\r\n\r\nc")) == ["a", "b", "", "c"]
    # A lone \r inside a line is text, not a line end.
    assert read_lines(write(tmp_path, "cr.txt", b"a\rb\n")) == ["a\rb"]
    assert read_lines(write(tmp_path, "empty.txt", b"")) == []
    assert read_lines(write(tmp_path, "blank.txt", b"\n")) == [""]


def test_unicode_line_separators_stay_inside_the_line(tmp_path):
    # str.splitlines would split on each of these and shift every label after them.
    text = "a\u2028b\tO\nc\u0085d\u2029e\x1cf\tB-x\n"
    path = write(tmp_path, "seps.conll", text.encode("utf-8"))
    assert read_lines(path) == ["a\u2028b\tO", "c\u0085d\u2029e\x1cf\tB-x"]
    sentences = parse_labelled_conll(read_lines(path))
    assert sentences[0].words == ["a\u2028b", "c\u0085d\u2029e\x1cf"] and sentences[0].tags == ["O", "B-x"]


def test_non_utf8_names_file_and_line(tmp_path):
    path = write(tmp_path, "latin1.txt", "ok\nstill ok\ncaf\u00e9\n".encode("latin-1"))
    with pytest.raises(InputError) as info:
        read_lines(path)
    message = str(info.value)
    assert str(path) in message and "line 3" in message and "not UTF-8" in message
    assert isinstance(info.value, ValueError) and isinstance(info.value, CharwiseError)
    assert "\n" not in message


def test_stdin_dash(monkeypatch):
    fake = io.TextIOWrapper(io.BytesIO("\ufeffone\r\ntwo\u2028half\n".encode("utf-8")))
    monkeypatch.setattr(sys, "stdin", fake)
    assert read_lines("-") == ["one", "two\u2028half"]
    bad = io.TextIOWrapper(io.BytesIO(b"fine\n\xff\n"))
    monkeypatch.setattr(sys, "stdin", bad)
    with pytest.raises(InputError, match=r"<stdin>, line 2: not UTF-8"):
        read_lines("-")


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(MissingInputError, match="file not found") as info:
        read_lines(tmp_path / "nope.txt")
    assert isinstance(info.value, FileNotFoundError) and str(tmp_path / "nope.txt") in str(info.value)
    with pytest.raises(MissingInputError, match="not a file") as info:
        read_lines(tmp_path)
    assert str(tmp_path) in str(info.value)


def test_read_json(tmp_path):
    assert read_json(write(tmp_path, "ok.json", b'\xef\xbb\xbf{"a": [1, "\xc3\xa9"]}\r\n')) == {"a": [1, "é"]}
    with pytest.raises(InputError, match=r"bad.json, line 2, column \d+: not valid JSON"):
        read_json(write(tmp_path, "bad.json", b'{"a": 1,\n oops}\n'))


# --- formats -------------------------------------------------------------------------------------
def test_format_detection(tmp_path):
    assert detect_format(tmp_path / "x.conllu", []) == "conllu"
    assert detect_format(tmp_path / "x.CONLL", []) == "conll"
    assert detect_format(tmp_path / "x.annotated", []) == "conll"
    conll = write(tmp_path, "tabs.txt", b"a\tO\nb\tB-x\n\nc\tO\n")
    assert detect_format(conll) == "conll"
    assert detect_format(write(tmp_path, "text.txt", b"a b c\nd\te\n")) == "text"  # one line without a tab
    assert detect_format(write(tmp_path, "empty.txt", b"")) == "text"
    assert detect_format("-", ["a\tO", "", "b\tO"]) == "conll"  # lines given: the file is not read
    assert check_format("auto") == "auto"
    with pytest.raises(ConfigError, match="unknown corpus format 'xml'"):
        check_format("xml")


def test_text_sentences():
    assert text_sentences(["Hello, world!", "", "   ", "two words"]) == [["Hello", ",", "world", "!"],
                                                                         ["two", "words"]]


def test_comment_rule(tmp_path):
    assert is_comment("#tag\tO", comments=True) and not is_comment("#tag\tO", comments=False)
    assert not is_comment("a\tO", comments=True)
    lines = ["#hashtag\tB-x", "word\tO", "", "# sent_id = 2", "next\tO"]
    # CoNLL: '#' lines are tokens unless comments=True (WNUT 2017 hashtags have labels).
    kept = parse_labelled_conll(lines)
    assert kept[0].words == ["#hashtag", "word"] and kept[0].tags == ["B-x", "O"]
    assert kept[1].words == ["#", "next"]  # "# sent_id = 2" read as a word and a tag
    dropped = parse_labelled_conll(lines, comments=True)
    assert [s.words for s in dropped] == [["word"], ["next"]]
    # CoNLL-U: always a comment.
    conllu = write(tmp_path, "x.conllu", b"# text = a\n1\t#a\t_\tX\t_\t_\t_\t_\t_\t_\n")
    assert parse_labelled_conllu(read_lines(conllu))[0].words == ["#a"]
    assert read_sentences(conllu) == [["#a"]]
    conll = write(tmp_path, "x.conll", b"#tag\tB-x\nword\tO\n")
    assert read_sentences(conll) == [["#tag", "word"]]
    assert read_sentences(conll, comments=True) == [["word"]]


# --- writing -------------------------------------------------------------------------------------
def test_atomic_directory_keeps_the_old_output_when_the_body_raises(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.txt").write_text("old")
    with pytest.raises(RuntimeError, match="boom"):
        with atomic_directory(out) as tmp:
            (tmp / "half.bin").write_bytes(b"half")
            raise RuntimeError("boom")
    assert [p.name for p in out.iterdir()] == ["old.txt"] and (out / "old.txt").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"], "the temporary directory must be removed"
    with atomic_directory(out) as tmp:
        (tmp / "sub").mkdir()
        (tmp / "sub" / "new.txt").write_text("new")
    assert sorted(p.name for p in out.iterdir()) == ["sub"] and (out / "sub" / "new.txt").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert (out.stat().st_mode & 0o777) == 0o755 and ((out / "sub" / "new.txt").stat().st_mode & 0o777) == 0o644


def test_atomic_directory_creates_parents(tmp_path):
    with atomic_directory(tmp_path / "a" / "b" / "out") as tmp:
        (tmp / "x").write_text("x")
    assert (tmp_path / "a" / "b" / "out" / "x").read_text() == "x"


def test_atomic_file_keeps_the_old_file_when_the_body_raises(tmp_path):
    path = tmp_path / "report.json"
    path.write_text("old")
    with pytest.raises(RuntimeError, match="boom"):
        with atomic_file(path) as f:
            f.write("half")
            raise RuntimeError("boom")
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"], "the temporary file must be removed"
    with atomic_file(path, "wb") as f:
        f.write(b"\x00new")
    assert path.read_bytes() == b"\x00new" and (path.stat().st_mode & 0o777) == 0o644


def test_write_json_and_text(tmp_path):
    write_json(tmp_path / "sub" / "x.json", {"word": "café", "n": [1, 2]})
    text = (tmp_path / "sub" / "x.json").read_text(encoding="utf-8")
    assert json.loads(text) == {"word": "café", "n": [1, 2]} and "café" in text and text.endswith("\n")
    write_text(tmp_path / "t.txt", "a\u2028b\n")
    assert read_lines(tmp_path / "t.txt") == ["a\u2028b"]


# --- data root -----------------------------------------------------------------------------------
def test_data_root_honours_charwise_data(monkeypatch, tmp_path):
    monkeypatch.delenv(cio.DATA_ENV, raising=False)
    default = data_root()
    assert default == Path(charwise.__file__).resolve().parent / "data" and (default / "ud_en_ewt").is_dir()
    monkeypatch.setenv("CHARWISE_DATA", str(tmp_path))
    assert data_root() == tmp_path
    monkeypatch.setenv("CHARWISE_DATA", "~/somewhere")
    assert data_root() == Path(os.path.expanduser("~/somewhere"))
