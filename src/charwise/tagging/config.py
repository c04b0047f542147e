"""A tagger's configuration and the names it accepts, in a module without torch.

:class:`TaggerConfig` holds everything that determines a tagger and its training run (saved with
the model, ``tagger.json``); :mod:`charwise.tagging.model` builds the tagger from it and the
command line (``charwise tag train``) takes its defaults and choices from here without importing
torch.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from charwise.errors import ConfigError
from charwise.presets import DEFAULT_POLICY, POOLINGS

HEADS = ("linear", "bilstm")
CHAR_FUSIONS = ("none", "concat", "merge")
#: How a word feature enters an S2W encoder (:class:`~charwise.tagging.s2w.S2WEncoder`): ``merge``
#: (added after the merge) or ``copy`` (added to every piece, Sennrich & Haddow).
FEATURE_MODES = ("merge", "copy")


@dataclass
class TaggerConfig:
    """Everything that determines a tagger and its training run (saved with the model)."""

    task: str = "wnut17"
    teacher: str = "minilm"
    policy: str = DEFAULT_POLICY  # words read as their correction when the speller is confident
    char_encoder: str | None = None  # encoder name or directory for hybrid policies (None: the shipped one)
    pool: str = "first"  # word pooling; with s2w_layers > 0, the merge inside the encoder
    head: str = "linear"
    # Every word's character vector as well as its pieces: "concat" at the head, "merge" after the S2W merge.
    char_fusion: str = "none"
    lstm_hidden: int = 128
    s2w_layers: int = 0  # > 0: merge pieces into words after this many layers (S2W)
    feature: str | None = None  # a corpus column used as a word feature (e.g. "lemma")
    feature_mode: str = "merge"  # "merge" (after the S2W merge) or "copy" (onto every piece)
    feature_min_count: int = 2
    dropout: float = 0.1
    epochs: int = 5
    batch_size: int = 16
    lr: float = 5e-5  # the pretrained model and the character encoder
    head_lr: float = 1e-3  # new parameters: pooling, merge, feature embedding, head
    encoder_lr: float | None = None  # the character encoder (None: lr); it may need to move faster than the model
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1
    grad_clip: float = 1.0
    patience: int = 2  # evaluations without dev improvement before stopping
    max_steps: int = 0  # > 0: stop after this many optimizer steps
    train_sentences: int = 0  # > 0: seeded subsample of the training sentences
    dev_sentences: int = 0  # > 0: a fixed subsample of dev (the same for every seed) for early stopping
    eval_batch_size: int = 64
    seed: int = 0
    data_dir: str | None = None  # None: the repository's data/

    def validate(self) -> None:
        """Raise ``ValueError`` on inconsistent settings (before any model is loaded)."""
        if self.pool not in POOLINGS:
            raise ConfigError(f"unknown pooling {self.pool!r} (known: {', '.join(POOLINGS)})")
        if self.head not in HEADS:
            raise ConfigError(f"unknown head {self.head!r} (known: {', '.join(HEADS)})")
        if self.feature_mode not in FEATURE_MODES:
            raise ConfigError(f"unknown feature mode {self.feature_mode!r} (known: {', '.join(FEATURE_MODES)})")
        if self.char_fusion not in CHAR_FUSIONS:
            raise ConfigError(f"unknown char fusion {self.char_fusion!r} (known: {', '.join(CHAR_FUSIONS)})")
        if self.char_fusion == "merge" and self.s2w_layers <= 0:
            raise ConfigError("char fusion 'merge' adds character vectors after the S2W merge: set s2w_layers > 0")
        if self.feature and self.feature_mode == "merge" and self.s2w_layers <= 0:
            raise ConfigError("feature mode 'merge' adds the feature after the S2W merge: set s2w_layers > 0")
        if self.s2w_layers < 0:
            raise ConfigError("s2w_layers must be >= 0")
        if self.batch_size < 1 or self.epochs < 1:
            raise ConfigError("batch_size and epochs must be >= 1")
        if not 0.0 <= self.warmup_ratio < 1.0:
            raise ConfigError("warmup_ratio must be in [0, 1)")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TaggerConfig":
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})
