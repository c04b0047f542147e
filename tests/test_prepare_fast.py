"""Batch preparation (``HybridModel.prepare`` / ``prepare_texts``) against a frozen copy of the
word-by-word implementation it replaced: same ids, spans, selections, pieces, repairs, truncation
flags, warnings and input vectors, for every policy and the three tokenizer families, on awkward
texts and on random ones; and the fast word splitter against :func:`charwise.words.split_words`.

Tiny random models on the real tokenizers; the real MiniLM weights and speller are marked ``real``.
"""

from __future__ import annotations

import random
import warnings
from typing import Any, Sequence

import pytest
import torch

from charwise.hybrid.model import HybridInputs, HybridModel, input_table
from charwise.hybrid.policies import RepairPolicy
from charwise.io import replace_surrogates
from charwise.teachers import Teacher
from charwise.words import shorten_word, split_words
from conftest import tiny_encoder, tiny_lexicon

# --- the reference: the word-by-word preparation as it was, kept here as the oracle ------------------


def reference_word_pieces(hm: HybridModel, words: Sequence[str], space_before: Sequence[bool]) -> list[list[int]]:
    spaced = hm.adapter.space_prefix
    keys = [(w, bool(s) and spaced) for w, s in zip(words, space_before)]
    if not keys:
        return []
    texts = [(" " if s else "") + replace_surrogates(shorten_word(w, hm.max_word_chars)) for w, s in keys]
    return [list(row) for row in hm.teacher.tokenizer(texts, add_special_tokens=False)["input_ids"]]


def reference_prepare(hm: HybridModel, batch: Sequence[Sequence[str]],
                      space_before: Sequence[Sequence[bool]] | None = None,
                      fixed_pieces: Sequence[Sequence[list[int] | None]] | None = None) -> HybridInputs:
    batch = [list(s) for s in batch]
    if space_before is None:
        space_before = [[i > 0 for i in range(len(ws))] for ws in batch]
    ad = hm.adapter
    limit = ad.max_length - len(ad.prefix_ids) - len(ad.suffix_ids)
    all_pieces, all_selected, rows, spans_all, truncated = [], [], [], [], []
    slots: list[tuple[int, int, str]] = []
    window = max(limit, 0)
    repairs = hm.policy.repairs([words[:window] for words in batch], [list(s[:window]) for s in space_before])
    for b, words in enumerate(batch):
        kept = words[:window]
        if repairs[b]:
            kept = list(kept)
            for i, repair in repairs[b].items():
                kept[i] = repair.correction
        pieces = reference_word_pieces(hm, kept, space_before[b][: len(kept)])
        selected = [bool(s) for s in hm.policy.select(kept, pieces, hm.teacher)]
        if fixed_pieces is not None:
            for i, fixed in enumerate(fixed_pieces[b][: len(kept)]):
                if fixed is not None:
                    pieces[i], selected[i] = list(fixed), False
        dropped = len(words) - len(kept)
        pieces, selected = pieces + [[] for _ in range(dropped)], selected + [False] * dropped
        ids, spans = list(ad.prefix_ids), []
        for i, (word, p) in enumerate(zip(list(kept) + list(words[len(kept):]), pieces)):
            if i >= len(kept):
                spans.append((-1, -1))
                continue
            if not p and not selected[i]:
                if ad.unk_id is not None:
                    p = [ad.unk_id]
                else:
                    selected[i] = True
            start = len(ids)
            if selected[i]:
                slots.append((b, start, shorten_word(word, hm.max_word_chars)))
                ids.append(ad.unk_id if ad.unk_id is not None else ad.pad_id)
            else:
                ids.extend(p)
            spans.append((start, len(ids)))
        cut = len(ad.prefix_ids) + limit
        truncated.append(len(ids) > cut or dropped > 0)
        if len(ids) > cut:
            ids = ids[:cut]
            spans = [(s, min(e, cut)) if s < cut else (-1, -1) for s, e in spans]
            slots = [slot for slot in slots if slot[0] != b or slot[1] < cut]
        rows.append(ids + list(ad.suffix_ids))
        all_pieces.append(pieces)
        all_selected.append(selected)
        spans_all.append(spans)
    if any(truncated):
        warnings.warn("truncated", stacklevel=2)
    width = max((len(r) for r in rows), default=0)
    input_ids = torch.full((len(rows), width), ad.pad_id, dtype=torch.long)
    attention = torch.zeros((len(rows), width), dtype=torch.long)
    word_index = torch.full((len(rows), width), -1, dtype=torch.long)
    for b, ids in enumerate(rows):
        input_ids[b, : len(ids)] = torch.tensor(ids, dtype=torch.long)
        attention[b, : len(ids)] = 1
        for i, (s, e) in enumerate(spans_all[b]):
            if s >= 0:
                word_index[b, s:e] = i
    embeds = input_table(hm.model)(input_ids)
    if slots:
        unique = list(dict.fromkeys(w for _, _, w in slots))
        vectors = hm.char_vectors(unique).to(dtype=embeds.dtype)
        where = {w: k for k, w in enumerate(unique)}
        items = torch.tensor([s[0] for s in slots])
        positions = torch.tensor([s[1] for s in slots])
        rows_of = torch.tensor([where[s[2]] for s in slots])
        embeds = embeds.index_put((items, positions), vectors[rows_of])
    return HybridInputs(embeds, attention, input_ids, word_index, spans_all, all_selected, all_pieces, truncated,
                        repairs)


def reference_prepare_texts(hm: HybridModel, texts: Sequence[str]) -> HybridInputs:
    ad = hm.adapter
    window = max(1, ad.max_length - len(ad.prefix_ids) - len(ad.suffix_ids))
    splits = [split_words(t, max_words=window + 1, max_word_chars=hm.max_word_chars) for t in texts]
    return reference_prepare(hm, [s.words for s in splits], [s.space_before for s in splits])


def assert_same(got: HybridInputs, want: HybridInputs) -> None:
    assert got.word_spans == want.word_spans
    assert got.selected == want.selected
    assert got.pieces == want.pieces
    assert got.truncated == want.truncated
    assert got.repairs == want.repairs
    for name in ("input_ids", "attention_mask", "word_index"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype == torch.long and torch.equal(a, b), name
    assert got.inputs_embeds.shape == want.inputs_embeds.shape
    torch.testing.assert_close(got.inputs_embeds, want.inputs_embeds, rtol=0, atol=1e-6)


def compare_texts(hm: HybridModel, texts: list[str]) -> None:
    """prepare_texts against the reference, warnings included (whether any, not their wording)."""
    with warnings.catch_warnings(record=True) as fast_warned:
        warnings.simplefilter("always")
        got = hm.prepare_texts(texts)
    with warnings.catch_warnings(record=True) as ref_warned:
        warnings.simplefilter("always")
        want = reference_prepare_texts(hm, texts)
    assert_same(got, want)
    assert any("truncated" in str(w.message) for w in fast_warned) == any(want.truncated)
    assert ref_warned or not any(want.truncated)


# --- texts ---------------------------------------------------------------------------------------------
AWKWARD = [
    "", "   ", " \t\n ", ".", "!!!", " , ", "😀😀 🙈", "I ❤️ NY👨\u200d👩\u200d👧!", "foo\u200bbar \u200b",
    "cafe\u0301 naïve Zürich", "日本語 и русский text", "a\u0301\u0301\u0301", "\u202eevil\u202c",
    "x" * 300, "y" * 1000 + " tail", "Hello   world,  don't stop!", "state-of-the-art -- ok",
    "we recieve the pakage from Wycombe", "Wycombe said: the house and the horse", "  leading and trailing  ",
    "caf\udce9 ok", "\ud800", "a\udfffb c", "tab\tsep\u00a0nbsp\u2003em", "emoji🙂glued", "$5 + 3 = 8 ^_^ <3 :-)",
    "l'été’s it’s O'Neil -x- x-", "\u200d\u200d", "\u0301", "\x00\x01 ctrl", "@user #hashtag http://t.co/x",
    "ALLCAPS MiXeD camelCase", "1,000.50 3rd 4th", "½ ² ⅓", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝐛𝐨𝐥𝐝", "\ufeffBOM", "a_b __init__",
]


def long_texts(words_per_text: int) -> list[str]:
    """Texts past the window: many words, many pieces per word, and one at the boundary."""
    return [" ".join(["pneumonoultramicroscopic"] * words_per_text), " ".join(["the"] * (words_per_text * 4)),
            " ".join(f"w{i}" for i in range(words_per_text * 2))]


def random_texts(seed: int, count: int) -> list[str]:
    """Random mixes of letters, accents, digits, punctuation, symbols, emoji, format characters and
    whitespace: every branch of the word splitter."""
    rng = random.Random(seed)
    alphabet = (list("abcdefghijklmnopqrstuvwxyzABCXYZ0123456789_") * 3 + list(".,;:!?()[]\"'’--/\\@#&*%") +
                list("$+<=>^`|~©®°±µ€") + ["😀", "🙈", "❤", "\ufe0f", "\u200d", "\u200b", "\u0301", "\u20e3",
                                           "é", "ß", "Ä", "ñ", "中", "文", "и", "Ж", "\u00a0", "\u2003", "\x85",
                                           "\x1c", "\x00", "\udce9", "\ue000", "\U0001f3fd", "½", "²"] +
                [" "] * 15 + ["\t", "\n"])
    texts = []
    for _ in range(count):
        length = rng.choice([0, 1, 2, 5, 20, 60, 200])
        texts.append("".join(rng.choice(alphabet) for _ in range(length)))
    return texts


# --- fixtures --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def bert_teacher(tiny_bert_dir) -> Teacher:
    return Teacher.load(str(tiny_bert_dir))


@pytest.fixture(scope="module")
def spm_teacher(sentencepiece_tokenizer) -> Teacher:
    """A tiny random XLM-R model (hidden 16, 128 positions) on XLM-R's real SentencePiece tokenizer."""
    from transformers import XLMRobertaConfig, XLMRobertaModel

    config = XLMRobertaConfig(vocab_size=len(sentencepiece_tokenizer.get_vocab()), hidden_size=16,
                              num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                              max_position_embeddings=130)
    torch.manual_seed(0)
    model = XLMRobertaModel(config).eval()
    return Teacher.from_parts(sentencepiece_tokenizer, model.get_input_embeddings().weight.detach().clone(),
                              name="tiny-xlmr", model_loader=lambda: model)


@pytest.fixture(scope="module")
def teachers(bert_teacher, tiny_llama_teacher, spm_teacher) -> dict[str, Teacher]:
    return {"wordpiece": bert_teacher, "byte-bpe": tiny_llama_teacher, "sentencepiece": spm_teacher}


@pytest.fixture(scope="module")
def tiny_speller_module(make_encoder, wordpiece_teacher):
    from charwise.speller import Speller, SpellerSettings
    from charwise.speller.lexicon import USER, LexiconEntry
    from conftest import fitted_scorer

    encoder = tiny_encoder(make_encoder, wordpiece_teacher)
    return Speller(tiny_lexicon({"wycombe": LexiconEntry(2.7, USER, capitalised=True)}), encoder, fitted_scorer(),
                   SpellerSettings(threshold=0.5, capital_threshold=0.5, neighbours=3))


POLICIES = ["none", "oov", "all", "multi", "no-suffix", "random:0.3", "repair", "repair+oov"]


def build(teacher: Teacher, policy: str, make_encoder, speller: Any, **kwargs: Any) -> HybridModel:
    encoder = make_encoder("cnn", info=teacher.describe(), dim=teacher.dim)
    chosen: Any = policy
    if policy.startswith("repair"):
        chosen = RepairPolicy(speller=speller, chars_for_unsure=policy == "repair+oov")
    return HybridModel(teacher.model, teacher, encoder, chosen, **kwargs).eval()


# --- tests ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("family", ["wordpiece", "byte-bpe", "sentencepiece"])
@pytest.mark.parametrize("policy", POLICIES)
def test_prepare_texts_equals_reference(teachers, family, policy, make_encoder, tiny_speller_module):
    teacher = teachers[family]
    hm = build(teacher, policy, make_encoder, tiny_speller_module)
    window = hm.adapter.max_length
    texts = AWKWARD + long_texts(window) + random_texts(seed=len(policy), count=40)
    with torch.inference_mode():
        compare_texts(hm, texts)  # cold caches
        compare_texts(hm, texts[::-1])  # warm, another batch order
        for start in range(0, len(texts), 7):  # small batches, warm and cold words mixed
            compare_texts(hm, texts[start : start + 7])


@pytest.mark.parametrize("family", ["wordpiece", "byte-bpe", "sentencepiece"])
def test_prepare_words_equals_reference(teachers, family, make_encoder, tiny_speller_module):
    """Pre-split words with explicit space flags, fixed pieces, tiny caches and short words."""
    teacher = teachers[family]
    batch = [["we", "recieve", "", "the", "pakage", "\u200b", "x" * 40],
             [], ["Wycombe"], ["a", "b", "c", "a", "a"], ["\u200b\u200b", ",", "😀"]]
    spaces = [[False, True, True, False, True, True, False], [], [True], [True, False, True, False, True],
              [False, False, True]]
    for policy in ("oov", "repair+oov", "all", "none"):
        hm = build(teacher, policy, make_encoder, tiny_speller_module, cache_size=3, max_word_chars=8)
        with torch.inference_mode():
            for _ in range(2):
                assert_same(hm.prepare(batch, spaces), reference_prepare(hm, batch, spaces))
                assert_same(hm.prepare(batch), reference_prepare(hm, batch))
            assert_same(hm.prepare([]), reference_prepare(hm, []))
            assert_same(hm.prepare([[]]), reference_prepare(hm, [[]]))
            compare_texts(hm, [])
        fixed: list[list[list[int] | None]] = [[None] * len(words) for words in batch]
        fixed[0][1], fixed[0][2], fixed[3][4] = [7, 8, 9], [5], []
        with torch.inference_mode():
            assert_same(hm.prepare(batch, spaces, fixed), reference_prepare(hm, batch, spaces, fixed))


def test_prepare_keeps_gradients(bert_teacher, make_encoder, tiny_speller_module):
    """In training, the character vectors and the table still receive gradients through prepare()."""
    hm = build(bert_teacher, "all", make_encoder, tiny_speller_module).train()
    inputs = hm.prepare([["tiny", "enormous", "ok"], ["pneumonia"]])
    inputs.inputs_embeds.pow(2).mean().backward()
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in hm.encoder.parameters())
    assert input_table(hm.model).weight.grad is not None


def test_prepare_words_rejects_what_it_did(bert_teacher, make_encoder, tiny_speller_module):
    hm = build(bert_teacher, "none", make_encoder, tiny_speller_module)
    with pytest.raises(ValueError, match="space flags"):
        hm.prepare([["a", "b"]], [[True]])
    with pytest.raises(ValueError, match="fixed_pieces"):
        hm.prepare([["a", "b"]], None, [[None]])
    with pytest.raises(TypeError):
        hm.prepare(["a b"])


@pytest.mark.parametrize("seed", range(3))
def test_fast_splitter_equals_split_words(seed, monkeypatch):
    from charwise.hybrid import batching
    from charwise.hybrid.batching import split_texts

    if seed == 2:  # a table that must start afresh every few texts still classes every character
        monkeypatch.setattr(batching, "_MAX_CLASSES", 140)

    texts = AWKWARD + random_texts(seed, 300) + ["a" * 50 + " b" * 40]
    for max_words, max_chars in ((None, None), (3, None), (None, 4), (5, 6), (1, 2), (40, 256)):
        got = split_texts(texts, max_words=max_words, max_word_chars=max_chars)
        want = [split_words(t, max_words=max_words, max_word_chars=max_chars) for t in texts]
        assert got == want


@pytest.mark.real
@pytest.mark.slow
@pytest.mark.parametrize("policy", ["none", "oov", "repair", "repair+oov"])
def test_real_minilm_equals_reference(policy):
    from charwise.tagging.data import load_task

    hm = HybridModel.from_teacher("minilm", policy=policy)
    tweets = [" ".join(s.words) for s in load_task("wnut17", splits=("test",)).test][:200]
    texts = AWKWARD + long_texts(hm.adapter.max_length) + tweets
    with torch.inference_mode():
        compare_texts(hm, texts)
        compare_texts(hm, texts)


@pytest.mark.parametrize("family", ["wordpiece", "byte-bpe", "sentencepiece"])
def test_one_tokenizer_call_equals_word_by_word(teachers, family):
    """Pre-split sequences cut apart by word_ids() give every word its pieces as tokenised alone:
    special-token strings, words the tokenizer erases, inner spaces, long words, empty words."""
    from charwise.hybrid.batching import tokenize_words

    tokenizer = teachers[family].tokenizer
    words = ["", " ", "the", " the", "The", " naïve", "[CLS]", " [SEP]", "<s>", "</s>", " <pad>", "<|endoftext|>",
             "[UNK]", "<mask>", "[MASK]", "\u200b", " \u200b", "a b", " 😀", "x" * 300, "\ufffd", "日本語", " ,"]
    # as prepare() sends them: lone surrogates replaced
    words += [replace_surrogates(w) + str(i) for i, w in enumerate(random_texts(7, 150))]
    want = [list(tokenizer(w, add_special_tokens=False)["input_ids"]) for w in words]
    assert tokenize_words(tokenizer, words) == want
    assert tokenize_words(tokenizer, []) == []
