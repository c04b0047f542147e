"""The scorer's arithmetic, torch-free: :func:`rank_scores`, :func:`judge_probabilities` and
:class:`ScorerArrays`, a saved scorer read straight into numpy.

:class:`~charwise.speller.scorer.SpellScorer` is the scorer as a Hugging Face model (fitted,
saved, loaded with strict checks, Auto-registered); it imports torch and transformers, which costs
three seconds and 350 MB before ``charwise correct`` answers a single word. The speller only ever
needs the fitted arrays and the two formulas below, so :meth:`Speller.load
<charwise.speller.Speller.load>` reads the same directory (``config.json`` +
``model.safetensors``) with :class:`ScorerArrays`, with the same checks: the model type, the
settings, every array's name and shape, finite values.

Example::

    scorer = ScorerArrays.from_pretrained("src/charwise/pretrained/speller-minilm-en")
    scores = scorer.rank(batch.rows)              # (n,): every candidate of a featurized batch
    p = scorer.judge(word_rows)                    # (m,) probabilities
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np

from charwise.errors import CheckpointError, ConfigError
from charwise.speller.context import CONTEXT_FEATURES
from charwise.speller.features import CONTEXT_WORD_FEATURES, RANK_FEATURES, WORD_FEATURES
from charwise.speller.settings import check_threshold

MODEL_TYPE = "charwise-speller"
CONFIG_FILE, WEIGHTS_FILE = "config.json", "model.safetensors"


def rank_scores(parts: Mapping[str, Any], rows: np.ndarray) -> np.ndarray:
    """The ranker: candidate scores ``(n,)`` of feature rows ``(n, len(RANK_FEATURES))`` from the
    parameters ``rank_mean``, ``rank_scale``, ``rank_weight``, ``rank_bias`` (and, for the
    perceptron, ``rank_hidden_weight`` and ``rank_hidden_bias``)."""
    z = (rows - parts["rank_mean"]) / parts["rank_scale"]
    if "rank_hidden_weight" in parts:
        z = np.tanh(z @ parts["rank_hidden_weight"].T + parts["rank_hidden_bias"])
    return z @ parts["rank_weight"] + parts["rank_bias"]


def judge_probabilities(parts: Mapping[str, Any], rows: np.ndarray) -> np.ndarray:
    """The judge: probabilities ``(m,)`` of word rows ``(m, len(WORD_FEATURES))`` from the
    parameters ``word_mean``, ``word_scale``, ``word_weight``, ``word_bias``."""
    logits = ((rows - parts["word_mean"]) / parts["word_scale"]) @ parts["word_weight"] + parts["word_bias"]
    return 1.0 / (1.0 + np.exp(-np.clip(logits, -30, 30)))


def check_settings(threshold: Any, rank_hidden: Any, alone_threshold: Any = None) -> tuple[float, int, float | None]:
    """``(threshold, rank_hidden, alone_threshold)`` if they are a probability, an integer >= 0 and a
    probability or None, else a one-line :class:`ConfigError`."""
    if threshold is None:
        raise ConfigError("threshold must be a probability in [0, 1], got None")
    # the one check of a probability threshold; ``threshold`` is not None here, so a float comes back
    checked = cast(float, check_threshold(threshold))
    alone = check_threshold(alone_threshold, "alone_threshold")
    if isinstance(rank_hidden, bool) or not isinstance(rank_hidden, int) or rank_hidden < 0:
        raise ConfigError(f"rank_hidden must be an integer >= 0, got {rank_hidden!r}")
    return checked, rank_hidden, alone


def check_scorer_language(scorer: Any, language: str) -> None:
    """A one-line :class:`ConfigError` unless ``scorer`` (a fitted scorer or its arrays) was trained
    for ``language``'s words."""
    if scorer.config.language != language:
        raise ConfigError(f"the scorer was trained for {scorer.config.language!r} words, the lexicon is "
                          f"{language!r}: use the scorer of the lexicon's language")


@dataclass(frozen=True)
class FeatureColumns:
    """Where a scorer's features sit among the featurizer's columns (the featurizer computes every
    feature; a scorer reads the ones it was fitted on, by name), and whether it reads context."""

    rank: np.ndarray  # int64 positions in RANK_FEATURES
    word: np.ndarray  # int64 positions in WORD_FEATURES
    reads_context: bool

    @classmethod
    def of(cls, rank_features: list[str], word_features: list[str]) -> "FeatureColumns":
        unknown = [f for f in rank_features if f not in RANK_FEATURES]
        unknown += [f for f in word_features if f not in WORD_FEATURES]
        if unknown:
            raise ConfigError(f"this scorer was trained on features this charwise does not compute "
                              f"({', '.join(unknown)}): retrain it with `charwise speller train`")
        return cls(np.array([RANK_FEATURES.index(f) for f in rank_features], dtype=np.int64),
                   np.array([WORD_FEATURES.index(f) for f in word_features], dtype=np.int64),
                   bool(set(rank_features) & set(CONTEXT_FEATURES) or set(word_features) & set(CONTEXT_WORD_FEATURES)))


def part_shapes(rank: int, word: int, hidden: int) -> dict[str, tuple[int, ...]]:
    """Every parameter of a scorer reading ``rank`` candidate and ``word`` word features, by name."""
    shapes: dict[str, tuple[int, ...]] = {"rank_mean": (rank,), "rank_scale": (rank,)}
    if hidden:
        shapes.update(rank_hidden_weight=(hidden, rank), rank_hidden_bias=(hidden,))
    shapes.update(rank_weight=(hidden or rank,), rank_bias=(), word_mean=(word,), word_scale=(word,),
                  word_weight=(word,), word_bias=())
    return shapes


@dataclass
class ScorerSettings:
    """A saved scorer's ``config.json``: the features it reads, its language and encoder, its tuned threshold."""

    rank_features: list[str] = field(default_factory=lambda: list(RANK_FEATURES))
    word_features: list[str] = field(default_factory=lambda: list(WORD_FEATURES))
    language: str = "en"
    encoder: str = "minilm"
    threshold: float = 0.5  # a fallback: every fitted scorer writes its own (charwise speller train: 0.75)
    rank_hidden: int = 0
    alone_threshold: float | None = None  # a text that is one word alone; None: ``threshold``
    # the fitted decision for capitalised sentence starts and words in capitals
    # (charwise.speller.capital_decision); None: the scorer's rule
    capital_decision: dict | None = None


class ScorerArrays:
    """A fitted scorer's ranker and judge as float64 numpy arrays (see the module docstring); the
    same ``rank``, ``judge``, ``reads_context`` and ``config`` as :class:`~charwise.speller.scorer.SpellScorer`."""

    def __init__(self, config: ScorerSettings, parts: Mapping[str, np.ndarray]) -> None:
        config.threshold, config.rank_hidden, config.alone_threshold = check_settings(
            config.threshold, config.rank_hidden, config.alone_threshold)
        self.config = config
        self.columns = FeatureColumns.of(config.rank_features, config.word_features)
        self.reads_context = self.columns.reads_context
        shapes = part_shapes(len(config.rank_features), len(config.word_features), config.rank_hidden)
        wrong = sorted(set(shapes) ^ set(parts)) + [
            f"{name} {tuple(np.shape(parts[name]))} != {shape}" for name, shape in shapes.items()
            if name in parts and tuple(np.shape(parts[name])) != shape]
        if wrong:
            raise ConfigError(f"the scorer's parameters do not fit its config: {', '.join(wrong)}")
        self.parts = {name: np.asarray(value, dtype=np.float64) for name, value in parts.items()}
        if not all(np.isfinite(v).all() for v in self.parts.values()):
            raise ConfigError("the scorer holds non-finite parameters")

    @classmethod
    def from_pretrained(cls, directory: str | os.PathLike) -> "ScorerArrays":
        """Read a scorer directory saved by :meth:`SpellScorer.save_pretrained
        <charwise.speller.scorer.SpellScorer.save_pretrained>`; anything else raises a one-line
        :class:`CheckpointError`."""
        from safetensors import SafetensorError
        from safetensors.numpy import load_file

        path = Path(directory)
        hint = "train one with `charwise speller train`"
        try:
            meta = json.loads((path / CONFIG_FILE).read_text(encoding="utf-8"))
            parts = load_file(str(path / WEIGHTS_FILE)) if isinstance(meta, dict) else {}
        except (OSError, ValueError, SafetensorError):
            meta = None
        if not isinstance(meta, dict) or meta.get("model_type") != MODEL_TYPE:
            raise CheckpointError(f"'{path}' is not a charwise speller scorer (need {CONFIG_FILE} with model_type "
                                  f"'{MODEL_TYPE}' and {WEIGHTS_FILE}); {hint}")
        names = set(ScorerSettings.__dataclass_fields__)
        try:
            return cls(ScorerSettings(**{k: v for k, v in meta.items() if k in names}), parts)
        except (TypeError, ValueError) as e:  # ConfigError is a ValueError
            raise CheckpointError(f"'{path}': bad charwise speller scorer: {e}") from None

    def weights_version(self) -> int:
        """Always 0: these arrays are never changed in place (a new scorer is a new object)."""
        return 0

    def rank(self, rows: np.ndarray) -> np.ndarray:
        """Candidate scores ``(n,)`` for candidate features ``(n, len(RANK_FEATURES))`` (:func:`rank_scores`)."""
        return rank_scores(self.parts, rows[:, self.columns.rank])

    def judge(self, rows: np.ndarray) -> np.ndarray:
        """Probabilities ``(m,)`` that each word is a misspelling of its best candidate
        (:func:`judge_probabilities`)."""
        return judge_probabilities(self.parts, rows[:, self.columns.word])
