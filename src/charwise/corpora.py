"""Labelled corpus readers: CoNLL (word + tag, e.g. WNUT 2017) and CoNLL-U (FORM, LEMMA, UPOS, ...).

Both formats are blocks of one-word lines separated by blank lines. The readers are strict about
what would silently corrupt a labelled data set (a word line without a tag, a file that is not
UTF-8: a :class:`ValueError` naming the file and line) and lenient about layout: blank lines that
hold only spaces or tabs, several blank lines in a row, a missing final newline, Windows line
ends (CRLF) and a UTF-8 byte-order mark are all accepted.

:mod:`charwise.stats` reads its (unlabelled) CoNLL and CoNLL-U words through the same parsers.

Built-in tasks (:data:`TASKS`) name the repository's data files: ``wnut17`` (emerging-entity NER,
BIO tags) and ``ewt-upos`` (UD English EWT, universal POS tags, lemmas kept as a feature column).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

__all__ = [
    "TASKS",
    "TaggedSentence",
    "TaskData",
    "load_task",
    "parse_labelled_conll",
    "parse_labelled_conllu",
    "read_conll",
    "read_conllu",
    "read_lines",
    "read_tagged",
]

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = REPO_ROOT / "data"

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


def read_lines(path: str | Path) -> list[str]:
    """Lines of a UTF-8 text file, split on ``\\n`` only (a CR before it is dropped).

    Only ``\\n`` ends a line: ``str.splitlines`` would also split on characters such as U+2028 or
    U+0085, which can occur inside a token of user-generated text and would shift every label
    after them. A leading byte-order mark is removed.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"corpus file not found: {path}")
    if not path.is_file():
        raise FileNotFoundError(f"corpus path is not a file: {path}")
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path} is not UTF-8 text ({e.reason} at byte {e.start})") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline ends the last line; it does not start an empty one
    return [line[:-1] if line.endswith("\r") else line for line in lines]


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
    ``""``), which is how :func:`charwise.stats.parse_conll` reads unlabelled words.
    """
    sentences: list[TaggedSentence] = []
    for block in _blocks(lines):
        words: list[str] = []
        tags: list[str] = []
        for number, line in block:
            if line.startswith("-DOCSTART-") or (comments and line.startswith("#")):
                continue
            fields = [f for f in _conll_fields(line) if f]  # a leading tab leaves an empty field
            if len(fields) < 2 and require_tags:
                raise ValueError(f"{_where(source, number)}: expected a word and a tag, got {line!r}")
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
    columns read as ``_``); it is how :func:`charwise.stats.parse_conllu` reads bare word lists.
    """
    if tag_column not in CONLLU_COLUMNS:
        raise ValueError(f"unknown CoNLL-U column {tag_column!r} (known: {', '.join(CONLLU_COLUMNS)})")
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
                    raise ValueError(f"{_where(source, number)}: not a CoNLL-U word line: {line!r}")
                continue
            token_id = cols[0].strip()
            if "-" in token_id or "." in token_id:
                continue
            if len(cols) < 10 and strict:
                raise ValueError(f"{_where(source, number)}: CoNLL-U word lines have 10 tab-separated "
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
        raise ValueError(f"unknown labelled format {format!r} (known: auto, conll, conllu)")
    if format == "conllu" or (format == "auto" and Path(path).suffix.lower() == ".conllu"):
        return read_conllu(path)
    return read_conll(path)


# --- built-in tasks ------------------------------------------------------------------------------
@dataclass(frozen=True)
class TaskSpec:
    """Where a built-in task's splits live and how to score it."""

    name: str
    files: dict[str, str]  # split -> path relative to the repository's data/ directory
    format: str
    metric: str  # "entity_f1" (seqeval conventions) or "accuracy"


TASKS: dict[str, TaskSpec] = {
    "wnut17": TaskSpec("wnut17", {"train": "wnut17/wnut17train.conll", "dev": "wnut17/emerging.dev.conll",
                                  "test": "wnut17/emerging.test.annotated"}, "conll", "entity_f1"),
    "ewt-upos": TaskSpec("ewt-upos", {"train": "ud_en_ewt/en_ewt-ud-train.conllu",
                                      "dev": "ud_en_ewt/en_ewt-ud-dev.conllu",
                                      "test": "ud_en_ewt/en_ewt-ud-test.conllu"}, "conllu", "accuracy"),
}


@dataclass
class TaskData:
    """The three splits of a task, read."""

    spec: TaskSpec
    train: list[TaggedSentence]
    dev: list[TaggedSentence]
    test: list[TaggedSentence]


def load_task(name: str, data_dir: str | Path | None = None, splits: Iterable[str] = ("train", "dev", "test")
              ) -> TaskData:
    """Read a built-in task from ``data_dir`` (default: the repository's ``data/``)."""
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r} (known: {', '.join(TASKS)})")
    spec = TASKS[name]
    root = Path(data_dir) if data_dir is not None else DATA_DIR
    read = {s: read_tagged(root / spec.files[s], spec.format) if s in set(splits) else [] for s in spec.files}
    return TaskData(spec, read["train"], read["dev"], read["test"])
