"""The hybrid model as a sentence-transformers module (``charwise[st]``): features, equality with
SentenceEncoder and with plain all-MiniLM-L6-v2, gradients through ``forward`` and the losses,
save/load, and the one-line error without the extra. Tiny random BERT on MiniLM's real tokenizer;
real weights marked ``real``."""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any, cast

import pytest
import torch

from charwise.errors import CharwiseError, CheckpointError, ConfigError
from charwise.hybrid.policies import Policy
from charwise.hybrid.sentence import SentenceEncoder
from charwise.hybrid.st import (
    CharwiseHybrid,
    decode_texts,
    encode_texts,
    sentence_transformer,
    sentence_transformer_from,
)
from charwise.teachers import Teacher

TEXTS = ["Hello world, don't stop!", "The accomodation was grate.", "", "   ", "😀😀 🙈", "naïve café Zürich",
         "日本語 и русский text", "state-of-the-art " * 40]


def _st():
    return pytest.importorskip("sentence_transformers")


def _losses():
    _st()
    try:  # sentence-transformers >= 6
        from sentence_transformers.sentence_transformer import losses
    except ImportError:
        from sentence_transformers import losses
    return losses


def _preprocess(model, texts):
    """``SentenceTransformer.preprocess`` (>= 6) or ``tokenize`` (< 6)."""
    return (getattr(model, "preprocess", None) or model.tokenize)(texts)


@pytest.fixture(scope="module")
def tiny_teacher(tiny_bert_dir) -> Teacher:
    return Teacher.load(str(tiny_bert_dir))


@pytest.fixture(scope="module")
def tiny_encoder(tiny_teacher, make_encoder):
    return make_encoder("cnn", info=tiny_teacher.describe(), dim=tiny_teacher.dim)


@pytest.fixture
def tiny_module(tiny_teacher, tiny_encoder):
    """A fresh CharwiseHybrid on the tiny BERT (shared weights), put back in eval mode afterwards."""
    made = []

    def build(policy="oov", **kw) -> CharwiseHybrid:
        module = CharwiseHybrid(tiny_teacher, policy, tiny_encoder, **kw)
        made.append(module)
        return module

    yield build
    for module in made:
        module.eval()
        module.zero_grad(set_to_none=True)


# --- features --------------------------------------------------------------------------------------
def test_texts_round_trip_through_code_points():
    texts = TEXTS + ["\ud800 lone surrogate", "\x00nul\x00"]
    features = encode_texts(texts)
    assert features["input_ids"].dtype == torch.long and features["input_ids"].shape == features["attention_mask"].shape
    assert decode_texts(**features) == texts
    # Extra right padding (what merging columns or sentence-transformers' padding adds) changes nothing.
    padded = {k: torch.nn.functional.pad(v, (0, 5)) for k, v in features.items()}
    assert decode_texts(**padded) == texts
    assert encode_texts([])["input_ids"].shape == (0, 0)


def test_preprocess(tiny_module):
    module = tiny_module()
    assert decode_texts(**module.preprocess(["a b", "c"], prompt="query: ")) == ["query: a b", "query: c"]
    assert decode_texts(**module.tokenize(["x"])) == ["x"]
    with pytest.raises(TypeError):
        module.preprocess("a single string")
    with pytest.raises(ConfigError, match="pairs"):
        module.preprocess([("a", "b")])
    with pytest.warns(UserWarning, match="ignores max_length"):
        module.preprocess(["x"], max_length=7)


def test_forward_outputs_the_hybrid_sequence(tiny_module):
    module = tiny_module("oov")
    features = module.preprocess(TEXTS[:3])
    before = {k: v.clone() for k, v in features.items()}
    with torch.inference_mode():
        out = module(features)
        inputs = module.hybrid.prepare_texts(TEXTS[:3])
        states = module.hybrid(inputs=inputs).outputs.last_hidden_state
    assert all(torch.equal(features[k], before[k]) for k in before)  # the input dict is left alone
    assert torch.equal(out["attention_mask"], inputs.attention_mask)
    assert torch.equal(out["input_ids"], inputs.input_ids) and torch.equal(out["word_index"], inputs.word_index)
    assert torch.allclose(out["token_embeddings"], states, atol=1e-6)
    assert module.get_embedding_dimension() == module.get_word_embedding_dimension() == 16


def test_max_seq_length(tiny_module):
    module = tiny_module("none", max_length=8)
    assert module.max_seq_length == 8
    with pytest.warns(UserWarning, match="truncated"):
        out = module(module.preprocess(["w " * 30]))
    assert out["attention_mask"].shape == (1, 8)
    module.max_seq_length = 512
    assert module(module.preprocess(["w " * 30]))["attention_mask"].shape == (1, 32)


# --- equality with SentenceEncoder -----------------------------------------------------------------
def test_encode_equals_sentence_encoder(tiny_bert_dir, tiny_encoder):
    _st()
    model = sentence_transformer(str(tiny_bert_dir), policy="oov", encoder=tiny_encoder, max_length=64)
    enc = SentenceEncoder(str(tiny_bert_dir), policy="oov", encoder=tiny_encoder, max_length=64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the long text is truncated
        ours = model.encode(TEXTS, batch_size=3, convert_to_tensor=True)
        theirs = enc.encode(TEXTS, batch_size=2)
    assert ours.shape == theirs.shape == (len(TEXTS), 16)
    assert torch.allclose(ours.cpu(), theirs, atol=1e-6)
    assert torch.allclose(model.similarity(ours, ours).diagonal(), torch.ones(len(TEXTS)), atol=1e-5)
    shared = enc.sentence_transformer()  # the same weights, no copy
    assert shared[0] is enc.module


def test_encode_prepares_the_next_batch_while_the_model_runs(tiny_bert_dir, tiny_encoder, monkeypatch):
    import threading

    enc = SentenceEncoder(str(tiny_bert_dir), policy="oov", encoder=tiny_encoder, max_length=64)
    texts = ["a cat sat", "the dogg barked", "hello wrld", "x", "", "naïve café"]
    alone = torch.cat([enc.encode([t]) for t in texts])
    threads, overlapped = [], []
    second_started = threading.Event()
    prepare, states = enc.hybrid.prepare_texts, enc.module.states

    def watched_prepare(batch):
        threads.append(threading.current_thread().name)
        if len(threads) == 2:
            second_started.set()
        return prepare(batch)

    def watched_states(inputs):
        if not overlapped:  # the model's first batch: the second is being prepared meanwhile
            overlapped.append(second_started.wait(timeout=30))
        return states(inputs)

    monkeypatch.setattr(enc.hybrid, "prepare_texts", watched_prepare)
    monkeypatch.setattr(enc.module, "states", watched_states)
    together = enc.encode(texts, batch_size=2, overlap=True)
    torch.testing.assert_close(together, alone, atol=1e-6, rtol=1e-5)  # batching and threads change nothing
    assert overlapped == [True] and len(threads) == 3
    assert all(name.startswith("charwise-prepare") for name in threads)
    assert enc.encode([], overlap=True).shape == (0, 16)
    threads.clear()
    torch.testing.assert_close(enc.encode(texts, batch_size=2), alone, atol=1e-6, rtol=1e-5)  # by default: in turn
    assert threads == [threading.current_thread().name] * 3

    def broken(batch):
        raise ValueError("preparation failed")

    monkeypatch.setattr(enc.hybrid, "prepare_texts", broken)
    for overlap in (True, False):
        with pytest.raises(ValueError, match="preparation failed"):
            enc.encode(texts, batch_size=2, overlap=overlap)


def test_prepare_workers_are_checked_before_anything_starts(tiny_bert_dir):
    for bad in (-1, True, 1.5, "2"):
        with pytest.raises(ConfigError, match="prepare_workers must be 0 or more"):
            SentenceEncoder(str(tiny_bert_dir), policy="none", prepare_workers=bad)
    with pytest.raises(ConfigError, match="policy 'none' has no speller"):
        SentenceEncoder(str(tiny_bert_dir), policy="none", prepare_workers=2)
    from charwise.hybrid.policies import RepairPolicy

    own = RepairPolicy("en", speller=cast(Any, object()))  # a speller of the caller's: never sent to a process
    with pytest.raises(ConfigError, match="lives in this process only"):
        SentenceEncoder(str(tiny_bert_dir), policy=own, prepare_workers=2)


@pytest.mark.real  # the shipped speller, in worker processes
def test_prepare_workers_give_the_vectors_of_one_process(tiny_bert_dir, monkeypatch):
    texts = ["I recieved teh pakage tomorow", "thanks @joejonas http://youtu.be/xi8qJ3IKK8U #theroom", "",
             "   ", "u dont no were their going", "naïve café Zürich", "The acommodation was grate.",
             "state-of-the-art " * 80, "a", "x" * 300] * 3
    alone = SentenceEncoder(str(tiny_bert_dir), policy="repair", max_length=64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the long texts are truncated
        expected = alone.encode(texts, batch_size=4)
        # other batches pad to other lengths, which moves a model's float sums by an ulp: same batches
        reversed_expected = alone.encode(texts[::-1], batch_size=3)
        with SentenceEncoder(str(tiny_bert_dir), policy="repair", max_length=64, prepare_workers=2) as enc:
            def asked_here(*args, **kwargs):
                raise AssertionError("the speller was asked in the model's process")

            monkeypatch.setattr(enc.policy, "repairs", asked_here)  # this process's policy: never asked
            assert torch.equal(enc.encode(texts, batch_size=4), expected)
            pool = enc._pool
            assert pool is not None
            assert torch.equal(enc.encode(texts[::-1], batch_size=3, overlap=True), reversed_expected)
            assert enc._pool is pool  # started once, kept for every call
            assert enc.encode([]).shape == (0, 16)
        assert enc._pool is None  # the with block stopped the processes
        assert torch.equal(enc.encode(texts[:5], batch_size=2), expected[:5])  # started again on demand
        enc.close()
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(2) as threads, SentenceEncoder(str(tiny_bert_dir), policy="repair", max_length=64,
                                                             prepare_workers=1) as shared:
            started = []
            start = shared._repair_pool
            monkeypatch.setattr(shared, "_repair_pool", lambda: started.append(start()) or started[-1])
            both = list(threads.map(lambda part: shared.encode(part, batch_size=2), [texts[:10], texts[10:20]]))
            assert torch.equal(torch.cat(both), expected[:20])  # two threads at once: one pool serves both
            assert len(started) == 2 and started[0] is started[1]
        with SentenceEncoder(str(tiny_bert_dir), policy="repair", max_length=64, prepare_workers=1) as hurt:
            assert torch.equal(hurt.encode(texts[:4], batch_size=2), expected[:4])
            for process in list(hurt._pool._executor._processes.values()):  # the executor's own table
                process.kill()
                process.join()
            with pytest.raises(CharwiseError, match="a worker process died"):
                hurt.encode(texts, batch_size=2)
            assert hurt._pool is None  # the broken pool is gone: the next call starts new processes
            assert torch.equal(hurt.encode(texts[:4], batch_size=2), expected[:4])


# --- gradients ------------------------------------------------------------------------------------
def _assert_encoder_grads(module: CharwiseHybrid) -> None:
    for name, p in module.hybrid.encoder.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name


def test_gradients_reach_the_encoder_through_forward(tiny_module):
    module = tiny_module("all").train()
    out = module(module.preprocess(["some words here", "more"]))
    out["token_embeddings"].pow(2).mean().backward()
    _assert_encoder_grads(module)


@pytest.mark.parametrize("loss_name", ["MultipleNegativesRankingLoss", "CachedMultipleNegativesRankingLoss"])
def test_gradients_through_sentence_transformers_losses(tiny_module, loss_name):
    """MNRL merges the columns into one batch; the cached loss cuts them into mini-batches and runs
    forward twice on the same features: both need plain padded tensors as features."""
    losses = _losses()
    module = tiny_module("oov")
    model = sentence_transformer_from(module)
    model.train()
    loss_cls = getattr(losses, loss_name)
    loss_fn = loss_cls(model, mini_batch_size=2) if loss_name.startswith("Cached") else loss_cls(model)
    anchors = _preprocess(model, ["the hotel was grate", "accomodation fine", "helo wrld", "x"])
    positives = _preprocess(model, ["the hotel was great", "accommodation was fine", "hello world", "y"])
    loss = loss_fn([anchors, positives], None)
    loss.backward()
    assert torch.isfinite(loss.detach())
    _assert_encoder_grads(module)


@pytest.mark.slow
def test_trainer_trains_the_encoder(tiny_module, tmp_path):
    st = _st()
    datasets = pytest.importorskip("datasets")  # sentence-transformers' trainer needs it ([train] extra)
    module = tiny_module("oov")
    model = sentence_transformer_from(module)
    before = {k: v.detach().clone() for k, v in module.hybrid.encoder.state_dict().items()}
    data = datasets.Dataset.from_dict({"anchor": ["the hotel was grate", "accomodation fine", "helo wrld"] * 2,
                                       "positive": ["the hotel was great", "accommodation fine", "hello world"] * 2})
    args = st.SentenceTransformerTrainingArguments(output_dir=str(tmp_path), per_device_train_batch_size=3,
                                                   num_train_epochs=1, learning_rate=1e-2, report_to=[],
                                                   save_strategy="no", use_cpu=True)
    trainer = st.SentenceTransformerTrainer(model=model, args=args, train_dataset=data,
                                            loss=_losses().MultipleNegativesRankingLoss(model))
    trainer.train()
    after = module.hybrid.encoder.state_dict()
    assert all(not torch.equal(after[k], v) for k, v in before.items() if v.is_floating_point())


# --- save / load ----------------------------------------------------------------------------------
def test_module_save_load_round_trip(tiny_module, tmp_path):
    module = tiny_module("random:0.5", seed=3, max_length=40)
    module.save(str(tmp_path))
    files = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert "charwise_hybrid.json" in files and "model/model.safetensors" in files
    assert "encoder/model.safetensors" in files
    assert not [f for f in files if f.endswith((".bin", ".pt", ".pth", ".pkl", ".ckpt"))]  # no pickle
    loaded = CharwiseHybrid.load(str(tmp_path))
    assert loaded.policy.name == "random:0.5" and loaded.policy.seed == 3 and loaded.max_seq_length == 40
    assert loaded.hybrid.teacher.name == module.hybrid.teacher.name
    features = module.preprocess(TEXTS[:6])
    with torch.inference_mode():
        a, b = module(features), loaded(features)
    assert torch.equal(a["input_ids"], b["input_ids"])
    assert torch.allclose(a["token_embeddings"], b["token_embeddings"], atol=1e-6)


def test_save_load_without_encoder(tiny_teacher, tmp_path):
    module = CharwiseHybrid(tiny_teacher, "none", None)
    module.save(str(tmp_path))
    assert not (tmp_path / "encoder").exists()
    assert CharwiseHybrid.load(str(tmp_path)).hybrid.encoder is None


def test_save_load_keeps_a_repair_policy_and_its_threshold(tiny_teacher, tmp_path):
    from charwise.hybrid.policies import RepairPolicy

    module = CharwiseHybrid(tiny_teacher, RepairPolicy("es", threshold=0.8), None)
    assert module.hybrid.encoder is None  # repair reads pieces only: no character encoder needed
    module.save(str(tmp_path))
    loaded = CharwiseHybrid.load(str(tmp_path)).policy
    assert isinstance(loaded, RepairPolicy) and (loaded.name, loaded.threshold) == ("repair:es", 0.8)


def test_save_refuses_a_custom_policy(tiny_teacher, tiny_encoder, tmp_path):
    class Long(Policy):
        name = "long"

        def select(self, words, pieces, teacher):
            return [len(w) > 5 for w in words]

    with pytest.raises(ConfigError, match="built-in"):
        CharwiseHybrid(tiny_teacher, Long(), tiny_encoder).save(str(tmp_path))


def test_load_refuses_other_directories(tmp_path):
    with pytest.raises(CheckpointError, match="not a saved CharwiseHybrid"):
        CharwiseHybrid.load(str(tmp_path))
    (tmp_path / "charwise_hybrid.json").write_text('{"format": "something-else"}')
    with pytest.raises(CheckpointError, match="format"):
        CharwiseHybrid.load(str(tmp_path))


def test_sentence_transformer_save_load_round_trip(tiny_module, tmp_path):
    st = _st()
    model = sentence_transformer_from(tiny_module("oov"))
    model.save(str(tmp_path))
    # The module class lives outside sentence_transformers: version 6 asks for trust_remote_code (the class
    # is imported from the installed charwise; nothing is read from the directory but config and weights).
    loaded = st.SentenceTransformer(str(tmp_path), trust_remote_code=True, device="cpu")
    assert isinstance(loaded[0], CharwiseHybrid)
    assert not [p for p in tmp_path.rglob("*") if p.suffix in (".bin", ".pt", ".pth", ".pkl", ".py")]
    texts = TEXTS[:7]
    assert torch.allclose(model.encode(texts, convert_to_tensor=True), loaded.encode(texts, convert_to_tensor=True),
                          atol=1e-6)


# --- the optional extra ---------------------------------------------------------------------------
def test_missing_extra_is_a_one_line_error(monkeypatch, tiny_module):
    module = tiny_module("oov")
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import raises ImportError
    for build in (lambda: sentence_transformer("minilm"), lambda: sentence_transformer_from(module)):
        with pytest.raises(ConfigError) as info:
            build()
        message = str(info.value)
        assert "pip install charwise[st]" in message and "\n" not in message
    # Everything else works without the extra.
    with torch.inference_mode():
        assert module(module.preprocess(["still works"]))["token_embeddings"].shape[-1] == 16


# --- real weights ---------------------------------------------------------------------------------
@pytest.mark.real
def test_none_equals_all_minilm_l6_v2(minilm_dir, monkeypatch):
    st = _st()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    sentences = ["A man is eating food.", "The accomodation was grate!!", "", "😀", "naïve café " * 200,
                 "Zürich's state-of-the-art e-mail server"]
    reference = st.SentenceTransformer(str(minilm_dir), device="cpu")
    ours = sentence_transformer("minilm", policy="none", device="cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the long sentence is truncated to 256 positions by both
        a = ours.encode(sentences, batch_size=4, convert_to_tensor=True)
    b = reference.encode(sentences, batch_size=4, convert_to_tensor=True)
    assert ours.max_seq_length == reference.max_seq_length == 256
    assert a.shape == b.shape == (len(sentences), 384)
    assert torch.allclose(a, b, atol=1e-5)


@pytest.mark.real
def test_oov_brings_typos_closer_and_matches_sentence_encoder():
    _st()
    pairs = [("The accommodation was great and the staff were very friendly.",
              "The acommodation was graet and the staf were vrey freindly."),
             ("I would definitely recommend this restaurant to my friends.",
              "I wuold definately recomend this restaurnat to my freinds."),
             ("The government announced new environmental regulations yesterday.",
              "The govrenment anounced new enviromental regulatoins yesturday.")]
    texts = [t for pair in pairs for t in pair]
    similarity = {}
    for policy in ("none", "oov"):
        enc = SentenceEncoder("minilm", policy=policy)
        model = enc.sentence_transformer()
        vectors = model.encode(texts, batch_size=4, convert_to_tensor=True)
        assert torch.allclose(vectors.cpu(), enc.encode(texts, batch_size=3), atol=1e-5)
        similarity[policy] = model.similarity(vectors[0::2], vectors[1::2]).diagonal()
    gain = similarity["oov"] - similarity["none"]
    assert (gain > 0).all() and gain.mean() > 0.05, similarity
