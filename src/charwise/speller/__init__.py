"""Spelling correction: a lexicon, candidates by edits, sounds and character vectors, and a learned scorer.

* :class:`~charwise.speller.lexicon.Lexicon`: the words accepted as written, with frequencies;
* :class:`~charwise.speller.vectors.LexiconVectors`: the encoder's vectors of the lexicon's words
  (cached on disk) and the teacher's whole-word rows among them;
* :class:`~charwise.speller.candidates.CandidateFinder`: every source of candidates (edits, sound
  keys, the encoder's nearest rows) for a batch of words, as one flat
  :class:`~charwise.speller.candidates.CandidateBatch`;
* :class:`~charwise.speller.features.Featurizer` and :class:`~charwise.speller.scorer.SpellScorer`:
  what is scored (named feature columns for a whole batch) and the fitted models that score it;
* :class:`~charwise.speller.speller.Speller`: ``suggest`` and ``correct`` (the score cache, which
  words are looked at, which are changed);
* :mod:`charwise.speller.corrections`: what a correction is (``WordCorrection``, ``CorrectedText``).
"""

from charwise.speller.corrections import CorrectedText, Suggestion, WordCorrection
from charwise.speller.lexicon import Lexicon
from charwise.speller.settings import SpellerSettings
from charwise.speller.speller import Speller

__all__ = ["CorrectedText", "Lexicon", "Speller", "SpellerSettings", "Suggestion", "WordCorrection"]
