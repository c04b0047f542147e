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
from typing import Any, Iterable, Sequence

from charwise.errors import ConfigError
from charwise.languages import check_language
from charwise.parallel import Job, check_workers, ordered_results
from charwise.speller.corrections import SPELLING, CorrectedText
from charwise.speller.settings import SpellerSettings, check_threshold
from charwise.speller.speller import Speller
from charwise.words import compile_patterns

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
           speller: Speller | None = None, protect: Sequence[str] = (), workers: int = 1) -> list[CorrectedText]:
    """Each text with its confidently misspelled words corrected, and what changed.

    Returns one :class:`~charwise.speller.CorrectedText` per text: ``.corrected`` is the repaired
    text (every character that is not a changed word kept as it was), ``.words`` says for each word
    what it became, with what probability and where it is (``start``/``end`` offsets in the input,
    so labels on the original text still align). ``threshold`` overrides the speller's tuned one;
    ``speller`` replaces the shared one of ``language``. ``texts`` may be any iterable of strings (a
    list, a generator); it is read whole. URLs, e-mail addresses, @handles, #hashtags, paths, code
    identifiers, numbers with units and emoticons are never changed, nor what the regular
    expressions of ``protect`` match.

    ``workers`` > 1 spreads the texts over that many processes, each with the shipped speller of
    ``language`` loaded once (:mod:`charwise.parallel`; a script that does this needs the usual
    ``if __name__ == "__main__":`` guard); the corrections are the same, in input order (the
    probabilities to float32 rounding: a worker runs one thread). Starting them
    takes a few seconds: worth it for tens of thousands of texts, not for a handful.
    """
    if isinstance(texts, str):
        raise TypeError("repair() takes a list of texts, not a single string")
    texts = list(texts)
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"repair() takes texts (str), got {type(text).__name__}")
    if check_workers(workers) > 1:
        if speller is not None:
            raise ConfigError("workers load the shipped speller of `language` in each process; a speller given "
                              "here lives in this process only (leave workers at 1)")
        compile_patterns(protect)  # a bad expression fails here, before any process starts
        settings = {"threshold": check_threshold(threshold, "repair threshold"), "protect": list(protect)}
        job = Job("charwise.speller.repair:shared_speller", "charwise.speller.repair:repair_chunk",
                  {"language": check_language(language)}, warm="charwise.speller.repair:warm_speller")
        chunks = ((texts[start : start + CHUNK_TEXTS], settings) for start in range(0, len(texts), CHUNK_TEXTS))
        return [done for part in ordered_results(job, chunks, workers) for done in part]
    speller = speller or shared_speller(language)
    return speller.correct_lines(texts, threshold, protect=protect)


# --- in worker processes --------------------------------------------------------------------------
CHUNK_TEXTS = 256  # texts a worker corrects at a time: small enough to keep every worker busy to the end


def repair_chunk(speller: Speller, chunk: tuple[list[str], dict[str, Any]]) -> list[CorrectedText]:
    """A worker's part of :func:`repair`: one chunk of texts."""
    texts, settings = chunk
    return speller.correct_lines(texts, settings["threshold"], protect=settings["protect"])


def warm_speller(speller: Speller) -> None:
    """Load what the speller loads on first use (edit index, normaliser, confusion sets, a context
    model), before the workers that share it are forked; what it remembers of the sentence is forgotten."""
    speller.correct_lines(["I recieved teh pakage, u dont no were their going"])
    speller.clear_cache()
