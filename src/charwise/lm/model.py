"""Kim et al. (2016), "Character-Aware Neural Language Models": CharCNN + highway + LSTM, and the
word-embedding LSTM it is measured against.

Input of each word, by ``input``:

* ``"chars"``: ``[WORD] c_1 ... c_n [END]`` (start and end markers) -> character embeddings ->
  :func:`~charwise.encoders.cnn.char_cnn` (filters of several widths, max over time, tanh) ->
  highway layers (:class:`~charwise.encoders.cnn.Highway`). The model never meets an unknown input word;
* ``"words"``: a word embedding table over the output vocabulary (rare words -> ``<unk>``);
* ``"encoder"``: a charwise character encoder (trained on a big model's embedding table) in place
  of the CharCNN, frozen or trained (``freeze_encoder``).

Then a 2-layer LSTM with dropout between layers and before the output, and a softmax over the
output vocabulary. Parameters start uniform in ``[-init_range, init_range]`` (Kim: 0.05); the
highway gates' bias starts at -2 (carry).

Presets (Kim et al., appendix; ``PRESETS``): ``char-small`` (15-d characters, widths 1-6 with
25 x width filters, 1 highway layer, LSTM 2 x 300), ``char-large`` (widths 1-7 with
min(200, 50 x width) filters, 2 highway layers, LSTM 2 x 650), ``word-small`` (200-d words, LSTM
2 x 200), ``word-large`` (650-d words, LSTM 2 x 650); dropout 0.5 throughout.

Saved as ``config.json`` (``model_type = "charwise-char-lm"``, with the output words and the
alphabet) + ``model.safetensors``; every tensor's name and shape is checked on loading.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import torch
from torch import nn
from transformers import AutoConfig, AutoModel, PretrainedConfig, PreTrainedModel

from charwise.charset import CharVocab
from charwise.encoders.base import CharEncoder, CharEncoderConfig
from charwise.encoders.cnn import Highway, char_cnn
from charwise.errors import ConfigError
from charwise.model_files import load_model_directory, save_model_directory
from charwise.presets import LM_PRESETS

MODEL_TYPE = "charwise-char-lm"
INPUTS = ("chars", "words", "encoder")
PRESETS = LM_PRESETS


class CharLMConfig(PretrainedConfig):
    """A language model's architecture, its output words and (character input) its alphabet."""

    model_type = MODEL_TYPE

    def __init__(self, input: str = "chars", words: list[str] | None = None, charset: dict[str, Any] | None = None,
                 char_dim: int = 15, widths: list[int] | None = None, channels: list[int] | None = None,
                 highway_layers: int = 1, word_dim: int = 200, hidden: int = 300, layers: int = 2,
                 dropout: float = 0.5, init_range: float = 0.05, encoder: dict[str, Any] | None = None,
                 freeze_encoder: bool = True, **kwargs: Any) -> None:
        self.input, self.words, self.charset = input, list(words or []), charset
        self.widths = list(widths if widths is not None else [1, 2, 3, 4, 5, 6])
        self.channels = list(channels if channels is not None else [25 * w for w in self.widths])
        self.char_dim, self.highway_layers = char_dim, highway_layers
        self.word_dim, self.hidden, self.layers = word_dim, hidden, layers
        self.dropout, self.init_range = dropout, init_range
        self.encoder, self.freeze_encoder = encoder, freeze_encoder
        super().__init__(**kwargs)

    def check(self) -> None:
        """Raise a one-line ConfigError unless a model can be built from this config (called by the
        model, not here: transformers builds configs with no arguments)."""
        if self.input not in INPUTS:
            raise ConfigError(f"input must be one of {', '.join(INPUTS)}, got {self.input!r}")
        if len(self.widths) != len(self.channels):
            raise ConfigError("widths and channels must have the same length")
        for name, value in (("char_dim", self.char_dim), ("word_dim", self.word_dim), ("hidden", self.hidden),
                            ("layers", self.layers), *((f"width {w}", w) for w in self.widths),
                            *((f"channels {c}", c) for c in self.channels)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")
        if not 0 <= self.dropout < 1 or self.init_range <= 0:
            raise ConfigError(f"dropout must be in [0, 1) and init_range > 0, got {self.dropout}, {self.init_range}")
        if self.input == "chars" and not self.charset:
            raise ConfigError("a character-input model needs its alphabet (charset)")
        if self.input == "encoder" and not self.encoder:
            raise ConfigError("an encoder-input model needs the encoder's config (encoder)")
        if len(self.words) < 2:
            raise ConfigError("the output vocabulary needs at least <unk> and </s>")


State = tuple[torch.Tensor, torch.Tensor]


class CharAwareLM(PreTrainedModel):
    """``forward(inputs, state, chars)``: next-word logits for every position of ``inputs``.

    ``inputs`` is ``(B, T)``: output-vocabulary ids for word input, or rows of ``chars`` (the
    ``(U, L)`` character ids of the batch's distinct words, :meth:`char_ids`) for character and
    encoder input. ``state`` is the LSTM's ``(h, c)``, each ``(layers, B, hidden)``, or None.
    """

    config_class = CharLMConfig
    main_input_name = "inputs"

    def __init__(self, config: CharLMConfig) -> None:
        config.check()
        super().__init__(config)
        c = config
        self.training_info: dict[str, Any] = {}
        self.charset = CharVocab.from_dict(c.charset) if c.charset else None
        self.encoder: CharEncoder | None = None
        if c.input == "chars":
            assert self.charset is not None
            self.chars = nn.Embedding(self.charset.size, c.char_dim, padding_idx=0)
            self.convs = nn.ModuleList(nn.Conv1d(c.char_dim, n, w) for w, n in zip(c.widths, c.channels))
            size = sum(c.channels)
            self.highways = nn.ModuleList(Highway(size, -2.0) for _ in range(c.highway_layers))
        elif c.input == "words":
            self.embedding = nn.Embedding(len(c.words), c.word_dim)
            size = c.word_dim
        else:
            encoder = CharEncoder._from_config(CharEncoderConfig.from_dict(dict(c.encoder or {})))
            assert isinstance(encoder, CharEncoder)
            self.encoder = encoder
            self.charset = encoder.charset
            size = encoder.dim
        self.input_size = size
        self.drop = nn.Dropout(c.dropout)
        self.lstm = nn.LSTM(size, c.hidden, num_layers=c.layers, dropout=c.dropout if c.layers > 1 else 0.0,
                            batch_first=True)
        self.output = nn.Linear(c.hidden, len(c.words))
        self.post_init()
        self._reset(c.init_range)
        if self.encoder is not None and c.freeze_encoder:
            self.encoder.requires_grad_(False)

    def _init_weights(self, module: nn.Module) -> None:
        """Initialised in :meth:`_reset` (Kim et al.'s uniform range), not by transformers."""

    def _reset(self, init_range: float) -> None:
        for name, p in self.named_parameters():
            if name.startswith("encoder."):
                continue  # a trained encoder keeps its weights (copied in by the caller)
            nn.init.uniform_(p, -init_range, init_range)
        for highway in getattr(self, "highways", []):
            nn.init.constant_(highway.gate.bias, -2.0)
        if self.config.input == "chars":
            with torch.no_grad():
                self.chars.weight[0].zero_()  # padding

    # --- inputs -------------------------------------------------------------------------------
    def char_ids(self, words: list[str]) -> torch.Tensor:
        """``(len(words), L)`` character ids with the start and end markers."""
        if self.charset is None:
            raise ConfigError("a word-input model reads no characters")
        return self.charset.batch(words, True).to(self.output.weight.device)

    def word_representations(self, chars: torch.Tensor, stage: str = "highway") -> torch.Tensor:
        """The input vector of each word: ``stage="cnn"`` before the highway layers (character
        input), ``"highway"`` after them (what the LSTM reads)."""
        if self.config.input == "encoder":
            assert self.encoder is not None
            return self.encoder(chars)
        y = char_cnn(chars, self.chars, self.convs, self.config.widths, "tanh")
        if stage == "cnn":
            return y
        for highway in self.highways:
            y = highway(y)
        return y

    def embed(self, inputs: torch.Tensor, chars: torch.Tensor | None = None) -> torch.Tensor:
        if self.config.input == "words":
            return self.embedding(inputs)
        if chars is None:
            raise ValueError("character and encoder input need chars: the (U, L) ids of the words inputs index")
        return self.word_representations(chars)[inputs]

    def forward(self, inputs: torch.Tensor, state: State | None = None,
                chars: torch.Tensor | None = None) -> tuple[torch.Tensor, State]:
        if inputs.dim() != 2:
            raise ValueError(f"inputs must be (batch, time), got shape {tuple(inputs.shape)}")
        x = self.drop(self.embed(inputs, chars))
        out, new_state = self.lstm(x, state)
        return self.output(self.drop(out)), new_state

    # --- files --------------------------------------------------------------------------------
    def save_pretrained(  # type: ignore[override]
        self, directory: str | os.PathLike, training_info: dict[str, Any] | None = None, **_: Any
    ) -> Path:
        return save_model_directory(self, directory, self.training_info if training_info is None else training_info)

    @classmethod
    def from_pretrained(cls, directory: str | os.PathLike, **_: Any) -> "CharAwareLM":  # type: ignore[override]
        return load_model_directory(cls, directory, "charwise language model", "train one with `charwise lm train`")


def build_lm(preset: str, words: list[str], charset: CharVocab | None = None, encoder: CharEncoder | None = None,
             **overrides: Any) -> CharAwareLM:
    """A fresh model from a preset (``PRESETS``); ``encoder`` (its weights copied in) for input
    ``"encoder"``, ``charset`` for input ``"chars"``."""
    if preset not in PRESETS:
        raise ConfigError(f"unknown language-model preset {preset!r} (known: {', '.join(sorted(PRESETS))})")
    params = {**PRESETS[preset], **overrides}
    if encoder is not None:
        params.update(input="encoder", encoder=encoder.config.to_dict())
    model = CharAwareLM(CharLMConfig(words=words, charset=charset.to_dict() if charset is not None else None,
                                     **params))
    if encoder is not None:
        assert model.encoder is not None
        model.encoder.load_state_dict(encoder.state_dict())
    return model


AutoConfig.register(MODEL_TYPE, CharLMConfig, exist_ok=True)
AutoModel.register(CharLMConfig, CharAwareLM, exist_ok=True)
