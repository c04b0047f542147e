"""Reading text: UTF-8 lines and windows, lazily, with the rules of :mod:`charwise.io`."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterable, Iterator

from charwise.errors import ConfigError, InputError, MissingInputError

ERRORS = ("strict", "replace")
MAX_LINE_CHARS = 100_000  # characters kept of one line; the rest of the line is skipped unread
_CHUNK = 1 << 20
_SURROGATE = re.compile("[\ud800-\udfff]")


def check_errors(errors: str) -> str:
    """``errors`` if it is one of :data:`ERRORS`, else a :class:`~charwise.errors.ConfigError`."""
    if errors not in ERRORS:
        raise ConfigError(f"errors must be one of {', '.join(ERRORS)}, got {errors!r}")
    return errors


def check_max_chars(max_chars: int | None) -> int | None:
    """``max_chars`` if it is None or a positive int, else a :class:`~charwise.errors.ConfigError`."""
    if max_chars is not None and (isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1):
        raise ConfigError(f"max_chars must be a positive integer or None, got {max_chars!r}")
    return max_chars


@dataclass
class ReadReport:
    """What :func:`iter_lines` did to a source: lines read, cut (too long) and with replaced bytes."""

    lines: int = 0
    cut: int = 0
    replaced: int = 0
    windowed: int = 0  # iter_windows: lines longer than a window, read in several (nothing dropped)
    verbatim: int = 0  # iter_windows: stretches without whitespace longer than a window, passed on unread

    def warnings(self, source: str, max_chars: int | None) -> list[str]:
        """One sentence per thing that changed the input (or was left unread), for the command line to print."""
        out = []
        if self.cut:
            out.append(f"{source}: {self.cut} of {self.lines} lines were longer than {max_chars} characters and "
                       f"were cut to their first {max_chars} (--max-line-chars sets the limit)")
        if self.verbatim:
            out.append(f"{source}: {self.verbatim} stretches of more than {max_chars} characters without whitespace "
                       "were written back as they are, unread (--max-line-chars sets the limit)")
        if self.replaced:
            out.append(f"{source}: {self.replaced} lines held bytes that are not UTF-8, read as U+FFFD")
        return out


def _complete_utf8(data: bytes) -> bytes:
    """``data`` without a multi-byte character cut short at its end (a line cut inside one)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 != 0x80:  # an ASCII byte or the lead byte of a sequence
            need = 2 if byte & 0xE0 == 0xC0 else 3 if byte & 0xF0 == 0xE0 else 4 if byte & 0xF8 == 0xF0 else 1
            return data[:-back] if need > back else data
    return data


def _raw_lines(stream: IO[bytes], max_bytes: int | None) -> Iterator[tuple[bytes, bool]]:
    """``(bytes of the line, at most max_bytes; whether it was longer)`` for each line of ``stream``
    (the parts of :func:`_raw_line_parts`, joined up to ``max_bytes``: memory stays bounded by it)."""
    buf, cut = bytearray(), False
    for data, end in _raw_line_parts(stream):
        room = len(data) if max_bytes is None else max(0, max_bytes - len(buf))
        buf += data[:room]
        cut = cut or len(data) > room
        if end:
            yield bytes(buf), cut
            buf, cut = bytearray(), False


def decode_line(data: bytes, source: str, number: int, errors: str = "strict", offset: int = 0) -> tuple[str, bool]:
    """One line's UTF-8 text and whether bytes were replaced (``errors="replace"``); a line that is
    not UTF-8 under ``errors="strict"`` is an :class:`~charwise.errors.InputError` naming it.
    ``data`` may be the last part of the line, starting at byte ``offset`` of it (errors name the byte)."""
    text, replaced = _decode_part(data, source, number, errors, offset)
    return (text[:-1] if text.endswith("\r") else text), replaced


def _decode_part(data: bytes, source: str, number: int, errors: str, offset: int) -> tuple[str, bool]:
    """:func:`decode_line` of any part of a line (a CR at its end is text)."""
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError as e:
        if errors != "replace":
            raise InputError(f"{source}, line {number}: not UTF-8 text ({e.reason} at byte {offset + e.start} of the "
                             "line); pass --errors replace to read such bytes as U+FFFD") from None
        return data.decode("utf-8", errors="replace"), True


def check_input_file(path: str | os.PathLike, what: str = "input file") -> Path:
    """``path`` if it is a file that can be read, else a :class:`~charwise.errors.MissingInputError`
    with the message every command gives: ``input is a directory, not a file: PATH``, ``WHAT not
    found: PATH`` (``what``: ``"input file"``, ``"corpus file"``, ...) or ``input is not a regular
    file: PATH``. Commands call it on their input files before any long work."""
    path = Path(path)
    if path.is_dir():
        raise MissingInputError(f"input is a directory, not a file: {path}")
    if not path.exists():
        raise MissingInputError(f"{what} not found: {path}")
    if not path.is_file():
        raise MissingInputError(f"input is not a regular file: {path}")
    return path


@dataclass(frozen=True)
class InputScan:
    """What :func:`scan_file` found in a whole file: its lines (as :func:`iter_lines` counts them),
    its size in bytes and the SHA-256 of its bytes (which names this input, e.g. for resuming)."""

    lines: int
    size: int
    sha256: str


def scan_file(path: str | os.PathLike, errors: str = "strict") -> InputScan:
    """Read a whole input file once, a MiB at a time and without a Python object per line, so that
    a command can refuse it before it loads any model or writes any output: a NUL byte (a binary
    file) is always an :class:`~charwise.errors.InputError`, and so is text that is not UTF-8
    under ``errors="strict"`` (the message :func:`iter_lines` would give, naming the line and the
    byte). A missing file or a directory is refused as by :func:`check_input_file`."""
    import hashlib

    check_errors(errors)
    path = check_input_file(path)
    digest, lines, size, carry, last = hashlib.sha256(), 0, 0, b"", b""
    line_start = 0  # the file offset where the line being read starts
    with open(path, "rb") as f:
        while True:
            chunk = f.read(_CHUNK)
            digest.update(chunk)
            data = carry + chunk  # carry: a character cut by the end of the last chunk (never a newline)
            base = size - len(carry)  # the file offset of data[0]
            whole = _complete_utf8(data) if chunk else data
            bad = _first_bad(whole, errors)
            if bad is not None:
                at, what = bad
                before = data[:at]
                newline = before.rfind(b"\n")
                offset = at - newline - 1 if newline >= 0 else base + at - line_start
                if lines + before.count(b"\n") == 0 and _starts_with_bom(path):
                    offset -= 3  # iter_lines drops the byte-order mark before it counts
                raise InputError(_bad_byte_message(path, lines + before.count(b"\n") + 1, offset, what))
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                line_start = size + newline + 1
            lines += chunk.count(b"\n")
            size += len(chunk)
            last = chunk[-1:] or last
            carry = data[len(whole):]
            if not chunk:
                break
    return InputScan(lines + (size > 0 and last != b"\n"), size, digest.hexdigest())


def _starts_with_bom(path: Path) -> bool:
    """Whether the file starts with a UTF-8 byte-order mark."""
    with open(path, "rb") as f:
        return f.read(3) == b"\xef\xbb\xbf"


def _first_bad(data: bytes, errors: str) -> tuple[int, str] | None:
    """``(offset, what)`` of the first NUL byte, or under ``errors="strict"`` of the first byte
    that is not UTF-8, whichever comes first; None if there is neither."""
    found: list[tuple[int, str]] = []
    nul = data.find(b"\0")
    if nul >= 0:
        found.append((nul, "NUL"))
    if errors == "strict":
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as e:
            found.append((e.start, e.reason))
    return min(found) if found else None


def _bad_byte_message(path: Path, line: int, offset: int, what: str) -> str:
    """The one-line error for a bad byte at ``offset`` of line ``line``."""
    if what == "NUL":
        return f"{path}, line {line}: a NUL byte (byte {offset} of the line): a binary file, not text"
    return (f"{path}, line {line}: not UTF-8 text ({what} at byte {offset} of the line); pass --errors replace "
            "to read such bytes as U+FFFD")


def iter_lines(path: str | os.PathLike, *, errors: str = "strict", max_chars: int | None = MAX_LINE_CHARS,
               report: ReadReport | None = None) -> Iterator[str]:
    """The lines of a UTF-8 text file, or of standard input for ``"-"``, one at a time (see the
    module's rules); ``report`` (a :class:`ReadReport`) counts the lines read, cut and replaced."""
    check_errors(errors)
    check_max_chars(max_chars)
    report = report if report is not None else ReadReport()
    if str(path) == "-":
        yield from _iter_stream(sys.stdin.buffer, "<stdin>", errors, max_chars, report)
        return
    path = check_input_file(path)
    with open(path, "rb") as f:
        yield from _iter_stream(f, str(path), errors, max_chars, report)


def _iter_stream(stream: IO[bytes], source: str, errors: str, max_chars: int | None,
                 report: ReadReport) -> Iterator[str]:
    # UTF-8 needs at most 4 bytes a character (+3 for a BOM, +1 for a CR).
    max_bytes = None if max_chars is None else 4 * max_chars + 4
    for number, (data, cut) in enumerate(_raw_lines(stream, max_bytes), start=1):
        if number == 1 and data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        if cut:
            data = _complete_utf8(data)
        text, replaced = decode_line(data, source, number, errors)
        if max_chars is not None and len(text) > max_chars:
            text, cut = text[:max_chars], True
        report.lines += 1
        report.cut += cut
        report.replaced += replaced
        yield text


def decode_lines(data: bytes, source: str, errors: str = "strict") -> list[str]:
    """Lines of UTF-8 ``data`` (see the module's reading rules); ``source`` names it in errors."""
    import io

    return list(_iter_stream(io.BytesIO(data), source, check_errors(errors), None, ReadReport()))


def read_lines(path: str | os.PathLike, *, errors: str = "strict", max_chars: int | None = None,
               report: ReadReport | None = None) -> list[str]:
    """Lines of a UTF-8 text file, or of standard input for ``"-"`` (see the module's rules), as a
    list: :func:`iter_lines` read to the end (by default without cutting long lines)."""
    return list(iter_lines(path, errors=errors, max_chars=max_chars, report=report))


# --- every character, long lines in windows --------------------------------------------------------
_SPACE = re.compile(r"\s")  # str.isspace's characters: whitespace always ends a word (charwise.words)
_LAST_SPACE = re.compile(r"\s(?=\S*\Z)")


@dataclass(frozen=True)
class TextWindow:
    """A piece of a line (:func:`iter_windows`): its ``text``, whether it starts and ends its line,
    and whether it is ``verbatim``: part of a stretch without whitespace longer than a window, to be
    written back as it is."""

    text: str
    line_start: bool = True
    line_end: bool = True
    verbatim: bool = False

    @property
    def whole_line(self) -> bool:
        return self.line_start and self.line_end


def _raw_line_parts(stream: IO[bytes]) -> Iterator[tuple[bytes, bool]]:
    """``(bytes, whether they end their line)``: each line of ``stream`` whole, or a line longer than
    a read chunk in several parts. A part that does not end its line stops after a whole UTF-8
    character and not after the line's last CR, so that parts decode on their own and a CR before
    the newline is still at the end of the line's last part (where it is dropped)."""
    buf, open_line = bytearray(), False
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            break
        start = 0
        while True:
            newline = chunk.find(b"\n", start)
            if newline < 0:
                buf += chunk[start:]
                break
            buf += chunk[start:newline]
            yield bytes(buf), True
            buf, open_line, start = bytearray(), False, newline + 1
        if len(buf) >= _CHUNK:
            tail = bytes(buf[-4:])
            cut = len(buf) - (len(tail) - len(_complete_utf8(tail)))
            if cut and buf[cut - 1] == 0x0D:
                cut -= 1
            if cut:
                yield bytes(buf[:cut]), False
                del buf[:cut]
                open_line = True
    if buf or open_line:
        yield bytes(buf), True  # the last line, without a final newline


def _text_parts(stream: IO[bytes], source: str, errors: str, report: ReadReport) -> Iterator[tuple[str, bool]]:
    """The decoded parts of :func:`_raw_line_parts` (the module's reading rules)."""
    number, offset, replaced_line = 1, 0, False
    for data, end in _raw_line_parts(stream):
        if number == 1 and offset == 0 and data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        decode = decode_line if end else _decode_part
        text, replaced = decode(data, source, number, errors, offset)
        replaced_line = replaced_line or replaced
        offset += len(data)
        if end:
            report.lines += 1
            report.replaced += replaced_line
            number, offset, replaced_line = number + 1, 0, False
        yield text, end


def _windows(parts: Iterator[tuple[str, bool]], size: int, report: ReadReport) -> Iterator[TextWindow]:
    """Lines given as parts ``(text, ends the line)`` as :class:`TextWindow` s of at most ``size``
    characters (see :func:`iter_windows`)."""
    buf, pos, passing, line_start, pieces = "", 0, False, True, 0
    for text, end in parts:
        buf = text if pos >= len(buf) else buf[pos:] + text
        pos = 0
        while len(buf) - pos > size:
            if passing:  # inside a stretch without whitespace: up to its end, a window at a time
                found = _SPACE.search(buf, pos, pos + size + 1)
                stop = found.start() if found else pos + size
                if stop > pos:
                    yield TextWindow(buf[pos:stop], line_start, False, True)
                    line_start, pieces = False, pieces + 1
                pos, passing = stop, found is None
                continue
            last = _LAST_SPACE.search(buf, pos, pos + size)
            if last is None:  # no whitespace in a whole window: pass the stretch on unread
                passing = True
                report.verbatim += 1
                continue
            yield TextWindow(buf[pos : last.end()], line_start, False)
            line_start, pieces, pos = False, pieces + 1, last.end()
        if not end:
            continue
        found = _SPACE.search(buf, pos) if passing else None
        if passing and found is None:  # the line ends inside the stretch
            yield TextWindow(buf[pos:], line_start, True, True)
        else:
            if found is not None and found.start() > pos:  # the end of the stretch, then the rest
                yield TextWindow(buf[pos : found.start()], line_start, False, True)
                line_start, pieces, pos = False, pieces + 1, found.start()
            yield TextWindow(buf[pos:], line_start, True)
        report.windowed += pieces > 0
        buf, pos, passing, line_start, pieces = "", 0, False, True, 0


def iter_windows(path: str | os.PathLike, *, errors: str = "strict", max_chars: int = MAX_LINE_CHARS,
                 report: ReadReport | None = None) -> Iterator[TextWindow]:
    """Every character of a UTF-8 text file (or of standard input for ``"-"``; the module's reading
    rules), for readers that write the text back: a line of at most ``max_chars`` characters as one
    :class:`TextWindow`, a longer one as consecutive windows of at most ``max_chars`` characters
    that end after whitespace, so that no word is ever split. A stretch of more than ``max_chars``
    characters without whitespace (no place to cut) comes as ``verbatim`` windows. The windows of a
    line joined are the line; memory does not grow with the length of a line. ``report`` counts
    lines read, lines in several windows, verbatim stretches and lines with replaced bytes."""
    check_errors(errors)
    if check_max_chars(max_chars) is None:
        raise ConfigError("iter_windows needs a window size (max_chars)")
    report = report if report is not None else ReadReport()
    if str(path) == "-":
        yield from _windows(_text_parts(sys.stdin.buffer, "<stdin>", errors, report), max_chars, report)
        return
    path = check_input_file(path)
    with open(path, "rb") as f:
        yield from _windows(_text_parts(f, str(path), errors, report), max_chars, report)


def whole_lines(windows: Iterable[TextWindow]) -> Iterator[str]:
    """The lines of :func:`iter_windows`' windows, each joined back whole (for a reader that needs
    whole lines but must not cut any: the read still goes a window at a time)."""
    parts: list[str] = []
    for window in windows:
        parts.append(window.text)
        if window.line_end:
            yield "".join(parts)
            parts = []


def text_windows(text: str, max_chars: int = MAX_LINE_CHARS, report: ReadReport | None = None) -> Iterator[TextWindow]:
    """``text`` as one line in windows, as :func:`iter_windows` gives a file's lines (a newline in
    ``text`` is an ordinary whitespace character here)."""
    if check_max_chars(max_chars) is None:
        raise ConfigError("text_windows needs a window size (max_chars)")
    return _windows(iter([(text, True)]), max_chars, report if report is not None else ReadReport())


def check_text(text: str, source: str, errors: str = "strict") -> str:
    """``text`` under the module's UTF-8 rule, for text that did not come from a file.

    Python turns bytes that are not UTF-8 (in command-line arguments, file names, environment
    variables) into lone surrogates. ``errors="strict"`` refuses them with an
    :class:`~charwise.errors.InputError` naming ``source``; ``"replace"`` turns each into U+FFFD.
    """
    check_errors(errors)
    found = _SURROGATE.search(text)
    if found is None:
        return text
    if errors == "replace":
        return _SURROGATE.sub("\ufffd", text)
    code = ord(found.group())
    what = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"lone surrogate U+{code:04X}"
    raise InputError(f"{source}: not UTF-8 text ({what} at character {found.start()}); "
                     "pass --errors replace to read it as U+FFFD")


def replace_surrogates(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (tokenizers cannot take them)."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text
