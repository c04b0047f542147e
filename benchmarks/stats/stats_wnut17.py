"""How badly do the two built-in teachers shatter WNUT 2017 (noisy user-generated English)?

Writes benchmarks/results/stats_wnut17.json (one object per teacher) and stats_wnut17.png.
Run: HF_HUB_OFFLINE=1 PYTHONPATH=src python -m benchmarks.stats.stats_wnut17
"""

from __future__ import annotations

import json
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.common.paths import RESULTS, ROOT
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


def run_stats(sentences: list[list[str]], corpus: str, teachers: tuple[str, ...], stem: str) -> None:
    """Statistics of ``sentences`` under each teacher, written to benchmarks/results/STEM.json and .png."""
    results = []
    for name in teachers:
        teacher = Teacher.load(name)
        t0 = time.perf_counter()
        r = corpus_stats(teacher, sentences, corpus=corpus)
        r["seconds"] = round(time.perf_counter() - t0, 3)
        results.append(r)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{stem}.json").write_text(json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")
    plot_stats(results, OUT / f"{stem}.png")
    print(format_table(results))
    print(f"written {OUT / (stem + '.json')} and {OUT / (stem + '.png')}")


def main() -> None:
    sentences = read_sentences(CORPUS, comments=True)  # the published convention: "#" lines are comments
    run_stats(sentences, str(CORPUS.relative_to(ROOT)), ("minilm", "smollm2"), "stats_wnut17")


if __name__ == "__main__":
    main()
