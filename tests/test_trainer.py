"""Trainer: deterministic batches, atomic checkpoints, exact resume, outputs on disk."""

from __future__ import annotations

import json

import pytest
import torch

from charwise.encoders import CharEncoder
from charwise.training.approximation import BEST_DIR, CHECKPOINT_DIR, BatchSource, TrainConfig, Trainer, lr_factor
from charwise.training.losses import LossWeights


def tiny_config(**overrides) -> TrainConfig:
    params = dict(
        teacher="tiny-wordpiece", encoder="cnn", preset=None,
        encoder_overrides=dict(char_dim=8, widths=[1, 2, 3], channels=[8, 8, 8], highway_layers=1),
        steps=6, batch_size=32, lr=3e-3, warmup_steps=2, eval_every=3, eval_words=48, checkpoint_every=2,
        losses=LossWeights(cos=1, l2=1, nbr=1, ce=1, contrastive=0.5, ce_scale=10, nbr_k=4, hard_negatives=2),
    )
    params.update(overrides)
    return TrainConfig(**params)


def weights(encoder: CharEncoder) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in encoder.state_dict().items()}


def test_batches_are_a_function_of_seed_and_step(wordpiece_teacher):
    rows = torch.arange(1000, 1400)
    a = BatchSource(wordpiece_teacher, rows, tiny_config())
    b = BatchSource(wordpiece_teacher, rows, tiny_config())
    assert a.batch(5)[:2] == b.batch(5)[:2] and torch.equal(a.batch(5)[2], b.batch(5)[2])
    assert a.batch(5)[0] != a.batch(6)[0]
    other = BatchSource(wordpiece_teacher, rows, tiny_config(seed=1))
    assert other.batch(5)[0] != a.batch(5)[0]
    texts, starts, ids = a.batch(0)
    assert len(texts) == len(starts) == len(ids) == 32


def test_noisy_samples_keep_their_clean_target(wordpiece_teacher):
    rows = torch.arange(2000, 6000)
    source = BatchSource(wordpiece_teacher, rows, tiny_config(noise_ratio=1.0, batch_size=256))
    texts, _, ids = source.batch(0)
    surfaces = [wordpiece_teacher.vocab.surfaces[i] for i in ids.tolist()]
    changed = [(t, s) for t, s in zip(texts, surfaces) if t != s]
    assert changed, "noise_ratio=1 must corrupt the eligible samples"
    assert all(len(s) > 4 for _, s in changed), "only strings longer than 4 characters are corrupted"
    assert all(t == s for t, s in zip(texts, surfaces) if len(s) <= 4)


def test_lr_schedule_warms_up_then_decays():
    cfg = tiny_config(steps=100, warmup_steps=10, min_lr_ratio=0.1)
    factors = [lr_factor(s, cfg) for s in range(100)]
    assert factors[0] == pytest.approx(0.1)
    assert factors[9] == pytest.approx(1.0)
    assert all(x >= y for x, y in zip(factors[10:], factors[11:]))
    assert factors[-1] == pytest.approx(0.1, abs=1e-3)


def test_training_writes_best_last_and_log(tmp_path, wordpiece_teacher):
    trainer = Trainer(tiny_config(), tmp_path, teacher=wordpiece_teacher, progress=False)
    trainer.train()
    assert (tmp_path / BEST_DIR / "model.safetensors").exists()
    assert (tmp_path / CHECKPOINT_DIR / "state.json").exists()
    records = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert any("validation" in r for r in records)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "temporary directories left behind"
    best = CharEncoder.from_pretrained(tmp_path / BEST_DIR)
    assert best.teacher_info["vocab_hash"] == wordpiece_teacher.vocab_hash
    assert best.training_info["heldout_words"] == trainer.split.heldout_words.tolist()
    with pytest.raises(FileExistsError):
        Trainer(tiny_config(), tmp_path, teacher=wordpiece_teacher, progress=False).train()


def test_training_reduces_the_loss(tmp_path, wordpiece_teacher):
    cfg = tiny_config(steps=30, eval_every=100, checkpoint_every=100, noise_ratio=0.0,
                      losses=LossWeights(cos=1, l2=1, nbr=0, ce=0))
    trainer = Trainer(cfg, tmp_path, teacher=wordpiece_teacher, progress=False)
    texts, starts, ids = trainer.source.batch(0)
    chars = trainer.encoder.charset.batch(texts, starts)
    before = trainer.loss(trainer.encoder(chars), ids)[0].item()
    trainer.train()
    after = trainer.loss(trainer.encoder(chars), ids)[0].item()
    assert after < before


def test_resume_after_interruption_matches_uninterrupted_run(tmp_path, wordpiece_teacher):
    full = Trainer(tiny_config(), tmp_path / "full", teacher=wordpiece_teacher, progress=False)
    full.train()

    part = Trainer(tiny_config(), tmp_path / "part", teacher=wordpiece_teacher, progress=False)
    part.train(stop_after=3)  # "killed" after step 3; its last checkpoint is at step 3
    assert part.step == 3
    resumed = Trainer(tiny_config(), tmp_path / "part", teacher=wordpiece_teacher, progress=False)
    resumed.train(resume=True)
    assert resumed.step == 6
    a, b = weights(full.encoder), weights(resumed.encoder)
    assert a.keys() == b.keys()
    for name in a:
        torch.testing.assert_close(a[name], b[name], rtol=0, atol=1e-6, msg=name)


def test_resume_refuses_a_different_configuration(tmp_path, wordpiece_teacher):
    Trainer(tiny_config(), tmp_path, teacher=wordpiece_teacher, progress=False).train(stop_after=2)
    other = Trainer(tiny_config(lr=1e-2), tmp_path, teacher=wordpiece_teacher, progress=False)
    with pytest.raises(ValueError, match="different configuration"):
        other.train(resume=True)


def test_bilstm_encoder_in_cudnn_flat_layout_checkpoints_resumes_saves_and_loads(tmp_path, wordpiece_teacher,
                                                                                  cudnn_flat_rnn_weights):
    # A BiLSTM encoder's weights as cuDNN keeps them on a GPU (views of one buffer; emulated here).
    config = tiny_config(encoder="bilstm", encoder_overrides=dict(char_dim=8, hidden=8, layers=2, mlp_hidden=16))
    part = Trainer(config, tmp_path / "part", teacher=wordpiece_teacher, progress=False)
    assert cudnn_flat_rnn_weights(part.encoder)
    part.train(stop_after=3)
    resumed = Trainer(config, tmp_path / "part", teacher=wordpiece_teacher, progress=False)
    resumed.train(resume=True)
    assert resumed.step == 6
    loaded = CharEncoder.from_pretrained(tmp_path / "part" / BEST_DIR)
    assert cudnn_flat_rnn_weights(loaded)
    for name, tensor in loaded.state_dict().items():
        assert torch.isfinite(tensor).all() and name in resumed.encoder.state_dict()


def test_a_run_started_from_a_saved_encoder_goes_on_from_its_weights_and_batches(tmp_path, wordpiece_teacher):
    first = Trainer(tiny_config(), tmp_path / "first", teacher=wordpiece_teacher, progress=False)
    first.train()
    saved = CharEncoder.from_pretrained(tmp_path / "first" / BEST_DIR)
    step = saved.training_info["step"]
    more = Trainer(tiny_config(init_encoder=str(tmp_path / "first" / BEST_DIR)), tmp_path / "more",
                   teacher=wordpiece_teacher, progress=False)
    for name, value in weights(saved).items():
        torch.testing.assert_close(more.encoder.state_dict()[name], value, rtol=0, atol=0, msg=name)
    assert more.source.batch(0)[0] == first.source.batch(step)[0]  # the first run's next batch, not its first
    more.train()
    assert (tmp_path / "more" / BEST_DIR / "model.safetensors").exists()
    # a third run goes on after both
    again = Trainer(tiny_config(init_encoder=str(tmp_path / "more" / BEST_DIR)), tmp_path / "again",
                    teacher=wordpiece_teacher, progress=False)
    later = CharEncoder.from_pretrained(tmp_path / "more" / BEST_DIR).training_info["step"]
    assert again.source.batch(0)[0] == first.source.batch(step + later)[0]


def test_a_saved_encoder_of_another_split_or_architecture_is_refused(tmp_path, wordpiece_teacher):
    Trainer(tiny_config(), tmp_path / "first", teacher=wordpiece_teacher, progress=False).train()
    start = str(tmp_path / "first" / BEST_DIR)
    with pytest.raises(ValueError, match="other held-out words"):
        Trainer(tiny_config(init_encoder=start, seed=3), tmp_path / "seed", teacher=wordpiece_teacher, progress=False)
    wider = dict(char_dim=8, widths=[1, 2, 3], channels=[8, 8, 16], highway_layers=1)
    with pytest.raises(ValueError, match="another architecture"):
        Trainer(tiny_config(init_encoder=start, encoder_overrides=wider), tmp_path / "wide",
                teacher=wordpiece_teacher, progress=False)


def test_the_neighbour_table_is_built_once_and_read_back(tmp_path, wordpiece_teacher, monkeypatch):
    import charwise.training.losses as losses

    monkeypatch.setenv("CHARWISE_CACHE", str(tmp_path / "cache"))
    first = Trainer(tiny_config(), tmp_path / "a", teacher=wordpiece_teacher, progress=False)

    def not_again(*args, **kwargs):
        raise AssertionError("the neighbour table was computed again")

    monkeypatch.setattr(losses, "topk_rows", not_again)
    again = Trainer(tiny_config(), tmp_path / "b", teacher=wordpiece_teacher, progress=False)
    assert torch.equal(first.loss.nbr.neighbours, again.loss.nbr.neighbours)
    assert list((tmp_path / "cache").glob("neighbours-*.safetensors"))
