"""Tests for charwise.charset: string normalisation and the character vocabulary."""

from __future__ import annotations

import unicodedata

import pytest
import torch

from charwise.charset import END, NUM_RESERVED, PAD, PIECE, WORD, CharsetConfig, CharVocab, normalise


def norm(text: str, lowercase: bool = False, max_chars: int = 32, tail_chars: int = 8) -> str:
    return normalise(text, lowercase, max_chars, tail_chars)


# --- normalisation ---------------------------------------------------------------------------------
def test_nfc():
    assert norm("e\u0301") == "\u00e9"
    assert norm("cafe\u0301") == "caf\u00e9"
    assert norm("\u212b") == "\u00c5"  # ANGSTROM SIGN -> A with ring
    assert unicodedata.is_normalized("NFC", norm("A\u030a\u0301 o\u0308"))


@pytest.mark.parametrize("invisible", ["\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u202a", "\u202e",
                                       "\u2066", "\u2069", "\u00ad", "\ufeff", "\u2060", "\x00", "\x7f"])
def test_format_and_control_characters_are_removed(invisible):
    assert norm(f"a{invisible}b") == "ab"
    assert norm(invisible) == ""
    assert norm(f"{invisible}abc") == "abc"


def test_tabs_and_newlines_are_controls_and_removed():
    assert norm("\t\n") == ""
    assert norm("a\tb") == "ab"


def test_strip_keeps_inner_spaces():
    assert norm("  word \u3000") == "word"
    assert norm(" a b ") == "a b"
    assert norm("") == ""


def test_lowercase_and_accent_stripping_only_when_lowercase():
    assert norm("Naïve CAFÉ", lowercase=True) == "naive cafe"
    assert norm("Naïve CAFÉ", lowercase=False) == "Naïve CAFÉ"
    assert norm("e\u0301", lowercase=True) == "e"
    assert norm("Ångström", lowercase=True) == "angstrom"
    assert norm("Straße", lowercase=True) == "straße"  # lower() keeps ß; no Mn to strip
    assert norm("ÜBER", lowercase=False) == "ÜBER"


def test_truncation_keeps_head_and_tail():
    text = "abcdefghijklmnopqrstuvwxyz"  # 26 chars
    out = norm(text, max_chars=10, tail_chars=3)
    assert out == "abcdefg" + "xyz"
    assert len(out) == 10
    assert norm(text, max_chars=26, tail_chars=3) == text  # exactly max_chars: untouched
    assert norm(text, max_chars=25, tail_chars=3) == text[:22] + text[-3:]
    assert norm(text, max_chars=5, tail_chars=0) == "abcde"


def test_truncation_counts_characters_after_normalisation():
    # Stripped whitespace and removed invisibles do not count against max_chars.
    assert norm("  abcdefghij  ", max_chars=10, tail_chars=3) == "abcdefghij"
    assert norm("abc\u200bdefghij", max_chars=10, tail_chars=3) == "abcdefghij"
    # Decomposed input is composed first: 10 composed characters fit.
    assert norm("e\u0301" * 10, max_chars=10, tail_chars=3) == "\u00e9" * 10


def test_very_long_string():
    out = norm("x" * 10_000 + "ing", max_chars=32, tail_chars=8)
    assert out == "x" * 24 + "xxxxxing"


def test_invisible_character_between_letter_and_mark():
    assert norm("e\u200b\u0301") == norm("\u00e9") == "\u00e9"


# --- the vocabulary ------------------------------------------------------------------------------------
@pytest.fixture
def vocab() -> CharVocab:
    return CharVocab.build(["hello", "World", "naïve", "ing"], lowercase=False, hash_buckets=16,
                           max_chars=12, tail_chars=4)


def test_build_collects_sorted_normalised_characters(vocab):
    assert vocab.config.chars == sorted(set("helloWorldnaïveing"))
    assert vocab.size == NUM_RESERVED + 16 + len(vocab.config.chars)
    lower = CharVocab.build(["Naïve", "WORLD"], lowercase=True)
    assert lower.config.chars == sorted(set("naiveworld"))
    assert lower.config.lowercase is True
    # Build never truncates (every character of a long surface is collected).
    long = CharVocab.build(["a" * 40 + "z"], lowercase=False, max_chars=8, tail_chars=2)
    assert long.config.chars == ["a", "z"]


def test_known_characters_have_their_own_ids(vocab):
    ids = [vocab.char_id(c) for c in vocab.config.chars]
    assert ids == list(range(NUM_RESERVED + 16, vocab.size))


@pytest.mark.parametrize("char", ["😀", "中", "\ue000", "z", "Ж", "\U0010fffd"])
def test_unknown_characters_hash_into_buckets(vocab, char):
    i = vocab.char_id(char)
    assert NUM_RESERVED <= i < NUM_RESERVED + vocab.config.hash_buckets
    assert vocab.char_id(char) == i
    # Same bucket in a different vocabulary with the same number of buckets.
    other = CharVocab.build(["completely", "different"], lowercase=False, hash_buckets=16)
    assert other.char_id(char) == i


def test_hash_buckets_are_pinned():
    # Trained checkpoints depend on these ids; they must not change between processes or versions
    # (Python's hash() of a str is salted per process and would fail this).
    v64 = CharVocab(CharsetConfig(chars=[], hash_buckets=64))
    assert {c: v64.char_id(c) for c in ["😀", "中", "z", "é"]} == {"😀": 4, "中": 33, "z": 30, "é": 29}
    v7 = CharVocab(CharsetConfig(chars=[], hash_buckets=7))
    assert {c: v7.char_id(c) for c in ["😀", "中", "z", "é"]} == {"😀": 5, "中": 8, "z": 6, "é": 5}


def test_word_and_piece_markers(vocab):
    word = vocab.encode("ing", word_start=True)
    piece = vocab.encode("ing", word_start=False)
    assert word[0] == WORD and piece[0] == PIECE and WORD != PIECE
    assert word[1:] == piece[1:]
    assert word[-1] == END
    assert word[1:-1] == [vocab.char_id(c) for c in "ing"]


def test_empty_string(vocab):
    assert vocab.encode("") == [WORD, END]
    assert vocab.encode("", word_start=False) == [PIECE, END]
    assert vocab.encode(" \u200b\t") == [WORD, END]
    assert vocab.batch([""]).tolist() == [[WORD, END]]


def test_encode_applies_normalisation_and_truncation(vocab):
    assert vocab.encode("e\u0301") == vocab.encode("\u00e9")
    assert len(vocab.encode("x" * 1000)) == 12 + 2
    assert vocab.normalise("x" * 20 + "hello") == "x" * 8 + "ello"


def test_batch_padding_and_markers(vocab):
    out = vocab.batch(["hello", "", "ing"], [True, True, False])
    assert out.dtype == torch.long
    assert out.shape == (3, 7)
    assert out[0].tolist() == vocab.encode("hello")
    assert out[1].tolist() == [WORD, END] + [PAD] * 5
    assert out[2].tolist() == vocab.encode("ing", False) + [PAD] * 2
    assert (vocab.batch(["a", "b"], False)[:, 0] == PIECE).all()
    assert vocab.batch([]).shape == (0, 2)
    with pytest.raises(ValueError, match="length"):
        vocab.batch(["a", "b"], [True])


def test_no_real_id_is_padding(vocab):
    for text in ["hello", "😀", "\ue000", "中文"]:
        assert PAD not in vocab.encode(text)


def test_dict_round_trip(vocab):
    again = CharVocab.from_dict(vocab.to_dict())
    assert again.to_dict() == vocab.to_dict()
    for text in ["hello", "Naïve", "😀 x", ""]:
        assert again.encode(text) == vocab.encode(text)


def test_max_chars_must_exceed_tail_chars():
    with pytest.raises(ValueError, match="tail_chars"):
        CharVocab(CharsetConfig(max_chars=8, tail_chars=8))
