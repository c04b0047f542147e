"""A Transformer encoder-decoder and the Subword-to-Word (S2W) Transformer, for translation.

``architecture`` (:data:`ARCHITECTURES`):

* ``"transformer"``: Vaswani et al., pre-LayerNorm: ``encoder_layers`` layers over subwords, every
  decoder layer attends to their output;
* ``"s2w"``: the S2W Transformer (``subword_to_word_transformer_nmt``, figure 1): the first
  ``encoder_subword_layers`` (N_sw^e) layers run on subwords, a merge (:mod:`charwise.hybrid.pooling`;
  by default the paper's GRU whose output at each word's last piece is the word state) turns them
  into word states, the remaining layers run on words. The first ``decoder_layers -
  decoder_subword_layers`` (N_w^d) decoder layers attend to the word-level output, the following
  ``decoder_subword_layers`` (N_sw^d) to the subword-level output of the first block, each with its
  own padding mask; the subword path is what lets the decoder copy names and numbers;
* ``"s2w-words"``: the same encoder, every decoder layer attends to word states only (the variant
  the paper reports fails to copy).

Word-level additions (S2W only, added to the word states after the merge): the source word
features (``feature_mode="merge"``) and a character vector of each word (``char_vectors``: a
CharCNN + highway over the word's characters, :func:`charwise.encoders.cnn.char_cnn`, trained with
the model). ``feature_mode="copy"`` is Sennrich and Haddow's baseline: each word's feature
embeddings added to the embedding of every one of its pieces (added, not concatenated, as in the
paper's implementation).

Sinusoidal positions, target embeddings tied with the output layer, embeddings scaled by
``sqrt(dim)``, a final LayerNorm on each stack (pre-LN). Saved as ``config.json`` (``model_type
"charwise-translation"``, with the feature vocabularies and the alphabet) + ``model.safetensors``
+ ``source_tokenizer.json`` / ``target_tokenizer.json``.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn
from transformers import AutoConfig, AutoModel, PretrainedConfig, PreTrainedModel

from charwise.charset import CharVocab
from charwise.encoders.cnn import Highway, char_cnn
from charwise.errors import CheckpointError, ConfigError
from charwise.hybrid.pooling import GRUPooling, WordPooling, build_pooling
from charwise.model_files import load_model_directory, save_model_directory
from charwise.presets import (
    TRANSLATION_ARCHITECTURES,
    TRANSLATION_BEAM,
    TRANSLATION_FEATURE_MODES,
    TRANSLATION_LENGTH_PENALTY,
)
from charwise.translation.data import PAD, Subwords
from charwise.translation.features import FEATURES, FeatureVocab
from charwise.translation.inputs import SourceBatch
from charwise.translation.search import translate_sentences

__all__ = ["ARCHITECTURES", "FEATURE_MODES", "DecoderLayer", "LayerCache", "Memory", "SourceBatch", "TranslationConfig",
           "TranslationModel"]

MODEL_TYPE = "charwise-translation"
ARCHITECTURES = TRANSLATION_ARCHITECTURES
FEATURE_MODES = TRANSLATION_FEATURE_MODES
SOURCE_TOKENIZER, TARGET_TOKENIZER = "source_tokenizer.json", "target_tokenizer.json"
MAX_POSITIONS = 1024  # positions of either side (sinusoidal table)


class TranslationConfig(PretrainedConfig):
    """The architecture, the source feature vocabularies and (character vectors) the alphabet."""

    model_type = MODEL_TYPE

    def __init__(self, architecture: str = "transformer", source_vocab: int = 8000, target_vocab: int = 8000,
                 dim: int = 256, heads: int = 4, ffn: int = 1024, encoder_layers: int = 4,
                 encoder_subword_layers: int = 2, decoder_layers: int = 4, decoder_subword_layers: int = 2,
                 pooling: str = "gru", dropout: float = 0.1, max_positions: int = MAX_POSITIONS,
                 feature_mode: str = "none", feature_vocabs: dict[str, dict[str, Any]] | None = None,
                 char_vectors: bool = False, charset: dict[str, Any] | None = None, char_dim: int = 16,
                 char_widths: list[int] | None = None, char_channels: list[int] | None = None,
                 **kwargs: Any) -> None:
        self.architecture, self.source_vocab, self.target_vocab = architecture, source_vocab, target_vocab
        self.dim, self.heads, self.ffn, self.dropout, self.max_positions = dim, heads, ffn, dropout, max_positions
        self.encoder_layers, self.encoder_subword_layers = encoder_layers, encoder_subword_layers
        self.decoder_layers, self.decoder_subword_layers = decoder_layers, decoder_subword_layers
        self.pooling, self.feature_mode, self.feature_vocabs = pooling, feature_mode, dict(feature_vocabs or {})
        self.char_vectors, self.charset, self.char_dim = char_vectors, charset, char_dim
        self.char_widths = list(char_widths or [1, 2, 3, 4, 5])
        self.char_channels = list(char_channels or [32, 64, 96, 96, 96])
        super().__init__(**kwargs)

    def check(self) -> None:
        """Raise a one-line ConfigError unless a model can be built from this config (called by the
        model, not here: transformers builds configs with no arguments)."""
        architecture, feature_mode, dim, heads = self.architecture, self.feature_mode, self.dim, self.heads
        encoder_layers, encoder_subword_layers = self.encoder_layers, self.encoder_subword_layers
        decoder_layers, decoder_subword_layers = self.decoder_layers, self.decoder_subword_layers
        char_vectors, charset = self.char_vectors, self.charset
        if architecture not in ARCHITECTURES:
            raise ConfigError(f"architecture must be one of {', '.join(ARCHITECTURES)}, got {architecture!r}")
        if feature_mode not in FEATURE_MODES:
            raise ConfigError(f"feature_mode must be one of {', '.join(FEATURE_MODES)}, got {feature_mode!r}")
        if dim % heads:
            raise ConfigError(f"dim ({dim}) must be a multiple of heads ({heads})")
        merged = architecture != "transformer"
        if merged and not 1 <= encoder_subword_layers < encoder_layers:
            raise ConfigError(f"S2W needs 1 <= encoder_subword_layers < encoder_layers, got "
                              f"{encoder_subword_layers} of {encoder_layers}")
        if architecture == "s2w" and not 1 <= decoder_subword_layers < decoder_layers:
            raise ConfigError(f"S2W needs 1 <= decoder_subword_layers < decoder_layers, got "
                              f"{decoder_subword_layers} of {decoder_layers}")
        if not merged and (feature_mode == "merge" or char_vectors):
            raise ConfigError("merged features and character vectors need an S2W architecture (s2w, s2w-words)")
        if (feature_mode == "none") != (not self.feature_vocabs):
            raise ConfigError("feature vocabularies go with feature_mode copy or merge, and only with them")
        unknown = [name for name in self.feature_vocabs if name not in FEATURES]
        if unknown:
            raise ConfigError(f"unknown word features {unknown} (known: {', '.join(FEATURES)})")
        if char_vectors and not charset:
            raise ConfigError("character vectors need the alphabet (charset)")
        if len(self.char_widths) != len(self.char_channels):
            raise ConfigError("char_widths and char_channels differ in length")

    @property
    def feature_names(self) -> list[str]:
        return list(self.feature_vocabs)


@dataclass
class Memory:
    """The encoder's outputs: subword states always, word states for S2W (masks: True = padding)."""

    subwords: torch.Tensor  # (B, T, d)
    subword_padding: torch.Tensor  # (B, T)
    words: torch.Tensor | None = None  # (B, W, d)
    word_padding: torch.Tensor | None = None  # (B, W)

    def select(self, rows: torch.Tensor) -> "Memory":
        pick = (lambda t: None if t is None else t[rows])  # noqa: E731
        return Memory(self.subwords[rows], self.subword_padding[rows], pick(self.words), pick(self.word_padding))


def _project(attention: nn.MultiheadAttention, x: torch.Tensor, part: int) -> torch.Tensor:
    """``x`` ``(B, T, d)`` through the query (0), key (1) or value (2) projection of ``attention``,
    split into heads: ``(B, heads, T, d / heads)``."""
    d, heads = x.shape[-1], attention.num_heads
    weight = attention.in_proj_weight[part * d : (part + 1) * d]
    bias = attention.in_proj_bias[part * d : (part + 1) * d] if attention.in_proj_bias is not None else None
    return nn.functional.linear(x, weight, bias).view(x.shape[0], x.shape[1], heads, d // heads).transpose(1, 2)


def _attend(attention: nn.MultiheadAttention, h: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
            mask: torch.Tensor | None) -> torch.Tensor:
    """What ``attention(h, ., .)`` computes in eval mode, from keys and values projected already."""
    batch, length, d = h.shape
    out = nn.functional.scaled_dot_product_attention(_project(attention, h, 0), keys, values, attn_mask=mask)
    return attention.out_proj(out.transpose(1, 2).reshape(batch, length, d))


@dataclass
class LayerCache:
    """One decoder layer's state during incremental decoding: the projected keys and values of the
    target positions so far, and those of its memory (computed once per sentence)."""

    self_keys: torch.Tensor  # (B, heads, t, d / heads)
    self_values: torch.Tensor
    cross_keys: torch.Tensor  # (B, heads, T, d / heads)
    cross_values: torch.Tensor
    cross_mask: torch.Tensor  # (B, 1, 1, T) True = a real memory position


class DecoderLayer(nn.Module):
    """A pre-LayerNorm Transformer decoder layer (self-attention, attention to a memory, FFN).

    :meth:`forward` runs whole target sequences (training, scoring); :meth:`step` runs one new
    position with a :class:`LayerCache`, so that beam search costs one position per step and
    projects each sentence's memory once (tested equal to :meth:`forward`).
    """

    def __init__(self, dim: int, heads: int, ffn: int, dropout: float) -> None:
        super().__init__()
        self.self_norm = nn.LayerNorm(dim)
        self.self_attention = nn.MultiheadAttention(dim, heads, dropout=dropout, batch_first=True)
        self.cross_norm = nn.LayerNorm(dim)
        self.cross_attention = nn.MultiheadAttention(dim, heads, dropout=dropout, batch_first=True)
        self.ffn_norm = nn.LayerNorm(dim)
        self.ffn = nn.Sequential(nn.Linear(dim, ffn), nn.ReLU(), nn.Dropout(dropout), nn.Linear(ffn, dim))
        self.drop = nn.Dropout(dropout)

    def forward(self, y: torch.Tensor, memory: torch.Tensor, memory_padding: torch.Tensor,
                causal: torch.Tensor | None = None, padding: torch.Tensor | None = None) -> torch.Tensor:
        h = self.self_norm(y)
        a = self.self_attention(h, h, h, attn_mask=causal, key_padding_mask=padding, need_weights=False)[0]
        y = y + self.drop(a)
        h = self.cross_norm(y)
        a = self.cross_attention(h, memory, memory, key_padding_mask=memory_padding, need_weights=False)[0]
        y = y + self.drop(a)
        return y + self.drop(self.ffn(self.ffn_norm(y)))

    def start(self, memory: torch.Tensor, memory_padding: torch.Tensor) -> LayerCache:
        """An empty cache for decoding against ``memory``."""
        empty = memory.new_zeros(memory.shape[0], self.self_attention.num_heads, 0,
                                 memory.shape[-1] // self.self_attention.num_heads)
        return LayerCache(empty, empty, _project(self.cross_attention, memory, 1),
                          _project(self.cross_attention, memory, 2), ~memory_padding[:, None, None, :])

    def step(self, y: torch.Tensor, cache: LayerCache) -> torch.Tensor:
        """``y`` ``(B, 1, d)``: the newest position; extends ``cache`` (eval mode: no dropout)."""
        h = self.self_norm(y)
        cache.self_keys = torch.cat([cache.self_keys, _project(self.self_attention, h, 1)], dim=2)
        cache.self_values = torch.cat([cache.self_values, _project(self.self_attention, h, 2)], dim=2)
        y = y + _attend(self.self_attention, h, cache.self_keys, cache.self_values, None)
        h = self.cross_norm(y)
        y = y + _attend(self.cross_attention, h, cache.cross_keys, cache.cross_values, cache.cross_mask)
        return y + self.ffn(self.ffn_norm(y))


def sinusoids(length: int, dim: int) -> torch.Tensor:
    position = torch.arange(length, dtype=torch.float32)[:, None]
    rate = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-math.log(10000.0) / dim))
    table = torch.zeros(length, dim)
    table[:, 0::2] = torch.sin(position * rate)
    table[:, 1::2] = torch.cos(position * rate)
    return table


class TranslationModel(PreTrainedModel):
    """``encode(SourceBatch) -> Memory``; ``decode(memory, target_in) -> logits``; see the module docstring.

    Example::

        model = TranslationModel.from_pretrained("runs/translate/s2w/model")
        print(model.translate(["Y dijo Dios: Sea la luz."]))  # -> ['And God said, Let there be light.'] or close
    """

    config_class = TranslationConfig
    main_input_name = "pieces"

    def __init__(self, config: TranslationConfig, source: Subwords | None = None,
                 target: Subwords | None = None) -> None:
        config.check()
        super().__init__(config)
        c = config
        self.training_info: dict[str, Any] = {}
        self.source_subwords, self.target_subwords = source, target
        self.feature_vocabs = {name: FeatureVocab.from_dict(v) for name, v in c.feature_vocabs.items()}
        self.charset = CharVocab.from_dict(c.charset) if c.charset else None
        self.source_embedding = nn.Embedding(c.source_vocab, c.dim, padding_idx=PAD)
        self.target_embedding = nn.Embedding(c.target_vocab, c.dim, padding_idx=PAD)
        self.register_buffer("positions", sinusoids(c.max_positions, c.dim), persistent=False)
        self.feature_embeddings = nn.ModuleList(nn.Embedding(len(v), c.dim, padding_idx=0)
                                                for v in self.feature_vocabs.values())
        self.drop = nn.Dropout(c.dropout)

        def encoder_layer() -> nn.TransformerEncoderLayer:
            return nn.TransformerEncoderLayer(c.dim, c.heads, c.ffn, c.dropout, batch_first=True, norm_first=True)

        merged = c.architecture != "transformer"
        n_sub = c.encoder_subword_layers if merged else c.encoder_layers
        self.subword_layers = nn.ModuleList(encoder_layer() for _ in range(n_sub))
        self.subword_norm = nn.LayerNorm(c.dim)
        self.merge: WordPooling | None = None
        if merged:
            # From scratch, S2W reads the GRU output itself (not a residual on the last piece).
            self.merge = GRUPooling(c.dim, residual=False) if c.pooling == "gru" else build_pooling(c.pooling, c.dim)
            self.word_layers = nn.ModuleList(encoder_layer() for _ in range(c.encoder_layers - n_sub))
            self.word_norm = nn.LayerNorm(c.dim)
        if c.char_vectors:
            assert self.charset is not None
            self.chars = nn.Embedding(self.charset.size, c.char_dim, padding_idx=0)
            self.char_convs = nn.ModuleList(nn.Conv1d(c.char_dim, n, w) for w, n in zip(c.char_widths, c.char_channels))
            self.char_highway = Highway(sum(c.char_channels), -2.0)
            self.char_projection = nn.Linear(sum(c.char_channels), c.dim)
        self.decoder_layers = nn.ModuleList(DecoderLayer(c.dim, c.heads, c.ffn, c.dropout)
                                            for _ in range(c.decoder_layers))
        self.decoder_norm = nn.LayerNorm(c.dim)
        self.post_init()
        self._reset()

    def _init_weights(self, module: nn.Module) -> None:
        """Initialised in :meth:`_reset`, not by transformers."""

    def _reset(self) -> None:
        for name, p in self.named_parameters():
            if p.dim() > 1 and "embedding" not in name and not name.startswith(("merge.", "chars.")):
                nn.init.xavier_uniform_(p)
        for embedding in [self.source_embedding, self.target_embedding, *self.feature_embeddings]:
            nn.init.normal_(embedding.weight, 0.0, self.config.dim ** -0.5)
            with torch.no_grad():
                embedding.weight[0].zero_()  # padding

    def position_vectors(self, length: int) -> torch.Tensor:
        """The sinusoidal position vectors of the first ``length`` positions (either side)."""
        table: torch.Tensor = self.positions  # type: ignore[assignment]
        return table[:length]

    # --- which decoder layer reads what -----------------------------------------------------------
    def reads_words(self, layer: int) -> bool:
        """Whether decoder layer ``layer`` attends to word states (else to subword states)."""
        c = self.config
        if c.architecture == "transformer":
            return False
        return c.architecture == "s2w-words" or layer < c.decoder_layers - c.decoder_subword_layers

    # --- encoder ------------------------------------------------------------------------------------
    def _feature_sum(self, features: torch.Tensor | None) -> torch.Tensor:
        """``(B, W, d)``: the sum of every feature's embedding of each word."""
        if features is None or features.shape[-1] != len(self.feature_embeddings):
            raise ValueError(f"this model reads {len(self.feature_embeddings)} word features "
                             f"({', '.join(self.feature_vocabs)}); the batch has none or another number")
        total = torch.zeros(*features.shape[:2], self.config.dim, device=features.device)
        for i, embedding in enumerate(self.feature_embeddings):
            total = total + embedding(features[..., i])
        return total

    def char_vectors(self, chars: torch.Tensor) -> torch.Tensor:
        """``(U, L)`` character ids -> ``(U, d)`` word vectors (CharCNN, highway, projection)."""
        y = char_cnn(chars, self.chars, self.char_convs, self.config.char_widths, "tanh")
        return self.char_projection(self.char_highway(y))

    def encode(self, batch: SourceBatch) -> Memory:
        c = self.config
        pieces = batch.pieces
        if pieces.dim() != 2 or pieces.shape != batch.word_index.shape:
            raise ValueError(f"pieces {tuple(pieces.shape)} and word_index {tuple(batch.word_index.shape)} must "
                             "be the same (batch, positions) shape")
        if pieces.shape[1] > c.max_positions:
            raise ValueError(f"{pieces.shape[1]} source pieces exceed max_positions ({c.max_positions})")
        padding = pieces == PAD
        x = self.source_embedding(pieces) * math.sqrt(c.dim) + self.position_vectors(pieces.shape[1])
        if c.feature_mode == "copy":  # Sennrich & Haddow: every piece gets its word's features
            words = self._feature_sum(batch.features)
            index = batch.word_index.clamp(min=0)
            x = x + torch.gather(words, 1, index[..., None].expand(-1, -1, c.dim)) * (~padding)[..., None]
        x = self.drop(x)
        for layer in self.subword_layers:
            x = layer(x, src_key_padding_mask=padding)
        subwords = self.subword_norm(x)
        if self.merge is None:
            return Memory(subwords, padding)
        words, exists = self.merge(subwords, batch.word_index, batch.num_words)
        if c.feature_mode == "merge":
            words = words + self._feature_sum(batch.features)
        if c.char_vectors:
            if batch.chars is None or batch.char_index is None:
                raise ValueError("this model adds character vectors: the batch needs chars and char_index")
            words = words + self.char_vectors(batch.chars)[batch.char_index] * exists[..., None]
        w = self.drop(words)
        for layer in self.word_layers:
            w = layer(w, src_key_padding_mask=~exists)
        return Memory(subwords, padding, self.word_norm(w), ~exists)

    # --- decoder ------------------------------------------------------------------------------------
    def _layer_memory(self, memory: Memory, layer: int) -> tuple[torch.Tensor, torch.Tensor]:
        if self.reads_words(layer):
            assert memory.words is not None and memory.word_padding is not None
            return memory.words, memory.word_padding
        return memory.subwords, memory.subword_padding

    def decode(self, memory: Memory, target_in: torch.Tensor) -> torch.Tensor:
        """``(B, S)`` target ids (``<s>`` first) -> ``(B, S, target_vocab)`` next-piece logits."""
        c = self.config
        length = target_in.shape[1]
        if length > c.max_positions:
            raise ValueError(f"{length} target pieces exceed max_positions ({c.max_positions})")
        y = self.drop(self.target_embedding(target_in) * math.sqrt(c.dim) + self.position_vectors(length))
        causal = torch.ones(length, length, dtype=torch.bool, device=y.device).triu(1)  # True = may not attend
        padding = target_in == PAD
        for i, layer in enumerate(self.decoder_layers):
            states, state_padding = self._layer_memory(memory, i)
            y = layer(y, states, state_padding, causal, padding)
        return self.decoder_norm(y) @ self.target_embedding.weight.T  # tied output layer

    def _decoder(self) -> list[DecoderLayer]:
        return [layer for layer in self.decoder_layers if isinstance(layer, DecoderLayer)]

    def start_decoding(self, memory: Memory) -> list[LayerCache]:
        """The empty per-layer caches of :meth:`decode_step` for ``memory``."""
        return [layer.start(*self._layer_memory(memory, i)) for i, layer in enumerate(self._decoder())]

    def decode_step(self, last: torch.Tensor, cache: list[LayerCache]) -> torch.Tensor:
        """One step of incremental decoding (eval mode): ``last`` ``(B,)`` is the newest target id
        (``<s>`` first); returns the next-piece logits ``(B, V)`` and extends ``cache``
        (:meth:`start_decoding`). Equal to the last position of :meth:`decode` (tested)."""
        if self.training:
            raise RuntimeError("incremental decoding runs in eval mode (call model.eval())")
        position = cache[0].self_keys.shape[2]
        if position >= self.config.max_positions:
            raise ValueError(f"target longer than max_positions ({self.config.max_positions})")
        y = self.target_embedding(last[:, None]) * math.sqrt(self.config.dim)
        y = y + self.position_vectors(position + 1)[position]
        for layer, layer_cache in zip(self._decoder(), cache):
            y = layer.step(y, layer_cache)
        return (self.decoder_norm(y) @ self.target_embedding.weight.T)[:, 0]

    def forward(self, batch: SourceBatch, target_in: torch.Tensor) -> torch.Tensor:
        return self.decode(self.encode(batch), target_in)

    # --- use ------------------------------------------------------------------------------------------
    def translate(self, sentences: list[str], beam: int = TRANSLATION_BEAM,
                  length_penalty: float = TRANSLATION_LENGTH_PENALTY,
                  batch_size: int = 32) -> list[str]:
        """English for each Spanish sentence (an empty sentence gives an empty line)."""
        return translate_sentences(self, sentences, beam=beam, length_penalty=length_penalty,
                                   batch_size=batch_size)

    # --- files ----------------------------------------------------------------------------------------
    def save_pretrained(  # type: ignore[override]
        self, directory: str | os.PathLike, training_info: dict[str, Any] | None = None, **_: Any
    ) -> Path:
        if self.source_subwords is None or self.target_subwords is None:
            raise ConfigError("a translation model is saved with its source and target vocabularies")
        return save_model_directory(self, directory, self.training_info if training_info is None else training_info,
                                    {SOURCE_TOKENIZER: self.source_subwords.to_str(),
                                     TARGET_TOKENIZER: self.target_subwords.to_str()})

    @classmethod
    def from_pretrained(cls, directory: str | os.PathLike, **_: Any) -> "TranslationModel":  # type: ignore[override]
        model: TranslationModel = load_model_directory(cls, directory, "charwise translation model",
                                                       "train one with `charwise translate train`")
        path = Path(directory)
        try:
            model.source_subwords = Subwords.from_str((path / SOURCE_TOKENIZER).read_text(encoding="utf-8"))
            model.target_subwords = Subwords.from_str((path / TARGET_TOKENIZER).read_text(encoding="utf-8"))
        except Exception as e:  # tokenizers raises its own exception type
            raise CheckpointError(f"'{path}': cannot read the model's vocabularies ({e})") from None
        for name, subwords, size in (("source", model.source_subwords, model.config.source_vocab),
                                     ("target", model.target_subwords, model.config.target_vocab)):
            if len(subwords) > size:
                raise CheckpointError(f"'{path}': the {name} vocabulary has {len(subwords)} pieces, the model {size}")
        return model


AutoConfig.register(MODEL_TYPE, TranslationConfig, exist_ok=True)
AutoModel.register(TranslationConfig, TranslationModel, exist_ok=True)
