"""Hybrid tuning: word pooling, frozen model, loss goes down, resume equivalence, CLI."""

from __future__ import annotations

import pytest
import torch

from charwise.cli import main
from charwise.encoders import CharEncoder
from charwise.hybrid.model import HybridModel
from charwise.teachers import Teacher
from charwise.training.tuning import HybridTuner, TuneConfig, word_means


@pytest.fixture(scope="module")
def teacher(tiny_bert_dir) -> Teacher:
    return Teacher.load(str(tiny_bert_dir))


def tuner_for(teacher, make_encoder, corpus, out, kind="cnn", **overrides) -> HybridTuner:
    config = TuneConfig(corpora=[corpus], teacher=str(teacher.name), steps=6, batch_size=8, lr=1e-2,
                        warmup_steps=1, eval_every=3, checkpoint_every=2, validation_sentences=8, **overrides)
    encoder = make_encoder(kind, info=teacher.describe(), dim=teacher.dim, seed=1)
    return HybridTuner(config, out, teacher=teacher, encoder=encoder, progress=False)


def test_word_means_by_hand(teacher, make_encoder):
    hm = HybridModel(teacher.model, teacher, None, "none")
    inputs = hm.prepare([["a", "tweets"], ["b"]])  # tweets = t ##wee ##ts
    states = torch.arange(inputs.input_ids.numel() * 2, dtype=torch.float).view(*inputs.input_ids.shape, 2)
    means, present = word_means(states, inputs)
    assert present.tolist() == [[True, True], [True, False]]
    assert torch.equal(means[0, 0], states[0, 1])
    assert torch.equal(means[0, 1], states[0, 2:5].mean(0))
    assert torch.equal(means[1, 0], states[1, 1])


def test_only_the_encoder_learns(teacher, make_encoder, corpus, tmp_path):
    tuner = tuner_for(teacher, make_encoder, corpus, tmp_path / "run")
    model_before = {k: v.clone() for k, v in teacher.model.state_dict().items()}
    enc_before = {k: v.clone() for k, v in tuner.student.encoder.state_dict().items()}
    clean, noisy = tuner.source.batch(0)
    first = tuner.losses(clean, noisy)["loss"].item()
    tuner.tune()
    after = tuner.losses(clean, noisy)["loss"].item()
    assert after < first
    assert all(torch.equal(v, teacher.model.state_dict()[k]) for k, v in model_before.items())
    assert any(not torch.equal(v, tuner.student.encoder.state_dict()[k]) for k, v in enc_before.items())
    assert (tmp_path / "run" / "encoder" / "model.safetensors").exists()
    assert not teacher.model.training  # the frozen model never switched to dropout


def test_resume_gives_the_same_weights(teacher, make_encoder, corpus, tmp_path):
    straight = tuner_for(teacher, make_encoder, corpus, tmp_path / "a")
    straight.tune()
    first = tuner_for(teacher, make_encoder, corpus, tmp_path / "b")
    first.tune(stop_after=4)
    with pytest.raises(FileExistsError):
        tuner_for(teacher, make_encoder, corpus, tmp_path / "b").tune()
    resumed = tuner_for(teacher, make_encoder, corpus, tmp_path / "b")
    resumed.tune(resume=True)
    assert resumed.step == straight.step == 6
    for k, v in straight.student.encoder.state_dict().items():
        assert torch.allclose(v, resumed.student.encoder.state_dict()[k], atol=1e-6), k


def test_bilstm_encoder_in_cudnn_flat_layout_resumes_saves_and_loads(teacher, make_encoder, corpus, tmp_path,
                                                                     cudnn_flat_rnn_weights):
    # A BiLSTM encoder's weights as cuDNN keeps them on a GPU (views of one buffer; emulated here).
    straight = tuner_for(teacher, make_encoder, corpus, tmp_path / "a", kind="bilstm")
    straight.tune()
    first = tuner_for(teacher, make_encoder, corpus, tmp_path / "b", kind="bilstm")
    assert cudnn_flat_rnn_weights(first.student.encoder)
    first.tune(stop_after=4)
    resumed = tuner_for(teacher, make_encoder, corpus, tmp_path / "b", kind="bilstm")
    resumed.tune(resume=True)
    loaded = CharEncoder.from_pretrained(tmp_path / "b" / "encoder")
    assert cudnn_flat_rnn_weights(loaded)
    for k, v in straight.student.encoder.state_dict().items():
        assert torch.allclose(v, resumed.student.encoder.state_dict()[k], atol=1e-6), k
    saved = CharEncoder.from_pretrained(tmp_path / "a" / "encoder").state_dict()
    for k, v in loaded.state_dict().items():
        assert torch.equal(v, saved[k]), k


def test_bad_corpora(teacher, make_encoder, tmp_path):
    with pytest.raises(ValueError, match="at least one corpus"):
        HybridTuner(TuneConfig(corpora=[]), tmp_path, teacher=teacher,
                    encoder=make_encoder("cnn", info=teacher.describe(), dim=teacher.dim))
    tiny = tmp_path / "tiny.txt"
    tiny.write_text("just one line\n", encoding="utf-8")
    with pytest.raises(ValueError, match="sentences"):
        HybridTuner(TuneConfig(corpora=[str(tiny)]), tmp_path / "o", teacher=teacher,
                    encoder=make_encoder("cnn", info=teacher.describe(), dim=teacher.dim))


def test_cli_tune(teacher, make_encoder, corpus, tmp_path, capsys):
    enc_dir = tmp_path / "enc"
    make_encoder("cnn", info=teacher.describe(), dim=teacher.dim).save_pretrained(enc_dir)
    args = [corpus, "--out", str(tmp_path / "t"), "--teacher", teacher.name, "--encoder", str(enc_dir),
            "--steps", "2", "--batch-size", "8", "--eval-every", "2", "--quiet"]
    assert main(["tune", *args]) == 0
    assert "tuned encoder written" in capsys.readouterr().err
    assert main(["tune", *args]) == 2  # already a run there, no --resume
    assert main(["tune", str(tmp_path / "missing.txt"), "--out", str(tmp_path / "x")]) == 2


def test_lm_objective_on_a_causal_lm(tiny_llama_teacher, make_encoder, corpus, tmp_path):
    tuner = tuner_for(tiny_llama_teacher, make_encoder, corpus, tmp_path / "lm", objective="lm")
    clean, noisy = tuner.source.batch(0)
    before = tuner.losses(clean, noisy)
    assert set(before) == {"loss", "lm", "anchor"} and before["lm"] > 0
    tuner.tune()
    assert tuner.losses(clean, noisy)["loss"].item() < before["loss"].item()
    assert "hybrid_ll" in tuner.validate()


def test_unknown_objective(teacher, make_encoder, corpus, tmp_path):
    with pytest.raises(ValueError, match="objective"):
        tuner_for(teacher, make_encoder, corpus, tmp_path / "x", objective="mlm")


@pytest.mark.slow
def test_two_process_tuning(teacher, make_encoder, corpus, tmp_path, two_cpu_processes):
    """`charwise tune` spreads over 2 processes (gloo) without code changes, and they stay in step."""
    import json

    enc_dir = tmp_path / "enc"
    make_encoder("cnn", info=teacher.describe(), dim=teacher.dim).save_pretrained(enc_dir)
    out = tmp_path / "t"
    result = two_cpu_processes(["charwise.cli", "tune", corpus, "--out", str(out), "--teacher", teacher.name,
                                "--encoder", str(enc_dir), "--steps", "4", "--batch-size", "8",
                                "--eval-every", "2", "--quiet"])
    assert result.returncode == 0, result.stderr[-2000:]
    assert (out / "encoder" / "model.safetensors").is_file()
    records = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    assert [r["processes"] for r in records if "validation" in r] == [2, 2, 2]  # steps 0, 2, 4
    # The encoder is reached through the hybrid model, never through its forward: the engine still
    # averages its gradients, so both processes end with the same weights.
    checksums = json.loads((out / "checkpoint" / "state.json").read_text())["checksums"]
    assert len(checksums) == 2 and checksums[0] == checksums[1]
