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
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

_JOINERS = {"'", "\u2019", "-"}


@dataclass(frozen=True)
class SplitText:
    """Words of a text and, for each, whether whitespace preceded it."""

    words: list[str]
    space_before: list[bool]


def _kind(char: str) -> str:
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


def split_words(text: str) -> SplitText:
    """Split ``text`` into words (see the module docstring); ``""`` and whitespace give no words."""
    if not isinstance(text, str):
        raise TypeError(f"split_words() takes a string, got {type(text).__name__}")
    words: list[str] = []
    space_before: list[bool] = []
    seen_space = False
    i, n = 0, len(text)
    while i < n:
        kind = _kind(text[i])
        if kind == "space":
            seen_space, i = True, i + 1
            continue
        start, i = i, i + 1
        if kind != "punct":
            run = kind if kind != "format" else ""  # a leading format character takes the next kind
            while i < n:
                char, nxt = text[i], _kind(text[i])
                if nxt == "format" or nxt == run:
                    i += 1
                elif not run and nxt in ("word", "symbol"):
                    run, i = nxt, i + 1
                elif run == "symbol" and unicodedata.category(char)[0] == "M":
                    i += 1  # variation selectors and enclosing keycaps belong to the emoji
                elif run == "word" and char in _JOINERS and i + 1 < n and _kind(text[i + 1]) == "word":
                    i += 2
                else:
                    break
        words.append(text[start:i])
        space_before.append(seen_space)
        seen_space = False
    return SplitText(words, space_before)


def join_words(words: list[str], space_before: list[bool]) -> str:
    """The inverse of :func:`split_words` up to the kind and amount of whitespace."""
    return "".join((" " if s and i else "") + w for i, (w, s) in enumerate(zip(words, space_before)))
