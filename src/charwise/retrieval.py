"""Batched cosine / dot-product nearest-neighbour search over an embedding table.

Everything is a chunked matrix product followed by ``topk``: memory stays at
``chunk_size x V`` and no V x V matrix is ever built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F

if TYPE_CHECKING:
    from charwise.encoders.base import CharEncoder
    from charwise.teachers import Teacher


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


# --- whole-word ranking (misspelling benchmarks) ----------------------------------------------------
def whole_word_mask(teacher: Teacher) -> torch.Tensor:
    """The rows a misspelling is ranked against: ``normal`` rows that start a word."""
    return teacher.normal_mask & teacher.word_start_mask


def rank_vectors(vectors: torch.Tensor, teacher: Teacher, k: int = 10) -> torch.Tensor:
    """Top-``k`` whole-word row ids ``(n, k)`` (cosine, best first) for vectors in the teacher's space."""
    if len(vectors) == 0:
        return torch.empty(0, k, dtype=torch.long)
    _, ids = topk_rows(vectors.float().cpu(), teacher.embeddings, k, candidates=whole_word_mask(teacher))
    return ids


def rank_with_encoder(
    encoder: CharEncoder, teacher: Teacher, misspellings: list[str], k: int = 10, *, batch_size: int = 1024
) -> torch.Tensor:
    """Top-``k`` whole-word row ids ``(n, k)`` for each misspelling, from the encoder's vectors."""
    return rank_vectors(encoder.embed(list(misspellings), batch_size=batch_size).cpu(), teacher, k)


def hits_at(ids: torch.Tensor, rows: torch.Tensor, ks: tuple[int, ...] = (1, 5, 10)) -> dict[int, torch.Tensor]:
    """Per pair, whether its ``rows`` entry is among the first k of ``ids``, for each k in ``ks``."""
    hit = ids == rows[:, None]
    return {k: hit[:, :k].any(dim=1) for k in ks}
