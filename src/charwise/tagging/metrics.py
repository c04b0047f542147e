"""Tagging metrics: entity-level F1 with seqeval's (conlleval's) conventions, and word accuracy
split by how the teacher tokenises a word and whether it was seen in training.

Entity chunks follow seqeval's default (non-strict) mode, which is conlleval's: an ``I-`` tag
after ``O`` or after a tag of another type starts a new entity (so ``I-`` without ``B-`` still
counts), a type change ends one, an entity can end at the end of a sentence, and IOBES prefixes
(``E-``, ``S-``) are understood. A prediction counts only if its type, start and end all match.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Sequence

__all__ = ["accuracy_report", "entity_f1", "get_entities"]


def _split_tag(tag: str) -> tuple[str, str]:
    """``("B", "person")`` for ``B-person``; anything that is not a prefixed tag is ``O``."""
    if len(tag) >= 2 and tag[0] in "BIES" and tag[1] in "-_":
        return tag[0], tag[2:] or "_"
    if tag in ("B", "I", "E", "S"):
        return tag, "_"
    return "O", ""


def _end_of_chunk(prev_tag: str, tag: str, prev_type: str, type_: str) -> bool:
    if prev_tag in ("E", "S"):
        return True
    if prev_tag in ("B", "I") and tag in ("B", "S", "O"):
        return True
    return prev_tag != "O" and prev_type != type_


def _start_of_chunk(prev_tag: str, tag: str, prev_type: str, type_: str) -> bool:
    if tag in ("B", "S"):
        return True
    if prev_tag in ("E", "S", "O") and tag in ("E", "I"):
        return True
    return tag != "O" and prev_type != type_


def get_entities(tags: Sequence[str]) -> list[tuple[str, int, int]]:
    """Entities of one tag sequence as ``(type, first, last)`` (inclusive word indices)."""
    entities = []
    prev_tag, prev_type, begin = "O", "", 0
    for i, raw in enumerate(list(tags) + ["O"]):  # the sentinel closes an entity at the end
        tag, type_ = _split_tag(raw)
        if _end_of_chunk(prev_tag, tag, prev_type, type_):
            entities.append((prev_type, begin, i - 1))
        if _start_of_chunk(prev_tag, tag, prev_type, type_):
            begin = i
        prev_tag, prev_type = tag, type_
    return entities


def _prf(tp: int, n_pred: int, n_gold: int) -> dict[str, float]:
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f, "support": n_gold}


def entity_f1(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]],
              keep: Callable[[int, int, int], bool] | None = None) -> dict[str, object]:
    """Micro-averaged entity precision / recall / F1 over sentences, plus one entry per type.

    Sentences are scored separately (an entity never spans two sentences), as seqeval does when
    it joins sentences with an ``O`` between them. ``keep(sentence, first, last)`` restricts the
    score to the gold and predicted entities over the spans it accepts (e.g. entities containing a
    word the tokenizer splits); a span is kept or dropped on both sides alike.
    """
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold sentences but {len(pred)} predicted ones")
    gold_set: set[tuple[int, str, int, int]] = set()
    pred_set: set[tuple[int, str, int, int]] = set()
    for s, (g, p) in enumerate(zip(gold, pred)):
        if len(g) != len(p):
            raise ValueError(f"sentence {s}: {len(g)} gold tags but {len(p)} predicted ones")
        gold_set.update((s, *e) for e in get_entities(g) if keep is None or keep(s, e[1], e[2]))
        pred_set.update((s, *e) for e in get_entities(p) if keep is None or keep(s, e[1], e[2]))
    tp = gold_set & pred_set
    result: dict[str, object] = {**_prf(len(tp), len(pred_set), len(gold_set))}
    n_gold, n_pred, n_tp = Counter(e[1] for e in gold_set), Counter(e[1] for e in pred_set), Counter(e[1] for e in tp)
    result["per_type"] = {t: _prf(n_tp[t], n_pred[t], n_gold[t]) for t in sorted(set(n_gold) | set(n_pred))}
    return result


def accuracy_report(
    gold: Sequence[Sequence[str]],
    pred: Sequence[Sequence[str]],
    single: Sequence[Sequence[bool]] | None = None,
    unseen: Sequence[Sequence[bool]] | None = None,
) -> dict[str, float | int]:
    """Word accuracy, and accuracy on the words flagged ``single`` (one vocabulary token under the
    base tokenizer), not ``single`` (``multi``: more pieces) and ``unseen`` (not in training).

    Each split reports its accuracy (``acc_single``, ...) and its word count (``n_single``, ...);
    an empty split has accuracy 0.0 and count 0.
    """
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold sentences but {len(pred)} predicted ones")
    totals: Counter[str] = Counter()
    correct: Counter[str] = Counter()
    for s, (g, p) in enumerate(zip(gold, pred)):
        if len(g) != len(p):
            raise ValueError(f"sentence {s}: {len(g)} gold tags but {len(p)} predicted ones")
        for i, (a, b) in enumerate(zip(g, p)):
            keys = ["all"]
            if single is not None:
                keys.append("single" if single[s][i] else "multi")
            if unseen is not None and unseen[s][i]:
                keys.append("unseen")
            for k in keys:
                totals[k] += 1
                correct[k] += int(a == b)
    out: dict[str, float | int] = {"accuracy": correct["all"] / totals["all"] if totals["all"] else 0.0,
                                   "n_words": totals["all"]}
    splits = ([("single", single), ("multi", single)] if single is not None else []) + (
        [("unseen", unseen)] if unseen is not None else [])
    for key, _ in splits:
        out[f"acc_{key}"] = correct[key] / totals[key] if totals[key] else 0.0
        out[f"n_{key}"] = totals[key]
    return out
