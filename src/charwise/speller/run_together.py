"""Words run together cut apart (``noteven`` -> ``not even``, ``goand`` -> ``go and``, kind ``split``)
and words split in two joined without a language model (``some one`` -> ``someone``, kind ``merge``),
both decided by how often people write each form.

The evidence is the unigram and bigram counts of a trillion words of web text (Google's Web 1T
counts as shipped by the ``wordsegment`` package, Apache-2.0: Norvig, "Natural Language Corpus
Data", 2009) against the lexicon's Zipf frequency of the written word (wordfreq), on one scale: a
Zipf value is log10 of a form's count per 10^9 words.

**Run together.** A word that no source changed, lower-case (or capitalised at a sentence start),
alphabetic, unprotected and rejected by the lexicon is a candidate for the cut ``wordsegment`` makes
(:func:`run_together_split`), when

* it has two or three parts, each a known word, none of one letter but a first ``i``, the first no
  prefix the normaliser never cuts off (``un``, ``re``: ``unfollow``) and the last no ``in`` of a
  dropped ``g`` (``stressin``: the normaliser reads it as ``stressing``);
* one part is a function word (:data:`FUNCTION_ZIPF`): run-together names, brands and compounds
  (``harrystyles``, ``minecraft``, ``realestate``, ``lowkey``) are content words only;
* every neighbouring pair of parts is in the bigram list, and the word is no more frequent word of
  another language (:data:`FOREIGN_GAP`: ``sono``, ``evento``).

Whether a candidate is cut is one fitted decision (:class:`SplitDecision`): a logistic model over
the gap (how much more often the web writes the parts apart than the word together, in Zipf:
``for each`` 4.58 against ``foreach`` 2.05), whether the list of known misspellings gives the cut as
the word's correction (``everytime``: only 0.17 Zipf apart), how much better the parts fit between
the word's neighbours than the word (bigram counts), a capital, whether a part is a pronoun (its most
frequent tag in UD EWT: ``thankyou``, ``iloveyou``, ``keepit``; names and compounds seldom hold one)
and how strongly the parts belong together (:func:`association`: ``thank you`` is written 10^1.8
times as often as its words' frequencies predict, ``and is`` (``andis``, a name) only 10^0.1 times).
It was fitted on every candidate of the development and fresh texts, each read by hand (``python -m
benchmarks.correction.run_together --ship``), its threshold chosen out of fold by the rule the other
changes of valid text follow (right - 9 x wrong at its highest: what it adds is right nine times in
ten). Its file
(``data/normalisation-en/run_together.json``) records the fit and the threshold's source.

**Split in two.** A candidate pair of :func:`~charwise.speller.merges.merge_targets` whose join the
bigram counts favour between its neighbours (:func:`~charwise.speller.merges.bigram_margin` > 0) is
joined when the joined word is written at least :data:`JOIN_GAP` Zipf more often than the pair
(``someone`` 5.63 against ``some one`` 3.07; a pair the list lacks counts as its cut, the most it
can have); a national spelling is no candidate (:data:`~charwise.speller.merges.NATIONAL_PAIRS`).

The default English speller joins (:func:`join_by_counts`, after the normaliser and the real-word
checker, on words they left; with a language model the joins are
:func:`~charwise.speller.merges.join_split_words`'s instead) and then cuts
(:func:`split_run_together`; ``benchmarks/correction/run_together.py``; docs/correction-experiments.md,
"Split words joined").

Example::

    >>> from charwise.speller import Speller
    >>> Speller.load("en").correct("my girl friend lost her note book").corrected
    'my girlfriend lost her notebook'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Sequence

from charwise.speller.context import NgramContext, neighbours
from charwise.speller.corrections import same_case, starts_after
from charwise.speller.known_misspellings import listed_cut
from charwise.speller.logistic_decision import LogisticDecision
from charwise.speller.word_classes import shipped_classes

if TYPE_CHECKING:
    from charwise.speller.corrections import WordCorrection
    from charwise.speller.lexicon import Lexicon
    from charwise.speller.normalisation_rules import LanguageRules

SPLIT = "split"
MERGE = "merge"
# A function word is one of English's ~100 most frequent words: wordfreq Zipf >= 6 (one in every
# 1,000 words: wordfreq's 107 most frequent English words, the last much, very, where; ``you`` 6.9,
# ``at`` 6.6, ``other`` 6.2, ``love`` 5.7 is none).
FUNCTION_ZIPF = 6.0
# a word at least this much (Zipf) more frequent in another language than in English is that
# language's word (``evento``, ``sono``, ``tomate``: 2.6 to 4.2 above on the development texts;
# one order of magnitude). Checked 2026-12-02 (session script, every candidate of the development and
# fresh texts): any value from 0.5 to 3.5 makes the same cuts, the split decision leaving the words it
# blocks below its threshold; only no check at all cuts one more, right (``whos ideato make``, 3.9)
FOREIGN_GAP = 1.0
FOREIGN = ("es", "pt", "it", "fr", "de", "nl")  # wordfreq's languages read for it
# Zipf the joined word must be written more often than the pair: the midpoint between the pairs
# read in merge_labels.tsv's ``choose`` and ``read`` groups (benchmarks/correction/merges.py) whose
# join is wrong (``get away`` 0.10) and right (``school girl`` 0.25), maximising right - 9 x wrong;
# confirmed on the 1,498 candidate pairs of the development and fresh texts read by hand
# (benchmarks/correction/joins.py: 151 right, 13 wrong, the highest right - 9 x wrong of 0 to 2.5)
JOIN_GAP = 0.18
MAX_PARTS = 3  # longer runs are hashtags and slogans (``comedyandtruth``), protected or not meant as text
MAX_CHARS = 24  # wordsegment's longest word, and the normaliser's longest split
#: what the split decision reads, in the order of its weights
SPLIT_FEATURES = ("gap", "listed", "context", "capital", "pronoun", "association")


@dataclass(frozen=True)
class SplitDecision(LogisticDecision):
    """The fitted decision to cut a run-together word (see the module docstring): a logistic model
    over :data:`SPLIT_FEATURES`, its threshold and where both come from."""

    FEATURES = SPLIT_FEATURES
    NAME = "a split decision"
    FILE = "run_together.json"

    def probability(self, features: Sequence[float]) -> float:
        """The probability that the cut is what the writer meant."""
        return self.logistic(features)


@lru_cache(maxsize=1)
def _counts() -> tuple[dict[str, float], dict[str, float], float]:
    """wordsegment's unigram and bigram counts and its corpus size (loaded once, half a second)."""
    import wordsegment

    segmenter = wordsegment.Segmenter()
    segmenter.load()
    return segmenter.unigrams, segmenter.bigrams, segmenter.total


@lru_cache(maxsize=1)
def _segmenter() -> object:
    import wordsegment

    segmenter = wordsegment.Segmenter()
    unigrams, bigrams, total = _counts()
    segmenter.unigrams, segmenter.bigrams, segmenter.total, segmenter.limit = unigrams, bigrams, total, MAX_CHARS
    return segmenter


def _zipf(count: float, total: float) -> float:
    return math.log10(count / total * 1e9)


def pair_zipf(first: str, second: str, cut: bool = True) -> float | None:
    """Zipf of the two words written apart in the web counts; a pair below the list's cut: the cut
    (``cut``, the most it can have) or None."""
    unigrams, bigrams, total = _counts()
    count = bigrams.get(f"{first} {second}")
    if count is None:
        return _zipf(min(bigrams.values()), total) if cut else None
    return _zipf(count, total)


@lru_cache(maxsize=20_000)
def segment(word: str) -> tuple[str, ...]:
    """``word`` (lower-case letters) cut into the likeliest words of the web counts."""
    return tuple(_segmenter().segment(word))  # type: ignore[attr-defined]


def split_gap(parts: Sequence[str]) -> float | None:
    """Zipf of ``parts`` written apart (chained bigrams: P(a b c) = P(a b) P(b c) / P(b)), or None
    when a pair is below the list's cut."""
    unigrams, _, total = _counts()
    out = 0.0
    for k, (a, b) in enumerate(zip(parts, parts[1:])):
        z = pair_zipf(a, b, cut=False)
        if z is None or (k and a not in unigrams):
            return None
        out += z - (_zipf(unigrams[a], total) if k else 0.0)
    return out


def association(parts: Sequence[str]) -> float:
    """log10: how much more often ``parts`` are written in a row than their own frequencies predict
    (the pointwise mutual information of each neighbouring pair in the web counts, summed: P(a b c) /
    P(a) P(b) P(c) under the chained bigrams of :func:`split_gap`); parts the counts lack add nothing."""
    unigrams, _, total = _counts()
    out = 0.0
    for a, b in zip(parts, parts[1:]):
        together = pair_zipf(a, b, cut=False)
        if together is not None and a in unigrams and b in unigrams:
            out += together - _zipf(unigrams[a], total) - _zipf(unigrams[b], total) + 9.0
    return out


def foreign(word: str, english_zipf: float) -> bool:
    """Whether ``word`` is far more frequent in another language than in English (:data:`FOREIGN_GAP`)."""
    from wordfreq import zipf_frequency

    return any(zipf_frequency(word, lang) >= english_zipf + FOREIGN_GAP for lang in FOREIGN)


def run_together_split(lexicon: Lexicon, rules: LanguageRules, word: str) -> str | None:
    """The words lower-case ``word`` may run together: the candidate cut of the module docstring
    (whether it is made is :class:`SplitDecision`'s), or None."""
    if not (4 <= len(word) <= MAX_CHARS and word.isascii() and word.isalpha()) or lexicon.accepts(word):
        return None
    parts = segment(word)
    if not 2 <= len(parts) <= MAX_PARTS or "".join(parts) != word:
        return None
    if any(len(p) == 1 and (k or p != "i") for k, p in enumerate(parts)) or parts[0] in rules.split_prefixes:
        return None
    if parts[-1] == "in" and lexicon.knows(word + "g"):
        return None  # a dropped g: the normaliser's (stressin -> stressing)
    if foreign(word, lexicon.zipf(word)):
        return None
    if not all(lexicon.knows(p) for p in parts) or max(lexicon.zipf(p) for p in parts) < FUNCTION_ZIPF:
        return None
    return None if split_gap(parts) is None else " ".join(parts)


def context_gain(counts: NgramContext, words: Sequence[str], i: int, parts: Sequence[str]) -> float:
    """log10: how much better ``parts`` fit between the neighbours of ``words[i]`` than the word
    itself (:meth:`~charwise.speller.context.NgramContext.fit_between`)."""
    left, right = neighbours(words, i)
    return counts.fit_between(parts, left, right) - counts.fit_between([words[i].lower()], left, right)


def split_features(lexicon: Lexicon, counts: NgramContext, words: Sequence[str], i: int,
                   cut: str) -> list[float]:
    """:data:`SPLIT_FEATURES` of cutting ``words[i]`` into ``cut`` (a :func:`run_together_split`)."""
    word, parts = words[i], cut.split(" ")
    gap = (split_gap(parts) or 0.0) - lexicon.zipf(word.lower())
    listed = float(listed_cut(word.lower(), cut, lexicon.language))
    classes = shipped_classes(lexicon.language)
    pronoun = float(any(classes(p) == "PRON" for p in parts))
    return [gap, listed, context_gain(counts, words, i, parts), float(word[:1].isupper()), pronoun, association(parts)]


def split_candidates(corrected: list[list[WordCorrection]], lexicon: Lexicon, rules: LanguageRules,
                     starts: Sequence[bool], counts: NgramContext) -> list[tuple[int, int, str, list[float]]]:
    """(sentence, position, cut, :data:`SPLIT_FEATURES`) for every unchanged word of ``corrected``
    that may run words together (module docstring)."""
    out = []
    for s, (entries, start) in enumerate(zip(corrected, starts)):
        at_start, words = bool(start), [e.correction for e in entries]
        for i, entry in enumerate(entries):
            first, at_start = at_start, starts_after(entry.word, at_start, entries[i - 1].word if i else "")
            word = entry.word
            if entry.changed or entry.protected or not (word.islower() or (first and word.istitle())):
                continue
            cut = run_together_split(lexicon, rules, word.lower())
            if cut is not None:
                out.append((s, i, cut, split_features(lexicon, counts, words, i, cut)))
    return out


def split_run_together(corrected: list[list[WordCorrection]], lexicon: Lexicon, rules: LanguageRules,
                       starts: Sequence[bool], decision: SplitDecision,
                       counts: NgramContext | None = None) -> int:
    """Cut in place the unchanged words of ``corrected`` that run words together, where
    ``decision`` gives the cut its threshold (module docstring); returns how many were cut."""
    counts = counts or NgramContext.load(lexicon.language)
    done = 0
    for s, i, cut, features in split_candidates(corrected, lexicon, rules, starts, counts):
        p = decision.probability(features)
        entry = corrected[s][i]
        if p < decision.threshold:
            entry.decided_by = f"split decision: kept; {cut} {p:.2f} < {decision.threshold:g}"
            continue
        entry.correction, entry.kind, entry.probability = same_case(entry.word, cut), SPLIT, p
        entry.decided_by = (f"split decision: {p:.2f} >= {decision.threshold:g} (written apart 10^{features[0]:.2f} "
                            f"times as often as together{'; a known misspelling' if features[1] else ''})")
        done += 1
    return done


def join_gap(lexicon: Lexicon, first: str, second: str) -> float:
    """Zipf by which the joined word is written more often than the pair (lower-case words)."""
    return lexicon.zipf(first + second) - (pair_zipf(first, second) or 0.0)


def join_candidates(corrected: list[list[WordCorrection]], lexicon: Lexicon, starts: Sequence[bool],
                    informal: frozenset[str] = frozenset(),
                    counts: NgramContext | None = None) -> list[tuple[int, int, str, float, float]]:
    """(sentence, position, joined word, :func:`join_gap`, :func:`~charwise.speller.merges.bigram_margin`)
    for every pair of ``corrected`` that may be one word split in two: a
    :func:`~charwise.speller.merges.merge_targets` pair whose joined word the web writes at least as
    often as the pair (a gap of 0: where the pairs read by hand begin)."""
    from charwise.speller.merges import bigram_margin, merge_targets

    counts = counts or NgramContext.load(lexicon.language)
    out = []
    for s, (entries, start) in enumerate(zip(corrected, starts)):
        words = [e.correction for e in entries]
        for i in merge_targets(lexicon, entries, bool(start), informal):
            first, second = words[i].lower(), words[i + 1].lower()
            gap = join_gap(lexicon, first, second)
            if gap >= 0.0:
                out.append((s, i, first + second, gap, bigram_margin(counts, words, i)))
    return out


def join_by_counts(corrected: list[list[WordCorrection]], lexicon: Lexicon, starts: Sequence[bool],
                   informal: frozenset[str] = frozenset(), counts: NgramContext | None = None) -> int:
    """Join in place the pairs of ``corrected`` that the bigram counts favour between their
    neighbours and that are written together far more often than apart (:data:`JOIN_GAP`; module
    docstring); returns how many were joined. Of overlapping pairs (``some one thing``) the first
    that qualifies is joined."""
    from charwise.speller.merges import join_pair, keep_pair

    taken: set[tuple[int, int]] = set()
    for s, i, joined, gap, margin in join_candidates(corrected, lexicon, starts, informal, counts):
        if margin > 0 and gap >= JOIN_GAP:  # the probability: the odds of the joined spelling against the pair
            join_pair(corrected, s, i, joined, 1.0 / (1.0 + 10 ** -gap), taken,
                      f"web counts: the joined word written 10^{gap:.2f} times as often as the pair "
                      f"(>= 10^{JOIN_GAP}), the bigram counts agreeing")
        else:
            keep_pair(corrected[s][i], joined, f"the bigram counts favour the pair ({margin:+.2f})" if margin <= 0
                      else f"written 10^{gap:.2f} times as often as the pair (< 10^{JOIN_GAP})")
    return len(taken) // 2
