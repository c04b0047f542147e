"""Tests for charwise.teachers: vocabulary normalisation for the three tokenizer families, family and
lower-casing detection, pieces, vocabulary hashes and loading (missing paths, tiny HF directories,
real weights)."""

from __future__ import annotations

import hashlib
import json

import pytest
import torch

from charwise.teachers import (
    KINDS,
    Teacher,
    TeacherNotFoundError,
    builtin_teacher_path,
    detect_family,
    detect_lowercase,
    normalise_vocabulary,
    vocabulary_hash,
)

_VOCABS: dict[int, dict[str, int]] = {}


def row(teacher: Teacher, token: str) -> tuple[str, bool, str]:
    """(surface, word_start, kind) of a token string of the teacher's vocabulary."""
    if teacher.name not in _VOCABS:  # get_vocab() builds a 250k-entry dict for XLM-R: do it once
        _VOCABS[teacher.name] = teacher.tokenizer.get_vocab()
    vocab = _VOCABS[teacher.name]
    assert token in vocab, f"{token!r} is not in {teacher.name}'s vocabulary"
    i = vocab[token]
    assert teacher.vocab.tokens[i] == token
    return teacher.vocab.surfaces[i], teacher.vocab.word_start[i], teacher.vocab.kinds[i]


@pytest.fixture(params=["wordpiece", "bytebpe", "sentencepiece"])
def any_teacher(request) -> Teacher:
    return request.getfixturevalue(f"{request.param}_teacher")


# --- WordPiece (MiniLM) -----------------------------------------------------------------------------
class TestWordPiece:
    def test_family_and_lowercase(self, wordpiece_teacher, wordpiece_tokenizer):
        assert detect_family(wordpiece_tokenizer) == "wordpiece"
        assert detect_lowercase(wordpiece_tokenizer) is True
        assert wordpiece_teacher.family == "wordpiece"
        assert wordpiece_teacher.lowercase is True

    def test_continuation_marker_is_stripped(self, wordpiece_teacher):
        assert row(wordpiece_teacher, "##ing") == ("ing", False, "normal")
        assert row(wordpiece_teacher, "##s") == ("s", False, "normal")

    def test_whole_word(self, wordpiece_teacher):
        assert row(wordpiece_teacher, "the") == ("the", True, "normal")
        assert row(wordpiece_teacher, "playing") == ("playing", True, "normal")

    @pytest.mark.parametrize("token", ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    def test_special_tokens(self, wordpiece_teacher, token):
        surface, _, kind = row(wordpiece_teacher, token)
        assert kind == "special"

    @pytest.mark.parametrize("token", ["[unused0]", "[unused1]", "[unused993]"])
    def test_unused(self, wordpiece_teacher, token):
        assert row(wordpiece_teacher, token)[2] == "unused"

    def test_pieces_have_no_leading_space_rule(self, wordpiece_teacher):
        tok = wordpiece_teacher.tokenizer
        for word in ["playing", "unbelievable", "charwise"]:
            assert wordpiece_teacher.pieces(word) == tok.tokenize(word)
        assert wordpiece_teacher.piece_ids(["the"]) == [[tok.get_vocab()["the"]]]
        # Continuations keep their marker in the raw pieces.
        assert any(p.startswith("##") for p in wordpiece_teacher.pieces("charwise"))

    def test_hash_is_pinned(self, wordpiece_teacher):
        # The hash is written into every trained encoder's config.json; it must not drift for the
        # same tokenizer file, or every shipped encoder would be refused by check_teacher.
        assert wordpiece_teacher.vocab_hash == "0f052197aac305fe"


# --- byte-level BPE (SmolLM2) -----------------------------------------------------------------------
class TestByteBPE:
    def test_family_and_lowercase(self, bytebpe_teacher, bytebpe_tokenizer):
        assert detect_family(bytebpe_tokenizer) == "byte-bpe"
        assert detect_lowercase(bytebpe_tokenizer) is False
        assert bytebpe_teacher.family == "byte-bpe"
        assert bytebpe_teacher.lowercase is False

    def test_space_marker(self, bytebpe_teacher):
        assert row(bytebpe_teacher, "Ġthe") == ("the", True, "normal")
        assert row(bytebpe_teacher, "the") == ("the", False, "normal")

    def test_byte_level_characters_decode_to_text(self, bytebpe_teacher):
        # 'Ã©' is the byte-level spelling of UTF-8 c3 a9, i.e. 'é'.
        assert row(bytebpe_teacher, "Ã©") == ("é", False, "normal")
        assert row(bytebpe_teacher, "ĠJosÃ©") == ("José", True, "normal")
        assert row(bytebpe_teacher, "ä¸Ń") == ("中", False, "normal")

    def test_some_token_with_non_ascii_bytes_exists_and_decodes(self, bytebpe_teacher):
        found = [
            (t, s) for t, s, k in zip(bytebpe_teacher.vocab.tokens, bytebpe_teacher.vocab.surfaces,
                                      bytebpe_teacher.vocab.kinds)
            if "Ã©" in t and k == "normal"
        ]
        assert found
        for token, surface in found:
            assert "é" in surface and "Ã" not in surface, (token, surface)

    @pytest.mark.parametrize("token", ["Ã", "ĠÃ"])
    def test_partial_utf8_is_byte(self, bytebpe_teacher, token):
        # A lone lead byte c3 is not valid UTF-8 on its own.
        assert row(bytebpe_teacher, token)[2] == "byte"

    def test_whitespace_rows(self, bytebpe_teacher):
        assert row(bytebpe_teacher, "Ġ") == ("", True, "whitespace")
        assert row(bytebpe_teacher, "Ċ") == ("\n", False, "whitespace")
        assert row(bytebpe_teacher, "ĠĠ")[2] == "whitespace"

    @pytest.mark.parametrize("token", ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<repo_name>"])
    def test_special_tokens(self, bytebpe_teacher, token):
        assert row(bytebpe_teacher, token)[2] == "special"

    def test_surfaces_agree_with_the_tokenizers_own_decoder(self, bytebpe_teacher):
        tok = bytebpe_teacher.tokenizer
        v = bytebpe_teacher.vocab
        checked = 0
        for i in range(0, len(v.tokens), 7):  # a deterministic 1/7 sample of the table
            if v.kinds[i] not in ("normal", "whitespace"):
                continue
            expected = tok.convert_tokens_to_string([v.tokens[i]])
            assert (" " if v.word_start[i] else "") + v.surfaces[i] == expected, v.tokens[i]
            checked += 1
        assert checked > 5000

    def test_pieces_use_the_leading_space_rule(self, bytebpe_teacher):
        tok = bytebpe_teacher.tokenizer
        assert bytebpe_teacher.pieces("the") == ["Ġthe"]
        for word in ["unbelievable", "naïve", "Hello"]:
            pieces = bytebpe_teacher.pieces(word)
            assert pieces == tok.tokenize(" " + word)
            assert pieces[0].startswith("Ġ")
        assert bytebpe_teacher.piece_ids(["the"]) == [[tok.get_vocab()["Ġthe"]]]


# --- SentencePiece (XLM-R) ---------------------------------------------------------------------------
class TestSentencePiece:
    def test_family_and_lowercase(self, sentencepiece_teacher, sentencepiece_tokenizer):
        assert detect_family(sentencepiece_tokenizer) == "sentencepiece"
        assert detect_lowercase(sentencepiece_tokenizer) is False
        assert sentencepiece_teacher.family == "sentencepiece"
        assert sentencepiece_teacher.lowercase is False

    def test_word_marker(self, sentencepiece_teacher):
        assert row(sentencepiece_teacher, "▁the") == ("the", True, "normal")
        assert row(sentencepiece_teacher, "the") == ("the", False, "normal")

    def test_bare_marker_is_whitespace(self, sentencepiece_teacher):
        assert row(sentencepiece_teacher, "▁") == ("", True, "whitespace")

    @pytest.mark.parametrize("token", ["<s>", "</s>", "<pad>", "<unk>", "<mask>"])
    def test_special_tokens_from_added_tokens(self, sentencepiece_teacher, token):
        # The bare tokenizer.json declares these only as added tokens with special=True.
        assert row(sentencepiece_teacher, token)[2] == "special"

    def test_no_surface_keeps_the_marker(self, sentencepiece_teacher):
        v = sentencepiece_teacher.vocab
        assert not any(s.startswith("▁") for s, k in zip(v.surfaces, v.kinds) if k == "normal")

    def test_pieces_use_the_leading_space_rule(self, sentencepiece_teacher):
        tok = sentencepiece_teacher.tokenizer
        assert sentencepiece_teacher.pieces("the") == ["▁the"]
        pieces = sentencepiece_teacher.pieces("unbelievable")
        assert pieces == tok.tokenize(" unbelievable")
        assert pieces[0].startswith("▁") and len(pieces) > 1
        assert sentencepiece_teacher.piece_ids(["the"]) == [[tok.get_vocab()["▁the"]]]


# --- all families ----------------------------------------------------------------------------------
def test_declared_special_ids_are_special(any_teacher):
    ids = set(any_teacher.tokenizer.all_special_ids)
    ids |= {i for i, t in any_teacher.tokenizer.added_tokens_decoder.items() if t.special}
    assert ids
    for i in ids:
        assert any_teacher.vocab.kinds[i] == "special", any_teacher.vocab.tokens[i]


def test_view_is_consistent(any_teacher):
    v = any_teacher.vocab
    V = any_teacher.vocab_size
    assert len(v.tokens) == len(v.surfaces) == len(v.word_start) == len(v.kinds) == V
    assert set(v.kinds) <= set(KINDS)
    assert any_teacher.normal_mask.shape == any_teacher.word_start_mask.shape == (V,)
    assert any_teacher.normal_mask.dtype == torch.bool
    assert int(any_teacher.normal_mask.sum()) == v.kinds.count("normal")
    # normal rows always carry visible text
    assert all(s.strip() for s, k in zip(v.surfaces, v.kinds) if k == "normal")
    assert any_teacher.dim == 16
    assert any_teacher.embeddings.dtype == torch.float32


def test_whole_word_rows_are_the_first_normal_word_start_row_of_each_surface(any_teacher):
    v = any_teacher.vocab
    first: dict[str, int] = {}
    for i, surface in enumerate(v.surfaces):
        if v.kinds[i] == "normal" and v.word_start[i]:
            first.setdefault(surface, i)
    rows = any_teacher.whole_word_rows()
    assert rows == first and list(rows.values()) == sorted(rows.values()) and rows
    assert bool((any_teacher.normal_mask & any_teacher.word_start_mask)[list(rows.values())].all())


def test_describe(any_teacher):
    d = any_teacher.describe()
    assert d == {"name": any_teacher.name, "vocab_hash": any_teacher.vocab_hash, "dim": 16,
                 "family": any_teacher.family}
    json.dumps(d)


def test_vocab_hash_is_stable(any_teacher):
    h = any_teacher.vocab_hash
    assert len(h) == 16 and int(h, 16) >= 0
    assert h == vocabulary_hash(list(any_teacher.vocab.tokens))
    assert h == hashlib.sha256("\n".join(any_teacher.vocab.tokens).encode("utf-8")).hexdigest()[:16]


def test_vocab_hash_ignores_embedding_values_and_name(wordpiece_teacher):
    tok = wordpiece_teacher.tokenizer
    other = Teacher.from_parts(tok, torch.zeros_like(wordpiece_teacher.embeddings), name="other")
    assert other.vocab_hash == wordpiece_teacher.vocab_hash


def test_vocab_hash_differs_between_vocabularies(wordpiece_teacher, sentencepiece_teacher):
    assert wordpiece_teacher.vocab_hash != sentencepiece_teacher.vocab_hash
    tokens = list(wordpiece_teacher.vocab.tokens)
    tokens[2000] = tokens[2000] + "x"
    assert vocabulary_hash(tokens) != wordpiece_teacher.vocab_hash


def test_extra_table_rows_are_unused(wordpiece_tokenizer):
    V = len(wordpiece_tokenizer.get_vocab())
    teacher = Teacher.from_parts(wordpiece_tokenizer, torch.zeros(V + 3, 4), name="padded")
    assert teacher.vocab_size == V + 3
    assert teacher.vocab.kinds[-3:] == ["unused"] * 3
    assert teacher.vocab.tokens[-3:] == [""] * 3
    assert not teacher.normal_mask[-3:].any()


def test_from_parts_rejects_bad_tables(wordpiece_tokenizer):
    V = len(wordpiece_tokenizer.get_vocab())
    with pytest.raises(ValueError, match="2-D"):
        Teacher.from_parts(wordpiece_tokenizer, torch.zeros(V), name="x")
    with pytest.raises(ValueError, match="rows"):
        Teacher.from_parts(wordpiece_tokenizer, torch.zeros(V - 1, 4), name="x")


def test_detect_family_rejects_unsupported_model():
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace
    from transformers import PreTrainedTokenizerFast

    raw = Tokenizer(WordLevel({"a": 0, "b": 1, "[UNK]": 2}, unk_token="[UNK]"))
    raw.pre_tokenizer = Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=raw)
    with pytest.raises(ValueError, match="unsupported"):
        detect_family(tok)
    assert detect_lowercase(tok) is False


def test_detect_lowercase_finds_nested_lowercase_normalizer():
    from tokenizers import Tokenizer, normalizers
    from tokenizers.models import WordPiece
    from transformers import PreTrainedTokenizerFast

    raw = Tokenizer(WordPiece({"[UNK]": 0, "a": 1, "##b": 2}, unk_token="[UNK]"))
    raw.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase()])
    tok = PreTrainedTokenizerFast(tokenizer_object=raw)
    assert detect_lowercase(tok) is True
    assert detect_family(tok) == "wordpiece"
    view = normalise_vocabulary(tok, "wordpiece", 3)
    assert view.surfaces == ["[UNK]", "a", "b"]
    assert view.word_start == [True, True, False]


def test_detect_family_needs_a_fast_tokenizer():
    class Slow:
        pass

    with pytest.raises(ValueError, match="fast"):
        detect_family(Slow())


# --- loading ---------------------------------------------------------------------------------------
def test_load_missing_path(tmp_path):
    missing = tmp_path / "no-such-model"
    with pytest.raises(TeacherNotFoundError) as info:
        Teacher.load(missing)
    message = str(info.value)
    assert str(missing) in message
    assert "minilm" in message and "gguf" in message  # says what would have worked
    assert isinstance(info.value, FileNotFoundError)


def test_load_rejects_non_gguf_file(tmp_path):
    f = tmp_path / "weights.bin"
    f.write_bytes(b"\0" * 16)
    with pytest.raises(TeacherNotFoundError, match="gguf"):
        Teacher.load(f)


def test_load_rejects_directory_without_config(tmp_path):
    with pytest.raises(TeacherNotFoundError, match="config.json"):
        Teacher.load(tmp_path)


def test_unknown_builtin():
    with pytest.raises(TeacherNotFoundError, match="minilm"):
        builtin_teacher_path("gpt-17")


@pytest.mark.parametrize("tie", [True, False])
def test_load_tiny_hf_bert_directory(tmp_path, wordpiece_tokenizer, wordpiece_teacher, tie):
    from transformers import BertConfig, BertModel

    config = BertConfig(vocab_size=len(wordpiece_tokenizer.get_vocab()), hidden_size=16, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=32, max_position_embeddings=32,
                        tie_word_embeddings=tie)
    torch.manual_seed(0)
    model = BertModel(config)
    model.save_pretrained(tmp_path)
    wordpiece_tokenizer.save_pretrained(tmp_path)

    teacher = Teacher.load(tmp_path)
    assert teacher.dim == 16
    assert teacher.vocab_size == 30522
    assert teacher.family == "wordpiece"
    assert teacher.lowercase is True
    assert teacher.tied is tie
    assert teacher.source == str(tmp_path)
    assert teacher.vocab_hash == wordpiece_teacher.vocab_hash
    assert torch.equal(teacher.embeddings, model.get_input_embeddings().weight.detach())
    assert teacher.model is not None  # the full model is available for hybrid use


def test_teacher_without_model_loader(wordpiece_teacher):
    with pytest.raises(RuntimeError, match="without a model"):
        _ = wordpiece_teacher.model


# --- real weights ----------------------------------------------------------------------------------
@pytest.mark.real
def test_real_minilm(real_minilm):
    assert real_minilm.vocab_size == 30522
    assert real_minilm.dim == 384
    assert real_minilm.family == "wordpiece"
    assert real_minilm.lowercase is True
    assert real_minilm.tied is True
    assert real_minilm.vocab_hash == "0f052197aac305fe"
    assert torch.isfinite(real_minilm.embeddings).all()
    norms = real_minilm.embeddings[real_minilm.normal_mask].norm(dim=1)
    assert 0.5 < float(norms.mean()) < 2.0


@pytest.mark.real
@pytest.mark.slow
def test_real_smollm2():
    teacher = Teacher.load("smollm2")
    assert teacher.vocab_size == 49152
    assert teacher.dim == 576
    assert teacher.family == "byte-bpe"
    assert teacher.lowercase is False
    assert teacher.tied is True
    assert torch.isfinite(teacher.embeddings).all()
    assert teacher.vocab.surfaces[teacher.tokenizer.get_vocab()["Ġthe"]] == "the"


def test_display_labels_are_the_same_across_families(wordpiece_teacher, bytebpe_teacher, sentencepiece_teacher):
    cases = [(wordpiece_teacher, "the", "the"), (wordpiece_teacher, "##ing", "##ing"),
             (bytebpe_teacher, "Ġthe", "the"), (bytebpe_teacher, "ing", "##ing"),
             (sentencepiece_teacher, "▁the", "the")]
    for teacher, token, label in cases:
        row = teacher.tokenizer.convert_tokens_to_ids(token)
        assert teacher.display(row) == label, (teacher.name, token)
    special = wordpiece_teacher.tokenizer.convert_tokens_to_ids("[CLS]")
    assert wordpiece_teacher.display(special) == "[CLS]"
