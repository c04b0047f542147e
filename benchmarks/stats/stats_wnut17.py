"""How badly do the two built-in teachers shatter WNUT 2017 (noisy user-generated English)?

Writes benchmarks/results/stats_wnut17.json (one object per teacher) and stats_wnut17.png.
Run: HF_HUB_OFFLINE=1 PYTHONPATH=src python -m benchmarks.stats.stats_wnut17
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.common.paths import RESULTS, ROOT
from benchmarks.common.report import write_result
from benchmarks.stats.render import render_stats as render  # noqa: F401  (make_results reads it)
from charwise.corpora import read_sentences  # noqa: E402
from charwise.corpora.stats import corpus_stats, format_table, plot_stats  # noqa: E402
from charwise.io import data_root  # noqa: E402
from charwise.teachers import Teacher  # noqa: E402

WRITES = ("stats_wnut17",)
PAGE = "stats.md"
COMMANDS: dict[str, list[str]] = {
    "stats_wnut17": [
        "python -m benchmarks.stats.stats_wnut17",
    ],
}

CORPUS = data_root() / "wnut17" / "wnut17train.conll"
OUT = RESULTS


def run_stats(sentences: list[list[str]], corpus: str, teachers: tuple[str, ...]) -> list[dict]:
    """Statistics of ``sentences`` under each teacher, one object per teacher."""
    results = []
    for name in teachers:
        teacher = Teacher.load(name)
        t0 = time.perf_counter()
        r = corpus_stats(teacher, sentences, corpus=corpus)
        r["seconds"] = round(time.perf_counter() - t0, 3)
        results.append(r)
    return results


def write_stats(results: list[dict], stem: str) -> None:
    """``results`` to benchmarks/results/STEM.json and .png, and their table on stdout."""
    print(format_table(results))
    write_result(OUT / f"{stem}.json", results, plot_stats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    write_stats(run(parser.parse_args()), "stats_wnut17")  # no options: the parser answers --help


def run(args: argparse.Namespace) -> list[dict]:
    """The WNUT17 training sentences under MiniLM and SmolLM2 (the result is a list: one object per teacher)."""
    sentences = read_sentences(CORPUS, comments=True)  # the published convention: "#" lines are comments
    return run_stats(sentences, str(CORPUS.relative_to(ROOT)), ("minilm", "smollm2"))


if __name__ == "__main__":
    main()
