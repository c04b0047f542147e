"""Markdown for result pages: numbers as the user guide rounds them, and tables."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any

Lines = list[str]


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def plural(n: int | float, word: str) -> str:
    return f"{n:g} {word}" + ("" if n == 1 else "s")


def mean_std(stat: dict[str, float]) -> str:
    return f"{100 * stat['mean']:.1f} ± {100 * stat['std']:.1f}"


def table(header: list[str], rows: list[list[str]], right: set[int] | None = None) -> Lines:
    """A Markdown table; columns in ``right`` are right-aligned (numbers)."""
    right = right or set()
    lines = [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join("---:" if i in right else "---" for i in range(len(header))) + " |",
    ]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def packaged_paths(text: str) -> str:
    """``data/...`` (where the built-in data lived when a JSON was written) -> ``src/charwise/data/...``."""
    return re.sub(r"(^|[\s=])data/", r"\1src/charwise/data/", text)


def render_generic(data: Any) -> Lines:
    """Any other result: its top-level numbers and strings."""
    if not isinstance(data, dict):
        return ["(no renderer for this result; see the JSON)"]
    rows = [[f"`{k}`", str(v)] for k, v in data.items() if isinstance(v, (int, float, str)) and not isinstance(v, bool)]
    return table(["field", "value"], rows) if rows else ["(no renderer for this result; see the JSON)"]


def write_page(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` atomically (a temporary file beside it, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
