"""What a correction is: :class:`Suggestion`, :class:`WordCorrection`, :class:`CorrectedText`, and
the word-level rules the speller applies when it writes a correction (:func:`same_case`,
:func:`restores_accents`, :func:`word_spans`).

A :class:`CorrectedText` keeps every character of its text that is not a changed word as it was
(whitespace included), and each :class:`WordCorrection` knows its offsets in the original text, so
labels aligned to the text stay aligned.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple, Sequence

from charwise.speller.lexicon import strip_accents

#: What a change is (:attr:`WordCorrection.kind`); each can be switched off with
#: ``SpellerSettings(changes=...)`` or ``charwise correct --skip KIND``.
CHANGE_KINDS = ("spelling", "real_word", "accent", "normalisation", "split", "merge")
#: The kinds a spell checker makes (no normalisation of informal text): ``SpellerSettings(changes=SPELLING)``
SPELLING = ("spelling", "real_word", "accent")


def check_change_kinds(kinds: object, name: str = "changes") -> tuple[str, ...]:
    """``kinds`` as a tuple of known change kinds (a one-line ConfigError otherwise)."""
    from charwise.errors import ConfigError

    if isinstance(kinds, str) or not isinstance(kinds, (tuple, list, set, frozenset)):
        raise ConfigError(f"{name} must be a collection of change kinds ({', '.join(CHANGE_KINDS)}), got {kinds!r}")
    unknown = [k for k in kinds if k not in CHANGE_KINDS]
    if unknown:
        raise ConfigError(f"unknown change kind {unknown[0]!r} in {name} (known: {', '.join(CHANGE_KINDS)})")
    return tuple(k for k in CHANGE_KINDS if k in kinds)


SENTENCE_END = frozenset(".!?¿¡")
#: times a word must be seen written with a full stop inside a sentence to count as an
#: abbreviation (once is one writer's habit)
ABBREVIATION_SEEN = 2
_LAST_LETTERS = re.compile(r"([^\W\d_]+)\.$")


@lru_cache(maxsize=1)
def abbreviations() -> frozenset[str]:
    """Lower-case words whose full stop ends no sentence (``dr``, ``mr``, ``st``, ``vs``, ``ft``, an
    initial): those UD English-EWT's training sentences write with a full stop inside a sentence
    (each letter run of ``U.S.``, as a text's words are split) at least :data:`ABBREVIATION_SEEN`
    times, and in nine of ten of its full stops, the project's bar for a reading of text it acts on
    (``etc.`` ends more sentences than it continues; ``no.`` ends 5 of 12). Counted once and cached
    (reading the treebank takes half a second)."""
    import hashlib
    import json

    from charwise.cache import array_text, cache_root, mapped_or_built, text_array
    from charwise.speller.class_context import TREEBANK, corpus_sha256

    key = hashlib.sha256(json.dumps([ABBREVIATION_SEEN, corpus_sha256("en")]).encode()).hexdigest()[:16]
    path = cache_root() / "speller" / f"abbreviations-{key}.safetensors"
    arrays = mapped_or_built(path, f"the abbreviations of {TREEBANK.name}", ("words",),
                             lambda: {"words": text_array(sorted(_count_abbreviations()))})
    return frozenset(w for w in array_text(arrays["words"]) if w)


def _count_abbreviations() -> frozenset[str]:
    """:func:`abbreviations`, counted in the treebank."""
    from charwise.speller.class_context import TREEBANK, treebank_sentences

    inside: Counter[str] = Counter()
    last: Counter[str] = Counter()
    for words in treebank_sentences(TREEBANK):
        for k, word in enumerate(words):
            if len(word) > 1 and word[-1] == "." and word[0].isalpha():
                parts = [p for p in word.split(".") if p]
                inside.update(parts[:-1])
                (last if k == len(words) - 1 else inside)[parts[-1]] += 1
            elif word == "." and k and k == len(words) - 1:
                last[words[k - 1]] += 1
    return frozenset(w for w, n in inside.items() if n >= ABBREVIATION_SEEN and n >= 9 * last[w])


def ends_sentence(word: str, previous: str = "") -> bool:
    """Whether ``word`` ends a sentence: it ends in one of :data:`SENTENCE_END`, and a full stop is
    no abbreviation's (``Mr.``, ``ft.``: :func:`abbreviations`; ``previous``, the word before a
    lone ``.``, is the one it abbreviates)."""
    if not word or word[-1] not in SENTENCE_END:
        return False
    if word[-1] != ".":
        return True
    found = _LAST_LETTERS.search(word)
    abbreviated = found.group(1) if found else previous if word == "." else ""
    return not abbreviated or abbreviated.lower() not in abbreviations()


def starts_after(word: str, start: bool, previous: str = "") -> bool:
    """Whether the word after ``word`` begins a sentence (``start``: whether ``word`` does;
    ``previous``: the word before it, which a lone full stop may abbreviate)."""
    if any(c.isalnum() for c in word):
        start = False
    return True if ends_sentence(word, previous) else start


def after_glued_dot(entries: Sequence[WordCorrection], space_before: Sequence[bool] | None, i: int) -> bool:
    """Whether word ``i`` follows a word and a full stop with no space between them (``user.id``, ``late.its``;
    by ``space_before``, None: unknown): part of a dotted name, or of two sentences run together, where the
    words around it say little. After an ellipsis (``...its``) the word is read as usual."""
    return (space_before is not None and i >= 2 and entries[i - 1].word == "." and not space_before[i - 1]
            and not space_before[i] and any(c.isalnum() for c in entries[i - 2].word))


def text_lines(texts: Sequence[str], starts: Sequence[bool] | None = None,
               ) -> tuple[list[tuple[int, int, str]], list[bool]]:
    """Each line of ``texts`` as ``(text index, offset in that text, line)`` (its line break kept
    with it), and whether each begins a sentence: a text's first line when its ``starts`` says so
    (default: every text does), every later line (a line break ends a sentence)."""
    if starts is not None and len(starts) != len(texts):
        raise ValueError(f"starts has {len(starts)} entries for {len(texts)} texts")
    lines: list[tuple[int, int, str]] = []
    line_starts: list[bool] = []
    for owner, text in enumerate(texts):
        offset = 0
        for k, line in enumerate(text.splitlines(keepends=True) or [text]):
            lines.append((owner, offset, line))
            line_starts.append(True if k or starts is None else bool(starts[owner]))
            offset += len(line)
    return lines, line_starts


class Suggestion(NamedTuple):
    """A candidate for a written word, with the probability that it is the intended word."""

    word: str
    probability: float


@dataclass(slots=True)  # one per word of every text corrected: no __dict__ each
class WordCorrection:
    """What the speller did with one word."""

    word: str
    correction: str
    looked_at: bool  # False: kept without a look (known, not alphabetic, short, a name by its case)
    start: int = 0  # where the word is in the text (characters): text[start:end] == word
    end: int = 0
    # for a looked-at word: that it is a misspelling of its best suggestion; for a changed word: that
    # the change is right (never 0 for a change that was made)
    probability: float = 0.0
    suggestions: list[Suggestion] = field(default_factory=list)
    kind: str = ""  # what the change is (one of CHANGE_KINDS); "" while the word is unchanged
    protected: bool = False  # inside a URL, e-mail, @handle, #hashtag, path, identifier... never changed
    # for a change: what decided it, where its candidate came from and the evidence, in words
    # ("spelling scorer: 0.89 >= 0.75 (candidates: edits, sound keys, known misspellings, encoder neighbours)");
    # for a word a decision read and kept, why ("confusion model (your/you're): kept; you're 0.15 < 0.50")
    decided_by: str = ""

    @property
    def changed(self) -> bool:
        return self.correction != self.word

    @property
    def joined_away(self) -> bool:
        """The second word of a merge (``some one`` -> ``someone``), the apostrophe of a dropped g
        (``goin'`` -> ``going``) or a word typed twice (``the the``): its correction is empty, the word
        before it stands for both."""
        return not self.correction and bool(self.word)

    @property
    def real_word(self) -> bool:
        """A valid word changed to another of its confusion set (then -> than)."""
        return self.kind == "real_word"


@dataclass
class CorrectedText:
    """A corrected text, word by word; every character that is not a changed word is kept as it was
    (whitespace included), and each word knows its offsets in the original ``text``."""

    text: str
    words: list[WordCorrection]

    def _spliced(self, shown: Any) -> str:
        parts, pos, words = [], 0, self.words
        for i, w in enumerate(words):
            if w.correction == w.word:  # unchanged (nearly every word): shown only before a word joined away
                if i + 1 == len(words) or words[i + 1].correction:
                    continue
            elif not w.correction:
                continue  # the second word of a merge: the first's correction stands for both
            end, j = w.end, i + 1
            while j < len(words) and not words[j].correction:  # what lies between them goes with them
                end, j = words[j].end, j + 1  # (a join's space; a word typed twice, the first unchanged)
            parts += [self.text[pos : w.start], shown(self.text[w.start : end], w.correction)]
            pos = end
        return "".join(parts) + self.text[pos:]

    @property
    def corrected(self) -> str:
        """The text with its corrections in place."""
        return self._spliced(lambda written, correction: correction)

    def marked(self) -> str:
        """The corrected text with each change shown as ``[written -> correction]``."""
        return self._spliced(lambda written, correction: f"[{written} -> {correction}]")

    def to_dict(self) -> dict[str, Any]:
        words = []
        for w in self.words:
            if w.looked_at or w.changed or w.decided_by:  # a word read and kept says why too
                entry = asdict(w)
                entry["suggestions"] = [{"word": s.word, "probability": round(s.probability, 4)}
                                        for s in w.suggestions]
                entry["probability"] = round(w.probability, 4)
                entry["changed"] = w.changed
                entry["real_word"] = w.real_word
                words.append(entry)
        return {"text": self.text, "corrected": self.corrected, "words": words}


def word_spans(text: str, words: list[str]) -> list[tuple[int, int]]:
    """Where each word of ``split_words(text)`` (no limits: words are exact substrings, in order) is."""
    spans, pos = [], 0
    for word in words:
        start = text.index(word, pos)
        pos = start + len(word)
        spans.append((start, pos))
    return spans


def restores_accents(word: str, suggestion: str) -> bool:
    """Whether ``suggestion`` is lower-case ``word`` with accents it lacks put back (``despues`` ->
    ``después``), and nothing else changed."""
    return suggestion != word and strip_accents(word) == word and strip_accents(suggestion) == word


#: English's first-person pronoun inside a correction (``i'm``, ``i love you``): always a capital,
#: whatever the case of the written word (``im`` -> ``I'm``; the writer's own ``i`` is not looked at)
_PRONOUN_I = re.compile(r"(?<![\w'])i(?=$|[\s'])")


def same_case(word: str, correction: str) -> str:
    """``correction`` in the case pattern of ``word`` (``Recieve`` -> ``Receive``), the pronoun
    ``I`` in capitals (``im`` -> ``I'm``)."""
    if len(word) > 1 and word.isupper():
        return correction.upper()
    if word[:1].isupper():
        correction = correction[:1].upper() + correction[1:]
    return _PRONOUN_I.sub("I", correction)


SPELLER_CANDIDATES = 3  # the speller's suggestions the normalisation judge reads


def speller_candidates(entry: WordCorrection, k: int = SPELLER_CANDIDATES) -> dict[str, float]:
    """The speller's best suggestions for a word it looked at, with their probabilities (its own
    correction first when it made one): the candidates the normalisation judge takes from it."""
    found: dict[str, float] = {}
    if entry.kind == "spelling":
        found[entry.correction.lower()] = entry.probability
    if entry.looked_at:
        for suggestion in entry.suggestions[:k]:
            found.setdefault(suggestion.word, suggestion.probability)
    return found
