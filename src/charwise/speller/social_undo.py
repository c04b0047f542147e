"""In informal text (the ``social`` style), whether the speller's correction of a word it did not know
stands or is undone: tweets' and comments' unknown words are often names, slang or another
language (``foota``, ``seh``, ``unfollow``, ``Thennu``), as edited text's seldom are.

The normalisation judge reads every correction among the word's other candidates; when it takes
none of them, the correction is judged here by one fitted decision (:class:`UndoDecision`), a
logistic model over :data:`UNDO_FEATURES`:

* ``judge``: the judge's log-odds for the correction (fitted on annotated tweets, where unknown
  words are mostly kept), and ``judge_not_drawn_out``, the same where no letter is drawn out (0
  where one is): the judge gives a drawn-out word's correction next to nothing (``heellllooooo`` ->
  ``hello``: 0.00) though it is mostly right, so its doubt weighs more for other words
  (``unfollow`` -> ``follow``: 0.01);
* ``speller``: the speller's own log-odds for it (its confidence that the word is that word mistyped);
* ``listed``: whether a list of known misspellings gives it as the word's correction (1 / the
  number of corrections listed: ``recieved`` -> ``received``);
* ``zipf``: how often the written word itself is written (wordfreq's Zipf: ``seh``, ``suh``,
  ``unfollow`` are common; ``priveledged`` is not);
* ``drawn_out``: a letter three times in a row (``heellllooooo``: drawn out, meant as the word).

It was fitted on the corrections the speller makes in informal development text, each read by
hand: WNUT17's raw YouTube, Reddit and Stack Overflow texts and two tenths of its raw tweets
(``python -m benchmarks.correction.social_undo --ship``); its threshold is the one that keeps the
most right corrections out of fold while keeping no more wrong ones than the judge's probability
alone did (``undo_below``). The file (``data/normalisation-en/social_undo.json``) records the fit and
the threshold's source. With a language model (``--context smollm2``) the decision reads the plain judge's
probability too, what it was fitted on (it beat the LM judge's own ``undo_below`` on the LexNorm folds,
``python -m benchmarks.correction.lm_undo``). A language without the file (Spanish) undoes below its judge's
``undo_below``.

Example (the shipped weights, rounded)::

    >>> decision = UndoDecision.from_dict({"weights": [0.2, 0.46, 0.95, 0.26, -0.33, 1.19], "bias": -1.12,
    ...                                    "threshold": 0.65, "source": "an example"})
    >>> judge, speller = log_odds(0.29), log_odds(0.997)
    >>> decision.keeps([judge, judge, speller, 1.0, 2.75, 0.0])   # recieved -> received beside a handle
    True
    >>> judge, speller = log_odds(0.25), log_odds(0.88)
    >>> decision.keeps([judge, judge, speller, 0.0, 0.0, 0.0])    # foota -> foot: a name
    False
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from charwise.speller.known_misspellings import listed_share
from charwise.speller.logistic_decision import LogisticDecision

if TYPE_CHECKING:
    from charwise.speller.corrections import WordCorrection
    from charwise.speller.lexicon import Lexicon
    from charwise.speller.normalisation_judge import NormalisationJudge

#: what the decision reads, in the order of its weights
UNDO_FEATURES = ("judge", "judge_not_drawn_out", "speller", "listed", "zipf", "drawn_out")
# probabilities are read as log-odds clipped here: a judge's 0.0 is a doubt, not a proof
EDGE = 1e-4
_DRAWN_OUT = re.compile(r"(.)\1\1")


@dataclass(frozen=True)
class UndoDecision(LogisticDecision):
    """The fitted decision to keep the speller's correction in informal text (see the module docstring)."""

    FEATURES = UNDO_FEATURES
    NAME = "the social undo decision"
    FILE = "social_undo.json"

    def probability(self, features: Sequence[float]) -> float:
        """The probability that the correction is what the writer meant."""
        return self.logistic(features)

    def keeps(self, features: Sequence[float], entry: WordCorrection | None = None) -> bool:
        """Whether the correction with these :data:`UNDO_FEATURES` stands (``entry``: the word
        judged, for a decision that reports on it)."""
        return self.probability(features) >= self.threshold


def log_odds(p: float) -> float:
    p = min(max(p, EDGE), 1.0 - EDGE)
    return math.log(p / (1.0 - p))


def judged_probability(entry: WordCorrection, found: tuple[str, str, float]) -> float:
    """The judge's probability of the speller's correction of ``entry`` (``found``: the judge's best
    candidate; when that is another word, the correction's probability is at most the best's)."""
    return found[2] if found[0] == entry.correction.lower() else min(found[2], entry.probability)


def undo_features(lexicon: Lexicon, entry: WordCorrection, judged: float) -> list[float]:
    """:data:`UNDO_FEATURES` of the speller's correction of ``entry``, which the judge gave ``judged``."""
    word = entry.word.lower()
    listed = listed_share(word, entry.correction.lower(), lexicon.language)
    drawn_out = bool(_DRAWN_OUT.search(word))
    judge = log_odds(judged)
    judge_not_drawn_out = 0.0 if drawn_out else judge
    return [judge, judge_not_drawn_out, log_odds(entry.probability), listed, lexicon.zipf(word), float(drawn_out)]


def undoes(decision: UndoDecision | None, judge: NormalisationJudge, lexicon: Lexicon, entry: WordCorrection,
           found: tuple[str, str, float]) -> bool:
    """Whether the speller's correction of ``entry`` in informal text is undone: by ``decision``, or
    without one below ``judge``'s ``undo_below``. An undone correction says why in ``entry.decided_by``
    (the caller puts the word back)."""
    judged = judged_probability(entry, found)
    if decision is None:
        if judged < judge.undo_below:
            entry.decided_by = (f"undone in informal text: the normalisation judge's {judged:.2f} < "
                                f"{judge.undo_below:g} for {entry.correction.lower()}")
        return judged < judge.undo_below
    features = undo_features(lexicon, entry, judged)
    p = decision.probability(features)
    if not decision.keeps(features, entry):
        entry.decided_by = (f"undone in informal text: the undo decision's {p:.2f} < {decision.threshold:g} "
                            f"for {entry.correction.lower()}")
        return True
    kept = f"; kept in informal text: the undo decision's {p:.2f} >= {decision.threshold:g}"
    if kept not in entry.decided_by:  # a further pass judges the word again
        entry.decided_by += kept
    return False
