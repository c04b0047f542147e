"""Spanish -> English translation (Transformer and S2W): learning a toy task, masks, the decoder's
routing, word features, decoding, resume, model files, refusals, splits, typos and gradients."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import random
import shutil
from types import SimpleNamespace

import pytest
import torch

from charwise.charset import CharVocab
from charwise.errors import CheckpointError, ConfigError, InputError
from charwise.training.translation import TranslateConfig, TranslationTrainer
from charwise.translation.averaging import average_models
from charwise.translation.data import BOS, EOS, PAD, Subwords, read_pairs, source_words, split_pairs
from charwise.translation.evaluate import copy_accuracy, evaluate_translation, noisy_sources
from charwise.translation.features import word_features, word_shape
from charwise.translation.inputs import SourceReader
from charwise.translation.model import Memory, SourceBatch, TranslationConfig, TranslationModel
from charwise.translation.search import beam_search, greedy

# A toy parallel task: word-for-word translation of a few words, with a name and a number that
# must be carried over unchanged ("el rey Abraham tiene 42 ovejas ." -> "the king Abraham has 42 sheep .").
NAMES = ["Abraham", "Isaac", "Jacob", "Moisés", "Aarón", "David", "Salomón", "Elías", "Samuel", "Saúl",
         "Josué", "Gedeón", "Rut", "Noé", "Lot", "Esaú", "Labán", "Rebeca", "Raquel", "Lea", "Judá", "Leví",
         "Benjamín", "José", "Efraín", "Manasés", "Sansón", "Débora", "Jonás", "Daniel"]
SUBJECTS = [("el rey", "the king"), ("el siervo", "the servant"), ("el profeta", "the prophet")]
VERBS = [("tiene", "has"), ("vio", "saw"), ("dio", "gave")]
OBJECTS = [("ovejas", "sheep"), ("casas", "houses"), ("camellos", "camels")]
SHORT = "el rey Abraham tiene 42 ovejas ."
LONG = "el siervo Moisés dio 12 camellos y el profeta Samuel vio 99 casas , y el rey Noé tiene 7 ovejas ."

# Tiny models: one layer per block, dimension 32, byte-level vocabularies of at most 320 pieces.
TINY = dict(source_vocab=320, target_vocab=320, dim=32, heads=2, ffn=64, encoder_layers=2, encoder_subword_layers=1,
            decoder_layers=2, decoder_subword_layers=1, dropout=0.0, batch_tokens=512, lr=5e-3, warmup=40,
            label_smoothing=0.0, dev=40, test=40)
LEARN_STEPS = 200


def toy_pair(rng: random.Random) -> tuple[str, str]:
    (s_es, s_en), (v_es, v_en), (o_es, o_en) = rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS)
    name, number = rng.choice(NAMES), str(rng.randint(2, 99))
    return f"{s_es} {name} {v_es} {number} {o_es} .", f"{s_en} {name} {v_en} {number} {o_en} ."


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> str:
    """600 verse-aligned toy pairs (refs "Genesis 1:1" ... "Genesis 12:50")."""
    rng = random.Random(0)
    rows = ["ref\tes\ten"]
    for i in range(600):
        es, en = toy_pair(rng)
        rows.append(f"Genesis {i // 50 + 1}:{i % 50 + 1}\t{es}\t{en}")
    path = tmp_path_factory.mktemp("toy") / "toy.es-en.tsv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return str(path)


def make_trainer(corpus: str, out, **overrides) -> TranslationTrainer:
    settings = {**TINY, "steps": 20, "eval_every": 20, **overrides}
    return TranslationTrainer(TranslateConfig(corpus=corpus, split="verses", **settings), out, progress=False)


@pytest.fixture(scope="module")
def trained(corpus, tmp_path_factory):
    """Both architectures trained on the toy task: ``{arch: (trainer, dev nll before, dev nll after)}``."""
    runs = {}
    for arch in ("s2w", "transformer"):
        trainer = make_trainer(corpus, tmp_path_factory.mktemp(arch) / "run", architecture=arch,
                               steps=LEARN_STEPS, eval_every=LEARN_STEPS)
        before = trainer.validate()["nll"]
        trainer.train()
        runs[arch] = (trainer, before, trainer.validate()["nll"])
        trainer.model.eval()
    return runs


@torch.no_grad()
def sequence_score(model: TranslationModel, memory, ids: list[int]) -> float:
    """Sum of log p(y_t) over ``ids`` and ``</s>``, divided by ``len(ids) + 1`` (beam search's score)."""
    target_in = torch.tensor([[BOS, *ids]])
    logp = torch.log_softmax(model.decode(memory, target_in).float(), dim=-1)[0]
    gold = torch.tensor([*ids, EOS])
    return float(logp[torch.arange(len(gold)), gold].sum()) / len(gold)


# --- 1. learning ------------------------------------------------------------------------------------
@pytest.mark.parametrize("arch", ["s2w", "transformer"])
def test_toy_task_is_learned_names_and_numbers_copied(trained, arch):
    trainer, before, after = trained[arch]
    assert before > 4.0 and after < 0.1 * before, (before, after)
    test = trainer.data.splits["test"]
    sources, references = [p.source for p in test], [p.target for p in test]
    hypotheses = trainer.model.translate(sources, beam=1)
    exact = sum(h == r for h, r in zip(hypotheses, references)) / len(test)
    assert exact >= 0.8, list(zip(hypotheses, references))[:5]
    copied = copy_accuracy(sources, references, hypotheses)
    assert copied["copy_candidates"] == 2 * len(test)  # the name and the number of each sentence
    assert copied["copy_accuracy"] >= 90.0
    result = evaluate_translation(trainer.model, test, beam=2)
    assert result["bleu"] >= 70.0 and result["chrf"] >= 80.0 and result["sentences"] == len(test)
    # S2W's upper encoder layers run on words, the Transformer's on pieces.
    words = sum(len(source_words(s)) for s in sources) / len(test)
    expected = words if arch == "s2w" else result["source_pieces_per_sentence"]
    assert result["upper_encoder_positions_per_sentence"] == pytest.approx(expected, abs=0.01)


# --- 2. masks -----------------------------------------------------------------------------------------
def test_padding_never_reaches_the_decoder(corpus, tmp_path):
    trainer = make_trainer(corpus, tmp_path / "m", architecture="s2w", feature_mode="merge", char_vectors=True,
                           decoder_layers=3, decoder_subword_layers=1)
    model, reader = trainer.model.eval(), trainer.data.reader
    short, long = reader.example(source_words(SHORT)), reader.example(source_words(LONG))
    target = model.target_subwords.encode("the king Abraham has 42 sheep .")
    target_in = torch.tensor([[BOS, *target]])
    with torch.no_grad():
        alone = model.decode(model.encode(reader.batch([short])), target_in)[0]
        memory = model.encode(reader.batch([short, long]))
        together = model.decode(memory, target_in.repeat(2, 1))[0]
        n_words, n_pieces = len(short.words), len(short.pieces)
        assert memory.word_padding[0].tolist() == [False] * n_words + [True] * (len(long.words) - n_words)
        assert memory.subword_padding[0].tolist() == [False] * n_pieces + [True] * (len(long.pieces) - n_pieces)
        assert torch.allclose(alone, together, atol=1e-5), (alone - together).abs().max()

        def logits_with(words=None, subwords=None):
            m = dataclasses.replace(memory, words=memory.words.clone(), subwords=memory.subwords.clone())
            if words is not None:
                m.words[0, words] = 100 * torch.randn_like(m.words[0, words])
            if subwords is not None:
                m.subwords[0, subwords] = 100 * torch.randn_like(m.subwords[0, subwords])
            return model.decode(m, target_in.repeat(2, 1))[0]

        torch.manual_seed(0)
        assert torch.allclose(logits_with(words=slice(n_words, None)), together, atol=1e-6)
        assert torch.allclose(logits_with(subwords=slice(n_pieces, None)), together, atol=1e-6)
        # ... while the real positions do reach it (both kinds: S2W reads words and subwords).
        assert not torch.allclose(logits_with(words=slice(0, n_words)), together, atol=1e-3)
        assert not torch.allclose(logits_with(subwords=slice(0, n_pieces)), together, atol=1e-3)
        # Target padding after the end changes nothing before it.
        padded = torch.cat([target_in, torch.full((1, 5), PAD)], dim=1)
        assert torch.allclose(model.decode(memory, padded.repeat(2, 1))[0, : target_in.shape[1]], together,
                              atol=1e-5)


# --- 3. which decoder layer reads what ------------------------------------------------------------------
def tiny_model(architecture: str, **overrides) -> TranslationModel:
    sizes = dict(source_vocab=300, target_vocab=300, dim=32, heads=2, ffn=64, encoder_layers=2,
                 encoder_subword_layers=1, decoder_layers=3, decoder_subword_layers=1, dropout=0.0, max_positions=64)
    return TranslationModel(TranslationConfig(architecture=architecture, **{**sizes, **overrides})).eval()


def test_reads_words_and_the_decoder_follows_it():
    assert [tiny_model("transformer").reads_words(i) for i in range(3)] == [False, False, False]
    assert [tiny_model("s2w").reads_words(i) for i in range(3)] == [True, True, False]
    assert [tiny_model("s2w", decoder_subword_layers=2).reads_words(i) for i in range(3)] == [True, False, False]
    assert [tiny_model("s2w-words").reads_words(i) for i in range(3)] == [True, True, True]
    torch.manual_seed(0)
    pieces = torch.randint(4, 300, (1, 6))
    word_index = torch.tensor([[0, 0, 1, 2, 2, 2]])
    target_in = torch.tensor([[BOS, 5, 6, 7]])
    batch = SourceBatch(pieces, word_index, torch.tensor([3]))
    for arch, reads_subwords in (("s2w", True), ("s2w-words", False), ("transformer", True)):
        model = tiny_model(arch)
        with torch.no_grad():
            memory = model.encode(batch)
            assert (memory.words is None) == (arch == "transformer")
            base = model.decode(memory, target_in)
            noisy = dataclasses.replace(memory, subwords=memory.subwords + torch.randn_like(memory.subwords))
            changed = not torch.allclose(model.decode(noisy, target_in), base, atol=1e-4)
        assert changed == reads_subwords, arch


# --- 4. word features -----------------------------------------------------------------------------------
def test_word_features_values():
    lemma, shape = word_features(["casas", "Abraham", "42", ",", "ovejas", "dijo"])
    assert lemma == ["casa", "abraham", "42", ",", "oveja", "decir"]
    assert shape == ["x", "Xx", "d", "p", "x", "x"]
    assert [word_shape(w) for w in ["ABC", "McDonald", "Y", "a", "¿", "1909"]] == ["X", "m", "Xx", "x", "p", "d"]
    assert word_features(["Abraham"], ["shape"]) == [["Xx"]]
    with pytest.raises(ValueError, match="unknown word feature"):
        word_features(["casa"], ["pos"])


def _input_of(layer: torch.nn.Module, run) -> torch.Tensor:
    """The first positional input of ``layer`` during ``run()``."""
    seen = []
    handle = layer.register_forward_pre_hook(lambda module, args: seen.append(args[0].detach().clone()))
    try:
        with torch.no_grad():
            run()
    finally:
        handle.remove()
    return seen[0]


@pytest.mark.parametrize("mode", ["copy", "merge"])
def test_features_are_aligned_to_words(corpus, tmp_path, mode):
    arch = "transformer" if mode == "copy" else "s2w"
    trainer = make_trainer(corpus, tmp_path / mode, architecture=arch, feature_mode=mode)
    model, reader = trainer.model.eval(), SourceReader.for_model(trainer.model)
    assert list(model.feature_vocabs) == ["lemma", "shape"]
    words = source_words("el rey Abraham tiene 42 ovejas , y Moisés dio 7 camellos .")
    example = reader.example(words)
    assert example.words == words and len(example.features) == len(words)
    assert all(len(row) == 2 for row in example.features)
    assert example.word_index[0] == 0 and sorted(set(example.word_index)) == list(range(len(words)))
    assert all(a <= b for a, b in zip(example.word_index, example.word_index[1:]))
    assert len(example.pieces) > len(words)  # several pieces to a word, somewhere
    shapes = model.feature_vocabs["shape"]
    assert [row[1] for row in example.features] == shapes.ids(word_features(words, ["shape"])[0])
    assert example.features[2][1] == shapes.ids(["Xx"])[0] != shapes.ids(["x"])[0]

    batch = reader.batch([reader.example(source_words(SHORT)), example])  # row 0 is padded
    bare = dataclasses.replace(batch, features=torch.zeros_like(batch.features))  # id 0: no feature
    layer = model.subword_layers[0] if mode == "copy" else model.word_layers[0]
    diff = _input_of(layer, lambda: model.encode(batch)) - _input_of(layer, lambda: model.encode(bare))
    with torch.no_grad():
        per_word = sum(emb(batch.features[..., i]) for i, emb in enumerate(model.feature_embeddings))
    if mode == "copy":  # every piece of a word gets its word's features, padding gets nothing
        index = batch.word_index.clamp(min=0)
        expected = torch.gather(per_word, 1, index[..., None].expand(-1, -1, model.config.dim))
        expected = expected * (batch.word_index >= 0)[..., None]
    else:  # added once to each word state after the merge
        expected = per_word * (torch.arange(per_word.shape[1])[None, :] < batch.num_words[:, None])[..., None]
    assert expected.abs().sum() > 0
    assert torch.allclose(diff, expected, atol=1e-5), (diff - expected).abs().max()


def test_long_sources_are_cut_at_a_word_boundary(trained):
    model = trained["s2w"][0].model
    reader = SourceReader(model.source_subwords, {}, None, max_pieces=7)
    words = source_words(LONG)
    example = reader.example(words)
    assert 0 < len(example.pieces) <= 7 and example.words == words[: len(example.words)]
    full = reader.subwords.encode_words(example.words)
    assert (example.pieces, example.word_index) == full  # whole words only


# --- 5. decoding ------------------------------------------------------------------------------------------
def test_beam_one_is_greedy_and_a_wider_beam_scores_no_worse(trained, corpus, tmp_path):
    random_model = make_trainer(corpus, tmp_path / "r", architecture="s2w", feature_mode="merge").model.eval()
    sources = [p.source for p in trained["s2w"][0].data.splits["test"]] + [SHORT, LONG]
    for name, model in (("s2w", trained["s2w"][0].model), ("transformer", trained["transformer"][0].model),
                        ("untrained", random_model)):
        reader = SourceReader.for_model(model)
        batch = reader.batch([reader.example(source_words(s)) for s in (sources if model is not random_model
                                                                          else sources[:4] + [LONG])])
        best = greedy(model, batch)
        assert beam_search(model, batch, beam=1) == best, name
        if model is random_model:
            continue  # an untrained model need not end its sentences
        assert all(h and len(h) < 40 for h in best)  # every greedy hypothesis ended with </s>
        wide = beam_search(model, batch, beam=5)
        memory = model.encode(batch)
        worse = []
        for i, (w, g) in enumerate(zip(wide, best)):
            one = memory.select(torch.tensor([i]))
            if sequence_score(model, one, w) < sequence_score(model, one, g) - 1e-5:
                decode = model.target_subwords.decode
                worse.append((sources[i], decode(w), decode(g)))
        assert not worse, (name, worse)  # (source, beam 5, greedy)
    with pytest.raises(ValueError, match="beam"):
        beam_search(random_model, batch, beam=0)


A, B = 4, 5  # the two pieces of TableModel's vocabulary (0-3 are <pad> <unk> <s> </s>)


class TableModel(torch.nn.Module):
    """A stand-in decoder whose next-piece distribution is a fixed function of the prefix: what
    greedy and beam search use of a TranslationModel (encode, decode_step, the cache, max_positions)."""

    def __init__(self, table, vocab: int = 6) -> None:
        super().__init__()
        self.table, self.vocab = table, vocab
        self.target_embedding = torch.nn.Embedding(vocab, 1)
        self.config = SimpleNamespace(max_positions=64)

    def encode(self, batch: SourceBatch) -> Memory:
        n = batch.pieces.shape[0]
        return Memory(torch.zeros(n, 1, 1), torch.zeros(n, 1, dtype=torch.bool))

    def start_decoding(self, memory):
        empty = torch.zeros(memory.subwords.shape[0], 0, dtype=torch.long)
        return [SimpleNamespace(self_keys=empty, self_values=empty)]  # the prefix so far, reordered like keys

    def decode_step(self, last, cache):
        history = torch.cat([cache[0].self_keys, last[:, None]], dim=1)
        cache[0].self_keys = cache[0].self_values = history
        rows = []
        for h in history.tolist():
            probs = torch.full((self.vocab,), 1e-6)
            for token, p in self.table(tuple(h[1:])).items():
                probs[token] = p
            rows.append(torch.log(probs / probs.sum()))
        return torch.stack(rows)


def test_beam_search_does_not_stop_before_its_best_hypothesis_ends():
    """A A A A </s> (p = 0.6 * 0.9^4 * 0.9, 0.19 nats a piece) is what greedy finds; B </s>
    (0.38 * 0.6, 0.74 nats a piece) ends sooner. A beam of 2 must not stop with two finished
    hypotheses while its live A A A, far better, can still end."""

    def table(prefix: tuple[int, ...]) -> dict[int, float]:
        if not prefix:
            return {A: 0.6, B: 0.38, EOS: 0.02}
        if prefix[0] == A:
            return {A: 0.9, B: 0.05, EOS: 0.05} if len(prefix) < 4 else {EOS: 0.9, A: 0.05, B: 0.05}
        return {EOS: 0.6, B: 0.4}

    model = TableModel(table)
    batch = SourceBatch(torch.full((2, 8), 7), torch.arange(8).repeat(2, 1), torch.tensor([8, 8]))
    assert greedy(model, batch) == [[A, A, A, A]] * 2 == beam_search(model, batch, beam=1)
    assert beam_search(model, batch, beam=2) == [[A, A, A, A]] * 2
    assert beam_search(model, batch, beam=3) == [[A, A, A, A]] * 2


@pytest.mark.parametrize("architecture", ["transformer", "s2w"])
def test_incremental_decoding_equals_full_decoding(trained, architecture):
    model = trained[architecture][0].model.eval()
    reader = SourceReader.for_model(model)
    memory = model.encode(reader.batch([reader.example(source_words(s)) for s in (SHORT, LONG)]))
    prefix = torch.tensor([[BOS, 10, 11, 12, 13], [BOS, 20, 21, 22, 23]])
    with torch.no_grad():
        full = model.decode(memory, prefix)
        cache = model.start_decoding(memory)
        for t in range(prefix.shape[1]):
            step = model.decode_step(prefix[:, t], cache)
            assert torch.allclose(step, full[:, t], atol=1e-4), t
    model.train()
    with pytest.raises(RuntimeError, match="eval mode"):
        model.decode_step(prefix[:, 0], model.start_decoding(memory))
    model.eval()


# --- 6. resume ---------------------------------------------------------------------------------------------
def test_resume_gives_the_same_weights(corpus, tmp_path):
    settings = dict(architecture="s2w", feature_mode="merge", char_vectors=True, dropout=0.1, label_smoothing=0.1,
                    steps=6, eval_every=3, batch_tokens=256)
    straight = make_trainer(corpus, tmp_path / "a", **settings)
    straight.train()
    first = make_trainer(corpus, tmp_path / "b", **settings)
    first.train(stop_after=4)  # between two evaluations
    assert not all(torch.equal(v, first.model.state_dict()[k]) for k, v in straight.model.state_dict().items())
    resumed = make_trainer(corpus, tmp_path / "b", **settings)
    resumed.train(resume=True)
    expected = straight.model.state_dict()
    assert expected.keys() == resumed.model.state_dict().keys()
    for k, v in resumed.model.state_dict().items():
        assert torch.equal(v, expected[k]), k


def test_checkpoint_averaging_keeps_the_last_snapshots_and_resumes(corpus, tmp_path, trained):
    settings = dict(architecture="s2w", steps=6, eval_every=2, batch_tokens=256, average_last=2)
    straight = make_trainer(corpus, tmp_path / "a", **settings)
    straight.train()
    snapshots = sorted(p.name for p in (tmp_path / "a" / "snapshots").iterdir())
    assert snapshots == ["step-0000004", "step-0000006"]  # step 2 dropped
    averaged = TranslationModel.from_pretrained(tmp_path / "a" / "model-averaged")
    four, six = (TranslationModel.from_pretrained(tmp_path / "a" / "snapshots" / name) for name in snapshots)
    for name, value in averaged.state_dict().items():
        expected = (four.state_dict()[name].double() + six.state_dict()[name].double()) / 2
        assert torch.allclose(value.double(), expected, atol=1e-6), name
    assert not torch.equal(four.source_embedding.weight, six.source_embedding.weight)
    assert averaged.training_info["averaged_steps"] == [4, 6]
    assert straight.averaged is not None and math.isclose(averaged.training_info["validation"]["nll"],
                                                          straight.averaged["nll"])
    assert straight.validate(averaged)["nll"] == pytest.approx(straight.averaged["nll"])
    assert len(averaged.translate([SHORT], beam=2)) == 1  # a usable model

    # Killed after the first snapshot, resumed: the same snapshots and the same mean.
    make_trainer(corpus, tmp_path / "b", **settings).train(stop_after=3)
    assert not (tmp_path / "b" / "model-averaged").exists()
    make_trainer(corpus, tmp_path / "b", **settings).train(resume=True)
    resumed = TranslationModel.from_pretrained(tmp_path / "b" / "model-averaged")
    for name, value in resumed.state_dict().items():
        assert torch.equal(value, averaged.state_dict()[name]), name

    # Runs without averaging keep their old configuration file (older runs still resume).
    plain = json.loads((trained["s2w"][0].out / "translate_config.json").read_text(encoding="utf-8"))
    assert "average_last" not in plain and json.loads(
        (tmp_path / "a" / "translate_config.json").read_text(encoding="utf-8"))["average_last"] == 2

    # Models of different runs (here: architectures) or no models at all are refused.
    with pytest.raises(ConfigError, match="not the same model") as error:
        average_models([trained["s2w"][0].out / "model", trained["transformer"][0].out / "model"])
    assert "\n" not in str(error.value)
    with pytest.raises(ConfigError, match="at least one"):
        average_models([])
    with pytest.raises(ConfigError, match="average_last"):
        TranslateConfig(average_last=-1)


def test_command_line_train_eval_translate_average(corpus, tmp_path, capsys):
    from charwise.cli import main

    out = tmp_path / "run"
    tiny = ["--vocab", "320", "--dim", "32", "--heads", "2", "--ffn", "64", "--encoder-layers", "2",
            "--encoder-subword-layers", "1", "--decoder-layers", "2", "--decoder-subword-layers", "1",
            "--batch-tokens", "256", "--dev", "40", "--test", "40", "--warmup", "2"]
    argv = ["translate", "train", "--out", str(out), "--corpus", corpus, "--architecture", "s2w", *tiny,
            "--steps", "4", "--eval-every", "2", "--average-last", "2", "--quiet"]
    assert main(argv) == 0
    assert "averaged model written to" in capsys.readouterr().err
    assert main(["translate", "eval", str(out / "model-averaged"), "--limit", "5", "--beam", "2",
                 "--json", str(tmp_path / "report.json"), "--quiet"]) == 0
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["sentences"] == 5 and len(report["hypotheses"]) == 5 and "BLEU" in capsys.readouterr().out
    source = tmp_path / "es.txt"
    source.write_text(f"{SHORT}\n\n{LONG}\n", encoding="utf-8")
    assert main(["translate", "translate", str(out / "model"), str(source), "--out", str(tmp_path / "en.txt")]) == 0
    assert len((tmp_path / "en.txt").read_text(encoding="utf-8").splitlines()) == 3  # the empty line kept
    snapshots = [str(p) for p in sorted((out / "snapshots").iterdir())]
    assert main(["translate", "average", *snapshots, "--out", str(tmp_path / "mean")]) == 0
    mean = TranslationModel.from_pretrained(tmp_path / "mean")
    again = TranslationModel.from_pretrained(out / "model-averaged")
    assert all(torch.equal(v, again.state_dict()[k]) for k, v in mean.state_dict().items())
    capsys.readouterr()
    new = str(tmp_path / "new")
    for bad, message in ((["translate", "train", "--out", new, "--corpus", corpus, "--average-last", "-1"],
                          "--average-last must be >= 0"),
                         (["translate", "average", str(tmp_path / "none"), "--out", str(tmp_path / "x")],
                          "not a charwise translation model")):
        assert main(bad) == 2
        error = capsys.readouterr().err.strip().splitlines()
        assert len(error) == 1 and message in error[0], error


# --- 7. model files -------------------------------------------------------------------------------------------
def test_save_load_round_trip_and_broken_directories(trained, tmp_path):
    trainer = trained["s2w"][0]
    saved = trainer.out / "model"
    loaded = TranslationModel.from_pretrained(saved)
    for k, v in trainer.model.state_dict().items():
        assert torch.equal(v, loaded.state_dict()[k]), k
    sources = [p.source for p in trainer.data.splits["test"][:8]]
    assert loaded.translate(sources, beam=2) == trainer.model.translate(sources, beam=2)
    assert loaded.training_info["step"] == LEARN_STEPS

    def broken(name: str, text: str | None):
        target = tmp_path / name
        shutil.copytree(saved, target)
        if text is None:
            (target / "source_tokenizer.json").unlink()
        else:
            (target / "source_tokenizer.json").write_text(text, encoding="utf-8")
        return target

    from tokenizers import Tokenizer, models

    other = Tokenizer(models.WordLevel({"a": 0, "b": 1, "c": 2, "d": 3}, unk_token="a")).to_str()
    rng = random.Random(0)
    text = [" ".join("".join(rng.choice("abcdefghij") for _ in range(6)) for _ in range(50)) for _ in range(40)]
    larger = Subwords.train(text, 700)
    assert len(larger) > loaded.config.source_vocab
    (tmp_path / "empty").mkdir()
    cases = {"vocabularies": [broken("missing", None), broken("corrupt", "{not json"), broken("specials", other)],
             "source vocabulary has": [broken("larger", larger.to_str())],
             "not a charwise translation model": [tmp_path / "empty", saved / "config.json", tmp_path / "absent"]}
    for message, directories in cases.items():
        for directory in directories:
            with pytest.raises(CheckpointError, match=message) as error:
                TranslationModel.from_pretrained(directory)
            assert "\n" not in str(error.value), directory


def test_save_load_keeps_features_and_alphabet(corpus, tmp_path):
    trainer = make_trainer(corpus, tmp_path / "f", architecture="s2w", feature_mode="merge", char_vectors=True,
                           steps=3, eval_every=3)
    trainer.train()
    loaded = TranslationModel.from_pretrained(tmp_path / "f" / "model")
    assert loaded.config.feature_names == ["lemma", "shape"] and loaded.config.char_vectors
    assert {k: v.tokens for k, v in loaded.feature_vocabs.items()} == {
        k: v.tokens for k, v in trainer.model.feature_vocabs.items()}
    assert loaded.charset.config == trainer.data.charset.config
    for k, v in trainer.model.state_dict().items():
        assert torch.equal(v, loaded.state_dict()[k]), k
    sources = [SHORT, LONG, "el rey Zorobabel tiene 1000 ovejas ."]  # an unseen name and number
    assert loaded.translate(sources, beam=1) == trainer.model.translate(sources, beam=1)


# --- 8. refusals --------------------------------------------------------------------------------------------
def test_bad_configurations_are_refused(corpus, tmp_path):
    for bad in (dict(architecture="rnn"), dict(feature_mode="both"), dict(features=["lemma", "pos"]),
                dict(feature_mode="copy", features=[]), dict(steps=0), dict(lr=0.0), dict(dropout=1.0)):
        with pytest.raises(ConfigError):
            TranslateConfig(**bad)
    charset = CharVocab.build(["abc"], lowercase=False).to_dict()
    shape = {"tokens": ["<pad>", "<unk>", "x"]}
    for bad in (dict(architecture="transformer", feature_mode="merge", feature_vocabs={"shape": shape}),
                dict(architecture="transformer", char_vectors=True, charset=charset),
                dict(architecture="s2w", char_vectors=True),  # no alphabet
                dict(architecture="s2w", feature_mode="copy"),  # no feature vocabularies
                dict(architecture="s2w", feature_mode="merge", feature_vocabs={"pos": shape}),
                dict(architecture="s2w", encoder_layers=2, encoder_subword_layers=2),
                dict(architecture="s2w", decoder_layers=2, decoder_subword_layers=2),
                dict(architecture="attention"), dict(feature_mode="concat"), dict(dim=30, heads=4)):
        with pytest.raises(ConfigError):
            TranslationModel(TranslationConfig(**bad))
    with pytest.raises(ConfigError, match="S2W"):  # the run's settings reach the model's check
        make_trainer(corpus, tmp_path / "t", architecture="transformer", feature_mode="merge")


def test_negative_sizes_are_refused():
    # max_train_pairs=-1 would train on all but the last training pair (train[:-1]), silently.
    with pytest.raises(ConfigError, match="max_train_pairs"):
        TranslateConfig(max_train_pairs=-1)


def test_bad_corpus_files(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\tb\n1\t2\n", encoding="utf-8")
    with pytest.raises(InputError, match="verse-aligned"):
        read_pairs(bad)
    bad.write_bytes(b"ref\tes\ten\nGenesis 1:1\t\xff\xfe\tx\n")
    with pytest.raises(InputError, match="UTF-8"):
        read_pairs(bad)
    bad.write_text("ref\tes\ten\nGenesis 1:1\t\tx\n", encoding="utf-8")
    with pytest.raises(InputError, match="no verse pair"):
        read_pairs(bad)
    with pytest.raises(InputError, match="no such file"):
        read_pairs(tmp_path / "missing.tsv")


def test_bad_arguments_and_empty_sentences(trained, corpus):
    pairs = read_pairs(corpus)
    for dev, test in ((300, 300), (500, 200), (0, 10), (10, 0)):
        with pytest.raises(ConfigError):
            split_pairs(pairs, dev=dev, test=test)
    with pytest.raises(ConfigError):
        split_pairs(pairs, "chapters")
    with pytest.raises(InputError, match="empty"):  # no Daniel, Hebrews, ... in the toy corpus
        split_pairs(pairs, "books")
    for rate in (1.5, -0.1):
        with pytest.raises(ConfigError):
            noisy_sources(["el rey"], rate)
    model = trained["s2w"][0].model
    with pytest.raises(ConfigError):
        evaluate_translation(model, [])
    for beam in (1, 3):
        out = model.translate(["", SHORT, "   ", "el profeta Samuel vio 9 casas ."], beam=beam)
        assert out[0] == "" and out[2] == "" and out[1] and out[3], out
    assert model.translate([]) == []
    bare = tiny_model("s2w")
    with pytest.raises(ValueError, match="vocabulary"):
        bare.translate([SHORT])
    with pytest.raises(ConfigError):
        bare.save_pretrained("unused")


# --- 9. splits -----------------------------------------------------------------------------------------------
def test_verse_split_is_a_seeded_partition(corpus):
    pairs = read_pairs(corpus)
    split = split_pairs(pairs, dev=30, test=20, seed=1)
    assert [len(split[s]) for s in ("train", "dev", "test")] == [550, 30, 20]
    refs = {name: {p.ref for p in part} for name, part in split.items()}
    assert refs["train"] | refs["dev"] | refs["test"] == {p.ref for p in pairs}
    assert not (refs["train"] & refs["dev"] or refs["train"] & refs["test"] or refs["dev"] & refs["test"])
    order = {p.ref: i for i, p in enumerate(pairs)}
    assert all(sorted(part, key=lambda p: order[p.ref]) == part for part in split.values())  # corpus order
    assert split_pairs(pairs, dev=30, test=20, seed=1) == split
    assert split_pairs(pairs, dev=30, test=20, seed=2)["test"] != split["test"]


def test_builtin_corpus_and_book_split():
    path = TranslateConfig().corpus or None
    assert path is None  # the built-in Bible is the default
    pairs = read_pairs()
    from charwise.io import bible_path

    with open(bible_path(), encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    assert len(rows) == 31_102 and sum(not r["es"].strip() for r in rows) == 18
    assert len(pairs) == 31_102 - 18 and all(p.source and p.target for p in pairs)
    assert pairs[0].ref == "Genesis 1:1" and pairs[0].source.startswith("EN el principio")
    split = split_pairs(pairs, "books")
    books = {name: {p.ref.rsplit(" ", 1)[0] for p in part} for name, part in split.items()}
    assert books["test"] == {"Zechariah", "Malachi", "Jude", "Revelation of John"}
    assert books["dev"] == {"Daniel", "Hebrews"}
    assert not books["train"] & (books["dev"] | books["test"]) and len(books["train"]) == 66 - 6
    assert sum(len(part) for part in split.values()) == len(pairs)


# --- 10. typos -------------------------------------------------------------------------------------------------
def test_realistic_spanish_typos():
    sources = [p.source for p in read_pairs()[:40]]
    noisy, changed = noisy_sources(sources, 1.0, seed=3)
    assert noisy_sources(sources, 1.0, seed=3) == (noisy, changed)
    assert noisy_sources(sources, 1.0, seed=4)[0] != noisy
    long = hit = 0
    for clean, typed in zip(sources, noisy):
        words, typed_words = source_words(clean), typed.split(" ")
        assert len(words) == len(typed_words)
        for a, b in zip(words, typed_words):
            if len(a) >= 5 and a.isalpha():
                long, hit = long + 1, hit + (a != b)
            elif len(a) < 5:
                assert a == b  # short words and punctuation are left alone
    assert long > 200 and hit / long >= 0.9
    assert 0.2 < changed < 0.6  # the share of all words
    assert noisy_sources(sources, 0.0) == ([" ".join(source_words(s)) for s in sources], 0.0)


def test_evaluation_with_typos(trained):
    model, test = trained["s2w"][0].model, trained["s2w"][0].data.splits["test"][:10]
    clean = evaluate_translation(model, test, beam=1)
    typed = evaluate_translation(model, test, beam=1, typo_rate=1.0, seed=1)
    assert clean["words_changed"] == 0.0 and 0.3 < typed["words_changed"] < 1.0 and typed["typo_rate"] == 1.0
    assert typed["copy_candidates"] == clean["copy_candidates"] == 20  # counted on the clean sources
    assert typed["hypotheses"] != clean["hypotheses"]
    assert evaluate_translation(model, test, beam=1, typo_rate=1.0, seed=1)["hypotheses"] == typed["hypotheses"]


# --- gradients ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("settings", [dict(architecture="s2w", feature_mode="merge", char_vectors=True),
                                      dict(architecture="s2w-words", feature_mode="merge", char_vectors=True),
                                      dict(architecture="transformer", feature_mode="copy")],
                         ids=["s2w-merge-chars", "s2w-words", "transformer-copy"])
def test_every_parameter_gets_a_gradient(corpus, tmp_path, settings):
    trainer = make_trainer(corpus, tmp_path / "g", **settings)
    model = trainer.model.train()
    loss, pieces = trainer.loss(model, list(range(16)))
    assert pieces > 16 and math.isfinite(loss.item())
    loss.backward()
    missing = [n for n, p in model.named_parameters() if p.requires_grad and (p.grad is None or not p.grad.any())]
    assert not missing, missing
    # Layers kept in a plain list or dict would have no parameters above: neither trained nor saved.
    hidden = [f"{type(m).__name__}.{name}" for m in model.modules() for name, value in vars(m).items()
              if not name.startswith("_") and isinstance(value, (list, tuple, dict))
              and any(isinstance(x, (torch.nn.Module, torch.Tensor))
                      for x in (value.values() if isinstance(value, dict) else value))]
    assert not hidden, hidden
    c = model.config
    assert len(model.decoder_layers) == c.decoder_layers and len(model.feature_embeddings) == 2
    if c.architecture == "transformer":
        assert len(model.subword_layers) == c.encoder_layers and model.merge is None
    else:
        assert len(model.subword_layers) + len(model.word_layers) == c.encoder_layers
        assert len(model.char_convs) == len(c.char_widths)


# --- 11. the built-in Bible ---------------------------------------------------------------------------------
@pytest.mark.real
def test_s2w_with_features_and_characters_trains_on_the_builtin_bible(tmp_path):
    config = TranslateConfig(architecture="s2w", feature_mode="merge", char_vectors=True, dev=40, test=40,
                             max_train_pairs=3000, source_vocab=400, target_vocab=400, dim=32, heads=2, ffn=64,
                             encoder_layers=2, encoder_subword_layers=1, decoder_layers=2, decoder_subword_layers=1,
                             dropout=0.0, steps=40, batch_tokens=1024, lr=5e-3, warmup=10, eval_every=40)
    trainer = TranslationTrainer(config, tmp_path / "bible", progress=False)
    assert trainer.data.describe()["train_pairs"] == 3000
    before = trainer.validate()["nll"]
    trainer.train()
    after = trainer.validate()["nll"]
    assert after < before - 1.0, (before, after)
    model = TranslationModel.from_pretrained(tmp_path / "bible" / "model")
    result = evaluate_translation(model, trainer.data.splits["test"][:20], beam=2)
    assert math.isfinite(result["bleu"]) and 0 < result["chrf"] <= 100
    assert result["bleu_signature"].startswith("nrefs:1") and "nc:6" in result["chrf_signature"]
    assert result["copy_candidates"] > 0 and len(result["hypotheses"]) == 20
    assert result["upper_encoder_positions_per_sentence"] < result["source_pieces_per_sentence"]


# --- the Dice lexicon and code-switched text ---------------------------------------------------------
def test_dice_lexicon_pairs_words_that_share_verses() -> None:
    from charwise.translation.lexicon import code_switch, dice_lexicon

    pairs = [("el rey dijo", "the king said"), ("el rey vino", "the king came"), ("la casa", "the house"),
             ("dijo la reina", "said the queen"), ("la casa vino", "the house came")] * 2
    lexicon = dice_lexicon(pairs, min_count=3)
    assert lexicon["rey"] == "king" and lexicon["casa"] == "house" and lexicon["dijo"] == "said"
    assert "reina" not in lexicon, "seen in fewer than min_count pairs"
    # "la" is in 6 pairs, "house" in 4 of them: Dice 2 * 4 / (6 + 4) = 0.8 beats "the" (12 / 16).
    assert lexicon["la"] == "house" and "la" not in dice_lexicon(pairs, min_count=3, min_dice=0.9)
    text = ["El rey dijo: ¡la casa!"]
    assert code_switch(text, lexicon, 0.0) == (text, 0.0)
    switched, share = code_switch(text, lexicon, 1.0)
    # Case kept, punctuation and spacing untouched; every word with an entry replaced.
    assert switched == ["King king said: ¡house house!"], switched  # el -> king, la -> house: Dice is crude
    assert share == pytest.approx(5 / 8)
    assert code_switch(["REY"], lexicon, 1.0)[0] == ["KING"]
    with pytest.raises(ConfigError, match="rate"):
        code_switch(text, lexicon, 1.5)
    with pytest.raises(ConfigError, match="min_count"):
        dice_lexicon(pairs, min_count=0)


def test_cudnn_flat_gru_weights_checkpoint_resume_save_and_load(corpus, tmp_path, cudnn_flat_rnn_weights):
    # The S2W merge's GRU in cuDNN's layout (one flat buffer, as on a GPU; emulated on the CPU).
    settings = dict(architecture="s2w", steps=6, eval_every=3, batch_tokens=256, average_last=2)
    first = make_trainer(corpus, tmp_path / "b", **settings)
    assert cudnn_flat_rnn_weights(first.model)
    first.train(stop_after=4)
    resumed = make_trainer(corpus, tmp_path / "b", **settings)
    resumed.train(resume=True)
    for name in ("model", "model-averaged"):
        loaded = TranslationModel.from_pretrained(tmp_path / "b" / name)
        assert cudnn_flat_rnn_weights(loaded), name
    loaded = TranslationModel.from_pretrained(tmp_path / "b" / "model")
    for k, v in resumed.model.state_dict().items():
        assert torch.equal(v, loaded.state_dict()[k]), k
