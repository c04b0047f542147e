"""Hybrid models: policies, word splitting, alignment, equality with the base model, gradients,
causal-LM scoring, bad input. Tiny random models on real tokenizers; real weights marked ``real``."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F

from charwise.errors import ConfigError
from charwise.hybrid.model import HybridModel, ModelAdapter
from charwise.hybrid.policies import SUFFIXES, Policy, RandomPolicy, get_policy
from charwise.io import data_root
from charwise.teachers import Teacher
from charwise.words import split_words

XRAY = "He was emphatically a modern gentleman , of scrupulous courtesy , sportive".split()
AWKWARD = ["", "   ", "😀😀 🙈", "foo\u200bbar \u200b", "cafe\u0301 naïve Zürich", "日本語 и русский text",
           "x" * 10_000, "a\u0301\u0301\u0301", "\u202eevil\u202c"]


@pytest.fixture(scope="module")
def bert_teacher(tiny_bert_dir) -> Teacher:
    return Teacher.load(str(tiny_bert_dir))


@pytest.fixture(scope="module")
def bert_hybrid(bert_teacher, make_encoder):
    def build(policy="oov", **kw) -> HybridModel:
        encoder = make_encoder("cnn", info=bert_teacher.describe(), dim=bert_teacher.dim)
        return HybridModel(bert_teacher.model, bert_teacher, encoder, policy, **kw).eval()

    return build


@pytest.fixture(scope="module")
def llama_teacher(tiny_llama_teacher) -> Teacher:
    return tiny_llama_teacher


@pytest.fixture(scope="module")
def llama_hybrid(llama_teacher, make_encoder):
    def build(policy="oov") -> HybridModel:
        encoder = make_encoder("cnn", info=llama_teacher.describe(), dim=llama_teacher.dim)
        return HybridModel(llama_teacher.model, llama_teacher, encoder, policy).eval()

    return build


# --- the word splitter -----------------------------------------------------------------------------
@pytest.mark.parametrize("text, words, spaces", [
    ("Hello world, don't stop!", ["Hello", "world", ",", "don't", "stop", "!"],
     [False, True, False, True, True, False]),
    ("state-of-the-art -- ok", ["state-of-the-art", "-", "-", "ok"], [False, True, False, True]),
    ("I ❤️ NY👨\u200d👩\u200d👧!", ["I", "❤️", "NY", "👨\u200d👩\u200d👧", "!"], [False, True, True, False, False]),
    ("foo\u200bbar", ["foo\u200bbar"], [False]),
    ("cafe\u0301", ["cafe\u0301"], [False]),
    ("", [], []),
    (" \t\n ", [], []),
])
def test_split_words(text, words, spaces):
    split = split_words(text)
    assert split.words == words and split.space_before == spaces


def test_split_words_loses_only_whitespace():
    for text in AWKWARD + ["a  b\tc\n(d)", "it's 5$ -- ok?!"]:
        assert "".join(split_words(text).words) == "".join(text.split())


# --- policies --------------------------------------------------------------------------------------
def test_xrayemb_table2_policies(wordpiece_teacher):
    pieces = wordpiece_teacher.piece_ids(XRAY)

    def chosen(name: str) -> list[str]:
        return [w for w, s in zip(XRAY, get_policy(name).select(XRAY, pieces, wordpiece_teacher)) if s]

    assert chosen("multi") == ["emphatically", "scrupulous", "sportive"]
    assert chosen("no-suffix") == ["emphatically", "scrupulous"]  # sport + ##ive: "ive" is a suffix
    assert chosen("oov") == chosen("multi")
    assert chosen("none") == [] and chosen("all") == XRAY
    assert "ive" in SUFFIXES


def test_oov_also_takes_unknown_single_tokens(wordpiece_teacher):
    words = ["hello", "😀", "tweets"]
    pieces = wordpiece_teacher.piece_ids(words)
    assert pieces[1] == [wordpiece_teacher.tokenizer.unk_token_id]
    assert get_policy("oov").select(words, pieces, wordpiece_teacher) == [False, True, True]
    assert get_policy("multi").select(words, pieces, wordpiece_teacher) == [False, False, True]


def test_random_policy_is_seeded_and_order_free(wordpiece_teacher):
    words = [f"w{i}" for i in range(2000)]
    pieces = wordpiece_teacher.piece_ids(words)
    a = RandomPolicy(0.1, seed=3).select(words, pieces, wordpiece_teacher)
    assert a == get_policy("random:0.1", seed=3).select(words, pieces, wordpiece_teacher)
    assert a != RandomPolicy(0.1, seed=4).select(words, pieces, wordpiece_teacher)
    assert 0.07 < sum(a) / len(a) < 0.13
    assert not any(RandomPolicy(0.0).select(words, pieces, wordpiece_teacher))


@pytest.mark.parametrize("bad", ["random:x", "random:1.5", "sometimes", ""])
def test_bad_policy_names(bad):
    with pytest.raises(ValueError, match="polic|probability"):
        get_policy(bad)


def test_user_policy(bert_hybrid):
    class Long(Policy):
        name = "long"

        def select(self, words, pieces, teacher):
            return [len(w) > 5 for w in words]

    hm = bert_hybrid(Long())
    inputs = hm.prepare([["tiny", "enormous", "ok"]])
    assert inputs.selected == [[False, True, False]]


# --- alignment and equality with the base model ------------------------------------------------
def test_none_equals_base_model(bert_hybrid, bert_teacher):
    hm = bert_hybrid("none")
    texts = ["Hello world, don't stop!", "The accomodation was grate.", "", "😀 ok", "naïve café"]
    tok = bert_teacher.tokenizer(texts, padding=True, return_tensors="pt")
    inputs = hm.prepare_texts(texts)
    assert torch.equal(inputs.input_ids, tok["input_ids"])
    assert torch.equal(inputs.attention_mask, tok["attention_mask"])
    with pytest.raises(TypeError, match="not a single string"):
        hm.prepare_texts("Hello world")
    with torch.no_grad():
        ours = hm(inputs=inputs).outputs.last_hidden_state
        base = bert_teacher.model(**tok).last_hidden_state
    assert torch.allclose(ours, base, atol=1e-6)


def test_alignment(bert_hybrid, bert_teacher):
    hm = bert_hybrid("oov")
    words = [XRAY, ["short"], []]
    inputs = hm.prepare(words)
    cls, sep = bert_teacher.tokenizer.cls_token_id, bert_teacher.tokenizer.sep_token_id
    for b, ws in enumerate(words):
        spans, sel = inputs.word_spans[b], inputs.selected[b]
        assert len(spans) == len(ws) == len(sel)
        assert inputs.input_ids[b, 0] == cls and inputs.input_ids[b, int(inputs.lengths[b]) - 1] == sep
        pos = 1
        for i, ((s, e), pieces) in enumerate(zip(spans, inputs.pieces[b])):
            assert s == pos and e - s == (1 if sel[i] else len(pieces))
            assert (inputs.word_index[b, s:e] == i).all()
            if not sel[i]:
                assert inputs.input_ids[b, s:e].tolist() == pieces
            pos = e
        assert (inputs.word_index[b, pos:] == -1).all() and inputs.word_index[b, 0] == -1
    # Character-built positions hold the encoder's vectors; the rest are table rows.
    s, _ = inputs.word_spans[0][2]
    assert torch.allclose(inputs.inputs_embeds[0, s], hm.encoder.embed(["emphatically"])[0], atol=1e-6)
    table = bert_teacher.model.get_input_embeddings().weight
    assert torch.allclose(inputs.inputs_embeds[0, 1], table[inputs.input_ids[0, 1]])
    assert inputs.lengths[0] == 2 + len(XRAY)


def test_sequences_get_shorter(bert_hybrid):
    words = [XRAY]
    base = bert_hybrid("none").prepare(words).lengths[0]
    assert bert_hybrid("oov").prepare(words).lengths[0] == base - 5  # 3 + 3 + 2 pieces -> 3 positions


def test_gradients_reach_the_encoder(bert_hybrid):
    hm = bert_hybrid("all").train()
    out = hm([["some", "words", "here"], ["more"]])
    out.outputs.last_hidden_state.pow(2).mean().backward()
    for name, p in hm.encoder.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name
    assert hm.model.get_input_embeddings().weight.grad is not None


def test_vector_cache(bert_hybrid, monkeypatch):
    hm = bert_hybrid("all")
    calls = []
    embed = hm.encoder.embed
    monkeypatch.setattr(hm.encoder, "embed", lambda words, **kw: calls.append(list(words)) or embed(words, **kw))
    with torch.inference_mode():
        hm.prepare([["alpha", "beta", "alpha"]])
        hm.prepare([["beta", "gamma"]])
    assert calls == [["alpha", "beta"], ["gamma"]]  # each unique word once, then only misses
    hm.train()  # training makes cached vectors stale
    hm.eval()
    with torch.inference_mode():
        hm.prepare([["alpha"]])
    assert calls[-1] == ["alpha"]


def test_no_encoder_needed_for_none(bert_teacher):
    hm = HybridModel(bert_teacher.model, bert_teacher, None, "none")
    assert hm.prepare([["fine"]]).lengths[0] == 3
    with pytest.raises(ConfigError, match="encoder"):
        HybridModel(bert_teacher.model, bert_teacher, None, "all").prepare([["x"]])


def test_encoder_for_another_teacher_is_refused(bert_teacher, make_encoder):
    with pytest.raises(ValueError, match="mismatch"):
        HybridModel(bert_teacher.model, bert_teacher, make_encoder("cnn"), "oov")


@pytest.mark.parametrize("policy", ["none", "oov", "all"])
def test_awkward_text(bert_hybrid, policy):
    hm = bert_hybrid(policy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.inference_mode():
            out = hm(inputs=hm.prepare_texts(AWKWARD))
    states = out.outputs.last_hidden_state
    assert torch.isfinite(states).all()
    for b, text in enumerate(AWKWARD):
        assert len(out.inputs.word_spans[b]) == len(split_words(text).words)
        assert all(s >= 0 for s, _ in out.inputs.word_spans[b])  # every word has a position


def test_truncation_warns_and_keeps_closing_token(bert_hybrid, bert_teacher):
    hm = bert_hybrid("none", adapter=None)
    hm.adapter.max_length = 8
    with pytest.warns(UserWarning, match="truncated"):
        inputs = hm.prepare([[f"w{i}" for i in range(20)], ["ok"]])
    assert inputs.truncated == [True, False]
    assert inputs.lengths[0] == 8 and inputs.input_ids[0, 7] == bert_teacher.tokenizer.sep_token_id
    assert inputs.word_spans[0][-1] == (-1, -1)


def test_bad_batches(bert_hybrid):
    hm = bert_hybrid("none")
    with pytest.raises(TypeError):
        hm.prepare("a string")
    with pytest.raises(TypeError):
        hm.prepare(["not", "nested"])
    with pytest.raises(ValueError, match="space flags"):
        hm.prepare([["a", "b"]], [[False]])


def test_adapter_reads_special_tokens(bert_teacher, bytebpe_tokenizer):
    bert = ModelAdapter.from_tokenizer(bert_teacher.tokenizer, "wordpiece")
    tok = bert_teacher.tokenizer
    assert bert.prefix_ids == [tok.cls_token_id] and bert.suffix_ids == [tok.sep_token_id]
    assert bert.max_length == 512 and not bert.space_prefix
    llama = ModelAdapter.from_tokenizer(bytebpe_tokenizer, "byte-bpe")
    assert llama.prefix_ids == [] and llama.suffix_ids == [] and llama.space_prefix
    assert llama.start_ids == [bytebpe_tokenizer.get_vocab()["<|endoftext|>"]]


# --- byte-BPE and causal LMs -------------------------------------------------------------------
def test_bytebpe_none_matches_tokenizer(llama_hybrid, llama_teacher):
    hm = llama_hybrid("none")
    texts = ["Hello world, don't stop!", "In the beginning God created the heaven and the earth."]
    inputs = hm.prepare_texts(texts)
    for b, text in enumerate(texts):
        ids = llama_teacher.tokenizer(text)["input_ids"]
        assert inputs.input_ids[b, : len(ids)].tolist() == ids


def _single_pass_ll(model, ids: list[int]) -> float:
    x = torch.tensor([ids])
    logp = torch.log_softmax(model(input_ids=x).logits[0, :-1].float(), dim=-1)
    return float(logp[torch.arange(len(ids) - 1), x[0, 1:]].sum())


def test_word_log_likelihood_none_equals_single_pass(llama_hybrid, llama_teacher):
    hm = llama_hybrid("none")
    texts = ["Hello world, don't stop!", "And God said, Let there be light: and there was light.", "x"]
    splits = [split_words(t) for t in texts]
    with torch.inference_mode():
        lls = hm.word_log_likelihoods([s.words for s in splits], space_before=[s.space_before for s in splits],
                                      max_batch_tokens=40)
        for text, ll in zip(texts, lls):
            ids = hm.adapter.start_ids + llama_teacher.tokenizer(text)["input_ids"]
            assert ll.shape == (len(split_words(text).words),)
            assert float(ll.sum()) == pytest.approx(_single_pass_ll(llama_teacher.model, ids), abs=1e-4)


def test_word_log_likelihood_hybrid_equals_explicit_prefixes(llama_hybrid, llama_teacher):
    hm = llama_hybrid("oov")
    context = ["the", "accomodation", "was", "grate"]
    target = ["the", "accommodation", "was", "great"]
    greedy: list[torch.Tensor] = []
    with torch.inference_mode():
        ll = hm.word_log_likelihoods([context], [target], greedy=greedy)[0]
        inputs = hm.prepare([context])
        table = llama_teacher.model.get_input_embeddings()
        start = table(torch.tensor(hm.adapter.start_ids))
        for i, word in enumerate(target):
            pieces = hm.word_pieces([word], [i > 0])[0]
            prefix = torch.cat([start, inputs.inputs_embeds[0, : inputs.word_spans[0][i][0]],
                                table(torch.tensor(pieces[:-1], dtype=torch.long))])
            logits = llama_teacher.model(inputs_embeds=prefix[None]).logits[0].float()
            first = len(prefix) - len(pieces)
            all_logp = torch.log_softmax(logits[first:], dim=-1)
            logp = all_logp[torch.arange(len(pieces)), torch.tensor(pieces)]
            assert float(ll[i]) == pytest.approx(float(logp.sum()), abs=1e-4)
            assert bool(greedy[0][i]) == (all_logp.argmax(-1) == torch.tensor(pieces)).all().item()


# --- real weights ------------------------------------------------------------------------------
@pytest.mark.real
def test_sentence_encoder_none_equals_transformers(minilm_dir):
    from transformers import AutoModel, AutoTokenizer

    from charwise import SentenceEncoder

    sentences = ["A man is eating food.", "The accomodation was grate!!", "", "😀", "naïve café " * 200]
    tok = AutoTokenizer.from_pretrained(minilm_dir)
    model = AutoModel.from_pretrained(minilm_dir).eval()
    with torch.no_grad():
        batch = tok(sentences, padding=True, truncation=True, max_length=256, return_tensors="pt")
        states = model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        reference = F.normalize((states * mask).sum(1) / mask.sum(1), dim=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = SentenceEncoder("minilm", policy="none").encode(sentences, batch_size=2)
    assert ours.shape == (5, 384)
    assert torch.allclose(ours, reference, atol=1e-5)


@pytest.mark.real
def test_sentence_encoder_hybrid_is_typo_robust():
    """Find 120 real EWT sentences from copies with typos: the hybrid at least as well as the base."""

    from charwise import SentenceEncoder
    from charwise.evaluation import noise_config_for
    from charwise.typos.single import add_typos
    from charwise.words import join_words

    path = data_root() / "ud_en_ewt" / "en_ewt-ud-test.conllu"
    texts = [line[9:].strip() for line in path.open(encoding="utf-8") if line.startswith("# text = ")]
    texts = [t for t in texts if len(t.split()) >= 8][:120]
    recall = {}
    for policy in ("none", "oov"):
        enc = SentenceEncoder("minilm", policy=policy)
        config = noise_config_for(enc.hybrid.teacher)
        queries = []
        for i, t in enumerate(texts):
            split = split_words(t)
            queries.append(join_words(add_typos(split.words, 0.5, i, config)[0], split.space_before))
        scores = enc.encode(queries) @ enc.encode(texts).T
        recall[policy] = float((scores.argmax(1) == torch.arange(len(texts))).float().mean())
    assert recall["oov"] >= recall["none"] and recall["oov"] >= 0.95, recall


@pytest.mark.real
def test_smollm2_hybrid_scoring():
    hm = HybridModel.from_teacher("smollm2", policy="oov")
    text = "And the LORD spake unto Moosees, sayinng"
    split = split_words(text)
    with torch.inference_mode():
        inputs = hm.prepare([split.words], [split.space_before])
        base = HybridModel.from_teacher(hm.teacher, policy="none").prepare([split.words], [split.space_before])
        ll = hm.word_log_likelihoods([split.words], space_before=[split.space_before])[0]
    assert inputs.lengths[0] < base.lengths[0]
    assert sum(inputs.selected[0]) >= 2
    assert torch.isfinite(ll).all() and (ll < 0).all()
