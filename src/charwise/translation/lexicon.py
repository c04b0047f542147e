"""A word-translation lexicon learnt from parallel sentences, and code-switched text made with it.

Char2Subword evaluates on code-switched Spanish-English text, where words of both languages share
one sentence. Without a bilingual dictionary offline, the lexicon is learnt from the verse pairs
themselves: each source word is paired with the target word whose verse co-occurrence is most
consistent with it (Dice coefficient, Smadja et al. 1996): ``2 c(s, t) / (c(s) + c(t))``,
counting verses, not tokens. On the Bible's training verses this gives ``tierra -> land``,
``rey -> king``, ``dijo -> said`` (see ``benchmarks/multilingual/bitext_retrieval.py``'s report).

Example::

    lexicon = dice_lexicon([(p.source, p.target) for p in train_pairs])
    mixed = code_switch(["Y dijo Dios: Sea la luz"], lexicon, rate=0.3)   # "Y said Dios: Sea la light"
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Iterable, Sequence

from charwise.errors import ConfigError
from charwise.words import join_words, split_words

__all__ = ["code_switch", "dice_lexicon"]


def _types(text: str) -> set[str]:
    """The lower-cased words of ``text`` that contain a letter (each counted once per verse)."""
    return {w.lower() for w in split_words(text).words if any(c.isalpha() for c in w)}


def dice_lexicon(pairs: Iterable[tuple[str, str]], *, min_count: int = 5, min_dice: float = 0.3) -> dict[str, str]:
    """Source word -> its most associated target word (lower-cased), for source words seen in at
    least ``min_count`` sentence pairs whose best Dice score is at least ``min_dice``.

    Memory grows with the number of distinct (source, target) word pairs that co-occur, which
    stays in the tens of millions for a 30k-pair corpus; pass a subset for larger corpora.
    """
    if min_count < 1:
        raise ConfigError(f"min_count must be >= 1, got {min_count}")
    if not 0 <= min_dice <= 1:
        raise ConfigError(f"min_dice must be in [0, 1], got {min_dice}")
    source_counts: Counter[str] = Counter()
    target_counts: Counter[str] = Counter()
    together: Counter[tuple[str, str]] = Counter()
    for source, target in pairs:
        s_types, t_types = _types(source), _types(target)
        source_counts.update(s_types)
        target_counts.update(t_types)
        together.update((s, t) for s in s_types for t in t_types)
    best: dict[str, tuple[float, str]] = {}
    for (s, t), both in together.items():
        if source_counts[s] < min_count:
            continue
        dice = 2 * both / (source_counts[s] + target_counts[t])
        current = best.get(s)
        # Ties go to the alphabetically first target, so the lexicon does not depend on dict order.
        if dice >= min_dice and (current is None or dice > current[0] or (dice == current[0] and t < current[1])):
            best[s] = (dice, t)
    return {s: t for s, (_, t) in sorted(best.items())}


def _match_case(source: str, word: str) -> str:
    if source[:1].isupper():
        return word.upper() if source.isupper() and len(source) > 1 else word[:1].upper() + word[1:]
    return word


def code_switch(sentences: Sequence[str], lexicon: dict[str, str], rate: float, seed: int = 0
                ) -> tuple[list[str], float]:
    """Each word with a lexicon entry replaced by its translation with probability ``rate`` (case
    kept, punctuation and spacing untouched); returns the sentences and the share of words replaced."""
    if not 0 <= rate <= 1:
        raise ConfigError(f"code-switching rate must be in [0, 1], got {rate}")
    out, switched, total = [], 0, 0
    for i, text in enumerate(sentences):
        rng = random.Random(seed * 1_000_003 + i)
        split = split_words(text)
        words = list(split.words)
        for k, w in enumerate(words):
            translation = lexicon.get(w.lower())
            if translation is not None and rng.random() < rate:
                words[k] = _match_case(w, translation)
                switched += 1
        total += len(words)
        out.append(join_words(words, split.space_before))
    return out, switched / max(1, total)

