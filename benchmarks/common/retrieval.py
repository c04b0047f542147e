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
    ``it's`` for ``its`` as people did, and says so), so that a model learns from the text as meant. A
    multiword token is put right from its words (``Whats`` = ``What`` + ``s``, whose ``CorrectForm`` is
    ``'s``: ``What's``; ``dont`` -> ``don't``, ``your`` = ``you`` + ``r`` -> ``you're``)."""
    texts: list[str] = []
    text, cursor, parts = "", 0, []
    token: tuple[str, int] | None = None  # the multiword token being read: its surface form and last word
    words: list[tuple[str, str | None]] = []  # its words read so far, each with its correction

    def place(form: str, replacement: str) -> None:
        nonlocal cursor
        at = text.find(form, cursor)
        if at >= 0:  # else a form the text does not hold as such: the text as written
            parts.append(text[cursor:at] + replacement)
            cursor = at + len(form)

    for line in path.open(encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("# text = "):
            text, cursor, parts, token = line[len("# text = "):], 0, [], None
        elif not line and text:
            texts.append("".join(parts) + text[cursor:] if corrected else text)
            text = ""
        elif corrected and line and not line.startswith("#"):
            cols = line.split("\t")
            first, _, last = cols[0].partition("-")
            if "." in first:
                continue  # an empty node
            fix = next((f[len("CorrectForm="):] for f in cols[9].split("|") if f.startswith("CorrectForm=")), None)
            fix = None if fix == "_" else fix
            if last:
                token, words = (cols[1], int(last)), []
                continue
            if token is None or int(first) > token[1]:
                place(cols[1], fix or cols[1])
                continue
            words.append((cols[1], fix))
            if int(first) == token[1]:  # the token's last word: its surface, put right where a word is
                written = "".join(form for form, _ in words)
                marked = any(f for _, f in words) and written.lower() == token[0].lower()
                place(token[0], "".join(f or form for form, f in words) if marked else token[0])
                token = None
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
