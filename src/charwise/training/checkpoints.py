"""Resumable training state: weights (safetensors), optimizer + RNG (``torch.load(weights_only=True)``)
and a JSON state, written to a temporary directory and renamed into place, so that a kill at any
moment leaves either the previous checkpoint or the new one, never half of each."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_file
from torch import nn

from charwise.encoders.base import replace_directory


def save_training_state(directory: Path, module: nn.Module, optimizer: torch.optim.Optimizer,
                        state: dict[str, Any]) -> None:
    """Write ``module``'s weights, the optimizer, the torch RNG and ``state`` to ``directory``."""
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
    try:
        weights = {k: v.detach().cpu().contiguous() for k, v in module.state_dict().items()}
        save_file(weights, str(tmp / "model.safetensors"))
        torch.save({"optimizer": optimizer.state_dict(), "torch_rng": torch.get_rng_state()}, tmp / "optimizer.pt")
        (tmp / "state.json").write_text(json.dumps(state, indent=2))
        replace_directory(tmp, directory)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def read_training_state(directory: Path) -> dict[str, Any] | None:
    """The JSON state of the checkpoint in ``directory``, or ``None`` if there is none."""
    path = Path(directory) / "state.json"
    return json.loads(path.read_text()) if path.exists() else None


def load_training_state(directory: Path, module: nn.Module, optimizer: torch.optim.Optimizer) -> None:
    """Restore weights, optimizer and torch RNG saved by :func:`save_training_state`."""
    directory = Path(directory)
    module.load_state_dict(load_file(str(directory / "model.safetensors")))
    extra = torch.load(directory / "optimizer.pt", weights_only=True)
    optimizer.load_state_dict(extra["optimizer"])
    torch.set_rng_state(extra["torch_rng"])
