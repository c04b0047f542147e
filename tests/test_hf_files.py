"""HF-native files: a character encoder is a ``transformers.PreTrainedModel`` that ``AutoModel``
loads after ``import charwise``; its training record lives in ``training.json``; directories
written by charwise 0.1 still load; the shipped encoders are in the new form; a tagger saves and
loads with ``save_pretrained`` / ``from_pretrained``; one function resolves "name or path ->
encoder" for every caller."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import torch
import transformers
from safetensors.torch import load_file, save_file

import charwise
import charwise.model_files
from charwise.encoders import ENCODERS, CharEncoder, CheckpointError
from charwise.encoders.base import CONFIG_FILE, MODEL_TYPE, TRAINING_FILE, WEIGHTS_FILE, CharEncoderConfig
from charwise.encoders.shipped import SHIPPED_DIR, available, resolve_encoder
from charwise.errors import ConfigError
from charwise.tagging import TaggerConfig, load_tagger
from charwise.tagging.model import Tagger, build_tagger
from charwise.teachers import Teacher

KINDS = sorted(ENCODERS)
WORDS = ["hello", "naïve", "中文", "", "x" * 300, "##ing"]
TRAINING = {"step": 12, "heldout_words": [5, 17, 99], "config": {"preset": "wide"}, "validation": {"score": 0.5}}


def write_v01(encoder: CharEncoder, directory: Path, training: dict) -> Path:
    """An encoder directory exactly as charwise 0.1 wrote it: one config.json holding the
    architecture, the charset, the teacher and the training record."""
    directory.mkdir(parents=True)
    meta = {"format": "charwise-encoder", "format_version": 1, "encoder": encoder.kind,
            "config": dataclasses.asdict(encoder.arch), "charset": encoder.charset.to_dict(),
            "teacher": encoder.teacher_info, "parameters": encoder.num_parameters(), "training": training}
    (directory / CONFIG_FILE).write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
    state = {k: v.detach().cpu().contiguous() for k, v in encoder.state_dict().items()}
    save_file(state, str(directory / WEIGHTS_FILE), metadata={"format": "charwise-encoder"})
    return directory


# --- transformers' Auto classes ----------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_automodel_round_trip(make_encoder, teacher_info, tmp_path, kind):
    enc = make_encoder(kind)
    enc.save_pretrained(tmp_path / "enc", training_info=TRAINING)
    config = transformers.AutoConfig.from_pretrained(tmp_path / "enc")
    assert isinstance(config, CharEncoderConfig) and config.encoder_type == kind
    model = transformers.AutoModel.from_pretrained(tmp_path / "enc")
    assert type(model) is type(enc) and isinstance(model, transformers.PreTrainedModel)
    assert not model.training
    assert model.teacher_info == teacher_info and model.training_info == TRAINING
    assert torch.equal(model.embed(WORDS), enc.embed(WORDS))
    # from_config builds the registered encoder (fresh weights, same architecture).
    fresh = transformers.AutoModel.from_config(config)
    assert type(fresh) is type(enc) and fresh.arch == enc.arch
    assert {k: v.shape for k, v in fresh.state_dict().items()} == {k: v.shape for k, v in enc.state_dict().items()}


def test_automodel_casts_to_a_dtype(make_encoder, tmp_path):
    make_encoder("cnn").save_pretrained(tmp_path / "enc")
    model = transformers.AutoModel.from_pretrained(tmp_path / "enc", dtype=torch.float64)
    assert all(p.dtype == torch.float64 for p in model.parameters())
    with pytest.raises(TypeError, match="unexpected"):
        CharEncoder.from_pretrained(tmp_path / "enc", no_such_option=1)


def test_config_json_holds_the_architecture_only(make_encoder, teacher_info, tmp_path):
    enc = make_encoder("cnn")
    enc.save_pretrained(tmp_path / "enc", training_info=TRAINING)
    assert sorted(p.name for p in (tmp_path / "enc").iterdir()) == [CONFIG_FILE, WEIGHTS_FILE, TRAINING_FILE]
    meta = json.loads((tmp_path / "enc" / CONFIG_FILE).read_text(encoding="utf-8"))
    assert meta["model_type"] == MODEL_TYPE and meta["encoder_type"] == "cnn"
    assert meta["arch"] == dataclasses.asdict(enc.arch)
    assert meta["charset"] == enc.charset.to_dict() and meta["teacher"] == teacher_info
    assert "training" not in meta and "heldout_words" not in json.dumps(meta) and "format" not in meta
    assert json.loads((tmp_path / "enc" / TRAINING_FILE).read_text(encoding="utf-8")) == TRAINING
    # Safetensors only, and no pickle anywhere.
    assert not list((tmp_path / "enc").rglob("*.bin")) and not list((tmp_path / "enc").rglob("*.pt"))
    assert load_file(str(tmp_path / "enc" / WEIGHTS_FILE)).keys() == enc.state_dict().keys()


def test_encoder_without_training_record(make_encoder, tmp_path):
    make_encoder("bilstm").save_pretrained(tmp_path / "enc")
    assert not (tmp_path / "enc" / TRAINING_FILE).exists()
    assert CharEncoder.from_pretrained(tmp_path / "enc").training_info == {}


def test_a_failed_save_keeps_the_old_directory(make_encoder, tmp_path, monkeypatch):
    make_encoder("cnn", seed=0).save_pretrained(tmp_path / "enc", training_info={"step": 1})
    before = (tmp_path / "enc" / WEIGHTS_FILE).read_bytes()

    def broken(module, path):
        Path(path).write_bytes(b"half a file")
        raise OSError("disk full")

    monkeypatch.setattr(charwise.model_files, "save_weights", broken)
    with pytest.raises(OSError, match="disk full"):
        make_encoder("cnn", seed=1).save_pretrained(tmp_path / "enc", training_info={"step": 2})
    assert [p.name for p in tmp_path.iterdir()] == ["enc"]  # no temporary directory left behind
    assert (tmp_path / "enc" / WEIGHTS_FILE).read_bytes() == before
    assert CharEncoder.from_pretrained(tmp_path / "enc").training_info == {"step": 1}


def test_the_abstract_base_class_is_not_an_encoder(small_charset):
    config = CharEncoderConfig(encoder_type="cnn", arch={"dim": 16, "num_chars": small_charset.size},
                               charset=small_charset.to_dict())
    with pytest.raises(TypeError, match="abstract"):
        CharEncoder(config)
    with pytest.raises(ConfigError, match="cnn"):
        ENCODERS["bilstm"](config)


# --- charwise 0.1 directories ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_v01_directory_still_loads(make_encoder, teacher_info, tmp_path, kind):
    enc = make_encoder(kind)
    old = write_v01(enc, tmp_path / "old", TRAINING)
    for loaded in (CharEncoder.from_pretrained(old), charwise.load(str(old)), ENCODERS[kind].from_pretrained(old)):
        assert type(loaded) is type(enc)
        assert loaded.arch == enc.arch and loaded.teacher_info == teacher_info
        assert loaded.training_info == TRAINING
        assert torch.equal(loaded.embed(WORDS), enc.embed(WORDS))
    # Saving it again writes the new form, training record included.
    CharEncoder.from_pretrained(old).save_pretrained(tmp_path / "new")
    assert json.loads((tmp_path / "new" / CONFIG_FILE).read_text())["model_type"] == MODEL_TYPE
    assert json.loads((tmp_path / "new" / TRAINING_FILE).read_text()) == TRAINING
    assert torch.equal(transformers.AutoModel.from_pretrained(tmp_path / "new").embed(WORDS), enc.embed(WORDS))


def test_v01_directory_keeps_its_checks(make_encoder, tmp_path):
    old = write_v01(make_encoder("cnn"), tmp_path / "old", {})
    meta = json.loads((old / CONFIG_FILE).read_text())
    meta["config"]["dim"] = 8
    (old / CONFIG_FILE).write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="shape mismatch"):
        CharEncoder.from_pretrained(old)
    meta["format"] = "something-else"
    (old / CONFIG_FILE).write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="not a charwise encoder.*format 'something-else'"):
        CharEncoder.from_pretrained(old)


# --- the shipped encoders -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["minilm", "smollm2", "e5-multilingual"])
def test_shipped_encoders_are_in_the_new_form(name):
    assert name in available()
    directory = SHIPPED_DIR / name
    assert sorted(p.name for p in directory.iterdir()) == [CONFIG_FILE, WEIGHTS_FILE, TRAINING_FILE]
    meta = json.loads((directory / CONFIG_FILE).read_text(encoding="utf-8"))
    assert meta["model_type"] == MODEL_TYPE and meta["teacher"]["name"] == name
    assert "training" not in meta and "heldout_words" not in json.dumps(meta)
    training = json.loads((directory / TRAINING_FILE).read_text(encoding="utf-8"))
    assert len(training["heldout_words"]) > 1000 and training["step"] > 0
    assert CharEncoder.from_pretrained(directory).training_info == training


@pytest.mark.real
def test_automodel_loads_the_shipped_minilm_encoder():
    model = transformers.AutoModel.from_pretrained(SHIPPED_DIR / "minilm")
    shipped = charwise.load("minilm")
    assert type(model) is type(shipped)
    words = ["house", "bsusinessses", "naïve", "Straße", "😀", "unbelievable"]
    assert torch.equal(model.embed(words), shipped.embed(words))
    assert model.training_info == shipped.training_info and len(model.training_info["heldout_words"]) == 1184


# --- name or path -> encoder ----------------------------------------------------------------------------
def test_resolve_encoder(make_encoder, wordpiece_teacher, tmp_path):
    enc = make_encoder("cnn", info=wordpiece_teacher.describe())
    assert resolve_encoder(enc, wordpiece_teacher) is enc
    assert enc.teacher is wordpiece_teacher  # attached: no second load of the teacher
    enc.save_pretrained(tmp_path / "enc")
    loaded = resolve_encoder(str(tmp_path / "enc"), wordpiece_teacher)
    assert torch.equal(loaded.embed(WORDS), enc.embed(WORDS)) and loaded.teacher is wordpiece_teacher
    # A teacher without a shipped encoder: an error that says who needs one and how to pass it.
    assert wordpiece_teacher.name not in available()
    with pytest.raises(ConfigError, match=r"policy 'oov' needs a character encoder.*tiny-wordpiece.*--char-encoder"):
        resolve_encoder(None, wordpiece_teacher, needed_by="policy 'oov'", option="--char-encoder DIR")
    assert resolve_encoder(None, wordpiece_teacher, required=False) is None
    with pytest.raises(FileNotFoundError, match="no encoder"):
        resolve_encoder(str(tmp_path / "missing"), wordpiece_teacher)
    other = make_encoder("cnn", info=dict(wordpiece_teacher.describe(), vocab_hash="0" * 16))
    with pytest.raises(ValueError, match="vocabulary mismatch"):
        resolve_encoder(other, wordpiece_teacher)


# --- the tagger -----------------------------------------------------------------------------------------
@pytest.fixture()
def tiny_tagger(tiny_bert_dir, make_encoder) -> Tagger:
    teacher = Teacher.load(str(tiny_bert_dir))
    encoder = make_encoder("cnn", info=teacher.describe(), dim=teacher.dim)
    config = TaggerConfig(task="toy", teacher=str(tiny_bert_dir), policy="oov", char_fusion="concat",
                          head="bilstm", pool="attention", seed=0, dropout=0.0)
    tagger = build_tagger(config, ["DET", "NOUN", "VERB"], teacher=teacher, encoder=encoder)
    with torch.no_grad():  # not the fresh head: a saved tagger must keep every trained weight
        for p in tagger.parameters():
            p.add_(0.01 * torch.randn_like(p))
    return tagger.eval()


def test_tagger_save_pretrained_round_trip(tiny_tagger, tmp_path):
    sentences = [["the", "cat", "runs"], ["zorblax"], ["a", "dog"]]
    with torch.inference_mode():
        logits, _ = tiny_tagger(sentences)
    out = tmp_path / "run" / "tagger"
    assert tiny_tagger.save_pretrained(out, extra={"dev": {"score": 0.5}}, train_words=["the", "cat", "the"]) == out
    assert [p.name for p in (tmp_path / "run").iterdir()] == ["tagger"]  # atomic: nothing else left
    names = sorted(p.name for p in out.iterdir())
    assert names == ["char_encoder", "model", "tagger.json", "tagger.safetensors", "train_words.json"]
    assert (out / "model" / "model.safetensors").is_file() and (out / "model" / "tokenizer.json").is_file()
    assert json.loads((out / "char_encoder" / CONFIG_FILE).read_text())["model_type"] == MODEL_TYPE
    assert not list(out.rglob("*.bin")) and not list(out.rglob("*.pt"))
    meta = json.loads((out / "tagger.json").read_text())
    assert meta["labels"] == ["DET", "NOUN", "VERB"] and meta["dev"] == {"score": 0.5}

    for loaded in (Tagger.from_pretrained(out), load_tagger(tmp_path / "run")):  # the run directory works too
        assert loaded.config == tiny_tagger.config and loaded.train_words == {"the", "cat"}
        assert loaded.meta["dev"] == {"score": 0.5}
        assert isinstance(loaded.hybrid.encoder, CharEncoder)
        with torch.inference_mode():
            assert torch.allclose(loaded(sentences)[0], logits, atol=1e-6)
        assert loaded.predict(sentences) == tiny_tagger.predict(sentences)


def test_tagger_loading_errors(tiny_tagger, tmp_path):
    with pytest.raises(FileNotFoundError, match="no tagger"):
        Tagger.from_pretrained(tmp_path / "nothing")
    out = tiny_tagger.save_pretrained(tmp_path / "t")
    state = load_file(str(out / "tagger.safetensors"))
    state.pop(sorted(state)[0])
    save_file(state, str(out / "tagger.safetensors"))
    with pytest.raises(CheckpointError, match="missing"):
        load_tagger(out)
    (out / "tagger.safetensors").write_bytes(b"not safetensors")
    with pytest.raises(CheckpointError, match="cannot read weights"):
        load_tagger(out)
    (out / "tagger.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="JSON"):
        load_tagger(out)
    (out / "tagger.json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(CheckpointError, match="not a charwise tagger"):
        load_tagger(out)


def charwise_config_classes() -> list[type]:
    """Every ``PretrainedConfig`` subclass defined in charwise (all modules imported first)."""
    import importlib
    import pkgutil

    for module in pkgutil.walk_packages(charwise.__path__, "charwise."):
        if not module.name.endswith(".__main__"):  # that one runs the command line
            importlib.import_module(module.name)
    found, todo = [], [transformers.PretrainedConfig]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("charwise."):
                found.append(sub)
    return sorted(set(found), key=lambda c: c.__name__)


def test_every_config_constructs_with_no_arguments(tmp_path):
    # transformers builds ConfigClass() with no arguments (to_diff_dict, in some versions on every
    # save): the checks belong where a model is built from the config, not in the config.
    classes = charwise_config_classes()
    assert {c.__name__ for c in classes} >= {"CharEncoderConfig", "CharDecoderConfig", "CharLMConfig",
                                             "TranslationConfig", "WordHeadConfig", "SpellScorerConfig"}
    for cls in classes:
        config = cls()
        assert config.model_type == cls.model_type
        config.to_diff_dict()
        config.save_pretrained(tmp_path / cls.__name__)
        assert type(transformers.AutoConfig.from_pretrained(tmp_path / cls.__name__)) is cls


def test_a_bad_config_is_refused_where_the_model_is_built():
    from charwise.lm.model import CharAwareLM, CharLMConfig

    config = CharLMConfig(words=["<unk>", "</s>", "a"])  # character input without an alphabet
    with pytest.raises(ConfigError, match="needs its alphabet"):
        CharAwareLM(config)
