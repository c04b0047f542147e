"""Spelling repair in front of any SentenceTransformer (``charwise.hybrid.st_repair``): vectors equal
to the wrapped model's on clean text and on the corrected text, the prompt left as written, the
fallbacks of older input modules, save/load and the refusals. The speller is the real shipped one
(loaded once per process, a few seconds); the models are a tiny random BERT on MiniLM's real
tokenizer and a tiny word-vector model, with real all-MiniLM-L6-v2 weights marked ``real``."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
import torch
from torch import nn

from charwise.errors import CheckpointError, ConfigError
from charwise.hybrid.st_repair import CONFIG_NAME, INNER_DIR, RepairInput, repairing

CLEAN = ["A man is eating food.", "The weather was beautiful yesterday afternoon.", "", "Zürich, 2024: naïve café!",
         "Okrent met Brandeis in Gdańsk."]
MISSPELLED, CORRECTED = "I recieved the pakage", "I received the package"
PROMPT = "Represnt this sentense: "  # misspelled on purpose: it must reach the model as written
WORDS = ["i", "received", "the", "package", "represent", "represnt", "this", "sentence", "sentense", "a", "man",
         "is", "eating", "food", "weather", "was", "beautiful", "yesterday", "afternoon", "okrent"]


def _st():
    return pytest.importorskip("sentence_transformers")


def _modules():
    """Transformer, Pooling, Normalize, WordEmbeddings, WhitespaceTokenizer (v6 names, else v5)."""
    _st()
    try:
        from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer, WordEmbeddings
        from sentence_transformers.sentence_transformer.modules.tokenizer import WhitespaceTokenizer
    except ImportError:
        from sentence_transformers.models import Normalize, Pooling, Transformer, WordEmbeddings
        from sentence_transformers.models.tokenizer import WhitespaceTokenizer
    return Transformer, Pooling, Normalize, WordEmbeddings, WhitespaceTokenizer


def _encode(model, texts, **kwargs) -> torch.Tensor:
    return model.encode(texts, convert_to_tensor=True, batch_size=8, **kwargs)


@pytest.fixture(scope="module")
def bert_model(tiny_bert_dir):
    """A SentenceTransformer on a tiny random BERT (MiniLM's real tokenizer): Transformer, mean, Normalize."""
    st = _st()
    Transformer, Pooling, Normalize, _, _ = _modules()
    transformer = Transformer(str(tiny_bert_dir), max_seq_length=64)
    return st.SentenceTransformer(modules=[transformer, Pooling(16, "mean"), Normalize()], device="cpu")


@pytest.fixture(scope="module")
def word_model():
    """An average-word-vector SentenceTransformer (the GloVe family) on a 20-word random vocabulary."""
    st = _st()
    _, Pooling, _, WordEmbeddings, WhitespaceTokenizer = _modules()
    vocab = ["PADDING_TOKEN", *WORDS]
    table = torch.randn(len(vocab), 8, generator=torch.Generator().manual_seed(0))
    table[0] = 0
    embeddings = WordEmbeddings(WhitespaceTokenizer(vocab, stop_words=[], do_lower_case=True), table.numpy())
    return st.SentenceTransformer(modules=[embeddings, Pooling(8, "mean")], device="cpu")


@pytest.fixture(scope="module")
def repaired_bert(bert_model):
    return repairing(bert_model, "en")


# --- vectors --------------------------------------------------------------------------------------
def test_clean_texts_give_the_same_vectors(bert_model, repaired_bert):
    assert torch.equal(_encode(repaired_bert, CLEAN), _encode(bert_model, CLEAN))
    assert [r.text for r in repaired_bert[0].last_repairs] and not any(
        w.changed for r in repaired_bert[0].last_repairs for w in r.words)


def test_a_misspelled_text_reads_as_its_correction(bert_model, repaired_bert, word_model):
    assert torch.equal(_encode(repaired_bert, [MISSPELLED]), _encode(bert_model, [CORRECTED]))
    assert not torch.equal(_encode(bert_model, [MISSPELLED]), _encode(bert_model, [CORRECTED]))
    fixed = repaired_bert[0].last_repairs[0]
    assert fixed.corrected == CORRECTED
    assert [(w.word, w.correction, w.start, w.end) for w in fixed.words if w.changed] == [
        ("recieved", "received", 2, 10), ("pakage", "package", 15, 21)]
    # Any first module: the word-vector model too.
    assert torch.equal(_encode(repairing(word_model, "en"), [MISSPELLED]), _encode(word_model, [CORRECTED]))


def test_last_repairs_follow_the_order_of_the_inputs(bert_model, repaired_bert):
    # sentence-transformers encodes the longest text first, in batches: the repairs come back in the
    # order of the texts given, for every text of the call (not the last batch alone).
    texts = ["the pakage", "A much longer text where I recieved the pakage yesterday afternoon.", "", "I recieved it",
             "A man is eating food.", MISSPELLED, "the pakage"]
    vectors = repaired_bert.encode(texts, convert_to_tensor=True, batch_size=2)
    assert [r.text for r in repaired_bert[0].last_repairs] == texts
    assert [r.corrected for r in repaired_bert[0].last_repairs] == [
        "the package", "A much longer text where I received the package yesterday afternoon.", "", "I received it",
        "A man is eating food.", CORRECTED, "the package"]
    corrected = [r.corrected for r in repaired_bert[0].last_repairs]
    assert torch.allclose(vectors, bert_model.encode(corrected, convert_to_tensor=True, batch_size=2), atol=1e-6)
    repaired_bert.encode("I recieved it")  # a single text
    assert [r.corrected for r in repaired_bert[0].last_repairs] == ["I received it"]
    repaired_bert.encode([("the pakage", "A man is eating food."), MISSPELLED], batch_size=1)  # pairs too
    assert [r.text for r in repaired_bert[0].last_repairs] == ["the pakage", "A man is eating food.", MISSPELLED]
    # the model can be sent to sentence-transformers' multi-process workers: its class is importable
    # by name, and its state copies through the reduce protocol pickling uses (no pickle is made here)
    import copy as copying
    import importlib

    cls = type(repaired_bert)
    assert getattr(importlib.import_module(cls.__module__), cls.__qualname__) is cls
    copy = copying.deepcopy(repaired_bert)
    assert type(copy) is type(repaired_bert)
    assert torch.equal(_encode(copy, texts), _encode(repaired_bert, texts))
    assert [r.text for r in copy[0].last_repairs] == texts


def test_the_prompt_is_not_repaired(bert_model, repaired_bert, word_model):
    expected = _encode(bert_model, [CORRECTED], prompt=PROMPT)
    assert torch.equal(_encode(repaired_bert, [MISSPELLED], prompt=PROMPT), expected)
    assert not torch.equal(expected, _encode(bert_model, [CORRECTED], prompt="Represent this sentence: "))
    assert repaired_bert[0].last_repairs[0].text == MISSPELLED  # the speller saw the text alone
    # Prompts by name are kept, and so is the pooling's view of the prompt (Transformer's prompt_length).
    bert_model.prompts["query"] = PROMPT
    try:
        named = repairing(bert_model, "en")
        assert named.prompts["query"] == PROMPT
        assert torch.equal(_encode(named, [MISSPELLED], prompt_name="query"), expected)
    finally:
        del bert_model.prompts["query"]
    words = repairing(word_model, "en")
    assert torch.equal(_encode(words, [MISSPELLED], prompt=PROMPT), _encode(word_model, [CORRECTED], prompt=PROMPT))
    assert not torch.equal(_encode(words, [MISSPELLED], prompt=PROMPT),
                           _encode(word_model, [CORRECTED], prompt="Represent this sentence: "))


def test_threshold_one_changes_nothing(bert_model):
    strict = repairing(bert_model, "en", threshold=1.0)
    assert strict[0].threshold == 1.0
    assert torch.equal(_encode(strict, [MISSPELLED]), _encode(bert_model, [MISSPELLED]))


def test_pairs_and_other_inputs(repaired_bert):
    module = repaired_bert[0]
    image = {"image": "not text"}
    out = module.repair_inputs([(MISSPELLED, "the pakage"), image, "clean text"])
    assert out == [(CORRECTED, "the package"), image, "clean text"]
    assert [r.text for r in module.last_repairs] == [MISSPELLED, "the pakage", "clean text"]
    assert module.repair_inputs([image]) == [image] and module.last_repairs == []
    with pytest.raises(TypeError, match="single string"):
        module.preprocess(MISSPELLED)


# --- input modules of older sentence-transformers --------------------------------------------------
class _Recorder(nn.Module):
    """An input module that records the texts it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Any] = []

    def forward(self, features: dict[str, Any]) -> dict[str, Any]:
        return features


class _NoPrompt(_Recorder):
    def preprocess(self, inputs: list[Any], **kwargs: Any) -> dict[str, Any]:
        if "prompt" in kwargs:
            raise TypeError("preprocess() got an unexpected keyword argument 'prompt'")
        self.seen = list(inputs)
        return {}


class _TokenizeOnly(_Recorder):
    def tokenize(self, texts: list[Any]) -> dict[str, Any]:
        self.seen = list(texts)
        return {}


@pytest.mark.parametrize("inner_class", [_NoPrompt, _TokenizeOnly])
def test_fallbacks_prepend_the_prompt_after_repair(inner_class):
    module = RepairInput(inner_class(), "en")
    module.preprocess([MISSPELLED, (MISSPELLED, "a pair")], prompt=PROMPT)
    assert module.inner.seen == [PROMPT + CORRECTED, (PROMPT + CORRECTED, "a pair")]
    module.preprocess([MISSPELLED])
    assert module.inner.seen == [CORRECTED]


# --- what sentence-transformers reads from the first module ----------------------------------------
def test_shares_weights_and_delegates(bert_model, repaired_bert):
    assert repaired_bert[0].inner is bert_model[0]
    assert all(a is b for a, b in zip(list(repaired_bert)[1:], list(bert_model)[1:]))
    assert len(repaired_bert) == len(bert_model) and repaired_bert.device == bert_model.device
    assert {id(p) for p in repaired_bert.parameters()} == {id(p) for p in bert_model.parameters()}
    assert repaired_bert.tokenizer is bert_model.tokenizer
    assert repaired_bert.get_embedding_dimension() == bert_model.get_embedding_dimension() == 16
    assert repaired_bert[0].get_embedding_dimension() == repaired_bert[0].get_word_embedding_dimension() == 16
    assert repaired_bert.modalities == bert_model.modalities
    assert repaired_bert.transformers_model is bert_model.transformers_model
    assert repaired_bert.max_seq_length == 64
    repaired_bert.max_seq_length = 32
    try:
        assert bert_model.max_seq_length == 32
    finally:
        repaired_bert.max_seq_length = 64


# --- save / load ----------------------------------------------------------------------------------
def test_sentence_transformer_save_load_round_trip(repaired_bert, tmp_path):
    st = _st()
    texts = [MISSPELLED, *CLEAN]
    repaired_bert.save(str(tmp_path))
    config = json.loads((tmp_path / "0_RepairInput" / CONFIG_NAME).read_text())
    assert config["language"] == "en" and config["threshold"] is None
    assert config["module"]["qualname"].startswith("sentence_transformers.")
    assert config["module"]["qualname"].endswith(".Transformer")
    assert not [p for p in tmp_path.rglob("*") if p.suffix in (".bin", ".pt", ".pth", ".pkl", ".py")]
    # A module class of another package: sentence-transformers 6 asks for trust_remote_code (the class is
    # imported from the installed charwise; nothing is read from the directory but config and weights).
    loaded = st.SentenceTransformer(str(tmp_path), trust_remote_code=True, device="cpu")
    assert isinstance(loaded[0], RepairInput) and loaded[0].language == "en"
    assert torch.allclose(_encode(loaded, texts, prompt=PROMPT), _encode(repaired_bert, texts, prompt=PROMPT),
                          atol=1e-6)
    direct = RepairInput.load(str(tmp_path / "0_RepairInput"))
    assert type(direct.inner) is type(repaired_bert[0].inner)


def test_word_model_round_trip_keeps_settings(word_model, tmp_path):
    st = _st()
    model = repairing(word_model, "es", threshold=0.5)
    model.save(str(tmp_path), create_model_card=False)  # the card's usage example would load the Spanish speller
    loaded = st.SentenceTransformer(str(tmp_path), trust_remote_code=True, device="cpu")
    assert (loaded[0].language, loaded[0].threshold) == ("es", 0.5)
    # Not encoded, for the same reason; the BERT round trip above compares vectors.
    assert loaded[0].inner.tokenizer.get_vocab() == word_model.tokenizer.get_vocab()
    assert torch.equal(loaded[0].inner.emb_layer.weight, word_model[0].emb_layer.weight)


def _saved_config(tmp_path, **changes: Any) -> str:
    path = tmp_path / "saved"
    (path / INNER_DIR).mkdir(parents=True)
    config = {"format": "charwise-repair-input", "format_version": 1, "language": "en", "threshold": None,
              "module": {"qualname": "sentence_transformers.base.modules.transformer.Transformer", "path": INNER_DIR}}
    config.update(changes)
    (path / CONFIG_NAME).write_text(json.dumps(config))
    return str(path)


@pytest.mark.parametrize("qualname", ["os.system", "builtins.eval", "torch.nn.Linear", "charwise_evil.Module",
                                      "sentence_transformers", "sentence_transformers..x", "charwise.no_such.Thing",
                                      "charwise.errors.CheckpointError", 42])
def test_load_refuses_classes_outside_the_trusted_packages(tmp_path, qualname):
    before = set(sys.modules)
    with pytest.raises(CheckpointError) as info:
        RepairInput.load(_saved_config(tmp_path, module={"qualname": qualname, "path": INNER_DIR}))
    assert "\n" not in str(info.value)
    assert not {m for m in set(sys.modules) - before if m.split(".")[0] not in ("charwise", "sentence_transformers")}


def test_load_refuses_other_directories(tmp_path):
    with pytest.raises(CheckpointError, match="not a saved RepairInput"):
        RepairInput.load(str(tmp_path))
    with pytest.raises(CheckpointError, match="format"):
        RepairInput.load(_saved_config(tmp_path, format="charwise-hybrid"))


@pytest.mark.parametrize("changes, match", [({"format_version": 99}, "format version"),
                                            ({"language": "xx"}, "language"),
                                            ({"threshold": "high"}, "threshold")])
def test_load_refuses_bad_settings(tmp_path, changes, match):
    path = _saved_config(tmp_path, **changes)  # refused before the (missing) inner module is read
    with pytest.raises(CheckpointError, match=match):
        RepairInput.load(path)


def test_save_refuses_an_untrusted_inner_class(tmp_path):
    with pytest.raises(ConfigError, match="refusing"):
        RepairInput(_NoPrompt(), "en").save(str(tmp_path))


# --- refusals ---------------------------------------------------------------------------------------
def test_refusals(bert_model, repaired_bert):
    with pytest.raises(TypeError, match="SentenceTransformer"):
        repairing(bert_model[0])
    with pytest.raises(TypeError, match="SentenceTransformer"):
        repairing("all-MiniLM-L6-v2")
    with pytest.raises(ConfigError, match="already repairs"):
        repairing(repaired_bert)
    with pytest.raises(ConfigError, match="already repairs"):
        RepairInput(repaired_bert[0])
    with pytest.raises(ConfigError, match="language"):
        repairing(bert_model, "fr")
    for threshold in (1.5, -0.1, True, "0.5"):
        with pytest.raises(ConfigError, match="threshold"):
            repairing(bert_model, threshold=threshold)
    with pytest.raises(ConfigError, match="input module"):
        RepairInput(nn.Linear(2, 2))
    with pytest.raises(TypeError, match="torch module"):
        RepairInput("Transformer")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="unknown device"):
        repairing(bert_model, device="gpu0")
    if not torch.cuda.is_available():
        with pytest.raises(ConfigError, match="no CUDA device"):
            repairing(bert_model, device="cuda")


def test_device_puts_the_model_there(bert_model):
    model = repairing(bert_model, "en", device="cpu")
    assert str(model.device) == "cpu" and all(p.device.type == "cpu" for p in model.parameters())


def test_missing_extra_is_a_one_line_error(monkeypatch, bert_model):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import raises ImportError
    with pytest.raises(ConfigError) as info:
        repairing(bert_model)
    assert "pip install charwise[st]" in str(info.value) and "\n" not in str(info.value)


# --- real weights ---------------------------------------------------------------------------------
@pytest.mark.real
def test_all_minilm_l6_v2(minilm_dir):
    st = _st()
    base = st.SentenceTransformer(str(minilm_dir), device="cpu")
    model = repairing(base, "en")
    assert torch.equal(_encode(model, CLEAN), _encode(base, CLEAN))
    typo, fixed, clean = (_encode(m, [t]) for m, t in ((base, MISSPELLED), (model, MISSPELLED), (base, CORRECTED)))
    assert torch.equal(fixed, clean)
    assert float(typo @ clean.T) < 0.95 < float(fixed @ clean.T)
