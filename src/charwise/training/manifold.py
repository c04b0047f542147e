"""Choosing an encoder's manifold projection on validation words.

The projection (:mod:`charwise.encoders.manifold`) has five settings: ``k``, ``temperature``,
``metric`` and the gate's ``gate_shift`` / ``gate_scale``. They are picked by grid search on
validation strings made only from held-in rows the encoder was trained on (the held-out words,
real misspelling lists and benchmark sentences are never seen):

* ``words`` seeded held-in whole words, each once as written and twice misspelled (once by a
  single keyboard-style typo, :class:`~charwise.typos.single.Noiser`, once by one to three
  realistic spelling errors, :class:`~charwise.typos.realistic.RealisticNoiser`), so that the
  search sees strings whose nearest row is wrong as well as ones whose nearest row is right;
* the objective is the mean **margin** of the intended row: the cosine between the vector and the
  intended row minus the largest cosine between the vector and any other candidate row (among the
  raw vector's 20 nearest, which contain every row the mixture is made of). The plain mean cosine
  to the intended row is reported too, but it is the wrong thing to maximise: it rewards pulling
  every vector onto its nearest row, and a vector pulled onto the wrong word (a quarter of real
  misspellings) misleads the model that reads it more than the raw vector does. With the MiniLM
  encoder, the cosine-optimal projection (a gate always open) lowered real-misspelling sentence
  retrieval below the raw vectors, while a half-open gate raised it;
* the raw vectors are computed once, and every setting is scored on them.

``gate_max`` is not searched (it is 0.5 unless given): on these word-level objectives a fully open
gate always wins, and downstream it does not (see :mod:`charwise.encoders.manifold`).

The projection is kept only if it beats the raw vectors on the margin ("on by default if it wins");
:func:`tune_manifold` returns the settings (or None) and a report of the search.
"""

from __future__ import annotations

import itertools
import os
import random
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F

from charwise.encoders.base import CharEncoder
from charwise.encoders.manifold import METRICS, ManifoldConfig, gate, mixture
from charwise.evaluation import noise_config_for
from charwise.teachers import Teacher
from charwise.training.targets import TargetSplit
from charwise.typos.realistic import MisspellConfig, RealisticNoiser, languages_of
from charwise.typos.single import NoiseNotApplicable, Noiser

KS = (2, 5, 10, 20)
TEMPERATURES = (0.005, 0.01, 0.02, 0.05, 0.1)
GATE_SCALES = (0.0, 10.0, 30.0, 100.0, 300.0, 1000.0)
GATE_SHIFTS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2)


@dataclass
class ValidationStrings:
    """Strings and the row each stands for; ``kind`` is ``clean``, ``typo`` or ``misspelled``."""

    texts: list[str]
    rows: torch.Tensor
    kinds: list[str]


def validation_strings(teacher: Teacher, split: TargetSplit, words: int = 2000, seed: int = 0,
                       language: str = "en") -> ValidationStrings:
    """Seeded held-in whole words, clean and misspelled (see the module docstring)."""
    rng = random.Random(f"{seed}-manifold")
    heldin = split.heldin_words.tolist()
    sample = sorted(rng.sample(heldin, min(words, len(heldin))))
    typo = Noiser(noise_config_for(teacher))
    spellers = [RealisticNoiser(MisspellConfig(language=lang, cased=not teacher.lowercase))
                for lang in languages_of(language)]  # "en+es": each word misspelled by one of them
    texts, rows, kinds = [], [], []
    for row in sample:
        word = teacher.vocab.surfaces[row]
        texts.append(word)
        rows.append(row)
        kinds.append("clean")
        spelling = spellers[0] if len(spellers) == 1 else rng.choice(spellers)
        for kind, noiser in (("typo", typo), ("misspelled", spelling)):
            if not noiser.eligible(word):
                continue
            try:
                texts.append(noiser.corrupt(word, rng)[0])
            except NoiseNotApplicable:
                continue
            rows.append(row)
            kinds.append(kind)
    return ValidationStrings(texts, torch.tensor(rows, dtype=torch.long), kinds)


def tune_manifold(encoder: CharEncoder, teacher: Teacher, split: TargetSplit, *, words: int = 2000, seed: int = 0,
                  language: str = "en", gate_max: float = 0.5) -> tuple[ManifoldConfig | None, dict[str, Any]]:
    """Grid-search the projection's settings on validation strings (module docstring).

    Returns ``(settings or None, report)``: None when no setting beats the raw vectors. The
    report gives the objective (the mean margin of the intended row) and the mean cosine to the
    intended row, raw and projected, overall and per kind of string, and the chosen settings.
    """
    encoder.attach_teacher(teacher)
    strings = validation_strings(teacher, split, words, seed, language)
    index = encoder.row_index(pieces=False)
    with torch.inference_mode():
        raw = encoder.embed(strings.texts, manifold=False)
        target = teacher.embeddings[strings.rows].float().to(raw.device)
        # both metrics' neighbours once; the rows to beat are the raw vector's nearest candidates
        # (cosine), less the intended row itself
        neighbours = {metric: index.neighbours(raw, max(KS), metric) for metric in METRICS}
        near = neighbours["cosine"][1]
        others = index.unit[near]  # (n, K, d)
        is_target = index.ids[near] == strings.rows.to(raw.device)[:, None]

        def scores_of(vectors: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            """Per string: (margin of the intended row, cosine to it)."""
            unit = F.normalize(vectors, dim=-1)
            cos = F.cosine_similarity(vectors, target, dim=-1)
            rival = torch.einsum("nd,nkd->nk", unit, others).masked_fill(is_target, -2.0).max(dim=1).values
            return cos - rival, cos

        raw_margin, raw_cos = scores_of(raw)
        best: tuple[float, ManifoldConfig | None, torch.Tensor, torch.Tensor] = (
            float(raw_margin.mean()), None, raw_margin, raw_cos)
        for metric in METRICS:
            scores, positions = neighbours[metric]
            for k, temperature in itertools.product(KS, TEMPERATURES):
                mixed = mixture(scores, positions, index, ManifoldConfig(k=k, temperature=temperature))
                for scale, shift in itertools.product(GATE_SCALES, GATE_SHIFTS):
                    if scale == 0 and shift != GATE_SHIFTS[0]:
                        continue  # a constant gate does not depend on the shift
                    config = ManifoldConfig(k=k, temperature=temperature, gate_shift=shift, gate_scale=scale,
                                            gate_max=gate_max, metric=metric)
                    g = gate(scores, config)
                    margin, cos = scores_of(g * mixed + (1 - g) * raw)
                    if float(margin.mean()) > best[0]:
                        best = (float(margin.mean()), config, margin, cos)
    _, chosen, chosen_margin, chosen_cos = best

    def by_kind(cos: torch.Tensor) -> dict[str, float]:
        out = {"all": float(cos.mean())}
        for kind in ("clean", "typo", "misspelled"):
            mask = torch.tensor([k == kind for k in strings.kinds])
            if mask.any():
                out[kind] = float(cos[mask.to(cos.device)].mean())
        return out

    report = {
        "strings": len(strings.texts), "words": int(strings.rows.unique().numel()), "seed": seed,
        "objective": "mean margin: cosine to the intended row minus the best cosine to another row",
        "raw": {"margin": by_kind(raw_margin), "cosine": by_kind(raw_cos)},
        "projected": {"margin": by_kind(chosen_margin), "cosine": by_kind(chosen_cos)},
        "settings": chosen.to_dict() if chosen is not None else None,
    }
    return chosen, report


def save_with_manifold(encoder: CharEncoder, teacher: Teacher, split: TargetSplit, out: str | os.PathLike, *,
                       words: int = 2000, seed: int = 0, language: str = "en", gate_max: float = 0.5) -> dict[str, Any]:
    """Tune ``encoder``'s projection (:func:`tune_manifold`), set it (or leave it off when it does not
    win) and save the encoder to ``out``; the search's report goes into its training record under
    ``"manifold"`` and is returned."""
    settings, report = tune_manifold(encoder, teacher, split, words=words, seed=seed, language=language,
                                     gate_max=gate_max)
    encoder.set_manifold(settings)
    encoder.save_pretrained(out, {**encoder.training_info, "manifold": report})
    return report


def format_tuning(report: dict[str, Any]) -> str:
    """Three lines: the chosen settings, then the validation margin and cosine, raw -> projected."""
    settings = report["settings"]
    chosen = ("off (no setting beats the raw vectors)" if settings is None
              else " ".join(f"{k}={v}" for k, v in settings.items()))
    lines = [f"manifold projection: {chosen} ({report['strings']} validation strings)"]
    for measure in ("margin", "cosine"):
        raw, projected = report["raw"][measure], report["projected"][measure]
        cells = ", ".join(f"{k} {raw[k]:.3f} -> {projected[k]:.3f}" for k in raw)
        lines.append(f"  {measure} of the intended row: {cells}")
    return "\n".join(lines)
