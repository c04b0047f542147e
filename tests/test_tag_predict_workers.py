"""``charwise tag predict --workers N --progress MODE --resume`` (charwise.cli.tag_predict): the same
bytes whatever the number of workers, a progress line with its total, a resumed ``--out`` that
is the output of an uninterrupted run.

The taggers are untrained tiny BERTs (built, not trained: a second each); the batches are made
small, so that a few lines make several of them and the worker pool starts.
"""

from __future__ import annotations

import pytest

import charwise.cli.progress as progress_mod
import charwise.cli.tag_predict as predict_cli
from charwise.cli import main
from charwise.io import partial_paths

SENTENCES = ["the cat sat on the mat", "I love Paris !", "", "hello world", "the cat sat on the mat",
             "New York is big", "", "", "a dog", "teh pakage will arrive tomorow", "ok", "the end"]


@pytest.fixture(scope="module")
def taggers(tmp_path_factory, tiny_bert_dir):
    """``(plain tagger, tagger that reads the lemma column)`` directories."""
    from charwise.tagging import TaggerConfig
    from charwise.tagging.model import build_tagger
    from charwise.tagging.s2w import FeatureVocab
    from charwise.teachers import Teacher

    root = tmp_path_factory.mktemp("taggers")
    plain = TaggerConfig(task="toy", teacher=str(tiny_bert_dir), policy="none", pool="first", seed=1)
    build_tagger(plain, ["A", "B", "C"], teacher=Teacher.load(str(tiny_bert_dir))).save(root / "plain")
    lemma = TaggerConfig(task="toy", teacher=str(tiny_bert_dir), policy="none", pool="first", seed=2,
                         feature="lemma", feature_mode="copy")
    vocab = FeatureVocab.build(" ".join(SENTENCES).lower().split(), min_count=1)
    build_tagger(lemma, ["A", "B", "C"], vocab, teacher=Teacher.load(str(tiny_bert_dir))).save(root / "lemma")
    return root / "plain", root / "lemma"


@pytest.fixture
def small_batches(monkeypatch):
    """Batches of 3 pieces (so several batches and the pool), and the worker counts the pool ran with."""
    monkeypatch.setattr(predict_cli, "BATCH_PIECES", 3)
    pools, ordered_results = [], predict_cli.ordered_results

    def counted(job, chunks, workers):
        pools.append(workers)
        return ordered_results(job, chunks, workers)

    monkeypatch.setattr(predict_cli, "ordered_results", counted)
    return pools


def text_file(tmp_path):
    path = tmp_path / "in.txt"
    long = " ".join(["the", "cat", "sat", "down"][i % 4] for i in range(1100))  # three pieces of the window
    path.write_text("\n".join(SENTENCES[:5] + [long] + SENTENCES[5:]) + "\n\n", encoding="utf-8")
    return path


def conllu_file(tmp_path):
    path = tmp_path / "in.conllu"
    blocks = []
    for n, sentence in enumerate(s for s in SENTENCES if s):
        rows = [f"{i}\t{w}\t{w.lower()}\tX\t_\t_\t0\tdep\t_\t_" for i, w in enumerate(sentence.split(), 1)]
        blocks.append(f"# sent_id = {n}\n" + "\n".join(rows) + "\n")
    path.write_text("\n".join(blocks) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["text", "conllu"])
def test_two_workers_write_the_bytes_one_does(tmp_path, taggers, small_batches, capsys, kind):
    tagger, path = (taggers[0], text_file(tmp_path)) if kind == "text" else (taggers[1], conllu_file(tmp_path))
    outputs = {}
    for workers in (1, 2):
        out = tmp_path / f"out{workers}.conll"
        assert main(["tag", "predict", str(tagger), str(path), "--out", str(out), "--workers", str(workers),
                     "--progress", "none"]) == 0
        outputs[workers] = out.read_bytes()
        assert not partial_paths(out)[0].exists()
    assert small_batches == [2]  # the second run went through the pool
    assert outputs[1] == outputs[2]
    blocks = outputs[2].decode().split("\n\n")
    assert blocks[-1] == ""
    words = [[row.split("\t")[0] for row in block.split("\n")] for block in blocks[:-1]]
    expected = [line.split() for line in path.read_text().splitlines() if line.strip()] if kind == "text" else \
        [s.split() for s in SENTENCES if s]
    assert words == expected
    assert {row.split("\t")[1] for block in blocks[:-1] for row in block.split("\n")} <= {"A", "B", "C"}
    err = capsys.readouterr().err
    assert f"{len(expected)} sentences tagged" in err
    assert ("1 sentences had more than" in err) == (kind == "text")
    # standard output: the same bytes
    assert main(["tag", "predict", str(tagger), str(path), "--workers", "2", "--progress", "none"]) == 0
    assert capsys.readouterr().out.encode() == outputs[1]


@pytest.mark.parametrize("kind, total", [("text", "14 lines"), ("conllu", "9 sentences")])
def test_progress_log_has_the_total(tmp_path, taggers, small_batches, monkeypatch, capsys, kind, total):
    monkeypatch.setattr(progress_mod, "LOG_EVERY", 0.0)
    tagger, path = (taggers[0], text_file(tmp_path)) if kind == "text" else (taggers[1], conllu_file(tmp_path))
    assert main(["tag", "predict", str(tagger), str(path), "--workers", "1", "--progress", "log",
                 "--out", str(tmp_path / "o.conll")]) == 0
    logged = [line for line in capsys.readouterr().err.splitlines() if line.startswith("charwise: tag predict:")]
    assert len(logged) >= 3 and all(f" of {total} (" in line and "/s" in line for line in logged)
    # the last line: all done (plain text's blank lines at the end too)
    assert logged[-1].startswith(f"charwise: tag predict: {total.split()[0]} of {total} (100.0 %)")


@pytest.mark.parametrize("argv, message", [
    (["--workers", "0"], "--workers must be >= 1, got 0"),
    (["--workers", "2", "--device", "cuda"], "--device cuda runs in one process"),
    (["--resume"], "--resume continues an interrupted --out FILE"),
])
def test_bad_worker_options_fail_before_loading(tmp_path, capsys, argv, message):
    path = tmp_path / "in.txt"
    path.write_text("the cat\n", encoding="utf-8")
    assert main(["tag", "predict", str(tmp_path / "no-tagger"), str(path), *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and message in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt"]


def test_a_resumed_output_is_the_uninterrupted_one(tmp_path, taggers, small_batches, monkeypatch, capsys,
                                                    interrupt_at):
    path = text_file(tmp_path)
    argv = ["tag", "predict", str(taggers[0]), str(path), "--workers", "1", "--progress", "none"]
    full = tmp_path / "full.conll"
    assert main([*argv, "--out", str(full)]) == 0
    tag_chunk = interrupt_at(predict_cli, "tag_chunk", 3)
    out = tmp_path / "out.conll"
    assert main([*argv, "--out", str(out)]) == 130
    partial = partial_paths(out)[0]
    kept = partial.read_bytes()
    assert not out.exists() and kept and full.read_bytes().startswith(kept) and len(kept) < full.stat().st_size
    with open(partial, "ab") as f:
        f.write(b"bogus\tA\nbogus\tB\nbog")  # lines of a batch cut short by a kill: tagged again
    monkeypatch.setattr(predict_cli, "tag_chunk", tag_chunk)
    capsys.readouterr()
    assert main([*argv, "--out", str(out), "--format", "conll", "--resume"]) == 2  # other options: refused
    assert "another input or with other options" in capsys.readouterr().err
    assert main([*argv, "--out", str(out), "--resume"]) == 0
    assert out.read_bytes() == full.read_bytes() and not partial.exists()
    assert "(resumed after 5 lines)" in capsys.readouterr().err  # two batches, the second in the long line
