"""A fitted decision: a logistic model over named evidence, the threshold its probability must reach,
and where both come from.

The changes that no scorer of their own decides (a capitalised sentence start, a word run
together) are each one such decision, fitted on text read by hand by a
benchmark that writes its weights, its threshold and their ``source`` into the file the speller
reads. A subclass names its evidence (:attr:`LogisticDecision.FEATURES`, in the order of the
weights) and, when it ships as a file of its own, that file (:attr:`LogisticDecision.FILE`).

Example::

    >>> from charwise.speller.run_together import SplitDecision
    >>> decision = SplitDecision.from_dict({"weights": [1.0, 3.0, 0.5, 0.0, 1.0, 0.5], "bias": -2.0,
    ...                                     "threshold": 0.9, "source": "an example"})
    >>> round(decision.probability([2.0, 0.0, 1.0, 0.0, 0.0, 0.0]), 3)
    0.622
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence, TypeVar

from charwise.errors import ConfigError

DATA = Path(__file__).resolve().parents[1] / "data"
Decision = TypeVar("Decision", bound="LogisticDecision")


def logistic(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(min(z, 60.0), -60.0)))


@dataclass(frozen=True)
class LogisticDecision:
    """Weights over :attr:`FEATURES`, a bias, the threshold a change needs and its source."""

    weights: tuple[float, ...]
    bias: float
    threshold: float  # the probability a change needs
    source: str  # where the weights and the threshold come from
    FEATURES: ClassVar[tuple[str, ...]] = ()
    NAME: ClassVar[str] = "a fitted decision"  # how errors name it
    FILE: ClassVar[str] = ""  # its file in ``data/normalisation-<language>/``, where it ships alone

    def logistic(self, features: Sequence[float]) -> float:
        """The model's probability for ``features`` (in :attr:`FEATURES`' order)."""
        return logistic(self.bias + sum(w * v for w, v in zip(self.weights, features)))

    def to_dict(self) -> dict[str, Any]:
        return {"features": list(self.FEATURES), "weights": [round(w, 6) for w in self.weights],
                "bias": round(self.bias, 6), "threshold": self.threshold, "source": self.source}

    @classmethod
    def fields(cls, data: Mapping[str, Any]) -> tuple[tuple[float, ...], float, float, str]:
        """(weights, bias, threshold, source) of ``data``; a one-line :class:`ConfigError` for
        anything but a fitted decision's fields."""
        try:
            weights = tuple(float(w) for w in data["weights"])
            bias, threshold, source = float(data["bias"]), float(data["threshold"]), str(data["source"])
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"{cls.NAME} needs weights, bias, threshold and source: {e}") from None
        if len(weights) != len(cls.FEATURES) or not all(math.isfinite(v) for v in (*weights, bias)):
            raise ConfigError(f"{cls.NAME} needs {len(cls.FEATURES)} finite weights ({', '.join(cls.FEATURES)}), "
                              f"got {list(data['weights'])}")
        if not 0.0 <= threshold <= 1.0:
            raise ConfigError(f"{cls.NAME}'s threshold must be a probability in [0, 1], got {threshold}")
        return weights, bias, threshold, source

    @classmethod
    def from_dict(cls: type[Decision], data: Mapping[str, Any]) -> Decision:
        return cls(*cls.fields(data))

    @classmethod
    def path(cls, language: str) -> Path:
        return DATA / f"normalisation-{language}" / cls.FILE

    @classmethod
    def load(cls: type[Decision], language: str = "en") -> Decision | None:
        """The shipped decision of ``language``, None where it has none (read once per process)."""
        return _shipped(cls, language)  # type: ignore[return-value, arg-type]


@lru_cache(maxsize=16)
def _shipped(kind: type[LogisticDecision], language: str) -> LogisticDecision | None:
    path = kind.path(language)
    if not kind.FILE or not path.is_file():
        return None
    try:
        return kind.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path} is not valid JSON ({e}); reinstall charwise") from None
