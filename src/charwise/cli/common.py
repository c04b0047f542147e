"""What the command modules share: checks of flag values, the input options, loading an encoder or
a decoder, writing a ``.npy``.

Flag checks raise :class:`~charwise.errors.ConfigError` naming the flag (``--max-words must be >=
0, got -1``): the command line speaks in flags, the library in arguments. Every command that reads
text takes the same input options (:func:`add_input_options`: ``--errors``, ``--max-line-chars``)
and reads through :func:`input_lines`, which warns on standard error about what it cut or replaced;
a command that writes the text back (``correct``) reads through :func:`input_windows` instead,
which drops nothing (a long line comes in windows). Every input file is checked by
:func:`charwise.io.check_input_file`, so a missing file or a directory gets the same message from
every command.

The parser (:class:`CharwiseParser`, every subcommand's too) reports a bad command line in one
line naming the command and the option, ``charwise: error: correct: argument -k/--suggestions:
invalid int value: 'x' (charwise correct --help lists the options)``, with exit status 2, never a
usage dump; an unknown option is reported by the command it was given to.

Module top levels here and in the command modules import neither torch nor transformers: building
the parser (``charwise --help``) must not load them. Commands import what they run inside their
functions.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterator, NoReturn, Sequence

from charwise.errors import ConfigError, MissingInputError
from charwise.io import (
    ERRORS,
    MAX_LINE_CHARS,
    InputScan,
    ReadReport,
    TextWindow,
    atomic_file,
    check_input_file,
    check_text,
    iter_lines,
    iter_windows,
    scan_file,
)

ENCODER_HELP = "shipped encoder name (minilm) or an encoder directory"
DECODER_HELP = "shipped decoder name (minilm) or a decoder directory"


class CharwiseParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (see the module docstring); subparsers
    added to it are of this class too."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.split(" ", 1)[1] if " " in self.prog else ""
        where = f"{command}: " if command else ""
        self.exit(2, f"charwise: error: {where}{message} ({self.prog} --help lists the options)\n")

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:  # named by the command they were given to, not by the top level
            self._innermost(parsed).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def _innermost(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = self
        while True:
            chosen = None
            for action in parser._actions:
                if isinstance(action, argparse._SubParsersAction):
                    chosen = action.choices.get(getattr(parsed, action.dest, None) or "")
            if chosen is None:
                return parser
            parser = chosen


def check_min(flag: str, value: float, minimum: float) -> None:
    """``value >= minimum``, else a ConfigError naming ``flag`` (NaN is refused too)."""
    if not value >= minimum:
        raise ConfigError(f"{flag} must be >= {minimum}, got {value}")


def check_positive(flag: str, value: float) -> None:
    """``value > 0``, else a ConfigError naming ``flag``."""
    if not value > 0:
        raise ConfigError(f"{flag} must be > 0, got {value}")


def check_unit(flag: str, value: float) -> None:
    """``0 <= value <= 1``, else a ConfigError naming ``flag``."""
    if not 0.0 <= value <= 1.0:
        raise ConfigError(f"{flag} must be in [0, 1], got {value}")


def check_int_min(flag: str, value: int, minimum: int) -> None:
    """``value`` is an integer ``>= minimum``, else a ConfigError naming ``flag``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{flag} must be an integer, got {value!r}")
    check_min(flag, value, minimum)


# --- text input ------------------------------------------------------------------------------
def add_input_options(parser: argparse.ArgumentParser, windows: bool = False) -> None:
    """``--errors`` and ``--max-line-chars``, the same on every command that reads text
    (``windows``: a command that reads through :func:`input_windows`)."""
    parser.add_argument("--errors", default="strict", choices=ERRORS,
                        help="input that is not UTF-8 (in files, standard input or arguments): strict refuses it "
                             "naming where, replace reads each bad byte as U+FFFD")
    help = ("characters read at a time: a longer line is read window by window, cut after whitespace (never inside "
            "a word), and written back whole; a longer stretch without whitespace is written back as it is"
            if windows else "characters kept of a line; the rest of a longer line is skipped, with a warning")
    parser.add_argument("--max-line-chars", type=int, default=MAX_LINE_CHARS, help=help)


def check_input_options(args: argparse.Namespace) -> None:
    check_min("--max-line-chars", args.max_line_chars, 1)


def scan_input(args: argparse.Namespace, path: str) -> InputScan | None:
    """Check the whole input file ``path`` now, before any model loads or any output is written
    (:func:`charwise.io.scan_file`: missing, a directory, binary, not UTF-8 under ``--errors``),
    and return what the scan found (its lines, its SHA-256); None for standard input, which can be
    read only once and is checked as it is read."""
    return None if path == "-" else scan_file(path, args.errors)


def input_lines(args: argparse.Namespace, path: str, scanned: bool = False) -> Iterator[str]:
    """The lines of ``path`` ('-': standard input) under the command's input options, read lazily;
    when the last one has been read, a warning for each line that was cut or had bytes replaced.
    The whole file is checked at once (:func:`scan_input`) unless the command did (``scanned``)."""
    return _read_with_warnings(iter_lines, args, path, scanned)


def input_windows(args: argparse.Namespace, path: str, scanned: bool = False) -> Iterator[TextWindow]:
    """Every character of ``path`` ('-': standard input) under the command's input options, a long
    line in windows of at most ``--max-line-chars`` characters (:func:`charwise.io.iter_windows`),
    for commands that write the text back; when the last has been read, a warning for what was left
    unread or had bytes replaced. The whole file is checked at once unless ``scanned``."""
    return _read_with_warnings(iter_windows, args, path, scanned)


def _read_with_warnings(reader: Callable[..., Iterator[Any]], args: argparse.Namespace, path: str,
                        scanned: bool) -> Iterator[Any]:
    """``reader(path, ...)`` under the command's input options (a file checked whole at once:
    :func:`scan_input`, unless ``scanned``), then one warning line on stderr for each thing it noted."""
    if path != "-":
        check_input_file(path)
        if not scanned:
            scan_input(args, path)

    def read() -> Iterator[Any]:
        report = ReadReport()
        yield from reader(path, errors=args.errors, max_chars=args.max_line_chars, report=report)
        source = "<stdin>" if path == "-" else path
        for message in report.warnings(source, args.max_line_chars):
            print(f"charwise: warning: {message}", file=sys.stderr)

    # standard input is left to be read when it is needed: the other options are checked first
    return read_first(read()) if path != "-" else read()


def read_first(items: Iterator[Any]) -> Iterator[Any]:
    """``items`` with its first item read now, the rest still lazily: a command reads a file this
    way before it loads its models, so that a binary or undecodable file is refused in a fraction of
    a second instead of after the models' seconds of loading."""
    first = next(items, _NOTHING)
    return items if first is _NOTHING else itertools.chain([first], items)


_NOTHING = object()


def fingerprint(command: str, scan: InputScan | None, args: argparse.Namespace, options: Sequence[str],
                files: Sequence[str] = ()) -> dict[str, Any]:
    """What an output is made from, for :func:`charwise.io.resumable_output` to refuse resuming it
    from anything else: the command, its input's SHA-256, the values of the ``options`` that change
    the output, and the SHA-256 of other input ``files`` (a lexicon, say)."""
    from charwise.cache import file_sha256

    return {"command": command, "input_sha256": scan.sha256 if scan is not None else None,
            "options": {name: getattr(args, name) for name in options},
            "files": {str(path): file_sha256(path) for path in files}}


def check_policy(spec: str) -> None:
    """Refuse an unknown ``--policy`` before anything loads (:func:`charwise.hybrid.policies.get_policy`
    parses it; the module imports neither torch nor the hybrid model)."""
    from charwise.hybrid.policies import get_policy

    get_policy(spec)


def argument_text(args: argparse.Namespace, text: str, what: str) -> str:
    """A text given on the command line, under ``--errors`` (:func:`charwise.io.check_text`)."""
    return check_text(text, what, args.errors)


def check_encoder(name_or_path: str) -> None:
    """Refuse an ``--encoder`` that is neither a shipped name nor a directory, before anything
    loads or any input is read (the check :func:`load_encoder` makes first, without its imports)."""
    from charwise.encoders.shipped import _encoder_directory

    _encoder_directory(name_or_path)


def load_encoder(name_or_path: str) -> Any:
    """A shipped encoder by name or an encoder directory (:func:`charwise.encoders.shipped.load`)."""
    from charwise.encoders.shipped import load

    return load(name_or_path)


def decoder_directory(name_or_path: str) -> Path:
    """The directory of a shipped decoder by name (``minilm``: the one trained for the shipped
    encoder of that name, :func:`charwise.encoders.shipped.shipped_decoder`) or a decoder directory."""
    from charwise.encoders.shipped import available, shipped_decoder

    shipped = shipped_decoder(name_or_path)
    if shipped is not None:
        return shipped
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        return path
    names = [name for name in available() if shipped_decoder(name) is not None]
    raise MissingInputError(f"no decoder '{name_or_path}': shipped decoders are {', '.join(names) or 'none'}; "
                            "or pass a decoder directory")


def load_decoder(name_or_path: str) -> Any:
    """A shipped decoder by name or a decoder directory, as :func:`load_encoder` loads encoders."""
    from charwise.decoders.lstm import CharDecoder

    return CharDecoder.from_pretrained(decoder_directory(name_or_path))


def save_npy(path: str | os.PathLike, vectors: Any) -> None:
    """Write a tensor's rows as a float32 ``.npy`` matrix, atomically."""
    import numpy as np

    with atomic_file(path, "wb") as f:
        np.save(f, vectors.detach().cpu().numpy().astype(np.float32))


class _Stdout:
    def __enter__(self) -> Any:
        return sys.stdout

    def __exit__(self, *exc: Any) -> None:
        sys.stdout.flush()


def output_sink(path: str | None) -> Any:
    """A context manager giving a text file to write: ``path`` written atomically, or standard output."""
    return atomic_file(path) if path else _Stdout()
