"""Rows for new words: the four expansion methods and their ``+`` averages (:class:`Expander`).

* ``mean``: the mean of the rows of the pieces the tokenizer splits the word into today (the
  usual baseline).
* ``char``: charwise's character encoder for the teacher (:func:`default_encoder`).
* ``mixture``: mixture mapping (Wang et al. 2019, section 2.2). In a static word-vector space
  (GloVe), the 5 existing vocabulary words with the highest CSLS score (Conneau et al. 2018, 10
  neighbours for the local scaling) to the new word; the new row is the softmax(CSLS)-weighted sum
  of their rows.
* ``joint``: joint mapping. An orthogonal map, fitted by Procrustes on the words present in
  both the static vectors and the vocabulary, carries the new word's static vector into the
  teacher's space. The two spaces have different dimensions (GloVe 50, MiniLM 384, SmolLM2 576), so
  the map is *semi*-orthogonal: a ``s x d`` matrix ``W`` with orthonormal rows (``W Wᵀ = I``),
  i.e. an isometry of the static space onto the ``s``-dimensional subspace of the table's space
  that fits the shared words best. It is the exact solution of
  ``min ||s_c X_c W - Y_c||_F`` s.t. ``W Wᵀ = I`` (``W = U Vᵀ`` from the thin SVD of ``X_cᵀ Y_c``),
  with both sides centred on their means and scaled to the same size (classical Procrustes
  analysis; a least-squares scale would shrink every mapped word towards the mean row).
  See :func:`procrustes` and :func:`fit_joint`. The alignment accuracy (prec@1 of a held-out
  tenth of the shared words retrieving their own row) is reported.

Words missing from the static vectors fall back to ``char`` (or ``mean`` when no character
encoder fits the teacher) and are reported. ``char+joint``, the default of ``charwise expand``,
has the best prec@1 on both built-in teachers in ``benchmarks/results/expansion.json``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Iterable

import torch
import torch.nn.functional as F

from charwise.errors import ConfigError, InputError
from charwise.expansion.selection import REPORT_EXAMPLES
from charwise.expansion.vectors import StaticVectors
from charwise.retrieval import topk_rows
from charwise.teachers import Teacher

BASE_METHODS = ("mean", "char", "mixture", "joint")
STATIC_METHODS = ("mixture", "joint")
CSLS_NEIGHBOURS = 10  # Wang et al.: "we set the number of nearest neighbors in CSLS to 10"
MIXTURE_TOP = 5  # "We select five v ... with the highest CSLS ... to form set T(w)"


# --- CSLS, mixture mapping ----------------------------------------------------------------------
def mean_topk_cosine(x: torch.Tensor, pool: torch.Tensor, k: int, chunk_size: int = 4096) -> torch.Tensor:
    """For each row of ``x``, the mean cosine to its ``k`` nearest rows of ``pool`` (CSLS's r term)."""
    if len(pool) == 0:
        raise ValueError("CSLS needs a non-empty neighbour pool")
    k = min(k, len(pool))
    xn, pn = F.normalize(x.float(), dim=-1), F.normalize(pool.float(), dim=-1)
    out = torch.empty(len(x))
    for start in range(0, len(x), chunk_size):
        sims = xn[start : start + chunk_size] @ pn.T
        out[start : start + chunk_size] = sims.topk(k, dim=1).values.mean(dim=1)
    return out


def csls(
    queries: torch.Tensor,
    targets: torch.Tensor,
    k: int = CSLS_NEIGHBOURS,
    *,
    query_pool: torch.Tensor | None = None,
    target_pool: torch.Tensor | None = None,
) -> torch.Tensor:
    """Cross-domain similarity local scaling (Conneau et al. 2018), the full ``(nq, nt)`` matrix.

    ``CSLS(q, t) = 2 cos(q, t) - r_T(q) - r_S(t)``, where ``r_T(q)`` is the mean cosine of ``q`` to
    its ``k`` nearest rows of ``target_pool`` (default: ``targets``) and ``r_S(t)`` that of ``t`` to
    its ``k`` nearest rows of ``query_pool`` (default: ``queries``). Hubs, targets close to
    everything, are penalised by their high ``r_S``.
    """
    r_q = mean_topk_cosine(queries, targets if target_pool is None else target_pool, k)
    r_t = mean_topk_cosine(targets, queries if query_pool is None else query_pool, k)
    cos = F.normalize(queries.float(), dim=-1) @ F.normalize(targets.float(), dim=-1).T
    return 2 * cos - r_q[:, None] - r_t[None, :]


def csls_topk(
    queries: torch.Tensor,
    targets: torch.Tensor,
    top: int,
    target_penalty: torch.Tensor,
    k: int = CSLS_NEIGHBOURS,
    chunk_size: int = 2048,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The ``top`` targets of each query by CSLS, chunked (no ``nq x nt`` matrix is kept).

    ``target_penalty`` is ``r_S`` for every target (:func:`mean_topk_cosine` against the query
    domain, computed once for all queries); ``r_T`` of each query comes from the targets.
    """
    top = min(top, len(targets))
    tn = F.normalize(targets.float(), dim=-1)
    scores, ids = [], []
    for start in range(0, len(queries), chunk_size):
        qn = F.normalize(queries[start : start + chunk_size].float(), dim=-1)
        cos = qn @ tn.T
        r_q = cos.topk(min(k, len(targets)), dim=1).values.mean(dim=1)
        s, i = (2 * cos - r_q[:, None] - target_penalty[None, :]).topk(top, dim=1)
        scores.append(s)
        ids.append(i)
    if not scores:
        return torch.empty(0, top), torch.empty(0, top, dtype=torch.long)
    return torch.cat(scores), torch.cat(ids)


def mixture_weights(scores: torch.Tensor) -> torch.Tensor:
    """``p(u | w) = exp CSLS(u, w) / sum_v exp CSLS(v, w)`` over the selected top words (Wang et al. eq. 2)."""
    return torch.softmax(scores.double(), dim=-1).float()


# --- Procrustes, joint mapping -------------------------------------------------------------------
def procrustes(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Orthogonal Procrustes: ``argmin_W ||x W - y||_F`` over (semi-)orthogonal ``W`` (``s x d``).

    The answer is ``U Vᵀ`` from the thin SVD ``xᵀ y = U Σ Vᵀ`` (Schönemann 1966). With ``s <= d``
    (static vectors narrower than the table: GloVe 50 into 384 or 576) the constraint is
    ``W Wᵀ = I``, an isometry into ``R^d``; ``||x W||`` is then fixed, so minimising the residual is
    maximising ``tr(Wᵀ xᵀ y)``, and ``U Vᵀ`` is the exact minimiser. With ``s > d`` it returns the
    ``Wᵀ W = I`` matrix maximising ``tr(Wᵀ xᵀ y)``, which no longer minimises the residual exactly.
    """
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"procrustes needs paired rows: {x.shape[0]} vs {y.shape[0]}")
    u, _, vh = torch.linalg.svd(x.double().T @ y.double(), full_matrices=False)
    return (u @ vh).float()


@dataclass
class JointMap:
    """``y = mean_y + scale * (x - mean_x) @ weight`` with ``weight`` (semi-)orthogonal."""

    mean_x: torch.Tensor
    mean_y: torch.Tensor
    weight: torch.Tensor
    scale: float

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return self.mean_y + self.scale * (x.float() - self.mean_x) @ self.weight


def fit_joint(x: torch.Tensor, y: torch.Tensor, *, center: bool = True, scale: str = "norm") -> JointMap:
    """Fit a :class:`JointMap` on paired rows (static vector ``x_i``, teacher row ``y_i``).

    Centring removes the offset between the spaces (an orthogonal map cannot translate; SmolLM2's
    rows share a mean of norm 2.2 against 2.4 for the rest). ``scale``:

    * ``"norm"`` (default): classical Procrustes analysis, both centred configurations scaled to the
      same size, ``s = ||y_c||_F / ||x_c||_F``: mapped words spread around the table's mean as
      much as real rows do.
    * ``"lsq"``: the least-squares optimum for the fitted rotation, ``s = tr(Σ) / ||x_c||_F²``. With
      a weak alignment it shrinks every prediction towards the mean row (regression to the mean),
      and cosine retrieval among the rows then returns the same few rows for every word: on
      SmolLM2 the alignment prec@1 drops from 7 % to 0 %.
    * ``"none"``: ``s = 1``.
    """
    if len(x) < 2:
        raise ValueError(f"joint mapping needs at least 2 shared words, got {len(x)}")
    if scale not in ("norm", "lsq", "none"):
        raise ConfigError(f"unknown scale {scale!r} (known: norm, lsq, none)")
    mean_x = x.float().mean(0) if center else torch.zeros(x.shape[1])
    mean_y = y.float().mean(0) if center else torch.zeros(y.shape[1])
    xc, yc = x.double() - mean_x.double(), y.double() - mean_y.double()
    w = procrustes(xc, yc)
    s = 1.0
    if scale == "norm":
        s = float(yc.norm() / xc.norm().clamp_min(1e-12))
    elif scale == "lsq":
        s = float((xc @ w.double() * yc).sum() / (xc**2).sum().clamp_min(1e-12))
    return JointMap(mean_x, mean_y, w, s)


# --- the expander -------------------------------------------------------------------------------
def parse_method(method: str) -> list[str]:
    """``"char+mixture"`` -> ``["char", "mixture"]``; unknown names raise a one-line ConfigError."""
    parts = [p.strip() for p in method.split("+")]
    bad = [p for p in parts if p not in BASE_METHODS]
    if not parts or bad or len(set(parts)) != len(parts):
        raise ConfigError(
            f"unknown method {method!r}: use one of {', '.join(BASE_METHODS)} or a '+' combination such as char+mixture"
        )
    return parts


@dataclass
class ExpansionRows:
    """New rows for a list of words, and how each was made."""

    rows: torch.Tensor  # (n, d)
    method: str
    used: list[str]  # per word: the method actually used (a fallback for words without static vector)
    combos: list[tuple[list[int], list[float]] | None]  # per word: row = sum(w * E[ids]) when linear
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def fallbacks(self) -> list[int]:
        return [i for i, u in enumerate(self.used) if u != self.method]


class Expander:
    """Computes rows for new words in a teacher's embedding space with each expansion method.

    Args:
        teacher: the model to expand.
        vectors: static word vectors (needed by ``mixture`` and ``joint``).
        encoder: a charwise character encoder trained for this teacher (needed by ``char``; also
            the fallback for words without a static vector, else ``mean`` is).
        exclude_rows: vocabulary rows that must not serve as mixture words or joint-mapping
            pairs (the benchmark's held-out words, which pretend to be new).
        pool_size: the CSLS penalty ``r_S`` of a vocabulary word is its mean cosine to the 10
            nearest *out-of-vocabulary* static words, i.e. the domain new words come from; the
            pool is the first ``pool_size`` such words of the static file (GloVe and word2vec
            files are sorted by frequency, so these are the common ones).
        alignment_fraction: share of the shared words held out to measure the joint alignment
            accuracy (the final map is refitted on all of them).
        neighbours: ``k`` of CSLS's local scaling (10, as in Wang et al.).
        top: how many vocabulary words a mixture mixes (5, as in Wang et al.).
        seed: seeds the alignment hold-out.
    """

    def __init__(
        self,
        teacher: Teacher,
        *,
        vectors: StaticVectors | None = None,
        encoder: Any = None,
        exclude_rows: Iterable[int] = (),
        pool_size: int = 100_000,
        alignment_fraction: float = 0.1,
        neighbours: int = CSLS_NEIGHBOURS,
        top: int = MIXTURE_TOP,
        seed: int = 0,
    ) -> None:
        self.teacher = teacher
        self.vectors = vectors
        self.encoder = encoder
        self.exclude = set(int(i) for i in exclude_rows)
        self.pool_size = pool_size
        self.alignment_fraction = alignment_fraction
        self.neighbours = neighbours
        self.top = top
        self.seed = seed
        self._cache: dict[str, Any] = {}

    # --- shared words -----------------------------------------------------------------------
    def _static_vectors(self) -> StaticVectors:
        if self.vectors is None:
            raise ConfigError("mixture and joint mapping need static word vectors: pass vectors= to the Expander")
        return self.vectors

    def shared(self) -> tuple[torch.Tensor, torch.Tensor]:
        """``(rows, static_ids)``: whole-word vocabulary rows with a static vector (not excluded)."""
        if "shared" not in self._cache:
            vectors = self._static_vectors()
            t = self.teacher
            whole = (t.normal_mask & t.word_start_mask).nonzero().squeeze(1).tolist()
            rows, ids = [], []
            for r in whole:
                if r in self.exclude:
                    continue
                s = vectors.lookup(t.vocab.surfaces[r])
                if s is not None:
                    rows.append(r)
                    ids.append(s)
            if len(rows) < max(self.top, 2):
                raise InputError(
                    f"only {len(rows)} vocabulary words of teacher '{t.name}' have a static vector in "
                    f"{vectors.source}: are the vectors in the teacher's language?"
                )
            self._cache["shared"] = (torch.tensor(rows), torch.tensor(ids))
        return self._cache["shared"]

    def target_penalty(self) -> torch.Tensor:
        """CSLS ``r_S`` of every shared vocabulary word against the out-of-vocabulary static words."""
        if "penalty" not in self._cache:
            rows, ids = self.shared()
            vectors = self._static_vectors()
            in_vocab = torch.zeros(len(vectors), dtype=torch.bool)
            in_vocab[ids] = True
            pool = (~in_vocab).nonzero().squeeze(1)[: self.pool_size]
            if len(pool) == 0:  # every static word is in the vocabulary: the words themselves
                pool = ids
            self._cache["pool_size"] = len(pool)
            self._cache["penalty"] = mean_topk_cosine(vectors.matrix[ids], vectors.matrix[pool],
                                                      self.neighbours)
        return self._cache["penalty"]

    def joint_map(self) -> JointMap:
        """The joint map fitted on all shared words (after measuring the alignment accuracy)."""
        if "joint" not in self._cache:
            rows, ids = self.shared()
            x, y = self._static_vectors().matrix[ids], self.teacher.embeddings[rows]
            self._cache["alignment"] = self._alignment(x, y, rows)
            self._cache["joint"] = fit_joint(x, y)
        return self._cache["joint"]

    def _alignment(self, x: torch.Tensor, y: torch.Tensor, rows: torch.Tensor) -> dict[str, Any]:
        """prec@1 of a held-out tenth of the shared words: does its mapped static vector retrieve
        its own row (cosine, among all normal rows)?"""
        n = len(rows)
        n_test = int(round(n * self.alignment_fraction))
        if n_test < 1 or n - n_test < 2:
            return {"shared_words": n, "heldout": 0, "prec@1": None}
        order = list(range(n))
        random.Random(self.seed).shuffle(order)
        test, train = torch.tensor(order[:n_test]), torch.tensor(order[n_test:])
        jm = fit_joint(x[train], y[train])
        _, top = topk_rows(jm(x[test]), self.teacher.embeddings, 10, candidates=self.teacher.normal_mask)
        hit = top == rows[test][:, None]
        return {"shared_words": n, "heldout": n_test, "prec@1": float(hit[:, 0].float().mean()),
                "prec@10": float(hit.any(dim=1).float().mean()), "scale": jm.scale}

    # --- methods ----------------------------------------------------------------------------
    def _mean(self, words: list[str], pieces: list[list[int]] | None) -> tuple[torch.Tensor, list]:
        if pieces is None:
            pieces = self.teacher.piece_ids(words)
        rows = torch.empty(len(words), self.teacher.dim)
        combos = []
        for i, ids in enumerate(pieces):
            if not ids:
                raise InputError(f"the tokenizer maps {words[i]!r} to no piece at all")
            rows[i] = self.teacher.embeddings[torch.tensor(ids)].mean(0)
            combos.append((list(ids), [1.0 / len(ids)] * len(ids)))
        return rows, combos

    def _char(self, words: list[str]) -> torch.Tensor:
        if self.encoder is None:
            raise ConfigError(f"method 'char' needs a character encoder for teacher '{self.teacher.name}': "
                              "pass encoder= to the Expander, or use mean, mixture or joint")
        return self.encoder.embed(words).float().cpu()

    def _mixture(self, static_ids: torch.Tensor) -> tuple[torch.Tensor, list]:
        rows, ids = self.shared()
        matrix = self._static_vectors().matrix
        scores, top = csls_topk(matrix[static_ids], matrix[ids], self.top,
                                self.target_penalty(), self.neighbours)
        weights = mixture_weights(scores)
        chosen = rows[top]  # (n, top) vocabulary rows
        out = (weights[:, :, None] * self.teacher.embeddings[chosen]).sum(1)
        combos = [(c.tolist(), w.tolist()) for c, w in zip(chosen, weights)]
        return out, combos

    def _joint(self, static_ids: torch.Tensor) -> torch.Tensor:
        joint = self.joint_map()
        return joint(self._static_vectors().matrix[static_ids])

    def rows(self, words: list[str], method: str, pieces: list[list[int]] | None = None) -> ExpansionRows:
        """Rows for ``words`` (normalised surfaces) by ``method`` (one name or ``a+b``).

        ``pieces`` overrides the piece ids used by ``mean`` (the benchmark passes the pieces the
        tokenizer would produce without the held-out entries).
        """
        parts = parse_method(method)
        n = len(words)
        fallback = "char" if self.encoder is not None else "mean"
        static: list[int | None] = [None] * n
        missing: list[int] = []
        if any(p in STATIC_METHODS for p in parts):
            if self.vectors is None:
                raise ConfigError(f"method '{method}' needs static word vectors: pass vectors= to the Expander")
            static = self.vectors.rows(words)
            missing = [i for i, s in enumerate(static) if s is None]
        present = [i for i, s in enumerate(static) if s is not None]
        cache: dict[str, tuple[torch.Tensor, list]] = {}

        def base(name: str) -> tuple[torch.Tensor, list]:
            # Every base method is computed once for all words, then mixed per word.
            if name not in cache:
                if name == "mean":
                    cache[name] = self._mean(words, pieces)
                elif name == "char":
                    cache[name] = (self._char(words), [None] * n)
                else:
                    out = torch.zeros(n, self.teacher.dim)
                    combos: list = [None] * n
                    if present:
                        idx = torch.tensor([static[i] for i in present])
                        if name == "mixture":
                            rows, c = self._mixture(idx)
                            for j, i in enumerate(present):
                                combos[i] = c[j]
                        else:
                            rows = self._joint(idx)
                        out[torch.tensor(present)] = rows
                    cache[name] = (out, combos)
            return cache[name]

        results = [base(p) for p in parts]
        if len(parts) == 1:
            rows, combos = results[0]
            rows = rows.clone()
        else:
            # Average of unit directions, at the parts' mean length: each part counts equally
            # whatever its norm (a mixture of 5 rows is shorter than a single row).
            stack = torch.stack([r for r, _ in results])  # (parts, n, d)
            norms = stack.norm(dim=-1, keepdim=True).clamp_min(1e-12)
            rows = (stack / norms).mean(0)
            rows = F.normalize(rows, dim=-1) * norms.mean(0)
            combos = [None] * n
        used = [method] * n
        if missing:
            fb_rows, fb_combos = base(fallback)
            for i in missing:
                rows[i] = fb_rows[i]
                combos[i] = fb_combos[i]
                used[i] = fallback
        info: dict[str, Any] = {}
        if "mixture" in parts:
            info["mixture"] = {"candidates": len(self.shared()[0]), "top": self.top, "csls_neighbours": self.neighbours,
                               "penalty_pool": self._cache.get("pool_size")}
        if "joint" in parts:
            self.joint_map()
            info["joint"] = {"alignment": self._cache["alignment"], "scale": self._cache["joint"].scale}
        if missing:
            info["fallback"] = {"method": fallback, "count": len(missing),
                                "words": [words[i] for i in missing][:REPORT_EXAMPLES]}
        if not torch.isfinite(rows).all():
            raise InputError(f"method '{method}' produced non-finite rows (check the vectors and the encoder)")
        return ExpansionRows(rows=rows, method=method, used=used, combos=combos, info=info)


def default_encoder(teacher: Teacher, name_or_path: str | None) -> Any:
    """The character encoder for ``teacher``: ``name_or_path`` if given, else the shipped encoder of
    the same name (``minilm``, ``smollm2``), else None. Its vocabulary must match the teacher's."""
    from charwise.encoders.shipped import resolve_encoder

    return resolve_encoder(name_or_path, teacher, required=False)
