"""The speller's candidate indexes, saved on disk and read back, not rebuilt.

**The symmetric-delete index** (``symspellpy``). Building symspellpy's index for the English
lexicon (106k words, 802k deletes at distance 2) takes about 2.3 s, every time a process corrects
its first unknown word. :func:`edit_index` builds it once,
writes its tables to ``$CHARWISE_CACHE/speller/edit-index-*.safetensors`` (atomically; no pickle:
UTF-8 bytes and integer arrays) and later maps them into memory: the deletes become a read-only
mapping (:class:`FrozenDeletes`, a hash table over the file's arrays) that decodes a delete's
words when symspellpy asks for them, so no Python object is made per delete. The file is keyed
by a hash of the words, their counts, the index settings and symspellpy's version; a damaged
file is rebuilt, and a symspellpy whose internals differ from what is read back (``_deletes``,
``_words``, ``_max_length``) is built the usual way.

The lookups are the same as the built index's (tested).

**The sound keys** (:func:`charwise.typos.sounds.sound_key`) of the lexicon's words, about 0.8 s
to compute for English: :func:`sound_keys` keeps them in ``sound-keys-*.safetensors``, keyed by
the words, the language and the source of :mod:`charwise.typos.sounds`.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from charwise.cache import (
    DAMAGED_ENTRY,
    StringTable,
    array_text,
    building,
    cache_lock,
    load_tables,
    map_table,
    mark_used,
    save_tables,
    text_array,
)

FORMAT = 2  # the file's layout; a new one is a new key
# what reading the edit index raises when the file is damaged or symspellpy's internals changed
DAMAGED_INDEX: tuple[type[Exception], ...] = (*DAMAGED_ENTRY, AttributeError)


class FrozenDeletes(Mapping[str, list[str]]):
    """symspellpy's ``delete -> words`` table, read-only, over flat (memory-mapped) arrays: the
    deletes are a :class:`~charwise.cache.StringTable` (``blob``, ``starts``, ``slots``) and
    delete ``i``'s words are ``words[values[offsets[i]:offsets[i + 1]]]``."""

    def __init__(self, blob: np.ndarray, starts: np.ndarray, slots: np.ndarray, offsets: np.ndarray,
                 values: np.ndarray, words: list[str]) -> None:
        self._keys = StringTable(blob, starts, slots)
        self._offsets = offsets
        self._values = values
        self._words = words
        # symspellpy asks `in`, then for the words: one search. The pair is read and written as one
        # tuple (one reference swap), so threads sharing the index never see a key with another's row.
        self._last: tuple[object, int] = ("", -1)

    def _find(self, key: object) -> int:
        last = self._last
        if key == last[0] and last[1] >= 0:
            return last[1]
        found = self._keys.find(key)
        self._last = (key, found)
        return found

    def __getitem__(self, key: str) -> list[str]:
        i = self._find(key)
        if i < 0:
            raise KeyError(key)
        words = self._words
        return [words[j] for j in self._values[int(self._offsets[i]) : int(self._offsets[i + 1])].tolist()]

    def __contains__(self, key: object) -> bool:
        return self._find(key) >= 0

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys.strings())

    def __len__(self) -> int:
        return len(self._keys)


def edit_index(words: Sequence[str], counts: Sequence[int], max_distance: int, prefix_length: int,
               cache: Path | None) -> Any:
    """symspellpy's ``SymSpell`` over ``words`` with ``counts``, read from ``cache`` (a folder) when
    it holds one built from the same words and settings, else built (and written there)."""
    path = None
    if cache is not None:
        path = cache / f"edit-index-{_key(words, counts, max_distance, prefix_length)}.safetensors"
    with cache_lock(path):
        if path is not None and path.is_file():
            try:
                index = _read(path, words, counts, max_distance, prefix_length)
                mark_used(path)
                return index
            except DAMAGED_INDEX:  # a damaged file (or changed symspellpy internals) is rebuilt
                pass
        what = f"the speller's edit index of {len(words):,} words (distance {max_distance})"
        with building(what, path) if path is not None else contextlib.nullcontext():
            index = _new(max_distance, prefix_length)
            for word, count in zip(words, counts):
                index.create_dictionary_entry(word, count)
            if path is not None and _readable_back(index):
                try:
                    _write(index, path, what)
                except OSError:
                    pass  # a read-only cache costs a rebuild next time, nothing else
        return index


def sound_keys(words: Sequence[str], language: str, cache: Path | None) -> list[str]:
    """The sound key of each of ``words`` in ``language``, read from ``cache`` (a folder) when it
    holds them for the same words, else computed (and written there)."""
    from charwise.cache import file_sha256
    from charwise.typos import sounds

    path = None
    if cache is not None:
        digest = hashlib.sha256(json.dumps([FORMAT, language, file_sha256(Path(sounds.__file__))]).encode())
        digest.update("".join(f"{word}\n" for word in words).encode("utf-8", "surrogatepass"))  # one call
        path = cache / f"sound-keys-{language}-{digest.hexdigest()[:16]}.safetensors"
    with cache_lock(path):
        if path is not None and path.is_file():
            try:
                keys = array_text(load_tables(path)["keys"]) if words else []
                if len(keys) == len(words):
                    mark_used(path)
                    return keys
            except DAMAGED_ENTRY:  # a damaged file is recomputed
                pass
        what = f"the sound keys of {len(words):,} {language} words"
        with building(what, path) if path is not None else contextlib.nullcontext():
            keys = [sounds.sound_key(word, language) for word in words]
            if path is not None and all("\n" not in k for k in keys):
                try:
                    save_tables({"keys": text_array(keys)}, path, what)
                except OSError:
                    pass  # a read-only cache costs the keys next time, nothing else
        return keys


def _new(max_distance: int, prefix_length: int) -> Any:
    from symspellpy import SymSpell
    from symspellpy.editdistance import DistanceAlgorithm, EditDistance

    return SymSpell(max_dictionary_edit_distance=max_distance, prefix_length=prefix_length,
                    distance_comparer=EditDistance(DistanceAlgorithm.DAMERAU_OSA_FAST))


def _readable_back(index: Any) -> bool:
    """Whether ``index`` keeps its tables where :func:`_read` puts them (this symspellpy's layout)."""
    return all(isinstance(getattr(index, name, None), kind)
               for name, kind in (("_deletes", dict), ("_words", dict), ("_max_length", int)))


def _key(words: Sequence[str], counts: Sequence[int], max_distance: int, prefix_length: int) -> str:
    digest = hashlib.sha256(json.dumps([FORMAT, _symspellpy_version(), max_distance, prefix_length]).encode())
    digest.update("".join(f"{word}\t{count}\n" for word, count in zip(words, counts)).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:16]


def _symspellpy_version() -> str:
    try:
        return importlib.metadata.version("symspellpy")
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def _write(index: Any, path: Path, what: str) -> None:
    words = list(index._words)
    position = {w: i for i, w in enumerate(words)}
    keys = list(index._deletes)
    sizes = np.fromiter((len(index._deletes[k]) for k in keys), dtype=np.int64, count=len(keys))
    values = np.fromiter((position[w] for k in keys for w in index._deletes[k]), dtype=np.int32,
                         count=int(sizes.sum()))
    tables = {"words": text_array(words), "counts": np.asarray([index._words[w] for w in words], dtype=np.int64),
              "offsets": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
              "values": values, "max_length": np.asarray([index._max_length], dtype=np.int64),
              **StringTable.arrays(keys)}
    save_tables(tables, path, what)


def _read(path: Path, words: Sequence[str], counts: Sequence[int], max_distance: int, prefix_length: int) -> Any:
    # memory-mapped: the deletes stay in the file, shared between processes, never Python objects
    tables = {name: map_table(path, name) for name in ("words", "counts", "offsets", "values", "max_length",
                                                       "blob", "starts", "slots")}
    offsets = tables["offsets"]
    if len(offsets) != len(tables["starts"]) or len(words) != len(tables["counts"]):
        raise ValueError(f"{path}: inconsistent tables")
    # the caller's words (the lexicon's own strings, not a second copy of each), checked against the file's
    if (not np.array_equal(tables["words"], text_array(words))
            or not np.array_equal(tables["counts"], np.asarray(counts, dtype=np.int64))):
        raise ValueError(f"{path}: the words differ from the index's")
    index = _new(max_distance, prefix_length)
    if not _readable_back(index):
        raise ValueError("this symspellpy keeps its tables elsewhere")
    words = list(words)
    index._words = dict(zip(words, tables["counts"].tolist()))
    index._deletes = FrozenDeletes(tables["blob"], tables["starts"], tables["slots"], offsets, tables["values"],
                                   words)
    index._max_length = int(tables["max_length"][0])
    return index
