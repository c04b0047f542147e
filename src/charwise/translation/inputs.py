"""From source words to a :class:`SourceBatch`, what the translation model's encoder reads:
pieces, the word of each piece, word features and characters, aligned by construction (one word
list feeds all). The model and the search both take their inputs from here; this module needs no
model (it reads a model's vocabularies in :meth:`SourceReader.for_model`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import torch

from charwise.charset import CharVocab
from charwise.translation.data import BOS, EOS, PAD, Subwords
from charwise.translation.features import FeatureVocab, word_features

if TYPE_CHECKING:
    from charwise.translation.model import TranslationModel

__all__ = ["SourceBatch", "SourceExample", "SourceReader", "collate_source", "pad_targets"]


@dataclass
class SourceBatch:
    """What the encoder reads for ``B`` sentences of at most ``T`` pieces and ``W`` words."""

    pieces: torch.Tensor  # (B, T) piece ids, PAD after the end
    word_index: torch.Tensor  # (B, T) the word of each piece, -1 on padding
    num_words: torch.Tensor  # (B,)
    features: torch.Tensor | None = None  # (B, W, F) feature ids (0 = padding), F = len(feature_names)
    chars: torch.Tensor | None = None  # (U, L) character ids of the batch's distinct words
    char_index: torch.Tensor | None = None  # (B, W) row of ``chars`` for every word (0 on padding)

    def to(self, device: torch.device | str) -> "SourceBatch":
        move = {k: (v.to(device) if isinstance(v, torch.Tensor) else v) for k, v in self.__dict__.items()}
        return SourceBatch(**move)

    def select(self, rows: torch.Tensor) -> "SourceBatch":
        """The batch of sentences ``rows`` (for beam search: each sentence repeated)."""
        return SourceBatch(self.pieces[rows], self.word_index[rows], self.num_words[rows],
                           None if self.features is None else self.features[rows], self.chars,
                           None if self.char_index is None else self.char_index[rows])


@dataclass
class SourceExample:
    words: list[str]
    pieces: list[int]
    word_index: list[int]  # per piece
    features: list[list[int]]  # [word][feature]


class SourceReader:
    """Turns source word lists into examples and batches for one model's vocabularies."""

    def __init__(self, subwords: Subwords, feature_vocabs: dict[str, FeatureVocab], charset: CharVocab | None,
                 max_pieces: int) -> None:
        self.subwords, self.feature_vocabs = subwords, feature_vocabs
        self.charset, self.max_pieces = charset, max_pieces

    @classmethod
    def for_model(cls, model: TranslationModel) -> "SourceReader":
        if model.source_subwords is None:
            raise ValueError("the model has no source vocabulary (load it with from_pretrained)")
        return cls(model.source_subwords, model.feature_vocabs, model.charset if model.config.char_vectors else None,
                   model.config.max_positions)

    def example(self, words: Sequence[str]) -> SourceExample:
        pieces, word_index = self.subwords.encode_words(words)
        if len(pieces) > self.max_pieces:  # cut at a word boundary
            cut = word_index[self.max_pieces]  # the first word that does not fit whole
            keep = word_index.index(cut)
            pieces, word_index, words = pieces[:keep], word_index[:keep], list(words[:cut])
        values = word_features(words, list(self.feature_vocabs)) if self.feature_vocabs else []
        ids = [vocab.ids(v) for vocab, v in zip(self.feature_vocabs.values(), values)]
        return SourceExample(list(words), pieces, word_index, [list(f) for f in zip(*ids)] if ids else
                             [[] for _ in words])

    def batch(self, examples: Sequence[SourceExample]) -> SourceBatch:
        return collate_source(examples, len(self.feature_vocabs), self.charset)


def collate_source(examples: Sequence[SourceExample], num_features: int, charset: CharVocab | None) -> SourceBatch:
    """Pad a list of examples into a batch (``chars`` only when ``charset`` is given)."""
    if not examples or any(not e.pieces for e in examples):
        raise ValueError("every source sentence of a batch needs at least one word")
    b, t = len(examples), max(len(e.pieces) for e in examples)
    w = max(len(e.words) for e in examples)
    pieces = torch.full((b, t), PAD, dtype=torch.long)
    word_index = torch.full((b, t), -1, dtype=torch.long)
    features = torch.zeros((b, w, num_features), dtype=torch.long) if num_features else None
    for i, e in enumerate(examples):
        pieces[i, : len(e.pieces)] = torch.tensor(e.pieces)
        word_index[i, : len(e.pieces)] = torch.tensor(e.word_index)
        if features is not None:
            features[i, : len(e.words)] = torch.tensor(e.features, dtype=torch.long).view(len(e.words), num_features)
    num_words = torch.tensor([len(e.words) for e in examples])
    chars = char_index = None
    if charset is not None:
        types = sorted({word for e in examples for word in e.words})
        row = {word: i for i, word in enumerate(types)}
        chars = charset.batch(types, True)
        char_index = torch.zeros((b, w), dtype=torch.long)
        for i, e in enumerate(examples):
            char_index[i, : len(e.words)] = torch.tensor([row[word] for word in e.words])
    return SourceBatch(pieces, word_index, num_words, features, chars, char_index)


def pad_targets(targets: Sequence[Sequence[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    """``(target_in, target_out)``: ``<s> y`` and ``y </s>``, padded with PAD."""
    length = max(len(y) for y in targets) + 1
    target_in = torch.full((len(targets), length), PAD, dtype=torch.long)
    target_out = torch.full((len(targets), length), PAD, dtype=torch.long)
    for i, y in enumerate(targets):
        target_in[i, : len(y) + 1] = torch.tensor([BOS, *y])
        target_out[i, : len(y) + 1] = torch.tensor([*y, EOS])
    return target_in, target_out
