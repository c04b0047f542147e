"""Scoring a tagger: entity F1 (NER) or accuracy (POS), split by single-piece / multi-piece /
unseen words, on clean or noisy (synthetic typos) sentences."""

from __future__ import annotations

from typing import Any, Sequence

from charwise.corpora import TaggedSentence
from charwise.errors import InputError
from charwise.tagging.metrics import accuracy_report, entity_f1
from charwise.tagging.model import Tagger


# --- data helpers --------------------------------------------------------------------------------
def noisy_sentences(sentences: Sequence[TaggedSentence], rate: float, seed: int, teacher: Any
                    ) -> tuple[list[TaggedSentence], float]:
    """The sentences with synthetic typos in a share ``rate`` of the eligible words (labels and
    feature columns kept), and the share of all words actually changed."""
    from charwise.evaluation import noise_config_for
    from charwise.typos.single import add_typos

    if rate <= 0:
        return list(sentences), 0.0
    config = noise_config_for(teacher)
    out, changed, total = [], 0, 0
    for i, s in enumerate(sentences):
        words, mask = add_typos(s.words, rate, seed * 1_000_003 + i, config)
        out.append(TaggedSentence(words, list(s.tags), {k: list(v) for k, v in s.columns.items()}))
        changed += sum(mask)
        total += len(words)
    return out, (changed / total if total else 0.0)


def single_piece_flags(teacher: Any, sentences: Sequence[Sequence[str]]) -> list[list[bool]]:
    """True for words the base tokenizer keeps as one normal vocabulary token (in context)."""
    types = sorted({w for s in sentences for w in s})
    ids = teacher.piece_ids(types) if types else []
    kinds = teacher.vocab.kinds
    single = {w: len(p) == 1 and kinds[p[0]] == "normal" for w, p in zip(types, ids)}
    return [[single[w] for w in s] for s in sentences]


def feature_columns(sentences: Sequence[TaggedSentence], column: str | None) -> list[list[str]] | None:
    if not column:
        return None
    out = []
    for s in sentences:
        if column not in s.columns:
            raise InputError(f"the data has no {column!r} column (columns: {', '.join(s.columns) or 'none'})")
        out.append(s.columns[column])
    return out


def evaluate_tagger(tagger: Tagger, sentences: Sequence[TaggedSentence], *, metric: str = "accuracy",
                    train_words: set[str] | None = None, noise: float = 0.0, seed: int = 0) -> dict[str, Any]:
    """Score ``tagger`` on ``sentences`` (after typos at word rate ``noise``).

    Returns ``score`` (entity F1 for ``metric="entity_f1"``, else accuracy), the metric's details,
    and the word-accuracy splits ``acc_single`` / ``acc_multi`` / ``acc_unseen``; for entity F1
    also ``f1_multi`` / ``f1_single``: F1 over the entities that contain a word the base tokenizer
    splits into several pieces, and over the others.
    """
    data, changed = noisy_sentences(sentences, noise, seed, tagger.teacher)
    words = [s.words for s in data]
    gold = [s.tags for s in data]
    pred = tagger.predict(words, feature_columns(data, tagger.config.feature), batch_size=tagger.config.eval_batch_size)
    single = single_piece_flags(tagger.teacher, words)
    unseen = [[w not in train_words for w in s] for s in words] if train_words is not None else None
    result: dict[str, Any] = {"sentences": len(data), "noise": noise, "changed_words": changed}
    result.update(accuracy_report(gold, pred, single, unseen))
    if metric == "entity_f1":
        f1 = entity_f1(gold, pred)
        result.update({"score": f1["f1"], "precision": f1["precision"], "recall": f1["recall"],
                       "per_type": f1["per_type"]})
        # Entities with a word the base tokenizer splits (or maps to [UNK]) vs the other entities.
        for name, wanted in (("multi", False), ("single", True)):
            def keep(s: int, a: int, b: int, wanted: bool = wanted) -> bool:
                return all(single[s][a : b + 1]) == wanted

            part = entity_f1(gold, pred, keep=keep)
            result[f"f1_{name}"], result[f"n_entities_{name}"] = part["f1"], part["support"]
    else:
        result["score"] = result["accuracy"]
    return result


