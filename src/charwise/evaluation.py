"""How well an encoder reproduces its teacher's table, and how well it resists typos.

Metrics (Char2Subword table 2 and section 4):

* ``accuracy``: the argmax of the tied logits ``ê Eᵀ`` (all V rows) is the word's own row.
* ``prec@k``: overlap between the k nearest rows (cosine, among the teacher's ``normal`` rows) of
  the true row ``e_i`` and of the prediction ``ê_i``; the true row is its own first neighbour.
* ``avg_prec``: mean of ``prec@k`` over k = 1..15.
* ``cosine``: mean cosine between ``ê_i`` and ``e_i``.
* ``noise``: per noise operation, top-1 / top-10 retrieval of the clean word's row from its noisy
  form among the teacher's whole-word rows.

``baseline`` gives the same figures for the mean of the teacher's own piece rows: the usual way
to get one vector for a word a subword model splits.
"""

from __future__ import annotations

import random
from typing import Any, Callable

import torch

from charwise.encoders.base import CharEncoder
from charwise.retrieval import topk_rows
from charwise.teachers import Teacher
from charwise.typos.single import OPERATIONS, NoiseConfig, NoiseNotApplicable, Noiser

MAX_K = 15


def piece_mean_vectors(teacher: Teacher, words: list[str]) -> torch.Tensor:
    """Mean of the teacher's rows for the pieces each word is split into (inside a sentence).

    A string the tokenizer maps to no piece at all (empty, whitespace) gets the zero vector.
    """
    E = teacher.embeddings
    out = torch.zeros((len(words), teacher.dim))
    if not words:
        return out
    for i, row in enumerate(teacher.piece_ids(words)):
        if row:
            out[i] = E[torch.tensor(row)].mean(dim=0)
    return out


def approximation_metrics(pred: torch.Tensor, ids: torch.Tensor, teacher: Teacher) -> dict[str, float]:
    """accuracy, prec@1/5/15, avg_prec and cosine of predictions ``pred`` for rows ``ids``."""
    if len(ids) == 0:
        return {}
    E = teacher.embeddings
    true = E[ids]
    _, argmax = topk_rows(pred, E, 1, cosine=False)
    _, nbr_true = topk_rows(true, E, MAX_K, candidates=teacher.normal_mask)
    _, nbr_pred = topk_rows(pred, E, MAX_K, candidates=teacher.normal_mask)
    same = nbr_true[:, :, None] == nbr_pred[:, None, :]  # (n, K, K)
    prec = {k: float(same[:, :k, :k].sum(dim=(1, 2)).float().mean() / k) for k in range(1, MAX_K + 1)}
    return {
        "n": int(len(ids)),
        "accuracy": float((argmax[:, 0] == ids).float().mean()),
        "prec@1": prec[1],
        "prec@5": prec[5],
        "prec@15": prec[15],
        "avg_prec": sum(prec.values()) / MAX_K,
        "cosine": float(torch.nn.functional.cosine_similarity(pred, true, dim=-1).mean()),
    }


def noisy_samples(
    teacher: Teacher, ids: torch.Tensor, noiser: Noiser, operation: str, n: int, seed: int
) -> tuple[list[str], torch.Tensor]:
    """Up to ``n`` (noisy string, clean id) pairs for one operation, deterministic given ``seed``."""
    rng = random.Random(f"{seed}-{operation}")
    pool = [int(i) for i in ids if noiser.eligible(teacher.vocab.surfaces[int(i)])]
    rng.shuffle(pool)
    words, clean = [], []
    for i in pool:
        try:
            words.append(noiser.apply(teacher.vocab.surfaces[i], operation, rng))
        except NoiseNotApplicable:
            continue
        clean.append(i)
        if len(words) == n:
            break
    return words, torch.tensor(clean, dtype=torch.long)


def retrieval_hits(pred: torch.Tensor, clean: torch.Tensor, teacher: Teacher) -> dict[str, float]:
    """top1 / top10 retrieval of ``clean`` rows among the teacher's whole-word rows."""
    if len(clean) == 0:
        return {"n": 0, "top1": float("nan"), "top10": float("nan")}
    _, ids = topk_rows(pred, teacher.embeddings, 10, candidates=teacher.normal_mask & teacher.word_start_mask)
    hit = ids == clean[:, None]
    return {
        "n": int(len(clean)),
        "top1": float(hit[:, 0].float().mean()),
        "top10": float(hit.any(dim=1).float().mean()),
    }


def noise_config_for(teacher: Teacher, layouts: tuple[str, ...] = ("us",)) -> NoiseConfig:
    """Noise that can change what the teacher sees: no case toggling for lower-casing teachers."""
    cased = not teacher.lowercase
    ops = tuple(op for op in OPERATIONS if cased or op != "toggle")
    return NoiseConfig(layouts=layouts, operations=ops, cased=cased)


def sample_rows(ids: torch.Tensor, max_words: int, seed: int = 0) -> torch.Tensor:
    """At most ``max_words`` of the rows ``ids`` (0: all), drawn with ``seed`` and kept in order: a
    report on a sample of the held-in words."""
    if not max_words or len(ids) <= max_words:
        return ids
    g = torch.Generator().manual_seed(seed)
    return ids[torch.randperm(len(ids), generator=g)[:max_words]].sort().values


def evaluate(
    encoder: CharEncoder | None,
    teacher: Teacher,
    heldin: torch.Tensor,
    heldout: torch.Tensor,
    *,
    noise_words: int = 1000,
    seed: int = 1234,
    baseline: bool = True,
    progress: Callable[[int, int], Any] | None = None,
) -> dict[str, Any]:
    """Full report: ``heldin``, ``heldout``, ``noise``, ``noise_heldout`` and ``baseline``.

    ``encoder=None`` evaluates only the baseline. An encoder with a manifold projection
    (:mod:`charwise.encoders.manifold`) is evaluated as ``embed`` returns its vectors (projected),
    and once more without the projection under ``raw``. ``progress(n, total)`` is told of each
    ``n`` words scored, of the ``total`` the whole report scores.
    """
    noiser = Noiser(noise_config_for(teacher))
    surfaces = teacher.vocab.surfaces
    # The noisy samples are the same in every pass (seeded): drawn once, they also give the total.
    samples = {(name, op): noisy_samples(teacher, ids, noiser, op, noise_words, seed)
               for name, ids in (("noise", heldin), ("noise_heldout", heldout)) for op in noiser.config.operations}
    passes = int(baseline) + (0 if encoder is None else 2 if encoder.manifold is not None else 1)
    total = passes * (len(heldin) + len(heldout) + sum(len(words) for words, _ in samples.values()))

    def scored(n: int) -> None:
        if progress is not None:
            progress(n, total)

    def vectors(words: list[str], use_encoder: bool, manifold: bool | None) -> torch.Tensor:
        if use_encoder:
            assert encoder is not None, "report(True) runs only with an encoder"
            return encoder.embed(words, manifold=manifold).cpu()
        return piece_mean_vectors(teacher, words)

    def report(use_encoder: bool, manifold: bool | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, ids in (("heldin", heldin), ("heldout", heldout)):
            words = [surfaces[i] for i in ids.tolist()]
            out[name] = approximation_metrics(vectors(words, use_encoder, manifold), ids, teacher)
            scored(len(words))
        for name in ("noise", "noise_heldout"):
            per_op = {}
            for op in noiser.config.operations:
                words, clean = samples[name, op]
                per_op[op] = retrieval_hits(vectors(words, use_encoder, manifold), clean, teacher)
                scored(len(words))
            valid = [v for v in per_op.values() if v["n"]]
            per_op["mean"] = {
                "top1": sum(v["top1"] for v in valid) / max(1, len(valid)),
                "top10": sum(v["top10"] for v in valid) / max(1, len(valid)),
            }
            out[name] = per_op
        return out

    result: dict[str, Any] = {}
    if encoder is not None:
        result.update(report(True))
        if encoder.manifold is not None:
            result["manifold"] = encoder.manifold.to_dict()
            result["raw"] = report(True, manifold=False)
    if baseline:
        result["baseline"] = report(False)
    result["teacher"] = teacher.describe()
    result["noise_operations"] = list(noiser.config.operations)
    return result


def format_report(result: dict[str, Any]) -> str:
    """Plain-text table of a report from :func:`evaluate`."""
    lines = []
    cols = ["accuracy", "prec@1", "prec@5", "prec@15", "avg_prec", "cosine"]
    lines.append(f"{'':24s}" + "".join(f"{c:>10s}" for c in cols))
    blocks = (("charwise", result), ("charwise raw", result.get("raw", {})), ("baseline", result.get("baseline", {})))
    for who, block in blocks:
        for split in ("heldin", "heldout"):
            if split in block and block[split]:
                row = block[split]
                lines.append(f"{who + ' ' + split:24s}" + "".join(f"{100 * row[c]:10.1f}" for c in cols))
    lines.append("(baseline: mean of the teacher's own piece rows; percentages)")
    if "raw" in result:
        lines.append("(charwise: projected onto the table's manifold; raw: the character vector itself)")
    lines.append("")
    ops = result.get("noise_operations", [])
    lines.append(f"{'noise: clean word top1/top10':32s}" + "".join(f"{op:>14s}" for op in ops + ["mean"]))
    for who, block in blocks:
        for split in ("noise", "noise_heldout"):
            if split in block:
                cells = "".join(
                    f"{100 * block[split][op]['top1']:6.1f}/{100 * block[split][op]['top10']:5.1f}  "
                    for op in ops + ["mean"]
                )
                label = {"noise": "held-in", "noise_heldout": "held-out"}[split]
                lines.append(f"{who + ' ' + label:32s}{cells}")
    return "\n".join(lines)
