"""Writing outputs atomically: files, directories, ``.npy`` rows, JSON; run locks."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import IO, Any, Iterator

from charwise.errors import OutputExistsError


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _publish(src: Path, dst: Path) -> None:
    """Move the finished ``src`` to ``dst``; an old ``dst`` is removed only after the new one is in place."""
    # mkdtemp/mkstemp create 0700/0600 entries; outputs get the modes of any new file (the umask).
    mask = _umask()
    os.chmod(src, 0o777 & ~mask)
    for child in src.rglob("*"):
        os.chmod(child, (0o777 if child.is_dir() else 0o666) & ~mask)
    old = None
    if dst.exists():
        old = dst.with_name(f".{dst.name}.old-{os.getpid()}")
        os.replace(dst, old)
    os.replace(src, dst)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def check_output_file(path: str | os.PathLike, flag: str = "output") -> Path:
    """``path`` if a file can be written there: not a directory, in a directory that exists or can
    be made and is writable; else an :class:`~charwise.errors.OutputExistsError` or ``OSError``
    naming ``flag``. Commands call it before any long work."""
    path = Path(path)
    if path.is_dir():
        raise OutputExistsError(f"{flag} {path} is a directory: give a file name")
    _check_writable_ancestor(path.parent, path, flag)
    return path


def check_output_dir(path: str | os.PathLike, flag: str = "output") -> Path:
    """Like :func:`check_output_file` for an output directory (which may already exist)."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise OutputExistsError(f"{flag} {path} exists and is not a directory")
    _check_writable_ancestor(path, path, flag)
    return path


def _check_writable_ancestor(start: Path, path: Path, flag: str) -> None:
    """The nearest existing ancestor of ``start`` (itself included) must be a writable directory."""
    parent = start
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise OutputExistsError(f"{flag} {path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise PermissionError(f"{flag} {path}: no permission to write in {parent}")


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
    """Yield a file object (``mode`` ``"w"`` text UTF-8, ``"wb"`` or ``"w+b"``) that replaces
    ``path`` on success: written to a temporary file in the same directory, flushed to disk, then
    renamed; on any failure the temporary file is removed and ``path`` is left as it was."""
    path = Path(path)
    if path.is_dir():
        raise OutputExistsError(f"{path} is a directory: give a file name")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with open(fd, mode, encoding=None if "b" in mode else "utf-8") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(name, 0o666 & ~_umask())
        os.replace(name, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)


class NpyRows:
    """Rows of a float32 ``(n, dim)`` ``.npy`` matrix written as they come (see :func:`atomic_npy`)."""

    HEADER_BYTES = 128  # fixed, so the final row count can be written over the first one

    def __init__(self, f: IO[bytes], dim: int) -> None:
        self.f, self.dim, self.rows = f, int(dim), 0
        f.write(self._header())

    @classmethod
    def reopen(cls, f: IO[bytes], dim: int, rows: int) -> "NpyRows":
        """The writer of a matrix whose header and first ``rows`` rows ``f`` already holds (``f``
        positioned after them): a partial output being resumed (:mod:`charwise.io.resumable`)."""
        self = cls.__new__(cls)
        self.f, self.dim, self.rows = f, int(dim), int(rows)
        return self

    def _header(self) -> bytes:
        import io

        import numpy as np

        header = io.BytesIO()  # numpy's own writer; it pads to 64 bytes and keeps room for the row count
        np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False,
                                                      "shape": (self.rows, self.dim)})
        if len(header.getvalue()) != self.HEADER_BYTES:  # the row count is written over the first one
            raise ValueError(f"a .npy header of {len(header.getvalue())} bytes, not {self.HEADER_BYTES}")
        return header.getvalue()

    def write(self, rows: Any) -> None:
        """Append the rows of a ``(k, dim)`` array or tensor."""
        import numpy as np

        if hasattr(rows, "detach"):
            rows = rows.detach().cpu().numpy()
        rows = np.ascontiguousarray(rows, dtype="<f4")
        if rows.ndim != 2 or rows.shape[1] != self.dim:
            raise ValueError(f"expected rows of dimension {self.dim}, got shape {rows.shape}")
        self.f.write(rows.tobytes())
        self.rows += rows.shape[0]

    def finish(self) -> None:
        self.f.seek(0)
        self.f.write(self._header())
        self.f.seek(0, os.SEEK_END)


@contextlib.contextmanager
def atomic_npy(path: str | os.PathLike, dim: int) -> Iterator[NpyRows]:
    """Write a float32 ``.npy`` matrix row block by row block, atomically (:func:`atomic_file`), so
    the rows never have to be in memory together.

    Example::

        with atomic_npy("vectors.npy", 384) as out:
            for block in blocks:
                out.write(block)      # (k, 384)
    """
    with atomic_file(path, "w+b") as f:
        rows = NpyRows(f, dim)
        yield rows
        rows.finish()


_TEMPORARY = re.compile(r"^\..+\.(old-\d+|[a-z0-9_]{8})$")


def remove_orphans(directory: str | os.PathLike) -> list[str]:
    """Remove what an atomic write into ``directory`` left behind when its process was killed
    (``.NAME.XXXXXXXX`` temporary files and directories, ``.NAME.old-PID``); returns their names.
    Only call it while no other process writes there (see :func:`lock_directory`)."""
    directory = Path(directory)
    removed = []
    if directory.is_dir():
        for entry in directory.iterdir():
            if _TEMPORARY.match(entry.name):
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    with contextlib.suppress(FileNotFoundError):
                        entry.unlink()
                removed.append(entry.name)
    return removed


class DirectoryLock:
    """An exclusive lock on an output directory (:func:`lock_directory`); ``release()`` or ``with``."""

    def __init__(self, directory: Path, fd: int) -> None:
        self.directory, self.fd = directory, fd

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing the descriptor drops the lock
            self.fd = -1

    def __enter__(self) -> "DirectoryLock":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()


def lock_directory(directory: str | os.PathLike) -> DirectoryLock:
    """Lock ``directory`` (created if needed) for one process: a second run writing there gets an
    :class:`~charwise.errors.OutputExistsError` at once. The lock is the operating system's
    (``flock`` on the directory itself, no lock file), so it ends with its process, even a killed one."""
    import fcntl

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise OutputExistsError(f"'{directory}' is being written by another charwise process; wait for it to "
                                "finish or choose another output directory") from None
    return DirectoryLock(directory, fd)


def write_json(path: str | os.PathLike, data: Any, indent: int | None = 2) -> None:
    """Write ``data`` as UTF-8 JSON, atomically: indented, or on one line (``indent=None``: for
    files of millions of weights)."""
    with atomic_file(path) as f:
        json.dump(data, f, indent=indent, ensure_ascii=False, separators=None if indent else (",", ":"))
        f.write("\n")


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` as UTF-8, atomically."""
    with atomic_file(path) as f:
        f.write(text)


def append_jsonl(path: str | os.PathLike, record: dict[str, Any]) -> None:
    """Append one JSON record as a line (logs grow by whole lines)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
