"""The one IO layer: reading text files, recognising their format, writing outputs atomically.

Reading rules (every reader in charwise goes through :func:`read_lines`):

* the file is UTF-8; a leading byte-order mark is dropped; anything else that does not decode is
  an :class:`~charwise.errors.InputError` naming the file and the line;
* only ``\\n`` ends a line and a ``\\r`` before it is dropped. ``str.splitlines`` would also split
  on U+2028, U+0085 and friends, which occur inside tokens of user-generated text and would shift
  every label after them;
* ``-`` reads standard input with the same rules.

Formats (:func:`detect_format`): ``conllu`` for ``.conllu`` files, ``conll`` for ``.conll`` /
``.annotated`` files or files whose every non-blank line has at least two tab-separated columns,
``text`` otherwise.

Comment rule (:data:`COMMENT_PREFIX`): in CoNLL-U a line starting with ``#`` is always a comment
(the format says so). In CoNLL it is a token unless the caller asks for ``comments=True``: in WNUT
2017, ``#`` lines are hashtag tokens with their own labels, so labelled readers keep them, while
the published tokenisation statistics drop them (``charwise stats`` does by default).

Plain text (:func:`text_sentences`): one sentence per non-blank line, split into words by
:func:`charwise.words.split_words`, the same splitter the hybrid models use on raw text.

Writing: :func:`atomic_directory` and :func:`atomic_file` build an output next to its destination
and rename it into place, so that a kill at any moment leaves the old output or the new one, never
half of each.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator

from charwise.errors import ConfigError, InputError, MissingInputError

FORMATS = ("auto", "text", "conll", "conllu")
COMMENT_PREFIX = "#"
DATA_ENV = "CHARWISE_DATA"


# --- reading -------------------------------------------------------------------------------------
def decode_lines(data: bytes, source: str) -> list[str]:
    """Lines of UTF-8 ``data`` (see the module's reading rules); ``source`` names it in errors."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    raw = data.split(b"\n")
    if raw and raw[-1] == b"":
        raw.pop()  # the final newline ends the last line; it does not start an empty one
    lines = []
    for number, line in enumerate(raw, start=1):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(f"{source}, line {number}: not UTF-8 text ({e.reason} at byte {e.start} of the line)"
                             ) from None
        lines.append(text[:-1] if text.endswith("\r") else text)
    return lines


def read_lines(path: str | os.PathLike) -> list[str]:
    """Lines of a UTF-8 text file, or of standard input for ``"-"`` (see the module's rules)."""
    if str(path) == "-":
        return decode_lines(sys.stdin.buffer.read(), "<stdin>")
    path = Path(path)
    if not path.exists():
        raise MissingInputError(f"file not found: {path}")
    if not path.is_file():
        raise MissingInputError(f"not a file (a directory?): {path}")
    return decode_lines(path.read_bytes(), str(path))


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
    return Path(env).expanduser() if env else Path(__file__).resolve().parent / "data"


# --- writing -------------------------------------------------------------------------------------
def _publish(src: Path, dst: Path) -> None:
    """Move the finished ``src`` to ``dst``; an old ``dst`` is removed only after the new one is in place."""
    # mkdtemp creates 0700 directories; outputs are meant to be shared like any saved model.
    os.chmod(src, 0o755)
    for child in src.rglob("*"):
        os.chmod(child, 0o755 if child.is_dir() else 0o644)
    old = None
    if dst.exists():
        old = dst.with_name(f".{dst.name}.old-{os.getpid()}")
        os.replace(dst, old)
    os.replace(src, dst)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def atomic_directory(directory: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary directory next to ``directory``; on success it replaces ``directory``.

    Example::

        with atomic_directory("runs/x/encoder") as tmp:
            (tmp / "config.json").write_text("{}")
    """
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
    try:
        yield tmp
        _publish(tmp, directory)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike, mode: str = "w") -> Iterator[Any]:
    """Yield a file object (``mode`` ``"w"`` text UTF-8 or ``"wb"``) that replaces ``path`` on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with open(fd, mode, encoding=None if "b" in mode else "utf-8") as f:
            yield f
        os.chmod(name, 0o644)
        os.replace(name, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)


def write_json(path: str | os.PathLike, data: Any) -> None:
    """Write ``data`` as indented UTF-8 JSON, atomically."""
    with atomic_file(path) as f:
        json.dump(data, f, indent=2, ensure_ascii=False)
        f.write("\n")


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` as UTF-8, atomically."""
    with atomic_file(path) as f:
        f.write(text)


def append_jsonl(path: str | os.PathLike, record: dict[str, Any]) -> None:
    """Append one JSON record as a line (logs grow by whole lines)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
