"""The speller's learned scorer: :class:`SpellScorer` (``model_type = "charwise-speller"``).

Two small models over standardised features (:mod:`charwise.speller.features`):

* the **ranker** scores each candidate of a written word: a logistic regression
  (``rank_weight . z(x) + rank_bias``) or, with ``rank_hidden > 0``, a one-layer perceptron
  (``rank_weight . tanh(W z(x) + b) + rank_bias``);
  a word's candidates are ranked by it, and its softmax over them gives each one's share;
* the **judge**, a logistic regression, reads the word's features (the best candidate's score, its margin, the written
  word's frequency...) and gives the calibrated probability that the written word is a
  misspelling of the best candidate, against "a valid word the lexicon lacks" (a name, a new word)
  or "a misspelling whose best candidate is wrong".

Both are fitted by scikit-learn (:mod:`charwise.training.scorer`) and stored as a Hugging Face model
directory (``config.json`` + ``model.safetensors``) so that loading checks names and shapes strictly
and no pickle is ever read. Their arithmetic is written once, :func:`~charwise.speller.scoring.rank_scores`
and :func:`~charwise.speller.scoring.judge_probabilities` over a mapping of parameter arrays
(:mod:`charwise.speller.scoring`, which also reads a saved scorer into numpy without torch, what
:meth:`Speller.load <charwise.speller.Speller.load>` does): the scorer calls them (and its torch
``forward`` calls the ranker's), and training calls them on the arrays it has just fitted. Scoring
runs in numpy, on float64 copies of the parameters that are derived from them, never set apart: the
copies are remade whenever a parameter changes (in place, by ``load_state_dict`` or
:meth:`SpellScorer.set_parts`, or replaced), which :meth:`SpellScorer.weights_version` tells callers
that cache scores.

Example::

    scorer = SpellScorer.from_pretrained("src/charwise/pretrained/speller-minilm-en")
    scores = scorer.rank(batch.rows)              # (n,): every candidate of a featurized batch
    p = scorer.judge(word_rows)                    # (m,) probabilities
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from transformers import AutoConfig, AutoModel, PretrainedConfig, PreTrainedModel

from charwise.errors import CheckpointError, ConfigError
from charwise.model_files import load_model_directory, save_model_directory
from charwise.speller.features import RANK_FEATURES, WORD_FEATURES
from charwise.speller.scoring import (  # noqa: F401 - rank_scores, judge_probabilities: re-exported
    MODEL_TYPE,
    FeatureColumns,
    check_settings,
    judge_probabilities,
    part_shapes,
    rank_scores,
)


class SpellScorerConfig(PretrainedConfig):
    """Which features the scorer reads (their names, in order), for which language and encoder, and
    the probability above which a correction is made by default (tuned on dev text)."""

    model_type = MODEL_TYPE

    def __init__(self, rank_features: list[str] | None = None, word_features: list[str] | None = None,
                 language: str = "en", encoder: str = "minilm", threshold: float = 0.5, rank_hidden: int = 0,
                 alone_threshold: float | None = None, capital_decision: dict | None = None,
                 **kwargs: Any) -> None:
        self.rank_features = list(rank_features if rank_features is not None else RANK_FEATURES)
        self.word_features = list(word_features if word_features is not None else WORD_FEATURES)
        self.language = language
        self.encoder = encoder
        self.threshold = threshold
        self.rank_hidden = rank_hidden  # 0: a linear ranker; else one tanh layer of this width
        # a text that is one word alone (a word list, a lookup) is changed at this probability;
        # None: at ``threshold`` (no sentence says whether such a word is a name or a misspelling)
        self.alone_threshold = alone_threshold
        # how a capitalised sentence start or a word in capitals is decided with this scorer's
        # probabilities, fitted on development text (charwise.speller.capital_decision); None: the scorer's rule
        self.capital_decision = capital_decision
        super().__init__(**kwargs)

    def check(self) -> None:
        """Raise a one-line ConfigError unless a scorer can be built from this config (called by the
        model, not here: transformers builds configs with no arguments)."""
        self.threshold, self.rank_hidden, self.alone_threshold = check_settings(
            self.threshold, self.rank_hidden, self.alone_threshold)


class SpellScorer(PreTrainedModel):
    """The ranker and the judge (see the module docstring)."""

    config_class = SpellScorerConfig
    main_input_name = "features"

    def __init__(self, config: SpellScorerConfig) -> None:
        config.check()
        super().__init__(config)
        columns = FeatureColumns.of(config.rank_features, config.word_features)
        self.rank_columns, self.word_columns = columns.rank, columns.word
        #: whether the scorer reads context evidence (:mod:`charwise.speller.context`): a caller
        #: gives it each word's neighbours only then
        self.reads_context = columns.reads_context
        for name, shape in part_shapes(len(self.rank_columns), len(self.word_columns), config.rank_hidden).items():
            start = torch.ones(shape) if name.endswith("_scale") else torch.zeros(shape)
            setattr(self, name, nn.Parameter(start, requires_grad=False))
        self.training_info: dict[str, Any] = {}
        # The parameters are the one source of truth; scoring reads float64 numpy copies of them,
        # remade whenever the parameters' state (_weights_state) is not the one they were made from.
        self._numpy: dict[str, np.ndarray] = {}
        self._numpy_state: tuple[Any, ...] | None = None
        self._weights_counter = 0

    def _init_weights(self, module: nn.Module) -> None:
        pass  # fitted by scikit-learn, never initialised at random

    def _weights_state(self) -> tuple[Any, ...]:
        """What the parameters hold, cheaply: each one's storage and in-place version counter
        (bumped by every in-place change: ``load_state_dict``, ``copy_``, optimisers), or its
        bytes where torch keeps no counter (parameters made under ``torch.inference_mode``)."""
        try:  # the common case, a few microseconds: scoring is a hot path
            return tuple((p.data_ptr(), p._version) for p in self._parameters.values() if p is not None)
        except RuntimeError:  # "Inference tensors do not track version counter"
            return tuple((p.data_ptr(), p._version if not p.is_inference() else p.detach().cpu().numpy().tobytes())
                         for p in self._parameters.values() if p is not None)

    def _arrays(self) -> dict[str, np.ndarray]:
        state = self._weights_state()
        if state != self._numpy_state:
            self._numpy = {k: v.detach().cpu().double().numpy() for k, v in self.state_dict().items()}
            self._numpy_state = state
            self._weights_counter += 1
        return self._numpy

    def weights_version(self) -> int:
        """A number that changes whenever the weights do (scores cached under it stay valid while
        it stays the same)."""
        self._arrays()
        return self._weights_counter

    def set_parts(self, parts: dict[str, Any]) -> None:
        """Set the weights from fitted arrays (``rank_mean``, ..., ``word_bias``)."""
        state = self.state_dict()
        for name, value in parts.items():
            tensor = torch.as_tensor(np.asarray(value, dtype=np.float32))
            if name not in state or tuple(tensor.shape) != tuple(state[name].shape):
                raise ConfigError(f"scorer part {name!r} has shape {tuple(tensor.shape)}, expected "
                                  f"{tuple(state[name].shape) if name in state else 'no such part'}")
            state[name] = tensor
        self.load_state_dict(state)

    def rank(self, rows: np.ndarray) -> np.ndarray:
        """Candidate scores ``(n,)`` for candidate features ``(n, len(RANK_FEATURES))``: the
        columns of :attr:`config.rank_features <SpellScorerConfig>` (:func:`rank_scores`)."""
        return rank_scores(self._arrays(), rows[:, self.rank_columns])

    def judge(self, rows: np.ndarray) -> np.ndarray:
        """Probabilities ``(m,)`` that each word is a misspelling of its best candidate, from word
        rows ``(m, len(WORD_FEATURES))`` (:func:`judge_probabilities`)."""
        return judge_probabilities(self._arrays(), rows[:, self.word_columns])

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """Candidate scores of a ``(n, len(RANK_FEATURES))`` tensor (the ranker, for HF pipelines):
        :meth:`rank` on its values, in its dtype and on its device."""
        scores = self.rank(features.detach().cpu().double().numpy())
        return torch.from_numpy(scores).to(device=features.device, dtype=features.dtype)

    # --- persistence ----------------------------------------------------------------------------
    def save_pretrained(  # type: ignore[override]
        self, directory: str | os.PathLike, training_info: dict[str, Any] | None = None, **kwargs: Any
    ) -> Path:
        """Write ``config.json``, ``model.safetensors`` and ``training.json`` atomically."""
        return save_model_directory(self, directory, self.training_info if training_info is None else training_info)

    @classmethod
    def from_pretrained(cls, directory: str | os.PathLike, **kwargs: Any) -> "SpellScorer":  # type: ignore[override]
        """Load a scorer saved by :meth:`save_pretrained`, strictly (names, shapes, finite values)."""
        try:
            return load_model_directory(cls, directory, "charwise speller scorer",
                                        "train one with `charwise speller train`")
        except ConfigError as e:
            raise CheckpointError(f"'{directory}': {e}") from None


AutoConfig.register(MODEL_TYPE, SpellScorerConfig, exist_ok=True)
AutoModel.register(SpellScorerConfig, SpellScorer, exist_ok=True)
