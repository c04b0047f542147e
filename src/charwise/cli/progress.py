"""``--progress auto|bar|log|none``: how a long command says how far it is.

``bar`` is a tqdm bar with the total, the rate and the time left; ``log`` writes one line to
standard error every :data:`LOG_EVERY` seconds, for a run whose standard error goes to a file or a
job log (a bar's carriage returns would fill it with thousands of redrawn bars)::

    charwise: correct: 5,120 of 20,000 lines (25.6 %), 512 lines/s, about 29 s left
    charwise: train: 1,200 of 6,000 steps (20.0 %), 3.2 steps/s, about 25 min 00 s left, loss 0.4121

``auto`` (the default) is ``bar`` when standard error is a terminal and ``log`` otherwise; ``none``
says nothing. The total is known when the input is a file (the command counts its lines when it
checks it); from standard input only the lines done and the rate are shown. Lines already done
by an interrupted run that is resumed count as done, but not in the rate.

A command that also knows its input's size in bytes (``size``) moves by the bytes it has read as
well as by the units it finished, so that one long line, corrected window by window, still shows
its share done and the time left::

    charwise: correct: 0 of 1 lines (1.2 of 5.0 MB, 24.0 %), 14.3 kB/s, about 4 min 40 s left

Every long command reports through this one class: the commands that read lines, the training
engine (:mod:`charwise.training.engine`, steps), ``eval``, ``stats`` and ``expand``
(:func:`add_progress_option` gives them the option; ``--quiet``, where a command has it, is
``--progress none``).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import IO, Any

PROGRESS_MODES = ("auto", "bar", "log", "none")
LOG_EVERY = 10.0  # seconds between two log lines
PROGRESS_HELP = ("auto: a bar on a terminal, else a log line every few seconds on standard error (done, total, "
                 "rate, time left); bar, log or none")


class Progress:
    """Progress of ``what`` (the command's name) over ``total`` ``unit`` s (None: unknown), of which
    ``done`` were done before this run; :meth:`update` after each piece of work, :meth:`close` at
    the end. ``size``: the input's size in bytes, when the command also counts the bytes it has
    read (``size_done`` of them before this run); the share done and the time left then come
    from the bytes."""

    def __init__(self, what: str, unit: str, total: int | None, mode: str = "auto", done: int = 0,
                 stream: IO[str] | None = None, *, size: int | None = None, size_done: int = 0) -> None:
        self.stream = stream if stream is not None else sys.stderr
        mode = mode_of(mode)
        if mode == "auto":
            mode = "bar" if _is_terminal(self.stream) else "log"
        self.what, self.unit, self.total, self.mode = what, unit, total, mode
        self.done = self.start_done = done
        self.size, self.size_done, self.size_start = size, size_done, size_done
        self.note = ""  # shown after the rest: the loss of a training step, say
        self.started = self.last = time.monotonic()
        self.bar: Any = None
        if mode == "bar":
            from tqdm.auto import tqdm

            if size:  # the bar moves by bytes; the units done are its postfix
                self.bar = tqdm(desc=what, unit="B", unit_scale=True, unit_divisor=1000, total=size,
                                initial=size_done, file=self.stream, dynamic_ncols=True)
            else:
                self.bar = tqdm(desc=what, unit=f" {unit}", total=total, initial=done, file=self.stream,
                                dynamic_ncols=True)

    def update(self, n: int, size: int = 0, note: str | None = None) -> None:
        """``n`` more done (and ``size`` more bytes read); ``note`` replaces the note."""
        self.done += n
        self.size_done += size
        if note is not None:
            self.note = note
        if self.bar is not None:
            if self.size:
                self.bar.update(size)
                self.bar.set_postfix_str(f"{self.done:,} {self.unit}" + (f", {self.note}" if self.note else ""),
                                         refresh=False)
            else:
                self.bar.update(n)
                if note is not None:
                    self.bar.set_postfix_str(note, refresh=False)
        elif self.mode == "log":
            now = time.monotonic()
            if now - self.last >= LOG_EVERY:
                self.last = now
                print(self.line(now), file=self.stream, flush=True)

    def tell(self, n: int, total: int | None = None) -> None:
        """``n`` more done, of ``total`` (the total as library code reports it: ``progress(n, total)``,
        known once the work is laid out)."""
        if total is not None and total != self.total:
            self.total = total
            if self.bar is not None and not self.size:
                self.bar.total = total
        self.update(n)

    def line(self, now: float | None = None) -> str:
        """The log line: done (of the total), the rate since this run started, the time left."""
        elapsed = max((now if now is not None else time.monotonic()) - self.started, 1e-9)
        rate = (self.done - self.start_done) / elapsed
        text = f"charwise: {self.what}: {self.done:,}"
        share: float | None = None  # of the whole work, done
        if self.size:
            share = min(1.0, self.size_done / self.size)
            byte_rate = (self.size_done - self.size_start) / elapsed
            text += (f" of {self.total:,} {self.unit}" if self.total else f" {self.unit}")
            text += f" ({_bytes(self.size_done, self.size)} of {_bytes(self.size)}, {100 * share:.1f} %)"
            if rate > 0:
                text += f", {_rate(rate)} {self.unit}/s"
            text += f", {_bytes(byte_rate)}/s"
            left = (self.size - self.size_done) / byte_rate if byte_rate > 0 else None
        else:
            if self.total:
                share = self.done / self.total
                text += f" of {self.total:,} {self.unit} ({100 * share:.1f} %)"
            else:
                text += f" {self.unit}"
            text += f", {_rate(rate)} {self.unit}/s"
            left = (self.total - self.done) / rate if self.total and rate > 0 else None
        if left is not None:
            text += f", about {_duration(max(0.0, left))} left"
        if self.note:
            text += f", {self.note}"
        return text

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def mode_of(progress: bool | str) -> str:
    """A progress mode from a mode's name or a library's ``progress`` flag (True: auto, False: none)."""
    if progress is True:
        return "auto"
    if progress is False or progress is None:
        return "none"
    if progress not in PROGRESS_MODES:
        raise ValueError(f"unknown progress mode {progress!r} (known: {', '.join(PROGRESS_MODES)})")
    return str(progress)


def add_progress_option(parser: argparse.ArgumentParser, quiet: bool = False) -> None:
    """``--progress`` (and ``--quiet``, its old spelling of ``none``, on commands that had it)."""
    parser.add_argument("--progress", default="auto", choices=PROGRESS_MODES, help=PROGRESS_HELP)
    if quiet:
        parser.add_argument("--quiet", action="store_true", help="no progress: the same as --progress none")


def progress_mode(args: argparse.Namespace) -> str:
    """The command's progress mode: ``--progress``, or ``none`` under ``--quiet``."""
    return "none" if getattr(args, "quiet", False) else getattr(args, "progress", "auto")


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _rate(rate: float) -> str:
    """A rate with the digits that matter: 512, 3.2, 0.41."""
    return f"{rate:,.0f}" if rate >= 9.95 else f"{rate:.2g}" if rate < 0.995 else f"{rate:.1f}"


def _bytes(count: float, scale: float | None = None) -> str:
    """``count`` bytes in B, kB, MB or GB (decimal), in the unit of ``scale`` when given."""
    reference = count if scale is None else scale
    for unit, factor in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if reference >= factor:
            value = count / factor
            return f"{value:.1f}" + ("" if scale is not None else f" {unit}")
    return f"{count:.0f}" + ("" if scale is not None else " B")


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
