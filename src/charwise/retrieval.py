"""Batched cosine / dot-product nearest-neighbour search over an embedding table.

Everything is a chunked matrix product followed by ``topk``: memory stays at
``chunk_size x V`` and no V x V matrix is ever built.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def topk_rows(
    queries: torch.Tensor,
    table: torch.Tensor,
    k: int,
    *,
    cosine: bool = True,
    candidates: torch.Tensor | None = None,
    exclude: torch.Tensor | None = None,
    chunk_size: int = 2048,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Top-``k`` rows of ``table`` for each query.

    Args:
        queries: ``(n, d)``.
        table: ``(V, d)``.
        k: neighbours per query.
        cosine: rank by cosine similarity (else by dot product, i.e. tied logits).
        candidates: optional bool mask ``(V,)``; rows outside it are never returned.
        exclude: optional ``(n,)`` row ids to skip for each query (a row's own id).
    Returns:
        ``(scores, ids)``, each ``(n, k)``, best first.
    """
    if queries.shape[-1] != table.shape[-1]:
        raise ValueError(f"dimension mismatch: queries {queries.shape[-1]} vs table {table.shape[-1]}")
    q = F.normalize(queries.float(), dim=-1) if cosine else queries.float()
    t = F.normalize(table.float(), dim=-1) if cosine else table.float()
    allowed = t.shape[0] if candidates is None else int(candidates.sum())
    k = min(k, allowed - (1 if exclude is not None else 0))
    if k < 1:
        raise ValueError("no rows left to retrieve from (candidates/exclude remove them all)")
    scores, ids = [], []
    for start in range(0, q.shape[0], chunk_size):
        s = q[start : start + chunk_size] @ t.T
        if candidates is not None:
            s = s.masked_fill(~candidates.to(s.device)[None, :], float("-inf"))
        if exclude is not None:
            rows = torch.arange(s.shape[0], device=s.device)
            s[rows, exclude[start : start + chunk_size].to(s.device)] = float("-inf")
        v, i = s.topk(k, dim=1)
        scores.append(v)
        ids.append(i)
    if not scores:
        return torch.empty(0, k), torch.empty(0, k, dtype=torch.long)
    return torch.cat(scores), torch.cat(ids)
