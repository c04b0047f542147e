"""Scoring many continuations of shared contexts in one causal-LM pass: the packed layout both
per-word scoring (:meth:`HybridModel.word_log_likelihoods <charwise.hybrid.model.HybridModel.word_log_likelihoods>`)
and the speller's context model (:class:`~charwise.speller.neural.LMReranker`) run on.

A packed row holds a causal **context** of ``c`` positions, then **segments**: runs of tokens that
each see the first ``p`` positions of the context (their own prefix, ``p <= c``) and, causally,
their own earlier tokens, and carry the positions they would have right after that prefix (``p,
p + 1, ...``). Each segment is thus read as if it stood alone after its prefix, and a context
shared by many continuations is computed once. Padding attends to itself only (a row with nothing
to attend to would give NaN).

* :func:`pack` builds, from :class:`PackedRow` descriptions, the boolean ``allowed`` mask, the
  ``position_ids`` and the picks: which position's output predicts which token;
* :func:`attention_mask` turns ``allowed`` into what the model's attention implementation reads;
* :func:`pick_log_probs` runs the model and gives each pick's log-probability and greedy hit;
* :func:`score_words_packed` is the hybrid model's use of them.

This module imports nothing from the rest of charwise: what it needs (the input table, the
embeddings) is passed in, so both users import it without a circle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

import torch

from charwise.errors import ConfigError

if TYPE_CHECKING:
    from torch import nn
    from transformers import PreTrainedModel


@dataclass(frozen=True)
class Segment:
    """Tokens packed after a row's context, read as if they stood alone after ``prefix`` positions
    of it.

    ``length``: the positions the segment takes in the row (its fed tokens); ``targets``: the token
    ids it scores: target 0 is predicted by the output at context position ``prefix - 1``, target
    ``j > 0`` by the output at the segment's own position ``j - 1`` (so ``len(targets) <= length + 1``).
    """

    prefix: int
    length: int
    targets: Sequence[int] = ()


@dataclass(frozen=True)
class PackedRow:
    """One row: a causal context of ``context`` positions, then ``segments``.

    ``context_targets``: the ids of context tokens ``1, 2, ...`` when the context itself is scored
    (target ``t`` is predicted by the output at context position ``t``); empty when it is not."""

    context: int
    segments: Sequence[Segment] = ()
    context_targets: Sequence[int] = ()


@dataclass
class PackedLayout:
    """What :func:`pack` builds for ``n`` rows padded to ``width`` positions (CPU tensors).

    ``allowed[r, q, k]``: whether position ``q`` of row ``r`` attends to position ``k``;
    ``position_ids``: each position's position; ``rows``, ``columns``, ``tokens``: one entry per pick
    (the output at ``(row, column)`` predicts ``token``), row by row, each row's context targets
    first, then its segments' targets in order; ``owners``: for each pick, ``(row, segment index)``,
    the segment index -1 for the context's own targets; ``starts[r][s]``: the column where segment
    ``s`` of row ``r`` starts (what the caller fills with that segment's tokens)."""

    allowed: torch.Tensor
    position_ids: torch.Tensor
    rows: torch.Tensor
    columns: torch.Tensor
    tokens: torch.Tensor
    owners: list[tuple[int, int]] = field(default_factory=list)
    starts: list[list[int]] = field(default_factory=list)

    @property
    def width(self) -> int:
        return int(self.position_ids.shape[1])


def row_width(row: PackedRow) -> int:
    """The positions ``row`` takes before padding."""
    return row.context + sum(s.length for s in row.segments)


def pack(rows: Sequence[PackedRow]) -> PackedLayout:
    """The attention layout, positions and picks of ``rows`` (see the module docstring)."""
    width = max((row_width(row) for row in rows), default=0)
    n = len(rows)
    allowed = torch.eye(width, dtype=torch.bool).repeat(n, 1, 1)  # padding attends to itself only
    positions = torch.zeros((n, width), dtype=torch.long)
    pick_rows: list[int] = []
    columns: list[int] = []
    tokens: list[int] = []
    owners: list[tuple[int, int]] = []
    starts: list[list[int]] = []
    for r, row in enumerate(rows):
        c = row.context
        if len(row.context_targets) > max(c - 1, 0):
            raise ValueError(f"a context of {c} positions scores at most {max(c - 1, 0)} of its tokens")
        allowed[r, :c, :c] = torch.ones(c, c, dtype=torch.bool).tril()
        positions[r, :c] = torch.arange(c)
        pick_rows += [r] * len(row.context_targets)
        columns += range(len(row.context_targets))
        tokens += row.context_targets
        owners += [(r, -1)] * len(row.context_targets)
        at = c
        row_starts = []
        for s, segment in enumerate(row.segments):
            p, m = segment.prefix, segment.length
            if not 0 <= p <= c or len(segment.targets) > m + 1 or (segment.targets and p == 0):
                raise ValueError(f"a segment after {p} of {c} context positions with {m} positions cannot score "
                                 f"{len(segment.targets)} tokens")
            row_starts.append(at)
            allowed[r, at : at + m, :p] = True
            allowed[r, at : at + m, at : at + m] = torch.ones(m, m, dtype=torch.bool).tril()
            positions[r, at : at + m] = torch.arange(p, p + m)
            k = len(segment.targets)
            # The prefix's last position predicts target 0, the segment's position j - 1 target j.
            columns += [p - 1, *range(at, at + k - 1)][:k]
            pick_rows += [r] * k
            tokens += segment.targets
            owners += [(r, s)] * k
            at += m
        starts.append(row_starts)
    return PackedLayout(allowed, positions, _longs(pick_rows), _longs(columns), _longs(tokens), owners, starts)


def _longs(values: list[int]) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.long)


def attention_mask(model: PreTrainedModel, allowed: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """``allowed`` ``(n, w, w)`` as the 4-D mask ``(n, 1, w, w)`` the attention of ``model`` reads:
    boolean for ``sdpa`` (PyTorch's scaled-dot-product attention takes it as is), additive
    ``dtype`` values for ``eager`` (0 where allowed, the lowest finite value elsewhere: eager
    attention adds the mask to its scores). Other implementations (flash attention) take no
    custom mask, and a packed pass would silently read across segments: a :class:`ConfigError`."""
    implementation = getattr(model.config, "_attn_implementation", None) or "sdpa"
    mask = allowed.unsqueeze(1)
    if implementation == "sdpa":
        return mask
    if implementation == "eager":
        return torch.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(~mask, torch.finfo(dtype).min)
    raise ConfigError(f"packed scoring needs 'sdpa' or 'eager' attention, not {implementation!r}: load the model "
                      f"with attn_implementation='sdpa'")


def pick_log_probs(model: PreTrainedModel, layout: PackedLayout, *, input_ids: torch.Tensor | None = None,
                   inputs_embeds: torch.Tensor | None = None, hits: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """Run the causal LM ``model`` once on the packed rows (``input_ids`` ``(n, w)`` or
    ``inputs_embeds`` ``(n, w, d)``, on the model's device) and return, for each pick of
    ``layout``, the log-probability (float32, natural log) of its token and whether it is the most
    likely token there (with ``hits=False``, an empty tensor: the arg-max over the vocabulary is
    skipped). The output layer runs on the picked positions only: the logits of every
    position of a long batch would take gigabytes; a token's log-probability is its logit less
    the log-sum-exp of its row, without writing out the whole log-softmax."""
    given = input_ids if inputs_embeds is None else inputs_embeds
    if given is None or (input_ids is not None and inputs_embeds is not None):
        raise ValueError("pass input_ids or inputs_embeds")
    device = given.device
    dtype = inputs_embeds.dtype if inputs_embeds is not None else next(model.parameters()).dtype
    mask = attention_mask(model, layout.allowed.to(device), dtype)
    hidden = model.base_model(input_ids=input_ids, inputs_embeds=inputs_embeds, attention_mask=mask,
                              position_ids=layout.position_ids.to(device)).last_hidden_state
    picked = hidden[layout.rows.to(device), layout.columns.to(device)]
    logits = model.get_output_embeddings()(picked).float()
    tokens = layout.tokens.to(device)
    token_logp = logits.gather(1, tokens.unsqueeze(1)).squeeze(1) - torch.logsumexp(logits, dim=-1)
    best = logits.argmax(dim=-1) == tokens if hits else torch.empty(0, dtype=torch.bool, device=device)
    return token_logp, best


def score_words_packed(model: PreTrainedModel, table: nn.Embedding, group: list[tuple],
                       inputs_embeds: torch.Tensor, start: torch.Tensor, results: list[torch.Tensor],
                       hits: list[torch.Tensor]) -> None:
    """Score every word of several texts in one pass of the causal LM ``model`` (for
    :meth:`HybridModel.word_log_likelihoods <charwise.hybrid.model.HybridModel.word_log_likelihoods>`):
    ``group`` holds ``(text, context length, [(word, its start, its pieces)...], packed size)``,
    ``inputs_embeds`` the hybrid inputs of all texts (``(B, T, d)``), ``start`` what is read before
    them (``(lead, d)``), ``table`` the model's input table (the embeddings of the fed pieces); each
    word's log-likelihood and greedy hit go into ``results`` and ``hits``.

    Each text is one row: [start, hybrid context] as the context, then one segment per word with its
    pieces but the last, which sees the context before the word (see the module docstring). This
    equals running one prefix per word, at a fraction of the cost.
    """
    layout = pack([PackedRow(context_len, [Segment(word_start, len(tp) - 1, tp) for _, word_start, tp in scored])
                   for _, context_len, scored, _size in group])
    device = table.weight.device
    embeds = torch.zeros((len(group), layout.width, start.shape[1]), dtype=start.dtype, device=device)
    for r, (b, context_len, scored, _size) in enumerate(group):
        embeds[r, :context_len] = torch.cat([start, inputs_embeds[b, : context_len - len(start)]])
        for (_, _, tp), at in zip(scored, layout.starts[r]):
            if len(tp) > 1:
                embeds[r, at : at + len(tp) - 1] = table(torch.tensor(tp[:-1], device=device))
    token_ll, token_hit = pick_log_probs(model, layout, inputs_embeds=embeds)
    token_hit = token_hit.cpu()
    offset = 0
    for (b, _, scored, _size) in group:
        for i, _, tp in scored:
            count = len(tp)
            results[b][i] = token_ll[offset : offset + count].sum().cpu()
            hits[b][i] = bool(token_hit[offset : offset + count].all())
            offset += count
