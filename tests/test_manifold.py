"""The projection onto the table's manifold: its maths, its settings, its files, its tuning."""

from __future__ import annotations

import json

import pytest
import torch
import torch.nn.functional as F

import charwise
from charwise.encoders.base import CharEncoder
from charwise.encoders.manifold import ManifoldConfig, RowIndex, gate, project
from charwise.errors import CheckpointError, ConfigError
from charwise.training.approximation import Trainer
from charwise.training.manifold import save_with_manifold, tune_manifold, validation_strings
from charwise.training.targets import split_targets
from tests.test_trainer import tiny_config


def _index(rows: int = 50, dim: int = 8, seed: int = 0) -> RowIndex:
    g = torch.Generator().manual_seed(seed)
    return RowIndex(torch.randn(rows, dim, generator=g), torch.ones(rows, dtype=torch.bool))


@pytest.mark.parametrize("bad", [dict(k=1), dict(k=2.5), dict(temperature=0), dict(gate_scale=-1),
                                 dict(gate_shift=9.0), dict(gate_max=0.0), dict(gate_max=1.5), dict(metric="dot")])
def test_invalid_settings_are_refused(bad):
    with pytest.raises(ConfigError):
        ManifoldConfig(**bad)


def test_unknown_settings_are_refused():
    with pytest.raises(ConfigError, match="unknown manifold settings"):
        ManifoldConfig.from_dict({"k": 5, "temprature": 0.1})


def test_closed_gate_keeps_the_raw_vector_and_open_gate_gives_the_nearest_row():
    index = _index()
    rows = index.rows
    queries = rows[:6] + 0.05 * torch.randn(6, rows.shape[1])
    closed = ManifoldConfig(gate_scale=1000.0, gate_shift=4.0 - 1e-6)  # no margin ever reaches 4
    assert torch.allclose(project(queries, index, closed), queries, atol=1e-6)
    opened = ManifoldConfig(temperature=1e-4, gate_scale=1000.0, gate_shift=-2.0, gate_max=1.0)
    assert torch.allclose(project(queries, index, opened), rows[:6], atol=1e-4)


def test_gate_opens_with_the_margin():
    scores = torch.tensor([[0.9, 0.2, 0.1], [0.5, 0.49, 0.1]])
    g = gate(scores, ManifoldConfig(gate_scale=50.0, gate_shift=0.05, gate_max=1.0))
    assert g.shape == (2, 1) and g[0, 0] > 0.99 and g[1, 0] < 0.2
    half = gate(scores, ManifoldConfig(gate_scale=50.0, gate_shift=0.05))  # gate_max 0.5 by default
    assert torch.allclose(half, g / 2)


def test_projection_is_differentiable_and_mixes_rows():
    index = _index()
    v = torch.randn(4, 8, requires_grad=True)
    out = project(v, index, ManifoldConfig(k=5, temperature=0.5, gate_scale=0.0))
    out.sum().backward()
    assert v.grad is not None and torch.isfinite(v.grad).all() and v.grad.abs().sum() > 0


def test_csls_hub_scores_skip_the_row_itself():
    index = _index(rows=30)
    sims = index.unit @ index.unit.T
    sims.fill_diagonal_(-2)
    expected = sims.topk(10, dim=1).values.mean(dim=1)
    assert torch.allclose(index.hub, expected, atol=1e-5)


def _attached(make_encoder, teacher) -> CharEncoder:
    encoder = make_encoder("cnn", dim=teacher.dim, info=teacher.describe())
    encoder.attach_teacher(teacher)
    return encoder


def test_embed_projects_only_when_on(make_encoder, wordpiece_teacher):
    encoder = _attached(make_encoder, wordpiece_teacher)
    words = ["house", "hosue", "xyzzy"]
    raw = encoder.embed(words)
    with pytest.raises(ConfigError, match="no manifold projection"):
        encoder.embed(words, manifold=True)
    encoder.set_manifold(ManifoldConfig(temperature=1e-4, gate_scale=1000.0, gate_shift=-2.0, gate_max=1.0))
    projected = encoder.embed(words)
    assert torch.equal(encoder.embed(words, manifold=False), raw)
    # every projected vector is (up to the softmax) a whole-word row of the teacher
    teacher = wordpiece_teacher
    for strings, pieces, out in ((words, False, projected), (["ing"], True, encoder.embed(["ing"], pieces=True))):
        kind = ~teacher.word_start_mask if pieces else teacher.word_start_mask
        index = RowIndex(teacher.embeddings, teacher.normal_mask & kind)  # the rows the encoder mixes
        scores, positions = index.neighbours(encoder.embed(strings, manifold=False, pieces=pieces), 5, "cosine")
        bound = _mixture_bound(scores, index.rows[positions], 1e-4)
        distance = (out - index.rows[positions[:, 0]]).norm(dim=1)  # exact differences, not cdist's
        assert (distance <= bound).all()
        # this construction's top-2 margins are 35 T or more: the bound is float32 rounding, ~1e-5
        assert (bound < 1e-4).all()


def _mixture_bound(scores: torch.Tensor, rows: torch.Tensor, temperature: float) -> torch.Tensor:
    """How far ``sum_i softmax(scores / T)_i * rows_i`` (float32, the gate fully open: a sigmoid of
    at least 1000 * 2 is exactly 1.0 in float32, so the raw vector's share is exactly 0) may be from
    ``rows_0``, the top row, for ``(n, k)`` scores and their ``(n, k, d)`` rows:

    * the other rows' weights: ``1 - w_0 <= sum_{i>0} exp(-(s_0 - s_i) / T)``, each at most
      ``|r_i - r_0|`` away: a near tie (a margin within a few T) leaves a real share;
    * float32 rounding: the softmax's weights (relative error a few u, so they sum to 1 within
      ``k u``) and the k-term weighted sum (error at most ``k u max_i |r_ij|`` per component), then
      the subtraction: at most ``4 k u max_i |r_i|`` together, u = 2^-24 the unit roundoff. It does
      not depend on the SIMD width, which only reorders those roundings.

    torch.cdist is not used to measure the distance: for 25 rows or more it computes
    ``sqrt(|a|^2 + |b|^2 - 2 a.b)``, whose rounding (about ``sqrt(u) |a|``, 2e-3 for these rows of
    length 7) depends on the matrix kernel the CPU dispatches to.
    """
    unit_roundoff = torch.finfo(torch.float32).eps / 2
    spread = (rows - rows[:, :1]).norm(dim=2)[:, 1:]  # (n, k - 1): |r_i - r_0|
    others = torch.exp(-(scores[:, :1] - scores[:, 1:]).double() / temperature)
    k = rows.shape[1]
    return (others * spread.double()).sum(dim=1) + 4 * k * unit_roundoff * rows.norm(dim=2).max(dim=1).values


def test_settings_travel_with_the_saved_encoder(make_encoder, wordpiece_teacher, tmp_path):
    encoder = _attached(make_encoder, wordpiece_teacher)
    settings = ManifoldConfig(k=3, temperature=0.05, gate_shift=0.02, gate_scale=30.0, metric="csls")
    encoder.set_manifold(settings)
    encoder.save_pretrained(tmp_path / "enc", {})
    loaded = CharEncoder.from_pretrained(tmp_path / "enc")
    assert loaded.manifold == settings
    loaded.attach_teacher(wordpiece_teacher)
    assert torch.allclose(loaded.embed(["house", "hosue"]), encoder.embed(["house", "hosue"]), atol=1e-6)
    encoder.set_manifold(None)
    encoder.save_pretrained(tmp_path / "raw", {})
    assert CharEncoder.from_pretrained(tmp_path / "raw").manifold is None


def test_bad_saved_settings_are_a_checkpoint_error(make_encoder, wordpiece_teacher, tmp_path):
    encoder = _attached(make_encoder, wordpiece_teacher)
    encoder.set_manifold(ManifoldConfig())
    encoder.save_pretrained(tmp_path / "enc", {})
    config = json.loads((tmp_path / "enc" / "config.json").read_text())
    config["manifold"]["temperature"] = -1
    (tmp_path / "enc" / "config.json").write_text(json.dumps(config))
    with pytest.raises(CheckpointError, match="bad manifold settings"):
        CharEncoder.from_pretrained(tmp_path / "enc")


def test_validation_strings_come_only_from_held_in_words(wordpiece_teacher):
    split = split_targets(wordpiece_teacher)
    strings = validation_strings(wordpiece_teacher, split, words=100, seed=3)
    assert set(strings.rows.tolist()) <= set(split.heldin_words.tolist())
    assert not set(strings.rows.tolist()) & set(split.heldout_words.tolist())
    assert {"clean", "typo", "misspelled"} <= set(strings.kinds)
    surfaces = wordpiece_teacher.vocab.surfaces
    for text, row, kind in zip(strings.texts, strings.rows.tolist(), strings.kinds):
        assert (text == surfaces[row]) == (kind == "clean")
    again = validation_strings(wordpiece_teacher, split, words=100, seed=3)
    assert again.texts == strings.texts


def test_tuning_trained_encoder_wins_on_its_objective_and_saves(wordpiece_teacher, tmp_path):
    trainer = Trainer(tiny_config(steps=30, eval_every=30, train_rows_limit=3000), tmp_path / "run",
                      teacher=wordpiece_teacher, progress=False)
    trainer.train()
    best = trainer.best_encoder()
    settings, report = tune_manifold(best, wordpiece_teacher, trainer.split, words=150)
    assert report["projected"]["margin"]["all"] >= report["raw"]["margin"]["all"]
    assert (settings is None) == (report["settings"] is None)
    report = save_with_manifold(best, wordpiece_teacher, trainer.split, tmp_path / "out", words=150)
    loaded = CharEncoder.from_pretrained(tmp_path / "out")
    assert loaded.training_info["manifold"] == report
    assert (loaded.manifold.to_dict() if loaded.manifold else None) == report["settings"]
    # the projection's objective, recomputed from the saved encoder, is the one reported
    loaded.attach_teacher(wordpiece_teacher)
    strings = validation_strings(wordpiece_teacher, trainer.split, words=150)
    cos = F.cosine_similarity(loaded.embed(strings.texts), wordpiece_teacher.embeddings[strings.rows], dim=-1)
    assert float(cos.mean()) == pytest.approx(report["projected"]["cosine"]["all"], abs=1e-4)


@pytest.mark.real
def test_shipped_encoders_project_onto_real_rows():
    encoder = charwise.load("minilm")
    if encoder.manifold is None:
        pytest.skip("the shipped MiniLM encoder has no manifold projection")
    words = ["recieve", "seperate", "definately", "acommodate", "becuase"]
    projected, raw = encoder.embed(words), encoder.embed(words, manifold=False)
    table = encoder.teacher.embeddings
    rows = [encoder.teacher.tokenizer.convert_tokens_to_ids(w) for w in
            ["receive", "separate", "definitely", "accommodate", "because"]]
    gain = F.cosine_similarity(projected, table[rows], dim=-1) - F.cosine_similarity(raw, table[rows], dim=-1)
    assert gain.mean() > 0.1
