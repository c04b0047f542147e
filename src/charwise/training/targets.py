"""Approximation targets: which teacher rows an encoder learns, and which whole words it never sees.

Every ``normal`` row of the teacher is a target (specials, byte pieces, unused and
whitespace-only rows are not). 5 % of the whole-word targets are held out for evaluation,
stratified by frequency rank so that held-out words span frequent and rare words alike: words are
ranked by their ``wordfreq`` frequency in the teacher's language (ties and unknown words by
vocabulary id), cut into bins of 20 words, and one word in 20 is drawn from each bin.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import torch

from charwise.errors import ConfigError
from charwise.teachers import Teacher


@dataclass
class TargetSplit:
    """Row ids of the teacher table used for training and for held-out evaluation."""

    train: torch.Tensor  # every target row except the held-out ones (whole words and pieces)
    heldin_words: torch.Tensor  # whole-word rows among ``train``
    heldout_words: torch.Tensor  # whole-word rows never seen in training

    def to_dict(self) -> dict[str, list[int]]:
        return {"heldout_words": self.heldout_words.tolist()}


def split_for_encoder(teacher: Teacher, training_info: dict | None) -> TargetSplit:
    """The split an encoder was trained with, or the default split.

    ``training_info`` is the encoder's training record (``encoder.training_info``: its
    ``training.json``, or the ``"training"`` entry of a charwise 0.1 config); its
    ``heldout_words`` are the teacher rows that training never saw.
    """
    training_info = training_info or {}
    if "heldout_words" not in training_info:
        return split_targets(teacher)
    held = set(training_info["heldout_words"])
    normal = teacher.normal_mask.nonzero().squeeze(1).tolist()
    words = (teacher.normal_mask & teacher.word_start_mask).nonzero().squeeze(1).tolist()
    as_tensor = lambda xs: torch.tensor(sorted(xs), dtype=torch.long)  # noqa: E731
    return TargetSplit(as_tensor([i for i in normal if i not in held]), as_tensor([i for i in words if i not in held]),
                       as_tensor(held))


def frequency_rank(surfaces: list[str], lang: str = "en") -> list[float]:
    """wordfreq frequencies (0 for unknown words, or all zeros when wordfreq is missing)."""
    try:
        from wordfreq import word_frequency
    except ImportError:  # pragma: no cover - wordfreq is a dependency
        return [0.0] * len(surfaces)
    return [word_frequency(s, lang) for s in surfaces]


def split_targets(teacher: Teacher, heldout_fraction: float = 0.05, seed: int = 0, lang: str = "en") -> TargetSplit:
    """Stratified held-out split of the teacher's whole-word rows (deterministic given ``seed``)."""
    if not 0 <= heldout_fraction < 1:
        raise ConfigError("heldout_fraction must be in [0, 1)")
    normal = teacher.normal_mask
    words = (normal & teacher.word_start_mask).nonzero().squeeze(1).tolist()
    freqs = frequency_rank([teacher.vocab.surfaces[i] for i in words], lang)
    ranked = [w for _, w in sorted(zip(freqs, words), key=lambda fw: (-fw[0], fw[1]))]
    rng = random.Random(seed)
    heldout: list[int] = []
    if heldout_fraction > 0:
        bin_size = max(1, round(1 / heldout_fraction))
        for start in range(0, len(ranked), bin_size):
            chunk = ranked[start : start + bin_size]
            if len(chunk) == bin_size or rng.random() < len(chunk) / bin_size:
                heldout.append(rng.choice(chunk))
    held = set(heldout)
    train = [i for i in normal.nonzero().squeeze(1).tolist() if i not in held]
    heldin = [i for i in words if i not in held]
    as_tensor = lambda xs: torch.tensor(sorted(xs), dtype=torch.long)  # noqa: E731
    return TargetSplit(as_tensor(train), as_tensor(heldin), as_tensor(heldout))
