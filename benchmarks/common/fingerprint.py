"""What a benchmark's cached figures were computed with: a digest of charwise's code and shipped data.

A benchmark that keeps partial results to resume a killed run stores this beside them and reads
them back only when it is unchanged, so a re-run after a change of the speller (or of anything
else in the package) measures again instead of reporting the old figures.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

CHUNK = 1 << 20


@lru_cache(maxsize=None)
def code_fingerprint(package: Path | None = None) -> str:
    """A SHA-256 (16 hex digits) of every file of the installed ``charwise`` package (code, shipped
    models and tables; not ``__pycache__``), names included."""
    if package is None:
        import charwise

        package = Path(charwise.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(package).as_posix().encode("utf-8") + b"\0")
        with path.open("rb") as f:
            while chunk := f.read(CHUNK):
                digest.update(chunk)
    return digest.hexdigest()[:16]
