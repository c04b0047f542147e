"""``charwise`` command line: a thin layer over the library.

Each command group lives in its own module and registers its parsers with ``add_parser(sub)``:
:mod:`~charwise.cli.encoder` (train, eval, manifold, neighbors, embed), :mod:`~charwise.cli.spell`
(decoder train, eval, spell), :mod:`~charwise.cli.correct` (correct, speller train),
:mod:`~charwise.cli.hybrid` (encode,
compare, tune), :mod:`~charwise.cli.stats`, :mod:`~charwise.cli.expand`, :mod:`~charwise.cli.tag`
(tag train, eval; predict in :mod:`~charwise.cli.tag_predict`), :mod:`~charwise.cli.lm`,
:mod:`~charwise.cli.translate` and :mod:`~charwise.cli.cache` (info, prune). Commands read files
through :func:`charwise.io.read_lines` and write outputs through charwise.io's atomic writers.

:func:`main` prints charwise's own errors (:class:`~charwise.errors.CharwiseError`), file
errors (``OSError``), unreadable weight files (safetensors' errors) and ``MemoryError`` as one line,
``charwise: error: ...``, with exit status 2. Any other exception is a bug and keeps its traceback.
SIGTERM and SIGHUP (a scheduler, a container stop, a closed terminal) end a command as Ctrl-C does:
what it finished is kept (an ``--out`` file continues with ``--resume``), one line says so, and the
exit status is 128 + the signal's number (143, 129; 130 for Ctrl-C).

Start-up: building the parser imports no command's machinery (no torch, no transformers; see
:mod:`charwise.cli.common`), so ``charwise --help`` and flag errors answer at once; a command
imports what it runs when it runs.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Sequence

from charwise.errors import CharwiseError

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # weights come from installed packages, never a hub

EXIT_ERROR = 2
EXIT_INTERRUPTED = 130


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the command is, so that it stops the way Ctrl-C stops it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, frame: object) -> None:
    raise Stopped(signum)


def _stop_on_signals() -> None:
    """Raise :class:`Stopped` on SIGTERM and SIGHUP (the main thread only: signals reach it alone)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if signum is not None and signal.getsignal(signum) in (signal.SIG_DFL, None):
            signal.signal(signum, _stop)


def _show_defaults(parser: argparse.ArgumentParser) -> None:
    """Every option's help ends with its default (unless it says it already), in every subcommand."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                _show_defaults(child)
            continue
        default = action.default
        if (not action.option_strings or default in (None, False, "", argparse.SUPPRESS)
                or isinstance(action, argparse._HelpAction)):
            continue
        help = action.help or ""
        if "default" not in help:
            shown = " ".join(map(str, default)) if isinstance(default, list) else str(default)
            action.help = (help + " " if help else "") + f"(default: {shown.replace('%', '%%')})"


def build_parser() -> argparse.ArgumentParser:
    """The ``charwise`` parser with every command group registered."""
    from charwise.cli import cache, correct, encoder, expand, generate, hybrid, lm, spell, stats, tag, translate
    from charwise.cli.common import CharwiseParser  # one-line errors, in every subcommand too

    p = CharwiseParser(prog="charwise", description="Character-built word vectors in a subword model's space.")
    sub = p.add_subparsers(dest="command", required=True)
    for group in (encoder, spell, correct, hybrid, generate, lm, translate, stats, expand, tag, cache):
        group.add_parser(sub)
    _show_defaults(p)
    return p


def _one_line(error: BaseException) -> str:
    message = " ".join(str(error).split("\n")).strip()
    return message or type(error).__name__


def quiet_transformers() -> None:
    """charwise prints its own progress: transformers' weight-loading bars and warnings would bury
    the output. A transformers not imported yet reads the settings from the environment when it is
    (importing it here would cost most of a second for commands that never load a model); one
    already imported (charwise called from Python) is set directly."""
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    if "transformers" in sys.modules:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0, 2 for a reported error, 130 if interrupted, 143 or
    129 if stopped by SIGTERM or SIGHUP)."""
    args = build_parser().parse_args(argv)
    quiet_transformers()
    _stop_on_signals()
    try:
        return args.func(args)
    except (CharwiseError, OSError) as e:
        print(f"charwise: error: {_one_line(e)}", file=sys.stderr)
        return EXIT_ERROR
    except MemoryError:
        print("charwise: error: out of memory (a smaller --batch-size or --max-line-chars needs less)",
              file=sys.stderr)
        return EXIT_ERROR
    except Exception as e:
        if type(e).__name__ != "SafetensorError":  # safetensors' own type for unreadable files
            raise
        print(f"charwise: error: cannot read a weights file: {_one_line(e)}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt as e:
        name = f"stopped by {signal.Signals(e.signum).name}" if isinstance(e, Stopped) else "interrupted"
        print(f"charwise: {name} (an interrupted training run or --out file continues with --resume)",
              file=sys.stderr)
        return 128 + e.signum if isinstance(e, Stopped) else EXIT_INTERRUPTED
