"""How the corpus statistics read on docs/results.md.

Markdown lines from each result's JSON; standard library only, so ``benchmarks.make_results`` stays fast.
"""

from __future__ import annotations

from typing import Any

from benchmarks.common.markdown import packaged_paths, table

Lines = list[str]


def render_stats(data: list[dict[str, Any]]) -> Lines:
    corpora = sorted({packaged_paths(d["corpus"]) for d in data})
    lines = ["Corpus: " + ", ".join(f"`{c}`" for c in corpora) + ".", ""]
    rows = [
        [
            d["teacher"],
            d["family"],
            f"{d['sentences']:,}",
            f"{d['words']:,}",
            f"{d['types']:,}",
            f"{d['multitoken_types_pct']:.2f} %",
            f"+{d['token_mass_increase_pct']:.2f} %",
            f"{d['pieces_per_word']:.4f}",
            f"{d['oov_word_rate_pct']:.2f} %",
            f"{d['unk_rate_pct']:.2f} %",
        ]
        for d in data
    ]
    lines += table(
        [
            "teacher",
            "family",
            "sentences",
            "words",
            "types",
            "multitoken types",
            "token mass increase",
            "pieces per word",
            "OOV word rate",
            "[UNK] rate",
        ],
        rows,
        right=set(range(2, 10)),
    )
    buckets = list(dict.fromkeys(k for d in data for k in d["pieces_per_word_histogram"]))
    lines += ["", "Words by number of pieces:", ""]
    lines += table(
        ["teacher", *buckets],
        [[d["teacher"], *(f"{d['pieces_per_word_histogram'].get(b, 0):,}" for b in buckets)] for d in data],
        right=set(range(1, len(buckets) + 1)),
    )
    return lines
