"""Mimick-style BiLSTM (Pinter et al. 2017): a bidirectional LSTM over characters whose two final
states (forward after the last character, backward after the first) feed an MLP to the
teacher's dimension."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

from charwise.charset import PAD
from charwise.encoders.base import CharEncoder, CharEncoderConfig
from charwise.encoders.registry import register
from charwise.presets import ENCODER_PRESETS


@dataclass
class BiLSTMConfig:
    dim: int = 384
    num_chars: int = 256
    char_dim: int = 64
    hidden: int = 256  # per direction
    layers: int = 1
    mlp_hidden: int = 512
    dropout: float = 0.0


@register("bilstm")
class BiLSTMEncoder(CharEncoder):
    Config = BiLSTMConfig
    PRESETS = ENCODER_PRESETS["bilstm"]

    def __init__(self, config: CharEncoderConfig) -> None:
        super().__init__(config)
        cfg = self.arch  # BiLSTMConfig
        self.chars = nn.Embedding(cfg.num_chars, cfg.char_dim, padding_idx=PAD)
        self.lstm = nn.LSTM(
            cfg.char_dim, cfg.hidden, num_layers=cfg.layers, batch_first=True, bidirectional=True,
            dropout=cfg.dropout if cfg.layers > 1 else 0.0,
        )
        self.mlp = nn.Sequential(nn.Linear(2 * cfg.hidden, cfg.mlp_hidden), nn.Tanh(),
                                 nn.Linear(cfg.mlp_hidden, cfg.dim))
        self.post_init()

    def init_output(self, mean: torch.Tensor, row_norm: float) -> None:
        with torch.no_grad():
            cast(nn.Linear, self.mlp[-1]).bias.copy_(mean)

    def final_states(self, char_ids: torch.Tensor) -> torch.Tensor:
        """``(n, 2 * hidden)``: forward state at each string's last real character, backward
        state at its first. Packing makes both directions skip padding, so the backward LSTM
        starts at the true end instead of at the padding."""
        lengths = self.lengths(char_ids).clamp(min=1).cpu()
        packed = pack_padded_sequence(self.chars(char_ids), lengths, batch_first=True, enforce_sorted=False)
        _, (h_n, _) = self.lstm(packed)
        # h_n: (layers * 2, n, hidden); the last two rows are the top layer's forward and backward.
        return torch.cat([h_n[-2], h_n[-1]], dim=1)

    def encode_ids(self, char_ids: torch.Tensor) -> torch.Tensor:
        return self.mlp(self.final_states(char_ids))
