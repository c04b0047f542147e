"""Where charwise keeps what it derives once and reuses, and how a cached result knows its inputs.

The e5 teacher's unpacked image and the speller's lexicons and vectors live under
:func:`cache_root`; each cache entry is keyed by hashes of what it was built from
(:func:`file_sha256` for files), so a changed input builds a new entry instead of reusing a stale one.
In memory, :class:`LRUCache` bounds what is remembered across calls (word pieces, vectors, scores).
Tables cached on disk are safetensors files (:func:`save_tables`, :func:`load_tables`; lists of
strings as UTF-8 bytes, :func:`text_array` and :func:`array_text`): no pickle, fast to read.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import zlib
from collections import OrderedDict
from pathlib import Path
from typing import Any, Sequence

import numpy as np

CACHE_ENV = "CHARWISE_CACHE"


def cache_root() -> Path:
    """``$CHARWISE_CACHE`` if set, else ``~/.cache/charwise``."""
    env = os.environ.get(CACHE_ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "charwise"


def file_sha256(path: str | os.PathLike) -> str:
    """The SHA-256 of a file's bytes (read in blocks: memory stays flat)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def text_array(strings: Sequence[str]) -> np.ndarray:
    """``strings`` (none holding a newline) as one array of UTF-8 bytes, newline-separated."""
    return np.frombuffer("\n".join(strings).encode("utf-8", "surrogatepass"), dtype=np.uint8)


def array_text(array: np.ndarray) -> list[str]:
    """The strings :func:`text_array` stored."""
    return array.tobytes().decode("utf-8", "surrogatepass").split("\n")


def save_tables(tables: dict[str, np.ndarray], path: Path) -> None:
    """Write named arrays to ``path`` as safetensors, atomically (its folder made if missing)."""
    from safetensors.numpy import save

    from charwise.io import atomic_file

    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path, "wb") as f:
        f.write(save(tables))


def load_tables(path: Path) -> dict[str, np.ndarray]:
    """The named arrays of a safetensors file written by :func:`save_tables`."""
    from safetensors.numpy import load_file

    return load_file(str(path))


_NUMPY_DTYPES = {"F16": np.float16, "F32": np.float32, "F64": np.float64, "I8": np.int8, "U8": np.uint8,
                 "I16": np.int16, "I32": np.int32, "I64": np.int64}


def map_table(path: Path, name: str) -> np.ndarray:
    """The array ``name`` of a safetensors file, memory-mapped read-only: pages are read when they
    are touched and shared between processes, instead of copied into each one."""
    with open(path, "rb") as f:
        (size,) = np.frombuffer(f.read(8), dtype="<u8")
        header = json.loads(f.read(int(size)))
    entry = header[name]
    dtype = np.dtype(_NUMPY_DTYPES[entry["dtype"]]).newbyteorder("<")
    start, end = entry["data_offsets"]
    shape = tuple(entry["shape"])
    if end - start != int(np.prod(shape, dtype=np.int64)) * dtype.itemsize:
        raise ValueError(f"{path}: {name} has {end - start} bytes for shape {shape}")
    if 8 + int(size) + end > os.path.getsize(path):
        raise ValueError(f"{path}: the file ends before {name} does")
    mapped = np.memmap(path, dtype=dtype, mode="r", offset=8 + int(size) + start, shape=shape)
    return mapped.view(np.ndarray)  # the same pages; a plain array indexes several times faster than a memmap


class StringTable:
    """Strings to their numbers (their order when the table was made), over three flat arrays that
    can be memory-mapped from a file (:func:`map_table`), so that no Python object is made per
    string: string ``i`` is ``blob[starts[i]:starts[i + 1] - 1]`` (UTF-8, each followed by a
    newline) and ``slots`` is an open-addressing hash table of the numbers (-1: empty; a power of two
    long, at most half full). A look-up costs a CRC-32 and a comparison or two.

    Example::

        arrays = StringTable.arrays(["teh", "the"])      # save them with save_tables(...)
        StringTable(**arrays).find("the")                  # 1; -1 for a string it lacks
    """

    def __init__(self, blob: np.ndarray, starts: np.ndarray, slots: np.ndarray) -> None:
        if len(slots) & (len(slots) - 1) or len(slots) < 2 * (len(starts) - 1):
            raise ValueError("the hash table is not a power of two at least twice the number of strings")
        self._bytes = blob
        self._blob = memoryview(blob.data)  # slices compare with bytes without a copy
        self._starts = starts
        self._slots = slots
        self._mask = len(slots) - 1

    @staticmethod
    def arrays(strings: Sequence[str]) -> dict[str, np.ndarray]:
        """``blob``, ``starts`` and ``slots`` (:meth:`__init__`'s arguments) for ``strings``, all different."""
        encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
        starts = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(s) + 1 for s in encoded], out=starts[1:])
        slots = np.full(max(2, 1 << (2 * len(encoded) - 1).bit_length()), -1, dtype=np.int32)
        mask = len(slots) - 1
        for i, s in enumerate(encoded):
            h = zlib.crc32(s) & mask  # stable across processes, unlike hash()
            while slots[h] >= 0:
                h = (h + 1) & mask
            slots[h] = i
        return {"blob": np.frombuffer(b"".join(s + b"\n" for s in encoded), dtype=np.uint8), "starts": starts,
                "slots": slots}

    def find(self, string: object) -> int:
        """The number of ``string``, or -1."""
        if not isinstance(string, str):
            return -1
        encoded = string.encode("utf-8", "surrogatepass")
        slots, starts, blob, mask = self._slots, self._starts, self._blob, self._mask
        h = zlib.crc32(encoded) & mask
        while True:
            i = slots.item(h)
            if i < 0:
                return -1
            start, end = starts.item(i), starts.item(i + 1) - 1
            if end - start == len(encoded) and blob[start:end] == encoded:
                return i
            h = (h + 1) & mask

    def strings(self) -> list[str]:
        """Every string, in order."""
        return array_text(self._bytes[:-1]) if len(self._bytes) else []

    def __len__(self) -> int:
        return len(self._starts) - 1


class LRUCache:
    """A bounded mapping that forgets the least recently used entry; safe to share between threads
    (a lookup and its move to the end are one step under a lock: another thread may evict the key
    between them otherwise)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.data: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self._lock:
            value = self.data.get(key)
            if value is not None:
                self.data.move_to_end(key)
            return value

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            self.data[key] = value
            self.data.move_to_end(key)
            while len(self.data) > self.size:
                self.data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self.data.clear()
