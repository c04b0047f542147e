"""``--progress auto|bar|log|none``: how a long command says how far it is.

``bar`` is a tqdm bar with the total, the rate and the time left; ``log`` writes one line to
standard error every :data:`LOG_EVERY` seconds, for a run whose standard error goes to a file or a
job log (a bar's carriage returns would fill it with thousands of redrawn bars)::

    charwise: correct: 5,120 of 20,000 lines (25.6 %), 512 lines/s, about 29 s left

``auto`` (the default) is ``bar`` when standard error is a terminal and ``log`` otherwise; ``none``
says nothing. The total is known when the input is a file (the command counts its lines when it
checks it); from standard input only the lines done and the rate are shown. Lines already done
by an interrupted run that is resumed count as done, but not in the rate.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

PROGRESS_MODES = ("auto", "bar", "log", "none")
LOG_EVERY = 10.0  # seconds between two log lines


class Progress:
    """Progress of ``what`` (the command's name) over ``total`` ``unit`` s (None: unknown), of which
    ``done`` were done before this run; :meth:`update` after each piece of work, :meth:`close` at the end."""

    def __init__(self, what: str, unit: str, total: int | None, mode: str = "auto", done: int = 0,
                 stream: IO[str] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        if mode == "auto":
            mode = "bar" if _is_terminal(self.stream) else "log"
        self.what, self.unit, self.total, self.mode = what, unit, total, mode
        self.done = self.start_done = done
        self.started = self.last = time.monotonic()
        self.bar: Any = None
        if mode == "bar":
            from tqdm.auto import tqdm

            self.bar = tqdm(desc=what, unit=f" {unit}", total=total, initial=done, file=self.stream,
                            dynamic_ncols=True)

    def update(self, n: int) -> None:
        """``n`` more done."""
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        elif self.mode == "log":
            now = time.monotonic()
            if now - self.last >= LOG_EVERY:
                self.last = now
                print(self.line(now), file=self.stream, flush=True)

    def line(self, now: float | None = None) -> str:
        """The log line: done (of the total), the rate since this run started, the time left."""
        elapsed = max((now if now is not None else time.monotonic()) - self.started, 1e-9)
        rate = (self.done - self.start_done) / elapsed
        text = f"charwise: {self.what}: {self.done:,}"
        if self.total:
            text += f" of {self.total:,} {self.unit} ({100 * self.done / self.total:.1f} %)"
        else:
            text += f" {self.unit}"
        text += f", {rate:,.0f} {self.unit}/s"
        if self.total and rate > 0:
            text += f", about {_duration((self.total - self.done) / rate)} left"
        return text

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
