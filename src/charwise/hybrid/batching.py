"""Array work behind :meth:`HybridModel.prepare <charwise.hybrid.model.HybridModel.prepare>`: raw
texts to words with regular expressions, words to pieces in one tokenizer call, and rows of ids to
padded index tensors in one go.

:func:`split_texts` gives exactly what :func:`charwise.words.split_words` gives (the same words,
space flags and ``truncated`` flag, under the same limits): each character is mapped to its class
under the splitter's own rules (:func:`charwise.words.char_kind`), and the splitter's loop becomes a
regular expression over those classes. Texts of ASCII characters only (most running text) skip the
mapping: a second expression reads them directly.

:func:`tokenize_words` gives each word exactly the pieces that tokenising it alone gives: a fast
tokenizer encodes every word of pre-split input on its own (normaliser, pre-tokenizer, model: the
steps a single text goes through), so words are sent as pre-split sequences and cut apart again by
:meth:`~transformers.BatchEncoding.word_ids`, which saves the per-text work of the Python wrapper.
"""

from __future__ import annotations

import re
import unicodedata
from itertools import accumulate, chain
from typing import Any, Sequence

import numpy as np
import torch

from charwise.words import JOINERS, SplitText, char_kind, check_limit, shorten_word

# One letter per character class of the splitter: S space, W word (L*, N*, "_"), M combining mark
# (a word character that also extends a run of symbols), F format (Cf), Y symbol (S*, Co),
# J joiner (apostrophe or hyphen, which keeps a word together between two word characters),
# P any other punctuation (one word each).
_TOKEN = re.compile(r"F*[WM](?:[WMF]|J[WM])*|F*Y[YFM]*|F+|[JP]")
_WORDS_PER_SEQUENCE = 64  # words sent as one pre-split sequence (the tokenizer spreads sequences over threads)
_MAX_CLASSES = 1 << 16  # characters whose class is remembered (a text of rare characters cannot grow it further)


def _char_class(char: str) -> str:
    kind = char_kind(char)
    if kind == "word":
        return "M" if unicodedata.category(char)[0] == "M" else "W"
    if kind == "punct":
        return "J" if char in JOINERS else "P"
    return {"space": "S", "format": "F", "symbol": "Y"}[kind]


_ASCII_CLASSES = {code: _char_class(chr(code)) for code in range(128)}
_classes: dict[int, str] = dict(_ASCII_CLASSES)


def _ascii_pattern() -> re.Pattern[str]:
    """The splitter for ASCII text, its character sets read from the classes (ASCII has no marks and
    no format characters, so a word is word characters joined by single joiners)."""
    def chars(*classes: str) -> str:
        return "".join(re.escape(chr(c)) for c, k in _ASCII_CLASSES.items() if k in classes)

    assert not set(_ASCII_CLASSES.values()) & {"M", "F"}, "ASCII characters changed class"
    word, joiner = f"[{chars('W')}]", f"[{chars('J')}]"
    return re.compile(f"([{chars('S')}]*)({word}+(?:{joiner}{word}+)*|[{chars('Y')}]+|[{chars('J', 'P')}])")


_ASCII_TOKEN = _ascii_pattern()


def _classes_of(text: str) -> str:
    """One class letter per character of ``text``."""
    global _classes
    table = _classes
    if not text.isascii():
        new = [c for c in set(text) if ord(c) not in table]
        if new:
            if len(table) + len(new) > _MAX_CLASSES:
                # a fresh table rather than clear(): another thread may be translating with this one
                table = dict(_ASCII_CLASSES)
            table.update((ord(c), _char_class(c)) for c in new)
            _classes = table
    return text.translate(table)  # this table holds every character of the text


def split_texts(texts: Sequence[str], *, max_words: int | None = None,
                max_word_chars: int | None = None) -> list[SplitText]:
    """:func:`charwise.words.split_words` of each text, with the same limits and results."""
    check_limit("max_words", max_words)
    check_limit("max_word_chars", max_word_chars)
    cap = max_words * (max_word_chars + 1) if max_words is not None and max_word_chars is not None else None
    out = []
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"split_words() takes a string, got {type(text).__name__}")
        truncated = False
        if cap is not None and len(text) > cap:
            text, truncated = text[:cap], True  # split_words reads no further either
        if text.isascii():
            found = _ASCII_TOKEN.findall(text)
            if max_words is not None and len(found) > max_words:
                found, truncated = found[:max_words], True
            words = [w for _, w in found]
            space_before = [s != "" for s, _ in found]
        else:
            classes = _classes_of(text)
            spans = [m.span() for m in _TOKEN.finditer(classes)]
            if max_words is not None and len(spans) > max_words:
                spans, truncated = spans[:max_words], True
            words = [text[s:e] for s, e in spans]
            space_before = [s > 0 and classes[s - 1] == "S" for s, _ in spans]
        if max_word_chars is not None and words and max(map(len, words)) > max_word_chars:
            words, truncated = [shorten_word(w, max_word_chars) for w in words], True
        out.append(SplitText(words, space_before, truncated))
    return out


def padded(rows: Sequence[Sequence[int]], segments: tuple[list[int], list[int]], pad_id: int,
           device: torch.device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(input_ids, attention_mask, word_index)`` for ``rows`` of ids, right-padded with ``pad_id``.

    ``segments`` are ``(values, lengths)`` runs that, laid end to end, give the word index of every
    id of every row in order (``-1`` for special tokens); padding gets ``-1`` too.
    """
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    width = int(lengths.max()) if len(rows) else 0
    real = np.arange(width) < lengths[:, None]  # (B, T): row-major order is the rows' order
    total = int(lengths.sum())
    input_ids = np.full((len(rows), width), pad_id, dtype=np.int64)
    input_ids[real] = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=total)
    word_index = np.full((len(rows), width), -1, dtype=np.int64)
    values, runs = segments
    word_index[real] = np.repeat(np.asarray(values, dtype=np.int64), np.asarray(runs, dtype=np.int64))
    return (torch.from_numpy(input_ids).to(device), torch.from_numpy(real.astype(np.int64)).to(device),
            torch.from_numpy(word_index).to(device))


def tokenize_words(tokenizer: Any, words: Sequence[str]) -> list[list[int]]:
    """The ids of each of ``words`` tokenised on its own, without special tokens.

    A fast tokenizer gets them in one call of pre-split sequences (the module says why the pieces are
    the same); any other tokenizer, or a sequence whose tokens do not all belong to a word, gets one
    text per word, as before.
    """
    if not words:
        return []
    if not getattr(tokenizer, "is_fast", False):
        return [list(row) for row in tokenizer(list(words), add_special_tokens=False)["input_ids"]]
    groups = [list(words[i : i + _WORDS_PER_SEQUENCE]) for i in range(0, len(words), _WORDS_PER_SEQUENCE)]
    # verbose=False: a sequence of many words may be longer than the model's window, which is no error here
    encoded = tokenizer(groups, is_split_into_words=True, add_special_tokens=False, return_attention_mask=False,
                        return_token_type_ids=False, verbose=False)
    out: list[list[int]] = []
    for g, group in enumerate(groups):
        ids, owners = encoded["input_ids"][g], encoded.word_ids(g)
        if None in owners:  # a token of no word: cannot be cut apart safely
            out.extend(list(row) for row in tokenizer(group, add_special_tokens=False)["input_ids"])
            continue
        # tokens come word by word, in order; a word the tokenizer erases owns none
        counts = np.bincount(np.asarray(owners, dtype=np.int64), minlength=len(group)).tolist() if owners else []
        bounds = list(accumulate(counts or [0] * len(group), initial=0))
        out.extend(ids[start:end] for start, end in zip(bounds, bounds[1:]))
    return out
