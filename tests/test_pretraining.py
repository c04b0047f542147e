"""Second pre-training: whole-word masks, which weights train in each mode, the tied frozen table,
resume, the HF checkpoint and its encoder as a teacher everywhere, the CLI; and the real MiniLM."""

from __future__ import annotations

import json

import pytest
import torch

from charwise.cli import main
from charwise.errors import ConfigError
from charwise.hybrid.model import HybridModel
from charwise.teachers import Teacher
from charwise.training.pretraining import MODEL_DIR, PretrainConfig, Pretrainer, masked_lm_for


@pytest.fixture(scope="module")
def teacher(tiny_bert_dir) -> Teacher:
    return Teacher.load(str(tiny_bert_dir))


def trainer_for(teacher, make_encoder, corpus, out, kind="cnn", **overrides) -> Pretrainer:
    settings = dict(corpora=[corpus], teacher=str(teacher.name), steps=6, batch_size=8, lr=1e-2, model_lr=1e-3,
                    warmup_steps=1, eval_every=3, checkpoint_every=2, validation_sentences=8, typo_rate=0.5)
    settings.update(overrides)
    encoder = make_encoder(kind, info=teacher.describe(), dim=teacher.dim, seed=1)
    return Pretrainer(PretrainConfig(**settings), out, teacher=teacher, encoder=encoder, progress=False)


def test_masked_words_become_one_mask_per_clean_piece(teacher, make_encoder, corpus, tmp_path):
    t = trainer_for(teacher, make_encoder, corpus, tmp_path / "run", mask_rate=0.5)
    clean = ["the", "accommodation", "was", "wonderful"]
    examples = [(clean, ["teh", "acommodation", "was", "wonderfull"], [False, True, False, True])]
    logits, ids = t.masked_logits(t.hybrid, examples)
    pieces = t.hybrid.word_pieces(clean, [False, True, True, True])
    assert ids.tolist() == pieces[1] + pieces[3]  # the clean pieces, whatever the typo
    assert logits.shape == (len(ids), teacher.vocab_size)
    fixed = [[None, [t.mask_id] * len(pieces[1]), None, [t.mask_id] * len(pieces[3])]]
    inputs = t.hybrid.prepare([examples[0][1]], fixed_pieces=fixed)
    assert inputs.selected[0][1] is False and inputs.selected[0][3] is False  # never built from characters
    start, end = inputs.word_spans[0][1]
    assert inputs.input_ids[0, start:end].tolist() == [t.mask_id] * len(pieces[1])


def test_examples_are_seeded_and_mask_at_least_one_word(teacher, make_encoder, corpus, tmp_path):
    t = trainer_for(teacher, make_encoder, corpus, tmp_path / "run", mask_rate=0.01)
    assert t.batch(3) == t.batch(3)
    for clean, read, masked in t.batch(0):
        assert sum(masked) == 1 and len(read) == len(clean) == len(masked)


@pytest.mark.parametrize("mode", ["frozen", "full"])
def test_what_trains_in_each_mode(teacher, make_encoder, corpus, tmp_path, mode):
    t = trainer_for(teacher, make_encoder, corpus, tmp_path / mode, mode=mode)
    before = {k: v.clone() for k, v in t.mlm.state_dict().items()}
    examples = t.batch(0)
    first = float(t.losses(examples)["mlm"].detach())
    t.train()
    after = t.mlm.state_dict()
    changed = {k for k, v in before.items() if not torch.equal(v, after[k])}
    assert "bert.embeddings.word_embeddings.weight" not in changed  # the table (and the tied output) is frozen
    assert torch.equal(after["bert.embeddings.word_embeddings.weight"], teacher.embeddings)
    assert t.mlm.cls.predictions.decoder.weight is t.mlm.bert.embeddings.word_embeddings.weight
    assert "cls.predictions.transform.dense.weight" in changed
    transformer = {k for k in changed if k.startswith("bert.encoder.")}
    assert bool(transformer) == (mode == "full")
    assert float(t.losses(examples)["mlm"].detach()) < first
    # the teacher's own model is never touched
    assert all(torch.equal(v, before[f"bert.{k}"]) for k, v in teacher.model.state_dict().items()
               if f"bert.{k}" in before)


def test_resume_gives_the_same_weights(teacher, make_encoder, corpus, tmp_path):
    straight = trainer_for(teacher, make_encoder, corpus, tmp_path / "a", mode="full")
    straight.train()
    first = trainer_for(teacher, make_encoder, corpus, tmp_path / "b", mode="full")
    first.train(stop_after=4)
    resumed = trainer_for(teacher, make_encoder, corpus, tmp_path / "b", mode="full")
    resumed.train(resume=True)
    assert resumed.engine.state.step == straight.engine.state.step == 6
    for k, v in straight.model.state_dict().items():
        assert torch.allclose(v, resumed.model.state_dict()[k], atol=1e-6), k


def test_bilstm_encoder_in_cudnn_flat_layout_resumes_saves_and_loads(teacher, make_encoder, corpus, tmp_path,
                                                                     cudnn_flat_rnn_weights):
    # A BiLSTM encoder as cuDNN keeps it on a GPU (views of one buffer; emulated here) beside the
    # masked LM's tied table, which the checkpoint stores once.
    straight = trainer_for(teacher, make_encoder, corpus, tmp_path / "a", kind="bilstm", mode="full")
    straight.train()
    first = trainer_for(teacher, make_encoder, corpus, tmp_path / "b", kind="bilstm", mode="full")
    assert cudnn_flat_rnn_weights(first.model)
    first.train(stop_after=4)
    resumed = trainer_for(teacher, make_encoder, corpus, tmp_path / "b", kind="bilstm", mode="full")
    resumed.train(resume=True)
    assert cudnn_flat_rnn_weights(resumed.model)
    for k, v in straight.model.state_dict().items():
        assert torch.allclose(v, resumed.model.state_dict()[k], atol=1e-6), k
    hybrid = Teacher.load(str(tmp_path / "b" / MODEL_DIR))
    assert hybrid.dim == teacher.dim


def test_the_checkpoint_is_a_teacher_with_its_encoder(teacher, make_encoder, corpus, tmp_path):
    from transformers import AutoModelForMaskedLM

    t = trainer_for(teacher, make_encoder, corpus, tmp_path / "run", mode="full", eval_every=6)
    t.train()  # one evaluation, at the end: the saved model is the final one
    model_dir = tmp_path / "run" / MODEL_DIR
    record = json.loads((model_dir / "charwise_pretraining.json").read_text())
    assert record["config"]["mode"] == "full" and "hybrid_acc" in record["validation"]
    mlm = AutoModelForMaskedLM.from_pretrained(model_dir)  # a plain HF checkpoint, head included
    assert torch.equal(mlm.cls.predictions.transform.dense.weight.detach(),
                       t.mlm.cls.predictions.transform.dense.weight.detach())
    hm = HybridModel.from_teacher(str(model_dir), policy="oov")  # the encoder comes with the model
    assert hm.encoder is not None
    for k, v in t.encoder.state_dict().items():
        assert torch.equal(v, hm.encoder.state_dict()[k]), k
    for k, v in t.mlm.bert.encoder.state_dict().items():
        assert torch.equal(v, hm.model.encoder.state_dict()[k]), k
    with torch.inference_mode():
        out = hm([["teh", "accommodation", "was", "wonderfull"]])
    assert torch.isfinite(out.outputs.last_hidden_state).all()


def test_config_and_teacher_refusals(teacher, make_encoder, corpus, tmp_path, tiny_llama_teacher):
    with pytest.raises(ConfigError, match="mode"):
        PretrainConfig(corpora=[corpus], mode="half")
    with pytest.raises(ConfigError, match="mask_rate"):
        PretrainConfig(corpora=[corpus], mask_rate=0)
    with pytest.raises(ConfigError, match="BERT-family masked LM"):
        masked_lm_for(tiny_llama_teacher)


def test_cli_pretrain_and_tag_train_reads_the_model(tiny_bert_dir, corpus, tmp_path, capsys, make_encoder):
    tiny = Teacher.load(str(tiny_bert_dir))
    encoder = make_encoder("cnn", info=tiny.describe(), dim=tiny.dim, seed=1)
    encoder.save_pretrained(tmp_path / "enc")
    out = tmp_path / "2pt"
    args = ["pretrain", corpus, "--teacher", str(tiny_bert_dir), "--encoder", str(tmp_path / "enc"), "--out",
            str(out), "--steps", "2", "--batch-size", "8", "--eval-every", "2", "--quiet"]
    assert main(args) == 0
    assert "charwise tag train --teacher" in capsys.readouterr().err
    assert main(args) == 2  # the directory holds a run
    assert "already holds a run" in capsys.readouterr().err
    assert main(args[:-1] + ["--mask-rate", "1.5"]) == 2
    assert "--mask-rate" in capsys.readouterr().err
    tagger = tmp_path / "tagger"
    assert main(["tag", "train", "--task", "wnut17", "--model", str(out / MODEL_DIR), "--policy", "oov",
                 "--train-sentences", "16", "--dev-sentences", "8", "--epochs", "1", "--out", str(tagger),
                 "--quiet", "--no-test"]) == 0
    saved = tagger / "tagger" / "char_encoder" / "model.safetensors"
    from safetensors.torch import load_file

    trained_from = load_file(str(out / MODEL_DIR / "charwise-encoder" / "model.safetensors"))
    assert saved.exists() and set(load_file(str(saved))) == set(trained_from)


@pytest.mark.real
def test_real_minilm_second_pretraining_learns(tmp_path):
    """Real MiniLM and its shipped encoder, full mode, a few steps on EWT: the masked-piece loss
    falls and the saved model reads character vectors through SentenceEncoder."""
    from charwise.hybrid.sentence import SentenceEncoder
    from charwise.io import data_root

    corpus = str(data_root() / "ud_en_ewt" / "en_ewt-ud-dev.conllu")
    config = PretrainConfig(corpora=[corpus], mode="full", steps=8, batch_size=8, max_words=16, lr=1e-3,
                            warmup_steps=1, eval_every=8, validation_sentences=32)
    t = Pretrainer(config, tmp_path / "run", progress=False)
    examples = t.batch(0)
    first = float(t.losses(examples)["mlm"].detach())
    t.train()
    assert float(t.losses(examples)["mlm"].detach()) < first
    vectors = SentenceEncoder(str(tmp_path / "run" / MODEL_DIR), policy="oov").encode(["the acommodation was grate"])
    assert vectors.shape == (1, 384) and torch.isfinite(torch.as_tensor(vectors)).all()
