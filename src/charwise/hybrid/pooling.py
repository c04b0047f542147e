"""Pooling of piece states into word states.

Every pooling takes the states of a sequence of positions ``(B, T, d)`` and ``word_index``
``(B, T)`` (the index of the word each position belongs to, ``-1`` for special tokens and
padding, as :class:`charwise.hybrid.HybridInputs` gives it) and returns word states ``(B, W, d)``
with a mask ``(B, W)`` of the words that exist. Words are contiguous runs of positions.

Modes (:data:`POOLINGS`):

* ``first`` / ``last``: the state at the word's first / last piece;
* ``mean`` / ``max``: element-wise mean / maximum over the word's pieces;
* ``attention``: a learned scorer, softmax over the pieces of each word, weighted sum;
* ``gru``: the subword-to-word merge of the S2W Transformer: a GRU runs over each word's pieces and
  its output at the word's last piece is the word state.

A word that has a single position (a one-piece word, or a word the hybrid model built from its
characters) keeps its state unchanged in every mode (``gru`` with ``residual=False`` excepted,
see :class:`GRUPooling`). All modes are vectorised with scatter/gather: no Python loop per word.
A word that has no position at all (cut off by truncation) gets a zero state and mask True.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import torch
from torch import nn

from charwise.errors import ConfigError

__all__ = [
    "POOLINGS",
    "AttentionPooling",
    "GRUPooling",
    "OrderPooling",
    "ReducePooling",
    "WordLayout",
    "WordPooling",
    "build_pooling",
    "word_layout",
]


@dataclass
class WordLayout:
    """Where each word of a batch sits: the shared bookkeeping of all poolings.

    ``flat`` maps every position to a row ``b * W + w`` of the flattened word grid, or to the
    dump row ``B * W`` for positions that belong to no word.
    """

    batch: int
    num_words: int  # W: the most words of any sentence in the batch
    flat: torch.Tensor  # (B, T) long
    counts: torch.Tensor  # (B * W,) long: positions per word
    first: torch.Tensor  # (B * W,) long: first position of each word (0 where it has none)
    last: torch.Tensor  # (B * W,) long: last position of each word (0 where it has none)
    mask: torch.Tensor  # (B, W) bool: the word exists in its sentence

    @property
    def rows(self) -> int:
        return self.batch * self.num_words


def word_layout(word_index: torch.Tensor, num_words: Sequence[int] | torch.Tensor | None = None) -> WordLayout:
    """Bookkeeping for ``word_index`` ``(B, T)``; ``num_words`` (per sentence) defaults to
    ``max(word_index) + 1`` of each row (pass it when trailing words may have been truncated)."""
    if word_index.dim() != 2:
        raise ValueError(f"word_index must be (batch, positions), got shape {tuple(word_index.shape)}")
    device = word_index.device
    batch, length = word_index.shape
    if num_words is None:
        n = (word_index.max(dim=1).values + 1).clamp(min=0) if length else torch.zeros(batch, dtype=torch.long)
    else:
        n = torch.as_tensor(num_words, dtype=torch.long, device=device)
        if n.shape != (batch,):
            raise ValueError(f"num_words must have one entry per sentence ({batch}), got {tuple(n.shape)}")
        if length and bool((word_index.max(dim=1).values >= n).any()):
            raise ValueError("word_index refers to a word beyond num_words")
    n = n.to(device)
    width = int(n.max()) if batch else 0
    rows = batch * width
    valid = word_index >= 0
    offsets = torch.arange(batch, device=device).unsqueeze(1) * width
    flat = torch.where(valid, word_index + offsets, torch.full_like(word_index, rows))
    positions = torch.arange(length, device=device).unsqueeze(0).expand(batch, length)
    flat1 = flat.reshape(-1)
    counts = torch.zeros(rows + 1, dtype=torch.long, device=device).scatter_add_(
        0, flat1, torch.ones_like(flat1))[:rows]
    first = torch.full((rows + 1,), length, dtype=torch.long, device=device).scatter_reduce_(
        0, flat1, positions.reshape(-1), reduce="amin", include_self=True)[:rows]
    last = torch.full((rows + 1,), -1, dtype=torch.long, device=device).scatter_reduce_(
        0, flat1, positions.reshape(-1), reduce="amax", include_self=True)[:rows]
    has = counts > 0
    first = torch.where(has, first, torch.zeros_like(first))
    last = torch.where(has, last, torch.zeros_like(last))
    mask = torch.arange(width, device=device).unsqueeze(0) < n.unsqueeze(1)
    return WordLayout(batch, width, flat, counts, first, last, mask)


def _gather_rows(states: torch.Tensor, layout: WordLayout, pos: torch.Tensor) -> torch.Tensor:
    """``states[b, pos[b * W + w]]`` for every word, zero where the word has no position."""
    d = states.shape[-1]
    b = torch.arange(layout.batch, device=states.device).repeat_interleave(layout.num_words)
    out = states[b, pos] if layout.rows else states.new_zeros(0, d)
    out = out * (layout.counts > 0).unsqueeze(-1).to(out.dtype)
    return out.view(layout.batch, layout.num_words, d)


class WordPooling(nn.Module):
    """Base class: ``forward(states, word_index, num_words=None) -> (word_states, word_mask)``."""

    name: str = ""

    def forward(self, states: torch.Tensor, word_index: torch.Tensor,
                num_words: Sequence[int] | torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        if states.shape[:2] != word_index.shape:
            raise ValueError(f"states {tuple(states.shape)} and word_index {tuple(word_index.shape)} disagree")
        layout = word_layout(word_index.to(states.device), num_words)
        return self.pool(states, layout), layout.mask

    def pool(self, states: torch.Tensor, layout: WordLayout) -> torch.Tensor:  # pragma: no cover
        raise NotImplementedError


class OrderPooling(WordPooling):
    """The state at each word's first (``which="first"``) or last (``"last"``) piece."""

    def __init__(self, which: str = "first") -> None:
        super().__init__()
        if which not in ("first", "last"):
            raise ConfigError(f"which must be 'first' or 'last', got {which!r}")
        self.which = which
        self.name = which

    def pool(self, states: torch.Tensor, layout: WordLayout) -> torch.Tensor:
        return _gather_rows(states, layout, layout.first if self.which == "first" else layout.last)


class ReducePooling(WordPooling):
    """Element-wise ``mean`` or ``max`` over each word's pieces."""

    def __init__(self, reduce: str = "mean") -> None:
        super().__init__()
        if reduce not in ("mean", "max"):
            raise ConfigError(f"reduce must be 'mean' or 'max', got {reduce!r}")
        self.reduce = reduce
        self.name = reduce

    def pool(self, states: torch.Tensor, layout: WordLayout) -> torch.Tensor:
        batch, length, d = states.shape
        src = states.reshape(batch * length, d)
        index = layout.flat.reshape(-1, 1).expand(-1, d)
        out = states.new_zeros(layout.rows + 1, d)
        if self.reduce == "mean":
            out = out.scatter_add(0, index, src)[: layout.rows]
            out = out / layout.counts.clamp(min=1).unsqueeze(-1).to(out.dtype)
        else:
            # include_self=False: the zero initial rows do not take part in the maximum, and rows of
            # words without positions stay zero.
            out = out.scatter_reduce(0, index, src, reduce="amax", include_self=False)[: layout.rows]
        return out.view(batch, layout.num_words, d)


class AttentionPooling(WordPooling):
    """A learned scorer ``w . h + b`` per piece, softmax over the pieces of each word, weighted sum."""

    name = "attention"

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.scorer = nn.Linear(dim, 1)
        # Zero init: uniform weights (mean pooling) at the start of training.
        nn.init.zeros_(self.scorer.weight)
        nn.init.zeros_(self.scorer.bias)

    def pool(self, states: torch.Tensor, layout: WordLayout) -> torch.Tensor:
        batch, length, d = states.shape
        flat = layout.flat.reshape(-1)
        scores = self.scorer(states).reshape(-1)
        # Softmax within each word: subtract the word's maximum score for stability.
        top = scores.new_full((layout.rows + 1,), float("-inf")).scatter_reduce(
            0, flat, scores, reduce="amax", include_self=True)
        e = torch.exp(scores - top[flat].detach())
        e = torch.where(flat < layout.rows, e, torch.zeros_like(e))  # positions outside words
        denom = e.new_zeros(layout.rows + 1).scatter_add(0, flat, e)
        weights = e / denom[flat].clamp(min=torch.finfo(e.dtype).tiny)
        src = states.reshape(batch * length, d) * weights.unsqueeze(-1)
        out = states.new_zeros(layout.rows + 1, d).scatter_add(0, flat.unsqueeze(-1).expand(-1, d), src)
        return out[: layout.rows].view(batch, layout.num_words, d)


class GRUPooling(WordPooling):
    """S2W merge: a GRU over each word's pieces; the word state comes from its output at the last piece.

    ``residual=True`` (the default): ``state = h_last + P · gru_out_last`` with ``P`` initialised to
    zero, and a word with a single position keeps its state. At the start of training this is
    exactly ``last`` pooling, so a pretrained layer that follows the merge (see
    :mod:`charwise.tagging.s2w`) receives states of the kind it was trained on; S2W trained its
    Transformer from scratch and used the GRU output directly, which ``residual=False`` gives
    (then every word, one-position words included, goes through the GRU so that all word
    states live in the same space).
    """

    name = "gru"

    def __init__(self, dim: int, hidden: int | None = None, residual: bool = True) -> None:
        super().__init__()
        hidden = hidden or dim
        self.residual = residual
        self.gru = nn.GRU(dim, hidden, batch_first=True)
        self.proj = nn.Linear(hidden, dim)
        if residual:
            nn.init.zeros_(self.proj.weight)
            nn.init.zeros_(self.proj.bias)
        elif hidden == dim:
            # Raw S2W form: the identity read-out of the GRU output.
            with torch.no_grad():
                self.proj.weight.copy_(torch.eye(dim))
                self.proj.bias.zero_()

    def pool(self, states: torch.Tensor, layout: WordLayout) -> torch.Tensor:
        batch, length, d = states.shape
        base = _gather_rows(states, layout, layout.last).reshape(layout.rows, d)
        counts = layout.counts
        run = counts >= (2 if self.residual else 1)
        if not bool(run.any()):
            return base.view(batch, layout.num_words, d)
        words = run.nonzero(as_tuple=True)[0]  # rows of the words that go through the GRU
        pieces = int(counts[words].max())
        # Scatter each position into (word, offset within the word) of a padded (N, P, d) tensor.
        slot = torch.full((layout.rows + 1,), -1, dtype=torch.long, device=states.device)
        slot[words] = torch.arange(len(words), device=states.device)
        flat = layout.flat.reshape(-1)
        target = slot[flat]
        keep = target >= 0
        positions = torch.arange(length, device=states.device).repeat(batch)
        offset = positions - layout.first[flat.clamp(max=max(layout.rows - 1, 0))]
        padded = states.new_zeros(len(words), pieces, d)
        padded[target[keep], offset[keep]] = states.reshape(batch * length, d)[keep]
        out, _ = self.gru(padded)  # unidirectional: padding after the last piece cannot leak in
        at_last = out[torch.arange(len(words), device=states.device), counts[words] - 1]
        merged = self.proj(at_last)
        result = base.clone() if self.residual else torch.zeros_like(base)
        if self.residual:
            result[words] = base[words] + merged
        else:
            result[words] = merged
        return result.view(batch, layout.num_words, d)


#: name -> factory(dim) of every pooling.
POOLINGS: dict[str, Callable[[int], WordPooling]] = {
    "first": lambda dim: OrderPooling("first"),
    "last": lambda dim: OrderPooling("last"),
    "mean": lambda dim: ReducePooling("mean"),
    "max": lambda dim: ReducePooling("max"),
    "attention": lambda dim: AttentionPooling(dim),
    "gru": lambda dim: GRUPooling(dim),
}


def build_pooling(name: str, dim: int) -> WordPooling:
    """A pooling by name (see :data:`POOLINGS`) for states of dimension ``dim``."""
    if name not in POOLINGS:
        raise ConfigError(f"unknown pooling {name!r} (known: {', '.join(POOLINGS)})")
    return POOLINGS[name](dim)
