"""``--progress auto|bar|log|none`` on every long command (charwise.cli.progress): in log mode (the
default when standard error is not a terminal) a line with the rate, every LOG_EVERY seconds (0
here, so every update logs); ``--quiet`` is ``--progress none``; a training run stopped before its
first checkpoint resumes from step 0.

The commands run on tiny teachers, data and models (tests/conftest.py), a few seconds each.
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

import charwise.cli.correct as correct_cli
import charwise.cli.progress as progress_mod
from charwise.cli import main
from charwise.errors import CheckpointError, ConfigError
from charwise.training.engine import CHECKPOINT_DIR, LOG_FILE, Engine

HERE = Path(__file__).resolve().parent
RATE = re.compile(r"[\d.,]+ (?:[a-z ]+|[kMG]?B)/s")


@pytest.fixture
def log_every_update(monkeypatch):
    monkeypatch.setattr(progress_mod, "LOG_EVERY", 0.0)


def logged(err: str, what: str) -> list[str]:
    """The progress lines of ``what`` in a command's standard error, each checked for a rate."""
    lines = [line for line in err.splitlines() if line.startswith(f"charwise: {what}: ")]
    assert lines, err
    assert all(RATE.search(line) for line in lines), lines
    return lines


# --- the one Progress class ------------------------------------------------------------------------
def test_a_log_line_by_bytes_shows_the_share_and_the_time_left():
    progress = progress_mod.Progress("correct", "lines", 1, "auto", stream=io.StringIO(), size=5_000_000)
    assert progress.mode == "log"  # not a terminal
    progress.started -= 100
    progress.update(0, 1_250_000)  # a long line's windows: no line done yet, a quarter of the bytes
    line = progress.line()
    assert line.startswith("charwise: correct: 0 of 1 lines (1.2 of 5.0 MB, 25.0 %)"), line
    assert "12.5 kB/s, about 5 min 00 s left" in line and "lines/s" not in line


def test_a_total_told_later_and_a_note():
    stream = io.StringIO()
    progress = progress_mod.Progress("eval", "words", None, "log", stream=stream)
    progress.started -= 10
    progress.tell(50, 200)
    progress.update(50, note="loss 0.5000")
    assert progress.line().startswith("charwise: eval: 100 of 200 words (50.0 %), 10 words/s, about 10 s left")
    assert progress.line().endswith(", loss 0.5000")
    assert progress_mod.mode_of(True) == "auto" and progress_mod.mode_of(False) == "none"
    with pytest.raises(ValueError, match="unknown progress mode"):
        progress_mod.mode_of("loud")


@pytest.mark.parametrize("argv", [["train", "--out", "o"], ["lm", "train", "--out", "o"],
                                  ["tag", "train", "--task", "wnut17", "--out", "o"],
                                  ["decoder", "train", "--out", "o"], ["translate", "train", "--out", "o"]])
def test_quiet_is_progress_none(argv):
    from charwise.cli import build_parser

    parser = build_parser()
    assert progress_mod.progress_mode(parser.parse_args(argv)) == "auto"
    assert progress_mod.progress_mode(parser.parse_args(argv + ["--quiet"])) == "none"
    assert progress_mod.progress_mode(parser.parse_args(argv + ["--progress", "log"])) == "log"


@pytest.mark.parametrize("argv", [["eval", "minilm"], ["stats", "c.txt"], ["expand", "--words", "w", "--out", "o"]])
def test_the_other_long_commands_take_progress(argv):
    from charwise.cli import build_parser

    assert build_parser().parse_args(argv + ["--progress", "none"]).progress == "none"


# --- each long command, in log mode -----------------------------------------------------------------
def train_args(tiny_bert_dir: Path, out: Path, steps: int = 3) -> list[str]:
    return ["train", "--teacher", str(tiny_bert_dir), "--out", str(out), "--preset", "kim-small", "--steps",
            str(steps), "--batch-size", "16", "--eval-every", str(steps), "--checkpoint-every", str(steps),
            "--nbr", "0", "--hard-negatives", "0", "--no-manifold"]


@pytest.mark.slow
def test_train_and_eval_log_their_progress(tmp_path, tiny_bert_dir, log_every_update, capsys):
    run = tmp_path / "run"
    # auto: standard error is not a terminal here, so log lines
    assert main(train_args(tiny_bert_dir, run) + ["--report-words", "50"]) == 0
    err = capsys.readouterr().err
    steps = logged(err, "train")
    assert steps[-1].startswith("charwise: train: 3 of 3 steps (100.0 %)") and "steps/s" in steps[-1]
    assert "loss " in steps[-1]
    final = logged(err, "final evaluation")
    assert " of " in final[-1] and "words/s" in final[-1]
    assert main(["eval", str(run / "encoder"), "--max-words", "50", "--noise-words", "5", "--progress", "log"]) == 0
    lines = logged(capsys.readouterr().err, "eval")
    assert re.search(r"of ([\d,]+) words \(100\.0 %\)", lines[-1]), lines[-1]
    assert main(["eval", str(run / "encoder"), "--max-words", "50", "--noise-words", "5", "--progress", "none"]) == 0
    assert "charwise: eval:" not in capsys.readouterr().err


def test_lm_train_logs_its_steps(tmp_path, log_every_update, capsys):
    rows = ["ref\tes\ten"] + [f"{book} 1:{i + 1}\tY el rey habló.\tAnd the king spake unto {book} {i % 7}."
                              for book, n in (("Genesis", 40), ("Daniel", 10), ("Malachi", 10)) for i in range(n)]
    bible = tmp_path / "bible.tsv"
    bible.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert main(["lm", "train", "--corpus", str(bible), "--preset", "word-small", "--out", str(tmp_path / "lm"),
                 "--epochs", "1", "--batch-size", "2", "--bptt", "10", "--progress", "log"]) == 0
    lines = logged(capsys.readouterr().err, "lm en")
    assert " steps (100.0 %)" in lines[-1] and "steps/s" in lines[-1]


def test_tag_train_logs_its_steps(tmp_path, tiny_bert_dir, log_every_update, capsys):
    assert main(["tag", "train", "--task", "wnut17", "--teacher", str(tiny_bert_dir), "--policy", "none",
                 "--train-sentences", "16", "--dev-sentences", "8", "--epochs", "1", "--batch-size", "4",
                 "--out", str(tmp_path / "t"), "--no-test", "--progress", "log"]) == 0
    lines = logged(capsys.readouterr().err, "tag train")
    assert "of 4 steps" in lines[-1] and "steps/s" in lines[-1]


def test_stats_logs_the_word_types_it_tokenised(tmp_path, tiny_bert_dir, log_every_update, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("".join(f"the house number{i} was quiet\n" for i in range(50)), encoding="utf-8")
    assert main(["stats", str(corpus), "--teacher", str(tiny_bert_dir), "--progress", "log"]) == 0
    lines = logged(capsys.readouterr().err, "stats")
    assert lines[-1].startswith("charwise: stats: 54 of 54 word types (100.0 %)")


def test_expand_logs_the_corpus_lines(tmp_path, tiny_bert_dir, log_every_update, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("zorblax and Zorblax!\nthe bsusinessses of zorblax\n" * 600, encoding="utf-8")
    assert main(["expand", "--teacher", str(tiny_bert_dir), "--corpus", str(corpus), "--method", "mean",
                 "--out", str(tmp_path / "m"), "--progress", "log"]) == 0
    lines = logged(capsys.readouterr().err, "expand")
    assert lines[0].startswith("charwise: expand: 1,000 of 1,200 lines") and " of 1,200 lines (100.0 %)" in lines[-1]


# --- correct: a long line moves window by window ------------------------------------------------------
class WordSpeller:
    """Fixes 'teh'; corrects window by window as the real speller does (see tests/test_workers.py)."""

    def correct_lines(self, texts, starts=None):
        from test_workers import FakeResult, FakeWord

        return [FakeResult(t, [FakeWord(w, "the" if w == "teh" else w) for w in t.split()]) for t in texts]

    @staticmethod
    def sentence_start_after(words, start=True):
        return start


def load_word_speller(mode: str, **options: object):
    return WordSpeller(), mode


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_long_line_shows_progress_window_by_window(tmp_path, monkeypatch, log_every_update, capsys, workers):
    monkeypatch.syspath_prepend(str(HERE))
    monkeypatch.setattr(correct_cli, "SPELLER_LOADER", "test_progress:load_word_speller")
    # a line longer than a worker's chunk: it runs in this process whatever --workers says
    monkeypatch.setattr(correct_cli, "CHUNK_CHARS", 1000)
    path = tmp_path / "one-line.txt"
    path.write_text(" ".join(["teh", "cat", "sat"] * 2000) + "\n", encoding="utf-8")  # 24,000 bytes
    out = tmp_path / "out.txt"
    assert main(["correct", str(path), "--plain", "--max-line-chars", "2000", "--workers", workers,
                 "--progress", "log", "--out", str(out)]) == 0
    lines = logged(capsys.readouterr().err, "correct")
    assert len(lines) >= 10, lines  # one a window, not one for the line
    assert lines[0].startswith("charwise: correct: 0 of 1 lines (") and "about" in lines[0]
    assert lines[-1].startswith("charwise: correct: 1 of 1 lines (24.0 of 24.0 kB, 100.0 %)"), lines[-1]
    written = out.read_text(encoding="utf-8")
    assert written.count("\n") == 1 and "teh" not in written and written.count("the") == 2000


# --- a training run stopped before its first checkpoint ---------------------------------------------
def test_a_train_stopped_before_its_first_checkpoint_resumes_from_step_0(tmp_path, tiny_bert_dir, monkeypatch,
                                                                          capsys):
    run = tmp_path / "run"
    args = train_args(tiny_bert_dir, run) + ["--no-report", "--quiet"]

    def interrupted(self, task):
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(Engine, "_checkpoint", interrupted)
        assert main(args) == 130
    assert "--resume" in capsys.readouterr().err
    assert (run / "train_config.json").is_file() and not (run / CHECKPOINT_DIR).exists()
    assert main(args) == 2  # a new run into the same folder is still refused, saying how to go on
    assert "already holds a run; resume it" in capsys.readouterr().err
    assert main(args + ["--resume"]) == 0
    err = capsys.readouterr().err
    assert "has no checkpoint yet (the run stopped before its first one): starting it over from step 0" in err
    state = json.loads((run / CHECKPOINT_DIR / "state.json").read_text())
    assert state["step"] == 3 and (run / "encoder").is_dir()
    steps = [json.loads(line)["step"] for line in (run / LOG_FILE).read_text().splitlines()]
    assert steps == sorted(steps) and steps[-1] == 3  # the stopped run's records were dropped


def test_the_engine_starts_over_only_the_same_configuration(tmp_path):
    from test_engine import ToyTask, toy_engine

    out = tmp_path / "run"
    with pytest.raises(RuntimeError, match="killed"):  # step 2 of 10, checkpoints every 3 steps
        toy_engine(out, task := ToyTask(crash_at=2), progress="log").run(task)
    assert not (out / CHECKPOINT_DIR).exists()
    with pytest.raises(ConfigError, match="different configuration and no checkpoint"):
        toy_engine(out, task := ToyTask(), config={"lr": 2}).run(task, resume=True)
    resumed = toy_engine(out, task := ToyTask()).run(task, resume=True)
    straight = toy_engine(tmp_path / "straight", task := ToyTask()).run(task)
    assert resumed.step == straight.step == 10 and resumed.best == straight.best
    with pytest.raises(CheckpointError, match="nothing to resume"):  # an empty folder has nothing to resume
        toy_engine(tmp_path / "empty", task := ToyTask()).run(task, resume=True)


def test_no_progress_lines_in_none_mode(tmp_path, log_every_update, capsys):
    from test_engine import ToyTask, toy_engine

    toy_engine(tmp_path / "a", task := ToyTask(), progress="none").run(task)
    assert "charwise:" not in capsys.readouterr().err
    toy_engine(tmp_path / "b", task := ToyTask(), progress="log").run(task)
    assert logged(capsys.readouterr().err, "train")[-1].startswith("charwise: train: 10 of 10 steps (100.0 %)")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-p", "no:xdist"]))
