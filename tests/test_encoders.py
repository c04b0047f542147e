"""One battery of tests for EVERY registered character encoder (charwise.encoders.ENCODERS), plus
kind-specific checks (BiLSTM final states, CNN short strings and highway bias) and checkpoint
safety (save/load round trip, and CheckpointError for everything that is not a valid checkpoint)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file
from torch import nn

from charwise.encoders import ENCODERS, CharEncoder, CheckpointError, build_encoder, check_teacher
from charwise.encoders.base import CONFIG_FILE, MODEL_TYPE, TRAINING_FILE, WEIGHTS_FILE, CharEncoderConfig
from charwise.errors import ConfigError
from charwise.teachers import Teacher

KINDS = sorted(ENCODERS)
PRESETS = [(kind, preset) for kind in KINDS for preset in sorted(ENCODERS[kind].PRESETS)]

# One shared list of awkward strings (the habit of flair's embedding_test_utils): empty and
# whitespace-only strings, combining marks, zero-width and bidi controls, private use, emoji and
# ZWJ sequences, other scripts, a very long string and other tokenizers' markers.
AWKWARD = [
    "", " ", "\t\n", "a", "A", "naïve", "e\u0301", "\u200b", "a\u200db", "\u202eabc", "\ue000", "😀",
    "👩‍👩‍👧", "中文字符", "مرحبا", "x" * 10000, "a b", "##ing", "Ġthe", "▁the",
]

REAL_WORDS = ["the", "playing", "hello", "World", "naïve", "café", "Straße", "x", "don't", "123", "中文"]
REAL_STARTS = [True, True, True, True, True, False, True, True, True, False, True]


def assert_rows(out: torch.Tensor, n: int, d: int) -> None:
    assert out.shape == (n, d)
    assert out.dtype == torch.float32
    assert torch.isfinite(out).all()


# --- strings in, vectors out -----------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_awkward_strings(make_encoder, kind):
    enc = make_encoder(kind)
    out = enc.embed(AWKWARD)
    assert_rows(out, len(AWKWARD), enc.dim)
    # Order is preserved (embed sorts by length internally).
    rev = enc.embed(AWKWARD[::-1])
    torch.testing.assert_close(rev.flip(0), out, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind", KINDS)
def test_batch_composition_does_not_change_a_vector(make_encoder, kind):
    """Padding must never leak: a string's vector is the same alone and inside a padded batch."""
    enc = make_encoder(kind)
    together = enc.embed(AWKWARD)
    alone = torch.cat([enc.embed([w]) for w in AWKWARD])
    torch.testing.assert_close(together, alone, rtol=1e-4, atol=1e-5)
    # Splitting into small batches (different padding widths) gives the same rows.
    torch.testing.assert_close(enc.embed(AWKWARD, batch_size=3), together, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kind,preset", PRESETS)
def test_presets_build_and_embed_awkward_strings(make_encoder, kind, preset):
    enc = make_encoder(kind, preset)
    assert enc.kind == kind
    out = enc.embed(AWKWARD)
    assert_rows(out, len(AWKWARD), enc.dim)


@pytest.mark.parametrize("kind", KINDS)
def test_embed_edge_cases(make_encoder, kind):
    enc = make_encoder(kind)
    assert enc.embed([]).shape == (0, enc.dim)
    with pytest.raises(TypeError):
        enc.embed("hello")
    with pytest.raises(ValueError):
        enc(torch.tensor([1, 5, 3]))
    # Identical strings give identical rows; the WORD/PIECE marker changes the vector.
    out = enc.embed(["ing", "ing"])
    torch.testing.assert_close(out[0], out[1])
    piece = enc.embed(["ing"], pieces=True)
    assert not torch.allclose(piece[0], out[0])
    # Invisible characters are normalised away before the encoder sees the string.
    torch.testing.assert_close(enc.embed(["a\u200bb"]), enc.embed(["ab"]))


@pytest.mark.parametrize("kind", KINDS)
def test_embed_restores_training_mode_and_grad_flag(make_encoder, kind):
    enc = make_encoder(kind)
    enc.train()
    out = enc.embed(["hello"])
    assert enc.training
    assert not out.requires_grad
    out = enc.embed(["hello", "world"], grad=True)
    assert out.requires_grad
    enc.eval()
    enc.embed(["hello"])
    assert not enc.training


@pytest.mark.parametrize("kind", KINDS)
def test_embed_with_grad_runs_in_the_callers_mode(make_encoder, kind):
    """A trained encoder's forward runs in training mode (dropout; on CUDA, cuDNN's RNN backward
    refuses a forward made in eval mode); vectors without grad are computed in eval mode."""
    enc = make_encoder(kind)
    seen: list[bool] = []
    for module in enc.modules():
        module.register_forward_pre_hook(lambda m, args: seen.append(m.training))
    enc.train()
    enc.embed(["hello", "world"], grad=True)
    assert seen and all(seen)
    seen.clear()
    enc.embed(["hello"])
    assert seen and not any(seen) and enc.training


# --- every parameter is trained ----------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_every_parameter_gets_a_gradient(make_encoder, small_charset, kind):
    enc = make_encoder(kind)
    enc.train()
    ids = small_charset.batch(REAL_WORDS, REAL_STARTS)
    out = enc(ids)
    # A random projection, not a plain sum: the sum of a LayerNorm output has zero gradient.
    g = torch.Generator().manual_seed(0)
    loss = (out * torch.randn(out.shape, generator=g)).sum()
    loss.backward()
    names = [name for name, _ in enc.named_parameters()]
    assert names
    for name, p in enc.named_parameters():
        assert p.grad is not None, f"{kind}: parameter {name} got no gradient"
        assert p.grad.abs().sum() > 0, f"{kind}: parameter {name} got a zero gradient"
        assert torch.isfinite(p.grad).all(), name


def modules_hidden_in_containers(root: nn.Module) -> list[str]:
    """Paths of nn.Modules stored inside plain list/tuple/dict/set attributes of any submodule
    (such modules are invisible to .parameters(), .to(), state_dict and the optimizer)."""
    found: list[str] = []

    def walk(value, path: str, depth: int) -> None:
        if depth > 4:
            return
        if isinstance(value, nn.Module):
            found.append(path)
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(v, f"{path}[{k!r}]", depth + 1)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for i, v in enumerate(value):
                walk(v, f"{path}[{i}]", depth + 1)

    for mod_name, module in root.named_modules():
        for attr, value in vars(module).items():
            if attr in ("_modules", "_parameters", "_buffers"):
                continue
            if isinstance(value, (list, tuple, dict, set, frozenset)):
                walk(value, f"{mod_name or type(root).__name__}.{attr}", 0)
    return found


def test_structural_checker_catches_a_module_list_kept_in_python():
    class Bad(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ok = nn.Linear(2, 2)
            self.blocks = [nn.Linear(2, 2), nn.Linear(2, 2)]
            self.by_name = {"a": nn.Linear(2, 2)}

    found = modules_hidden_in_containers(Bad())
    assert len(found) == 3
    assert modules_hidden_in_containers(nn.Sequential(nn.Linear(2, 2), nn.ModuleList([nn.ReLU()]))) == []


@pytest.mark.parametrize("kind,preset", [(k, None) for k in KINDS] + PRESETS)
def test_no_module_hidden_in_plain_containers(make_encoder, kind, preset):
    enc = make_encoder(kind, preset)
    assert modules_hidden_in_containers(enc) == []


@pytest.mark.parametrize("kind", KINDS)
def test_build_encoder_validates(small_charset, kind):
    with pytest.raises(ValueError, match="unknown encoder"):
        build_encoder("no-such-kind", small_charset, 16)
    with pytest.raises(ValueError, match="unknown preset"):
        build_encoder(kind, small_charset, 16, "no-such-preset")
    enc = build_encoder(kind, small_charset, 24, next(iter(ENCODERS[kind].PRESETS)))
    assert enc.dim == 24 and enc.arch.num_chars == small_charset.size
    assert isinstance(enc, ENCODERS[kind]) and enc.kind == kind


# --- persistence -----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_save_load_round_trip(make_encoder, teacher_info, tmp_path, kind):
    enc = make_encoder(kind)
    before = enc.embed(AWKWARD)
    target = tmp_path / "enc"
    assert enc.save_pretrained(target, training_info={"step": 7}) == target
    assert sorted(p.name for p in target.iterdir()) == sorted([CONFIG_FILE, WEIGHTS_FILE, TRAINING_FILE])
    assert [p.name for p in tmp_path.iterdir()] == ["enc"]  # no temporary directory left behind

    meta = json.loads((target / CONFIG_FILE).read_text(encoding="utf-8"))
    assert meta["model_type"] == MODEL_TYPE
    assert meta["encoder_type"] == kind
    assert meta["teacher"] == teacher_info
    assert meta["arch"]["dim"] == enc.dim
    assert meta["charset"] == enc.charset.to_dict()
    assert json.loads((target / TRAINING_FILE).read_text(encoding="utf-8")) == {"step": 7}

    loaded = CharEncoder.from_pretrained(target)
    assert type(loaded) is type(enc)
    assert isinstance(loaded.config, CharEncoderConfig) and loaded.arch == enc.arch
    assert not loaded.training
    assert loaded.teacher_info == teacher_info
    assert loaded.training_info == {"step": 7}
    assert loaded.charset.to_dict() == enc.charset.to_dict()
    assert torch.equal(loaded.embed(AWKWARD), before)
    for (n1, t1), (n2, t2) in zip(enc.state_dict().items(), loaded.state_dict().items()):
        assert n1 == n2 and torch.equal(t1, t2)
    # Loading through the concrete class works too.
    assert type(ENCODERS[kind].from_pretrained(target)) is type(enc)
    # Re-saving keeps the training record it was loaded with; {} drops it.
    loaded.save_pretrained(tmp_path / "again")
    assert CharEncoder.from_pretrained(tmp_path / "again").training_info == {"step": 7}
    loaded.save_pretrained(tmp_path / "bare", training_info={})
    assert not (tmp_path / "bare" / TRAINING_FILE).exists()
    assert CharEncoder.from_pretrained(tmp_path / "bare").training_info == {}


@pytest.mark.parametrize("kind", KINDS)
def test_save_overwrites_an_existing_checkpoint(make_encoder, tmp_path, kind):
    target = tmp_path / "enc"
    make_encoder(kind, seed=0).save_pretrained(target)
    second = make_encoder(kind, seed=1)
    second.save_pretrained(target)
    assert torch.equal(CharEncoder.from_pretrained(target).embed(["hello"]), second.embed(["hello"]))
    assert [p.name for p in tmp_path.iterdir()] == ["enc"]


def test_loading_through_the_wrong_class(make_encoder, tmp_path):
    kinds = iter(KINDS)
    first, second = next(kinds), next(kinds)
    make_encoder(first).save_pretrained(tmp_path / "enc")
    with pytest.raises(CheckpointError, match=first):
        ENCODERS[second].from_pretrained(tmp_path / "enc")


@pytest.fixture(params=KINDS)
def saved(request, make_encoder, tmp_path) -> tuple[str, Path]:
    kind = request.param
    target = tmp_path / f"enc-{kind}"
    make_encoder(kind).save_pretrained(target)
    return kind, target


def edit_config(directory: Path, change) -> None:
    path = directory / CONFIG_FILE
    meta = json.loads(path.read_text(encoding="utf-8"))
    change(meta)
    path.write_text(json.dumps(meta), encoding="utf-8")


def test_corrupt_weights_file(saved):
    _, target = saved
    (target / WEIGHTS_FILE).write_bytes(b"this is not a safetensors file at all" * 3)
    with pytest.raises(CheckpointError, match="weights"):
        CharEncoder.from_pretrained(target)


def test_truncated_weights_file(saved):
    _, target = saved
    data = (target / WEIGHTS_FILE).read_bytes()
    (target / WEIGHTS_FILE).write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError):
        CharEncoder.from_pretrained(target)


def test_invalid_json_config(saved):
    _, target = saved
    (target / CONFIG_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(CheckpointError, match="JSON"):
        CharEncoder.from_pretrained(target)


def test_missing_weights_file(saved):
    _, target = saved
    (target / WEIGHTS_FILE).unlink()
    with pytest.raises(CheckpointError, match="not a charwise encoder"):
        CharEncoder.from_pretrained(target)


def test_wrong_model_type(saved):
    _, target = saved
    edit_config(target, lambda m: m.update(model_type="something-else"))
    with pytest.raises(CheckpointError, match="not a charwise encoder.*model_type 'something-else'"):
        CharEncoder.from_pretrained(target)
    edit_config(target, lambda m: m.pop("model_type"))
    with pytest.raises(CheckpointError, match="not a charwise encoder.*no model_type"):
        CharEncoder.from_pretrained(target)


def test_invalid_training_record(saved):
    _, target = saved
    (target / TRAINING_FILE).write_text("[1, 2", encoding="utf-8")
    with pytest.raises(CheckpointError, match="JSON"):
        CharEncoder.from_pretrained(target)
    (target / TRAINING_FILE).write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(CheckpointError, match="JSON object"):
        CharEncoder.from_pretrained(target)


def test_unknown_encoder_kind(saved):
    _, target = saved
    edit_config(target, lambda m: m.update(encoder_type="quantum"))
    with pytest.raises(CheckpointError, match="quantum"):
        CharEncoder.from_pretrained(target)


def test_config_with_unknown_field(saved):
    _, target = saved
    edit_config(target, lambda m: m["arch"].update(not_a_field=3))
    with pytest.raises(CheckpointError, match="config"):
        CharEncoder.from_pretrained(target)


def test_tensor_shapes_do_not_match_config(saved):
    _, target = saved
    edit_config(target, lambda m: m["arch"].update(dim=8))
    with pytest.raises(CheckpointError, match="shape mismatch"):
        CharEncoder.from_pretrained(target)


LAYER_FIELD = {"cnn": "highway_layers", "transformer": "layers", "bilstm": "layers"}


def test_tensor_names_do_not_match_config(saved):
    kind, target = saved
    edit_config(target, lambda m: m["arch"].update({LAYER_FIELD[kind]: m["arch"][LAYER_FIELD[kind]] + 1}))
    with pytest.raises(CheckpointError, match="missing"):
        CharEncoder.from_pretrained(target)


def test_weights_with_an_extra_tensor(saved):
    _, target = saved
    state = load_file(str(target / WEIGHTS_FILE))
    state["stowaway"] = torch.zeros(2)
    save_file(state, str(target / WEIGHTS_FILE))
    with pytest.raises(CheckpointError, match="stowaway"):
        CharEncoder.from_pretrained(target)


def test_charset_does_not_match_embedding_rows(saved):
    _, target = saved
    edit_config(target, lambda m: m["charset"].update(hash_buckets=m["charset"]["hash_buckets"] + 64))
    with pytest.raises(CheckpointError):
        CharEncoder.from_pretrained(target)


def test_empty_directory(tmp_path):
    with pytest.raises(CheckpointError, match="not a charwise encoder"):
        CharEncoder.from_pretrained(tmp_path)


def test_missing_directory(tmp_path):
    with pytest.raises(CheckpointError):
        CharEncoder.from_pretrained(tmp_path / "nothing-here")


def test_hf_model_directory_is_not_an_encoder(tmp_path):
    from transformers import BertConfig, BertModel

    config = BertConfig(vocab_size=50, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=16, max_position_embeddings=16)
    BertModel(config).save_pretrained(tmp_path)
    assert (tmp_path / CONFIG_FILE).is_file() and (tmp_path / WEIGHTS_FILE).is_file()
    with pytest.raises(CheckpointError, match="not a charwise encoder.*model_type 'bert'"):
        CharEncoder.from_pretrained(tmp_path)


# --- BiLSTM ------------------------------------------------------------------------------------------
def test_bilstm_final_states_skip_padding(make_encoder, small_charset):
    enc = make_encoder("bilstm")
    H = enc.arch.hidden
    words = ["a", "hello", "naïve", "中文字符", "", "unbelievably"]
    padded = small_charset.batch(words)
    assert (padded == 0).any()  # the batch really is padded
    with torch.no_grad():
        states = enc.final_states(padded)
        assert states.shape == (len(words), 2 * H)
        for i, w in enumerate(words):
            ids = small_charset.batch([w])  # alone: no padding at all
            out, _ = enc.lstm(enc.chars(ids))  # (1, L, 2H), top layer, both directions
            torch.testing.assert_close(states[i, :H], out[0, -1, :H], msg=f"forward state of {w!r}")
            torch.testing.assert_close(states[i, H:], out[0, 0, H:], msg=f"backward state of {w!r}")
        # Sanity check of the test itself: running the padded batch WITHOUT packing lets padding
        # into the backward direction of the shortest string.
        naive, _ = enc.lstm(enc.chars(padded))
        shortest = min(range(len(words)), key=lambda i: len(words[i]))
        assert not torch.allclose(naive[shortest, 0, H:], states[shortest, H:])


# --- CNN ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", [None] + sorted(ENCODERS["cnn"].PRESETS))
def test_cnn_strings_shorter_than_the_widest_filter(make_encoder, preset):
    enc = make_encoder("cnn", preset)
    widest = max(enc.arch.widths)
    words = ["", "a", "ab", "abc"]
    assert all(len(w) + 2 < widest for w in words[:2])
    out = enc.embed(words)
    assert_rows(out, len(words), enc.dim)
    # Direct call with fewer columns than the widest filter.
    ids = enc.charset.batch(["a"])
    assert ids.shape[1] < widest
    with torch.no_grad():
        torch.testing.assert_close(enc(ids), out[1:2])


@pytest.mark.parametrize("preset", [None] + sorted(p for p, cfg in ENCODERS["cnn"].PRESETS.items()
                                                   if cfg.get("highway_layers", 1) > 0))
def test_cnn_highway_gate_bias_is_negative(make_encoder, preset):
    enc = make_encoder("cnn", preset)
    assert len(enc.highways) == enc.arch.highway_layers > 0
    assert enc.arch.highway_bias < 0
    for hw in enc.highways:
        assert torch.all(hw.gate.bias == enc.arch.highway_bias)
        # So the gate starts mostly closed: carry, not transform.
        assert torch.all(torch.sigmoid(hw.gate.bias) < 0.5)


def test_cnn_config_validates():
    from charwise.encoders import CNNConfig

    with pytest.raises(ValueError, match="same length"):
        CNNConfig(widths=[1, 2], channels=[4])


# --- Transformer -----------------------------------------------------------------------------------
def test_transformer_refuses_more_characters_than_positions(make_encoder):
    enc = make_encoder("transformer", max_positions=8)
    with pytest.raises(ValueError, match="max_positions"):
        enc(torch.ones((1, 9), dtype=torch.long))
    assert "positions" not in enc.state_dict()  # fixed encodings are not saved


# --- teacher checks ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def other_vocab_teacher() -> Teacher:
    """A 16-dimensional WordPiece teacher with a different (tiny) vocabulary."""
    from tokenizers import Tokenizer
    from tokenizers.models import WordPiece
    from tokenizers.pre_tokenizers import Whitespace
    from transformers import PreTrainedTokenizerFast

    raw = Tokenizer(WordPiece({"[UNK]": 0, "the": 1, "play": 2, "##ing": 3}, unk_token="[UNK]"))
    raw.pre_tokenizer = Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=raw, unk_token="[UNK]")
    return Teacher.from_parts(tok, torch.randn(4, 16), name="other-vocab")


@pytest.mark.parametrize("kind", KINDS)
def test_check_teacher(make_encoder, wordpiece_teacher, other_vocab_teacher, kind):
    enc = make_encoder(kind, info=wordpiece_teacher.describe())
    check_teacher(enc, wordpiece_teacher)  # matches: no error
    enc.attach_teacher(wordpiece_teacher)
    assert enc.teacher is wordpiece_teacher

    with pytest.raises(ValueError, match="vocabulary mismatch"):
        check_teacher(enc, other_vocab_teacher)
    with pytest.raises(ValueError, match="vocabulary mismatch"):
        enc.attach_teacher(other_vocab_teacher)

    narrow = make_encoder(kind, dim=8, info=dict(wordpiece_teacher.describe(), dim=8))
    with pytest.raises(ValueError, match="dimension mismatch"):
        check_teacher(narrow, wordpiece_teacher)


def test_teacher_property_without_a_recorded_teacher(make_encoder):
    enc = make_encoder(KINDS[0], info={})
    with pytest.raises(ConfigError, match="does not record"):
        _ = enc.teacher
