"""Why character vectors cost NER on tweets: where the vectors of WNUT17's entity words land.

    OMP_NUM_THREADS=1 python -m benchmarks.hybrid.entity_vectors    # -> results/entity_vectors.json + .png

The ``oov`` policy hands every word the teacher splits into pieces to the character encoder
(``repair+oov`` only those of them the speller looked at and left: their share is counted too). For
each word ``oov`` builds in WNUT17's test tweets, entity words (tagged ``B-``/``I-``) and the others
apart, this reads:

* the **nearest whole-word row** of the teacher's table to the word's charwise vector (cosine), and how
  common that row's word is (wordfreq's Zipf frequency; >= 4.0, about once in 100,000 words, is a
  common word) and whether it starts with the same two letters (a neighbour in spelling);
* the cosine between the charwise vector and the mean of the word's own piece embeddings (what the
  model reads without charwise; the encoder was trained towards the teacher's rows, not to them);
* whether the word is capitalised as written (all-MiniLM-L6-v2's tokenizer lower-cases: the model never
  sees the capital, with pieces or with vectors).

Only the test split's words are read (unique per sentence position; nothing is trained or tuned).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.common.paths import RESULTS  # noqa: E402
from benchmarks.common.report import pyplot, save_figure, write_result  # noqa: E402
from benchmarks.hybrid.render import render_entity_vectors as render  # noqa: E402,F401  (make_results reads it)

WRITES = ("entity_vectors",)
PAGE = "hybrid.md"
COMMON_ZIPF = 4.0  # wordfreq: a word seen about once in 100,000 words or more often
SHOWN = 30  # example words listed per group


def word_rows(teacher: Any) -> tuple[list[str], Any]:
    """The whole-word rows of the teacher's table: their words, and the rows normalised."""
    import torch

    rows = teacher.whole_word_rows()
    table = teacher.embeddings[list(rows.values())].float()
    return list(rows), torch.nn.functional.normalize(table, dim=1)


def read_words(hybrid: Any, sentences: list[Any], policy: Any) -> list[dict[str, Any]]:
    """Every word of ``sentences`` that ``policy`` builds from characters, with its group."""
    teacher = hybrid.teacher
    chosen = []
    for sentence in sentences:
        pieces = hybrid.word_pieces(sentence.words, [True] * len(sentence.words))
        selected = policy.select(sentence.words, pieces, teacher)
        for word, tag, ids, built in zip(sentence.words, sentence.tags, pieces, selected):
            if built and word.isalpha():
                chosen.append({"word": word, "entity": tag != "O", "pieces": ids,
                               "capitalised": word[:1].isupper()})
    return chosen


def measure(hybrid: Any, chosen: list[dict[str, Any]]) -> None:
    """Fill each word's nearest row, its frequency and the cosine to the piece mean, in place."""
    import torch
    from wordfreq import zipf_frequency

    teacher = hybrid.teacher
    names, table = word_rows(teacher)
    embeddings = teacher.embeddings.float()
    words = [c["word"] for c in chosen]
    for start in range(0, len(words), 512):
        part = chosen[start:start + 512]
        vectors = torch.nn.functional.normalize(hybrid.char_vectors(words[start:start + 512]).float(), dim=1)
        cosines = vectors @ table.T
        best, where = cosines.max(dim=1)
        for c, v, cos, row in zip(part, vectors, best.tolist(), where.tolist()):
            nearest = names[row]
            piece_mean = torch.nn.functional.normalize(embeddings[c["pieces"]].mean(0), dim=0)
            c.update(nearest=nearest, nearest_cosine=round(cos, 4), nearest_zipf=zipf_frequency(nearest, "en"),
                     spelled_alike=nearest[:2] == c["word"][:2].lower(),
                     piece_mean_cosine=round(float(v @ piece_mean), 4))


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    if not n:
        return {"words": 0}

    def share(key: str) -> float:
        return round(100 * sum(bool(r[key]) for r in rows) / n, 1)

    def mean(key: str) -> float:
        return round(sum(r[key] for r in rows) / n, 4)

    return {"words": n, "capitalised_percent": share("capitalised"),
            "nearest_common_percent": round(100 * sum(r["nearest_zipf"] >= COMMON_ZIPF for r in rows) / n, 1),
            "spelled_alike_percent": share("spelled_alike"), "nearest_cosine": mean("nearest_cosine"),
            "piece_mean_cosine": mean("piece_mean_cosine"),
            "examples": list(dict.fromkeys(f"{r['word']} -> {r['nearest']} ({r['nearest_cosine']:.2f})"
                                           for r in rows))[:SHOWN]}


def run(args: argparse.Namespace) -> dict[str, Any]:
    from charwise import HybridModel
    from charwise.hybrid.policies import get_policy
    from charwise.tagging.data import load_task

    hybrid = HybridModel.from_teacher(args.teacher, policy="oov")
    test = load_task("wnut17", splits=("test",)).test
    tokens = Counter("entity" if t != "O" else "other" for s in test for t in s.tags)
    chosen = read_words(hybrid, test, hybrid.policy)
    measure(hybrid, chosen)
    groups = {"entity": [c for c in chosen if c["entity"]], "other": [c for c in chosen if not c["entity"]]}
    # the policy in front of the tagger runs: only the words the speller looked at and left
    unsure = read_words(hybrid, test, get_policy("repair+oov"))
    return {"command": "python -m benchmarks.hybrid.entity_vectors", "teacher": args.teacher,
            "tokens": dict(tokens), "common_zipf": COMMON_ZIPF,
            "built_from_characters_percent": {g: round(100 * len(rows) / tokens[g], 1) for g, rows in groups.items()},
            "built_by_repair_oov_percent": {g: round(100 * sum(c["entity"] == (g == "entity") for c in unsure)
                                                     / tokens[g], 1) for g in groups},
            "built_by_repair_oov": {g: {"tokens": sum(c["entity"] == (g == "entity") for c in unsure),
                                        "capitalised": sum(c["capitalised"] and c["entity"] == (g == "entity")
                                                           for c in unsure)} for g in groups},
            "groups": {g: summary(rows) for g, rows in groups.items()},
            "zipf": {g: [round(r["nearest_zipf"], 2) for r in rows] for g, rows in groups.items()}}


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for group, colour in (("entity", "tab:red"), ("other", "tab:blue")):
        ax.hist(result["zipf"][group], bins=24, range=(0, 8), density=True, alpha=0.5, color=colour,
                label=f"{group} words ({result['groups'][group]['words']})")
    ax.axvline(result["common_zipf"], color="grey", linestyle=":")
    ax.set_xlabel("Zipf frequency of the nearest whole-word row")
    ax.set_ylabel("share of words")
    ax.set_title("WNUT17 test: words the oov policy builds from characters")
    ax.legend()
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--teacher", default="minilm")
    parser.add_argument("--out", type=Path, default=RESULTS / "entity_vectors.json")
    args = parser.parse_args(argv)
    return write_result(args.out, run(args), plot)


if __name__ == "__main__":
    sys.exit(main())
