"""Checkpoint averaging: the parameter mean of a run's last few checkpoints.

Vaswani et al. (2017) report their Transformer results with the last 5 (base) or 20 (big)
checkpoints averaged (after Junczys-Dowmunt et al. 2016): the mean of weights taken along the end
of a run sits nearer the centre of the basin than any one of them, at no cost at test time (what
it is worth on the Bible is measured in docs/translation.md).

:func:`average_models` reads the models one at a time (memory: two models), refuses models that
differ in architecture, vocabularies or any tensor's shape, and returns the first model with the
mean weights. ``charwise translate train --average-last K`` keeps the weights of the last ``K``
evaluations (``OUT/snapshots``) and writes their mean to ``OUT/model-averaged``;
``charwise translate average`` averages any model directories of one run.

Example::

    from charwise.translation.averaging import average_models

    model = average_models(["runs/s2w/snapshots/step-0003000", "runs/s2w/snapshots/step-0004000"])
    model.save_pretrained("runs/s2w/model-averaged")
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

import torch

from charwise.errors import ConfigError
from charwise.translation.model import TranslationModel

__all__ = ["average_models", "snapshot_directories"]

SNAPSHOT_PREFIX = "step-"


def _architecture(model: TranslationModel) -> dict[str, Any]:
    """What must match for two models' weights to be averaged (not transformers' bookkeeping)."""
    config = {k: v for k, v in model.config.to_dict().items() if not k.startswith("_") and k != "transformers_version"}
    assert model.source_subwords is not None and model.target_subwords is not None
    return {**config, "source": model.source_subwords.to_str(), "target": model.target_subwords.to_str()}


def average_models(directories: Sequence[str | os.PathLike]) -> TranslationModel:
    """The model of ``directories[0]`` with every floating-point tensor replaced by its mean over
    all the directories' models (saved by :meth:`TranslationModel.save_pretrained`). Its
    ``training_info`` names the averaged directories."""
    if not directories:
        raise ConfigError("checkpoint averaging needs at least one model directory")
    first = TranslationModel.from_pretrained(directories[0])
    wanted = _architecture(first)
    sums = {k: v.detach().double().clone() for k, v in first.state_dict().items() if v.is_floating_point()}
    for directory in directories[1:]:
        other = TranslationModel.from_pretrained(directory)
        if _architecture(other) != wanted:
            raise ConfigError(f"'{directory}' is not the same model as '{directories[0]}' (architecture or "
                              "vocabularies differ); average checkpoints of one run only")
        for name, tensor in other.state_dict().items():
            if name in sums:  # same config, so same names and shapes; checked anyway (foreign files)
                if tensor.shape != sums[name].shape:
                    raise ConfigError(f"'{directory}': {name} has shape {tuple(tensor.shape)}, "
                                      f"expected {tuple(sums[name].shape)}")
                sums[name] += tensor.double()
        del other
    state = first.state_dict()
    with torch.no_grad():
        for name, total in sums.items():
            state[name].copy_((total / len(directories)).to(state[name].dtype))
    first.training_info = {**first.training_info, "averaged": [str(d) for d in directories]}
    return first


def snapshot_directories(root: str | os.PathLike) -> list[Path]:
    """The snapshots under ``root`` (``step-NNNNNNN`` directories), oldest first."""
    path = Path(root)
    if not path.is_dir():
        return []
    found = [p for p in path.iterdir() if p.is_dir() and p.name.startswith(SNAPSHOT_PREFIX)
             and p.name[len(SNAPSHOT_PREFIX):].isdigit()]
    return sorted(found, key=snapshot_step)


def snapshot_name(step: int) -> str:
    return f"{SNAPSHOT_PREFIX}{step:07d}"


def snapshot_step(path: Path) -> int:
    """The training step of a snapshot directory (``step-0001200`` -> 1200)."""
    return int(path.name[len(SNAPSHOT_PREFIX):])
