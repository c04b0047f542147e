"""Scoring a translation model: BLEU and chrF (sacrebleu, signatures kept), copying of names and
numbers, speed, the length of the upper encoder layers' input, and the same with source typos.

*Copy accuracy*: a source word is a copy candidate when it holds a digit, or starts with a capital
letter and is not the verse's first word, and appears as a word of the reference; it is copied
when it appears as a word of the hypothesis. It measures the names (Abraham, Jerusalem, Israel)
and numbers the decoder must carry over unchanged.

*Typos*: each source word of at least 5 characters gets, with probability ``typo_rate``, one to
three realistic Spanish spelling errors (:class:`charwise.typos.realistic.RealisticNoiser` with
the Spanish rules: b/v, ll/y, c/s/z, the silent h, dropped accents, g/j, rr/r, plus keyboard and
syllable edits), seeded per sentence.
"""

from __future__ import annotations

import random
import time
from typing import Any, Sequence

from charwise.errors import ConfigError
from charwise.presets import TRANSLATION_BEAM, TRANSLATION_LENGTH_PENALTY
from charwise.translation.data import Pair, source_words
from charwise.translation.model import TranslationModel
from charwise.translation.search import translate_sentences
from charwise.words import split_words

__all__ = ["copy_accuracy", "copy_candidates", "evaluate_split", "evaluate_translation", "noisy_sources", "score"]


def noisy_sources(sources: Sequence[str], rate: float, seed: int = 0) -> tuple[list[str], float]:
    """The sentences' words with realistic Spanish typos (rejoined by spaces), and the share of
    words changed."""
    from charwise.typos.realistic import MisspellConfig, RealisticNoiser
    from charwise.typos.single import NoiseNotApplicable

    if not 0 <= rate <= 1:
        raise ConfigError(f"typo rate must be in [0, 1], got {rate}")
    noiser = RealisticNoiser(MisspellConfig(language="es"))
    out, changed, total = [], 0, 0
    for i, text in enumerate(sources):
        rng = random.Random(seed * 1_000_003 + i)
        words = source_words(text)
        for k, w in enumerate(words):
            if any(c.isalpha() for c in w) and noiser.eligible(w) and rng.random() < rate:
                try:
                    words[k] = noiser.corrupt(w, rng)[0]
                    changed += 1
                except NoiseNotApplicable:
                    pass
        total += len(words)
        out.append(" ".join(words))
    return out, changed / max(1, total)


def copy_candidates(source: str, reference: str) -> list[str]:
    """Source words (after the first) that hold a digit or start with a capital and that the
    reference contains as words."""
    ref = set(split_words(reference).words)
    words = source_words(source)
    return [w for k, w in enumerate(words)
            if w in ref and (any(c.isdigit() for c in w) or (k > 0 and w[:1].isupper() and w[:1].isalpha()))]


def copy_accuracy(sources: Sequence[str], references: Sequence[str], hypotheses: Sequence[str]) -> dict[str, float]:
    hits = total = 0
    for s, r, h in zip(sources, references, hypotheses):
        hyp = set(split_words(h).words)
        for w in copy_candidates(s, r):
            total += 1
            hits += w in hyp
    return {"copy_accuracy": 100.0 * hits / total if total else float("nan"), "copy_candidates": total}


def score(hypotheses: Sequence[str], references: Sequence[str]) -> dict[str, Any]:
    """Corpus BLEU and chrF with sacrebleu's defaults (13a tokenisation, case-sensitive)."""
    import sacrebleu

    bleu = sacrebleu.metrics.BLEU()
    chrf = sacrebleu.metrics.CHRF()
    b = bleu.corpus_score(list(hypotheses), [list(references)])
    c = chrf.corpus_score(list(hypotheses), [list(references)])
    return {"bleu": round(b.score, 2), "chrf": round(c.score, 2), "bleu_signature": str(bleu.get_signature()),
            "chrf_signature": str(chrf.get_signature())}


def evaluate_translation(model: TranslationModel, pairs: Sequence[Pair], *, beam: int = TRANSLATION_BEAM,
                         length_penalty: float = TRANSLATION_LENGTH_PENALTY, typo_rate: float = 0.0, seed: int = 0,
                         batch_size: int = 32, progress: bool | str = False) -> dict[str, Any]:
    """Translate ``pairs``' sources (with typos when ``typo_rate`` > 0) and score them."""
    if not pairs:
        raise ConfigError("nothing to evaluate: no sentence pairs")
    clean = [p.source for p in pairs]
    sources, changed = noisy_sources(clean, typo_rate, seed) if typo_rate > 0 else (clean, 0.0)
    references = [p.target for p in pairs]
    start = time.perf_counter()
    hypotheses = translate_sentences(model, sources, beam=beam, length_penalty=length_penalty,
                                     batch_size=batch_size, progress=progress)
    seconds = time.perf_counter() - start
    src = model.source_subwords
    assert src is not None
    words = [source_words(s) for s in sources]
    pieces = sum(len(src.encode_words(w)[0]) for w in words)
    upper = sum(len(w) for w in words) if model.config.architecture != "transformer" else pieces
    return {**score(hypotheses, references), **copy_accuracy(clean, references, hypotheses),
            "sentences": len(pairs), "beam": beam, "typo_rate": typo_rate, "words_changed": round(changed, 4),
            "sentences_per_s": round(len(pairs) / seconds, 2),
            "source_pieces_per_sentence": round(pieces / len(pairs), 2),
            "upper_encoder_positions_per_sentence": round(upper / len(pairs), 2), "hypotheses": hypotheses}


def evaluate_split(model: TranslationModel, split: str = "test", limit: int = 0, **kwargs: Any) -> dict[str, Any]:
    """Score a model on the ``test`` or ``dev`` split of the data it was trained on (rebuilt from
    the configuration in its ``training.json``), ``limit`` > 0: the first sentences only; keyword
    arguments as :func:`evaluate_translation`."""
    from charwise.training.translation import TranslateConfig
    from charwise.translation.data import read_pairs, split_pairs

    if "config" not in model.training_info:
        raise ConfigError("this model has no training record (training.json); evaluate it on your own pairs "
                          "with charwise.translation.evaluate.evaluate_translation")
    config = TranslateConfig(**model.training_info["config"])
    pairs = split_pairs(read_pairs(config.corpus or None), config.split, dev=config.dev, test=config.test,
                        seed=config.split_seed)[split]
    report = evaluate_translation(model, pairs[:limit] if limit else pairs, **kwargs)
    return {"architecture": model.config.architecture, "feature_mode": model.config.feature_mode,
            "char_vectors": model.config.char_vectors, "parameters": model.num_parameters(), "split": config.split,
            "evaluated_on": split, "step": model.training_info.get("step"), **report}
