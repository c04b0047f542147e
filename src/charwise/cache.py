"""Where charwise keeps what it derives once and reuses, and how a cached result knows its inputs.

The e5 teacher's unpacked image and the speller's lexicons and vectors live under
:func:`cache_root`; each cache entry is keyed by hashes of what it was built from
(:func:`file_sha256` for files), so a changed input builds a new entry instead of reusing a stale one.
In memory, :class:`LRUCache` bounds what is remembered across calls (word pieces, vectors, scores).
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from pathlib import Path
from typing import Any

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


class LRUCache:
    """A bounded mapping that forgets the least recently used entry."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.data: OrderedDict[Any, Any] = OrderedDict()

    def get(self, key: Any) -> Any:
        value = self.data.get(key)
        if value is not None:
            self.data.move_to_end(key)
        return value

    def put(self, key: Any, value: Any) -> None:
        self.data[key] = value
        self.data.move_to_end(key)
        while len(self.data) > self.size:
            self.data.popitem(last=False)

    def clear(self) -> None:
        self.data.clear()
