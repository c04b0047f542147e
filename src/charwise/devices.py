"""Where a model runs: ``device=`` arguments and ``--device`` options, checked in one place.

Every constructor and loader that builds a model takes ``device=None`` (leave the model where it
is: CPU after loading) or a device torch knows (``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``...).
:func:`check_device` turns it into a :class:`torch.device`, or refuses it in one line: an unknown
name, or a CUDA device when torch sees none. Nothing in charwise moves a model to a GPU on its own.
"""

from __future__ import annotations

import torch

from charwise.errors import ConfigError


def check_device(device: str | torch.device) -> torch.device:
    """``device`` as a :class:`torch.device` that torch can use, else a one-line ConfigError."""
    try:
        found = torch.device(device)
    except (RuntimeError, TypeError):
        raise ConfigError(f"unknown device {device!r} (cpu, cuda, cuda:1, mps...)") from None
    if found.type == "cuda" and not torch.cuda.is_available():
        raise ConfigError(f"device {str(found)!r} was asked for, but torch sees no CUDA device")
    return found
