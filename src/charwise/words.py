"""Raw text -> words: the one documented word splitter used by hybrid models and the CLI.

A *word* is one of:

- a run of letters, digits and combining marks (Unicode categories L*, N*, M*), where an
  apostrophe (``'`` or ``’``) or a hyphen between two such characters keeps the run together
  (``don't``, ``state-of-the-art``);
- a single punctuation character (``,`` ``.`` ``(``), as BERT's basic tokenizer splits them;
- a run of symbols (categories S*: emoji, currency, maths), with the joiners, variation
  selectors and skin-tone modifiers that belong to them, so that one emoji stays one word.

Whitespace separates words and is remembered per word (``space_before``), because byte-level BPE
tokenizers spell a word differently after a space (``Ġworld``) than glued to the previous word.
Format characters (zero-width space, joiners, bidi marks) never split a word: they stay inside the
word they touch, and the character encoder drops them during normalisation. No character of the
input is lost except whitespace.

Limits (for text of any length in bounded memory): ``split_words(text, max_words=N)`` stops after
``N`` words, and ``max_word_chars=C`` shortens a longer word to its first and last ``C // 2``
characters (:func:`shorten_word`); with both, only the first ``N * (C + 1)`` characters of the text
are read. :attr:`SplitText.truncated` says whether either limit changed the result. Hybrid models
split with their window as ``max_words`` and :data:`MAX_WORD_CHARS`.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from charwise.errors import ConfigError

JOINERS = {"'", "\u2019", "-"}  # keep a word together between two word characters (don't, well-known)
MAX_WORD_CHARS = 256  # characters of a word that hybrid models and character encoders read


@dataclass(frozen=True)
class SplitText:
    """Words of a text and, for each, whether whitespace preceded it."""

    words: list[str]
    space_before: list[bool]
    truncated: bool = False  # a limit of split_words dropped words or shortened one


def shorten_word(word: str, max_chars: int = MAX_WORD_CHARS) -> str:
    """``word`` if it has at most ``max_chars`` characters, else its first and last ``max_chars // 2``
    (the stem and the ending, which is what a character encoder reads of a long word anyway)."""
    if len(word) <= max_chars:
        return word
    head = max_chars - max_chars // 2
    return word[:head] + word[len(word) - max_chars // 2 :]


def char_kind(char: str) -> str:
    """The splitter's class of a character: ``space``, ``word`` (letters, digits, marks, ``_``),
    ``format`` (Cf), ``symbol`` (S*, private use) or ``punct``."""
    if char.isspace():
        return "space"
    cat = unicodedata.category(char)
    if cat[0] in "LNM" or char == "_":
        return "word"
    if cat == "Cf":
        return "format"
    if cat[0] == "S" or cat == "Co":
        return "symbol"
    return "punct"


def check_limit(name: str, value: int | None) -> None:
    """A one-line ConfigError unless ``value`` is a positive integer or None."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ConfigError(f"{name} must be a positive integer or None, got {value!r}")


def split_words(text: str, *, max_words: int | None = None, max_word_chars: int | None = None) -> SplitText:
    """Split ``text`` into words (see the module docstring); ``""`` and whitespace give no words.

    ``max_words`` keeps the first words only; ``max_word_chars`` shortens longer words
    (:func:`shorten_word`); see the module's limits.
    """
    if not isinstance(text, str):
        raise TypeError(f"split_words() takes a string, got {type(text).__name__}")
    check_limit("max_words", max_words)
    check_limit("max_word_chars", max_word_chars)
    words: list[str] = []
    space_before: list[bool] = []
    seen_space = False
    truncated = False
    n = len(text)
    if max_words is not None and max_word_chars is not None and n > max_words * (max_word_chars + 1):
        n, truncated = max_words * (max_word_chars + 1), True
    i = 0
    while i < n:
        kind = char_kind(text[i])
        if kind == "space":
            seen_space, i = True, i + 1
            continue
        if max_words is not None and len(words) == max_words:
            truncated = True
            break
        start, i = i, i + 1
        if kind != "punct":
            run = kind if kind != "format" else ""  # a leading format character takes the next kind
            while i < n:
                char, nxt = text[i], char_kind(text[i])
                if nxt == "format" or nxt == run:
                    i += 1
                elif not run and nxt in ("word", "symbol"):
                    run, i = nxt, i + 1
                elif run == "symbol" and unicodedata.category(char)[0] == "M":
                    i += 1  # variation selectors and enclosing keycaps belong to the emoji
                elif run == "word" and char in JOINERS and i + 1 < n and char_kind(text[i + 1]) == "word":
                    i += 2
                else:
                    break
        word = text[start:i]
        if max_word_chars is not None and len(word) > max_word_chars:
            word, truncated = shorten_word(word, max_word_chars), True
        words.append(word)
        space_before.append(seen_space)
        seen_space = False
    return SplitText(words, space_before, truncated)


def join_words(words: list[str], space_before: list[bool]) -> str:
    """The inverse of :func:`split_words` up to the kind and amount of whitespace."""
    return "".join((" " if s and i else "") + w for i, (w, s) in enumerate(zip(words, space_before)))
