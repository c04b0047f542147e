"""Char2Subword module (Aguilar et al. 2021, appendix A): character embeddings plus sinusoidal
positions, ``l`` pre-LayerNorm transformer layers with ``k`` heads and a 4x GELU feed-forward,
then a linear map W_e to the teacher's dimension, max-pooling over characters and LayerNorm."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from charwise.charset import PAD
from charwise.encoders.base import CharEncoder, CharEncoderConfig
from charwise.encoders.registry import register
from charwise.errors import ConfigError, InputError
from charwise.presets import ENCODER_PRESETS


@dataclass
class TransformerConfig:
    dim: int = 384
    num_chars: int = 256
    char_dim: int = 192  # d' in the paper
    layers: int = 4  # l
    heads: int = 4  # k
    dropout: float = 0.0
    max_positions: int = 128


def sinusoidal_positions(length: int, dim: int) -> torch.Tensor:
    """Vaswani et al. (2017) fixed position encodings, shape ``(length, dim)``."""
    position = torch.arange(length, dtype=torch.float32)[:, None]
    div = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-math.log(10000.0) / dim))
    table = torch.zeros(length, dim)
    table[:, 0::2] = torch.sin(position * div)
    table[:, 1::2] = torch.cos(position * div[: dim // 2])
    return table


@register("transformer")
class TransformerEncoder(CharEncoder):
    Config = TransformerConfig
    PRESETS = ENCODER_PRESETS["transformer"]

    positions: torch.Tensor  # buffer (registered in __init__)

    def __init__(self, config: CharEncoderConfig) -> None:
        super().__init__(config)
        cfg = self.arch  # TransformerConfig
        if cfg.char_dim % cfg.heads:
            raise ConfigError("char_dim must be divisible by heads")
        self.chars = nn.Embedding(cfg.num_chars, cfg.char_dim, padding_idx=PAD)
        # A buffer, not a parameter: the encodings are fixed; persistent=False keeps them out of
        # checkpoints because they are a function of the config.
        self.register_buffer("positions", sinusoidal_positions(cfg.max_positions, cfg.char_dim), persistent=False)
        layer = nn.TransformerEncoderLayer(
            d_model=cfg.char_dim,
            nhead=cfg.heads,
            dim_feedforward=4 * cfg.char_dim,
            dropout=cfg.dropout,
            activation="gelu",
            batch_first=True,
            norm_first=True,
        )
        self.layers = nn.TransformerEncoder(layer, num_layers=cfg.layers, enable_nested_tensor=False)
        self.final_norm_chars = nn.LayerNorm(cfg.char_dim)  # pre-LN stacks need a closing norm
        self.project = nn.Linear(cfg.char_dim, cfg.dim)  # W_e
        self.norm = nn.LayerNorm(cfg.dim)
        self.post_init()

    def encode_ids(self, char_ids: torch.Tensor) -> torch.Tensor:
        length = char_ids.shape[1]
        if length > self.arch.max_positions:
            raise InputError(f"{length} characters exceed max_positions={self.arch.max_positions}")
        pad = char_ids == PAD
        x = self.chars(char_ids) * math.sqrt(self.arch.char_dim) + self.positions[:length]
        x = self.layers(x, src_key_padding_mask=pad)
        x = self.project(self.final_norm_chars(x))
        x = x.masked_fill(pad[:, :, None], float("-inf")).max(dim=1).values
        return self.norm(x)
