"""How a :class:`~charwise.speller.Speller` looks and when it changes a word: :class:`SpellerSettings`,
and :func:`check_threshold`, the one check of a probability threshold."""

from __future__ import annotations

from dataclasses import dataclass

from charwise.errors import ConfigError
from charwise.speller.corrections import CHANGE_KINDS, check_change_kinds
from charwise.speller.real_words import LM_MARGIN, RealWordSettings
from charwise.words import compile_patterns

STYLES = ("standard", "social", "auto")  # SpellerSettings.style


def check_threshold(threshold: float | None, name: str = "threshold") -> float | None:
    """``threshold`` as a float if it is a probability in [0, 1] (``None`` stays ``None``: the
    speller's tuned one), else a one-line :class:`ConfigError`."""
    if threshold is None:
        return None
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
        raise ConfigError(f"{name} must be a probability in [0, 1], got {threshold!r}")
    return float(threshold)


@dataclass
class SpellerSettings:
    """How a :class:`~charwise.speller.Speller` looks and when it changes a word."""

    neighbours: int = 20  # the encoder's nearest whole-word rows added as candidates
    per_key: int = 10  # lexicon words of the same sound key
    max_distance: int = 2  # edit distance of the symmetric-delete lookup
    suggestions: int = 10  # candidates kept per word
    threshold: float | None = None  # correct at this probability; None: the scorer's tuned one
    # names start sentences too (Bisconti, Jahmaal), far more often than misspelled words do, and
    # are written in capitals: a capitalised word (first in a sentence or inside one: there only as
    # a word written capitalised) or a word in capitals is changed when the capitals decision fitted
    # with the scorer (charwise.speller.capital_decision) reaches this probability. None: the
    # thresholds chosen on development text for each case, recorded with their source in the
    # scorer's config (0.925 on the scorer's own probability for a scorer without a decision)
    capital_threshold: float | None = None
    # a missing accent put back (despues -> después, in Spanish) needs only this probability: the
    # lexicon holds the written word's accented form and not the word, and the scorer, trained on
    # other slips, is unsure of such a small change (días from dias: 0.04). Swept 0 to 0.5 on the
    # development sets (python -m benchmarks.correction.speller_dev --language es --thresholds 0.65
    # --name speller_dev_es_accent): 0.3 corrects as many seeded misspellings, at less Tweet-Norm
    # damage (3.50 -> 2.99 %), but read line by line its changes lost are right (día, así, prepárate,
    # depresión in 26 of Tweet-Norm's lines, which mark only words the annotators did not know): 0 kept
    accent_threshold: float = 0.0
    # 2 and 3 give the same output on UD EWT dev, clean and seeded: two-letter words get probabilities
    # far below any threshold (ht 0.017, fo 0.015), so 3 saves their look-ups (docs/correction-experiments.md)
    min_length: int = 3
    # an unknown word written in capitals (SERVISE, EXPERINCED) is read as its lower-case form (by the
    # normaliser too: CANT) and corrected in capitals, from this length up: shorter ones are acronyms
    # far more often (FBI, CEO, GPU). Chosen on the texts of benchmarks/correction/shouted.py, every change
    # read (2026-12-02, session script): 4 gives right - 9 x wrong at its highest of 3, 4, 5 (the 4-letter
    # words' changes 226 right, 11 wrong; 3 adds 100, about 73 right: NYT -> NEW YORK TIMES, DUN DUN -> DON'T,
    # HDR -> HER). False: left as written, as any word with a capital after its first letter
    read_capitals: bool = True
    capitals_min_length: int = 4
    # longer "words" (hashes, URLs run together, noise) are no misspelling of a word: the lexicon's longest
    # word has 40 letters (lexicon.MAX_WORD_CHARS), so from 43 up none is within max_distance (2)
    max_length: int = 40
    batch_size: int = 512  # words scored at a time
    # a valid word changed to another of its confusion set (real_words): how much better the other
    # must fit, in log10 under the bigram counts (2.0: a hundred times; RealWordSettings' source) ...
    real_word_margin: float = 2.0
    # ... and, with a context model (context="smollm2", which judges instead), in nats under the model
    real_word_lm_margin: float = LM_MARGIN
    # the kinds of change the speller may make (CHANGE_KINDS: spelling, real_word, accent...)
    changes: tuple[str, ...] = CHANGE_KINDS
    # the user's own protected patterns (regular expressions), beside the built-in URLs, handles...
    protect: tuple[str, ...] = ()
    # "standard" (edited text: an unknown word is a misspelling more often than not), "social"
    # (tweets, chat: the normalisation judge also reads the speller's corrections and undoes those it
    # finds unlikely there, where unknown words are often names and slang; with a context model,
    # that judge alone reads the words in doubt with it) or "auto": social for each sentence that
    # reads like a tweet (normalisation_rules.looks_informal), standard for the others
    style: str = "auto"

    def __post_init__(self) -> None:
        for name, low in (("neighbours", 0), ("per_key", 0), ("max_distance", 1), ("suggestions", 1),
                          ("min_length", 1), ("max_length", 1), ("capitals_min_length", 2),
                          ("batch_size", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(f"{name} must be an integer >= {low}, got {value!r}")
        if not isinstance(self.read_capitals, bool):
            raise ConfigError(f"read_capitals must be True or False, got {self.read_capitals!r}")
        if self.style not in STYLES:
            raise ConfigError(f"style must be one of {', '.join(STYLES)}, got {self.style!r}")
        self.changes = check_change_kinds(self.changes)
        compile_patterns(self.protect)  # a bad pattern is refused here, not at the first text
        self.protect = tuple(self.protect) if not isinstance(self.protect, str) else (self.protect,)
        RealWordSettings(self.real_word_margin, self.real_word_lm_margin)  # the margins' check
        for name in ("threshold", "capital_threshold", "accent_threshold"):
            check_threshold(getattr(self, name), name)
