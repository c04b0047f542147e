"""Sentence retrieval as the benchmarks score it: the UD EWT test sentences (the usual corpus) and
the rank metrics of the right sentence among all of them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from charwise.io import data_root

if TYPE_CHECKING:  # only for annotations: the metrics use the tensors' own methods
    import torch

EWT_TEST = data_root() / "ud_en_ewt" / "en_ewt-ud-test.conllu"


def ewt_texts(path: Path, corrected: bool = False) -> list[str]:
    """The sentences of a CoNLL-U file as written (its ``# text`` lines); ``corrected``: each token the
    treebank marks as a typo put right (its ``CorrectForm``: UD EWT writes ``there`` for ``their``,
    ``it's`` for ``its`` as people did, and says so), so that a model learns from the text as meant."""
    texts: list[str] = []
    text, cursor, parts = "", 0, []
    covered = 0  # the last word of the multiword token being read (its words are in its surface form)
    for line in path.open(encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("# text = "):
            text, cursor, parts, covered = line[len("# text = "):], 0, [], 0
        elif not line and text:
            texts.append("".join(parts) + text[cursor:] if corrected else text)
            text = ""
        elif corrected and line and not line.startswith("#"):
            cols = line.split("\t")
            first, _, last = cols[0].partition("-")
            if "." in first or (not last and int(first) <= covered):
                continue  # an empty node, or a word inside a multiword token: read with that token
            covered = int(last) if last else covered
            at = text.find(cols[1], cursor)
            fix = next((f[len("CorrectForm="):] for f in cols[9].split("|") if f.startswith("CorrectForm=")), None)
            if at < 0:
                continue  # a form the text does not hold as such: the text as written
            parts.append(text[cursor:at] + (fix if fix and fix != "_" else cols[1]))
            cursor = at + len(cols[1])
    if text:
        texts.append("".join(parts) + text[cursor:] if corrected else text)
    return texts


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
