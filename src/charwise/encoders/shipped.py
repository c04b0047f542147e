"""Encoders shipped inside the package, trained with ``charwise train`` (see benchmarks/results)."""

from __future__ import annotations

from pathlib import Path

from charwise.encoders.base import CharEncoder

SHIPPED_DIR = Path(__file__).parent / "pretrained"


def available() -> list[str]:
    """Names of the encoders shipped with this installation."""
    if not SHIPPED_DIR.is_dir():
        return []
    return sorted(p.name for p in SHIPPED_DIR.iterdir() if (p / "config.json").exists())


def load(name_or_path: str = "minilm") -> CharEncoder:
    """A shipped encoder by teacher name (``"minilm"``) or any encoder directory by path."""
    if (SHIPPED_DIR / name_or_path / "config.json").exists():
        return CharEncoder.from_pretrained(SHIPPED_DIR / name_or_path)
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        return CharEncoder.from_pretrained(path)
    raise FileNotFoundError(
        f"no encoder '{name_or_path}': shipped encoders are {available() or 'none'}; or pass a directory"
    )
