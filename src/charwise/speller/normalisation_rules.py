"""What the normaliser may propose, per language: the rules that turn a written word into candidates.

Each rule only *proposes*; the fitted judge (:mod:`charwise.speller.normalisation_judge`) decides.
:class:`LanguageRules` holds a language's choices:

* ``sources``: the candidate sources its judge was fitted with (one weight set per source);
* ``repeat_run``: the shortest run of one letter read as drawn out (``soooo``: English writes
  doubled letters in words, so three; Spanish doubles few, ``noo``, ``sii``, ``muchoo`` are common,
  so two, and only in words the lexicon lacks);
* ``split_letters`` / ``split_prefixes``: the one-letter words a run-together pair may have, and
  the prefixes that make a derivation rather than two words (``unfollow``, ``deshacer``);
* ``reduced_a``: the words a final ``a`` stands for in speech written down (English ``coulda``,
  ``musta``: could have, must have; only ``have``: with ``of`` and ``to`` nouns read so, ``mosta``
  most of, ``problema`` problem of), so such a word is cut into the word and what the ``a`` stands
  for, not before an article (:func:`short_part_pair`);
* ``dropped_g``: the English ``goin`` -> ``going``;
* ``apostrophes``: English contractions, whose apostrophe typed as another mark is put back
  (``don´t``, ``it,s``: :mod:`charwise.speller.apostrophes`);
* ``phonetic``: respellings by sound (Spanish: ``aser`` -> ``hacer``, ``kiero`` -> ``quiero``,
  ``pesao`` -> ``pesado``, ``grasias`` -> ``gracias``, ``tanbien`` -> ``también``), at most
  :data:`PHONETIC_STEPS` rewrites, kept when the result is a word (its accents put back when the
  lexicon holds only the accented word), for unknown words and known words rarer than
  ``respell_below_zipf``;
* ``laughter``: the laugh written out (``jajajaja``, ``jsjajaj``, ``jejeje``) to its annotated
  standard form (``ja``, ``je``, ``ji``, as the Tweet-Norm 2013 guidelines normalise it).

Example::

    >>> {"quiero", "hacer"} <= phonetic_variants("kiero", RULES["es"].phonetic) | phonetic_variants(
    ...     "aser", RULES["es"].phonetic)
    True
    >>> laugh("jajajjaja"), laugh("jejeje"), laugh("hahah"), laugh("hija")
    ('ja', 'je', 'ja', None)
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Collection, Sequence

from charwise.speller.context import CONTRACTION_ENDINGS
from charwise.words import PROTECTED_PATTERNS, join_words

if TYPE_CHECKING:
    from charwise.speller.context import NgramContext
    from charwise.speller.corrections import WordCorrection
    from charwise.speller.lexicon import Lexicon

# Swept on the development tweets, the judge refitted for each value (python -m
# benchmarks.correction.normaliser_constants): English, no other value surely better; Spanish's tweets preferred 2 and
# 4.5, but with them clean verses were changed wrongly (Admitidnos, cuán), so they stay (docs/correction-experiments.md)
ABBREVIATIONS = 3  # words offered for an abbreviation, the most frequent first
ABBREVIATION_ZIPF = 3.5  # ... among words at least this frequent (a rare word is no abbreviation's meaning)
# log10: how much more often the counts must see a word before "have" than before "a" for its run-together
# final "a" to be read as "have" (three times: should have)
REDUCED_MARGIN = 0.5
PHONETIC_STEPS = 2  # rewrites combined at most (aser -> haser -> hacer)
PHONETIC_MAX_CHARS = 16  # longer words are not respelled by sound: the variants grow too many
PHONETIC_MAX_VARIANTS = 4000  # a bound on the variants of one word, whatever its letters


@dataclass(frozen=True)
class LanguageRules:
    """A language's candidate rules (see the module docstring)."""

    sources: tuple[str, ...]
    repeat_run: int = 3
    repeat_unknown_only: bool = False  # runs of exactly ``repeat_run`` letters only in unknown words
    split_letters: frozenset[str] = frozenset()
    split_prefixes: frozenset[str] = frozenset()
    reduced_a: tuple[str, ...] = ()
    dropped_g: bool = False
    apostrophes: bool = False  # contractions written with an apostrophe: marks typed for one read (apostrophes.py)
    phonetic: tuple[tuple[re.Pattern[str], str], ...] = field(default=())
    # known words this rare are respelled too: web word lists hold tweets' respellings (deveria)
    respell_below_zipf: float = 0.0
    laughter: bool = False
    # the times annotators must have changed a valid word to a form for the table to propose it
    # (KNOWN_WORD_ANNOTATIONS in English; 1: every entry)
    known_word_annotations: int = 1
    # (written, normal) changes never proposed, whatever source proposes them: read on fresh informal text and
    # right less than nine times in ten there (FAILED_ON_FRESH in English)
    failed_on_fresh: frozenset[tuple[str, str]] = frozenset()

    def repeat_pattern(self) -> re.Pattern[str]:
        """Runs of one letter at least ``repeat_run`` long."""
        return re.compile(r"(\w)\1{%d,}" % (self.repeat_run - 1))


def _rules(pairs: Sequence[tuple[str, str]]) -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple((re.compile(p), r) for p, r in pairs)


# Spanish respellings by sound, as tweets write them (written pattern -> the standard spelling)
SPANISH_PHONETIC = _rules((
    ("k(?=[ei])", "qu"), ("k", "c"), ("q(?!u)", "qu"), ("x", "ch"), ("x", "por"),
    ("ao$", "ado"), ("aos$", "ados"), ("ío$", "ido"), ("io$", "ido"), ("á$", "ad"), ("é$", "ed"),
    ("h$", "s"), ("^(?=[aeiou])", "h"), ("b", "v"), ("v", "b"), ("s(?=[ei])", "c"), ("s", "z"), ("z", "s"),
    ("c(?=[ei])", "z"), ("y", "ll"), ("ll", "y"), ("j(?=[ei])", "g"), ("g(?=[ei])", "j"), ("r", "l"), ("l", "r"),
    ("^st", "est"), ("^w", "gu"), ("w", "gu"), ("i$", "y"), ("n(?=[bp])", "m"), ("^i", "e"), ("ue", "o"),
))

ENGLISH_SOURCES = ("table", "repeat", "contraction", "ending", "abbreviation", "split", "slang", "speller")
#: each candidate source in words, for a change's ``decided_by``
SOURCE_NAMES = {"table": "the table learned from annotated tweets", "repeat": "repeated letters shortened",
                "contraction": "an apostrophe put back", "ending": "a dropped g put back",
                "abbreviation": "an abbreviation expanded", "split": "the word cut in two words",
                "speller": "the spelling candidates", "phonetic": "a phonetic respelling",
                "accent": "accents put back", "laughter": "laughter written short",
                "slang": "the slang dictionary"}
SPANISH_SOURCES = ("table", "repeat", "phonetic", "laughter", "abbreviation", "split", "speller")

# English: the times annotators must have changed a valid word to a form for the table to propose it. Chosen on
# fresh informal text (WNUT17's raw YouTube, Reddit and Stack Overflow texts), every change read: valid words changed
# by an entry annotated once were right 142 times in 343 (41 %; hype -> happy, camps -> campus, rip it out -> rest
# in peace, mum -> mom; benchmarks/correction/table_entry_labels.tsv), where a change must be right nine times in
# ten; on the LexNorm 2015 training tweets (two folds) ERR 60.08 -> 59.97, damage 0.485 -> 0.461 % (3: ERR 59.03).
# Spanish keeps every entry: the rule was chosen on English text and not measured on Spanish.
KNOWN_WORD_ANNOTATIONS = 2
# English changes read on fresh informal text (WNUT17's raw YouTube, Reddit and Stack Overflow texts and the rigo
# development tweets, 72,325 lines) and right less than nine times in ten, so never proposed: of the 72 changes made
# five times or more there whose entry the annotators wrote at most twice, read by hand (six of each, and every one
# where a wrong one showed; right / made: benchmarks/correction/fresh_entry_labels.tsv). yr is year, your and
# Hindi yaar (0 / 23); fu is kung fu (0 / 9); the Weeknd (0 / 6); -ish (1 / 8); muh is my (0 / 5); thr is the
# (1 / 5); the Kool Klown Klan (4 / 10); wth is what the hell (1 / 9); a friend lazer (5 / 6); thin is thin
# (0 / 8, a dropped g put back)
FAILED_ON_FRESH = frozenset({("yr", "you're"), ("fu", "fuck"), ("weeknd", "weekend"), ("ish", "shit"),
                             ("muh", "mother"), ("thr", "there"), ("kool", "cool"), ("wth", "with"),
                             ("lazer", "laser"), ("thin", "thing")})

RULES: dict[str, LanguageRules] = {
    "en": LanguageRules(
        sources=ENGLISH_SOURCES, repeat_run=3, split_letters=frozenset({"a", "i"}),
        split_prefixes=frozenset({"un", "re", "de", "dis", "non", "pre", "mis", "over", "under", "out", "anti",
                                  "co"}),
        reduced_a=("have",), dropped_g=True, apostrophes=True, known_word_annotations=KNOWN_WORD_ANNOTATIONS,
        failed_on_fresh=FAILED_ON_FRESH),
    "es": LanguageRules(
        sources=SPANISH_SOURCES, repeat_run=2, repeat_unknown_only=True,
        split_letters=frozenset({"a", "y", "o", "e", "u"}),
        split_prefixes=frozenset({"des", "re", "in", "im", "pre", "sub", "anti", "super", "auto", "co", "ex",
                                  "contra", "sobre", "entre"}),
        phonetic=SPANISH_PHONETIC, respell_below_zipf=3.0, laughter=True),
}


def failed_changes(language: str) -> dict[str, frozenset[str]]:
    """The changes of ``language`` that no source proposes (:attr:`LanguageRules.failed_on_fresh`), by
    written word: the speller's candidates leave them out as the normaliser's do."""
    pairs = RULES[language].failed_on_fresh if language in RULES else frozenset()
    out: dict[str, set[str]] = defaultdict(set)
    for written, normal in pairs:
        out[written].add(normal)
    return {written: frozenset(normals) for written, normals in out.items()}


_LAUGH_SYLLABLE = re.compile(r"[jh][aeiou]|[aeiou][jh]")
_LAUGH_LETTERS = frozenset("jhaeiouqsk")


def laugh(word: str) -> str | None:
    """The standard form of a written laugh (``jajajja`` -> ``ja``, ``jijiji`` -> ``ji``,
    ``hahah`` -> ``ja``), or None when ``word`` is no laugh: every letter one a laugh has but at most
    one in ten (a slip in a long laugh; ``hijitos`` is a word), and its most written vowel among
    ``a``, ``e``, ``i`` in at least two of its syllables."""
    w = word.lower()
    if len(w) < 3 or len(_LAUGH_SYLLABLE.findall(w)) < 2:
        return None
    if sum(c in _LAUGH_LETTERS for c in w) < 0.9 * len(w) or sum(c in "jh" for c in w) < 2:
        return None
    vowels = {v: w.count(v) for v in "aei"}
    vowel = max(vowels, key=lambda v: vowels[v])
    return "j" + vowel if w.count("j" + vowel) + w.count("h" + vowel) >= 2 else None


def phonetic_variants(word: str, rules: Sequence[tuple[re.Pattern[str], str]],
                      steps: int = PHONETIC_STEPS) -> set[str]:
    """Every spelling of ``word`` at most ``steps`` rewrites away (each rewrite: one rule at one
    place), ``word`` itself left out."""
    if not rules or len(word) > PHONETIC_MAX_CHARS:
        return set()
    found: set[str] = set()
    frontier = {word}
    for _ in range(steps):
        following: set[str] = set()
        for text in frontier:
            for pattern, replacement in rules:
                for match in pattern.finditer(text):
                    following.add(text[: match.start()] + replacement + text[match.end():])
        following -= found | {word}
        found |= following
        if len(found) >= PHONETIC_MAX_VARIANTS:
            break
        frontier = following
    return found


def edit_distance(a: str, b: str) -> int:
    """Optimal-string-alignment distance (edits and adjacent transpositions)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


# British and American spellings of one word (colour/color, realise/realize, theatre/theater,
# cancelled/canceled, programme/program; the past tenses British English writes with -t,
# learnt/learned, spelt/spelled, burnt, dreamt, leapt, spoilt: Oxford's and Cambridge's dictionaries
# give both): both are right, and the writer's choice is kept
_VARIANTS = [(re.compile(a), b) for a, b in (
    ("our", "or"), ("is(e|ing|ed|es|ation)", r"iz\1"), ("ys(e|ed|es|ing)", r"yz\1"), ("tre$", "ter"),
    ("tres$", "ters"), ("ll(ed|ing|er)", r"l\1"), ("ogue$", "og"), ("ae", "e"), ("oe", "e"),
    ("mme(s?)$", r"m\1"), ("([lnmp])t$", r"\1ed"))]


def spelling_variants(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are the British and American spellings of one word."""
    if a == b:
        return False
    for pattern, repl in _VARIANTS:
        a, b = pattern.sub(repl, a), pattern.sub(repl, b)
    return a == b


APOSTROPHES = frozenset("'\u2019\u00b4`")  # written for an apostrophe (´ and ` too)
# what follows the apostrophe of a contraction split at it (did n ' t, we ' ve; and rock ' n ' roll)
CONTRACTION_PIECES = frozenset({ending.split("'")[1] for ending in CONTRACTION_ENDINGS} | {"n"})
# normal forms never proposed, whatever annotators wrote: a slur is not the standard form of a word
NEVER_PROPOSED = frozenset({"nigger", "niggers"})


def short_part_pair(left: str, right: str, rules: LanguageRules, context: NgramContext) -> str | None:
    """The second word of a cut of a run-together word into ``left`` and ``right``, one of them a
    single letter, or None when the cut gives no two words. The pair must be one the bigram counts
    hold (``a lot``, ``on a``; not ``tend i``, ``a branches``). A final ``a`` after a word the
    counts see before one of ``rules.reduced_a`` at least :data:`REDUCED_MARGIN` more often than
    before ``a`` is that word, reduced in speech written down: ``coulda`` is could have, ``musta``
    must have (``witha`` stays with a)."""
    article, seen = context.log_score(right, left)
    if not seen:
        return None
    if right == "a" and rules.reduced_a:
        score, word = max((context.log_score(w, left)[0], w) for w in rules.reduced_a)
        return word if score >= article + REDUCED_MARGIN else right
    return right


def beside_apostrophe(words: Sequence[str], index: int, dropped_g: bool = False) -> bool:
    """Whether ``words[index]`` is a piece of a contraction split at its apostrophe (``did n ' t``,
    ``we ' ve``): an apostrophe word right before or after it. With ``dropped_g`` (a language whose
    writers drop a final g), an apostrophe that marks a dropped g (``goin '``, ``nothin '``: after a
    word in ``-in``, before no contraction's ending) makes no piece of its neighbours."""
    return any(0 <= j < len(words) and words[j] in APOSTROPHES and not (dropped_g and marks_dropped_g(words, j))
               for j in (index - 1, index + 1))


def marks_dropped_g(words: Sequence[str], index: int) -> bool:
    """Whether the apostrophe ``words[index]`` is the mark of a dropped g on the word before it (``goin '``)."""
    before = words[index - 1].lower() if index > 0 else ""
    after = words[index + 1].lower() if index + 1 < len(words) else ""
    return (len(before) >= 3 and before.isalpha() and before.endswith("in")
            and after not in CONTRACTION_PIECES and (index < 2 or words[index - 2] not in APOSTROPHES))


def take_dropped_g_marks(entries: Sequence[WordCorrection]) -> None:
    """Where a word of ``entries`` (a text's words, their offsets known) had its dropped g put back (``goin``
    -> ``going``) and the apostrophe that marked it is written right after it (``goin'``: the tokens touch),
    the apostrophe goes with the word (its correction empty, as the second word of a join): ``going``, not
    ``going'``."""
    for i, (entry, mark) in enumerate(zip(entries, entries[1:])):
        if mark.word not in APOSTROPHES or entry.correction.lower() != entry.word.lower() + "g":
            continue  # nearly every word: nothing more to read
        after = entries[i + 2] if i + 2 < len(entries) else None  # a word touching the mark too: it parts them
        around = [e.word for e in entries[max(0, i - 1):i + 3]]  # the mark and the words beside it
        if (not mark.protected and mark.start == entry.end and mark.end > mark.start
                and marks_dropped_g(around, min(i, 1) + 1)
                and (after is None or after.start > mark.end or not after.word[:1].isalnum())):
            mark.correction, mark.kind, mark.probability = "", entry.kind, entry.probability
            mark.decided_by = entry.decided_by


def before_a_name(pair: Sequence[str], lexicon: Lexicon) -> bool:
    """Whether the first of ``pair`` (a word and the one after it, if any) is a valid word, capitalised,
    right before a capitalised word (a name inside a sentence): at a sentence start, part of that name
    (``Lil Uzi``, ``Da Shawn``). A change of a valid word must be right nine times in ten; the
    normaliser's changes of such words in WNUT17's tweets, comments and posts (every line of its NER
    sets, raw YouTube, Reddit, Stack Overflow and held-out tweets, and LexNorm's) were right 25 times
    in 37 (``Im Lily``, ``Congrats Dan``; ``Lil Wayne -> Little`` 10 times, ``:-D Awesome -> The``)."""
    word, after = pair[0], pair[1] if len(pair) > 1 else ""
    return word.istitle() and len(after) > 1 and after.isalpha() and after.istitle() and lexicon.accepts(word)


def normalisable(word: str) -> bool:
    """Whether a token is a word the normaliser reads: letters and digits with at least one letter
    (``b4``, ``2day``; a number alone is protected), an apostrophe allowed, and no capital after the
    first letter (``NASA``, ``iPhone``: names and acronyms)."""
    bare = word.replace("'", "").replace("\u2019", "")
    return (bare.isalnum() and any(c.isalpha() for c in bare) and not any(c.isupper() for c in word[1:]))


# a letter drawn out: four times or more in a word (soooo, twooooo), or three times at its end (morninggg,
# pleasseee); three inside a word are a slip of the key as often (commment, prettty), not a roman numeral (iii)
_DRAWN_OUT = re.compile(r"([a-z])\1{3}|([a-z])\2\2$")
_ROMAN = re.compile(r"[ivxlcdm]+")
# the protected kinds only social text has (read after the URLs and e-mails that hold an @ or a #, as the
# speller's protection reads them); a hashtag has a letter (# 1 is a number)
_SOCIAL = ("handle", "hashtag", "emoticon")
_SPANS = re.compile("|".join(f"(?P<{k}>{PROTECTED_PATTERNS[k].removeprefix('(?i)')})"
                             for k in ("url", "email", *_SOCIAL)), re.IGNORECASE)
_PICTOGRAPHS = 0x2600  # symbols (So) from here on are emoji and dingbats; below, (c) (R) TM, degrees and arrows


def looks_informal(words: Sequence[str], informal: Collection[str], space_before: Sequence[bool] | None = None) -> bool:
    """Whether a sentence reads like a tweet or a chat message rather than edited text: it has an
    @handle or #hashtag, a Twitter link (``t.co``), an emoji or emoticon, a word with a letter drawn
    out (``soooo``, ``morninggg``), or a word of ``informal`` (what annotators normalise nearly always: ``u``,
    ``dont``, ``gonna``: :meth:`~charwise.speller.normalisation_judge.NormalisationTable.informal_words`).
    What ``style="auto"`` reads to choose the social style for a sentence. ``space_before``: the text's
    own spacing (:func:`~charwise.words.split_words`), so an e-mail address is read whole, not as a handle;
    without it, a tokenizer's cuts are glued back (``@ bob``, ``: )``)."""
    text = []  # the words as text
    for i, word in enumerate(words):
        before = words[i - 1] if i else ""
        glued = before in ("@", "#") or not any(c.isalnum() for c in before + word)
        text.append(word if glued or not i else " " + word)
        low = word.lower()
        if (low in informal and not word.isupper()) or (not word.isascii() and any(  # U of H, DM: initials
                ord(c) >= _PICTOGRAPHS and unicodedata.category(c) == "So" for c in word)):
            return True
        if (word.isalpha() and not (word.isupper() and len(word) <= 3) and _DRAWN_OUT.search(low)
                and not _ROMAN.fullmatch(low) and len(set(low)) > 1):
            return True
    for span in _SPANS.finditer("".join(text) if space_before is None else join_words(list(words), list(space_before))):
        kind, found = span.lastgroup, span.group()
        if (kind in _SOCIAL and (kind != "hashtag" or any(c.isalpha() for c in found))
                or "t.co/" in found.lower()):  # Twitter's own links
            return True
    return False


def social_sentences(style: str, sentences: Sequence[Sequence[str]], informal: Collection[str] | None,
                     spaces: Sequence[Sequence[bool] | None] | None = None) -> list[bool]:
    """Which sentences a speller of ``style`` reads in the social style: every one (``"social"``), none
    (``"standard"``), or those that :func:`looks_informal` (``"auto"``; none without a normaliser's
    ``informal`` words; ``spaces``: each sentence's ``space_before``, where known)."""
    spaces = spaces or [None] * len(sentences)
    return [style == "social" or (style == "auto" and informal is not None and looks_informal(words, informal, gaps))
            for words, gaps in zip(sentences, spaces)]


class Abbreviations:
    """The most frequent words a written word abbreviates: same first letter, its letters in order,
    longer (``smth`` -> ``something``, ``yu`` -> ``you``); at most :data:`ABBREVIATIONS`, each at
    least :data:`ABBREVIATION_ZIPF` frequent."""

    def __init__(self, lexicon: Lexicon) -> None:
        frequent = sorted(((w, e.zipf) for w, e in lexicon.entries.items()
                           if e.zipf >= ABBREVIATION_ZIPF and w.isalpha()), key=lambda item: -item[1])
        self._by_initial: dict[str, list[str]] = defaultdict(list)  # by first letter, the most frequent first
        for w, _ in frequent:
            self._by_initial[w[0]].append(w)

    def __call__(self, word: str) -> list[str]:
        if not word.isalpha() or not 2 <= len(word) <= 6:
            return []
        pattern = re.compile(".*?".join(map(re.escape, word)))
        found = []
        for w in self._by_initial.get(word[0], ()):
            if len(w) > len(word) and pattern.match(w):
                found.append(w)
                if len(found) == ABBREVIATIONS:
                    break
        return found
