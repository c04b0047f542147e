"""Losses for approximating a teacher's embedding table from characters (Char2Subword, sec. 3.1).

Each loss takes the encoder's predictions ``pred`` ``(B, d)`` and the target row ids ``ids``
``(B,)`` into the frozen teacher table ``E`` ``(V, d)``; table-free losses also accept the target
vectors directly. :class:`ApproximationLoss` sums the enabled ones with weights.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from charwise.errors import ConfigError
from charwise.retrieval import topk_rows
from charwise.training.config import LossWeights  # noqa: F401 (re-exported)


def cosine_distance_loss(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean cosine distance ``1 - cos(e, ê)``.

    Reference: Aguilar et al. 2021, L_cos. Keeps angular relations of the table.
    Example: pred ``[[1, 0]]``, target ``[[0, 1]]`` -> ``1.0``.
    """
    return (1 - F.cosine_similarity(pred, target, dim=-1)).mean()


def l2_loss(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean Euclidean distance ``||e - ê||_2``.

    Reference: Aguilar et al. 2021, L_2. Pins the magnitude, which cosine leaves free.
    Example: pred ``[[3, 0]]``, target ``[[0, 4]]`` -> ``5.0``.
    """
    return (pred - target).norm(dim=-1).mean()


def neighbour_ids(table: torch.Tensor, rows: torch.Tensor, k: int, candidates: torch.Tensor | None) -> torch.Tensor:
    """The ``k`` nearest rows of ``table`` (cosine) to each of ``rows``, itself excluded, ``(len(rows),
    k)``. Kept in the cache (:func:`charwise.cache.mapped_or_built`), keyed by the table, the rows,
    ``k`` and the candidates: for a 250k-row table it takes 20 minutes on two cores, which a resumed
    or continued run would otherwise pay again."""
    import hashlib

    from charwise.cache import cache_root, mapped_or_built

    digest = hashlib.sha256()
    for part in (table, rows, candidates):
        if part is not None:
            digest.update(str((tuple(part.shape), str(part.dtype))).encode())
            digest.update(part.detach().contiguous().cpu().numpy().tobytes())
    digest.update(str(k).encode())
    path = cache_root() / f"neighbours-{digest.hexdigest()[:24]}.safetensors"

    def build() -> dict:
        return {"ids": topk_rows(table[rows], table, k, candidates=candidates, exclude=rows)[1].numpy()}

    ids = mapped_or_built(path, f"the {k} nearest rows of {len(rows)} teacher rows", ("ids",), build)["ids"]
    return torch.from_numpy(ids.copy()).long()


class NeighbourLoss(nn.Module):
    """MSE between cosine distances of the target and of the prediction to the target's k nearest rows.

    Reference: Aguilar et al. 2021, L_nbr: ``1/k sum_j (dis(e_i, n_j) - dis(ê_i, n_j))^2`` with
    ``n = topk(e_i, E)``. The row itself is excluded from its neighbours (its distance term is
    already the cosine loss). Neighbours are computed once, in chunks, at construction.

    Inputs: ``pred (B, d)``, ``ids (B,)``. Example::

        loss = NeighbourLoss(E, k=10)
        value = loss(encoder(chars), ids)
    """

    # buffers (registered in __init__)
    table: torch.Tensor
    neighbours: torch.Tensor
    row_index: torch.Tensor

    def __init__(self, table: torch.Tensor, k: int = 10, candidates: torch.Tensor | None = None,
                 rows: torch.Tensor | None = None) -> None:
        super().__init__()
        table = table.detach().float()
        rows = torch.arange(table.shape[0]) if rows is None else rows
        # Neighbour ids only for the rows that will be targets, looked up through row_index.
        nbr = neighbour_ids(table, rows, k, candidates)
        index = torch.full((table.shape[0],), -1, dtype=torch.long)
        index[rows] = torch.arange(len(rows))
        self.register_buffer("table", F.normalize(table, dim=-1), persistent=False)
        self.register_buffer("neighbours", nbr, persistent=False)
        self.register_buffer("row_index", index, persistent=False)

    def forward(self, pred: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        local = self.row_index[ids]
        if (local < 0).any():
            raise ValueError("NeighbourLoss got a target id it has no neighbours for")
        n = self.table[self.neighbours[local]]  # (B, k, d), unit rows
        target = self.table[ids]  # unit rows
        d_true = 1 - torch.einsum("bd,bkd->bk", target, n)
        d_pred = 1 - torch.einsum("bd,bkd->bk", F.normalize(pred, dim=-1), n)
        return ((d_true - d_pred) ** 2).mean()


class TiedCrossEntropyLoss(nn.Module):
    """Cross-entropy of ``softmax(scale * ê Eᵀ)`` against the target id, ``E`` frozen.

    Reference: Aguilar et al. 2021, L_ce (there ``scale = 1``). Teachers whose rows have norm
    near 1 (MiniLM: mean 1.07) give nearly flat logits at scale 1, so the scale is a knob; the
    argmax, and so the reported accuracy, does not depend on it.

    With ``negatives > 0`` the softmax runs over a sample instead of the whole table (sampled
    softmax, Jean et al. 2015): the batch's own targets plus ``negatives`` rows drawn uniformly
    from ``candidates``, shared by the batch; copies of a target among them are masked. A 250k-row
    table (XLM-R) costs 250k dot products per sample otherwise. The draw is a function of the
    batch's ids, so a resumed run draws the same rows.

    Inputs: ``pred (B, d)``, ``ids (B,)``. Example: ``TiedCrossEntropyLoss(E, scale=10)(pred, ids)``.
    """

    table: torch.Tensor  # buffer
    pool: torch.Tensor  # buffer: the rows negatives are drawn from

    def __init__(self, table: torch.Tensor, scale: float = 1.0, negatives: int = 0,
                 candidates: torch.Tensor | None = None) -> None:
        super().__init__()
        if negatives < 0:
            raise ConfigError(f"negatives must be >= 0 (0: the whole table), got {negatives}")
        self.register_buffer("table", table.detach().float(), persistent=False)
        pool = torch.arange(len(table)) if candidates is None else candidates.nonzero().squeeze(1)
        self.register_buffer("pool", pool, persistent=False)
        self.scale = scale
        self.negatives = negatives

    def forward(self, pred: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        if self.negatives == 0 or self.negatives >= len(self.pool):
            return F.cross_entropy(self.scale * pred @ self.table.T, ids)
        seed = int((ids.detach().cpu().long() * torch.arange(1, len(ids) + 1)).sum()) % (2**62)
        draw = torch.randint(len(self.pool), (self.negatives,), generator=torch.Generator().manual_seed(seed))
        cand = torch.cat([ids, self.pool[draw.to(self.pool.device)]])
        logits = self.scale * pred @ self.table[cand].T  # (B, B + negatives)
        own = torch.arange(len(ids), device=ids.device)
        clash = cand[None, :] == ids[:, None]
        clash[own, own] = False
        return F.cross_entropy(logits.masked_fill(clash, float("-inf")), own)


class ContrastiveLoss(nn.Module):
    """InfoNCE over cosine similarities with in-batch and hard negatives.

    Candidates for each prediction: every target row of the batch (in-batch negatives) plus the
    ``hard`` nearest rows of every target (hard negatives, which are exactly the confusable
    words). Candidates with the same id as the target, other than the target itself, are masked.
    Reference: van den Oord et al. 2018 (InfoNCE); hard negatives as in Robinson et al. 2021.

    Inputs: ``pred (B, d)``, ``ids (B,)``. Example: ``ContrastiveLoss(E, neighbours, hard=5)(pred, ids)``.
    """

    table: torch.Tensor  # buffer

    def __init__(self, table: torch.Tensor, neighbours: NeighbourLoss | None = None, hard: int = 5,
                 temperature: float = 0.05) -> None:
        super().__init__()
        # The neighbour loss already holds the unit-norm table; share it instead of a second copy.
        unit = neighbours.table if neighbours is not None else F.normalize(table.detach().float(), dim=-1)
        self.register_buffer("table", unit, persistent=False)
        self.neighbours = neighbours
        self.hard = hard
        self.temperature = temperature

    def forward(self, pred: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        cand = ids
        if self.neighbours is not None and self.hard > 0:
            hard = self.neighbours.neighbours[self.neighbours.row_index[ids], : self.hard].reshape(-1)
            cand = torch.cat([ids, hard])
        logits = F.normalize(pred, dim=-1) @ self.table[cand].T / self.temperature  # (B, C)
        own = torch.arange(len(ids), device=ids.device)
        clash = cand[None, :] == ids[:, None]
        clash[own, own] = False
        logits = logits.masked_fill(clash, float("-inf"))
        return F.cross_entropy(logits, own)


class ApproximationLoss(nn.Module):
    """Weighted sum of the enabled losses; returns ``(total, {name: value})``."""

    table: torch.Tensor  # buffer

    def __init__(self, table: torch.Tensor, weights: LossWeights | None = None,
                 candidates: torch.Tensor | None = None, rows: torch.Tensor | None = None) -> None:
        super().__init__()
        weights = weights or LossWeights()
        self.weights = weights
        self.register_buffer("table", table.detach().float(), persistent=False)
        need_nbr = weights.nbr > 0 or (weights.contrastive > 0 and weights.hard_negatives > 0)
        self.nbr = NeighbourLoss(table, weights.nbr_k, candidates, rows) if need_nbr else None
        rows_for_scale = table if candidates is None else table[candidates]
        unit = float(rows_for_scale.float().pow(2).sum(dim=1).mean())
        self.ce = (TiedCrossEntropyLoss(table, weights.ce_scale / unit, weights.ce_negatives, candidates)
                   if weights.ce > 0 else None)
        self.contrastive = (
            ContrastiveLoss(table, self.nbr, weights.hard_negatives, weights.temperature)
            if weights.contrastive > 0 else None
        )

    def forward(self, pred: torch.Tensor, ids: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        target = self.table[ids]
        parts: dict[str, torch.Tensor] = {}
        w = self.weights
        if w.cos > 0:
            parts["cos"] = cosine_distance_loss(pred, target)
        if w.l2 > 0:
            parts["l2"] = l2_loss(pred, target)
        if w.nbr > 0:
            assert self.nbr is not None, "built in __init__ when weights.nbr > 0"
            parts["nbr"] = self.nbr(pred, ids)
        if w.ce > 0:
            assert self.ce is not None, "built in __init__ when weights.ce > 0"
            parts["ce"] = self.ce(pred, ids)
        if w.contrastive > 0:
            assert self.contrastive is not None, "built in __init__ when weights.contrastive > 0"
            parts["contrastive"] = self.contrastive(pred, ids)
        if not parts:
            raise ConfigError("every loss weight is zero")
        total = sum(getattr(w, name) * value for name, value in parts.items())
        return total, {name: float(value.detach()) for name, value in parts.items()}
