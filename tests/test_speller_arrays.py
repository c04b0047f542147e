"""The speller without torch: the CNN in numpy, the projection in numpy, the scorer read as arrays.
Each gives what its torch counterpart gives, and ``charwise correct`` never imports torch."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest
import torch

from charwise.cache import StringTable
from charwise.encoders.arrays import CharCNNArrays
from charwise.encoders.manifold import ManifoldConfig, RowIndex, hub_scores_array, project, project_array
from charwise.encoders.shipped import SHIPPED_DIR, load, load_for_inference
from charwise.errors import CheckpointError
from charwise.speller import Speller
from charwise.speller.features import RANK_FEATURES, WORD_FEATURES
from charwise.speller.index_files import FrozenDeletes
from charwise.speller.scorer import SpellScorer, SpellScorerConfig
from charwise.speller.scoring import ScorerArrays
from charwise.speller.vectors import TeacherRows, encoder_key
from conftest import fitted_scorer
from test_encoders import AWKWARD


@pytest.mark.parametrize("overrides", [
    {},  # the small CNN of the other tests
    {"highway_layers": 2, "activation": "relu"},
    {"hidden": 24, "layer_norm": True, "activation": "gelu"},
], ids=["plain", "highways-relu", "hidden-norm-gelu"])
def test_the_numpy_cnn_gives_the_torch_vectors(make_encoder, tmp_path, overrides):
    encoder = make_encoder("cnn", **overrides)
    encoder.save_pretrained(tmp_path)
    arrays = CharCNNArrays.from_pretrained(tmp_path)
    words = AWKWARD + ["recieve", "x" * 70, "ab"]
    np.testing.assert_allclose(arrays.embed(words), encoder.embed(words, manifold=False).numpy(), atol=2e-5, rtol=1e-4)
    np.testing.assert_allclose(arrays.embed(words, pieces=True),
                               encoder.embed(words, pieces=True, manifold=False).numpy(), atol=2e-5, rtol=1e-4)
    assert arrays.key == encoder_key(encoder)
    assert arrays.embed([]).shape == (0, encoder.dim)
    # batching and order never change a vector beyond float32 rounding: another batch shape may
    # take another matrix kernel (the CPU's SIMD width picks it), which sums in another order. Each
    # layer's dot products of length n are then within n u of each other relative to the values
    # (Higham's bound, u = 2^-24); the layers' errors add up (activations are 1-Lipschitz):
    together = arrays.embed(words)
    fan_ins = [int(np.prod(w.shape[1:])) for w in encoder.state_dict().values() if w.dim() > 1]
    bound = np.finfo(np.float32).eps / 2 * sum(fan_ins) * np.abs(together).max()
    np.testing.assert_allclose(arrays.embed(words[::-1], batch_size=3)[::-1], together, rtol=0, atol=bound)


def test_a_directory_that_does_not_fit_is_refused_in_one_line(make_encoder, tmp_path):
    encoder = make_encoder("cnn")
    encoder.save_pretrained(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    config["arch"]["channels"][0] += 1
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(CheckpointError, match="does not match its config") as error:
        CharCNNArrays.from_pretrained(tmp_path)
    assert "\n" not in str(error.value)
    with pytest.raises(CheckpointError, match="not a readable"):
        CharCNNArrays.from_pretrained(tmp_path / "missing")
    # another kind of encoder is loaded by torch
    make_encoder("bilstm").save_pretrained(tmp_path / "bilstm")
    assert not isinstance(load_for_inference(tmp_path / "bilstm"), CharCNNArrays)


@pytest.mark.parametrize("metric", ["cosine", "csls"])
def test_the_numpy_projection_gives_the_torch_one(metric, monkeypatch):
    generator = torch.Generator().manual_seed(0)
    table = torch.randn(300, 16, generator=generator)
    candidates = torch.rand(300, generator=generator) > 0.3
    vectors = torch.randn(40, 16, generator=generator)
    config = ManifoldConfig(k=5, temperature=0.05, gate_shift=0.01, gate_scale=20.0, metric=metric)
    index = RowIndex(table, candidates)
    rows = index.rows.numpy()
    norms = np.linalg.norm(rows, axis=1)
    unit = rows / norms[:, None]
    hub = hub_scores_array(unit)
    np.testing.assert_allclose(hub, index.hub.numpy(), atol=1e-5)
    got = project_array(vectors.numpy(), unit, norms, config, hub if metric == "csls" else None)
    np.testing.assert_allclose(got, project(vectors, index, config).numpy(), atol=1e-5, rtol=1e-4)
    monkeypatch.setattr("charwise.encoders.manifold.SCORE_BLOCK", 3 * len(unit))  # three queries at a time
    # Three queries at a time, the scores may come from another matrix kernel (the SIMD width picks
    # it): each a dot product of d unit-length terms, within 2 d u of the other (u = 2^-24; twice
    # that for csls's 2 cos - hub). The softmax turns a score change ds into a weight change of at
    # most 2 ds / T relative, moving the mixture by at most that times the largest row; the gate's
    # sigmoid moves by at most gate_max * gate_scale / 4 * 2 ds, times |mixture - v|; the final sums
    # round to within 4 k u of the largest row or vector.
    unit_roundoff = np.finfo(np.float32).eps / 2
    ds = 2 * 16 * unit_roundoff * (2 if metric == "csls" else 1)
    largest = float(max(norms.max(), np.linalg.norm(vectors.numpy(), axis=1).max()))
    bound = (2 * ds / config.temperature * 2 * largest + config.gate_max * config.gate_scale / 4 * 2 * ds * 2 * largest
             + 4 * config.k * unit_roundoff * largest)
    np.testing.assert_allclose(project_array(vectors.numpy(), unit, norms, config, hub), got, rtol=0, atol=bound)


def test_the_scorer_arrays_score_as_the_scorer_does(tmp_path):
    perceptron = SpellScorer(SpellScorerConfig(rank_hidden=4))
    rng = np.random.default_rng(0)
    perceptron.set_parts({"rank_hidden_weight": rng.normal(size=(4, len(RANK_FEATURES))),
                          "rank_hidden_bias": rng.normal(size=4), "rank_weight": rng.normal(size=4),
                          "word_weight": rng.normal(size=len(WORD_FEATURES))})
    for config, scorer in (("linear", fitted_scorer()), ("perceptron", perceptron)):
        scorer.save_pretrained(tmp_path / config)
        arrays = ScorerArrays.from_pretrained(tmp_path / config)
        rows = np.random.default_rng(1).normal(size=(50, len(RANK_FEATURES)))
        words = np.random.default_rng(2).normal(size=(20, len(WORD_FEATURES)))
        np.testing.assert_allclose(arrays.rank(rows), scorer.rank(rows), rtol=1e-12)
        np.testing.assert_allclose(arrays.judge(words), scorer.judge(words), rtol=1e-12)
        assert arrays.reads_context == scorer.reads_context and arrays.config.threshold == scorer.config.threshold


def test_a_scorer_directory_that_does_not_fit_is_refused(tmp_path, make_encoder):
    fitted_scorer().save_pretrained(tmp_path / "scorer")
    config = json.loads((tmp_path / "scorer" / "config.json").read_text())
    (tmp_path / "scorer" / "config.json").write_text(json.dumps({**config, "rank_hidden": 3}))
    with pytest.raises(CheckpointError, match="do not fit"):
        ScorerArrays.from_pretrained(tmp_path / "scorer")
    (tmp_path / "scorer" / "config.json").write_text(json.dumps({**config, "threshold": 2}))
    with pytest.raises(CheckpointError, match="threshold"):
        ScorerArrays.from_pretrained(tmp_path / "scorer")
    make_encoder("cnn").save_pretrained(tmp_path / "encoder")
    with pytest.raises(CheckpointError, match="not a charwise speller scorer"):
        ScorerArrays.from_pretrained(tmp_path / "encoder")


def test_the_delete_table_finds_every_key_and_nothing_else():
    keys = [f"k{i}" for i in range(3000)] + ["", "ñandú", "\udcff"]
    tables = StringTable.arrays(keys)
    offsets = np.arange(len(keys) + 1, dtype=np.int64)
    words = [f"w{i}" for i in range(len(keys))]
    deletes = FrozenDeletes(tables["blob"], tables["starts"], tables["slots"], offsets,
                            np.arange(len(keys), dtype=np.int32), words)
    assert all(deletes[k] == [words[i]] for i, k in enumerate(keys))
    assert list(deletes) == keys and len(deletes) == len(keys)
    assert not any(k in deletes for k in ["k3000", "k", "ñand", 7, None])
    with pytest.raises(KeyError):
        deletes["missing"]


# --- the shipped speller on the real weights ------------------------------------------------------------
@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    import os

    old = os.environ.get("CHARWISE_CACHE")
    os.environ["CHARWISE_CACHE"] = str(tmp_path_factory.mktemp("speller-cache"))
    yield os.environ["CHARWISE_CACHE"]
    if old is None:
        del os.environ["CHARWISE_CACHE"]
    else:
        os.environ["CHARWISE_CACHE"] = old


@pytest.mark.real
@pytest.mark.slow
def test_the_torch_free_speller_ranks_and_corrects_as_the_torch_one(cache):
    numpy_speller = Speller.load("en")
    assert isinstance(numpy_speller.encoder, CharCNNArrays) and isinstance(numpy_speller.scorer, ScorerArrays)
    torch_speller = Speller(numpy_speller.lexicon, load("minilm"),
                            SpellScorer.from_pretrained(SHIPPED_DIR / "speller-minilm-en"))
    words = ["recieve", "seperate", "definately", "teh", "pakage", "wich", "becuase", "goverment", "accomodate",
             "thier", "untill", "Wycombe", "xqzv", "naïve", "beleive", "occured", "tommorow", "begining"]
    for ours, theirs in zip(numpy_speller.suggest(words), torch_speller.suggest(words)):
        assert [s.word for s in ours] == [s.word for s in theirs]
        np.testing.assert_allclose([s.probability for s in ours], [s.probability for s in theirs], atol=1e-4)
    text = ["I recieved teh pakage yesterday", "Their going to the libary", "She definately saw Wycombe"]
    assert ([c.corrected for c in numpy_speller.correct_lines(text)]
            == [c.corrected for c in torch_speller.correct_lines(text)])
    rows = TeacherRows.of(numpy_speller.encoder)  # read back from the cache this time
    assert rows.unit.shape == (len(rows.surfaces), 384) and not rows.unit.flags.writeable  # mapped, not copied


@pytest.mark.real
@pytest.mark.slow
def test_correct_never_imports_torch(cache):
    Speller.load("en")  # the caches are warm
    code = ("import sys\nfrom charwise.cli import main\n"
            "code = main(['correct', '--text', 'I recieved it', '--plain'])\n"
            "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))\nsys.exit(code)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["I received it", "[]"]


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_zipf_table_answers_as_wordfreq(language, tmp_path, monkeypatch):
    from wordfreq import get_frequency_dict
    from wordfreq import zipf_frequency as wordfreq_zipf

    from charwise.speller.frequencies import ZipfTable

    monkeypatch.setenv("CHARWISE_CACHE", str(tmp_path))
    built, read = ZipfTable(language), ZipfTable(language)  # the second reads the file the first wrote
    assert list((tmp_path / "speller").glob(f"zipf-*-{language}-*.safetensors"))
    listed = list(get_frequency_dict(language))
    rng = random.Random(0)
    words = rng.sample(listed, 3000) + [w.upper() for w in rng.sample(listed, 200)] + [
        "recieve", "despues", "Día", "e\u0301l", "", " ", "co-operate", "don't", "l'homme", "abc123", "2024",
        "rock'n'roll", "new york", "😀", "\ufeffthe", "ßtraße", "ǅemal", "xqzvw", "naïve"]
    # plain lower-case ASCII words, listed or not, take the path that skips wordfreq's tokenizer
    words += ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 12))) for _ in range(500)]
    for word in words:
        assert built.get(word) == read.get(word) == wordfreq_zipf(word, language), word
