"""Scoring every word of several texts in one forward pass: :func:`score_packed`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from transformers import PreTrainedModel

    from charwise.hybrid.model import HybridInputs


def score_packed(model: PreTrainedModel, group: list[tuple], inputs: HybridInputs, start: torch.Tensor,
                 results: list[torch.Tensor], hits: list[torch.Tensor]) -> None:
    """Score every word of several texts in one pass of the causal LM ``model`` (for
    :meth:`HybridModel.word_log_likelihoods <charwise.hybrid.model.HybridModel.word_log_likelihoods>`):
    ``group`` holds ``(text, context length, [(word, its start, its pieces)...], packed size)``;
    each word's log-likelihood and greedy hit go into ``results`` and ``hits``.

    Each text is packed as [start, hybrid context, pieces of word 0, pieces of word 1, ...]
    with a custom attention mask: the pieces of word i see the context before word i and their
    own earlier pieces, and carry the positions they would have right after that context. This
    equals running one prefix per word, at a fraction of the cost.
    """
    from charwise.hybrid.model import input_table  # the module that calls this one

    table = input_table(model)
    device = table.weight.device
    width = max(g[3] for g in group)
    n = len(group)
    embeds = torch.zeros((n, width, start.shape[1]), dtype=start.dtype, device=device)
    allowed = torch.zeros((n, width, width), dtype=torch.bool, device=device)
    positions = torch.zeros((n, width), dtype=torch.long, device=device)
    rows, cols, ids = [], [], []
    owners: list[tuple[int, int, int]] = []  # (text, word, number of pieces)
    for r, (b, context_len, scored, _size) in enumerate(group):
        context = torch.cat([start, inputs.inputs_embeds[b, : context_len - len(start)]])
        embeds[r, :context_len] = context
        allowed[r, :context_len, :context_len] = torch.ones(context_len, context_len, dtype=torch.bool,
                                                            device=device).tril()
        positions[r, :context_len] = torch.arange(context_len, device=device)
        at = context_len
        for i, word_start, tp in scored:
            fed = len(tp) - 1
            if fed:
                embeds[r, at : at + fed] = table(torch.tensor(tp[:-1], device=device))
                allowed[r, at : at + fed, :word_start] = True
                allowed[r, at : at + fed, at : at + fed] = torch.ones(fed, fed, dtype=torch.bool,
                                                                      device=device).tril()
                positions[r, at : at + fed] = torch.arange(word_start, word_start + fed, device=device)
            # Piece 0 is predicted by the last context position, piece k by fed piece k - 1.
            cols += [word_start - 1] + list(range(at, at + fed))
            rows += [r] * len(tp)
            ids += tp
            owners.append((b, i, len(tp)))
            at += fed
        allowed[r, at:, :] = False
        allowed[r, torch.arange(at, width), torch.arange(at, width)] = True  # padding sees itself
    mask = allowed.unsqueeze(1)
    if getattr(model.config, "_attn_implementation", "sdpa") == "eager":
        mask = torch.zeros(mask.shape, dtype=embeds.dtype, device=device).masked_fill(
            ~mask, torch.finfo(embeds.dtype).min)
    hidden = model.base_model(inputs_embeds=embeds, attention_mask=mask,
                                   position_ids=positions).last_hidden_state
    picked = hidden[torch.tensor(rows, device=device), torch.tensor(cols, device=device)]
    logp = torch.log_softmax(model.get_output_embeddings()(picked).float(), dim=-1)
    id_tensor = torch.tensor(ids, device=device)
    token_ll = logp[torch.arange(len(ids), device=device), id_tensor]
    token_hit = (logp.argmax(dim=-1) == id_tensor).cpu()
    offset = 0
    for b, i, count in owners:
        results[b][i] = token_ll[offset : offset + count].sum().cpu()
        hits[b][i] = bool(token_hit[offset : offset + count].all())
        offset += count
