"""Bad input, bad arguments and broken files: each ends in a correct result or a one-line error
(exit 2, no traceback) with nothing left behind, in memory that does not grow with the input."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from charwise.cli import main
from charwise.errors import CheckpointError, ConfigError, OutputExistsError
from charwise.hybrid.model import HybridModel
from charwise.io import atomic_file, iter_lines, lock_directory, remove_orphans
from charwise.teachers import Teacher
from charwise.words import split_words


def one_line_error(capsys, rc: int, *words: str) -> str:
    """The command failed with exit 2 and one ``charwise: error:`` line mentioning ``words``."""
    err = capsys.readouterr().err
    assert rc == 2, err
    errors = [line for line in err.splitlines() if line.startswith("charwise: error:")]
    assert len(errors) == 1 and "Traceback" not in err, err
    for word in words:
        assert word in errors[0], errors[0]
    return errors[0]


def no_temporaries(directory: Path) -> None:
    left = [p.name for p in directory.iterdir() if p.name.startswith(".")]
    assert not left, f"temporary files left behind: {left}"


# --- fixtures: a tiny teacher, an encoder trained "for" it, a tagger ---------------------------------
@pytest.fixture(scope="module")
def tiny_teacher(tiny_bert_dir) -> Teacher:
    return Teacher.load(str(tiny_bert_dir))


@pytest.fixture(scope="module")
def encoder_dir(tmp_path_factory, make_encoder, tiny_teacher) -> Path:
    path = tmp_path_factory.mktemp("enc") / "encoder"
    make_encoder("cnn", info=tiny_teacher.describe(), dim=tiny_teacher.dim).save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def hybrid(tiny_teacher, encoder_dir) -> HybridModel:
    return HybridModel.from_teacher(tiny_teacher, policy="oov", encoder=str(encoder_dir))


@pytest.fixture(scope="module")
def tagger_dir(tmp_path_factory, tiny_bert_dir) -> Path:
    from charwise.tagging import TaggerConfig
    from charwise.tagging.model import build_tagger

    config = TaggerConfig(task="toy", teacher=str(tiny_bert_dir), policy="none", pool="first")
    path = tmp_path_factory.mktemp("tagger") / "tagger"
    build_tagger(config, ["A", "B"], teacher=Teacher.load(str(tiny_bert_dir))).save(path)
    return path


def encode_args(tiny_bert_dir, encoder_dir) -> list[str]:
    return ["--teacher", str(tiny_bert_dir), "--encoder", str(encoder_dir)]


# --- 1. memory grows with the model's window, not with the line ------------------------------------
MEMORY_RUNNER = """
import resource, sys
cap = int(sys.argv[1])
if cap:
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
from charwise.cli import main
rc = main(sys.argv[2:])
peak = [line.split()[1] for line in open("/proc/self/status") if line.startswith("VmPeak")][0]
print("VMPEAK", int(peak) * 1024, file=sys.stderr)
sys.exit(rc)
"""
HEADROOM = 400 * 2**20  # what a run on the big file may use beyond a run on a 3-line file


def run_capped(argv: list[str], cap: int) -> tuple[int, str]:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, "-c", MEMORY_RUNNER, str(cap), *argv], capture_output=True, text=True,
                          env=env, timeout=300)
    peak = [int(line.split()[1]) for line in proc.stderr.splitlines() if line.startswith("VMPEAK")]
    return proc.returncode, proc.stderr if not peak else f"{proc.stderr}\n{peak[0]}"


@pytest.fixture(scope="module")
def big_file(tmp_path_factory) -> Path:
    """50 MB in five 10 MB lines: zero-width spaces (invisible, and no word), one word, punctuation,
    distinct words and running text. Few lines keep the model's work small; every byte is still read.
    (A NUL byte makes a file binary: refused before anything loads, see test_workers.py.)"""
    path = tmp_path_factory.mktemp("big") / "big.txt"
    size = 10 * 2**20
    with open(path, "wb") as f:
        f.write("\u200b".encode() * (size // 3) + b"\n")
        f.write(b"a" * size + b"\n")
        f.write(b"." * size + b"\n")
        f.write(" ".join(f"w{i}" for i in range(2 * 2**20)).encode()[:size] + b"\n")
        f.write((b"the cat sat on the mat " * (size // 23 + 1))[:size] + b"\n")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("command", ["embed", "encode", "stats", "tag predict"])
def test_memory_stays_flat_on_a_50_mb_file_with_10_mb_lines(command, big_file, tmp_path, tiny_bert_dir, encoder_dir,
                                                             tagger_dir):
    small = tmp_path / "small.txt"
    small.write_text("the cat\nsat on\nthe mat\n")

    def argv(path: Path) -> list[str]:
        out = str(tmp_path / f"out-{path.stem}")
        return {"embed": ["embed", str(path), "--out", out + ".npy", "--encoder", str(encoder_dir)],
                "encode": ["encode", str(path), "--out", out + ".npy", *encode_args(tiny_bert_dir, encoder_dir)],
                "stats": ["stats", str(path), "--teacher", str(tiny_bert_dir)],
                "tag predict": ["tag", "predict", str(tagger_dir), str(path), "--format", "text",
                                "--out", out + ".conll"]}[command]

    rc, err = run_capped(argv(small), 0)
    assert rc == 0, err
    base = int(err.rsplit("\n", 1)[1])
    rc, err = run_capped(argv(big_file), base + HEADROOM)
    assert rc == 0, err[-3000:]
    assert "were cut" in err  # the long lines are reported, not silently dropped
    if command in ("embed", "encode"):
        assert np.load(tmp_path / "out-big.npy").shape == (5, 16)
    if command == "tag predict":
        tagged = (tmp_path / "out-big.conll").read_text().split("\n\n")
        assert len([s for s in tagged if s.strip()]) == 5


def test_a_10_mb_line_is_cut_to_the_window_in_process(hybrid, tiny_teacher):
    with pytest.warns(UserWarning, match="truncated"):
        inputs = hybrid.prepare_texts(["\0" * (10 * 2**20), "x" * (10 * 2**20), "the cat"])
    assert inputs.inputs_embeds.shape[1] <= hybrid.adapter.max_length
    assert inputs.truncated[:2] == [True, False] and len(inputs.word_spans[0]) == hybrid.adapter.max_length - 1
    assert len(split_words("\0" * 10**6, max_words=5, max_word_chars=10).words) == 5


def test_iter_lines_reads_a_long_line_in_bounded_pieces(tmp_path):
    path = tmp_path / "long.txt"
    path.write_bytes(b"\xc3\xa9" * 3000 + b"\nok\n")  # a cut inside a 2-byte character
    lines = list(iter_lines(path, max_chars=1001))
    assert lines == ["é" * 1001, "ok"]


# --- 2. invalid numbers are refused, naming the argument --------------------------------------------
@pytest.mark.parametrize("argv,flag", [
    (["embed", "W", "--out", "v.npy", "--batch-size", "-1"], "--batch-size"),
    (["embed", "W", "--out", "v.npy", "--batch-size", "0"], "--batch-size"),
    (["embed", "W", "--out", "v.npy", "--max-line-chars", "0"], "--max-line-chars"),
    (["neighbors", "abc", "-k", "0"], "-k"),
    (["eval", "minilm", "--max-words", "-5"], "--max-words"),
    (["encode", "W", "--out", "v.npy", "--batch-size", "0"], "--batch-size"),
    (["tag", "eval", "x", "--max-sentences", "-1"], "--max-sentences"),
])
def test_invalid_numbers_are_refused(argv, flag, tmp_path, capsys):
    words = tmp_path / "w.txt"
    words.write_text("a\nb\n")
    argv = [str(words) if a == "W" else str(tmp_path / a) if a.endswith(".npy") else a for a in argv]
    one_line_error(capsys, main(argv), flag)
    assert not (tmp_path / "v.npy").exists()


def test_embed_api_refuses_a_bad_batch_size(make_encoder):
    encoder = make_encoder("cnn")
    for bad in (-1, 0, 1.5):
        with pytest.raises(ConfigError, match="batch_size"):
            encoder.embed(["a", "b"], batch_size=bad)


# --- 3. more distinct words than the cache holds --------------------------------------------------
def test_a_sentence_with_more_distinct_words_than_the_cache(tiny_teacher, encoder_dir):
    small = HybridModel.from_teacher(tiny_teacher, policy="all", encoder=str(encoder_dir), cache_size=10)
    words = [f"w{i}" for i in range(50)]
    with torch.inference_mode():
        inputs = small.prepare([words])
    assert len(inputs.pieces[0]) == 50 and all(inputs.selected[0])
    fresh = HybridModel.from_teacher(tiny_teacher, policy="all", encoder=str(encoder_dir))
    with torch.inference_mode():
        torch.testing.assert_close(inputs.inputs_embeds, fresh.prepare([words]).inputs_embeds)


# --- 4. lone surrogates and bytes that are not UTF-8 ----------------------------------------------
def test_surrogates_in_arguments_are_refused_or_replaced(tmp_path, capsys, tiny_bert_dir, encoder_dir):
    text = b"caf\xe9 x".decode("utf-8", "surrogateescape")  # what Python makes of a latin-1 argv
    one_line_error(capsys, main(["compare", text, *encode_args(tiny_bert_dir, encoder_dir)]), "--errors replace")
    one_line_error(capsys, main(["neighbors", text, "--encoder", str(encoder_dir)]), "0xe9")
    assert main(["compare", text, "--errors", "replace", *encode_args(tiny_bert_dir, encoder_dir)]) == 0
    assert "\ufffd" in capsys.readouterr().out


def test_undecodable_input_files_are_refused_or_replaced(tmp_path, capsys, tiny_bert_dir, encoder_dir):
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"caf\xe9 x\nplain\n")
    out = tmp_path / "x.npy"
    one_line_error(capsys, main(["encode", str(latin), "--out", str(out), *encode_args(tiny_bert_dir, encoder_dir)]),
                   "line 1", "--errors replace")
    one_line_error(capsys, main(["embed", str(latin), "--out", str(out), "--encoder", str(encoder_dir)]), "line 1")
    assert not out.exists()
    no_temporaries(tmp_path)
    assert main(["embed", str(latin), "--out", str(out), "--encoder", str(encoder_dir), "--errors", "replace"]) == 0
    assert np.load(out).shape == (2, 16)
    assert "U+FFFD" in capsys.readouterr().err


def test_surrogates_never_crash_the_api(hybrid):
    with torch.inference_mode():
        inputs = hybrid.prepare_texts(["caf\udce9 ok", "\ud800", "a\udfffb c"])
    assert inputs.inputs_embeds.isfinite().all()


# --- 5. OS errors and corrupt files: one line, nothing left behind --------------------------------
def test_out_is_a_directory(tmp_path, capsys, encoder_dir, tiny_bert_dir):
    words = tmp_path / "w.txt"
    words.write_text("a\n")
    (tmp_path / "d").mkdir()
    one_line_error(capsys, main(["embed", str(words), "--out", str(tmp_path / "d"), "--encoder", str(encoder_dir)]),
                   "is a directory")
    one_line_error(capsys, main(["stats", str(words), "--teacher", str(tiny_bert_dir), "--plot",
                                 str(tmp_path / "d")]), "--plot")
    assert not (tmp_path / "d.png").exists()
    no_temporaries(tmp_path)
    with pytest.raises(OutputExistsError):
        with atomic_file(tmp_path / "d") as f:
            f.write("x")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_read_only_output_directory(tmp_path, capsys, encoder_dir):
    words = tmp_path / "w.txt"
    words.write_text("a\n")
    locked = tmp_path / "ro"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        one_line_error(capsys, main(["embed", str(words), "--out", str(locked / "v.npy"), "--encoder",
                                     str(encoder_dir)]), "permission")
    finally:
        locked.chmod(0o700)


def test_write_failure_leaves_no_temporary_file(tmp_path):
    with pytest.raises(RuntimeError):
        with atomic_file(tmp_path / "x.json") as f:
            f.write("half")
            raise RuntimeError("disk full")
    assert list(tmp_path.iterdir()) == []


def test_truncated_or_nan_encoder_weights(tmp_path, capsys, make_encoder):
    from safetensors.torch import load_file, save_file

    good = tmp_path / "good"
    make_encoder("cnn").save_pretrained(good)
    words = tmp_path / "w.txt"
    words.write_text("a\n")
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "config.json").write_bytes((good / "config.json").read_bytes())
    (cut / "model.safetensors").write_bytes((good / "model.safetensors").read_bytes()[:500])
    one_line_error(capsys, main(["embed", str(words), "--out", str(tmp_path / "v.npy"), "--encoder", str(cut)]),
                   "model.safetensors")
    nan = tmp_path / "nan"
    nan.mkdir()
    (nan / "config.json").write_bytes((good / "config.json").read_bytes())
    state = load_file(str(good / "model.safetensors"))
    first = sorted(k for k, v in state.items() if v.is_floating_point())[0]
    state[first] = torch.full_like(state[first], float("nan"))
    save_file(state, str(nan / "model.safetensors"))
    one_line_error(capsys, main(["embed", str(words), "--out", str(tmp_path / "v.npy"), "--encoder", str(nan)]),
                   "NaN")
    assert not (tmp_path / "v.npy").exists()


def test_wrong_typed_or_relabelled_encoder_config(tmp_path, capsys, make_encoder):
    from charwise.encoders.base import CharEncoder

    good = tmp_path / "good"
    make_encoder("cnn").save_pretrained(good)
    config = json.loads((good / "config.json").read_text())
    config["arch"]["dim"] = str(config["arch"]["dim"])
    (good / "config.json").write_text(json.dumps(config))
    with pytest.raises(CheckpointError, match="arch.dim"):
        CharEncoder.from_pretrained(good)
    smol = tmp_path / "smol"
    from charwise.encoders.shipped import SHIPPED_DIR, available

    if "smollm2" not in available():
        pytest.skip("no shipped smollm2 encoder")
    config = json.loads((SHIPPED_DIR / "smollm2" / "config.json").read_text())
    config["teacher"]["name"] = "minilm"
    smol.mkdir()
    (smol / "config.json").write_text(json.dumps(config))
    os.symlink(SHIPPED_DIR / "smollm2" / "model.safetensors", smol / "model.safetensors")
    words = tmp_path / "w.txt"
    words.write_text("a\n")
    one_line_error(capsys, main(["embed", str(words), "--out", str(tmp_path / "v.npy"), "--encoder", str(smol)]),
                   "minilm")


def test_expand_checks_its_report_before_writing_the_model(tmp_path, capsys):
    (tmp_path / "d").mkdir()
    words = tmp_path / "w.txt"
    words.write_text("zzyzx\n")
    one_line_error(capsys, main(["expand", "--words", str(words), "--method", "mean", "--out", str(tmp_path / "m"),
                                 "--report", str(tmp_path / "d")]), "--report")
    assert not (tmp_path / "m").exists()


# --- 6. quieter faults ------------------------------------------------------------------------------
def train_args(tiny_bert_dir, out: Path, steps: int = 2) -> list[str]:
    return ["train", "--teacher", str(tiny_bert_dir), "--out", str(out), "--preset", "kim-small", "--steps",
            str(steps), "--batch-size", "16", "--eval-every", str(steps), "--nbr", "0", "--hard-negatives", "0",
            "--quiet", "--no-report", "--no-manifold"]


@pytest.mark.slow
def test_resume_refusals_and_a_corrupt_checkpoint(tmp_path, capsys, tiny_bert_dir):
    run = tmp_path / "run"
    one_line_error(capsys, main(train_args(tiny_bert_dir, run) + ["--resume"]), "nothing to resume")
    assert main(train_args(tiny_bert_dir, run)) == 0
    capsys.readouterr()
    one_line_error(capsys, main(train_args(tiny_bert_dir, run, steps=4) + ["--resume"]), "--steps 4")
    optimizer = run / "checkpoint" / "optimizer.pt"
    optimizer.write_bytes(optimizer.read_bytes()[:100])
    one_line_error(capsys, main(train_args(tiny_bert_dir, run) + ["--resume"]), "optimizer.pt")


def test_a_second_run_into_the_same_directory_is_refused(tmp_path):
    with lock_directory(tmp_path):
        with pytest.raises(OutputExistsError, match="another charwise process"):
            lock_directory(tmp_path)
    lock_directory(tmp_path).release()  # free again once the first one ends


def test_orphan_temporary_checkpoints_are_removed(tmp_path):
    (tmp_path / ".checkpoint.k3j_x9ab").mkdir()
    (tmp_path / ".log.jsonl.ab12cd34").write_text("")
    (tmp_path / "notes.txt").write_text("mine")
    assert sorted(remove_orphans(tmp_path)) == [".checkpoint.k3j_x9ab", ".log.jsonl.ab12cd34"]
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_outputs_follow_the_umask(tmp_path, encoder_dir):
    words = tmp_path / "w.txt"
    words.write_text("a\n")
    old = os.umask(0o027)
    try:
        assert main(["embed", str(words), "--out", str(tmp_path / "v.npy"), "--encoder", str(encoder_dir)]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "v.npy").stat().st_mode) == 0o640


def test_help_shows_defaults_and_presets(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "wide-mlp" in out and out.count("(default: ") >= 15


# --- fuzz: arbitrary text, lone surrogates included, never crashes the API --------------------------
TEXT = st.text(st.characters(codec=None, blacklist_categories=()), max_size=80)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(TEXT, min_size=1, max_size=4))
def test_fuzz_embed_encode_split(texts, make_encoder, sentence_encoder):
    for text in texts:
        split = split_words(text)
        assert all(w and not w.isspace() for w in split.words) and len(split.words) == len(split.space_before)
    vectors = make_encoder("cnn").embed(texts)
    assert vectors.shape == (len(texts), 16) and vectors.isfinite().all()
    encoded = sentence_encoder.encode(texts, batch_size=3)
    assert encoded.shape == (len(texts), 16) and encoded.isfinite().all()


@pytest.fixture(scope="module")
def sentence_encoder(tiny_teacher, encoder_dir):
    from charwise.hybrid.sentence import SentenceEncoder

    return SentenceEncoder(tiny_teacher, policy="oov", encoder=str(encoder_dir), max_length=64)


def test_sentence_vectors_refuse_a_causal_language_model(tiny_llama_teacher, make_encoder):
    from charwise.hybrid.st import CharwiseHybrid

    encoder = make_encoder("cnn", dim=tiny_llama_teacher.dim, info=tiny_llama_teacher.describe())
    with pytest.raises(ConfigError, match="causal language model .*HybridModel"):
        CharwiseHybrid(tiny_llama_teacher, policy="oov", encoder=encoder)
