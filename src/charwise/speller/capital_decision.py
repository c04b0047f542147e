"""A capitalised word at a sentence start, or a word in capitals: a misspelling (``Teh``, ``Wierd``,
``WENSDAY``) or a name (``Bisconti``, ``GPSA``)? One fitted decision over the evidence, not a higher
threshold.

The scorer gives a looked-at word the probability that it is a misspelling of its best candidate;
it learned that from lower-case words. At a sentence start unknown words are names far more often,
and the scorer cannot tell (``Bisconti`` 0.97 as ``Visconti``, ``Wierd`` 0.88). The capitals
decision is a logistic model over

* the scorer's log-odds;
* ``listed``: the best candidate is a correction the list of known misspellings gives for the
  written form (:func:`~charwise.speller.known_misspellings.listed_share`: ``wierd`` -> ``weird``);
* the written form's Zipf frequency (wordfreq): a form written often on the web is slang or a name
  people write (``Plz``, ``Ive``), rarely a slip;
* the best candidate's Zipf frequency;
* whether the best candidate changes the first letter: writers seldom slip there, and one name
  read as another mostly does (``Bisconti`` -> ``Visconti``; of the sentence starts read by hand,
  the 44 right changes all keep their first letter),

fitted on development text (``python -m benchmarks.correction.capitals --ship``: the capitalised
sentence starts of UD EWT dev and WNUT17 dev, each change read by hand, and real and synthetic
misspellings put in their place), with its threshold chosen there: the lowest at which those
sentence starts are changed wrongly at most 0.3 % of the time, never below the scorer's own, and
at which what it changes beyond the earlier rule on real tweets and sentences (WNUT17 train + dev,
UD EWT dev, every change read) is right nine times in ten.
The fit and its threshold's source live in the scorer's ``config.json`` (``capital_decision``), as
the decision reads that scorer's probabilities; a scorer without one (the Spanish one) keeps the
earlier rule, the scorer's probability at :data:`SCORER_THRESHOLD`. A word written in capitals
(``SERVISE``) is read by the same decision at a threshold of its own (``capitals_threshold``): the
lowest at which the changes it adds to the earlier rule's, on the words in capitals of tweets,
comments and posts read by hand, are right at least nine times in ten; where the fit has none, by
the earlier rule. A capitalised word inside a sentence (``Britian``, ``Febuary``; far more often a
name: ``Bisconti``, ``Wycombe``) is read by the same decision at a threshold of its own
(``inside_threshold``), and only as a misspelling of a word written capitalised more often than not
(:func:`capitalised_odds` at least ``inside_odds``: a name is put right as a name, ``Britian`` ->
``Britain``, never as a common word, ``Matfer`` -> ``matter``), both chosen by the same rule on the
capitalised words inside the sentences of development text, every change read by hand; where the fit
has none, such words are left as written.

Example::

    >>> decision = CapitalDecision.from_dict({"weights": [1.0, 2.0, 0.0, 0.0, -3.0], "bias": 0.0,
    ...                                       "threshold": 0.9, "source": "an example"})
    >>> round(decision.probability(0.8, listed=1.0, written_zipf=2.6, best_zipf=4.0, first_changed=0.0), 3)
    0.967
"""

from __future__ import annotations

import gzip
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Mapping

from charwise.errors import ConfigError
from charwise.speller.known_misspellings import listed_share
from charwise.speller.logistic_decision import DATA, LogisticDecision

if TYPE_CHECKING:
    from charwise.speller.lexicon import Lexicon

#: what the decision reads, in the order of its weights
FEATURES = ("scorer log-odds", "listed", "written Zipf", "best candidate Zipf", "first letter changed")
# The earlier rule, kept for a scorer without a fitted decision (the Spanish one, whose capitalised
# sentence starts were never read): chosen as the lowest threshold at which the scorer's changes of
# the 2,171 capitalised sentence starts of UD EWT dev and WNUT17 dev, read by hand, change at most
# 0.3 % of them wrongly, on rows that took the normaliser's probability where it had changed the
# word; on the scorer's own probabilities the same criterion gives 0.75 (benchmarks/results/
# capitals.json, "capital_threshold"). For English words in capitals it was checked on real text,
# every change read (benchmarks/correction/shouted.py: 73 of 80 right).
SCORER_THRESHOLD = 0.925
SCORER_SOURCE = ("benchmarks/correction/capitals.py (2026-11-28): the lowest threshold on the scorer's probability "
                 "at which the 2,171 capitalised sentence starts of UD EWT dev and WNUT17 dev, read by hand, are "
                 "changed wrongly at most 0.3 % of the time; kept for scorers without a fitted decision")


CAPITALISED = DATA / "capitalised" / "capitalised.tsv.gz"  # see its README


@lru_cache(maxsize=1)
def _capitalised() -> dict[str, float]:
    try:
        with gzip.open(CAPITALISED, "rt", encoding="utf-8") as f:
            return {word: float(odds) for word, odds in (line.rstrip("\n").split("\t") for line in f)}
    except (OSError, ValueError) as e:
        raise ConfigError(f"cannot read the words written capitalised ({CAPITALISED}): {e}; reinstall charwise"
                          ) from None


def capitalised_odds(word: str) -> float:
    """How much more often lower-case ``word`` is written capitalised than not (log-odds, from the
    Unigram scores of XLM-R's SentencePiece vocabulary: ``data/capitalised``); 0 where it is not."""
    return _capitalised().get(word, 0.0)


def change_evidence(lexicon: Lexicon, word: str, best: str) -> tuple[float, float, float, float]:
    """What the decision reads of changing ``word`` to the scorer's ``best`` candidate (lower case),
    beside the scorer's probability: ``listed``, the written and the candidate's Zipf frequencies and
    whether the first letter changes (:data:`FEATURES` after the first)."""
    lower = word.lower()
    return (listed_share(lower, best, lexicon.language), lexicon.zipf(lower), lexicon.zipf(best),
            float(lower[:1] != best[:1].lower()))


def log_odds(p: float) -> float:
    p = min(max(p, 1e-6), 1.0 - 1e-6)
    return math.log(p / (1.0 - p))


@dataclass(frozen=True)
class CapitalDecision(LogisticDecision):
    """The fitted decision for a capitalised sentence start (see the module docstring)."""

    # the probability a word in capitals needs (its own threshold, chosen on words in capitals);
    # None: such words keep the scorer's rule
    capitals_threshold: float | None = None
    # the probability a capitalised word inside a sentence needs (chosen on such words); None: not read
    inside_threshold: float | None = None
    # ... and how much more often its best candidate must be written capitalised (capitalised_odds)
    inside_odds: float = 0.0
    FEATURES = FEATURES
    NAME = "capital_decision"

    def probability(self, p: float, listed: float, written_zipf: float, best_zipf: float,
                    first_changed: float) -> float:
        """The probability that the change to the best candidate is right."""
        return self.logistic((log_odds(p), listed, written_zipf, best_zipf, first_changed))

    @classmethod
    def scorer_rule(cls) -> "CapitalDecision":
        """The earlier rule as a decision: the scorer's probability itself, at :data:`SCORER_THRESHOLD`."""
        return cls((1.0, 0.0, 0.0, 0.0, 0.0), 0.0, SCORER_THRESHOLD, SCORER_SOURCE)

    @property
    def reads_scorer_only(self) -> bool:
        return self.bias == 0.0 and tuple(self.weights) == (1.0, 0.0, 0.0, 0.0, 0.0)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "capitals_threshold": self.capitals_threshold,
                "inside_threshold": self.inside_threshold, "inside_odds": self.inside_odds}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> "CapitalDecision":
        """The decision a scorer's ``config.json`` holds; :meth:`scorer_rule` for None. A one-line
        :class:`ConfigError` for anything else."""
        if data is None:
            return cls.scorer_rule()
        try:
            odds = float(data.get("inside_odds", 0.0))
        except (TypeError, ValueError) as e:
            raise ConfigError(f"capital_decision's inside_odds must be a number: {e}") from None
        if not math.isfinite(odds):
            raise ConfigError(f"capital_decision's inside_odds must be finite, got {odds}")
        return cls(*cls.fields(data), _own_threshold(data, "capitals_threshold"),
                   _own_threshold(data, "inside_threshold"), odds)


def _own_threshold(data: Mapping[str, Any], name: str) -> float | None:
    """``data[name]``: a probability, or None where it is absent; a one-line :class:`ConfigError` else."""
    try:
        value = None if data.get(name) is None else float(data[name])
    except (TypeError, ValueError) as e:
        raise ConfigError(f"capital_decision's {name} must be a number: {e}") from None
    if value is not None and not 0.0 <= value <= 1.0:
        raise ConfigError(f"capital_decision's {name} must be a probability in [0, 1], got {value}")
    return value
