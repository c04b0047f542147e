"""The character decoder, its training with the cycle loops, and the corrector."""

from __future__ import annotations

import json

import pytest
import torch

import charwise
from charwise.charset import END, CharVocab
from charwise.cli import main
from charwise.decoders import CharDecoder, build_decoder
from charwise.errors import CheckpointError, ConfigError
from charwise.training.decoder import SpellingConfig, SpellingTrainer, spelling_scores

WORDS = ["the", "playing", "hello", "world", "cafe", "über", "straße", "x", "mississippi", "naïve"]


@pytest.fixture
def charset() -> CharVocab:
    return CharVocab.build(WORDS, lowercase=False, hash_buckets=8, max_chars=16, tail_chars=4)


def overfit(charset: CharVocab, words: list[str], condition: str = "both", steps: int = 250) -> tuple[CharDecoder,
                                                                                                  torch.Tensor]:
    torch.manual_seed(0)
    decoder = build_decoder(charset, 8, "small", condition=condition)
    vectors = torch.randn(len(words), 8)
    ids = charset.batch(words)
    optimizer = torch.optim.Adam(decoder.parameters(), lr=1e-2)
    for _ in range(steps):
        optimizer.zero_grad()
        decoder.loss(vectors, ids).backward()
        optimizer.step()
    return decoder.eval(), vectors


@pytest.mark.parametrize("condition", ["init", "input", "both"])
def test_decoder_learns_to_spell_its_vectors(charset, condition):
    decoder, vectors = overfit(charset, WORDS, condition)
    assert decoder.spell(vectors) == WORDS
    best = decoder.spellings(vectors, beam=3, n_best=2)
    assert [b[0].text for b in best] == WORDS
    assert all(b[0].logprob >= b[1].logprob for b in best if len(b) > 1)
    # the spelling's log-probability under teacher forcing is the beam's score
    logp = decoder.log_probs(vectors, charset.batch(WORDS))
    assert logp.tolist() == pytest.approx([b[0].logprob for b in best], abs=1e-3)


def test_every_parameter_gets_a_gradient(charset):
    decoder = build_decoder(charset, 8, "small", condition="both", layers=3)
    decoder.loss(torch.randn(4, 8), charset.batch(WORDS[:4])).backward()
    missing = [n for n, p in decoder.named_parameters() if p.grad is None or not bool(p.grad.abs().sum() > 0)]
    assert not missing


def test_beam_one_is_greedy_decoding(charset):
    torch.manual_seed(3)
    decoder = build_decoder(charset, 8, "small").eval()
    vectors = torch.randn(20, 8)
    greedy = []
    with torch.no_grad():  # step-by-step argmax, written out
        for v in vectors:
            each, state = decoder._start(v[None])
            last, out = torch.tensor([1]), []
            for _ in range(decoder.arch.max_length):
                h, state = decoder.lstm(decoder._step_inputs(each, last[:, None]), state)
                logits = decoder.out(h[:, 0])[0]
                logits[:END] = -1e9
                logits[END + 1 : 4 + charset.config.hash_buckets] = -1e9
                nxt = int(logits.argmax())
                if nxt == END:
                    break
                out.append(nxt)
                last = torch.tensor([nxt])
            greedy.append(charset.decode(out))
    assert decoder.spell(vectors) == greedy
    assert decoder.spell(vectors, beam=1) == greedy


def test_spelling_stops_at_max_length_and_never_writes_markers(charset):
    decoder = build_decoder(charset, 8, "small").eval()
    out = decoder.spell(torch.randn(6, 8), max_length=3, beam=2)
    assert all(len(s) <= 3 and "\ufffd" not in s for s in out)
    with pytest.raises(ConfigError):
        decoder.spellings(torch.randn(2, 8), beam=2, n_best=3)
    with pytest.raises(ConfigError):
        decoder.spell(torch.randn(2, 8), beam=0)
    with pytest.raises(ValueError):
        decoder.spell(torch.randn(2, 5))


def test_save_and_load_round_trip_and_strict_checks(charset, tmp_path):
    decoder, vectors = overfit(charset, WORDS[:3], steps=5)
    decoder.save_pretrained(tmp_path / "d", training_info={"step": 5})
    loaded = CharDecoder.from_pretrained(tmp_path / "d")
    assert loaded.spell(vectors) == decoder.spell(vectors)
    assert loaded.training_info == {"step": 5}
    from transformers import AutoModel

    assert isinstance(AutoModel.from_pretrained(tmp_path / "d"), CharDecoder)
    config = json.loads((tmp_path / "d" / "config.json").read_text())
    config["arch"]["hidden"] = 64
    (tmp_path / "d" / "config.json").write_text(json.dumps(config))
    with pytest.raises(CheckpointError, match="shape mismatch"):
        CharDecoder.from_pretrained(tmp_path / "d")
    with pytest.raises(CheckpointError, match="not a charwise decoder"):
        CharDecoder.from_pretrained(tmp_path)
    encoder_dir = charwise.encoders.shipped.SHIPPED_DIR / "minilm"
    with pytest.raises(CheckpointError, match="not a charwise decoder"):
        CharDecoder.from_pretrained(encoder_dir)


def test_spelling_scores_by_length():
    s = spelling_scores(["cat", "dgo", "elephant"], ["cat", "dog", "elephants"])
    assert s["exact"] == pytest.approx(1 / 3)
    assert s["cer"] == pytest.approx(2 / 15)  # one transposition + one deletion over 3 + 3 + 9 characters
    assert s["by_length"]["1-4"]["n"] == 2 and s["by_length"]["9-12"]["exact"] == 0.0


def tiny_spelling(**overrides) -> SpellingConfig:
    params = dict(encoder="unused", preset="small", steps=6, batch_size=32, eval_every=3, eval_words=24,
                  checkpoint_every=2, train_rows_limit=400, warmup_steps=2)
    params.update(overrides)
    return SpellingConfig(**params)


def test_config_refuses_what_cannot_train():
    with pytest.raises(ConfigError, match="needs train_encoder"):
        SpellingConfig(cycle_de=1.0)
    with pytest.raises(ConfigError, match="needs a loss"):
        SpellingConfig(rows=0, cycle_ed=0)
    with pytest.raises(ConfigError):
        SpellingConfig(noise="keyboard")


@pytest.mark.parametrize("train_encoder", [False, True])
def test_training_resumes_to_the_same_weights(make_encoder, wordpiece_teacher, tmp_path, train_encoder):
    def encoder():
        e = make_encoder("cnn", charset=CharVocab.build(wordpiece_teacher.vocab.surfaces[:3000], lowercase=True,
                                                        hash_buckets=8), info=wordpiece_teacher.describe())
        e.attach_teacher(wordpiece_teacher)
        return e

    config = tiny_spelling(train_encoder=train_encoder, cycle_de=0.5 if train_encoder else 0.0)
    first = encoder()
    before = {k: v.clone() for k, v in first.state_dict().items()}
    straight = SpellingTrainer(config, tmp_path / "a", encoder=first, teacher=wordpiece_teacher, progress=False)
    straight.train()
    changed = any(not torch.equal(before[k], v.to(before[k].device)) for k, v in first.state_dict().items())
    assert changed == train_encoder  # a frozen encoder stays exactly as it was
    part = SpellingTrainer(config, tmp_path / "b", encoder=encoder(), teacher=wordpiece_teacher, progress=False)
    part.train(stop_after=4)
    resumed = SpellingTrainer(config, tmp_path / "b", encoder=encoder(), teacher=wordpiece_teacher, progress=False)
    resumed.train(resume=True)
    for (name, a), b in zip(straight.model.state_dict().items(), resumed.model.state_dict().values()):
        assert torch.equal(a, b), name
    assert (tmp_path / "a" / "decoder" / "config.json").is_file()
    assert (tmp_path / "a" / "encoder" / "config.json").is_file() == train_encoder
    held = set(straight.split.heldout_words.tolist())
    assert not held & set(straight.rows)  # held-out words are never spelled in training
    _, parts = straight.loss(straight.model, straight.batch(0))
    assert {"rows", "cycle_ed"} <= set(parts) and (("cycle_de" in parts) == train_encoder)
    assert ("approx" in parts) == train_encoder


def test_decoder_eval_refuses_a_directory_without_a_decoder(tmp_path, capsys):
    assert main(["decoder", "eval", str(tmp_path)]) == 2
    assert "not a charwise decoder" in capsys.readouterr().err


@pytest.mark.real
def test_shipped_decoder_spells_common_rows_and_reads_the_encoders_vectors():
    from charwise.encoders.shipped import shipped_decoder

    path = shipped_decoder("minilm")
    assert path is not None
    decoder = CharDecoder.from_pretrained(path)
    encoder = charwise.load("minilm")
    common = ["hello", "going", "business", "government", "something", "people", "through", "morning", "without",
              "country", "important", "children", "another", "family", "question", "different", "system",
              "program", "history", "thought", "money", "water", "friends", "school", "public"]
    # the decoder spells about nine held-in words in ten (docs/decoder.md): a share, not every word;
    # the words it never trained on are left out
    held_out = set(decoder.training_info["heldout_words"])
    rows = [ids[0] for ids in encoder.teacher.piece_ids(common)]
    words = [w for w, r in zip(common, rows) if r not in held_out]
    rows = [r for r in rows if r not in held_out]
    assert len(words) >= 20
    from_rows = decoder.spell(encoder.teacher.embeddings[rows])
    from_vectors = decoder.spell(encoder.embed(words, manifold=False), beam=3)
    assert sum(a == b for a, b in zip(from_rows, words)) >= 0.9 * len(words)
    assert sum(a == b for a, b in zip(from_vectors, words)) >= 0.8 * len(words)
    assert from_rows[:4] == from_vectors[:4] == ["hello", "going", "business", "government"]
    assert shipped_decoder("no-such-encoder") is None


def test_cudnn_flat_lstm_weights_checkpoint_resume_save_and_load(make_encoder, wordpiece_teacher, tmp_path,
                                                                  cudnn_flat_rnn_weights):
    # The decoder's LSTM and a BiLSTM encoder trained with it, in cuDNN's layout (one flat buffer
    # per RNN, as on a GPU; emulated on the CPU).
    def encoder():
        e = make_encoder("bilstm", charset=CharVocab.build(wordpiece_teacher.vocab.surfaces[:3000], lowercase=True,
                                                           hash_buckets=8), info=wordpiece_teacher.describe())
        e.attach_teacher(wordpiece_teacher)
        return e

    config = tiny_spelling(train_encoder=True, cycle_de=0.5)
    SpellingTrainer(config, tmp_path / "a", encoder=encoder(), teacher=wordpiece_teacher, progress=False).train()
    part = SpellingTrainer(config, tmp_path / "b", encoder=encoder(), teacher=wordpiece_teacher, progress=False)
    assert cudnn_flat_rnn_weights(part.model)
    part.train(stop_after=4)
    resumed = SpellingTrainer(config, tmp_path / "b", encoder=encoder(), teacher=wordpiece_teacher, progress=False)
    resumed.train(resume=True)
    for run in ("a", "b"):
        decoder = CharDecoder.from_pretrained(tmp_path / run / "decoder")
        trained_encoder = charwise.CharEncoder.from_pretrained(tmp_path / run / "encoder")
        assert cudnn_flat_rnn_weights(decoder) and cudnn_flat_rnn_weights(trained_encoder)
        if run == "a":
            straight = {**decoder.state_dict(), **{f"encoder.{k}": v for k, v in trained_encoder.state_dict().items()}}
    resumed_weights = {**decoder.state_dict(), **{f"encoder.{k}": v for k, v in trained_encoder.state_dict().items()}}
    for k, v in resumed_weights.items():
        assert torch.equal(v, straight[k]), k
