"""Character CNN (Kim et al. 2016; XRayEmb's XR-ENC): convolutions of several widths, max over
time, highway layers, projection to the teacher's dimension."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import torch
from torch import nn

from charwise.charset import PAD
from charwise.encoders.base import CharEncoder, CharEncoderConfig
from charwise.encoders.registry import register
from charwise.errors import ConfigError
from charwise.presets import ENCODER_PRESETS


@dataclass
class CNNConfig:
    dim: int = 384
    num_chars: int = 256
    char_dim: int = 15
    widths: list[int] = field(default_factory=lambda: [1, 2, 3, 4, 5, 6])
    channels: list[int] = field(default_factory=lambda: [25, 50, 75, 100, 125, 150])
    activation: str = "tanh"  # applied after max-over-time (Kim: tanh; XRayEmb: relu)
    highway_layers: int = 1
    highway_bias: float = -2.0  # negative gate bias: start close to the identity (carry) path
    dropout: float = 0.0
    hidden: int = 0  # >0: a ReLU hidden layer of this width before the projection (more memory for rows)
    layer_norm: bool = False  # optional LayerNorm on the projected output

    def __post_init__(self) -> None:
        if len(self.widths) != len(self.channels):
            raise ConfigError("widths and channels must have the same length")


_ACTIVATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "tanh": torch.tanh, "relu": torch.relu, "gelu": nn.functional.gelu,
}


class Highway(nn.Module):
    """z = t * g(W_H y + b_H) + (1 - t) * y, with t = sigmoid(W_T y + b_T) (Srivastava et al. 2015)."""

    def __init__(self, size: int, gate_bias: float) -> None:
        super().__init__()
        self.transform = nn.Linear(size, size)
        self.gate = nn.Linear(size, size)
        nn.init.constant_(self.gate.bias, gate_bias)

    def forward(self, y: torch.Tensor) -> torch.Tensor:
        t = torch.sigmoid(self.gate(y))
        return t * torch.relu(self.transform(y)) + (1 - t) * y


@register("cnn")
class CNNEncoder(CharEncoder):
    Config = CNNConfig
    PRESETS = ENCODER_PRESETS["cnn"]

    def __init__(self, config: CharEncoderConfig) -> None:
        super().__init__(config)
        cfg = self.arch  # CNNConfig
        if cfg.activation not in _ACTIVATIONS:
            raise ConfigError(f"unknown activation {cfg.activation!r}")
        self.chars = nn.Embedding(cfg.num_chars, cfg.char_dim, padding_idx=PAD)
        self.convs = nn.ModuleList(nn.Conv1d(cfg.char_dim, c, w) for w, c in zip(cfg.widths, cfg.channels))
        features = sum(cfg.channels)
        self.highways = nn.ModuleList(Highway(features, cfg.highway_bias) for _ in range(cfg.highway_layers))
        self.dropout = nn.Dropout(cfg.dropout)
        self.project: nn.Module
        if cfg.hidden > 0:
            self.project = nn.Sequential(nn.Linear(features, cfg.hidden), nn.ReLU(), nn.Linear(cfg.hidden, cfg.dim))
        else:
            self.project = nn.Linear(features, cfg.dim)
        self.norm = nn.LayerNorm(cfg.dim) if cfg.layer_norm else nn.Identity()
        self.post_init()

    def encode_ids(self, char_ids: torch.Tensor) -> torch.Tensor:
        y = char_cnn(char_ids, self.chars, self.convs, self.arch.widths, self.arch.activation)
        for highway in self.highways:
            y = highway(y)
        return self.norm(self.project(self.dropout(y)))


def char_cnn(char_ids: torch.Tensor, chars: nn.Embedding, convs: nn.ModuleList, widths: list[int],
             activation: str) -> torch.Tensor:
    """Kim et al.'s CharCNN: ``(n, L)`` character ids (0 = padding) -> ``(n, sum(channels))``,
    each filter's maximum over the windows of the string, after ``activation``."""
    lengths = (char_ids != PAD).sum(dim=1)
    widest = max(widths)
    if char_ids.shape[1] < widest:  # every width needs at least one window
        char_ids = nn.functional.pad(char_ids, (0, widest - char_ids.shape[1]), value=PAD)
    x = chars(char_ids).transpose(1, 2)  # (n, char_dim, L)
    act = _ACTIVATIONS[activation]
    pooled = []
    for width, conv in zip(widths, convs):
        f = conv(x)  # (n, channels, L - width + 1)
        # A window is real if it starts inside the string; strings shorter than the width
        # keep their first window (which overlaps padding) so the max is never empty.
        starts = torch.arange(f.shape[2], device=f.device)
        valid = starts[None, :] < torch.clamp(lengths - width + 1, min=1)[:, None]
        f = f.masked_fill(~valid[:, None, :], float("-inf"))
        pooled.append(act(f.max(dim=2).values))
    return torch.cat(pooled, dim=1)
