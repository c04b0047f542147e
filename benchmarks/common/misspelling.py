"""Misspelled copies of sentences: real misspellings (pairs of a list such as Wikipedia's) or
charwise's synthetic realistic ones, put in word by word, seeded."""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Callable

from charwise import split_words
from charwise.speller.corrections import same_case
from charwise.words import join_words


def misspelled_copy(texts: list[str], seed: str, min_subs: int,
                    replace: Callable[[str, random.Random], str | None]) -> tuple[list[int], list[str], float]:
    """Sentences with >= ``min_subs`` words changed by ``replace(word, rng)`` (None: left alone):
    (their indices, their changed texts, share of their words changed)."""
    kept, out, changed, total = [], [], 0, 0
    for i, text in enumerate(texts):
        rng = random.Random(f"{seed}-{i}")
        split = split_words(text)
        words, subs = [], 0
        for w in split.words:
            new = replace(w, rng)
            if new is not None:
                w, subs = new, subs + 1
            words.append(w)
        if subs >= min_subs:
            kept.append(i)
            out.append(join_words(words, split.space_before))
            changed += subs
            total += len(words)
    return kept, out, changed / max(total, 1)


def real_misspelling_copy(texts: list[str], pairs: list[tuple[str, str]], seed: int,
                          min_subs: int) -> tuple[list[int], list[str], float]:
    """Every word that is the correction of a pair replaced by one of its misspellings (seeded; the
    first letter's case kept); see :func:`misspelled_copy`."""
    by_word: dict[str, list[str]] = defaultdict(list)
    for bad, good in pairs:
        bad, good = bad.strip(), good.strip()
        if bad and good and " " not in bad and " " not in good and bad.lower() != good.lower():
            by_word[good.lower()].append(bad.lower())

    def replace(word: str, rng: random.Random) -> str | None:
        options = by_word.get(word.lower())
        if not options:
            return None
        bad = rng.choice(sorted(options))
        return same_case(word, bad)

    return misspelled_copy(texts, str(seed), min_subs, replace)


def realistic_copy(texts: list[str], seed: int, min_subs: int, rate: float = 0.3,
                   language: str = "en") -> tuple[list[int], list[str], float]:
    """charwise's synthetic realistic misspellings (``language``'s rules): each alphabetic word longer
    than 4 characters is misspelled with probability ``rate``; see :func:`misspelled_copy`."""
    from charwise.typos.realistic import MisspellConfig, RealisticNoiser
    from charwise.typos.single import NoiseNotApplicable

    noiser = RealisticNoiser(MisspellConfig(language=language, cased=False))

    def replace(word: str, rng: random.Random) -> str | None:
        if not (noiser.eligible(word) and word.isalpha() and rng.random() < rate):
            return None
        try:
            return noiser.corrupt(word, rng)[0]
        except NoiseNotApplicable:
            return None

    return misspelled_copy(texts, f"{seed}-realistic", min_subs, replace)
