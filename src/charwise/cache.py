"""Where charwise keeps what it derives once and reuses, and how a cached result knows its inputs.

The e5 teacher's unpacked image and the speller's lexicons and vectors live under
:func:`cache_root`; each cache entry is keyed by hashes of what it was built from
(:func:`file_sha256` for files), so a changed input builds a new entry instead of reusing a stale one.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

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
