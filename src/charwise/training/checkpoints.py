"""Resumable training state, as the engine writes it to ``OUT/checkpoint``:

* ``model.safetensors``: the trained module's weights, from contiguous CPU copies whatever their
  layout on the device (tensors shared inside it, such as tied embeddings, are stored once;
  :func:`charwise.model_files.save_weights`);
* ``optimizer.pt``: the optimizer state and the RNG state of every process
  (read back with ``torch.load(weights_only=True)``);
* ``state.json``: step, best score, early-stopping counter, history, configuration.

The directory is built next to its destination and renamed into place
(:func:`charwise.io.atomic_directory`), so a kill at any moment leaves the previous checkpoint or
the new one, never half of each.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import torch
from torch import nn

from charwise.errors import CheckpointError
from charwise.io import atomic_directory
from charwise.model_files import read_weights, save_weights

WEIGHTS_FILE = "model.safetensors"
OPTIMIZER_FILE = "optimizer.pt"
STATE_FILE = "state.json"


def capture_rng() -> dict[str, Any]:
    """This process's random state: torch (CPU and every CUDA device) and Python's ``random``."""
    return {"torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
            "python": random.getstate()}


def restore_rng(state: dict[str, Any]) -> None:
    """Undo :func:`capture_rng` (also accepts the ``torch_rng`` tensor of older checkpoints)."""
    torch.set_rng_state(state["torch"])
    if state.get("cuda") and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
    if state.get("python") is not None:
        version, internal, gauss = state["python"]
        random.setstate((version, tuple(internal), gauss))


def save_training_state(directory: str | Path, module: nn.Module, optimizer: torch.optim.Optimizer,
                        state: dict[str, Any], rng: list[dict[str, Any]] | None = None,
                        task_states: list[Any] | None = None) -> None:
    """Write ``module``'s weights, the optimizer, the RNG states (one per process; default: this
    process's), what the task carries between steps (``task_states``, one per process: tensors,
    numbers, lists, dicts) and the JSON ``state`` to ``directory``, atomically."""
    with atomic_directory(directory) as tmp:
        save_weights(module, tmp / WEIGHTS_FILE)
        torch.save({"optimizer": optimizer.state_dict(), "rng": rng if rng is not None else [capture_rng()],
                    "task": task_states or []}, tmp / OPTIMIZER_FILE)
        (tmp / STATE_FILE).write_text(json.dumps(state, indent=2), encoding="utf-8")


def read_training_state(directory: str | Path) -> dict[str, Any] | None:
    """The JSON state of the checkpoint in ``directory``, or ``None`` if there is none."""
    path = Path(directory) / STATE_FILE
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"'{path}' is not valid JSON: {e}") from None


def load_training_state(directory: str | Path, module: nn.Module,
                        optimizer: torch.optim.Optimizer) -> tuple[list[dict[str, Any]], list[Any]]:
    """Restore the weights and the optimizer saved by :func:`save_training_state`; returns the
    saved RNG states, one per process (restore yours with :func:`restore_rng`), and the task
    states (one per process; empty when the task carries nothing)."""
    directory = Path(directory)
    device = next((p.device for p in module.parameters()), torch.device("cpu"))
    try:
        state = read_weights(directory / WEIGHTS_FILE, device)
    except Exception as e:  # safetensors' SafetensorError for a truncated or corrupt file
        raise CheckpointError(f"cannot read '{directory / WEIGHTS_FILE}' (corrupt or cut short: {e}); "
                              "resume from an intact checkpoint or start a new run") from None
    try:
        # copies into the existing parameters: a layout such as cuDNN's flat RNN buffer is kept
        module.load_state_dict(state)
    except RuntimeError as e:
        raise CheckpointError(f"'{directory}' does not fit this model: {' '.join(str(e).split())[:300]}") from None
    try:
        extra = torch.load(directory / OPTIMIZER_FILE, weights_only=True)
        optimizer.load_state_dict(extra["optimizer"])
    except (RuntimeError, EOFError, KeyError, TypeError, ValueError, OSError) as e:
        raise CheckpointError(f"cannot read '{directory / OPTIMIZER_FILE}' (corrupt or cut short: "
                              f"{' '.join(str(e).split())[:200]}); resume from an intact checkpoint or start a new run"
                              ) from None
    if "rng" in extra:
        return list(extra["rng"]), list(extra.get("task", []))
    return [{"torch": extra["torch_rng"]}], []  # a checkpoint written before the engine
