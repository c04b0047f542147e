"""Words split in two by mistake, joined again: ``some one`` -> ``someone``, ``head ache`` ->
``headache`` (change kind ``merge``), judged by a language model reading the sentence.

Both halves of such a split are valid words, so neither the speller nor the confusion sets look at
them, and the same two words are often right as written (``may be``, ``every day``, ``any one
of them``, ``check out``). Only the sentence can tell, so a pair is joined only when two readers
agree (the shape of :func:`~charwise.speller.real_words.lm_verdict`):

* the bigram counts (:class:`~charwise.speller.context.NgramContext`) find the joined word likelier
  between the pair's neighbours than the two words: ``log10 P(ab | left) + log10 P(right | ab)``
  against ``log10 P(a | left) + log10 P(b | a) + log10 P(right | b)``, where a pair the counts lack
  is given the highest count it can have (the list's cut), not the back-off: the pair is missing
  because it is rarer than the cut, which says little against it;
* a causal language model (``Speller.load(context="smollm2")``) finds the sentence at least
  :data:`MERGE_LM_MARGIN` nats likelier with the joined word.

Neither reader is enough alone: on fresh text the bigrams alone were right in 33 of 39 joins (84.6 %;
with the model, 32 of 35), and the model alone prefers ``washer`` to ``was her``
(``benchmarks/correction/merges.py``; docs/correction-experiments.md, "Split words joined"). The
margin was chosen on 1,498 candidate pairs read by hand (``benchmarks/correction/joins.py``).
Without a language model the second reader is the web counts' frequencies
(:func:`charwise.speller.run_together.join_by_counts`).

A pair is a candidate when both words are alphabetic, at least :data:`MIN_PART` letters, lower-case
(the first may be capitalised at a sentence start), valid, unchanged and not protected, when neither
is an informal spelling the normaliser knows (``tho ugh`` is no ``though``), when the pair is no
national spelling (:data:`NATIONAL_PAIRS`: ``per cent``) and when the joined word is valid. The
first word of a merge takes the joined word (in its case pattern) and the second becomes empty,
with the same kind and probability (the LM's odds of the joined word against the pair), as lexical
normalisation annotates a join (MultiLexNorm);
:class:`~charwise.speller.corrections.CorrectedText` drops the space between them.

Example (with SmolLM2; tests/test_neural_context.py checks it)::

    from charwise.speller import Speller
    speller = Speller.load("en", context="smollm2")
    speller.correct("I have a head ache today").corrected    # joined: I have a headache today
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from charwise.speller.context import NgramContext, neighbours
from charwise.speller.logistic_decision import logistic

if TYPE_CHECKING:
    from charwise.speller.context_model import ContextModel
    from charwise.speller.corrections import WordCorrection
    from charwise.speller.lexicon import Lexicon

MERGE = "merge"
#: nats the sentence must gain with the joined word: chosen on the 1,498 candidate pairs of the
#: development and fresh texts read by hand (benchmarks/correction/joins.py --context smollm2), where
#: right - 9 x wrong is highest among 0 to 8 nats (118 right, 6 wrong; at 2 nats, the real-word
#: checker's margin it was first given, 143 and 11: the joins between are right 25 times in 30)
MERGE_LM_MARGIN = 4.0
MIN_PART = 3  # letters in each word: short pairs were slang and other languages (``so me``, ``ka na``, ``tune in to``)
# pairs that are one nation's standard spelling of the other's word: the speller keeps national
# spellings (docs/correction.md). Oxford and Guardian style: British ``per cent``, American
# ``percent``; the Cambridge Dictionary: ``home town`` UK, ``hometown`` US.
NATIONAL_PAIRS = frozenset({"per cent", "home town"})


def _candidate(entry: WordCorrection, first: bool, min_part: int) -> bool:
    word = entry.word
    if entry.changed or entry.looked_at or entry.protected or len(word) < min_part or not word.isalpha():
        return False
    return word.islower() or (first and word.istitle())


def merge_targets(lexicon: Lexicon, entries: Sequence[WordCorrection], start: bool = True,
                  informal: frozenset[str] = frozenset(), min_part: int = MIN_PART) -> list[int]:
    """Positions ``i`` where ``entries[i]`` and ``entries[i + 1]`` (the speller's output for one
    sentence) are a candidate pair (see the module docstring); ``start``: whether the sentence
    begins one (a capitalised first word is then no name)."""
    out = []
    for i in range(len(entries) - 1):
        a, b = entries[i], entries[i + 1]
        if not (_candidate(a, start and i == 0, min_part) and _candidate(b, False, min_part)):
            continue
        first, second = a.word.lower(), b.word.lower()
        if first in informal or second in informal or f"{first} {second}" in NATIONAL_PAIRS:
            continue
        if lexicon.knows(first) and lexicon.knows(second) and lexicon.knows(first + second):
            out.append(i)
    return out


def bigram_margin(counts: NgramContext, words: Sequence[str], i: int) -> float:
    """log10: how much likelier the counts find ``words[i] + words[i + 1]`` joined than apart,
    between the nearest words on each side (see the module docstring)."""
    first, second = words[i].lower(), words[i + 1].lower()
    left, right = neighbours(words, i)[0], neighbours(words, i + 1)[1]
    return counts.fit_between([first + second], left, right) - counts.fit_between([first, second], left, right)


def join_split_words(corrected: list[list[WordCorrection]], lexicon: Lexicon, lm: ContextModel,
                     starts: Sequence[bool], informal: frozenset[str] = frozenset(),
                     margin: float = MERGE_LM_MARGIN, counts: NgramContext | None = None) -> int:
    """Join in place the pairs of ``corrected`` (the speller's output) that the bigram ``counts``
    (default: the language's) and the language model ``lm`` both read as one word split in two
    (module docstring); returns how many were joined."""
    from charwise.speller.normalisation_judge import lm_gains

    counts = counts or NgramContext.load(lexicon.language)
    targets, collapsed = [], []
    for s, (entries, start) in enumerate(zip(corrected, starts)):
        words = [e.correction for e in entries]
        for i in merge_targets(lexicon, entries, start, informal):
            if (favour := bigram_margin(counts, words, i)) > 0:
                pair = f"{words[i]} {words[i + 1]}"
                collapsed.append([*words[:i], pair, *words[i + 2 :]])
                targets.append((s, i, pair, [(words[i] + words[i + 1]).lower()]))
            else:
                keep_pair(entries[i], (words[i] + words[i + 1]).lower(),
                          f"the bigram counts favour the pair ({favour:+.2f})")
    gains = lm_gains(lm, collapsed, [(k, i, pair, joined) for k, (_, i, pair, joined) in enumerate(targets)])
    taken: set[tuple[int, int]] = set()
    for (s, i, _, (joined,)), row in zip(targets, gains):
        if row[joined] >= margin:  # the probability: the model's odds of the joined word
            join_pair(corrected, s, i, joined, logistic(row[joined]), taken,
                      "language model and bigram counts agree on the joined word")
        else:
            keep_pair(corrected[s][i], joined, f"the language model's gain {row[joined]:+.1f} nats < {margin:g}")
    return len(taken) // 2


def keep_pair(entry: WordCorrection, joined: str, why: str) -> None:
    """Say on the first word of a pair read and kept apart why it was (``--json``), unless it is
    changed or another decision already said why it kept it."""
    if not entry.changed and not entry.decided_by:
        entry.decided_by = f"join: kept; {joined}: {why}"


def join_pair(corrected: list[list[WordCorrection]], s: int, i: int, joined: str, probability: float,
              taken: set[tuple[int, int]], why: str) -> bool:
    """Join ``corrected[s][i]`` and the word after it into ``joined``, as lexical normalisation
    annotates a join (the first takes the joined word in its case pattern, the second becomes empty,
    both of kind ``merge`` with ``probability`` and ``why``), unless either word is in ``taken``
    (overlapping pairs, ``some one thing``: the first that qualifies is joined); records both there."""
    from charwise.speller.corrections import same_case

    if (s, i) in taken or (s, i + 1) in taken:
        return False
    head, tail = corrected[s][i], corrected[s][i + 1]
    head.correction, head.kind, head.probability = same_case(head.word, joined), MERGE, probability
    tail.correction, tail.kind, tail.probability = "", MERGE, probability
    head.decided_by = tail.decided_by = why
    taken.update({(s, i), (s, i + 1)})
    return True
