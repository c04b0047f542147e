"""What the command modules share: checks of flag values, loading an encoder, writing a ``.npy``.

Flag checks raise :class:`~charwise.errors.ConfigError` naming the flag (``--max-words must be >=
0, got -1``): the command line speaks in flags, the library in arguments.
"""

from __future__ import annotations

import os
from typing import Any

from charwise.errors import ConfigError
from charwise.io import atomic_file


def check_min(flag: str, value: float, minimum: float) -> None:
    """``value >= minimum``, else a ConfigError naming ``flag``."""
    if value < minimum:
        raise ConfigError(f"{flag} must be >= {minimum}, got {value}")


def check_positive(flag: str, value: float) -> None:
    """``value > 0``, else a ConfigError naming ``flag``."""
    if not value > 0:
        raise ConfigError(f"{flag} must be > 0, got {value}")


def check_unit(flag: str, value: float) -> None:
    """``0 <= value <= 1``, else a ConfigError naming ``flag``."""
    if not 0.0 <= value <= 1.0:
        raise ConfigError(f"{flag} must be in [0, 1], got {value}")


def load_encoder(name_or_path: str) -> Any:
    """A shipped encoder by name or an encoder directory (:func:`charwise.encoders.shipped.load`)."""
    from charwise.encoders.shipped import load

    return load(name_or_path)


def save_npy(path: str | os.PathLike, vectors: Any) -> None:
    """Write a tensor's rows as a float32 ``.npy`` matrix, atomically."""
    import numpy as np

    with atomic_file(path, "wb") as f:
        np.save(f, vectors.detach().cpu().numpy().astype(np.float32))
