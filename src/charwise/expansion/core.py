"""Vocabulary expansion: add whole-word tokens to a teacher's tokenizer, with good embedding rows.

Words to add come from a word list or from a corpus (:func:`select_words`,
:func:`select_from_corpus`). Each new word gets a row by one of four methods, or an average of
several (``char+joint``, the default of ``charwise expand``: the best prec@1 on both built-in
teachers in ``benchmarks/results/expansion.json``):

* ``mean``: the mean of the rows of the pieces the tokenizer splits the word into today (the
  usual baseline).
* ``char``: charwise's character encoder for the teacher (:func:`charwise.load`).
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
encoder fits the teacher) and are reported.

:func:`write_expanded_model` then writes a plain Hugging Face checkpoint: the tokenizer with the
new words as whole-word vocabulary entries in each family's own form (WordPiece: the normalised
word; byte-level BPE: the ``Ġword`` form, so that `` word`` inside a sentence is one token;
SentencePiece: ``▁word``), the input embeddings resized with the new rows (a tied output matrix
follows), written to a temporary directory next to the output and renamed into place.
"""

from __future__ import annotations

import copy
import json
import math
import os
import random
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import torch
import torch.nn.functional as F

from charwise.expansion.vectors import StaticVectors
from charwise.io import read_lines
from charwise.retrieval import topk_rows
from charwise.teachers import Teacher, _byte_decoder

BASE_METHODS = ("mean", "char", "mixture", "joint")
STATIC_METHODS = ("mixture", "joint")
CSLS_NEIGHBOURS = 10  # Wang et al.: "we set the number of nearest neighbors in CSLS to 10"
MIXTURE_TOP = 5  # "We select five v ... with the highest CSLS ... to form set T(w)"
REPORT_EXAMPLES = 50
REPORT_FILE = "charwise_expansion.json"


# --- which words, in which form --------------------------------------------------------------------
def _backend(teacher: Teacher) -> Any:
    backend = getattr(teacher.tokenizer, "backend_tokenizer", None)
    if backend is None:
        raise ValueError("vocabulary expansion needs a fast (Rust-backed) tokenizer")
    return backend


def _has_letter(text: str) -> bool:
    return any(c.isalpha() for c in text)


def _token_surface(teacher: Teacher, token: str) -> str | None:
    """The word a word-start pre-token stands for, or None if the pre-token does not start a word."""
    if teacher.family == "wordpiece":
        return token
    if teacher.family == "byte-bpe":
        decoder = _byte_decoder()
        try:
            text = bytes(decoder[c] for c in token).decode("utf-8")
        except (KeyError, UnicodeDecodeError):
            return None
        return text[1:] if text.startswith(" ") and len(text) > 1 else None
    return token[1:] if token.startswith("▁") and len(token) > 1 else None


def word_token(teacher: Teacher, word: str) -> tuple[str, str] | None:
    """``(surface, token)`` of ``word`` as a whole-word vocabulary entry of ``teacher``.

    The word is normalised as the tokenizer normalises text (BERT uncased: lower-cased, accents
    stripped) and must stay ONE pre-token (no spaces, no punctuation that the pre-tokenizer splits
    off), otherwise no vocabulary entry could ever match it and None is returned. ``token`` is the
    vocabulary string: the word itself (WordPiece), ``Ġword`` in byte-level characters (byte-level
    BPE), ``▁word`` (SentencePiece).
    """
    backend = _backend(teacher)
    word = word.strip()
    if not word or any(c.isspace() for c in word):
        return None
    norm = backend.normalizer.normalize_str(word) if backend.normalizer is not None else word
    # BertNormalizer puts spaces around CJK characters: such a "word" is several pre-tokens.
    if not norm or any(c.isspace() for c in norm):
        return None
    text = norm if teacher.family == "wordpiece" else " " + norm
    if backend.pre_tokenizer is None:
        pre = [(text.replace(" ", "▁") if teacher.family == "sentencepiece" else text, (0, len(text)))]
    else:
        pre = backend.pre_tokenizer.pre_tokenize_str(text)
    if len(pre) != 1:
        return None
    token = pre[0][0]
    surface = _token_surface(teacher, token)
    if surface is None:
        return None
    # WordPiece maps any longer word to [UNK] before looking at the vocabulary.
    limit = getattr(backend.model, "max_input_chars_per_word", None)
    if teacher.family == "wordpiece" and limit is not None and len(token) > limit:
        return None
    return surface, token


@dataclass
class Selection:
    """The words to add (normalised surfaces and vocabulary tokens) and what was skipped, and why."""

    words: list[str] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    counts: list[int] | None = None  # corpus occurrences, corpus mode only
    in_vocab: list[str] = field(default_factory=list)  # already one vocabulary token
    not_a_word: list[str] = field(default_factory=list)  # the pre-tokenizer splits it: no token can match
    duplicates: list[str] = field(default_factory=list)  # given again (after normalisation)
    empty_lines: int = 0
    below_min_count: int = 0
    no_letter: int = 0
    truncated: int = 0  # dropped by max_words (the least frequent)

    def summary(self) -> dict[str, Any]:
        """Counts plus up to 50 examples of each skipped kind (for the report)."""
        out: dict[str, Any] = {"selected": len(self.words)}
        for key in ("in_vocab", "not_a_word", "duplicates"):
            items = getattr(self, key)
            out[key] = {"count": len(items), "examples": items[:REPORT_EXAMPLES]}
        out["empty_lines"] = self.empty_lines
        if self.counts is not None:
            out["below_min_count"] = self.below_min_count
            out["no_letter"] = self.no_letter
            out["dropped_by_max_words"] = self.truncated
        return out


def select_words(teacher: Teacher, lines: Iterable[str]) -> Selection:
    """Words from a word list: empty lines ignored, duplicates removed, words already single
    vocabulary tokens and strings no token can match skipped; every skip is recorded."""
    vocab = teacher.tokenizer.get_vocab()
    sel = Selection()
    seen: set[str] = set()
    for line in lines:
        word = line.strip()
        if not word:
            sel.empty_lines += 1
            continue
        form = word_token(teacher, word)
        if form is None:
            sel.not_a_word.append(word)
        elif form[1] in vocab:
            sel.in_vocab.append(word)
        elif form[1] in seen:
            sel.duplicates.append(word)
        else:
            seen.add(form[1])
            sel.words.append(form[0])
            sel.tokens.append(form[1])
    return sel


def corpus_word_counts(teacher: Teacher, lines: Iterable[str]) -> Counter[str]:
    """Occurrences of each word-start pre-token (vocabulary form) in plain text, one sentence a line.

    The text goes through the tokenizer's own normaliser and pre-tokenizer, so words are counted
    exactly as the tokenizer will see them (lower-cased for uncased teachers, punctuation split
    off). Byte-level BPE and SentencePiece: only pre-tokens that start a word (``Ġ`` / ``▁``) count,
    since only those can become whole-word tokens (``smallbiz`` in ``#smallbiz`` is not one).
    """
    backend = _backend(teacher)
    counts: Counter[str] = Counter()
    for line in lines:
        if not line.strip():
            continue
        if teacher.family == "wordpiece":
            text = backend.normalizer.normalize_str(line) if backend.normalizer is not None else line
            pieces = backend.pre_tokenizer.pre_tokenize_str(text)
            counts.update(p for p, _ in pieces)
            continue
        # A space first: the line's first word appears as it would inside a sentence.
        text = " " + line.strip()
        if backend.normalizer is not None:
            text = backend.normalizer.normalize_str(text)
        pieces = backend.pre_tokenizer.pre_tokenize_str(text)
        marker = "Ġ" if teacher.family == "byte-bpe" else "▁"
        counts.update(p for p, _ in pieces if p.startswith(marker) and len(p) > 1)
    return counts


def read_corpus_lines(path: str | os.PathLike) -> list[str]:
    """Lines of a UTF-8 plain-text corpus file, or of every file in a directory (sorted by name,
    hidden files skipped), such as WNUT 2017's ``raw_text/``."""
    path = Path(path)
    if path.is_dir():
        files = sorted(f for f in path.iterdir() if f.is_file() and not f.name.startswith("."))
        if not files:
            raise FileNotFoundError(f"corpus directory {path} holds no files")
        return [line for f in files for line in read_lines(f)]
    return read_lines(path)


def select_from_corpus(teacher: Teacher, lines: Iterable[str], min_count: int, max_words: int = 0) -> Selection:
    """Words of a plain-text corpus that are not one vocabulary token (the tokenizer splits them
    into several pieces, or maps them to the unknown token), seen at least ``min_count`` times and
    containing a letter; most frequent first (ties alphabetical), at most ``max_words`` (0: all)."""
    if min_count < 1:
        raise ValueError(f"--min-count must be at least 1, got {min_count}")
    vocab = teacher.tokenizer.get_vocab()
    counts = corpus_word_counts(teacher, lines)
    sel = Selection(counts=[])
    chosen: list[tuple[int, str, str]] = []
    known: list[tuple[int, str]] = []
    for token, count in counts.items():
        surface = _token_surface(teacher, token)
        if surface is None:
            continue
        if not _has_letter(surface):  # numbers, punctuation: not words
            sel.no_letter += 1
        elif token in vocab:
            known.append((count, surface))
        elif count < min_count:
            sel.below_min_count += 1
        else:
            chosen.append((count, surface, token))
    chosen.sort(key=lambda c: (-c[0], c[1]))
    if max_words and len(chosen) > max_words:
        sel.truncated = len(chosen) - max_words
        chosen = chosen[:max_words]
    sel.in_vocab = [surface for _, surface in sorted(known, key=lambda c: (-c[0], c[1]))]
    for count, surface, token in chosen:
        sel.words.append(surface)
        sel.tokens.append(token)
        sel.counts.append(count)
    return sel


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
        raise ValueError(f"unknown scale {scale!r} (norm, lsq, none)")
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
    """``"char+mixture"`` -> ``["char", "mixture"]``; unknown names raise a one-line ValueError."""
    parts = [p.strip() for p in method.split("+")]
    bad = [p for p in parts if p not in BASE_METHODS]
    if not parts or bad or len(set(parts)) != len(parts):
        raise ValueError(
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
    def shared(self) -> tuple[torch.Tensor, torch.Tensor]:
        """``(rows, static_ids)``: whole-word vocabulary rows with a static vector (not excluded)."""
        if "shared" not in self._cache:
            if self.vectors is None:
                raise ValueError("mixture and joint mapping need static word vectors (--vectors)")
            t = self.teacher
            whole = (t.normal_mask & t.word_start_mask).nonzero().squeeze(1).tolist()
            rows, ids = [], []
            for r in whole:
                if r in self.exclude:
                    continue
                s = self.vectors.lookup(t.vocab.surfaces[r])
                if s is not None:
                    rows.append(r)
                    ids.append(s)
            if len(rows) < max(self.top, 2):
                raise ValueError(
                    f"only {len(rows)} vocabulary words of teacher '{t.name}' have a static vector in "
                    f"{self.vectors.source}: are the vectors in the teacher's language?"
                )
            self._cache["shared"] = (torch.tensor(rows), torch.tensor(ids))
        return self._cache["shared"]

    def target_penalty(self) -> torch.Tensor:
        """CSLS ``r_S`` of every shared vocabulary word against the out-of-vocabulary static words."""
        if "penalty" not in self._cache:
            rows, ids = self.shared()
            in_vocab = torch.zeros(len(self.vectors), dtype=torch.bool)
            in_vocab[ids] = True
            pool = (~in_vocab).nonzero().squeeze(1)[: self.pool_size]
            if len(pool) == 0:  # every static word is in the vocabulary: the words themselves
                pool = ids
            self._cache["pool_size"] = len(pool)
            self._cache["penalty"] = mean_topk_cosine(self.vectors.matrix[ids], self.vectors.matrix[pool],
                                                      self.neighbours)
        return self._cache["penalty"]

    def joint_map(self) -> JointMap:
        """The joint map fitted on all shared words (after measuring the alignment accuracy)."""
        if "joint" not in self._cache:
            rows, ids = self.shared()
            x, y = self.vectors.matrix[ids], self.teacher.embeddings[rows]
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
                raise ValueError(f"the tokenizer maps {words[i]!r} to no piece at all")
            rows[i] = self.teacher.embeddings[torch.tensor(ids)].mean(0)
            combos.append((list(ids), [1.0 / len(ids)] * len(ids)))
        return rows, combos

    def _char(self, words: list[str]) -> torch.Tensor:
        if self.encoder is None:
            raise ValueError(f"method 'char' needs a character encoder for teacher '{self.teacher.name}': "
                             "pass --encoder, or use mean, mixture or joint")
        return self.encoder.embed(words).float().cpu()

    def _mixture(self, static_ids: torch.Tensor) -> tuple[torch.Tensor, list]:
        rows, ids = self.shared()
        scores, top = csls_topk(self.vectors.matrix[static_ids], self.vectors.matrix[ids], self.top,
                                self.target_penalty(), self.neighbours)
        weights = mixture_weights(scores)
        chosen = rows[top]  # (n, top) vocabulary rows
        out = (weights[:, :, None] * self.teacher.embeddings[chosen]).sum(1)
        combos = [(c.tolist(), w.tolist()) for c, w in zip(chosen, weights)]
        return out, combos

    def _joint(self, static_ids: torch.Tensor) -> torch.Tensor:
        return self.joint_map()(self.vectors.matrix[static_ids])

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
                raise ValueError(f"method '{method}' needs static word vectors (--vectors)")
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
            raise ValueError(f"method '{method}' produced non-finite rows")
        return ExpansionRows(rows=rows, method=method, used=used, combos=combos, info=info)


def tokenizer_without(teacher: Teacher, rows: Iterable[int]) -> Any:
    """A copy of the teacher's backend tokenizer as if the vocabulary entries ``rows`` did not exist
    (ids of every other entry unchanged), to see how it would split words it has today.

    WordPiece: the entries are removed, so greedy longest-match-first falls back to shorter
    pieces. Byte-level BPE: the entries and every merge that creates or uses them are removed, which
    undoes the merge that created each entry (recursively when its parts are removed too).
    Unigram: ids are list positions, so the entries stay but with a score no path would choose.
    """
    from tokenizers import Tokenizer

    backend = _backend(teacher)
    spec = json.loads(backend.to_str())
    # Some tokenizer files pad or truncate every encoding (MiniLM's pads to 128): pieces only here.
    spec["padding"] = None
    spec["truncation"] = None
    model = spec["model"]
    drop = {teacher.vocab.tokens[int(r)] for r in rows}
    if model["type"] in ("WordPiece", "BPE"):
        for tok in drop:
            model["vocab"].pop(tok, None)
        if model["type"] == "BPE":
            kept = []
            for merge in model["merges"]:
                a, b = merge.split(" ", 1) if isinstance(merge, str) else merge
                if a in drop or b in drop or a + b in drop:
                    continue
                kept.append(merge)
            model["merges"] = kept
    elif model["type"] == "Unigram":
        for entry in model["vocab"]:
            if entry[0] in drop:
                entry[1] = -1e9
    else:
        raise ValueError(f"cannot remove entries from a {model['type']} tokenizer")
    return Tokenizer.from_str(json.dumps(spec))


def pieces_without(teacher: Teacher, rows: Iterable[int], words: list[str]) -> list[list[int]]:
    """Piece ids of ``words`` (as inside a sentence) under :func:`tokenizer_without`."""
    tok = tokenizer_without(teacher, rows)
    texts = words if teacher.family == "wordpiece" else [" " + w for w in words]
    return [enc.ids for enc in tok.encode_batch(texts, add_special_tokens=False)]


# --- writing the expanded model -------------------------------------------------------------------
def _unigram_score(model: dict, backend: Any, token: str) -> float:
    """A score that makes ``token`` the best segmentation of itself: its current best path's total
    log-probability + ln 2 (the whole word becomes twice as likely as its old segmentation), which
    changes no other word unless its best path contained exactly that old segmentation."""
    scores = model["vocab"]
    total = sum(scores[p.id][1] for p in backend.model.tokenize(token))
    # A log-probability is at most 0 (reached only by a word that is one unknown piece today).
    return min(total + math.log(2.0), 0.0)


def expanded_tokenizer_json(teacher: Teacher, tokens: list[str], first_id: int) -> tuple[dict, dict[str, Any]]:
    """The teacher's ``tokenizer.json`` with ``tokens`` added to the model's vocabulary at ids
    ``first_id, first_id + 1, ...`` as ordinary whole-word entries.

    * WordPiece: greedy longest-match-first picks the whole word before any shorter prefix.
    * byte-level BPE: merges cannot reach a new token without inventing intermediate tokens, so
      the model's ``ignore_merges`` is switched on (as in Llama 3's tokenizer): a pre-token that is
      itself in the vocabulary is used directly. Every existing token is reachable by its merges
      anyway (checked: the count of tokens this changes is reported), so old text tokenises as before.
    * SentencePiece (Unigram): the entry gets the score of :func:`_unigram_score`.
    """
    backend = _backend(teacher)
    spec = json.loads(backend.to_str())
    model = spec["model"]
    info: dict[str, Any] = {"model": model["type"]}
    if model["type"] in ("WordPiece", "BPE"):
        vocab = model["vocab"]
        before = list(vocab)
        taken = set(vocab.values())
        for i, tok in enumerate(tokens):
            if tok in vocab:
                raise ValueError(f"{tok!r} is already in the vocabulary")
            if first_id + i in taken:
                raise ValueError(f"id {first_id + i} is already used by the tokenizer")
            vocab[tok] = first_id + i
        if model["type"] == "BPE":
            if not model.get("ignore_merges"):
                # With ignore_merges a pre-token equal to a vocabulary entry becomes that entry; this
                # changes old text only for entries the merges could not reach: count them.
                # Added tokens (<|endoftext|>, ...) are split off before the model ever sees them.
                added = {a["content"] for a in spec.get("added_tokens", [])}
                unreachable = [t for t in before
                               if t not in added and [p.value for p in backend.model.tokenize(t)] != [t]]
                info["existing_tokens_changed_by_ignore_merges"] = len(unreachable)
            model["ignore_merges"] = True
    elif model["type"] == "Unigram":
        vocab_list = model["vocab"]
        if len(vocab_list) != first_id:
            raise ValueError(
                f"the Unigram vocabulary has {len(vocab_list)} entries but new ids start at {first_id}: "
                "the embedding table and the tokenizer disagree in size"
            )
        known = {piece for piece, _ in vocab_list}
        for tok in tokens:
            if tok in known:
                raise ValueError(f"{tok!r} is already in the vocabulary")
            vocab_list.append([tok, _unigram_score(model, backend, tok)])
            known.add(tok)
    else:
        raise ValueError(f"cannot add words to a {model['type']} tokenizer")
    return spec, info


def _full_model(teacher: Teacher) -> Any:
    """The teacher's complete HF model (with its heads), ready for ``save_pretrained``."""
    import transformers
    from transformers import AutoConfig, AutoModel, AutoModelForCausalLM

    source = Path(teacher.source) if teacher.source else None
    if source is None or not source.exists():
        raise ValueError(f"teacher '{teacher.name}' has no model files to expand (load it by name, directory or .gguf)")
    if source.is_file():  # GGUF: transformers dequantises it but marks the model as not serialisable
        gguf_model = teacher.model
        config = copy.deepcopy(gguf_model.config)
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
        model.load_state_dict(gguf_model.state_dict())
        model.tie_weights()
        return model.eval()
    config = AutoConfig.from_pretrained(source)
    arch = (getattr(config, "architectures", None) or [None])[0]
    # The class the checkpoint was saved from keeps its heads (AutoModel would drop an LM head).
    cls = getattr(transformers, arch, None) if arch else None
    return (cls or AutoModel).from_pretrained(source).eval()


def check_new_tokens(tokenizer: Any, family: str, words: list[str], ids: list[int]) -> None:
    """Each new word must be exactly its new id, alone (as inside a sentence) and in a sentence."""
    alone = words if family == "wordpiece" else [" " + w for w in words]
    inside = [f"the {w} is" for w in words]
    enc_alone = tokenizer(alone, add_special_tokens=False)["input_ids"]
    enc_inside = tokenizer(inside, add_special_tokens=False)["input_ids"]
    for w, i, a, s in zip(words, ids, enc_alone, enc_inside):
        if list(a) != [i] or list(s).count(i) != 1:
            raise ValueError(f"the expanded tokenizer does not read {w!r} as its new token {i} (got {list(a)})")


def write_expanded_model(
    teacher: Teacher,
    selection: Selection,
    rows: ExpansionRows,
    out: str | os.PathLike,
    *,
    force: bool = False,
    report: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Save the teacher with ``selection``'s words added (tokenizer + resized embeddings) to ``out``.

    Everything is written to a temporary directory next to ``out``, checked (each new word is one
    token, alone and inside a sentence), then renamed into place: ``out`` is never half-written.
    An existing non-empty ``out`` is refused unless ``force``. Returns the report (also saved as
    ``charwise_expansion.json`` in ``out``).
    """
    from transformers import AutoTokenizer

    from charwise.encoders.base import replace_directory

    out = Path(out)
    check_output_dir(out, force)
    n = len(selection.tokens)
    if n == 0:
        raise ValueError("no new words to add")
    if rows.rows.shape != (n, teacher.dim):
        raise ValueError(f"expected {n} x {teacher.dim} rows, got {tuple(rows.rows.shape)}")
    tok_size = max(teacher.tokenizer.get_vocab().values()) + 1
    if tok_size > teacher.vocab_size:
        raise ValueError(f"the tokenizer uses ids up to {tok_size - 1} but the embedding table has {teacher.vocab_size} rows")
    first_id = teacher.vocab_size
    new_ids = list(range(first_id, first_id + n))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        spec, tok_info = expanded_tokenizer_json(teacher, selection.tokens, first_id)
        teacher.tokenizer.save_pretrained(tmp)
        (tmp / "tokenizer.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
        tokenizer = AutoTokenizer.from_pretrained(tmp)
        check_new_tokens(tokenizer, teacher.family, selection.words, new_ids)

        model = _full_model(teacher)
        emb = model.get_input_embeddings()
        if tuple(emb.weight.shape) != (teacher.vocab_size, teacher.dim):
            raise ValueError(f"the model's input embeddings are {tuple(emb.weight.shape)}, the teacher's table "
                             f"{(teacher.vocab_size, teacher.dim)}")
        out_emb = model.get_output_embeddings()
        old_out = None
        if out_emb is not None and out_emb.weight is not emb.weight:
            old_out = out_emb.weight.detach().float().clone()
        model.resize_token_embeddings(first_id + n, mean_resizing=False)
        emb = model.get_input_embeddings()
        with torch.no_grad():
            emb.weight[first_id:] = rows.rows.to(emb.weight.dtype)
            out_emb = model.get_output_embeddings()
            tied = out_emb is None or out_emb.weight is emb.weight
            if not tied and old_out is not None:
                # An untied output matrix is another space: apply the same combination of existing
                # rows where the method is one (mean, mixture), else the mean of the word's pieces.
                piece_ids = teacher.piece_ids(selection.words)
                for j in range(n):
                    ids, w = rows.combos[j] or (piece_ids[j], [1.0 / len(piece_ids[j])] * len(piece_ids[j]))
                    out_emb.weight[first_id + j] = (torch.tensor(w)[:, None] * old_out[torch.tensor(ids)]).sum(0)
        model.save_pretrained(tmp)
        if not any(tmp.glob("*.safetensors")) or any(tmp.glob("*.bin")):
            raise ValueError("save_pretrained did not write safetensors weights")

        result = dict(report or {})
        result.update({
            "teacher": teacher.describe(),
            "method": rows.method,
            "added": n,
            "first_id": first_id,
            "vocab_size": first_id + n,
            "tied_output": tied,
            "tokenizer": tok_info,
            "selection": selection.summary(),
            **rows.info,
            "words": [
                {"word": w, "token": t, "id": i, "method": u,
                 **({"count": selection.counts[j]} if selection.counts is not None else {}),
                 **({"mixture": {"rows": [teacher.display(r) for r in rows.combos[j][0]],
                                 "weights": [round(x, 4) for x in rows.combos[j][1]]}}
                    if u == "mixture" else {})}
                for j, (w, t, i, u) in enumerate(zip(selection.words, selection.tokens, new_ids, rows.used))
            ],
        })
        (tmp / REPORT_FILE).write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
        replace_directory(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return result


def check_output_dir(out: Path, force: bool) -> None:
    """Refuse a file, or an existing non-empty directory unless ``force``."""
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"--out {out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise FileExistsError(f"--out {out} exists and is not empty (use --force to replace it)")


def default_encoder(teacher: Teacher, name_or_path: str | None) -> Any:
    """The character encoder for ``teacher``: ``name_or_path`` if given, else the shipped encoder of
    the same name (``minilm``, ``smollm2``), else None. Its vocabulary must match the teacher's."""
    from charwise.encoders.base import check_teacher
    from charwise.encoders.shipped import available, load

    if name_or_path is None:
        if teacher.name not in available():
            return None
        name_or_path = teacher.name
    encoder = load(name_or_path)
    check_teacher(encoder, teacher)
    encoder.attach_teacher(teacher)
    return encoder
