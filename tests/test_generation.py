"""Open-vocabulary generation: boundary states, the word head's training, save/load, generation."""

from __future__ import annotations

import pytest
import torch

from charwise.decoders import build_decoder
from charwise.errors import CheckpointError, ConfigError
from charwise.hybrid.generation import WordGenerator, WordHead, WordHeadConfig, boundary_states
from charwise.hybrid.model import HybridModel
from charwise.training.generation import GeneratorConfig, GeneratorTrainer


@pytest.fixture()
def parts(tiny_llama_teacher, make_encoder, tmp_path):
    teacher = tiny_llama_teacher
    encoder = make_encoder("cnn", dim=teacher.dim, info=teacher.describe(), seed=2)
    torch.manual_seed(0)
    decoder = build_decoder(encoder.charset, teacher.dim, "small", teacher.describe())
    decoder.save_pretrained(tmp_path / "decoder")
    return teacher, encoder, tmp_path / "decoder"


def trainer_for(parts, corpus, out, **overrides) -> GeneratorTrainer:
    teacher, encoder, decoder = parts
    settings = dict(inner=32, steps=8, batch_size=8, lr=3e-2, warmup_steps=1, eval_every=4, checkpoint_every=2,
                    validation_sentences=8)
    config = GeneratorConfig(corpora=[corpus], decoder=str(decoder), teacher=teacher.name,
                             **{**settings, **overrides})
    return GeneratorTrainer(config, out, teacher=teacher, encoder=encoder, progress=False)


def test_boundary_states_predict_each_word(tiny_llama_teacher):
    """With plain pieces the state before a word gives its first piece the log-probability
    ``word_log_likelihoods`` gives it (single-piece words: the whole word)."""
    hm = HybridModel(tiny_llama_teacher.model, tiny_llama_teacher, None, "none")
    words = [["the", "cat", "sat", "down"], ["hello", "world"]]
    with torch.no_grad():
        found = boundary_states(hm, words)
        logp = torch.log_softmax(hm.model.get_output_embeddings()(found.states).float(), -1)
        lls = hm.word_log_likelihoods(words)
    assert found.owners == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1)]
    for k, (b, i) in enumerate(found.owners):
        pieces = hm.word_pieces(words[b], [j > 0 for j in range(len(words[b]))])[i]
        if len(pieces) == 1:
            assert float(logp[k, pieces[0]]) == pytest.approx(float(lls[b][i]), abs=1e-4)
    assert torch.allclose(found.top_piece_logp, logp.max(-1).values)


def test_only_the_head_learns_and_spelling_loss_falls(parts, corpus, tmp_path):
    teacher, encoder, _ = parts
    trainer = trainer_for(parts, corpus, tmp_path / "run")
    frozen = {**{f"lm.{k}": v.clone() for k, v in teacher.model.state_dict().items()},
              **{f"dec.{k}": v.clone() for k, v in trainer.decoder.state_dict().items()},
              **{f"enc.{k}": v.clone() for k, v in encoder.state_dict().items()}}
    head_before = {k: v.clone() for k, v in trainer.head.state_dict().items()}
    clean, noisy = trainer.source.batch(0)
    first = trainer.loss(trainer.head, clean, noisy).item()
    trainer.train()
    after = trainer.loss(trainer.head, clean, noisy).item()
    assert after < first
    now = {**{f"lm.{k}": v for k, v in teacher.model.state_dict().items()},
           **{f"dec.{k}": v for k, v in trainer.decoder.state_dict().items()},
           **{f"enc.{k}": v for k, v in encoder.state_dict().items()}}
    assert all(torch.equal(v, now[k]) for k, v in frozen.items())
    assert any(not torch.equal(v, trainer.head.state_dict()[k]) for k, v in head_before.items())
    assert (tmp_path / "run" / "generator" / "decoder" / "model.safetensors").is_file()


def test_resume_gives_the_same_head(parts, corpus, tmp_path):
    straight = trainer_for(parts, corpus, tmp_path / "a")
    straight.train()
    first = trainer_for(parts, corpus, tmp_path / "b")
    first.train(stop_after=4)
    resumed = trainer_for(parts, corpus, tmp_path / "b")
    resumed.train(resume=True)
    for k, v in straight.head.state_dict().items():
        assert torch.allclose(v, resumed.head.state_dict()[k], atol=1e-6), k


def test_decoder_in_cudnn_flat_layout_resumes_saves_and_loads(cudnn_flat_rnn_weights, parts, corpus, tmp_path):
    # The generator's character decoder as cuDNN keeps its LSTM on a GPU (views of one buffer;
    # emulated here): the run checkpoints, resumes and saves a generator that loads back.
    teacher, encoder, _ = parts
    first = trainer_for(parts, corpus, tmp_path / "b")
    assert cudnn_flat_rnn_weights(first.decoder)
    first.train(stop_after=4)
    resumed = trainer_for(parts, corpus, tmp_path / "b")
    resumed.train(resume=True)
    generator = WordGenerator.load(tmp_path / "b" / "generator",
                                   hybrid=HybridModel.from_teacher(teacher, policy="oov", encoder=encoder))
    assert cudnn_flat_rnn_weights(generator.decoder)
    for k, v in resumed.decoder.state_dict().items():
        assert torch.equal(v, generator.decoder.state_dict()[k]), k


def test_saved_generator_loads_and_generates(parts, corpus, tmp_path):
    teacher, encoder, _ = parts
    trainer = trainer_for(parts, corpus, tmp_path / "run", steps=2)
    trainer.train()
    hybrid = HybridModel.from_teacher(teacher, policy="oov", encoder=encoder)
    generator = WordGenerator.load(tmp_path / "run" / "generator", hybrid=hybrid)
    context = [["the", "weather", "was"]]
    a, _ = generator.vectors(context)
    b, _ = trainer.generator.vectors(context)
    assert torch.allclose(a, b, atol=1e-6)
    assert len(generator.next_words(context + [["our"]], beam=3)) == 2
    text, from_decoder = generator.generate("the weather was", words=3)
    assert text.startswith("the weather was") and len(from_decoder) <= 3
    with pytest.raises(ValueError, match="prompt"):
        generator.generate("   ", words=2)


def test_refusals(parts, corpus, tmp_path):
    teacher, encoder, decoder_dir = parts
    with pytest.raises(ConfigError, match="decoder"):
        GeneratorConfig(corpora=[corpus])
    with pytest.raises(ConfigError, match="typo_rate"):
        GeneratorConfig(corpora=[corpus], decoder="d", typo_rate=2)
    with pytest.raises(CheckpointError, match="not a charwise word generator"):
        WordHead.from_pretrained(tmp_path)
    hybrid = HybridModel.from_teacher(teacher, policy="oov", encoder=encoder)
    from charwise.decoders import CharDecoder

    with pytest.raises(ConfigError, match="states of size"):
        WordGenerator(hybrid, WordHead(WordHeadConfig(hidden_size=7, dim=teacher.dim)),
                      CharDecoder.from_pretrained(decoder_dir))
    with pytest.raises(ConfigError, match="causal LM"):  # the bare transformer has no output layer
        boundary_states(HybridModel(teacher.model.model, teacher, None, "none"), [["a"]])


def test_cli_refuses_bad_options_before_loading(tmp_path, corpus, capsys):
    from charwise.cli import main

    assert main(["generator", "train", corpus, "--decoder", str(tmp_path / "none"), "--out", str(tmp_path / "o")]) == 2
    assert "no decoder" in capsys.readouterr().err
    assert main(["generator", "train", corpus, "--decoder", "d", "--out", "o", "--typo-rate", "2"]) == 2
    assert main(["generator", "generate", str(tmp_path), "hello", "--words", "0"]) == 2
    assert main(["generator", "generate", str(tmp_path), "hello"]) == 2
    assert "not a charwise word generator" in capsys.readouterr().err


@pytest.mark.real
def test_boundary_states_on_smollm2_match_word_scores():
    """On the real SmolLM2 with the shipped encoder: each word's boundary state gives its first
    piece the log-probability ``word_log_likelihoods`` gives it, words read from characters included."""
    hm = HybridModel.from_teacher("smollm2", policy="oov")
    words = [["And", "the", "LORD", "spake", "unto", "Mosess", ",", "saying"]]
    with torch.no_grad():
        found = boundary_states(hm, words)
        logp = torch.log_softmax(hm.model.get_output_embeddings()(found.states).float(), -1)
        lls = hm.word_log_likelihoods(words)
    pieces = hm.word_pieces(words[0], [i > 0 for i in range(len(words[0]))])
    assert found.owners == [(0, i) for i in range(len(words[0]))]
    for k, (_, i) in enumerate(found.owners):
        if len(pieces[i]) == 1:
            assert float(logp[k, pieces[i][0]]) == pytest.approx(float(lls[0][i]), abs=1e-3)
