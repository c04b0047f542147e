"""Outputs committed as they are written and resumed after a kill: ``FILE.partial``.

A long run (``charwise correct``, ``encode``, ``embed`` with ``--out``) writes its output to
``FILE.partial`` in input order, a chunk of lines at a time, and flushes each chunk to the operating
system, so that a killed run keeps every chunk it finished. Only when the last line is written is
the file synced to disk and renamed to ``FILE``: the rule of :func:`~charwise.io.atomic_file` still
holds, ``FILE`` appears complete or not at all.

Beside it, ``FILE.partial.json`` records what the output was made from (the input's SHA-256 and the
options that change the output: the command's *fingerprint*). A rerun with ``resume=True``
(``--resume``) given the same fingerprint counts what the partial output holds, drops a line or a
row cut short by the kill, and the command goes on after the inputs already done; a different
fingerprint is refused, since the two halves would not belong together. Without ``resume`` an
existing ``FILE.partial`` is refused rather than overwritten (it may hold hours of work).

The partial output holds whole units followed by at most one unit cut short: text outputs hold one
line per input line (the unit is a line, ended by ``\\n``), ``.npy`` outputs one row per input line
(the unit is a row of float32 after a fixed 128-byte header, :class:`~charwise.io.writing.NpyRows`).
A ``flock`` on the partial file keeps a second process from writing it at the same time.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import IO, Any, Iterator

from charwise.errors import InputError, OutputExistsError
from charwise.io.writing import NpyRows, check_output_file, write_json

PARTIAL_SUFFIX = ".partial"
_BLOCK = 1 << 22


def partial_paths(path: str | os.PathLike) -> tuple[Path, Path]:
    """``(FILE.partial, FILE.partial.json)`` for the output ``path``."""
    path = Path(path)
    partial = path.with_name(path.name + PARTIAL_SUFFIX)
    return partial, partial.with_name(partial.name + ".json")


def check_resumable(path: str | os.PathLike, fingerprint: dict[str, Any], resume: bool, flag: str = "--out") -> int:
    """Check, before any work, that the output ``path`` can be written or resumed; returns 1 if a
    partial output will be resumed, else 0. Refuses (:class:`~charwise.errors.OutputExistsError`)
    a ``FILE.partial`` left by a killed run when ``resume`` is false, and one made from another
    input or other options (another ``fingerprint``) when it is true."""
    check_output_file(path, flag)
    partial, record = partial_paths(path)
    if not partial.exists():
        return 0
    if not resume:
        raise OutputExistsError(f"{partial} holds the output of an interrupted run: pass --resume to continue it, "
                                "or delete it to start again")
    try:
        recorded = json.loads(record.read_text(encoding="utf-8")).get("fingerprint")
    except (OSError, ValueError, AttributeError):
        recorded = None
    if recorded != json.loads(json.dumps(fingerprint)):  # compared as JSON: tuples become lists
        raise OutputExistsError(f"{partial} was written from another input or with other options, so it cannot be "
                                "continued: delete it (and its .json) to start again")
    return 1


class PartialOutput:
    """An output being written to ``FILE.partial`` (:func:`resumable_output`): ``done`` units (lines
    or rows) were already there when it was opened; :meth:`write` appends text, :meth:`write_rows`
    rows; :meth:`flush` hands what was written to the operating system (a kill keeps it)."""

    def __init__(self, f: IO[bytes], npy: bool) -> None:
        self.f, self.npy = f, npy
        self.done = 0
        self.lines = 0  # text: lines written since it was opened
        self.rows: NpyRows | None = None
        if npy:
            self._open_npy()
        else:
            self._open_text()

    # --- opening: count the whole units, drop the one cut short -----------------------------------
    def _open_text(self) -> None:
        end = self.f.seek(0, os.SEEK_END)
        keep = end
        while keep > 0:  # back to just after the last newline
            start = max(0, keep - _BLOCK)
            self.f.seek(start)
            newline = self.f.read(keep - start).rfind(b"\n")
            if newline >= 0:
                keep = start + newline + 1
                break
            keep = start
        self.f.seek(0)
        lines, left = 0, keep
        while left:
            block = self.f.read(min(_BLOCK, left))
            lines += block.count(b"\n")
            left -= len(block)
        self.f.truncate(keep)
        self.f.seek(keep)
        self.done = lines

    def _open_npy(self) -> None:
        size = self.f.seek(0, os.SEEK_END)
        if size < NpyRows.HEADER_BYTES:  # killed before its header: nothing to keep
            self.f.truncate(0)
            return
        self.f.seek(0)
        import numpy as np

        try:  # numpy's own reader of the header
            np.lib.format.read_magic(self.f)
            shape, _, dtype = np.lib.format.read_array_header_1_0(self.f)
            if (len(shape) != 2 or shape[1] < 1 or dtype != np.dtype("<f4")
                    or self.f.tell() != NpyRows.HEADER_BYTES):
                raise ValueError("not a float32 matrix written row by row")
            dim = int(shape[1])
        except (ValueError, OSError, EOFError):
            raise InputError(f"{getattr(self.f, 'name', 'the partial output')}: not a partial .npy output; "
                             "delete it to start again") from None
        rows = (size - NpyRows.HEADER_BYTES) // (4 * dim)
        self.f.truncate(NpyRows.HEADER_BYTES + rows * 4 * dim)
        self.f.seek(0, os.SEEK_END)
        self.rows = NpyRows.reopen(self.f, dim, rows)
        self.done = rows

    def keep(self, units: int) -> None:
        """Keep only the first ``units`` of the ``done`` units (a command that resumes at a chunk's
        start drops the rows of a chunk a kill cut short); only before anything is written."""
        if units >= self.done or self.units != self.done:
            return
        if self.rows is not None:  # rows: a fixed size each
            self.f.truncate(NpyRows.HEADER_BYTES + units * 4 * self.rows.dim)
            self.rows.rows = units
        else:  # lines: the position after the units-th newline
            self.f.seek(0)
            position, seen = 0, 0
            while seen < units:
                block = self.f.read(_BLOCK)
                start = 0
                while seen < units:
                    newline = block.find(b"\n", start)
                    if newline < 0:
                        break
                    seen, start = seen + 1, newline + 1
                position += start if seen == units else len(block)
            self.f.truncate(position)
        self.f.seek(0, os.SEEK_END)
        self.done = units

    # --- writing -----------------------------------------------------------------------------------
    def write(self, text: str) -> None:
        """Append ``text`` (UTF-8) to a text output."""
        self.f.write(text.encode("utf-8", "surrogatepass"))
        self.lines += text.count("\n")

    def write_rows(self, rows: Any) -> None:
        """Append the rows of a ``(k, dim)`` array to a ``.npy`` output; the first call on a new
        output fixes ``dim`` (a ``(0, dim)`` array does only that)."""
        if self.rows is None:
            self.rows = NpyRows(self.f, rows.shape[1])
        self.rows.write(rows)

    @property
    def units(self) -> int:
        """Lines (text) or rows (``.npy``) in the output now, resumed ones included."""
        return self.rows.rows if self.rows is not None else self.done + self.lines

    def flush(self) -> None:
        """Hand what was written to the operating system: a killed process keeps it."""
        self.f.flush()

    def finish(self) -> None:
        if self.rows is not None:
            self.rows.finish()
        self.f.flush()
        os.fsync(self.f.fileno())


@contextlib.contextmanager
def resumable_output(path: str | os.PathLike, fingerprint: dict[str, Any], *, resume: bool = False,
                     npy: bool = False) -> Iterator[PartialOutput]:
    """Write the output ``path`` through ``FILE.partial`` (see the module docstring), resuming one
    left by a killed run if ``resume``; on success the partial output becomes ``path``. On any
    failure, an interruption included, the partial output and its record are kept for ``--resume``
    (unless they hold nothing: a run that fails before its first output leaves no file behind).

    Example::

        with resumable_output("out.txt", {"input": sha}, resume=True) as out:
            for line in lines[out.done:]:
                out.write(fix(line) + "\\n")
                out.flush()
    """
    import fcntl

    path = Path(path)
    check_resumable(path, fingerprint, resume)
    partial, record = partial_paths(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not partial.exists():
        write_json(record, {"fingerprint": fingerprint, "output": path.name})  # before any output is written
    with open(os.open(partial, os.O_RDWR | os.O_CREAT, 0o666), "r+b") as f:  # r+: the header is rewritten
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputExistsError(f"{partial} is being written by another charwise process") from None
        output = PartialOutput(f, npy)
        try:
            yield output
        except BaseException:
            f.flush()  # what was written is kept for --resume ...
            if output.units == 0:  # ... unless nothing was: a failed start leaves nothing behind
                partial.unlink()
                record.unlink(missing_ok=True)
            raise
        output.finish()
        os.replace(partial, path)
    with contextlib.suppress(FileNotFoundError):
        record.unlink()
