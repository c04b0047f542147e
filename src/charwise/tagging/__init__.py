"""Word-level tagging (NER, POS) on a hybrid model: task data, S2W merge, metrics, model, training.

The names below are loaded on first use, so that the torch-free parts (:mod:`charwise.tagging.data`,
:mod:`charwise.tagging.config`) can be imported without torch (the command line builds its parser
from them).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from charwise.tagging.config import TaggerConfig
    from charwise.tagging.evaluate import evaluate_tagger, noisy_sentences
    from charwise.tagging.model import Tagger, load_tagger
    from charwise.tagging.train import train_tagger

_LAZY = {
    "Tagger": "charwise.tagging.model",
    "TaggerConfig": "charwise.tagging.config",
    "evaluate_tagger": "charwise.tagging.evaluate",
    "load_tagger": "charwise.tagging.model",
    "noisy_sentences": "charwise.tagging.evaluate",
    "train_tagger": "charwise.tagging.train",
}

__all__ = ["Tagger", "TaggerConfig", "evaluate_tagger", "load_tagger", "noisy_sentences", "train_tagger"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'charwise.tagging' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
