"""What the speller's scorer reads: one row of numbers per (written word, candidate), and one per word.

Candidate features (:data:`RANK_FEATURES`), for the lower-case written word ``w`` and candidate ``c``:

* edits: Damerau-Levenshtein distance as three indicators (1, 2, 3 or more), whether a
  transposition is one of the edits, whether the one edit is a neighbouring key (the language's layout),
  the length difference, the same first and last letter, whether the sound keys match
  (:func:`charwise.typos.sounds.sound_key`), whether ``c`` is ``w`` itself;
* frequency: wordfreq's Zipf frequency of ``c`` (and whether wordfreq lacks it);
* shape: the share of ``w`` that ``c`` starts with, whether the one edit swaps a vowel for another,
  the Dice overlap of their letter pairs;
* against the other candidates: ``c``'s Zipf frequency and encoder cosine minus the best of all;
* the encoder: the cosine of the encoder's vectors of ``w`` and ``c`` (lexicon vectors precomputed),
  the cosine of ``w``'s projected vector with the teacher's row of ``c`` when ``c`` has one, and the
  reciprocal rank of ``c`` among ``w``'s nearest whole-word rows (0 when it is not among them).

Word features (:data:`WORD_FEATURES`), from the ranked candidates: the best candidate's score and
its margin over the second, the best's softmax share, its edit distance, sound-key match and Zipf
frequency, the written word's own Zipf frequency and how much more frequent the best candidate is
(wordfreq lists names, slang and common misspellings alike, ``recieved`` at 2.8: what tells a
common misspelling from a rare valid word is a far more frequent word one slip away, ``received``
at 5.0), its length and the number of candidates.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from charwise.speller.candidates import WRITTEN
from charwise.typos.keyboards import neighbours
from charwise.typos.sounds import sound_key

LAYOUT = {"en": "us", "es": "es"}  # the keyboard of a language's slips
RANK_FEATURES: tuple[str, ...] = (
    "dl1", "dl2", "dl3+", "transposition", "keyboard", "len_diff", "same_first", "same_last", "same_sound",
    "written", "zipf", "zipf_missing", "cos_encoder", "cos_row", "has_row", "neighbour",
    "zipf_gap", "cos_gap", "prefix", "vowel_swap", "bigram_dice",
)
WORD_FEATURES: tuple[str, ...] = (
    "best_score", "margin", "best_share", "best_dl", "best_same_sound", "best_zipf", "written_zipf",
    "length", "log_candidates", "frequency_gain",
)


VOWELS = frozenset("aeiouyáéíóúü")


def _bigrams(word: str) -> set[str]:
    padded = f"^{word}$"
    return {padded[i : i + 2] for i in range(len(padded) - 1)}


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _edit_parts(w: str, c: str, layout: str) -> tuple[int, bool, bool, bool]:
    """(OSA distance capped at 4, a transposition among the edits, a one-key keyboard slip, a
    one-vowel-for-another slip)."""
    from editdistpy import damerau_osa, levenshtein

    dl = damerau_osa.distance(w, c, 4)
    dl = 4 if dl < 0 else dl
    lev = levenshtein.distance(w, c, 4)
    lev = 4 if lev < 0 else lev
    keyboard = vowel = False
    if dl == 1 and len(w) == len(c) and lev == 1:
        i = next(i for i, (a, b) in enumerate(zip(w, c)) if a != b)
        keyboard = w[i] in neighbours(c[i], layout)
        vowel = w[i] in VOWELS and c[i] in VOWELS
    return dl, lev > dl, keyboard, vowel


def candidate_features(word: str, candidates: dict[str, int], zipf: dict[str, float], cos_encoder: np.ndarray,
                       cos_row: np.ndarray, has_row: np.ndarray, neighbour_rank: dict[str, int],
                       language: str) -> np.ndarray:
    """``(len(candidates), len(RANK_FEATURES))`` float32, candidates in ``candidates``' order."""
    out = np.zeros((len(candidates), len(RANK_FEATURES)), dtype=np.float32)
    key = sound_key(word, language)
    grams = _bigrams(word)
    layout = LAYOUT.get(language, "us")
    for j, (c, flags) in enumerate(candidates.items()):
        dl, transposition, keyboard, vowel = _edit_parts(word, c, layout)
        z = zipf.get(c, 0.0)
        rank = neighbour_rank.get(c)
        theirs = _bigrams(c)
        out[j] = (dl == 1, dl == 2, dl >= 3, transposition, keyboard, min(abs(len(word) - len(c)), 4) / 4,
                  word[:1] == c[:1], word[-1:] == c[-1:], sound_key(c, language) == key, bool(flags & WRITTEN),
                  z / 8, z == 0, cos_encoder[j], cos_row[j], has_row[j], 0.0 if rank is None else 1 / (1 + rank),
                  0.0, 0.0, _common_prefix(word, c) / max(1, len(word)), vowel,
                  2 * len(grams & theirs) / (len(grams) + len(theirs)))
    if len(out):
        # how a candidate compares with the best of the others: frequency and encoder cosine
        out[:, RANK_FEATURES.index("zipf_gap")] = out[:, RANK_FEATURES.index("zipf")] - out[:, RANK_FEATURES.index(
            "zipf")].max()
        out[:, RANK_FEATURES.index("cos_gap")] = cos_encoder - cos_encoder.max()
    return out


def word_features(word: str, scores: np.ndarray, ranked: list[int], rank_rows: np.ndarray,
                  written_zipf: float) -> np.ndarray:
    """``(len(WORD_FEATURES),)`` float32 for a word whose candidates have ``scores`` (ranked best
    first by ``ranked``) and candidate features ``rank_rows``."""
    best = ranked[0]
    second = scores[ranked[1]] if len(ranked) > 1 else scores[best] - 10.0
    shares = np.exp(scores - scores.max())
    f = {name: i for i, name in enumerate(RANK_FEATURES)}
    row = rank_rows[best]
    dl = 1 * row[f["dl1"]] + 2 * row[f["dl2"]] + 3 * row[f["dl3+"]]
    return np.array([scores[best], min(scores[best] - second, 10.0), shares[best] / shares.sum(), dl,
                     row[f["same_sound"]], row[f["zipf"]], written_zipf / 8, min(len(word), 20) / 20,
                     math.log(len(ranked)), row[f["zipf"]] - written_zipf / 8], dtype=np.float32)


def describe(features: np.ndarray, names: tuple[str, ...]) -> dict[str, Any]:
    """A feature row as a name -> value mapping (for ``--json`` output and debugging)."""
    return {name: round(float(v), 4) for name, v in zip(names, features)}
