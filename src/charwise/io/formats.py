"""What a text file holds (plain text, CoNLL, CoNLL-U, JSON) and where the built-in data lives."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from charwise.errors import ConfigError, InputError
from charwise.io.reading import read_lines

FORMATS = ("auto", "text", "conll", "conllu")
COMMENT_PREFIX = "#"
DATA_ENV = "CHARWISE_DATA"


def is_comment(line: str, comments: bool) -> bool:
    """Whether a CoNLL line is a comment under the module's comment rule."""
    return comments and line.startswith(COMMENT_PREFIX)


def detect_format(path: str | os.PathLike, lines: list[str] | None = None) -> str:
    """``conllu``, ``conll`` or ``text`` (see the module's format rules)."""
    suffix = Path(path).suffix.lower()
    if suffix == ".conllu":
        return "conllu"
    if suffix in (".conll", ".annotated"):
        return "conll"
    if lines is None:
        lines = read_lines(path)
    nonblank = [line for line in lines if line.strip()]
    if nonblank and all(len(line.split("\t")) >= 2 for line in nonblank):
        return "conll"
    return "text"


def check_format(format: str) -> str:
    """``format`` if it is one of :data:`FORMATS`, else a :class:`~charwise.errors.ConfigError`."""
    if format not in FORMATS:
        raise ConfigError(f"unknown corpus format {format!r} (known: {', '.join(FORMATS)})")
    return format


def read_json(path: str | os.PathLike) -> Any:
    """The JSON value of a UTF-8 file read by :func:`read_lines`; invalid JSON is an
    :class:`~charwise.errors.InputError` naming the file, line and column."""
    try:
        return json.loads("\n".join(read_lines(path)))
    except json.JSONDecodeError as e:
        raise InputError(f"{path}, line {e.lineno}, column {e.colno}: not valid JSON ({e.msg})") from None


def text_sentences(lines: list[str]) -> list[list[str]]:
    """Plain text: the words of each non-blank line, split by :func:`charwise.words.split_words`."""
    from charwise.words import split_words

    return [words for words in (split_words(line).words for line in lines if line.strip()) if words]


def data_root() -> Path:
    """Where the built-in data sets live: ``$CHARWISE_DATA`` if set, else the package's ``data/``
    (installed with the wheel, so built-in tasks work outside a source checkout)."""
    env = os.environ.get(DATA_ENV)
    return Path(env).expanduser() if env else Path(__file__).resolve().parent.parent / "data"


def bible_path() -> Path:
    """The built-in verse-aligned Spanish-English Bible (TSV: ref, es, en)."""
    return data_root() / "bible_es_en" / "bible.es-en.tsv"
