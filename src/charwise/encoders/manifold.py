"""Vectors on the table's manifold: a confident character vector becomes a mixture of the rows it is near.

A character encoder ranks the right row first for most words it has seen and for most typos of
them, but its raw vector stays some way from that row (mean cosine ~0.6): the model downstream
reads a vector from a region of its input space it was never trained on. Wang et al. (2019) place
a new word's vector as a softmax mixture of existing rows ("mixture mapping"); here the same
mixture is built around the character vector and blended with it by a gate that opens with the
encoder's confidence::

    s_1 >= ... >= s_k  = similarities of the raw vector v to its k nearest candidate rows r_1..r_k
    m = sum_i softmax(s / temperature)_i * r_i                      (a point on the table's manifold)
    g = gate_max * sigmoid(gate_scale * (s_1 - s_2 - gate_shift))   (confidence: the top-2 margin)
    output = g * m + (1 - g) * v

``gate_max`` (default 0.5) keeps part of the raw vector even when the encoder is sure: a vector
pulled all the way onto the wrong word (a quarter of real misspellings) misleads the model that
reads it more than the raw vector does, and a half-way vector already reads as the right word.
On real misspellings substituted into sentences (all-MiniLM-L6-v2, ``oov`` policy) a gate always
fully open lowered retrieval below the raw vectors; at one half it raised it (docs/approximation.md).

``metric="csls"`` ranks and weighs rows by cross-domain similarity local scaling
(``2 cos(v, r) - hub(r)``, with ``hub(r)`` the mean cosine of ``r`` to its 10 nearest rows; the
query's own term is the same for every row and cancels in the softmax) so that "hub" rows that are
near everything do not attract every vector. Candidates are the teacher's ``normal`` rows that are
word starts (for whole words) or continuation pieces (for ``pieces=True``), as in retrieval.

The parameters are chosen by :func:`charwise.training.manifold.tune_manifold` on validation
words (never on test data) and stored in the encoder's ``config.json`` (``"manifold"``); an
encoder without them returns raw vectors. :meth:`CharEncoder.embed` applies the projection, so
every consumer (hybrid models, the sentence encoder, the tagger's character features, expansion's
``char`` method) gets it; ``embed(..., manifold=False)`` gives the raw vector, and the module's
``forward`` is always raw (it is what approximation training fits).

Example::

    encoder = charwise.load("minilm")          # the shipped encoder; its manifold is on if tuned
    encoder.embed(["recieve"])                 # mixture of the rows near the raw vector
    encoder.embed(["recieve"], manifold=False) # the raw character vector
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from charwise.errors import ConfigError

if TYPE_CHECKING:
    import torch

METRICS = ("cosine", "csls")
#: Rows each hub score averages over (Lample et al. 2018 use 10).
HUB_NEIGHBOURS = 10
#: Scores computed at once by the numpy projection (queries x rows): memory bounded in the input
SCORE_BLOCK = 1 << 23


@dataclass(frozen=True)
class ManifoldConfig:
    """Parameters of the projection onto the table's manifold (see the module docstring).

    Attributes:
        k: rows in the mixture (>= 2: the gate reads the margin between the first two).
        temperature: softmax temperature of the mixture weights (> 0; small = the nearest row).
        gate_shift: top-2 margin at which the gate is one half.
        gate_scale: slope of the gate in the margin (>= 0; 0 = a constant gate of ``gate_max / 2``).
        gate_max: the most the mixture may weigh, in (0, 1].
        metric: ``"cosine"`` or ``"csls"``.
    """

    k: int = 5
    temperature: float = 0.02
    gate_shift: float = 0.0
    gate_scale: float = 50.0
    gate_max: float = 0.5
    metric: str = "cosine"

    def __post_init__(self) -> None:
        if not isinstance(self.k, int) or self.k < 2:
            raise ConfigError(f"manifold k must be an integer >= 2, got {self.k!r}")
        if not self.temperature > 0:
            raise ConfigError(f"manifold temperature must be > 0, got {self.temperature!r}")
        if not self.gate_scale >= 0:
            raise ConfigError(f"manifold gate_scale must be >= 0, got {self.gate_scale!r}")
        if not -2.0 <= self.gate_shift <= 4.0:  # a cosine (csls) margin lies in [0, 2] ([0, 4])
            raise ConfigError(f"manifold gate_shift must be a similarity margin, got {self.gate_shift!r}")
        if not 0 < self.gate_max <= 1:
            raise ConfigError(f"manifold gate_max must be in (0, 1], got {self.gate_max!r}")
        if self.metric not in METRICS:
            raise ConfigError(f"manifold metric must be one of {', '.join(METRICS)}, got {self.metric!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ManifoldConfig":
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise ConfigError(f"unknown manifold settings {unknown}")
        return cls(**data)


class RowIndex:
    """The candidate rows of one teacher for one kind of string, ready for the projection.

    Args:
        table: the teacher's ``(V, d)`` embedding table.
        candidates: bool mask ``(V,)`` of the rows a vector may be mixed from.
    """

    def __init__(self, table: torch.Tensor, candidates: torch.Tensor) -> None:
        import torch.nn.functional as F

        if candidates.sum() < 2:
            raise ConfigError("the manifold projection needs at least two candidate rows")
        self.ids = candidates.nonzero().squeeze(1)  # the table row of each candidate
        self.rows = table[candidates].float()
        self.unit = F.normalize(self.rows, dim=-1)
        self._hub: torch.Tensor | None = None

    def to(self, device: torch.device) -> "RowIndex":
        if self.rows.device != device:
            self.rows, self.unit, self.ids = self.rows.to(device), self.unit.to(device), self.ids.to(device)
            self._hub = None if self._hub is None else self._hub.to(device)
        return self

    @property
    def hub(self) -> torch.Tensor:
        """Mean cosine of each row to its :data:`HUB_NEIGHBOURS` nearest other rows (computed once, chunked)."""
        import torch

        if self._hub is None:
            with torch.inference_mode(False):  # cached: an ordinary tensor, usable by training too
                self._hub = self._hub_scores()
        return self._hub

    def _hub_scores(self) -> torch.Tensor:
        import torch

        k = min(HUB_NEIGHBOURS, self.unit.shape[0] - 1)
        parts = []
        for start in range(0, self.unit.shape[0], 2048):
            sims = self.unit[start : start + 2048] @ self.unit.T
            parts.append(sims.topk(k + 1, dim=1).values[:, 1:].mean(dim=1))  # skip the row itself
        return torch.cat(parts)

    def neighbours(self, vectors: torch.Tensor, k: int, metric: str) -> tuple[torch.Tensor, torch.Tensor]:
        """``(scores, row positions)`` of the ``k`` best candidates, best first (differentiable in ``vectors``)."""
        import torch.nn.functional as F

        scores = F.normalize(vectors.float(), dim=-1) @ self.unit.T
        if metric == "csls":
            scores = 2 * scores - self.hub[None, :]
        return scores.topk(min(k, self.unit.shape[0]), dim=1)


def mixture(scores: torch.Tensor, positions: torch.Tensor, index: RowIndex, config: ManifoldConfig) -> torch.Tensor:
    """``sum_i softmax(scores / temperature)_i * row_i`` for the top-``k`` ``(scores, positions)``."""
    import torch

    k = min(config.k, scores.shape[1])
    weights = torch.softmax(scores[:, :k] / config.temperature, dim=1)
    return torch.einsum("nk,nkd->nd", weights, index.rows[positions[:, :k]])


def gate(scores: torch.Tensor, config: ManifoldConfig) -> torch.Tensor:
    """The blend weight of the mixture, ``(n, 1)``: ``gate_max`` times a sigmoid of the top-2 margin."""
    import torch

    margin = scores[:, 0] - scores[:, 1]
    return config.gate_max * torch.sigmoid(config.gate_scale * (margin - config.gate_shift))[:, None]


def project(vectors: torch.Tensor, index: RowIndex, config: ManifoldConfig) -> torch.Tensor:
    """``g * mixture + (1 - g) * vectors`` for ``(n, d)`` raw character vectors (see the module docstring)."""
    if vectors.shape[0] == 0:
        return vectors
    scores, positions = index.neighbours(vectors, config.k, config.metric)
    g = gate(scores, config)
    return (g * mixture(scores, positions, index, config) + (1 - g) * vectors.float()).to(vectors.dtype)


# --- the same projection in numpy (the speller runs its encoder without torch) -------------------

def hub_scores_array(unit: np.ndarray) -> np.ndarray:
    """:attr:`RowIndex.hub` of unit rows ``(V, d)`` in numpy: each row's mean cosine to its
    :data:`HUB_NEIGHBOURS` nearest other rows."""
    k = min(HUB_NEIGHBOURS, unit.shape[0] - 1)
    parts = []
    for start in range(0, unit.shape[0], 2048):
        sims = unit[start : start + 2048] @ unit.T
        top = -np.partition(-sims, k, axis=1)[:, : k + 1]  # the k + 1 largest, the row itself among them
        parts.append((top.sum(axis=1) - top.max(axis=1)) / k)
    return np.concatenate(parts).astype(np.float32)


def project_array(vectors: np.ndarray, unit: np.ndarray, norms: np.ndarray, config: ManifoldConfig,
                  hub: np.ndarray | None = None) -> np.ndarray:
    """:func:`project` in numpy: ``vectors`` ``(n, d)`` float32 raw character vectors, ``unit`` the
    candidate rows at unit length ``(V, d)`` and ``norms`` their lengths ``(V,)`` (a row is
    ``unit * norm``); ``hub`` (:func:`hub_scores_array`) for ``metric="csls"``."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.shape[0] == 0:
        return vectors
    # a block of queries at a time: the score matrix stays about 32 MB, however many words come
    block = max(1, SCORE_BLOCK // max(1, unit.shape[0]))
    if vectors.shape[0] > block:
        return np.concatenate([project_array(vectors[i : i + block], unit, norms, config, hub)
                               for i in range(0, vectors.shape[0], block)])
    queries = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    scores = queries @ unit.T
    if config.metric == "csls":
        if hub is None:
            raise ConfigError("the csls projection needs the rows' hub scores")
        scores = 2 * scores - hub[None, :]
    k = min(config.k, unit.shape[0])
    top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    top_scores = np.take_along_axis(scores, top, axis=1)
    order = np.argsort(-top_scores, axis=1, kind="stable")
    positions = np.take_along_axis(top, order, axis=1)
    best = np.take_along_axis(top_scores, order, axis=1).astype(np.float64)
    weights = np.exp((best - best[:, :1]) / config.temperature)
    weights /= weights.sum(axis=1, keepdims=True)
    rows = unit[positions] * norms[positions][:, :, None]  # (n, k, d)
    mixed = np.einsum("nk,nkd->nd", weights, rows)
    margin = best[:, 0] - best[:, 1]
    g = config.gate_max / (1.0 + np.exp(-np.clip(config.gate_scale * (margin - config.gate_shift), -60, 60)))
    return (g[:, None] * mixed + (1 - g[:, None]) * vectors).astype(np.float32)
