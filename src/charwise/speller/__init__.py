"""Spelling correction: a lexicon, candidates by edits, sounds and character vectors, and a learned scorer.

* :class:`~charwise.speller.lexicon.Lexicon`: the words accepted as written, with frequencies;
* :class:`~charwise.speller.candidates.CandidateIndex`: lexicon words near a written word;
* :mod:`~charwise.speller.features` and :class:`~charwise.speller.scorer.SpellScorer`: what is scored
  and the fitted models that score it;
* :class:`~charwise.speller.speller.Speller`: ``suggest`` and ``correct``.
"""

from charwise.speller.lexicon import Lexicon
from charwise.speller.speller import CorrectedText, Speller, SpellerSettings, Suggestion, WordCorrection

__all__ = ["CorrectedText", "Lexicon", "Speller", "SpellerSettings", "Suggestion", "WordCorrection"]
