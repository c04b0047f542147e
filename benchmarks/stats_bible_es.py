"""How do the built-in teachers shatter Spanish (Reina-Valera 1909)? Wang et al.'s table 2 for the
multilingual teacher: the share of word tokens that are out of its vocabulary (split into several
pieces) and the pieces per word, beside the two English teachers.

Writes benchmarks/results/stats_bible_es.json (one object per teacher) and stats_bible_es.png.
Run: HF_HUB_OFFLINE=1 PYTHONPATH=src python benchmarks/stats_bible_es.py
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from charwise.stats import corpus_stats, format_table, plot_stats  # noqa: E402
from charwise.teachers import Teacher  # noqa: E402
from charwise.translation.data import read_pairs, source_words  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results"


def main() -> None:
    sentences = [source_words(p.source) for p in read_pairs()]  # every Spanish verse, punctuation separate
    results = []
    for name in ("e5-multilingual", "minilm", "smollm2"):
        teacher = Teacher.load(name)
        t0 = time.perf_counter()
        r = corpus_stats(teacher, sentences, corpus="src/charwise/data/bible_es_en/bible.es-en.tsv (es)")
        r["seconds"] = round(time.perf_counter() - t0, 3)
        results.append(r)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "stats_bible_es.json").write_text(json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")
    plot_stats(results, OUT / "stats_bible_es.png")
    print(format_table(results))


if __name__ == "__main__":
    main()
