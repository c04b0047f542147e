"""Corpus readers: labelled CoNLL (word + tag, e.g. WNUT 2017) and CoNLL-U (FORM, LEMMA, UPOS, ...),
and the words of any corpus (plain text, CoNLL, CoNLL-U) for statistics and tuning.

Lines come from :func:`charwise.io.read_lines` (UTF-8, BOM and CR rules, errors naming the file
and line) and follow its ``#``-comment rule. Both CoNLL formats are blocks of one-word lines
separated by blank lines. The readers are strict about what would silently corrupt a labelled
data set (a word line without a tag: an :class:`~charwise.errors.InputError` naming the file and
line) and lenient about layout: blank lines that hold only spaces or tabs, several blank lines in
a row and a missing final newline are all accepted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from charwise.errors import ConfigError, InputError
from charwise.io import ReadReport, check_format, detect_format, is_comment, read_lines, text_sentences

__all__ = [
    "TaggedSentence",
    "parse_labelled_conll",
    "parse_labelled_conllu",
    "read_conll",
    "read_conllu",
    "read_sentences",
    "read_tagged",
]

# CoNLL-U columns after ID and FORM, in file order (ID=0, FORM=1).
CONLLU_COLUMNS = ("lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc")


@dataclass
class TaggedSentence:
    """One sentence: its words, one tag per word and optional per-word feature columns.

    ``columns`` maps a column name (CoNLL-U: ``lemma``, ``upos``, ``xpos``, ``feats``, ...) to one
    string per word; it is where word features such as the lemma come from.
    """

    words: list[str]
    tags: list[str]
    columns: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.tags) != len(self.words):
            raise ValueError(f"{len(self.words)} words but {len(self.tags)} tags")
        for name, values in self.columns.items():
            if len(values) != len(self.words):
                raise ValueError(f"column {name!r} has {len(values)} values for {len(self.words)} words")

    @property
    def lemmas(self) -> list[str] | None:
        """The ``lemma`` column, if the corpus has one."""
        return self.columns.get("lemma")

    def __len__(self) -> int:
        return len(self.words)


def _blocks(lines: Iterable[str]) -> Iterable[list[tuple[int, str]]]:
    """Blank-line separated blocks of (1-based line number, line); whitespace-only lines are blank."""
    block: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            if block:
                yield block
                block = []
            continue
        block.append((number, line))
    if block:
        yield block


def _where(source: str, number: int) -> str:
    return f"{source}:{number}" if source else f"line {number}"


def _conll_fields(line: str) -> list[str]:
    """Tab-separated fields when the line has a tab, else whitespace-separated ones."""
    if "\t" in line:
        return [f.strip() for f in line.split("\t")]
    return line.split()


def parse_labelled_conll(
    lines: Iterable[str],
    *,
    comments: bool = False,
    require_tags: bool = True,
    source: str = "",
) -> list[TaggedSentence]:
    """CoNLL: the word in the first non-empty field, the tag in the last field; blank lines
    separate sentences and ``-DOCSTART-`` lines are skipped.

    ``comments=False`` (the default) keeps lines starting with ``#``: in WNUT 2017 they are
    hashtag tokens with their own labels. ``require_tags=False`` accepts one-column lines (tag
    ``""``), which is how :func:`read_sentences` reads unlabelled words.
    """
    sentences: list[TaggedSentence] = []
    for block in _blocks(lines):
        words: list[str] = []
        tags: list[str] = []
        for number, line in block:
            if line.startswith("-DOCSTART-") or is_comment(line, comments):
                continue
            fields = [f for f in _conll_fields(line) if f]  # a leading tab leaves an empty field
            if len(fields) < 2 and require_tags:
                raise InputError(f"{_where(source, number)}: expected a word and a tag, got {line!r}")
            words.append(fields[0])
            tags.append(fields[-1] if len(fields) >= 2 else "")
        if words:
            sentences.append(TaggedSentence(words, tags))
    return sentences


def parse_labelled_conllu(
    lines: Iterable[str],
    *,
    tag_column: str = "upos",
    strict: bool = True,
    source: str = "",
) -> list[TaggedSentence]:
    """CoNLL-U: FORM as the word, ``tag_column`` (default UPOS) as the tag, every other column in
    :attr:`TaggedSentence.columns`. Comments (``#``), multi-word-token ranges (``1-2``) and empty
    nodes (``3.1``) are skipped, so the words are exactly the syntactic words that carry tags.

    ``strict=False`` skips word lines with fewer than the ten columns instead of failing (missing
    columns read as ``_``); it is how :func:`read_sentences` reads bare word lists.
    """
    if tag_column not in CONLLU_COLUMNS:
        raise ConfigError(f"unknown CoNLL-U column {tag_column!r} (known: {', '.join(CONLLU_COLUMNS)})")
    sentences: list[TaggedSentence] = []
    for block in _blocks(lines):
        words: list[str] = []
        columns: dict[str, list[str]] = {name: [] for name in CONLLU_COLUMNS}
        for number, line in block:
            if line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 2:
                cols = line.split()
            if len(cols) < 2:
                if strict:
                    raise InputError(f"{_where(source, number)}: not a CoNLL-U word line: {line!r}")
                continue
            token_id = cols[0].strip()
            if "-" in token_id or "." in token_id:
                continue
            if len(cols) < 10 and strict:
                raise InputError(f"{_where(source, number)}: CoNLL-U word lines have 10 tab-separated "
                                 f"columns, got {len(cols)}: {line!r}")
            words.append(cols[1])
            for i, name in enumerate(CONLLU_COLUMNS, start=2):
                columns[name].append(cols[i] if i < len(cols) else "_")
        if words:
            tags = columns.pop(tag_column)
            sentences.append(TaggedSentence(words, tags, columns))
    return sentences


def read_conll(path: str | Path, *, comments: bool = False) -> list[TaggedSentence]:
    """Labelled sentences of a CoNLL file (see :func:`parse_labelled_conll`)."""
    return parse_labelled_conll(read_lines(path), comments=comments, source=str(path))


def read_conllu(path: str | Path, *, tag_column: str = "upos") -> list[TaggedSentence]:
    """Labelled sentences of a CoNLL-U file (see :func:`parse_labelled_conllu`)."""
    return parse_labelled_conllu(read_lines(path), tag_column=tag_column, source=str(path))


def read_tagged(path: str | Path, format: str = "auto") -> list[TaggedSentence]:
    """``conllu`` for ``.conllu`` files (or ``format="conllu"``), CoNLL otherwise."""
    if format not in ("auto", "conll", "conllu"):
        raise ConfigError(f"unknown labelled format {format!r} (known: auto, conll, conllu)")
    if format == "conllu" or (format == "auto" and Path(path).suffix.lower() == ".conllu"):
        return read_conllu(path)
    return read_conll(path)


def read_sentences(path: str | Path, format: str = "auto", *, comments: bool = False, errors: str = "strict",
                   max_chars: int | None = None, report: ReadReport | None = None) -> list[list[str]]:
    """The words of each sentence of a plain-text, CoNLL or CoNLL-U file, labels ignored.

    ``format="auto"`` follows :func:`charwise.io.detect_format`; plain text is split by
    :func:`charwise.io.text_sentences`; ``comments`` is the CoNLL ``#`` rule of :mod:`charwise.io`.
    ``errors``, ``max_chars`` and ``report`` are :func:`charwise.io.read_lines`'s.
    """
    format = check_format(format)  # a bad format fails before the file is read
    lines = read_lines(path, errors=errors, max_chars=max_chars, report=report)
    if format == "auto":
        format = detect_format(path, lines)
    if format == "conll":
        return [s.words for s in parse_labelled_conll(lines, comments=comments, require_tags=False, source=str(path))]
    if format == "conllu":
        return [s.words for s in parse_labelled_conllu(lines, strict=False, source=str(path))]
    return text_sentences(lines)
