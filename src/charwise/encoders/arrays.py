"""A saved character CNN run in numpy: :class:`CharCNNArrays` (no torch import).

The speller embeds a few hundred written words per call; importing torch and transformers to do it
costs more than three seconds and 350 MB before the first word (``charwise correct`` on one word).
This reads the same directory as
:meth:`CharEncoder.from_pretrained <charwise.encoders.base.CharEncoder.from_pretrained>`
(``config.json`` + ``model.safetensors``) and computes :func:`~charwise.encoders.cnn.char_cnn`,
the highway layers, the projection and the layer norm with numpy: the same raw vectors as the
torch module, to float32 rounding (tests/test_encoder_arrays.py). Only the CNN is supported: the
shipped encoders are CNNs; other kinds stay on torch.

Example::

    encoder = CharCNNArrays.from_pretrained("src/charwise/pretrained/minilm")
    encoder.embed(["recieve", "house"])        # (2, 384) float32, raw (not projected)
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from charwise.charset import PAD, CharsetConfig, CharVocab
from charwise.encoders.manifold import ManifoldConfig
from charwise.errors import CheckpointError, ConfigError

CONFIG_FILE = "config.json"  # the names of charwise.encoders.base (not imported: it imports torch)
WEIGHTS_FILE = "model.safetensors"
LAYER_NORM_EPS = 1e-5  # torch.nn.LayerNorm's default, which the CNN uses


def weights_key(arrays: Mapping[str, np.ndarray]) -> str:
    """A short hash of an encoder's weights: every array by name, as float32 bytes (the torch
    encoder's state dict gives the same key: caches built by either are shared)."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        h.update(name.encode())
        h.update(np.ascontiguousarray(arrays[name], dtype=np.float32).tobytes())
    return h.hexdigest()[:16]


def _activation(name: str):
    if name == "tanh":
        return np.tanh
    if name == "relu":
        return lambda x: np.maximum(x, 0)
    if name == "gelu":  # torch's exact (erf) gelu
        from math import erf, sqrt

        verf = np.vectorize(erf, otypes=[np.float64])
        return lambda x: (0.5 * x * (1 + verf(x / sqrt(2)))).astype(np.float32)
    raise CheckpointError(f"unknown activation {name!r}")


class CharCNNArrays:
    """A character CNN encoder's inference in numpy (see the module docstring).

    Attributes:
        arch: the ``arch`` section of the config (widths, channels, activation...).
        charset: the strings-to-ids map the encoder was trained with.
        manifold: the tuned projection onto the teacher's rows, or None.
        teacher_info: the teacher's identity (name, vocab_hash, dim, family).
        weights: name -> float32 array, as in ``model.safetensors``.
    """

    def __init__(self, config: dict[str, Any], weights: dict[str, np.ndarray], source: str = "<arrays>") -> None:
        if config.get("encoder_type", "cnn") != "cnn":
            raise ConfigError(f"'{source}' holds a {config.get('encoder_type')} encoder: only a cnn runs without torch")
        try:
            arch = dict(config["arch"])
            self.charset = CharVocab(CharsetConfig(**config["charset"]))
            self.manifold = ManifoldConfig.from_dict(config["manifold"]) if config.get("manifold") else None
            self.widths = [int(w) for w in arch["widths"]]
            self.channels = [int(c) for c in arch["channels"]]
            self.dim = int(arch["dim"])
            self.char_dim = int(arch["char_dim"])
            self.hidden = int(arch.get("hidden", 0))
            self.highway_layers = int(arch.get("highway_layers", 0))
            self.layer_norm = bool(arch.get("layer_norm", False))
            self.activation = _activation(str(arch.get("activation", "tanh")))
        except (KeyError, TypeError, ValueError) as e:
            raise CheckpointError(f"bad encoder config in '{source}': {e}") from None
        self.arch = arch
        self.teacher_info: dict[str, Any] = dict(config.get("teacher") or {})
        self.weights = {name: np.ascontiguousarray(value, dtype=np.float32) for name, value in weights.items()}
        self._check_shapes(source)
        # each convolution as one matrix over a window's characters, read position by position
        self._convs = [(self.weights[f"convs.{i}.weight"].transpose(0, 2, 1).reshape(c, w * self.char_dim).T.copy(),
                        self.weights[f"convs.{i}.bias"])
                       for i, (w, c) in enumerate(zip(self.widths, self.channels))]
        self._key: str | None = None

    @classmethod
    def from_pretrained(cls, directory: str | os.PathLike) -> "CharCNNArrays":
        """Read an encoder directory (``config.json`` + ``model.safetensors``); a one-line
        :class:`CheckpointError` for anything else."""
        from safetensors import SafetensorError
        from safetensors.numpy import load_file

        path = Path(directory)
        try:
            config = json.loads((path / CONFIG_FILE).read_text(encoding="utf-8"))
            weights = load_file(str(path / WEIGHTS_FILE))
        except (OSError, ValueError, SafetensorError) as e:
            raise CheckpointError(f"'{path}' is not a readable charwise encoder directory: {e}") from None
        if not isinstance(config, dict):
            raise CheckpointError(f"'{path / CONFIG_FILE}' is not an encoder config")
        return cls(config, weights, str(path))

    def _check_shapes(self, source: str) -> None:
        """Every array the forward pass reads, with the shape the config implies; nothing else."""
        features = sum(self.channels)
        expected: dict[str, tuple[int, ...]] = {"chars.weight": (self.charset.size, self.char_dim)}
        for i, (w, c) in enumerate(zip(self.widths, self.channels)):
            expected[f"convs.{i}.weight"], expected[f"convs.{i}.bias"] = (c, self.char_dim, w), (c,)
        for i in range(self.highway_layers):
            for part in ("transform", "gate"):
                expected[f"highways.{i}.{part}.weight"], expected[f"highways.{i}.{part}.bias"] = (features, features), (
                    features,)
        if self.hidden > 0:
            expected.update({"project.0.weight": (self.hidden, features), "project.0.bias": (self.hidden,),
                             "project.2.weight": (self.dim, self.hidden), "project.2.bias": (self.dim,)})
        else:
            expected.update({"project.weight": (self.dim, features), "project.bias": (self.dim,)})
        if self.layer_norm:
            expected.update({"norm.weight": (self.dim,), "norm.bias": (self.dim,)})
        if len(self.widths) != len(self.channels):
            raise CheckpointError(f"bad encoder config in '{source}': widths and channels differ in length")
        missing = sorted(set(expected) - set(self.weights))
        unexpected = sorted(set(self.weights) - set(expected))
        wrong = [f"{name} {self.weights[name].shape} != {shape}" for name, shape in expected.items()
                 if name in self.weights and self.weights[name].shape != shape]
        if missing or unexpected or wrong:
            raise CheckpointError(f"'{source}' does not match its config: missing {missing}, unexpected "
                                  f"{unexpected}, wrong shapes {wrong}")
        if not all(np.isfinite(v).all() for v in self.weights.values()):
            raise CheckpointError(f"'{source}' holds non-finite weights")

    @property
    def key(self) -> str:
        """:func:`weights_key` of the weights (what caches of this encoder's vectors are keyed by)."""
        if self._key is None:
            self._key = weights_key(self.weights)
        return self._key

    def encode_ids(self, ids: np.ndarray) -> np.ndarray:
        """``(n, L)`` character ids (0 = padding) -> raw vectors ``(n, dim)`` float32."""
        lengths = (ids != PAD).sum(axis=1)
        widest = max(self.widths)
        if ids.shape[1] < widest:  # every width needs at least one window
            ids = np.pad(ids, ((0, 0), (0, widest - ids.shape[1])), constant_values=PAD)
        x = self.weights["chars.weight"][ids]  # (n, L, char_dim)
        n, length, _ = x.shape
        pooled = []
        for width, (matrix, bias) in zip(self.widths, self._convs):
            windows = length - width + 1
            # (n, windows, width * char_dim): each window's characters side by side
            stacked = np.concatenate([x[:, k : k + windows] for k in range(width)], axis=2)
            f = stacked @ matrix + bias  # (n, windows, channels)
            # a window is real if it starts inside the string; a string shorter than the width keeps its first
            valid = np.arange(windows)[None, :] < np.maximum(lengths - width + 1, 1)[:, None]
            f = np.where(valid[:, :, None], f, -np.inf)
            pooled.append(self.activation(f.max(axis=1)))
        y = np.concatenate(pooled, axis=1).astype(np.float32)
        w = self.weights
        for i in range(self.highway_layers):
            t = 1 / (1 + np.exp(-(y @ w[f"highways.{i}.gate.weight"].T + w[f"highways.{i}.gate.bias"])))
            h = np.maximum(y @ w[f"highways.{i}.transform.weight"].T + w[f"highways.{i}.transform.bias"], 0)
            y = (t * h + (1 - t) * y).astype(np.float32)
        if self.hidden > 0:
            y = np.maximum(y @ w["project.0.weight"].T + w["project.0.bias"], 0)
            y = y @ w["project.2.weight"].T + w["project.2.bias"]
        else:
            y = y @ w["project.weight"].T + w["project.bias"]
        if self.layer_norm:
            mean = y.mean(axis=1, keepdims=True)
            var = ((y - mean) ** 2).mean(axis=1, keepdims=True)
            y = (y - mean) / np.sqrt(var + LAYER_NORM_EPS) * w["norm.weight"] + w["norm.bias"]
        return y.astype(np.float32)

    def embed(self, words: list[str], *, pieces: bool = False, batch_size: int = 1024) -> np.ndarray:
        """Raw vectors ``(len(words), dim)`` float32 of whole words (or continuation ``pieces``),
        batched by length so that padding stays small; order is preserved."""
        if isinstance(words, str):
            raise TypeError("embed() takes a list of strings, not a single string")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"batch_size must be a positive integer, got {batch_size!r}")
        out = np.empty((len(words), self.dim), dtype=np.float32)
        order = sorted(range(len(words)), key=lambda i: len(words[i]))
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            out[idx] = self.encode_ids(self.charset.batch_array([words[i] for i in idx], not pieces))
        return out
