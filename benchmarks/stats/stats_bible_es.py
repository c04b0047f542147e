"""How do the built-in teachers shatter Spanish (Reina-Valera 1909)? Wang et al.'s table 2 for the
multilingual teacher: the share of word tokens that are out of its vocabulary (split into several
pieces) and the pieces per word, beside the two English teachers.

Writes benchmarks/results/stats_bible_es.json (one object per teacher) and stats_bible_es.png.
Run: HF_HUB_OFFLINE=1 PYTHONPATH=src python -m benchmarks.stats.stats_bible_es
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.stats.render import render_stats as render  # noqa: F401  (make_results reads it)
from benchmarks.stats.stats_wnut17 import run_stats, write_stats
from charwise.translation.data import read_pairs, source_words  # noqa: E402

WRITES = ("stats_bible_es",)
PAGE = "stats.md"
COMMANDS: dict[str, list[str]] = {
    "stats_bible_es": [
        "python -m benchmarks.stats.stats_bible_es",
    ],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    write_stats(run(parser.parse_args()), "stats_bible_es")  # no options: the parser answers --help


def run(args: argparse.Namespace) -> list[dict]:
    """The Spanish verses under the three teachers (the result is a list: one object per teacher)."""
    sentences = [source_words(p.source) for p in read_pairs()]  # every Spanish verse, punctuation separate
    return run_stats(sentences, "src/charwise/data/bible_es_en/bible.es-en.tsv (es)",
                     ("e5-multilingual", "minilm", "smollm2"))


if __name__ == "__main__":
    main()
