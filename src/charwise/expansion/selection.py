"""Which words to add, and in which form: word lists, corpus counting, whole-word vocabulary forms.

Words to add come from a word list (:func:`select_words`) or from a plain-text corpus
(:func:`select_from_corpus`, read with :func:`read_corpus_lines`). Each is normalised as the
teacher's tokenizer normalises text and written in the vocabulary form of its family
(:func:`word_token`): WordPiece the normalised word, byte-level BPE ``Ġword`` (so that `` word``
inside a sentence is one token), SentencePiece ``▁word``. Every skipped word is recorded in the
:class:`Selection`, with the reason.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from charwise.errors import ConfigError, MissingInputError
from charwise.io import read_lines
from charwise.teachers import Teacher, _byte_decoder

REPORT_EXAMPLES = 50  # examples of each kind of skipped or fallback word kept in the report


def _backend(teacher: Teacher) -> Any:
    backend = getattr(teacher.tokenizer, "backend_tokenizer", None)
    if backend is None:
        raise ConfigError(f"vocabulary expansion needs a fast (Rust-backed) tokenizer; teacher '{teacher.name}' "
                          "has a slow one")
    return backend


#: The word at the start of a SentencePiece pre-token: letters/digits, with inner hyphens or apostrophes.
_SENTENCEPIECE_WORD = re.compile(r"▁\w+(?:['’-]\w+)*")


def _has_letter(text: str) -> bool:
    return any(c.isalpha() for c in text)


def _token_surface(teacher: Teacher, token: str) -> str | None:
    """The word a word-start pre-token stands for, or None if the pre-token does not start a word."""
    if teacher.family == "wordpiece":
        return token
    if teacher.family == "byte-bpe":
        decoder = _byte_decoder()
        try:
            text = bytes(decoder[c] for c in token).decode("utf-8")
        except (KeyError, UnicodeDecodeError):
            return None
        return text[1:] if text.startswith(" ") and len(text) > 1 else None
    return token[1:] if token.startswith("▁") and len(token) > 1 else None


def word_token(teacher: Teacher, word: str) -> tuple[str, str] | None:
    """``(surface, token)`` of ``word`` as a whole-word vocabulary entry of ``teacher``.

    The word is normalised as the tokenizer normalises text (BERT uncased: lower-cased, accents
    stripped) and must stay ONE pre-token (no spaces, no punctuation that the pre-tokenizer splits
    off), otherwise no vocabulary entry could ever match it and None is returned. ``token`` is the
    vocabulary string: the word itself (WordPiece), ``Ġword`` in byte-level characters (byte-level
    BPE), ``▁word`` (SentencePiece).
    """
    backend = _backend(teacher)
    word = word.strip()
    if not word or any(c.isspace() for c in word):
        return None
    norm = backend.normalizer.normalize_str(word) if backend.normalizer is not None else word
    # BertNormalizer puts spaces around CJK characters: such a "word" is several pre-tokens.
    if not norm or any(c.isspace() for c in norm):
        return None
    text = norm if teacher.family == "wordpiece" else " " + norm
    if backend.pre_tokenizer is None:
        pre = [(text.replace(" ", "▁") if teacher.family == "sentencepiece" else text, (0, len(text)))]
    else:
        pre = backend.pre_tokenizer.pre_tokenize_str(text)
    if len(pre) != 1:
        return None
    token = pre[0][0]
    surface = _token_surface(teacher, token)
    if surface is None:
        return None
    # WordPiece maps any longer word to [UNK] before looking at the vocabulary.
    limit = getattr(backend.model, "max_input_chars_per_word", None)
    if teacher.family == "wordpiece" and limit is not None and len(token) > limit:
        return None
    return surface, token


@dataclass
class Selection:
    """The words to add (normalised surfaces and vocabulary tokens) and what was skipped, and why."""

    words: list[str] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    counts: list[int] | None = None  # corpus occurrences, corpus mode only
    in_vocab: list[str] = field(default_factory=list)  # already one vocabulary token
    not_a_word: list[str] = field(default_factory=list)  # the pre-tokenizer splits it: no token can match
    duplicates: list[str] = field(default_factory=list)  # given again (after normalisation)
    empty_lines: int = 0
    below_min_count: int = 0
    no_letter: int = 0
    truncated: int = 0  # dropped by max_words (the least frequent)

    def summary(self) -> dict[str, Any]:
        """Counts plus up to 50 examples of each skipped kind (for the report)."""
        out: dict[str, Any] = {"selected": len(self.words)}
        for key in ("in_vocab", "not_a_word", "duplicates"):
            items = getattr(self, key)
            out[key] = {"count": len(items), "examples": items[:REPORT_EXAMPLES]}
        out["empty_lines"] = self.empty_lines
        if self.counts is not None:
            out["below_min_count"] = self.below_min_count
            out["no_letter"] = self.no_letter
            out["dropped_by_max_words"] = self.truncated
        return out


def select_words(teacher: Teacher, lines: Iterable[str]) -> Selection:
    """Words from a word list: empty lines ignored, duplicates removed, words already single
    vocabulary tokens and strings no token can match skipped; every skip is recorded."""
    vocab = teacher.tokenizer.get_vocab()
    sel = Selection()
    seen: set[str] = set()
    for line in lines:
        word = line.strip()
        if not word:
            sel.empty_lines += 1
            continue
        form = word_token(teacher, word)
        if form is None:
            sel.not_a_word.append(word)
        elif form[1] in vocab:
            sel.in_vocab.append(word)
        elif form[1] in seen:
            sel.duplicates.append(word)
        else:
            seen.add(form[1])
            sel.words.append(form[0])
            sel.tokens.append(form[1])
    return sel


def corpus_word_counts(teacher: Teacher, lines: Iterable[str]) -> Counter[str]:
    """Occurrences of each word-start pre-token (vocabulary form) in plain text, one sentence a line.

    The text goes through the tokenizer's own normaliser and pre-tokenizer, so words are counted
    exactly as the tokenizer will see them (lower-cased for uncased teachers, punctuation split
    off). Byte-level BPE and SentencePiece: only pre-tokens that start a word (``Ġ`` / ``▁``) count,
    since only those can become whole-word tokens (``smallbiz`` in ``#smallbiz`` is not one).
    """
    backend = _backend(teacher)
    counts: Counter[str] = Counter()
    for line in lines:
        if not line.strip():
            continue
        if teacher.family == "wordpiece":
            text = backend.normalizer.normalize_str(line) if backend.normalizer is not None else line
            pieces = backend.pre_tokenizer.pre_tokenize_str(text)
            counts.update(p for p, _ in pieces)
            continue
        # A space first: the line's first word appears as it would inside a sentence.
        text = " " + line.strip()
        if backend.normalizer is not None:
            text = backend.normalizer.normalize_str(text)
        pieces = backend.pre_tokenizer.pre_tokenize_str(text)
        if teacher.family == "byte-bpe":
            counts.update(p for p, _ in pieces if p.startswith("Ġ") and len(p) > 1)
            continue
        # SentencePiece pre-tokenizes on spaces only: "▁hermanos," holds the word "▁hermanos",
        # which, once a token, also serves "hermanos," (Unigram reads the comma as its own piece).
        for p, _ in pieces:
            word = _SENTENCEPIECE_WORD.match(p)
            if word is not None:
                counts[word.group(0)] += 1
    return counts


def read_corpus_lines(path: str | os.PathLike) -> list[str]:
    """Lines of a UTF-8 plain-text corpus file, or of every file in a directory (sorted by name,
    hidden files skipped), such as WNUT 2017's ``raw_text/``."""
    path = Path(path)
    if path.is_dir():
        files = sorted(f for f in path.iterdir() if f.is_file() and not f.name.startswith("."))
        if not files:
            raise MissingInputError(f"corpus directory {path} holds no files")
        return [line for f in files for line in read_lines(f)]
    return read_lines(path)


def select_from_corpus(teacher: Teacher, lines: Iterable[str], min_count: int, max_words: int = 0) -> Selection:
    """Words of a plain-text corpus that are not one vocabulary token (the tokenizer splits them
    into several pieces, or maps them to the unknown token), seen at least ``min_count`` times and
    containing a letter; most frequent first (ties alphabetical), at most ``max_words`` (0: all)."""
    if max_words < 0:
        raise ConfigError(f"max_words must be >= 0 (0: no limit), got {max_words}")
    if min_count < 1:
        raise ConfigError(f"min_count must be at least 1, got {min_count}")
    vocab = teacher.tokenizer.get_vocab()
    counts = corpus_word_counts(teacher, lines)
    kept_counts: list[int] = []
    sel = Selection(counts=kept_counts)
    chosen: list[tuple[int, str, str]] = []
    known: list[tuple[int, str]] = []
    for token, count in counts.items():
        surface = _token_surface(teacher, token)
        if surface is None:
            continue
        if not _has_letter(surface):  # numbers, punctuation: not words
            sel.no_letter += 1
        elif token in vocab:
            known.append((count, surface))
        elif count < min_count:
            sel.below_min_count += 1
        else:
            chosen.append((count, surface, token))
    chosen.sort(key=lambda c: (-c[0], c[1]))
    if max_words and len(chosen) > max_words:
        sel.truncated = len(chosen) - max_words
        chosen = chosen[:max_words]
    sel.in_vocab = [surface for _, surface in sorted(known, key=lambda c: (-c[0], c[1]))]
    for count, surface, token in chosen:
        sel.words.append(surface)
        sel.tokens.append(token)
        kept_counts.append(count)
    return sel

