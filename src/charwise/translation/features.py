"""Word-level source features: the Spanish lemma and the word's shape.

* ``lemma``: ``simplemma`` (a lexicon of 50+ languages, offline), lower-cased; a word the lexicon
  does not know is its own lemma (lower-cased);
* ``shape``: capitalisation and character classes in a few values (``Xx`` capitalised, ``x``
  lower, ``X`` upper, ``d`` digits, ``p`` punctuation, ``m`` mixed): names and numbers are what the
  decoder must copy, and capitalisation is a strong hint of a name.

Both are per *word* (the unit of :func:`charwise.translation.data.source_words`); the S2W model
adds them after the merge, the Sennrich and Haddow baseline copies them onto every piece of the
word. Each feature's vocabulary (:class:`charwise.tagging.s2w.FeatureVocab`) is built on the
training split; values seen once become ``<unk>``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from charwise.presets import TRANSLATION_FEATURES
from charwise.tagging.s2w import FeatureVocab

__all__ = ["FEATURES", "FeatureVocab", "word_features", "word_shape"]

FEATURES = TRANSLATION_FEATURES


@lru_cache(maxsize=200_000)
def _lemma(word: str, language: str) -> str:
    import simplemma

    return str(simplemma.lemmatize(word, lang=language)).lower()


def word_shape(word: str) -> str:
    if word.isdigit():
        return "d"
    if any(c.isdigit() for c in word):
        return "m"
    if not any(c.isalnum() for c in word):
        return "p"
    if word.isupper() and len(word) > 1:
        return "X"
    if word[:1].isupper() and (len(word) == 1 or word[1:].islower()):
        return "Xx"
    if word.islower():
        return "x"
    return "m"


def word_features(words: Sequence[str], names: Sequence[str] = FEATURES, language: str = "es") -> list[list[str]]:
    """For each feature in ``names``, its value for every word (``[feature][word]``)."""
    out = []
    for name in names:
        if name == "lemma":
            out.append([_lemma(w, language) if any(c.isalpha() for c in w) else w for w in words])
        elif name == "shape":
            out.append([word_shape(w) for w in words])
        else:
            raise ValueError(f"unknown word feature {name!r} (known: {', '.join(FEATURES)})")
    return out
