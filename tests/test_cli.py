"""Command line: --help everywhere, one-line errors with a non-zero exit, and the happy paths."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from charwise import errors
from charwise.cli import build_parser, main


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_no_argparse_type_bool():
    # A bool-typed option turns the string "False" into True; flags must be store_true or
    # BooleanOptionalAction.
    parsers = [build_parser(), *subparsers(build_parser()).values()]
    for parser in parsers:
        for action in parser._actions:
            assert action.type is not bool, f"{parser.prog}: {action.dest} is a bool-typed option"


COMMANDS = ["train", "eval", "manifold", "neighbors", "embed", "encode", "compare", "tune", "pretrain", "stats",
            "expand", "tag", "tag train", "tag eval", "tag predict", "decoder", "decoder train", "decoder eval",
            "decoder spell", "correct", "speller", "speller train", "generator", "generator train",
            "generator generate", "lm", "lm train", "lm eval", "lm sample", "lm neighbors", "translate",
            "translate train", "translate eval", "translate translate", "translate average", "cache", "cache info",
            "cache prune"]


def test_every_command_is_registered():
    assert set(subparsers(build_parser())) == {c for c in COMMANDS if " " not in c}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*command.split(), "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "usage" in out and "issue" not in out.lower()


# --- errors: charwise's own and file errors are one line with exit 2, anything else a traceback ---
ERRORS = [
    errors.InputError("bad.txt, line 3: not UTF-8 text"),
    errors.ConfigError("unknown policy 'x'"),
    errors.CheckpointError("'x' is not a charwise encoder"),
    errors.TeacherNotFoundError("unknown built-in teacher 'x'"),
    errors.OutputExistsError("output directory x exists and is not empty"),
    errors.MissingInputError("file not found: x"),
    errors.CharwiseError("any charwise error"),
    FileNotFoundError(2, "No such file or directory", "x.txt"),
    FileExistsError(17, "File exists", "out"),
    IsADirectoryError(21, "Is a directory", "out"),
    PermissionError(13, "Permission denied", "/root/x"),
    OSError(28, "No space left on device"),
    errors.InputError("a message\nover two lines"),
]


@pytest.fixture
def failing_stats(monkeypatch):
    """``charwise stats`` raising the given exception from inside the command."""
    import charwise.cli.stats

    def install(error: BaseException) -> None:
        def command(args):
            raise error

        monkeypatch.setattr(charwise.cli.stats, "cmd_stats", command)

    return install


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_every_error_type_is_one_line_with_exit_2(error, failing_stats, capsys):
    failing_stats(error)
    assert main(["stats", "corpus.txt"]) == 2
    line = one_line_error(capsys)
    assert line.startswith("charwise: error: ") and len(line) > len("charwise: error: ")


@pytest.mark.parametrize("error", [RuntimeError("a bug"), ValueError("a plain ValueError"), TypeError("bad call"),
                                   KeyError("k"), AssertionError("shape")], ids=lambda e: type(e).__name__)
def test_other_exceptions_keep_their_traceback(error, failing_stats, capsys):
    failing_stats(error)
    with pytest.raises(type(error)) as info:
        main(["stats", "corpus.txt"])
    assert info.value is error
    assert "charwise: error" not in capsys.readouterr().err


def test_errors_derive_from_the_builtin_types():
    assert issubclass(errors.InputError, ValueError) and issubclass(errors.ConfigError, ValueError)
    assert issubclass(errors.CheckpointError, ValueError)
    assert issubclass(errors.TeacherNotFoundError, FileNotFoundError)
    assert issubclass(errors.MissingInputError, FileNotFoundError)
    assert issubclass(errors.OutputExistsError, FileExistsError)
    for name in ("InputError", "ConfigError", "CheckpointError", "TeacherNotFoundError", "OutputExistsError",
                 "MissingInputError"):
        assert issubclass(getattr(errors, name), errors.CharwiseError)


@pytest.mark.parametrize("argv, message", [
    (["eval", "minilm", "--max-words", "-1"], "--max-words must be >= 0, got -1"),
    (["train", "--out", "OUT", "--report-words", "-5"], "--report-words must be >= 0, got -5"),
    (["neighbors", "word", "-k", "0"], "-k must be >= 1, got 0"),
    (["embed", "-", "--out", "x.npy", "--batch-size", "0"], "--batch-size must be >= 1, got 0"),
    (["encode", "-", "--out", "x.npy", "--policy", "sometimes"], "unknown policy 'sometimes'"),
    (["train", "--out", "OUT", "--noise-ratio", "1.5"], "--noise-ratio must be in [0, 1], got 1.5"),
    (["train", "--out", "OUT", "--encoder", "bilstm", "--preset", "xray"], "--preset 'xray' is not a bilstm preset"),
    (["train", "--out", "OUT", "--cos", "0", "--l2", "0", "--nbr", "0", "--ce", "0", "--contrastive", "0"],
     "every loss weight is zero"),
    (["tune", "CORPUS", "--out", "OUT", "--typo-rate", "-0.1"], "--typo-rate must be in [0, 1], got -0.1"),
    (["tune", "nope.txt", "--out", "OUT"], "corpus file not found: nope.txt"),
    (["stats", "CORPUS", "--top", "-1"], "--top must be >= 0, got -1"),
    (["expand", "--words", "CORPUS", "--out", "OUT", "--max-words", "3"], "--max-words applies to --corpus"),
    (["expand", "--corpus", "CORPUS", "--out", "OUT", "--max-words", "-1"], "--max-words must be >= 0, got -1"),
    (["expand", "--corpus", "CORPUS", "--out", "OUT", "--min-count", "0"], "--min-count must be >= 1, got 0"),
    (["expand", "--corpus", "CORPUS", "--out", "OUT", "--method", "average"], "unknown method 'average'"),
    (["tag", "eval", "RUN", "--noise", "2"], "--noise must be in [0, 1], got 2"),
    (["neighbors", ""], "word 1 is empty"),
    (["neighbors", "fine", " "], "word 2 is empty"),
    # --beam 0 is refused wherever there is a --beam, before any model loads
    (["decoder", "eval", "RUN", "--beam", "0"], "--beam must be >= 1, got 0"),
    (["decoder", "spell", "word", "--decoder", "RUN", "--beam", "0"], "--beam must be >= 1, got 0"),
    (["translate", "eval", "RUN", "--beam", "0"], "--beam must be >= 1, got 0"),
    (["translate", "translate", "RUN", "--text", "hola", "--beam", "0"], "--beam must be >= 1, got 0"),
])
def test_flag_checks_name_the_flag(argv, message, tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("a sentence\n", encoding="utf-8")
    names = {"CORPUS": str(corpus), "OUT": str(tmp_path / "out"), "RUN": str(tmp_path / "run")}
    assert main([names.get(a, a) for a in argv]) == 2
    assert message in one_line_error(capsys)
    assert not (tmp_path / "out").exists()


def leaf_parsers(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    """(command words, parser) of every command that runs (no subcommands of its own)."""
    children = subparsers(parser)
    if not children:
        yield prefix, parser
    for name, child in children.items():
        yield from leaf_parsers(child, (*prefix, name))


def test_correct_k_is_the_number_of_suggestions_and_0_is_refused_in_one_line(tmp_path, capsys):
    # `-k 0 FILE` was answered with the top-level usage and "unrecognized arguments: -k FILE":
    # correct had no -k (argparse took 0 for the file and left FILE over).
    text = tmp_path / "in.txt"
    text.write_text("a line\n", encoding="utf-8")
    assert build_parser().parse_args(["correct", "-k", "3", str(text)]).suggestions == 3
    assert main(["correct", "-k", "0", str(text)]) == 2
    assert one_line_error(capsys) == "charwise: error: -k/--suggestions must be >= 1, got 0"
    assert main(["correct", "--suggestions", "-2", "--text", "x"]) == 2
    assert "-k/--suggestions must be >= 1, got -2" in one_line_error(capsys)


@pytest.mark.parametrize("argv, message", [
    (["correct", "-k", "x", "FILE"], "charwise: error: correct: argument -k/--suggestions: invalid int value: 'x'"),
    (["correct", "--bogus", "FILE"], "charwise: error: correct: unrecognized arguments: --bogus"),
    (["correct", "FILE", "OTHER"], "charwise: error: correct: unrecognized arguments: OTHER"),
    (["neighbors", "word", "-k", "1.5"], "charwise: error: neighbors: argument -k: invalid int value: '1.5'"),
    (["lm", "neighbors", "RUN", "word", "-k", "many"], "charwise: error: lm neighbors: argument -k: invalid int value"),
    (["decoder", "train", "--out", "OUT", "--steps", "1e3"], "charwise: error: decoder train: argument --steps"),
    (["correct", "--language", "fr", "FILE"], "charwise: error: correct: argument --language: invalid choice: 'fr'"),
    (["decoder"], "charwise: error: decoder: the following arguments are required"),
    (["nosuchcommand"], "charwise: error: argument command: invalid choice: 'nosuchcommand'"),
])
def test_command_line_errors_are_one_line_naming_the_command_and_option(argv, message, tmp_path, capsys):
    names = {"FILE": str(tmp_path / "in.txt"), "OUT": str(tmp_path / "out"), "RUN": str(tmp_path / "run")}
    with pytest.raises(SystemExit) as info:
        main([names.get(a, a) for a in argv])
    assert info.value.code == 2
    line = one_line_error(capsys)
    assert line.startswith(message) and "--help lists the options" in line
    assert not (tmp_path / "out").exists()


def test_every_numeric_option_refuses_a_non_number_in_one_line(capsys):
    checked = 0
    for words, parser in leaf_parsers(build_parser()):
        for action in parser._actions:
            if action.option_strings and action.type in (int, float):
                flag = action.option_strings[-1]
                with pytest.raises(SystemExit) as info:
                    main([*words, flag, "not-a-number"])
                assert info.value.code == 2
                line = one_line_error(capsys)
                assert line.startswith(f"charwise: error: {' '.join(words)}: argument ") and flag in line, line
                assert "invalid" in line
                checked += 1
    assert checked > 50


@pytest.mark.parametrize("argv", [
    ["embed", "DIR", "--out", "OUT.npy"],
    ["encode", "DIR", "--out", "OUT.npy"],
    ["stats", "DIR"],
    ["tag", "predict", "RUN", "DIR"],
    ["translate", "translate", "RUN", "DIR"],
    ["tune", "DIR", "--out", "OUT"],
    ["pretrain", "DIR", "--out", "OUT"],
    ["generator", "train", "DIR", "--decoder", "minilm", "--out", "OUT"],
    ["lm", "train", "--out", "OUT", "--corpus", "DIR"],
    ["translate", "train", "--out", "OUT", "--corpus", "DIR"],
    ["expand", "--words", "DIR", "--out", "OUT"],
], ids=lambda argv: " ".join(a for a in argv[:2] if a.islower()))
def test_a_directory_for_an_input_file_gets_one_message(argv, tmp_path, capsys):
    names = {"DIR": str(tmp_path / "texts"), "RUN": str(tmp_path / "run"), "OUT": str(tmp_path / "out"),
             "OUT.npy": str(tmp_path / "out.npy")}
    (tmp_path / "texts").mkdir()
    assert main([names.get(a, a) for a in argv]) == 2
    assert one_line_error(capsys) == f"charwise: error: input is a directory, not a file: {tmp_path / 'texts'}"
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.npy").exists()


def test_a_decoder_is_named_like_an_encoder(tmp_path, capsys):
    from charwise.cli.common import decoder_directory
    from charwise.encoders.shipped import shipped_decoder

    assert decoder_directory("minilm") == shipped_decoder("minilm")
    assert decoder_directory(str(tmp_path)) == tmp_path
    for argv in (["decoder", "spell", "word", "--decoder", "no-such-decoder"],
                 ["decoder", "eval", "no-such-decoder"]):
        assert main(argv) == 2
        assert "no decoder 'no-such-decoder': shipped decoders are minilm" in one_line_error(capsys)


@pytest.mark.real
def test_decoder_spell_with_the_shipped_decoder_by_name(capsys):
    assert main(["decoder", "spell", "hello", "--decoder", "minilm", "--beam", "2"]) == 0
    assert capsys.readouterr().out.startswith("hello\t")


def test_cli_defaults_are_the_librarys():
    import inspect

    from charwise.decoders.lstm import CharDecoder
    from charwise.training.config import TuneConfig
    from charwise.training.decoder import spelling_report
    from charwise.translation.model import TranslationModel

    def default(function, name):
        return inspect.signature(function).parameters[name].default

    parser = build_parser()
    assert parser.parse_args(["decoder", "spell", "w", "--decoder", "d"]).beam == default(CharDecoder.spellings, "beam")
    assert parser.parse_args(["decoder", "eval", "d"]).beam == default(spelling_report, "beam")
    for argv in (["translate", "eval", "m"], ["translate", "translate", "m"]):
        args = parser.parse_args(argv)
        assert args.beam == default(TranslationModel.translate, "beam")
        assert args.length_penalty == default(TranslationModel.translate, "length_penalty")
    tune, config = parser.parse_args(["tune", "c.txt", "--out", "o"]), TuneConfig()
    for name in ("teacher", "encoder", "policy", "objective", "steps", "batch_size", "lr", "typo_rate", "eval_every",
                 "seed"):
        assert getattr(tune, name) == getattr(config, name), name


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("charwise: error:")
    return err[0]


def test_missing_teacher(tmp_path, capsys):
    code = main(["train", "--teacher", str(tmp_path / "nope"), "--out", str(tmp_path / "run"), "--quiet"])
    assert code == 2
    assert "not found" in one_line_error(capsys)
    assert not (tmp_path / "run").exists(), "a failed start must not leave an output directory"


def test_unknown_builtin_teacher_file(tmp_path, capsys):
    bogus = tmp_path / "weights.bin"
    bogus.write_bytes(b"\0" * 10)
    assert main(["train", "--teacher", str(bogus), "--out", str(tmp_path / "run"), "--quiet"]) == 2
    assert "not a .gguf" in one_line_error(capsys)


def test_corrupt_checkpoint(tmp_path, capsys):
    (tmp_path / "config.json").write_text("{ not json")
    (tmp_path / "model.safetensors").write_bytes(b"garbage")
    assert main(["eval", str(tmp_path)]) == 2
    assert "not valid JSON" in one_line_error(capsys)


def test_foreign_checkpoint(minilm_dir, capsys):
    # A HF model directory is not a charwise encoder.
    assert main(["neighbors", "word", "--encoder", str(minilm_dir)]) == 2
    assert "not a charwise encoder" in one_line_error(capsys)


def test_unknown_encoder_name(capsys):
    assert main(["embed", "-", "--out", "x.npy", "--encoder", "no-such-encoder"]) == 2
    assert "no encoder" in one_line_error(capsys)


@pytest.mark.real
def test_dimension_mismatch(tmp_path, make_encoder, real_minilm, capsys):
    info = {"name": "minilm", "vocab_hash": real_minilm.vocab_hash, "dim": 16, "family": "wordpiece"}
    make_encoder("cnn", info=info).save_pretrained(tmp_path / "enc")
    assert main(["neighbors", "word", "--encoder", str(tmp_path / "enc")]) == 2
    error = one_line_error(capsys)
    assert "dim 16" in error and "384" in error


def test_embed_keeps_every_line(tmp_path, make_encoder, capsys):
    make_encoder("cnn").save_pretrained(tmp_path / "enc")
    words = tmp_path / "words.txt"
    words.write_text("hello\n\nwörld\n😀\n" + "x" * 10000 + "\n", encoding="utf-8")
    out = tmp_path / "sub" / "vectors.npy"
    assert main(["embed", str(words), "--out", str(out), "--encoder", str(tmp_path / "enc")]) == 0
    vectors = np.load(out)
    assert vectors.shape == (5, 16) and np.isfinite(vectors).all()


def test_embed_rejects_binary_input(tmp_path, make_encoder, capsys):
    make_encoder("cnn").save_pretrained(tmp_path / "enc")
    words = tmp_path / "words.txt"
    words.write_bytes("caf\u00e9\n".encode("latin-1"))
    out = tmp_path / "vectors.npy"
    assert main(["embed", str(words), "--out", str(out), "--encoder", str(tmp_path / "enc")]) == 2
    assert "not UTF-8" in one_line_error(capsys)
    assert not out.exists()


def test_process_exit_status(tmp_path):
    result = subprocess.run([sys.executable, "-m", "charwise.cli", "eval", str(tmp_path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.strip().startswith("charwise: error:")


@pytest.mark.slow
def test_train_and_eval_end_to_end(tmp_path, tiny_bert_dir, capsys):
    """The CLI's full pipeline on a tiny random BERT built around MiniLM's real tokenizer."""
    run = tmp_path / "run"
    args = ["train", "--teacher", str(tiny_bert_dir), "--out", str(run), "--preset", "kim-small", "--steps", "4",
            "--batch-size", "32", "--eval-every", "2", "--quiet", "--report-words", "400"]
    assert main(args) == 0
    report = json.loads((run / "eval.json").read_text())
    assert report["heldin"]["n"] == 400 and report["heldout"]["n"] > 400  # held-out words are all reported
    for split in ("heldin", "heldout"):
        assert {"accuracy", "prec@1", "prec@5", "prec@15", "avg_prec", "cosine"} <= set(report[split])
        assert {"accuracy", "prec@1", "avg_prec", "cosine"} <= set(report["baseline"][split])
    assert "toggle" not in report["noise"], "an uncased teacher cannot see case typos"
    assert {"top1", "top10"} <= set(report["noise"]["swap"])
    assert main(["eval", str(run / "encoder"), "--json", str(tmp_path / "e.json"), "--max-words", "300",
                 "--noise-words", "50"]) == 0
    assert json.loads((tmp_path / "e.json").read_text())["heldin"]["n"] == 300
    # --words-from: only the rows that occur in a corpus: the, house, river, and, music and , . !
    (tmp_path / "corpus.txt").write_text("The house, the river and music.\nMusic!\n", encoding="utf-8")
    assert main(["eval", str(run / "encoder"), "--json", str(tmp_path / "c.json"), "--words-from",
                 str(tmp_path / "corpus.txt"), "--noise-words", "5"]) == 0
    restricted = json.loads((tmp_path / "c.json").read_text())
    assert sum(restricted[split].get("n", 0) for split in ("heldin", "heldout")) == 8, restricted["heldin"]
    (tmp_path / "none.txt").write_text("zzqx qqzx\n", encoding="utf-8")
    assert main(["eval", str(run / "encoder"), "--words-from", str(tmp_path / "none.txt")]) == 2
    # Resuming a finished run is a no-op that still succeeds.
    assert main(args + ["--resume", "--no-report"]) == 0


@pytest.mark.slow
def test_two_process_training(tmp_path, tiny_bert_dir, two_cpu_processes):
    """The same `charwise train` command spreads over processes without code changes."""
    run = tmp_path / "run"
    result = two_cpu_processes(["charwise.cli", "train", "--teacher", str(tiny_bert_dir), "--out", str(run),
                                "--preset", "kim-small", "--steps", "4", "--eval-every", "2", "--batch-size", "64",
                                "--quiet", "--no-report"])
    assert result.returncode == 0, result.stderr[-2000:]
    validations = [r for r in map(json.loads, (run / "log.jsonl").read_text().splitlines()) if "validation" in r]
    assert [r["processes"] for r in validations] == [2, 2]
    state = json.loads((run / "checkpoint" / "state.json").read_text())
    assert state["step"] == 4
    assert (run / "encoder" / "model.safetensors").exists()


@pytest.mark.slow
def test_training_survives_a_kill(tmp_path, tiny_bert_dir):
    """SIGKILL mid-run, then --resume: the run finishes with the weights of an uninterrupted run."""
    import signal
    import time

    from safetensors.torch import load_file

    def command(out):
        return [sys.executable, "-m", "charwise.cli", "train", "--teacher", str(tiny_bert_dir), "--out", str(out),
                "--preset", "kim-small", "--steps", "60", "--eval-every", "30", "--checkpoint-every", "5",
                "--batch-size", "32", "--quiet", "--no-report"]

    subprocess.run(command(tmp_path / "full"), check=True, capture_output=True, timeout=300)
    victim = subprocess.Popen(command(tmp_path / "killed"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    state = tmp_path / "killed" / "checkpoint" / "state.json"
    deadline = time.time() + 240
    while time.time() < deadline and not (state.exists() and json.loads(state.read_text())["step"] >= 10):
        time.sleep(0.05)
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    assert json.loads(state.read_text())["step"] < 60, "the run finished before it could be killed"
    subprocess.run(command(tmp_path / "killed") + ["--resume"], check=True, capture_output=True, timeout=300)
    assert json.loads(state.read_text())["step"] == 60
    full = load_file(str(tmp_path / "full" / "checkpoint" / "model.safetensors"))
    resumed = load_file(str(tmp_path / "killed" / "checkpoint" / "model.safetensors"))
    for name, tensor in full.items():
        torch.testing.assert_close(resumed[name], tensor, rtol=0, atol=1e-6, msg=name)


def test_correct_checks_its_input_before_loading_the_models(tmp_path, capsys, monkeypatch):
    """A binary file is refused, an empty one answered, without the seconds the models take to load."""
    from charwise.speller import Speller

    def no_load(*args, **kwargs):
        raise AssertionError("the models were loaded")

    monkeypatch.setattr(Speller, "load", no_load)
    binary = tmp_path / "image.bin"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    assert main(["correct", str(binary)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not UTF-8 text" in err
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    out = tmp_path / "out.txt"
    assert main(["correct", str(empty), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == "" and "0 words corrected" in capsys.readouterr().err


@pytest.mark.parametrize("command", [
    ["encode", "{file}", "--out", "{out}/vectors.npy"],
    ["embed", "{file}", "--out", "{out}/vectors.npy"],
    ["tag", "predict", "{out}", "{file}"],
    ["correct", "{file}"],
], ids=lambda c: " ".join(c[:2]))
def test_a_binary_input_is_refused_before_torch_loads(tmp_path, command):
    """The models' seconds of loading (torch's import first) never come before the one-line refusal."""
    binary = tmp_path / "image.bin"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    argv = [part.format(file=binary, out=tmp_path) for part in command]
    code = ("import sys\nfrom charwise.cli import main\ncode = main(sys.argv[1:])\n"
            "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))\nsys.exit(code)")
    result = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stdout.splitlines() == ["[]"]
    assert len(result.stderr.strip().splitlines()) == 1 and "not UTF-8 text" in result.stderr


@pytest.mark.real
def test_compare_shows_each_repair_and_why_a_word_the_speller_read_was_kept(capsys):
    assert main(["compare", "It happend yesterday when he recieved guests"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip()}
    assert "repaired -> received (p " in rows["recieved"]
    # looked at and left (about 0.35): its best candidate and probability against the threshold it missed
    assert "table (speller: happened 0." in rows["happend"] and rows["happend"].endswith("< 0.85)")
    assert rows["yesterday"].rstrip().endswith("table")  # a known word: nothing to say
