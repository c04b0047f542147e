"""Subword-to-word merge inside the encoder, and word-level features (S2W and Sennrich & Haddow).

The subword-to-word Transformer (``subword_to_word_transformer_nmt``, section 3) runs the first
``N`` encoder layers on pieces, merges each word's pieces into one word state (a GRU; the output at
the word's last piece) and runs the remaining layers on words: the sequence gets shorter and there
is one state per word, which is the natural place to add word-level information such as a lemma.
The baseline it compares with (Sennrich & Haddow, 2016) adds the word's feature to the input
embedding of every one of its pieces instead.

:class:`S2WEncoder` implements both on a BERT-family HF model (``model.embeddings`` and
``model.encoder.layer``) fed by :class:`charwise.hybrid.HybridInputs`, so it works with every
hybrid policy: a word the hybrid model built from its characters is already one position and the
merge passes it through. Special tokens (``[CLS]``, ``[SEP]``) stay positions of their own ("words"
of their own) for the layers after the merge; the encoder returns the states of the real words.

With ``merge_after`` equal to the number of layers the merge happens after the last layer, and the
result is exactly the merge pooling applied to the model's output (a test checks this).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import torch
from torch import nn

from charwise.errors import ConfigError
from charwise.hybrid.pooling import WordPooling, build_pooling
from charwise.tagging.config import FEATURE_MODES

if TYPE_CHECKING:
    from transformers import PreTrainedModel

__all__ = ["FEATURE_MODES", "FeatureVocab", "S2WEncoder", "merge_groups"]

PAD, UNK = "<pad>", "<unk>"


@dataclass
class FeatureVocab:
    """Vocabulary of a categorical word feature (e.g. the UD lemma): id 0 = padding, 1 = unknown.

    Built on the training data only; values seen fewer than ``min_count`` times map to the unknown
    id, so that id is trained too and unseen values at test time get a trained vector.
    """

    tokens: list[str]
    lowercase: bool = False

    @classmethod
    def build(cls, values: Iterable[str], min_count: int = 2, lowercase: bool = False) -> "FeatureVocab":
        counts = Counter(v.lower() if lowercase else v for v in values)
        kept = sorted(v for v, c in counts.items() if c >= min_count and v not in (PAD, UNK))
        return cls([PAD, UNK, *kept], lowercase)

    def __len__(self) -> int:
        return len(self.tokens)

    def ids(self, values: Sequence[str]) -> list[int]:
        index = self._index
        return [index.get(v.lower() if self.lowercase else v, 1) for v in values]

    @property
    def _index(self) -> dict[str, int]:
        cached = getattr(self, "_index_cache", None)
        if cached is None or len(cached) != len(self.tokens):
            cached = {t: i for i, t in enumerate(self.tokens)}
            object.__setattr__(self, "_index_cache", cached)
        return cached

    def to_dict(self) -> dict[str, Any]:
        return {"tokens": list(self.tokens), "lowercase": self.lowercase}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "FeatureVocab":
        return cls(list(data["tokens"]), bool(data.get("lowercase", False)))


def merge_groups(word_index: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """Group index ``(B, T)`` for the merge: each word is one group, each special token is a group
    of its own (so ``[CLS] w0 w0 w1 [SEP]`` -> ``0 1 1 2 3``), padding is ``-1``."""
    valid = attention_mask.bool()
    prev = torch.cat([torch.full_like(word_index[:, :1], -2), word_index[:, :-1]], dim=1)
    start = valid & ((word_index != prev) | (word_index < 0))
    group = torch.cumsum(start.long(), dim=1) - 1
    return torch.where(valid, group, torch.full_like(group, -1))


def _bert_parts(model: nn.Module) -> tuple[nn.Module, nn.ModuleList]:
    base = getattr(model, "base_model", model)
    embeddings = getattr(base, "embeddings", None)
    layers = getattr(getattr(base, "encoder", None), "layer", None)
    if embeddings is None or not isinstance(layers, nn.ModuleList):
        raise ConfigError(f"S2W needs a BERT-family encoder (embeddings + encoder.layer); got {type(model).__name__}")
    return embeddings, layers


def _bidirectional_mask(model: PreTrainedModel, hidden: torch.Tensor, mask: torch.Tensor) -> Any:
    from transformers.masking_utils import create_bidirectional_mask

    # The same mask the model builds for itself in forward() (its attention implementation's format).
    return create_bidirectional_mask(config=model.config, inputs_embeds=hidden, attention_mask=mask.long())


class S2WEncoder(nn.Module):
    """Pieces -> (``merge_after`` layers) -> merge into words (+ word features) -> remaining layers.

    The HF model is not a submodule (it belongs to the :class:`~charwise.hybrid.HybridModel`, whose
    parameters and checkpoint hold it); it is passed to :meth:`forward`. This module owns the merge
    and the feature embedding.

    Args:
        dim: hidden size of the model.
        num_layers: the model's number of layers (checks ``merge_after``).
        merge_after: layers run on pieces before the merge (``1..num_layers``).
        merge: a pooling name (``gru`` = S2W) used to merge pieces into words.
        feature_vocab_size: size of the word-feature vocabulary (0: no feature).
        feature_mode: ``merge`` (S2W: added to the merged word states) or ``copy`` (Sennrich &
            Haddow: added to the input embedding of every piece of the word, before layer 1).
        word_vector_dim: size of a dense per-word vector (e.g. the word's character-encoder
            vector) that is layer-normed, projected and added to the merged word states (0: none).
    """

    def __init__(self, dim: int, num_layers: int, merge_after: int, merge: str = "gru",
                 feature_vocab_size: int = 0, feature_mode: str = "merge", word_vector_dim: int = 0) -> None:
        super().__init__()
        if not 1 <= merge_after <= num_layers:
            raise ConfigError(f"merge_after must be in 1..{num_layers}, got {merge_after}")
        if feature_mode not in FEATURE_MODES:
            raise ConfigError(f"feature_mode must be one of {FEATURE_MODES}, got {feature_mode!r}")
        self.merge_after = merge_after
        self.num_layers = num_layers
        self.feature_mode = feature_mode
        self.merge: WordPooling = build_pooling(merge, dim)
        self.feature: nn.Embedding | None = None
        if feature_vocab_size:
            self.feature = nn.Embedding(feature_vocab_size, dim, padding_idx=0)
            # Zero init: training starts from the model without features, in both modes, so the
            # two injection points are compared from the same starting point.
            nn.init.zeros_(self.feature.weight)
        self.word_vectors: nn.Sequential | None = None
        if word_vector_dim:
            project = nn.Linear(word_vector_dim, dim)
            # Zero init, as for the categorical feature: training starts from plain S2W.
            nn.init.zeros_(project.weight)
            nn.init.zeros_(project.bias)
            self.word_vectors = nn.Sequential(nn.LayerNorm(word_vector_dim), project)

    def forward(self, model: PreTrainedModel, inputs: Any, num_words: Sequence[int] | torch.Tensor,
                feature_ids: torch.Tensor | None = None, word_vectors: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """Word states ``(B, W, d)`` and word mask ``(B, W)`` for a prepared hybrid batch.

        ``feature_ids`` ``(B, W)`` holds each word's feature id (0 beyond a sentence's words);
        ``word_vectors`` ``(B, W, word_vector_dim)`` each word's dense vector.
        """
        embeddings, layers = _bert_parts(model)
        if len(layers) != self.num_layers:
            raise ValueError(f"model has {len(layers)} layers, S2W was built for {self.num_layers}")
        word_index, attention = inputs.word_index, inputs.attention_mask
        device = word_index.device
        batch = word_index.shape[0]
        counts = torch.as_tensor(num_words, dtype=torch.long, device=device)
        width = int(counts.max()) if batch else 0
        if self.feature is not None and feature_ids is None:
            raise ValueError("this S2W encoder has a word feature: pass feature_ids")
        if feature_ids is not None and self.feature is None:
            raise ValueError("feature_ids given to an S2W encoder built without a feature")
        if (word_vectors is None) != (self.word_vectors is None):
            raise ValueError("word_vectors must be given exactly when the S2W encoder was built with "
                             "word_vector_dim")

        embeds = inputs.inputs_embeds
        if self.feature is not None and self.feature_mode == "copy":
            # Sennrich & Haddow: each piece gets its word's feature; specials and padding get id 0.
            assert feature_ids is not None, "checked above: a feature needs feature_ids"
            per_piece = torch.gather(feature_ids, 1, word_index.clamp(min=0))
            per_piece = torch.where(word_index >= 0, per_piece, torch.zeros_like(per_piece))
            embeds = embeds + self.feature(per_piece)
        hidden = embeddings(inputs_embeds=embeds)
        mask = _bidirectional_mask(model, hidden, attention)
        for layer in layers[: self.merge_after]:
            hidden = layer(hidden, mask)

        groups = merge_groups(word_index, attention)
        n_groups = (groups.max(dim=1).values + 1).clamp(min=0)
        merged, group_mask = self.merge(hidden, groups, n_groups)
        # group_of_word[b, w]: the group that word w became (-1: truncated away or padding).
        g_width = merged.shape[1]
        flat_w = torch.where(word_index >= 0, word_index + torch.arange(batch, device=device).unsqueeze(1) * width,
                             torch.full_like(word_index, batch * width))
        group_of_word = torch.full((batch * width + 1,), -1, dtype=torch.long, device=device)
        group_of_word = group_of_word.scatter(0, flat_w.reshape(-1), groups.reshape(-1))[: batch * width]
        group_of_word = group_of_word.view(batch, width)
        has_group = group_of_word >= 0
        # Word-level additions (categorical feature, dense vector) go onto each word's group.
        extra = None
        if self.feature is not None and self.feature_mode == "merge":
            assert feature_ids is not None, "checked above: a feature needs feature_ids"
            extra = self.feature(feature_ids[:, :width])
        if self.word_vectors is not None:
            assert word_vectors is not None, "checked above: given exactly when built with word_vector_dim"
            projected = self.word_vectors(word_vectors[:, :width].to(merged.dtype))
            extra = projected if extra is None else extra + projected
        if extra is not None:
            flat_g = torch.where(has_group, group_of_word + torch.arange(batch, device=device).unsqueeze(1) * g_width,
                                 torch.full_like(group_of_word, batch * g_width))  # extra row: padding
            dim = merged.shape[-1]
            per_group = torch.zeros(batch * g_width + 1, dim, dtype=merged.dtype, device=device)
            per_group = per_group.index_add(0, flat_g.reshape(-1), extra.reshape(-1, dim))
            merged = merged + per_group[: batch * g_width].view(batch, g_width, dim)
        if self.merge_after < self.num_layers:
            mask = _bidirectional_mask(model, merged, group_mask)
            for layer in layers[self.merge_after :]:
                merged = layer(merged, mask)
        index = group_of_word.clamp(min=0).unsqueeze(-1).expand(-1, -1, merged.shape[-1])
        words = torch.gather(merged, 1, index) * has_group.unsqueeze(-1).to(merged.dtype)
        word_mask = torch.arange(width, device=device).unsqueeze(0) < counts.unsqueeze(1)
        return words, word_mask
