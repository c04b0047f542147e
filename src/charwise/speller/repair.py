"""Repair text in front of any model: change only the words the speller is confident are misspelled.

:func:`repair` is the speller's :meth:`~charwise.speller.Speller.correct_lines` with the speller of a
language loaded once per process (:func:`shared_speller`) and shared by every caller: the ``repair``
hybrid policy, the sentence-transformers wrapper and the command line. Known words, names (by their
case), non-alphabetic tokens and words without a confident correction are left exactly as written,
so a text whose words are all known comes back unchanged, byte for byte.

Example::

    fixed = charwise.repair(["I recieved the pakage from Okrent"])[0]
    fixed.corrected            # 'I received the package from Okrent'
    [(w.word, w.correction, w.start, w.end) for w in fixed.words if w.changed]
    # [('recieved', 'received', 2, 10), ('pakage', 'package', 15, 21)]
"""

from __future__ import annotations

import threading
from typing import Iterable, Sequence

from charwise.languages import check_language
from charwise.speller.corrections import SPELLING, CorrectedText
from charwise.speller.settings import SpellerSettings
from charwise.speller.speller import Speller

# What repair changes in front of a model: misspellings, real-word errors and accents. Normalisation
# of informal text (u -> you, dont -> don't) is left out: in front of a WNUT17 tagger it did not help
# (44.17 entity F1 against 44.31 for spelling alone; docs/tagging.md). Speller.correct does it by default.
REPAIR_CHANGES = SPELLING
_SPELLERS: dict[str, Speller] = {}
_LOCK = threading.Lock()


def shared_speller(language: str = "en") -> Speller:
    """The shipped speller of ``language``, loaded on first use and kept for the process."""
    check_language(language)
    with _LOCK:
        speller = _SPELLERS.get(language)
        if speller is None:
            speller = _SPELLERS[language] = Speller.load(language, settings=SpellerSettings(changes=REPAIR_CHANGES))
    return speller


def repair(texts: Iterable[str], language: str = "en", *, threshold: float | None = None,
           speller: Speller | None = None, protect: Sequence[str] = ()) -> list[CorrectedText]:
    """Each text with its confidently misspelled words corrected, and what changed.

    Returns one :class:`~charwise.speller.CorrectedText` per text: ``.corrected`` is the repaired
    text (every character that is not a changed word kept as it was), ``.words`` says for each word
    what it became, with what probability and where it is (``start``/``end`` offsets in the input,
    so labels on the original text still align). ``threshold`` overrides the speller's tuned one;
    ``speller`` replaces the shared one of ``language``. ``texts`` may be any iterable of strings (a
    list, a generator); it is read whole. URLs, e-mail addresses, @handles, #hashtags, paths, code
    identifiers, numbers with units and emoticons are never changed, nor what the regular
    expressions of ``protect`` match.
    """
    if isinstance(texts, str):
        raise TypeError("repair() takes a list of texts, not a single string")
    texts = list(texts)
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"repair() takes texts (str), got {type(text).__name__}")
    speller = speller or shared_speller(language)
    return speller.correct_lines(texts, threshold, protect=protect)
