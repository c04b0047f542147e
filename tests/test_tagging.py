"""Word-level tagging: readers, pooling, S2W merge and word features, metrics, noisy test sets,
a tiny end-to-end fine-tune, persistence and the ``charwise tag`` CLI. Tiny random BERT on the real
MiniLM tokenizer; one test on the real MiniLM weights is marked ``real``."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
import torch

from charwise.cli import main
from charwise.corpora import (
    TaggedSentence,
    parse_labelled_conll,
    parse_labelled_conllu,
    read_conll,
    read_conllu,
    read_sentences,
)
from charwise.hybrid.pooling import POOLINGS, AttentionPooling, GRUPooling, build_pooling, word_layout
from charwise.io import data_root, read_lines
from charwise.tagging import TaggerConfig, evaluate_tagger, load_tagger, noisy_sentences, train_tagger
from charwise.tagging.data import TaskData, TaskSpec, load_task
from charwise.tagging.evaluate import single_piece_flags
from charwise.tagging.metrics import accuracy_report, entity_f1, get_entities
from charwise.tagging.model import build_tagger
from charwise.tagging.s2w import FeatureVocab, S2WEncoder, merge_groups
from charwise.teachers import Teacher

REPO = Path(__file__).resolve().parents[1]


# --- readers -------------------------------------------------------------------------------------
def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_conll_reader_layout_edge_cases(tmp_path):
    # Tab-only and space-only blank lines, several blank lines, CRLF, no final newline, a BOM.
    raw = "\ufeffEU\tB-ORG\r\n#rejects\tO\r\n\t\r\n  \r\n\r\nGerman\tB-MISC\r\ncall\tI-MISC"
    path = write(tmp_path, "a.conll", raw.encode("utf-8"))
    sents = read_conll(path)
    assert [s.words for s in sents] == [["EU", "#rejects"], ["German", "call"]]  # hashtags are words
    assert [s.tags for s in sents] == [["B-ORG", "O"], ["B-MISC", "I-MISC"]]
    trailing = write(tmp_path, "b.conll", b"a\tO\nb\tO\n\n\t\n\n\n")
    assert [s.words for s in read_conll(trailing)] == [["a", "b"]]
    assert read_conll(write(tmp_path, "empty.conll", b"")) == []
    # Space-separated columns and a -DOCSTART- line work too.
    assert parse_labelled_conll(["-DOCSTART- -X- O O", "", "Paris NNP B-LOC"])[0].tags == ["B-LOC"]


def test_conll_reader_errors(tmp_path):
    with pytest.raises(ValueError, match=r"b\.conll:2: expected a word and a tag"):
        read_conll(write(tmp_path, "b.conll", b"a\tO\nlonely\n"))
    with pytest.raises(ValueError, match="not UTF-8"):
        read_conll(write(tmp_path, "latin.conll", "café\tO\n".encode("latin-1")))
    with pytest.raises(FileNotFoundError, match="not found"):
        read_conll(tmp_path / "missing.conll")


def test_only_newline_ends_a_line(tmp_path):
    # U+2028 inside a token must not split the line (str.splitlines would shift every label).
    path = write(tmp_path, "c.conll", "a\u2028b\tO\nc\tB-x\n".encode("utf-8"))
    assert read_lines(path) == ["a\u2028b\tO", "c\tB-x"]
    assert read_conll(path)[0].words == ["a\u2028b", "c"]


def test_conllu_reader(tmp_path):
    lines = [
        "# sent_id = 1", "# text = vámonos al mar",
        "1-2\tvámonos\t_\t_\t_\t_\t_\t_\t_\t_",
        "1\tvamos\tir\tVERB\tV\t_\t0\troot\t_\t_",
        "2\tnos\tnosotros\tPRON\tP\t_\t1\tobj\t_\t_",
        "3.1\tgone\tgo\tVERB\t_\t_\t_\t_\t_\t_",
        "3\tmar\tmar\tNOUN\tN\t_\t1\tobl\t_\tSpaceAfter=No",
        "\t", "",
    ]
    (s,) = parse_labelled_conllu(lines)
    assert s.words == ["vamos", "nos", "mar"] and s.tags == ["VERB", "PRON", "NOUN"]
    assert s.lemmas == ["ir", "nosotros", "mar"] and s.columns["xpos"] == ["V", "P", "N"]
    assert parse_labelled_conllu(lines, tag_column="xpos")[0].tags == ["V", "P", "N"]
    with pytest.raises(ValueError, match="10 tab-separated columns"):
        parse_labelled_conllu(["1\tword\tlemma\tNOUN"], source="x.conllu")
    path = write(tmp_path, "d.conllu", ("\r\n".join(lines[2:5])).encode("utf-8"))  # CRLF, no final newline
    assert read_conllu(path)[0].words == ["vamos", "nos"]


def test_stats_reads_through_the_same_parser():
    lines = ["EU\tB-ORG", "#tag\tO", "", "x\tO"]
    assert [s.words for s in parse_labelled_conll(lines, comments=True)] == [["EU"], ["x"]]
    assert [s.words for s in parse_labelled_conll(lines)] == [["EU", "#tag"], ["x"]]


def test_repository_tasks_load():
    wnut = load_task("wnut17")
    assert (len(wnut.train), len(wnut.dev), len(wnut.test)) == (3394, 1009, 1287)
    # 62,730 words: the Emerging NER row of XRayEmb table 3 (hashtag tokens included).
    assert sum(len(s) for s in wnut.train) == 62730
    assert sum(len(s) for s in wnut.train) == sum(len(s) for s in read_sentences(
        data_root() / "wnut17/wnut17train.conll"))
    labels = {t for s in wnut.train for t in s.tags}
    assert labels == {"O"} | {f"{p}-{t}" for p in "BI" for t in
                              ("corporation", "creative-work", "group", "location", "person", "product")}
    ewt = load_task("ewt-upos", splits=("dev",))
    assert ewt.train == [] and len(ewt.dev) == 2001
    assert {t for s in ewt.dev for t in s.tags} <= {"ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN",
                                                    "NUM", "PART", "PRON", "PROPN", "PUNCT", "SCONJ", "SYM",
                                                    "VERB", "X"}
    assert all(s.lemmas is not None and len(s.lemmas) == len(s.words) for s in ewt.dev)
    with pytest.raises(ValueError, match="unknown task"):
        load_task("conll03")


# --- pooling -------------------------------------------------------------------------------------
STATES = torch.arange(1.0, 13.0).view(1, 6, 2)  # position t holds [2t + 1, 2t + 2]
INDEX = torch.tensor([[-1, 0, 0, 1, 2, 2]])  # [CLS] w0 w0 w1 w2 w2


@pytest.mark.parametrize("mode, expected", [
    ("first", [[3, 4], [7, 8], [9, 10]]),
    ("last", [[5, 6], [7, 8], [11, 12]]),
    ("mean", [[4, 5], [7, 8], [10, 11]]),
    ("max", [[5, 6], [7, 8], [11, 12]]),
    ("attention", [[4, 5], [7, 8], [10, 11]]),  # zero-initialised scorer: uniform weights
    ("gru", [[5, 6], [7, 8], [11, 12]]),  # residual with a zero projection: the last piece
])
def test_pooling_hand_built(mode, expected):
    out, mask = build_pooling(mode, 2)(STATES, INDEX)
    assert out.tolist() == [expected]
    assert mask.tolist() == [[True, True, True]]


def test_max_pooling_takes_elementwise_maximum():
    states = torch.tensor([[[1.0, 9.0], [5.0, -2.0], [0.0, 0.0]]])
    out, _ = build_pooling("max", 2)(states, torch.tensor([[0, 0, -1]]))
    assert out.tolist() == [[[5.0, 9.0]]]
    neg = torch.tensor([[[-3.0, -1.0], [-2.0, -5.0]]])  # all negative: no zero may win
    assert build_pooling("max", 2)(neg, torch.tensor([[0, 0]]))[0].tolist() == [[[-2.0, -1.0]]]


def test_attention_pooling_weights_are_a_softmax_within_each_word():
    pool = AttentionPooling(2)
    with torch.no_grad():
        pool.scorer.weight.copy_(torch.tensor([[1.0, 0.0]]))  # score = first coordinate
    out, _ = pool(STATES, INDEX)
    w = torch.softmax(torch.tensor([3.0, 5.0]), dim=0)  # word 0: positions 1 and 2
    assert torch.allclose(out[0, 0], w[0] * STATES[0, 1] + w[1] * STATES[0, 2])
    assert out[0, 1].tolist() == [7.0, 8.0]  # one position: weight exactly 1
    w2 = torch.softmax(torch.tensor([9.0, 11.0]), dim=0)
    assert torch.allclose(out[0, 2], w2[0] * STATES[0, 4] + w2[1] * STATES[0, 5])


def test_gru_pooling_runs_a_gru_over_each_word():
    torch.manual_seed(0)
    pool = GRUPooling(2)
    torch.nn.init.normal_(pool.proj.weight)
    out, _ = pool(STATES, INDEX)
    for word, (s, e) in enumerate([(1, 3), (3, 4), (4, 6)]):
        if e - s == 1:  # a one-position word (e.g. character-built) passes through
            expected = STATES[0, s]
        else:
            seq, _ = pool.gru(STATES[:, s:e])
            expected = STATES[0, e - 1] + pool.proj(seq[0, -1])
        assert torch.allclose(out[0, word], expected, atol=1e-6)
    raw = GRUPooling(2, residual=False)
    out, _ = raw(STATES, INDEX)
    seq, _ = raw.gru(STATES[:, 3:4])  # raw S2W form: every word goes through the GRU
    assert torch.allclose(out[0, 1], seq[0, -1], atol=1e-6)


def naive_pool(mode: str, module, states, word_index, num_words):
    """Reference: a Python loop over words."""
    out = torch.zeros(states.shape[0], max(num_words), states.shape[-1])
    for b, n in enumerate(num_words):
        for w in range(n):
            pos = (word_index[b] == w).nonzero().flatten()
            if len(pos) == 0:
                continue
            x = states[b, pos]
            if mode == "first":
                out[b, w] = x[0]
            elif mode == "last":
                out[b, w] = x[-1]
            elif mode == "mean":
                out[b, w] = x.mean(0)
            elif mode == "max":
                out[b, w] = x.max(0).values
            elif mode == "attention":
                out[b, w] = (torch.softmax(module.scorer(x).squeeze(-1), 0).unsqueeze(-1) * x).sum(0)
            elif mode == "gru":
                if len(pos) == 1:
                    out[b, w] = x[0]
                else:
                    seq, _ = module.gru(x.unsqueeze(0))
                    out[b, w] = x[-1] + module.proj(seq[0, -1])
    return out


@pytest.mark.parametrize("mode", sorted(POOLINGS))
def test_vectorised_pooling_matches_a_loop(mode):
    g = torch.Generator().manual_seed(3)
    torch.manual_seed(3)
    module = build_pooling(mode, 4)
    for p in module.parameters():
        torch.nn.init.normal_(p, generator=g)
    rows, counts = [], []
    rng = random.Random(3)
    for _ in range(4):
        lengths = [rng.randint(1, 4) for _ in range(rng.randint(1, 5))]
        row = [-1] + [w for w, k in enumerate(lengths) for _ in range(k)] + [-1]
        rows.append(row)
        counts.append(len(lengths) + (1 if rng.random() < 0.3 else 0))  # sometimes a truncated last word
    width = max(len(r) for r in rows)
    index = torch.tensor([r + [-1] * (width - len(r)) for r in rows])
    states = torch.randn(len(rows), width, 4, generator=g)
    out, mask = module(states, index, counts)
    expected = naive_pool(mode, module, states, index, counts)
    assert torch.allclose(out, expected, atol=1e-5)
    assert mask.sum(1).tolist() == counts


def test_pooling_gradients_and_layout_checks():
    states = STATES.clone().requires_grad_(True)
    pool = build_pooling("attention", 2)
    out, _ = pool(states, INDEX)
    out.sum().backward()
    assert pool.scorer.weight.grad is not None and states.grad[0, 0].abs().sum() == 0  # [CLS] unused
    layout = word_layout(INDEX)
    assert layout.first.tolist() == [1, 3, 4] and layout.last.tolist() == [2, 3, 5]
    assert layout.counts.tolist() == [2, 1, 2]
    with pytest.raises(ValueError, match="beyond num_words"):
        word_layout(INDEX, [2])
    with pytest.raises(ValueError, match="unknown pooling"):
        build_pooling("median", 2)


# --- S2W merge and word features ------------------------------------------------------------------
def test_merge_groups_keep_special_tokens_as_their_own_words():
    index = torch.tensor([[-1, 0, 0, 1, -1, -1], [-1, 0, -1, -1, -1, -1]])
    mask = torch.tensor([[1, 1, 1, 1, 1, 0], [1, 1, 1, 0, 0, 0]])
    assert merge_groups(index, mask).tolist() == [[0, 1, 1, 2, 3, -1], [0, 1, 2, -1, -1, -1]]


def test_feature_vocab():
    vocab = FeatureVocab.build(["be", "be", "go", "go", "rare", "<unk>"], min_count=2)
    assert vocab.tokens == ["<pad>", "<unk>", "be", "go"]
    assert vocab.ids(["go", "rare", "unseen", "be"]) == [3, 1, 1, 2]
    assert FeatureVocab.from_dict(vocab.to_dict()).ids(["be"]) == [2]


@pytest.fixture(scope="module")
def tiny_teacher(tiny_bert_dir) -> Teacher:
    return Teacher.load(str(tiny_bert_dir))


@pytest.fixture(scope="module")
def two_layer_model(tiny_teacher):
    from transformers import BertConfig, BertModel

    config = BertConfig(vocab_size=30522, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=32)
    torch.manual_seed(1)
    return BertModel(config).eval()


WORDS = [["the", "tokenization", "of", "unbelievably", "long", "words"], ["hi", "xqzv"]]


def test_s2w_with_all_layers_equals_pooling_after_the_encoder(tiny_teacher, two_layer_model):
    from charwise.hybrid.model import HybridModel

    hm = HybridModel(two_layer_model, tiny_teacher, None, "none").eval()
    inputs = hm.prepare(WORDS)
    torch.manual_seed(0)
    s2w = S2WEncoder(16, 2, merge_after=2, merge="gru").eval()
    torch.nn.init.normal_(s2w.merge.proj.weight)  # a non-trivial merge
    with torch.no_grad():
        merged, mask = s2w(two_layer_model, inputs, [6, 2])
        final = hm(inputs=inputs).outputs.last_hidden_state
        pooled, mask2 = s2w.merge(final, inputs.word_index, [6, 2])
    assert torch.allclose(merged, pooled, atol=1e-6)
    assert mask.tolist() == mask2.tolist()


def test_s2w_shortens_the_sequence_after_the_merge(tiny_teacher, two_layer_model):
    from charwise.hybrid.model import HybridModel

    hm = HybridModel(two_layer_model, tiny_teacher, None, "none").eval()
    inputs = hm.prepare(WORDS)
    seen = []
    hook = two_layer_model.encoder.layer[1].register_forward_hook(lambda m, a, o: seen.append(a[0].shape))
    try:
        s2w = S2WEncoder(16, 2, merge_after=1, merge="gru").eval()
        with torch.no_grad():
            states, mask = s2w(two_layer_model, inputs, [6, 2])
    finally:
        hook.remove()
    pieces = inputs.attention_mask.shape[1]
    assert pieces > 6 + 2  # the teacher splits several words
    assert seen == [torch.Size([2, 6 + 2, 16])]  # words + [CLS] + [SEP], not pieces
    assert states.shape == (2, 6, 16) and mask.tolist() == [[True] * 6, [True, True] + [False] * 4]


@pytest.mark.parametrize("mode, merge_after", [("merge", 1), ("copy", 1), ("copy", 2)])
def test_feature_injection_shapes_and_effect(tiny_teacher, two_layer_model, mode, merge_after):
    from charwise.hybrid.model import HybridModel

    hm = HybridModel(two_layer_model, tiny_teacher, None, "none").eval()
    inputs = hm.prepare(WORDS)
    s2w = S2WEncoder(16, 2, merge_after=merge_after, merge="first", feature_vocab_size=5, feature_mode=mode).eval()
    ids = torch.tensor([[2, 3, 4, 2, 3, 4], [1, 2, 0, 0, 0, 0]])
    with torch.no_grad():
        zero, _ = s2w(two_layer_model, inputs, [6, 2], ids)  # zero-initialised embedding: no effect
        s2w.feature.weight[1:].normal_()
        with_feature, mask = s2w(two_layer_model, inputs, [6, 2], ids)
        other = ids.clone()
        other[0, 0] = 4
        changed, _ = s2w(two_layer_model, inputs, [6, 2], other)
    plain = S2WEncoder(16, 2, merge_after=merge_after, merge="first").eval()
    with torch.no_grad():
        base, _ = plain(two_layer_model, inputs, [6, 2])
    assert with_feature.shape == (2, 6, 16) and torch.allclose(zero, base)
    assert not torch.allclose(with_feature, base)
    assert not torch.allclose(changed[0, 0], with_feature[0, 0])
    # Sentence 2 does not see sentence 1's features.
    assert torch.allclose(changed[1], with_feature[1])
    with pytest.raises(ValueError, match="pass feature_ids"):
        s2w(two_layer_model, inputs, [6, 2])


@pytest.mark.parametrize("merge_after", [1, 2])
def test_s2w_word_vectors_are_added_after_the_merge(tiny_teacher, two_layer_model, merge_after):
    from charwise.hybrid.model import HybridModel

    hm = HybridModel(two_layer_model, tiny_teacher, None, "none").eval()
    inputs = hm.prepare(WORDS)
    torch.manual_seed(0)
    vectors = torch.randn(2, 6, 5)
    s2w = S2WEncoder(16, 2, merge_after=merge_after, merge="first", word_vector_dim=5).eval()
    plain = S2WEncoder(16, 2, merge_after=merge_after, merge="first").eval()
    with torch.no_grad():
        zero, _ = s2w(two_layer_model, inputs, [6, 2], word_vectors=vectors)  # zero-initialised projection
        base, _ = plain(two_layer_model, inputs, [6, 2])
        torch.nn.init.normal_(s2w.word_vectors[1].weight)
        with_vectors, _ = s2w(two_layer_model, inputs, [6, 2], word_vectors=vectors)
        other = vectors.clone()
        other[0, 3] = torch.randn(5)  # not a shift: the LayerNorm would remove that
        changed, _ = s2w(two_layer_model, inputs, [6, 2], word_vectors=other)
        # Values beyond a sentence's words are ignored.
        padded = vectors.clone()
        padded[1, 2:] = 100.0
        same, _ = s2w(two_layer_model, inputs, [6, 2], word_vectors=padded)
    assert torch.allclose(zero, base) and not torch.allclose(with_vectors, base)
    assert torch.allclose(same, with_vectors)
    moved = (changed[0] - with_vectors[0]).abs().sum(dim=-1) > 1e-6
    # Merged after the last layer: only word 3 moves; with a layer above the merge, its context too.
    assert moved[3] and (moved.sum() == 1) == (merge_after == 2)
    assert torch.allclose(changed[1], with_vectors[1])
    with pytest.raises(ValueError, match="word_vectors"):
        s2w(two_layer_model, inputs, [6, 2])


def test_s2w_rejects_bad_settings():
    with pytest.raises(ValueError, match="merge_after"):
        S2WEncoder(16, 2, merge_after=3)
    with pytest.raises(ValueError, match="feature_mode"):
        S2WEncoder(16, 2, merge_after=1, feature_vocab_size=3, feature_mode="concat")
    with pytest.raises(ValueError, match="BERT-family"):
        S2WEncoder(16, 2, merge_after=1)(torch.nn.Linear(2, 2), None, [1])


# --- metrics -------------------------------------------------------------------------------------
def test_entities_seqeval_conventions():
    assert get_entities(["B-PER", "I-PER", "O", "B-LOC"]) == [("PER", 0, 1), ("LOC", 3, 3)]  # at the end
    assert get_entities(["O", "I-PER", "I-PER", "O"]) == [("PER", 1, 2)]  # I- without B- starts one
    assert get_entities(["B-PER", "I-LOC", "I-LOC"]) == [("PER", 0, 0), ("LOC", 1, 2)]  # type change
    assert get_entities(["B-PER", "B-PER", "I-PER"]) == [("PER", 0, 0), ("PER", 1, 2)]
    assert get_entities(["S-PER", "B-LOC", "E-LOC", "O"]) == [("PER", 0, 0), ("LOC", 1, 2)]  # IOBES
    assert get_entities(["B-creative-work", "I-creative-work"]) == [("creative-work", 0, 1)]
    assert get_entities(["O", "O"]) == []


def test_entity_f1_hand_made():
    # seqeval's README example: 2 gold, 2 predicted, 1 exact match.
    gold = [["O", "O", "O", "B-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]
    pred = [["O", "O", "B-MISC", "I-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]
    r = entity_f1(gold, pred)
    assert (r["precision"], r["recall"], r["f1"]) == (0.5, 0.5, 0.5)
    assert r["per_type"]["PER"]["f1"] == 1.0 and r["per_type"]["MISC"]["f1"] == 0.0
    # Entities never run across sentences: each sentence's last entity closes at its end.
    gold = [["O", "B-LOC"], ["I-LOC", "O"]]
    pred = [["O", "B-LOC"], ["B-LOC", "O"]]
    assert entity_f1(gold, pred)["f1"] == 1.0
    # 3 gold, 2 predicted, 1 correct (one with the wrong type, one with the wrong span).
    gold = [["B-PER", "O", "B-LOC", "I-LOC", "B-ORG"]]
    pred = [["B-PER", "O", "B-LOC", "O", "B-PER"]]
    r = entity_f1(gold, pred)
    assert math.isclose(r["precision"], 1 / 3) and math.isclose(r["recall"], 1 / 3)
    assert entity_f1([["O"]], [["O"]])["f1"] == 0.0
    with pytest.raises(ValueError):
        entity_f1([["O"]], [["O", "O"]])


def test_entity_f1_restricted_to_chosen_spans():
    # Word 2 is "split by the tokenizer": only spans covering it are kept, on both sides.
    gold = [["B-PER", "O", "B-LOC", "I-LOC", "B-ORG"]]
    pred = [["B-PER", "O", "B-LOC", "O", "B-PER"]]

    def covers_2(sentence: int, first: int, last: int) -> bool:
        return first <= 2 <= last

    r = entity_f1(gold, pred, keep=covers_2)
    # gold: LOC 2-3; predicted: LOC 2-2 (wrong span) -> no match, support 1.
    assert (r["precision"], r["recall"], r["support"]) == (0.0, 0.0, 1)
    rest = entity_f1(gold, pred, keep=lambda s, a, b: not covers_2(s, a, b))
    # gold: PER 0, ORG 4; predicted: PER 0, PER 4 -> one match.
    assert (rest["precision"], rest["recall"], rest["support"]) == (0.5, 0.5, 2)


def test_accuracy_report_splits():
    gold = [["A", "B", "C"], ["A"]]
    pred = [["A", "X", "C"], ["X"]]
    single = [[True, False, True], [False]]
    unseen = [[False, True, False], [True]]
    r = accuracy_report(gold, pred, single, unseen)
    assert r["accuracy"] == 0.5 and r["n_words"] == 4
    assert (r["acc_single"], r["n_single"]) == (1.0, 2)
    assert (r["acc_multi"], r["n_multi"]) == (0.0, 2)
    assert (r["acc_unseen"], r["n_unseen"]) == (0.0, 2)
    assert "acc_single" not in accuracy_report(gold, pred)


def test_single_piece_flags(wordpiece_teacher):
    assert single_piece_flags(wordpiece_teacher, [["the", "charwise", "\U0001F9FF"]]) == [[True, False, False]]


def test_noisy_sentences_keep_labels(wordpiece_teacher):
    sents = [TaggedSentence(["beautiful", "weather", "in", "Amsterdam", "today"], ["O", "O", "O", "B-loc", "O"],
                            {"lemma": ["beautiful", "weather", "in", "Amsterdam", "today"]})] * 20
    noisy, changed = noisy_sentences(sents, 0.5, seed=7, teacher=wordpiece_teacher)
    again, _ = noisy_sentences(sents, 0.5, seed=7, teacher=wordpiece_teacher)
    assert [s.words for s in noisy] == [s.words for s in again]  # deterministic
    assert all(s.tags == sents[0].tags and s.lemmas == sents[0].lemmas for s in noisy)
    assert 0.2 < changed < 0.6  # "in" is too short to be eligible
    assert any(s.words != sents[0].words for s in noisy)
    assert all(s.words[2] == "in" for s in noisy)
    assert noisy_sentences(sents, 0.0, 7, wordpiece_teacher)[0][0].words == sents[0].words


# --- end to end ----------------------------------------------------------------------------------
DET, NOUN, VERB, ADV = ["the", "a", "this"], ["cat", "dog", "tokenization", "catalogue"], ["sleeps", "eats"], \
    ["quickly", "unbelievably"]
AMBIGUOUS = ["runs", "walks"]  # NOUN after a determiner, VERB otherwise: needs the context


def toy_sentences(n: int, seed: int) -> list[TaggedSentence]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words, tags = [], []
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.5:
                words += [rng.choice(DET), rng.choice(AMBIGUOUS + NOUN)]
                tags += ["DET", "NOUN"]
            else:
                words += [rng.choice(NOUN), rng.choice(AMBIGUOUS + VERB), rng.choice(ADV)]
                tags += ["NOUN", "VERB", "ADV"]
        out.append(TaggedSentence(words, tags, {"lemma": [w.rstrip("s") for w in words]}))
    return out


TOY = TaskData(TaskSpec("toy", {}, "conll", "accuracy"), toy_sentences(240, 0), toy_sentences(40, 1),
               toy_sentences(60, 2))


def toy_config(tiny_bert_dir, **kw) -> TaggerConfig:
    base = dict(task="toy", teacher=str(tiny_bert_dir), policy="none", pool="first", epochs=4, batch_size=16,
                lr=3e-3, head_lr=2e-2, patience=4, seed=0, dropout=0.0)
    base.update(kw)
    return TaggerConfig(**base)


def test_tiny_end_to_end_learns_a_toy_task(tmp_path, tiny_bert_dir):
    config = toy_config(tiny_bert_dir)
    result = train_tagger(config, tmp_path / "run", data=TOY, progress=False)
    assert result.best_dev > 0.9 and result.steps == 4 * math.ceil(240 / 16)
    tagger = load_tagger(tmp_path / "run")
    test = evaluate_tagger(tagger, TOY.test, metric="accuracy", train_words=tagger.train_words)
    assert test["score"] > 0.9
    # The ambiguous words are right in both contexts: the encoder's context is used.
    pred = tagger.predict([["the", "runs"], ["cat", "runs", "quickly"]])
    assert pred == [["DET", "NOUN"], ["NOUN", "VERB", "ADV"]]
    log = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    assert len(log) == result.epochs_run and log[0]["train_loss"] > log[-1]["train_loss"]
    with pytest.raises(FileExistsError):
        train_tagger(config, tmp_path / "run", data=TOY, progress=False)


def test_saved_tagger_predicts_exactly_like_the_trained_one(tmp_path, tiny_bert_dir, make_encoder):
    teacher = Teacher.load(str(tiny_bert_dir))  # a fresh model: training changes it
    encoder = make_encoder("cnn", info=teacher.describe(), dim=teacher.dim)
    config = toy_config(tiny_bert_dir, policy="oov", head="bilstm", pool="attention", epochs=1, max_steps=3)
    tagger = build_tagger(config, ["ADV", "DET", "NOUN", "VERB"], teacher=teacher, encoder=encoder)
    before = {k: v.clone() for k, v in tagger.hybrid.encoder.state_dict().items()}
    tagger.train()
    loss = tagger.loss([s.words for s in TOY.train[:8]], [s.tags for s in TOY.train[:8]])
    loss.backward()
    # Gradients reach the character encoder through the hybrid model.
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in tagger.hybrid.encoder.parameters())
    torch.optim.SGD(tagger.parameters(), lr=0.1).step()
    assert any(not torch.equal(before[k], v) for k, v in tagger.hybrid.encoder.state_dict().items())
    sentences = [s.words for s in TOY.test[:10]]
    expected = tagger.predict(sentences)
    with torch.inference_mode():
        logits, _ = tagger.eval()(sentences)
    tagger.save(tmp_path / "saved", train_words=["the"])
    loaded = load_tagger(tmp_path / "saved")
    assert loaded.predict(sentences) == expected
    with torch.inference_mode():
        assert torch.allclose(loaded(sentences)[0], logits, atol=1e-5)
    assert loaded.train_words == {"the"}
    assert (tmp_path / "saved" / "char_encoder" / "model.safetensors").is_file()
    assert not list((tmp_path / "saved").rglob("*.bin")) and not list((tmp_path / "saved").rglob("*.pt"))


def test_encoder_learning_rate_is_its_own(tmp_path, tiny_bert_dir, make_encoder):
    teacher = Teacher.load(str(tiny_bert_dir))
    encoder = make_encoder("cnn", info=teacher.describe(), dim=teacher.dim)
    enc_before = {k: v.clone() for k, v in encoder.state_dict().items()}
    table_before = teacher.model.get_input_embeddings().weight.detach().clone()
    config = toy_config(tiny_bert_dir, policy="oov", epochs=1, max_steps=3, encoder_lr=0.0)
    train_tagger(config, tmp_path / "run", data=TOY, teacher=teacher, encoder=encoder, progress=False)
    assert all(torch.equal(enc_before[k], v) for k, v in encoder.state_dict().items())  # lr 0: frozen
    assert not torch.equal(table_before, teacher.model.get_input_embeddings().weight)  # the model trained


@pytest.mark.parametrize("extra", [dict(s2w_layers=1, pool="gru"),
                                   dict(s2w_layers=1, pool="gru", feature="lemma", feature_mode="merge"),
                                   dict(feature="lemma", feature_mode="copy")])
def test_s2w_and_feature_taggers_train(tmp_path, tiny_bert_dir, extra):
    config = toy_config(tiny_bert_dir, epochs=2, **extra)
    result = train_tagger(config, tmp_path / "run", data=TOY, progress=False)
    assert result.best_dev > 0.6
    tagger = load_tagger(tmp_path / "run")
    assert (tagger.s2w is not None) and (tagger.feature_vocab is not None) == bool(extra.get("feature"))
    if extra.get("feature"):
        with pytest.raises(ValueError, match="word feature"):
            tagger.predict([["the", "cat"]])
        assert len(tagger.predict([["the", "cat"]], [["the", "cat"]])[0]) == 2


@pytest.mark.parametrize("extra", [dict(char_fusion="concat"),
                                   dict(char_fusion="merge", s2w_layers=1, pool="gru"),
                                   dict(char_fusion="concat", policy="oov", head="bilstm")])
def test_char_fusion_taggers_train_save_and_reload(tmp_path, tiny_bert_dir, make_encoder, extra):
    teacher = Teacher.load(str(tiny_bert_dir))
    encoder = make_encoder("cnn", info=teacher.describe(), dim=teacher.dim)
    before = {k: v.clone() for k, v in encoder.state_dict().items()}
    config = toy_config(tiny_bert_dir, epochs=2, **extra)
    result = train_tagger(config, tmp_path / "run", data=TOY, teacher=teacher, encoder=encoder,
                          progress=False)
    assert result.best_dev > 0.6
    # Every word's characters reach the loss, so the encoder trains even under policy none.
    assert any(not torch.equal(before[k], v) for k, v in encoder.state_dict().items())
    sentences = [s.words for s in TOY.test[:10]]
    loaded = load_tagger(tmp_path / "run")
    assert loaded.hybrid.encoder is not None and loaded.config.char_fusion == extra["char_fusion"]
    assert (loaded.char_norm is not None) == (extra["char_fusion"] == "concat")
    reloaded = load_tagger(tmp_path / "run")
    with torch.inference_mode():
        assert torch.allclose(loaded(sentences)[0], reloaded(sentences)[0], atol=1e-6)


def test_rnn_tagger_resumes_to_the_same_weights(tmp_path, tiny_bert_dir, make_encoder):
    """A BiLSTM head over a BiLSTM character encoder, with dropout, stopped in its second epoch (after
    one evaluation and one best tagger) and resumed: the same tagger as one uninterrupted run."""
    config = toy_config(tiny_bert_dir, epochs=2, dropout=0.1, head="bilstm", char_fusion="concat", policy="oov")

    def run(out, **how):
        teacher = Teacher.load(str(tiny_bert_dir))  # fresh: training changes the model
        encoder = make_encoder("bilstm", info=teacher.describe(), dim=teacher.dim, seed=0)
        return train_tagger(config, out, data=TOY, teacher=teacher, encoder=encoder, progress=False, **how)

    whole = run(tmp_path / "whole")
    part = run(tmp_path / "part", stop_after=20)  # 15 steps per epoch
    assert part.steps == 20 and (tmp_path / "part" / "checkpoint").is_dir()
    resumed = run(tmp_path / "part", resume=True)
    assert resumed.steps == whole.steps == 30 and resumed.best_dev == whole.best_dev
    expected = load_tagger(tmp_path / "whole").state_dict()
    got = load_tagger(tmp_path / "part").state_dict()
    assert expected.keys() == got.keys()
    assert all(torch.equal(expected[k], got[k]) for k in expected)


def test_word_char_vectors_are_each_words_own(tiny_bert_dir, make_encoder):
    teacher = Teacher.load(str(tiny_bert_dir))
    encoder = make_encoder("cnn", info=teacher.describe(), dim=teacher.dim)
    tagger = build_tagger(toy_config(tiny_bert_dir, char_fusion="concat"), ["A", "B"], teacher=teacher,
                          encoder=encoder).eval()
    words = [["the", "cat", "the"], ["xqzv"], []]
    with torch.inference_mode():
        vectors = tagger.word_char_vectors(words, 3)
        expected = encoder.embed(["the", "cat", "the", "xqzv"])
    assert vectors.shape == (3, 3, teacher.dim)
    assert torch.allclose(vectors[0], expected[:3], atol=1e-6)
    assert torch.allclose(vectors[1, 0], expected[3], atol=1e-6)
    assert not vectors[1, 1:].any() and not vectors[2].any()
    # Concatenated at the head: the head reads model dim + encoder dim.
    assert tagger.head.out.in_features == 2 * teacher.dim


def test_config_validation():
    with pytest.raises(ValueError, match="s2w_layers"):
        TaggerConfig(feature="lemma", feature_mode="merge").validate()
    with pytest.raises(ValueError, match="unknown pooling"):
        TaggerConfig(pool="median").validate()
    with pytest.raises(ValueError, match="unknown head"):
        TaggerConfig(head="crf").validate()
    with pytest.raises(ValueError, match="unknown char fusion"):
        TaggerConfig(char_fusion="sum").validate()
    with pytest.raises(ValueError, match="s2w_layers"):
        TaggerConfig(char_fusion="merge").validate()


# --- CLI -----------------------------------------------------------------------------------------
def test_cli_round_trip(tmp_path, tiny_bert_dir, capsys):
    out = tmp_path / "run"
    code = main(["tag", "train", "--task", "wnut17", "--teacher", str(tiny_bert_dir), "--policy", "none",
                 "--train-sentences", "48",
                 "--dev-sentences", "16", "--epochs", "1", "--out", str(out), "--quiet", "--lr", "1e-3"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["steps"] == 3 and 0.0 <= summary["test"] <= 1.0
    assert json.loads((out / "tagger" / "tagger.json").read_text())["config"]["task"] == "wnut17"

    report = tmp_path / "eval.json"
    assert main(["tag", "eval", str(out), "--noise", "0", "0.3", "--max-sentences", "40", "--json", str(report)]) == 0
    printed = capsys.readouterr().out
    assert "noise 0 " in printed and "noise 0.3" in printed
    results = json.loads(report.read_text())["results"]
    assert results["0"]["changed_words"] == 0.0 and results["0.3"]["changed_words"] > 0.0
    assert {"acc_single", "acc_multi", "acc_unseen", "f1_multi", "f1_single"} <= set(results["0"])
    # Every gold entity is in exactly one of the two entity splits.
    gold_entities = sum(len(get_entities(s.tags)) for s in load_task("wnut17", splits=("test",)).test[:40])
    assert results["0"]["n_entities_multi"] + results["0"]["n_entities_single"] == gold_entities > 0

    text = tmp_path / "in.txt"
    text.write_text("I love Paris!\n\nhello world\n", encoding="utf-8")
    assert main(["tag", "predict", str(out), str(text)]) == 0
    blocks = capsys.readouterr().out.strip("\n").split("\n\n")
    assert [[line.split("\t")[0] for line in b.splitlines()] for b in blocks] == [["I", "love", "Paris", "!"],
                                                                                 ["hello", "world"]]
    conllu = tmp_path / "in.conllu"
    conllu.write_text("1\tHi\thi\tINTJ\t_\t_\t0\troot\t_\t_\n\n", encoding="utf-8")
    assert main(["tag", "predict", str(out), str(conllu), "--out", str(tmp_path / "pred.conll")]) == 0
    assert (tmp_path / "pred.conll").read_text().startswith("Hi\t")
    # another policy in front of the trained tagger: one that needs an encoder this tagger lacks is refused
    capsys.readouterr()
    assert main(["tag", "predict", str(out), str(text), "--policy", "oov"]) == 2
    assert "no character encoder" in capsys.readouterr().err
    assert main(["tag", "eval", str(out), "--policy", "sometimes"]) == 2
    assert "unknown policy" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["tag", "train", "--task", "wnut17", "--policy", "sometimes", "--out", "{tmp}/r"], "policy"),
    (["tag", "train", "--task", "ewt-upos", "--feature", "lemma", "--out", "{tmp}/r"], "s2w-layers"),
    (["tag", "train", "--task", "ewt-upos", "--char-fusion", "merge", "--out", "{tmp}/r"], "s2w-layers"),
    (["tag", "eval", "{tmp}/nothing"], "no tagger"),
    (["tag", "predict", "{tmp}/nothing", "{tmp}/missing.txt"], "input file not found"),
])
def test_cli_errors_are_one_line(tmp_path, capsys, argv, message):
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("charwise: error:") and message in err[0]
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("option", [["--policy", "oov"], ["--char-fusion", "concat"]])
def test_cli_char_encoder_missing_for_the_teacher(tmp_path, tiny_bert_dir, capsys, option):
    argv = ["tag", "train", "--task", "wnut17", "--teacher", str(tiny_bert_dir), *option,
            "--train-sentences", "8", "--out", str(tmp_path / "r"), "--quiet"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--char-encoder" in err[0] and option[1] in err[0]
    assert not (tmp_path / "r").exists()


def test_cli_char_fusion_round_trip(tmp_path, tiny_bert_dir, make_encoder, capsys):
    teacher = Teacher.load(str(tiny_bert_dir))
    make_encoder("cnn", info=teacher.describe(), dim=teacher.dim).save_pretrained(tmp_path / "enc")
    out = tmp_path / "run"
    assert main(["tag", "train", "--task", "wnut17", "--teacher", str(tiny_bert_dir), "--char-fusion", "concat",
                 "--char-encoder", str(tmp_path / "enc"), "--train-sentences", "32", "--dev-sentences", "8",
                 "--epochs", "1", "--out", str(out), "--quiet", "--no-test"]) == 0
    capsys.readouterr()
    assert json.loads((out / "tagger" / "tagger.json").read_text())["config"]["char_fusion"] == "concat"
    assert (out / "tagger" / "char_encoder" / "model.safetensors").is_file()
    (tmp_path / "in.txt").write_text("hello wrold\n", encoding="utf-8")
    assert main(["tag", "predict", str(out), str(tmp_path / "in.txt")]) == 0
    assert [line.split("\t")[0] for line in capsys.readouterr().out.strip().splitlines()] == ["hello", "wrold"]


def test_cli_help():
    for argv in (["tag", "--help"], ["tag", "train", "--help"], ["tag", "eval", "--help"],
                 ["tag", "predict", "--help"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 0


@pytest.mark.slow
def test_two_process_training(tmp_path, tiny_bert_dir, two_cpu_processes):
    """`charwise tag train` on 2 processes (gloo): one schedule step per optimizer step, and early
    stopping decided by the main process stops every process."""
    out = tmp_path / "run"
    result = two_cpu_processes(["charwise.cli", "tag", "train", "--task", "wnut17", "--teacher", str(tiny_bert_dir),
                                "--train-sentences", "64", "--dev-sentences", "16", "--epochs", "4", "--patience", "1",
                                "--lr", "1e-3", "--head-lr", "1e-3", "--out", str(out), "--quiet", "--no-test"])
    assert result.returncode == 0, result.stderr[-2000:]
    log = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    done = json.loads((out / "result.json").read_text())
    assert done["processes"] == 2
    per_epoch = math.ceil(64 / 16)  # every process takes a shard of each global batch of 16
    total, warmup = 4 * per_epoch, math.ceil(0.1 * 4 * per_epoch)
    assert log[0]["step"] == per_epoch
    assert math.isclose(log[0]["lr"], 1e-3 * (total - per_epoch) / (total - warmup), rel_tol=1e-6)
    # The early-stopping rule replayed on the main process's dev scores gives the epochs run.
    best, bad, expected = -1.0, 0, 0
    for record in log:
        expected += 1
        best, bad = (record["dev"], 0) if record["dev"] > best else (best, bad + 1)
        if bad >= 1:
            break
    assert done["epochs_run"] == len(log) == expected
    assert (out / "tagger" / "tagger.safetensors").is_file()


# --- real weights --------------------------------------------------------------------------------
@pytest.mark.real
def test_minilm_tagger_base_and_hybrid(tmp_path):
    """Base (policy none) word states are BERT's first-piece states; a hybrid tagger trains."""
    from transformers import AutoModel

    teacher = Teacher.load("minilm")
    config = TaggerConfig(task="wnut17", policy="none", pool="first")
    tagger = build_tagger(config, ["O", "B-person"], teacher=teacher).eval()
    words = [["Tokenization", "of", "@paulwalk", "is", "unbelievably", "fun"]]
    enc = teacher.tokenizer(words, is_split_into_words=True, return_tensors="pt")
    reference = AutoModel.from_pretrained(teacher.source).eval()
    with torch.inference_mode():
        hidden = reference(**enc).last_hidden_state[0]
        firsts = [enc.word_ids(0).index(i) for i in range(len(words[0]))]
        inputs = tagger.hybrid.prepare(words)
        states, _ = tagger.pooling(tagger.hybrid(inputs=inputs).outputs.last_hidden_state, inputs.word_index)
    assert torch.allclose(states[0], hidden[firsts], atol=1e-4)

    wnut = load_task("wnut17", splits=("dev",))
    data = TaskData(wnut.spec, wnut.dev[:48], wnut.dev[48:64], [])
    hybrid = TaggerConfig(task="wnut17", policy="oov", head="bilstm", epochs=1, batch_size=16, head_lr=1e-2)
    result = train_tagger(hybrid, tmp_path / "run", data=data, teacher=Teacher.load("minilm"), progress=False)
    assert result.steps == 3
    tagger = load_tagger(tmp_path / "run")
    assert tagger.hybrid.encoder is not None and tagger.hybrid.policy.name == "oov"
    assert len(tagger.predict([["hello", "@paulwalk"]])[0]) == 2


@pytest.mark.real
def test_minilm_char_fusion_uses_the_shipped_encoder():
    """Char fusion on the real MiniLM: every word's vector is the shipped encoder's, added after the
    S2W merge with a zero-initialised projection (so the untrained tagger is plain S2W)."""
    from charwise.encoders.shipped import load as load_encoder

    teacher = Teacher.load("minilm")
    words = [["Tokenization", "of", "@paulwalk", "is", "unbelievably", "fun"], ["héllo", "🙂"]]
    config = TaggerConfig(task="ewt-upos", policy="none", pool="gru", s2w_layers=3, char_fusion="merge")
    fused = build_tagger(config, ["NOUN", "VERB"], teacher=teacher).eval()
    plain = build_tagger(TaggerConfig(task="ewt-upos", policy="none", pool="gru", s2w_layers=3), ["NOUN", "VERB"],
                         teacher=teacher).eval()
    plain.s2w.merge.load_state_dict(fused.s2w.merge.state_dict())
    with torch.inference_mode():
        vectors = fused.word_char_vectors(words, 6)
        expected = load_encoder("minilm").embed([w for s in words for w in s])
        inputs = fused.hybrid.prepare(words)
        with_chars, _ = fused.s2w(fused.hybrid.model, inputs, [6, 2], word_vectors=vectors)
        without, _ = plain.s2w(plain.hybrid.model, inputs, [6, 2])
    assert torch.allclose(vectors[0], expected[:6], atol=1e-5)
    assert torch.allclose(vectors[1, :2], expected[6:], atol=1e-5)
    assert torch.allclose(with_chars, without, atol=1e-5)
