"""Sentence retrieval as the benchmarks score it: the UD EWT test sentences (the usual corpus) and
the rank metrics of the right sentence among all of them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from charwise.io import data_root

if TYPE_CHECKING:  # only for annotations: the metrics use the tensors' own methods
    import torch

EWT_TEST = data_root() / "ud_en_ewt" / "en_ewt-ud-test.conllu"


def ewt_texts(path: Path) -> list[str]:
    """The sentences of a CoNLL-U file as written (its ``# text`` lines)."""
    return [line[len("# text = "):].rstrip("\n") for line in path.open(encoding="utf-8")
            if line.startswith("# text = ")]


def rank_metrics(queries: torch.Tensor, corpus: torch.Tensor, gold: list[set[int]]) -> dict[str, float]:
    """MRR and recall@1 (x 100) of each query's best gold row of ``corpus`` (dot product; any gold
    row counts, so identical duplicate sentences are all hits)."""
    scores = queries @ corpus.T
    rr, hits = [], 0
    for q, targets in enumerate(gold):
        best = max(float(scores[q, t]) for t in targets)
        rank = int((scores[q] > best).sum()) + 1
        rr.append(1.0 / rank)
        hits += rank == 1
    return {"mrr": 100 * sum(rr) / len(rr), "recall@1": 100 * hits / len(gold)}
