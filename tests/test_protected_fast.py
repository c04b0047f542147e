"""The faster paths of batch preparation against frozen copies of what they replaced (issue 58, item 6):
protected words (:func:`charwise.words.words_protected`, :func:`~charwise.words.protected_words`)
and the protected spans remembered per text, the foreign-sentence check's per-word kinds, the
confusion model's and the real-word checker's cheap first look, the speller's "one word alone"
count and the hybrid model's table look-up. Each oracle is the code as it was, kept here; the
inputs are the awkward ones: URLs, handles, emoji, CJK, empty strings and words, long lines."""

from __future__ import annotations

import copy
import random
import re
from typing import Sequence

import pytest
import torch
from torch import nn

from charwise.speller.confusions import APOSTROPHES, normal
from charwise.speller.foreign import MIN_FOREIGN_WORDS, OTHER_LANGUAGES, ForeignSentences
from charwise.speller.speller import one_word
from charwise.words import (
    SPANS_CACHE_CHARS,
    clear_spans_cache,
    protected_spans,
    protected_words,
    split_words,
    tokenised_spacing,
    words_protected,
)
from conftest import tiny_lexicon

TEXTS = [
    "", " ", "\t\n", ".", "!!!", "a", "I", "😀", "😀😀 🙈", "I ❤️ NY👨\u200d👩\u200d👧!", "foo\u200bbar \u200b",
    "日本語 и русский text", "中文 日本語 한국어 ok @中文 #日本", "cafe\u0301 naïve Zürich",
    "see https://t.co/abc and www.x.com/a_b, @Joe_B #tbt :) 5km 22 nd U.S. e.g. my_var getX np.a.b \\alpha $x^2$",
    "RT @user: check http://bit.ly/x1 !!! #win", "@a@b #a#b a@b.co x@y", "email jon.smiht@gmial.com now",
    "/r/soccer u/name ~/docs/a.txt C:\\Users\\x src/a.py", "10:30pm 3.5kg 100% 1,000.50 3rd", "xD :-) <3 ^_^ -_-",
    "this girli… https://t.co/pYYLmZ", "stateme…", "I recieved the pakage… and left", "so proud ahttps://twitter.com/b",
    "$5 + 3 = 8 ^_^ <3 :-)", "l'été’s it’s O'Neil -x- x-", "ALLCAPS MiXeD camelCase iPhone", "a_b __init__",
    "x" * 300, "y" * 1000 + " tail", " ".join(["recieve"] * 400), "word " * 300 + "http://example.com/" + "z" * 600,
    "caf\udce9 ok", "\ufeffBOM", "\x00\x01 ctrl",
]


def random_texts(seed: int, count: int) -> list[str]:
    """Mixes of the characters the protected kinds turn on, letters, emoji, CJK and whitespace."""
    rng = random.Random(seed)
    alphabet = list("abcxXdDpPmkAZ0123456789_-.:/\\@#$^<;=()'\"…") + ["😀", "中", "é", "\u200b"] + [" "] * 12
    return ["".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 3, 10, 40, 120, 1200])))
            for _ in range(count)]


# --- the oracles: the code as it was before issue 58 ------------------------------------------------
def old_protected_words(text: str, spans: Sequence[tuple[int, int]], patterns=()) -> list[bool]:
    merged: list[list[int]] = []
    for start, end in protected_spans(text, patterns):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    flags, j = [], 0
    for start, end in spans:
        while j < len(merged) and merged[j][1] <= start:
            j += 1
        flags.append(j < len(merged) and merged[j][0] < end)
    return flags


def old_words_protected(words, space_before=None, patterns=()) -> list[bool]:
    if space_before is None:
        space_before = tokenised_spacing(words)
    text, spans, pos = [], [], 0
    for i, (word, space) in enumerate(zip(words, space_before)):
        if space and i:
            text.append(" ")
            pos += 1
        text.append(word)
        spans.append((pos, pos + len(word)))
        pos += len(word)
    return old_protected_words("".join(text), spans, patterns)


def uncached_spans(text: str, patterns=()) -> list[tuple[int, int]]:
    from charwise.words import PROTECTED_PATTERNS, _built_in

    every = _built_in(tuple(PROTECTED_PATTERNS))
    spans = [m.span() for m in every.finditer(text) if m.end() > m.start()]
    for regex in patterns:
        spans += [m.span() for m in re.compile(regex).finditer(text) if m.end() > m.start()]
    return sorted(spans)


PATTERN_SETS = [(), (r"[a-z]+ing\b", r"\d"), (re.compile(r"(?i)teh"),)]


@pytest.mark.parametrize("patterns", PATTERN_SETS)
def test_words_protected_equals_the_word_by_word_oracle(patterns):
    texts = TEXTS + random_texts(1, 300)
    for _ in range(2):  # spans found, then remembered
        for text in texts:
            split = split_words(text)
            assert words_protected(split.words, split.space_before, patterns) == old_words_protected(
                split.words, split.space_before, patterns), text
            assert words_protected(split.words, None, patterns) == old_words_protected(split.words, None, patterns)
            # words given without their text: empty words, words with inner spaces, glued signs
        for words in (["", "", ""], ["@", "joe", "", "#", "tbt"], ["a b", "http://x.co", ""], ["u", "/", "name"], []):
            for spaces in ([True] * len(words), [False] * len(words), None):
                assert words_protected(words, spaces, patterns) == old_words_protected(words, spaces, patterns)


def test_protected_words_and_spans_equal_the_oracle_and_remembered_spans_are_fresh_lists():
    from charwise.speller.corrections import word_spans

    clear_spans_cache()
    for text in TEXTS + random_texts(2, 200):
        split = split_words(text)
        spans = word_spans(text, split.words)
        assert protected_words(text, spans) == old_protected_words(text, spans)
        for patterns in PATTERN_SETS[:2]:
            first = protected_spans(text, patterns)
            assert first == uncached_spans(text, patterns)
            first.append((-1, -1))  # a caller's change reaches neither the cache nor the next caller
            assert protected_spans(text, patterns) == uncached_spans(text, patterns)
    # the patterns are part of what is remembered: the same text with others finds their spans
    assert protected_spans("testing 123") == [(8, 11)]
    assert protected_spans("testing 123", [r"[a-z]+ing\b"]) == [(0, 7), (8, 11)]
    assert protected_spans("testing 123") == [(8, 11)]


def test_long_texts_are_not_remembered_and_the_cache_can_be_cleared():
    from charwise.words import _spans

    clear_spans_cache()
    assert _spans.cache_info().currsize == 0
    long = "see @joe " + "a" * SPANS_CACHE_CHARS
    assert protected_spans(long) == uncached_spans(long) == [(4, 8)]
    assert _spans.cache_info().currsize == 0
    protected_spans("see @joe")
    assert _spans.cache_info().currsize == 1
    clear_spans_cache()
    assert _spans.cache_info().currsize == 0


# --- foreign sentences ----------------------------------------------------------------------------
def old_foreign_call(check: ForeignSentences, words: Sequence[str]) -> bool:
    from charwise.speller.foreign import FOREIGN_SHARE

    letters = [w for w in words if len(w) >= 2 and w.isalpha() and w.islower()]
    if sum(not check.lexicon.knows(w) for w in letters) < MIN_FOREIGN_WORDS:
        return False
    foreign = sum(check._foreign(w) for w in letters)
    return foreign >= MIN_FOREIGN_WORDS and foreign >= FOREIGN_SHARE * len(letters)


@pytest.mark.parametrize("cache_size", [None, 3])
def test_foreign_check_with_remembered_word_kinds_equals_the_oracle(cache_size, monkeypatch):
    from charwise.speller import foreign as module

    if cache_size is not None:  # a table that starts afresh inside a sentence still gives every word its kind
        monkeypatch.setattr(module, "CACHE_SIZE", cache_size)
    check = ForeignSentences(tiny_lexicon(), OTHER_LANGUAGES["en"])
    sentences = [split_words(t).words for t in TEXTS] + [
        "Im Video kann man sehen , dass der nicht nur in die Menge fährt".split(),
        "vc me ama , eu te aviso qnd eu for fzr pra vc entrar".split(),
        "the the the".split(), "xq yq zq".split(), "xq xq xq".split(), "Xq yq zq wq".split(), [], [""],
        "ça va très bien merci beaucoup mon ami".split(), "日本語 中文 한국어 und so weiter".split()]
    for _ in range(2):
        for words in sentences:
            assert check(words) == old_foreign_call(check, words), words


# --- confusion sets, real words, one word alone -----------------------------------------------------
def test_normal_reads_letters_alone_without_the_apostrophe_table():
    rng = random.Random(0)
    chars = list("abcAB'’‘`1 -ßİΣς")
    words = ["", "It’s", "THEY‘RE", "you`re", "İ", "ΣΑΣ", "ß"] + [
        "".join(rng.choice(chars) for _ in range(rng.randint(0, 6))) for _ in range(5000)]
    for word in words:
        assert normal(word) == word.lower().translate(APOSTROPHES), word


@pytest.mark.parametrize("words", [[], [""], ["a"], ["😀"], ["😀", "a"], ["a", "b"], ["!", "?", "x1"], ["中文"],
                                   ["", "a", "", "…"], ["a-b"], ["'", "’"], ["\u200b"], ["x" * 300, "y"]])
def test_one_word_counts_words_with_a_letter_or_digit(words):
    assert one_word(words) == (sum(any(c.isalnum() for c in w) for w in words) == 1)


def test_confusions_read_the_sentence_as_changed_so_far():
    """decide_sentences reads a sentence's words only once a member is found: a change made earlier
    in the sentence is what the later members see, as before."""
    from charwise.speller.confusions import decide_sentences
    from charwise.speller.corrections import WordCorrection

    seen: list[list[str]] = []

    class Recording:
        language = "en"
        classes = None
        sets = (("its", "it's"), ("your", "you're"))
        _set_of = {"its": 0, "it's": 0, "your": 1, "you're": 1}
        threshold = 0.5
        decision = None
        slips = None

        def __contains__(self, word: object) -> bool:
            return isinstance(word, str) and normal(word) in self._set_of

        def change(self, words, index):
            seen.append(list(words))
            return ("it's", 0.9) if words[index] == "its" else None

        def set_of(self, words, index):  # what a member kept reads to say why (--json)
            return self._set_of.get(words[index])

        def best(self, words, index):
            return None

        def threshold_of(self, change):
            return self.threshold

    entries = [WordCorrection(w, w, False) for w in ["Its", "fine", "its", "your", "day", "’ok"]]
    decide_sentences(Recording(), [entries, [WordCorrection("ok", "ok", False)]], ["real_word"])  # type: ignore[arg-type]
    assert [e.correction for e in entries] == ["It's", "fine", "it's", "your", "day", "’ok"]
    assert seen == [["its", "fine", "its", "your", "day", "'ok"], ["it's", "fine", "its", "your", "day", "'ok"],
                    ["it's", "fine", "it's", "your", "day", "'ok"]]


# --- the table look-up -----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.float64, torch.bfloat16])
def test_look_up_equals_the_embedding_bit_for_bit(dtype):
    from charwise.hybrid.model import look_up

    torch.manual_seed(0)
    table = nn.Embedding(50, 8, padding_idx=0).to(dtype)
    ids = torch.randint(0, 50, (4, 7))
    with torch.inference_mode():
        got, want = look_up(table, ids), table(ids)
    assert got.dtype == want.dtype and got.shape == want.shape and torch.equal(got, want)
    empty = torch.zeros((0, 0), dtype=torch.long)
    with torch.no_grad():
        assert look_up(table, empty).shape == table(empty).shape == (0, 0, 8)
    # with a gradient to record: torch's embedding, gradient and all
    out = look_up(table, ids)
    assert out.requires_grad and torch.equal(out, table(ids))
    out.float().sum().backward()
    assert table.weight.grad is not None


def test_look_up_refuses_ids_out_of_range_as_torch_does():
    from charwise.hybrid.model import look_up

    table = nn.Embedding(10, 4)
    with torch.inference_mode():
        for bad in (torch.tensor([[1, -1]]), torch.tensor([[10]])):
            with pytest.raises(IndexError):
                table(bad)
            with pytest.raises(IndexError):
                look_up(table, bad)


def test_look_up_leaves_other_tables_to_torch():
    from charwise.hybrid.model import look_up

    class Scaled(nn.Embedding):
        def forward(self, ids):
            return super().forward(ids) * 2

    ids = torch.tensor([[1, 2, 3]])
    with torch.inference_mode():
        scaled = Scaled(10, 4)
        assert torch.equal(look_up(scaled, ids), scaled(ids))
        capped = nn.Embedding(10, 4, max_norm=0.1)  # renormalises its rows in place: torch's own
        twin = copy.deepcopy(capped)
        assert torch.equal(look_up(capped, ids), twin(ids)) and torch.equal(capped.weight, twin.weight)
