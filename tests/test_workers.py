"""Many cores: ``--workers``, ``--progress`` and ``--resume`` (charwise.parallel, charwise.cli.workers,
charwise.cli.progress, charwise.io.resumable).

Worker processes import what they run by name, so these tests give them a stand-in speller defined
here (no model: each test takes a second or two, most of it the worker processes' start); the
shipped speller is compared across worker counts in a test marked ``real``.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

import charwise.cli.correct as correct_cli
import charwise.cli.encoder as encoder_cli
import charwise.cli.progress as progress_mod
from charwise.cli import main
from charwise.errors import CharwiseError, ConfigError
from charwise.io import partial_paths, resumable_output
from charwise.parallel import Job, WorkerPool, ordered_results

HERE = Path(__file__).resolve().parent
FAKE_LOADER = "test_workers:load_fake_speller"
FIXES = {"teh": "the", "recieve": "receive", "pakage": "package"}


# --- a stand-in speller, importable by the worker processes -------------------------------------------
@dataclass
class FakeWord:
    word: str
    correction: str

    @property
    def changed(self) -> bool:
        return self.word != self.correction


@dataclass
class FakeResult:
    text: str
    words: list[FakeWord] = field(default_factory=list)

    @property
    def corrected(self) -> str:
        return " ".join(w.correction for w in self.words)

    def marked(self) -> str:
        return " ".join(f"[{w.word} -> {w.correction}]" if w.changed else w.word for w in self.words)

    def to_dict(self) -> dict:
        return {"text": self.text, "corrected": self.corrected, "words": []}


class FakeSpeller:
    """Corrects three misspellings; sleeps ``delay`` seconds a call, so that a run can be killed midway."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay

    def correct_lines(self, texts: list[str], starts: object = None) -> list[FakeResult]:
        time.sleep(self.delay)
        return [FakeResult(t, [FakeWord(w, FIXES.get(w, w)) for w in t.split()]) for t in texts]

    @staticmethod
    def sentence_start_after(words: list[str], start: bool = True) -> bool:
        return start


def load_fake_speller(mode: str, **options: object) -> tuple[FakeSpeller, str]:
    return FakeSpeller(float(os.environ.get("FAKE_SPELLER_DELAY", "0"))), mode


def load_offset(offset: int) -> int:
    return offset


def add_offset_slowly(offset: int, chunk: list[int]) -> list[int]:
    time.sleep(0.05 if chunk[0] % 2 else 0.0)  # odd chunks finish after the even ones that follow them
    return [x + offset for x in chunk]


def load_marks(offset: int) -> dict:
    return {"offset": offset, "warm": False}


def warm_marks(state: dict) -> None:
    state["warm"] = True


def report_marks(state: dict, chunk: list[int]) -> list[tuple[bool, bool]]:
    import gc

    return [(state["warm"], gc.get_freeze_count() > 0) for _ in chunk]


def lines_file(tmp_path: Path, count: int) -> Path:
    words = ["teh", "cat", "will", "recieve", "a", "pakage", "today", "ok"]
    path = tmp_path / "in.txt"
    path.write_text("".join(" ".join(words[(i + k) % len(words)] for k in range(i % 5 + 1)) + f" {i}\n"
                            for i in range(count)), encoding="utf-8")
    return path


@pytest.fixture
def fake_speller(monkeypatch):
    monkeypatch.setattr(correct_cli, "SPELLER_LOADER", FAKE_LOADER)
    monkeypatch.syspath_prepend(str(HERE))  # the forkserver and its workers import this module by name


# --- the pool ----------------------------------------------------------------------------------------
def test_results_come_back_in_input_order(monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))
    chunks = [[2 * i, 2 * i + 1] for i in range(12)]
    job = Job("test_workers:load_offset", "test_workers:add_offset_slowly", {"offset": 100})
    expected = [[x + 100 for x in chunk] for chunk in chunks]
    assert list(ordered_results(job, iter(chunks), 1)) == expected
    assert list(ordered_results(job, iter(chunks), 2)) == expected


def add_offset_or_fail(offset: int, chunk: list[int]) -> list[int]:
    if chunk[0] < 0:
        raise ValueError(f"bad chunk {chunk}")
    return [x + offset for x in chunk]


def test_a_worker_pool_serves_many_runs_until_closed(monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))
    chunks = [[2 * i, 2 * i + 1] for i in range(6)]
    with WorkerPool(Job("test_workers:load_offset", "test_workers:add_offset_or_fail", {"offset": 10}), 2) as pool:
        first = list(pool.map(iter(chunks)))
        with pytest.raises(ValueError, match=r"bad chunk \[-1\]"):  # a worker's error reaches the caller ...
            list(pool.map(iter([[1], [-1], [3]])))
        assert list(pool.map(iter(chunks))) == first == [[x + 10 for x in c] for c in chunks]  # ... the pool stays
        early = pool.map(iter(chunks))
        assert next(early) == [10, 11]
        early.close()  # a run left early cancels what it queued; the next one is whole
        assert list(pool.map(iter(chunks[:2]))) == first[:2]
    with pytest.raises(CharwiseError, match="closed"):
        next(pool.map(iter(chunks)))
    for bad in (0, True, "2"):
        with pytest.raises(ConfigError, match="workers must be a positive integer"):
            WorkerPool(Job("test_workers:load_offset", "test_workers:add_offset_or_fail"), bad)


def test_the_shared_state_is_warmed_and_frozen_before_the_workers_fork():
    # a fresh process: the forkserver, and what it preloads, starts once per process; the server
    # finds this module through PYTHONPATH (it imports its preloads before taking the parent's sys.path)
    script = ("from charwise.parallel import Job, ordered_results, usable_cores\n"
              "job = Job('test_workers:load_marks', 'test_workers:report_marks', {'offset': 1},"
              " warm='test_workers:warm_marks')\n"
              "print(list(ordered_results(job, iter([[1], [2], [3]]), usable_cores())))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    from charwise.parallel import usable_cores

    if usable_cores() < 2:  # everything ran in the one process: nothing preloaded
        assert out.stdout.strip() == "[[(False, False)], [(False, False)], [(False, False)]]"
    else:  # each worker got the forkserver's warmed state, frozen out of the collector's reach
        assert out.stdout.strip() == "[[(True, True)], [(True, True)], [(True, True)]]"


def test_two_workers_write_the_bytes_one_does(tmp_path, fake_speller, capsys):
    path = lines_file(tmp_path, 700)  # three chunks of lines: the pool starts
    outputs = {}
    for workers in (1, 2):
        out = tmp_path / f"out{workers}.txt"
        assert main(["correct", str(path), "--out", str(out), "--workers", str(workers), "--progress", "none"]) == 0
        outputs[workers] = out.read_bytes()
        assert not partial_paths(out)[0].exists() and not partial_paths(out)[1].exists()
    assert outputs[1] == outputs[2]
    lines = outputs[2].decode().splitlines()
    assert len(lines) == 700 and [line.split()[-1] for line in lines] == [str(i) for i in range(700)]
    assert "[teh -> the]" in lines[0]
    assert main(["correct", str(path), "--workers", "2", "--plain"]) == 0  # standard output, in order too
    printed = capsys.readouterr().out.splitlines()
    assert [line.split()[-1] for line in printed] == [str(i) for i in range(700)] and "teh" not in printed[0]


# --- resuming a killed run ---------------------------------------------------------------------------
def _run_correct(args: list[str], delay: float) -> subprocess.Popen:
    code = ("import sys\nimport charwise.cli.correct as c\n"
            f"c.SPELLER_LOADER = {FAKE_LOADER!r}\n"
            "from charwise.cli import main\nsys.exit(main(sys.argv[1:]))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
           "FAKE_SPELLER_DELAY": str(delay)}
    return subprocess.Popen([sys.executable, "-c", code, "correct", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_killed_run_keeps_what_it_finished_and_resumes(tmp_path, fake_speller, workers):
    path = lines_file(tmp_path, 2000)
    full = tmp_path / "full.txt"
    assert main(["correct", str(path), "--out", str(full), "--workers", "1", "--progress", "none"]) == 0
    out = tmp_path / "out.txt"
    partial, record = partial_paths(out)
    run = _run_correct([str(path), "--out", str(out), "--workers", str(workers), "--progress", "none"], 0.1)
    deadline = time.time() + 60
    while time.time() < deadline and (not partial.exists() or partial.read_bytes().count(b"\n") < 300):
        time.sleep(0.02)
    os.killpg(run.pid, signal.SIGKILL)  # the command and its workers
    run.communicate()
    kept = partial.read_bytes()
    assert not out.exists() and record.exists()
    assert 300 <= kept.count(b"\n") < 2000 and full.read_bytes().startswith(kept[: kept.rfind(b"\n") + 1])
    # without --resume the partial output is refused, not overwritten
    refused = _run_correct([str(path), "--out", str(out)], 0)
    _, err = refused.communicate(timeout=60)
    assert refused.returncode == 2 and "pass --resume" in err.decode() and partial.read_bytes() == kept
    resumed = _run_correct([str(path), "--out", str(out), "--workers", str(workers), "--resume"], 0)
    _, err = resumed.communicate(timeout=60)
    assert resumed.returncode == 0, err.decode()
    assert out.read_bytes() == full.read_bytes() and not partial.exists() and not record.exists()


def test_resume_refuses_another_input_or_options(tmp_path, fake_speller, capsys):
    path = lines_file(tmp_path, 10)
    out = tmp_path / "out.txt"
    with pytest.raises(KeyboardInterrupt):  # an interrupted run, as a kill leaves it
        with resumable_output(out, {"not": "the same"}) as partial:
            partial.write("teh 0\n")
            raise KeyboardInterrupt
    assert main(["correct", str(path), "--out", str(out), "--resume", "--workers", "1"]) == 2
    assert "another input or with other options" in capsys.readouterr().err
    assert main(["correct", "--text", "teh", "--resume"]) == 2
    assert "--resume" in capsys.readouterr().err


def test_embed_resumes_whole_chunks_of_rows(tmp_path, make_encoder, monkeypatch, capsys, interrupt_at):
    """An interrupted ``embed`` keeps its rows; resumed, the matrix is the one an uninterrupted run writes."""
    make_encoder("cnn").save_pretrained(tmp_path / "enc")
    monkeypatch.setattr(encoder_cli, "EMBED_BLOCK", 8)
    words = tmp_path / "words.txt"
    words.write_text("\n".join(f"w{i}rd" for i in range(50)) + "\n", encoding="utf-8")
    argv = ["embed", str(words), "--encoder", str(tmp_path / "enc"), "--workers", "1", "--progress", "none"]
    assert main([*argv, "--out", str(tmp_path / "full.npy")]) == 0
    embed_chunk = interrupt_at(encoder_cli, "embed_chunk", 4)
    out = tmp_path / "out.npy"
    assert main([*argv, "--out", str(out)]) == 130  # interrupted
    assert "--resume" in capsys.readouterr().err
    partial = partial_paths(out)[0]
    assert not out.exists() and (partial.stat().st_size - 128) // (4 * 16) == 24
    with open(partial, "ab") as f:
        f.write(b"\0" * 70)  # a row and a bit of a chunk cut short by a kill: dropped on resume
    monkeypatch.setattr(encoder_cli, "embed_chunk", embed_chunk)
    assert main([*argv, "--out", str(out), "--resume"]) == 0
    np.testing.assert_array_equal(np.load(out), np.load(tmp_path / "full.npy"))
    assert np.load(out).shape == (50, 16) and not partial.exists()


def test_partial_text_output_keeps_whole_lines(tmp_path):
    out = tmp_path / "out.txt"
    partial, _ = partial_paths(out)
    with pytest.raises(KeyboardInterrupt):
        with resumable_output(out, {"a": 1}) as output:
            output.write("one\ntwo\nthr")
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        with resumable_output(out, {"a": 1}, resume=True) as output:
            assert output.done == 2 and partial.read_bytes() == b"one\ntwo\n"
            output.keep(1)
            assert output.done == 1 and partial.read_bytes() == b"one\n"
            raise KeyboardInterrupt
    with resumable_output(out, {"a": 1}, resume=True) as output:
        assert output.done == 1
        output.write("2\n")
    assert out.read_bytes() == b"one\n2\n"


# --- progress ----------------------------------------------------------------------------------------
def test_progress_log_lines_on_a_file(tmp_path, fake_speller, monkeypatch, capsys):
    stream = io.StringIO()  # not a terminal: auto is log
    progress = progress_mod.Progress("correct", "lines", 20_000, "auto", done=1000, stream=stream)
    progress.started -= 10
    line = progress.line()
    assert progress.mode == "log" and line.startswith("charwise: correct: 1,000 of 20,000 lines (5.0 %)")
    progress.done += 5000
    assert "500 lines/s, about 28 s left" in progress.line()
    monkeypatch.setattr(progress_mod, "LOG_EVERY", 0.0)
    path = lines_file(tmp_path, 600)
    assert main(["correct", str(path), "--workers", "2", "--progress", "log", "--out", str(tmp_path / "o")]) == 0
    logged = [line for line in capsys.readouterr().err.splitlines() if line.startswith("charwise: correct:")]
    assert logged and all(" of 600 lines (" in line and "lines/s" in line for line in logged)
    assert main(["correct", str(path), "--workers", "1", "--progress", "none", "--out", str(tmp_path / "o2")]) == 0
    assert "charwise: correct:" not in capsys.readouterr().err


# --- inputs checked before anything loads or is written ------------------------------------------------
@pytest.fixture
def no_loading(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a model was loaded")

    monkeypatch.setattr(correct_cli, "load_speller", refuse)
    monkeypatch.setattr("charwise.cli.hybrid.load_sentence_encoder", refuse)
    monkeypatch.setattr(encoder_cli, "load_embedder", refuse)


@pytest.mark.parametrize("command", [["correct", "{file}"], ["correct", "{file}", "--out", "{out}"],
                                     ["encode", "{file}", "--out", "{out}"], ["embed", "{file}", "--out", "{out}"]],
                         ids=lambda c: " ".join(c[:3:2]))
@pytest.mark.parametrize("content, message", [
    (b"fine first line\nbad \xe9 second\nthird\n", "line 2: not UTF-8 text (invalid continuation byte at byte 4"),
    (b"text\n" * 3000 + b"\x00\x01\x02binary", "line 3001: a NUL byte (byte 0 of the line): a binary file"),
], ids=["utf8-line-2", "binary"])
def test_a_bad_input_fails_before_loading_or_writing(tmp_path, capsys, no_loading, command, content, message):
    path = tmp_path / "in.txt"
    path.write_bytes(content)
    out = tmp_path / "out"
    assert main([part.format(file=path, out=out) for part in command]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and message in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt"]


@pytest.mark.parametrize("command", [["tag", "predict", "{tagger}", "{file}"], ["stats", "{file}"]],
                         ids=["tag predict", "stats"])
def test_every_command_that_reads_text_refuses_a_binary_file_first(tmp_path, capsys, command):
    """The whole file is scanned before any model loads (the tagger directory here does not even exist)."""
    path = tmp_path / "in.txt"
    path.write_bytes(b"text\n" * 3000 + b"\x00\x01\x02binary")
    assert main([part.format(file=path, tagger=tmp_path / "no-tagger") for part in command]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "line 3001: a NUL byte (byte 0 of the line): a binary file" in captured.err


@pytest.mark.parametrize("argv, message", [
    (["encode", "{file}", "--out", "{out}", "--policy", "bogus"], "unknown policy 'bogus'"),
    (["encode", "{file}", "--out", "{out}", "--policy", "repair:xx"], "no speller lexicon for language 'xx'"),
    (["encode", "{file}", "--out", "{out}", "--workers", "0"], "--workers must be >= 1, got 0"),
    (["encode", "{file}", "--out", "{out}", "--prepare-workers", "-1"], "--prepare-workers must be >= 0"),
    (["encode", "{file}", "--out", "{out}", "--policy", "none", "--prepare-workers", "2", "--workers", "1"],
     "policy 'none' has none"),
    (["encode", "{file}", "--out", "{out}", "--prepare-workers", "2", "--workers", "2"],
     "--prepare-workers goes with --workers 1"),
    (["encode", "{file}", "--out", "{out}", "--device", "nowhere"], "unknown device 'nowhere'"),
    (["embed", "{file}", "--out", "{out}", "--batch-size", "0"], "--batch-size must be >= 1"),
    (["correct", "{file}", "--workers", "-1"], "--workers must be >= 1"),
    (["correct", "{file}", "--resume"], "--resume continues an interrupted --out FILE"),
    (["correct", "-", "--out", "{out}", "--resume"], "--resume needs an input file"),
    (["correct", "{file}", "--threshold", "nan"], "--threshold must be in [0, 1]"),
    (["correct", "{file}", "--context", "smollm2", "--device", "cuda:0", "--workers", "2"],
     "--device cuda:0 runs in one process"),
])
def test_bad_options_fail_before_loading_or_writing(tmp_path, capsys, no_loading, argv, message):
    path = lines_file(tmp_path, 3)
    assert main([part.format(file=path, out=tmp_path / "out") for part in argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and message in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt"]


def test_a_bogus_policy_is_refused_without_torch(tmp_path):
    """``encode --policy bogus`` answers in the time of a Python start, not after torch's import."""
    path = lines_file(tmp_path, 3)
    code = ("import sys\nfrom charwise.cli import main\ncode = main(sys.argv[1:])\n"
            "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))\nsys.exit(code)")
    result = subprocess.run([sys.executable, "-c", code, "encode", str(path), "--out", str(tmp_path / "o.npy"),
                             "--policy", "bogus"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stdout.splitlines() == ["[]"]
    assert result.stderr.count("\n") == 1 and "unknown policy 'bogus'" in result.stderr


# --- the shipped speller -----------------------------------------------------------------------------
@pytest.mark.real
def test_shipped_speller_two_workers_write_what_one_writes(tmp_path):
    from charwise.io import data_root

    tweets = (data_root() / "wnut17" / "raw_text" / "gurez.10000").read_text(encoding="utf-8").splitlines()[:600]
    path = tmp_path / "tweets.txt"
    path.write_text("\n".join(tweets) + "\n", encoding="utf-8")
    outputs = []
    for workers in (1, 2):
        out = tmp_path / f"out{workers}.txt"
        assert main(["correct", str(path), "--out", str(out), "--workers", str(workers), "--progress", "none"]) == 0
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] and outputs[0].count(b"\n") == 600


@pytest.mark.real  # the shipped speller, in two processes beside the model's
def test_encode_with_prepare_workers_writes_the_vectors_of_one_process(tmp_path, tiny_bert_dir):
    from charwise.io import data_root

    tweets = (data_root() / "wnut17" / "raw_text" / "gurez.10000").read_text(encoding="utf-8").splitlines()[:300]
    path = tmp_path / "tweets.txt"
    path.write_text("\n".join(tweets) + "\n", encoding="utf-8")
    vectors = []
    for prepare in ("0", "2"):
        out = tmp_path / f"out{prepare}.npy"
        assert main(["encode", str(path), "--out", str(out), "--teacher", str(tiny_bert_dir), "--max-length", "64",
                     "--device", "cpu", "--workers", "1", "--prepare-workers", prepare, "--progress", "none"]) == 0
        vectors.append(np.load(out))
    assert vectors[0].shape == (300, 16) and np.array_equal(vectors[0], vectors[1])


def _processes_with(marker: str) -> list[int]:
    """The processes whose environment holds ``marker`` (a run's own, and every process it started)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:  # ended meanwhile, or not ours to read
                pass
    return found


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads processes through /proc (Linux)")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_a_run_killed_by_pid_leaves_no_process(tmp_path, fake_speller, monkeypatch, signum):
    marker = f"CHARWISE_TEST_RUN={os.getpid()}-{signum}-{time.time_ns()}"
    monkeypatch.setenv(*marker.split("=", 1))
    path = lines_file(tmp_path, 3000)
    out = tmp_path / "out.txt"
    partial, _ = partial_paths(out)
    run = _run_correct([str(path), "--out", str(out), "--workers", "2", "--progress", "none"], 0.1)
    deadline = time.time() + 60
    while time.time() < deadline and (not partial.exists() or partial.read_bytes().count(b"\n") < 300):
        time.sleep(0.02)
    assert len(_processes_with(marker)) >= 4  # the command, the forkserver, two workers (and the tracker)
    os.kill(run.pid, signum)  # the command alone, as `kill PID` does: not its process group
    _, err = run.communicate(timeout=30)
    deadline = time.time() + 10
    while _processes_with(marker) and time.time() < deadline:
        time.sleep(0.1)
    assert _processes_with(marker) == []
    kept = partial.read_bytes()
    assert kept.count(b"\n") >= 300 and not out.exists()
    if signum == signal.SIGTERM:  # handled as Ctrl-C is: a one-line message, the partial output kept
        assert run.returncode == 143
        assert err.decode().strip().splitlines()[-1].startswith("charwise: stopped by SIGTERM")
    else:
        assert run.returncode == -signal.SIGKILL


def load_thread_count(unused: int = 0) -> int:
    return unused


def report_thread_counts(state: int, chunk: list[int]) -> list[int]:
    from threadpoolctl import threadpool_info

    counts = [pool["num_threads"] for pool in threadpool_info()]
    return [max(counts, default=1) for _ in chunk]


def test_a_second_pool_sets_its_own_threads(monkeypatch):
    """The forkserver, one per process, was started by the first pool with its settings; a later pool's
    workers still get their own share of the cores."""
    monkeypatch.syspath_prepend(str(HERE))
    pytest.importorskip("threadpoolctl")
    job = Job("test_workers:load_thread_count", "test_workers:report_thread_counts")
    chunks = [[i] for i in range(4)]
    with WorkerPool(job, 2, threads=1) as pool:
        first = [n for part in pool.map(iter(chunks)) for n in part]
    with WorkerPool(job, 2, threads=2) as pool:
        second = [n for part in pool.map(iter(chunks)) for n in part]
    assert set(first) == {1} and set(second) == {2}


@pytest.mark.parametrize("load, expected", [(0.0, 4), (0.4, 4), (1.6, 2), (3.9, 1), (12.0, 1)])
def test_the_default_worker_count_leaves_busy_cores_out(monkeypatch, load, expected):
    import charwise.parallel as parallel

    monkeypatch.setattr(parallel, "usable_cores", lambda: 4)
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (load, 0.0, 0.0))
    assert parallel.default_workers() == expected
    args = __import__("argparse").Namespace(workers=None)
    from charwise.cli.workers import check_worker_options

    check_worker_options(args)
    assert args.workers == expected


def test_prepare_workers_are_sized_to_the_machine_only_on_a_gpu(monkeypatch):
    """``prepare_workers="auto"``: 0 on a CPU; on a GPU every usable core but the model's process."""
    import charwise.hybrid.sentence as sentence

    class Parameter:
        def __init__(self, kind: str) -> None:
            self.device = type("Device", (), {"type": kind})()

    encoder = object.__new__(sentence.SentenceEncoder)
    policy = object.__new__(sentence.RepairPolicy)
    policy.speller_given = False
    monkeypatch.setattr(sentence.SentenceEncoder, "policy", property(lambda self: policy))
    monkeypatch.setattr(sentence, "usable_cores", lambda: 16)
    for kind, expected in (("cpu", 0), ("cuda", 15)):
        encoder.module = type("Module", (), {"parameters": lambda self, kind=kind: iter([Parameter(kind)])})()
        assert encoder._sized_to_machine() == expected
    policy.speller_given = True  # a speller of the caller's lives in this process only
    assert encoder._sized_to_machine() == 0
