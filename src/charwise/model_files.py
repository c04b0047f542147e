"""The files of every model charwise saves (encoders, decoders, taggers): one way to write them
atomically and one strict check of the weights read back.

A saved model is ``config.json`` (the config's ``save_pretrained``) + ``model.safetensors`` +
an optional ``training.json`` (the training record).

Weights are written from :func:`owned_cpu_state`: a contiguous CPU copy of every tensor that owns
its storage. Parameters do not always own theirs: on a GPU, cuDNN keeps all of an RNN's weights as
views of one flat buffer, which safetensors (and transformers' ``save_pretrained``) refuse to
write. Tensors that are the very same view (tied weights) are written once, the other names
recorded as aliases in the file's metadata, as safetensors' ``save_model`` does.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
from pathlib import Path
from typing import Any, Iterator

import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file
from torch import nn
from transformers import PreTrainedModel

from charwise.errors import CheckpointError
from charwise.io import atomic_directory, write_json

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"
TRAINING_FILE = "training.json"


def read_json_file(path: Path) -> Any:
    """The JSON in ``path``; a one-line CheckpointError if it is not valid JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"'{path}' is not valid JSON: {e}") from None


@contextlib.contextmanager
def no_progress_bars() -> Iterator[None]:
    """Without transformers' progress bars: "Writing model shards" (a training run saves often),
    "Loading weights" (every ``from_pretrained``) and the GGUF reader's "Converting and
    de-quantizing GGUF tensors" (drawn with tqdm directly, so switched off here for the while)."""
    from transformers.utils import logging as hf_logging

    enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    gguf_utils: Any = None
    try:
        import transformers.modeling_gguf_pytorch_utils as gguf_utils
    except Exception:  # an install without GGUF support draws no such bar
        pass
    gguf_bar = getattr(gguf_utils, "tqdm", None)
    if gguf_bar is not None:
        gguf_utils.tqdm = functools.partial(gguf_bar, disable=True)
    try:
        yield
    finally:
        if gguf_bar is not None:
            gguf_utils.tqdm = gguf_bar
        if enabled:
            hf_logging.enable_progress_bar()


def owned_cpu_state(state: dict[str, torch.Tensor]) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """``state`` (a state dict, on any device, in any memory layout) as tensors safetensors can
    write: contiguous CPU copies that own their storage, each view stored once. Returns the tensors
    to write and the aliases (name left out -> name written) of tied weights."""
    owned: dict[str, torch.Tensor] = {}
    aliases: dict[str, str] = {}
    first_name: dict[tuple[Any, ...], str] = {}
    for name, tensor in state.items():
        view = (tensor.device, tensor.untyped_storage().data_ptr(), tensor.storage_offset(), tuple(tensor.shape),
                tensor.stride(), tensor.dtype)
        if tensor.numel() and view in first_name:
            aliases[name] = first_name[view]
            continue
        first_name[view] = name
        owned[name] = tensor.detach().to("cpu", memory_format=torch.contiguous_format, copy=True)
    return owned, aliases


def save_weights(module: nn.Module, path: str | os.PathLike) -> None:
    """Write ``module``'s state dict to the safetensors file ``path`` (see :func:`owned_cpu_state`)."""
    owned, aliases = owned_cpu_state(module.state_dict())
    save_file(owned, str(path), metadata={**aliases, "format": "pt"})


def read_weights(path: str | os.PathLike, device: str | torch.device = "cpu") -> dict[str, torch.Tensor]:
    """The tensors of a safetensors file written by :func:`save_weights` (or safetensors'
    ``save_model``), aliases of tied weights included."""
    state = load_file(str(path), device=str(device))
    with safe_open(str(path), framework="pt") as f:
        metadata = f.metadata() or {}
    for alias, name in metadata.items():
        if alias not in state and name in state:
            state[alias] = state[name]
    return state


def save_model_directory(model: PreTrainedModel, directory: str | os.PathLike,
                         training_info: dict[str, Any] | None, extra_files: dict[str, str] | None = None) -> Path:
    """Write a charwise model's ``config.json`` and ``model.safetensors`` (transformers'
    ``save_pretrained``), its ``training.json`` (unless empty) and ``extra_files`` (name -> text,
    e.g. tokenizers) to ``directory``, atomically."""
    path = Path(directory)
    with atomic_directory(path) as tmp, no_progress_bars():
        # Not PreTrainedModel.save_pretrained: it refuses weights that share a buffer (see above).
        model.config.architectures = [type(model).__name__]
        model.config.save_pretrained(tmp)
        save_weights(model, tmp / WEIGHTS_FILE)
        written = sorted(p.name for p in tmp.iterdir())
        if written != sorted([CONFIG_FILE, WEIGHTS_FILE]):
            raise RuntimeError(f"wrote {written}, expected {CONFIG_FILE} and {WEIGHTS_FILE}")
        if training_info:
            write_json(tmp / TRAINING_FILE, training_info)
        for name, text in (extra_files or {}).items():
            (tmp / name).write_text(text, encoding="utf-8")
    return path


def load_checked_weights(model: nn.Module | dict[str, torch.Tensor], weights_path: Path, what: str,
                         map_location: str | torch.device = "cpu") -> dict[str, torch.Tensor]:
    """The safetensors state of ``weights_path``, checked strictly against ``model`` (or the state
    dict it should match; described as ``what`` in errors): readable, finite, the same tensor names
    and shapes. Raises a one-line :class:`~charwise.errors.CheckpointError` otherwise; the caller
    loads the returned state."""
    try:
        state = read_weights(weights_path, map_location)
    except Exception as e:  # safetensors raises several types for corrupt files
        raise CheckpointError(f"cannot read weights '{weights_path}': {e}") from None
    broken = [name for name, tensor in state.items()
              if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all())]
    if broken:
        raise CheckpointError(f"weights in '{weights_path}' hold NaN or infinite values ({', '.join(broken[:3])}"
                              f"{', ...' if len(broken) > 3 else ''}): the model is broken; use another one")
    expected = model if isinstance(model, dict) else model.state_dict()
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    if missing or unexpected:
        raise CheckpointError(f"weights in '{weights_path}' do not match {what}: "
                              f"missing {missing[:5]}, unexpected {unexpected[:5]}")
    for name, tensor in state.items():
        if tuple(tensor.shape) != tuple(expected[name].shape):
            raise CheckpointError(f"shape mismatch for '{name}': checkpoint {tuple(tensor.shape)} "
                                  f"vs config {tuple(expected[name].shape)}")
    return state


def load_model_directory(cls: Any, directory: str | os.PathLike, what: str, hint: str) -> Any:
    """A model of class ``cls`` (a ``PreTrainedModel`` with ``config_class`` and a ``training_info``
    attribute) saved by :func:`save_model_directory`, in eval mode. Anything else in ``directory``
    (no config, another ``model_type``, bad config values, weights that do not fit) raises a
    one-line :class:`~charwise.errors.CheckpointError` calling the expected model ``what``;
    ``hint`` says how to get one."""
    path = Path(directory)
    model_type = cls.config_class.model_type
    meta = read_json_file(path / CONFIG_FILE) if (path / CONFIG_FILE).is_file() else None
    if not isinstance(meta, dict) or meta.get("model_type") != model_type or not (path / WEIGHTS_FILE).is_file():
        raise CheckpointError(f"'{path}' is not a {what} (need {CONFIG_FILE} with model_type '{model_type}' and "
                              f"{WEIGHTS_FILE}); {hint}")
    try:
        model = cls(cls.config_class(**{k: v for k, v in meta.items() if k != "model_type"}))
    except (TypeError, ValueError) as e:  # ConfigError is a ValueError
        raise CheckpointError(f"bad {what} config in '{path / CONFIG_FILE}': {e}") from None
    model.load_state_dict(load_checked_weights(model, path / WEIGHTS_FILE, f"this {what}'s config"))
    info = read_json_file(path / TRAINING_FILE) if (path / TRAINING_FILE).is_file() else {}
    model.training_info = info if isinstance(info, dict) else {}
    return model.eval()
