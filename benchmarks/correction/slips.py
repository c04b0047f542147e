"""Slips between words on real text (``don´t``, ``it,s``, ``at the the right time``): every change the
default English speller makes to one, read in its sentence and labelled by hand (``slips_labels.tsv``),
and the slips of each kind it leaves.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.slips    # -> results/slips.json + .png

Three kinds (:mod:`charwise.speller.slips`): an apostrophe typed as another mark
(:mod:`charwise.speller.apostrophes`), a word typed twice, and ``a`` before a vowel sound made ``an``
(:mod:`charwise.speller.articles`). The texts keep their spacing (a tokenised
text puts spaces around every mark, so its marks touch no word): WNUT17's raw tweets (``rigo``,
``gurez``, ``ile``, ``palm``), YouTube comments, Reddit posts and Stack Overflow text, and UD
English-EWT's sentences as written (train, dev and test). Only the lines that hold a candidate (a mark
between two letters, a word written twice with a space between) are corrected: the rules read nothing
else. They have no threshold; which doubled words are left (``LEFT_DOUBLED``) was read here, so these
texts are development text. A change is right when the writer meant the apostrophe, meant the word
once, or meant the article ``an``; wrong otherwise. ``left`` lists the commonest candidates of each kind
left as written.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.common.labels import in_context, read_labels, tally
from benchmarks.common.markdown import render_generic as render  # noqa: F401  (make_results reads it)
from benchmarks.common.paths import RESULTS, ROOT
from benchmarks.common.report import plot_labels, write_result
from charwise.speller.apostrophes import MARKED

WRITES = ("slips",)
PAGE = "correction-experiments.md"
LABELS = Path(__file__).resolve().parent / "slips_labels.tsv"
DATA = ROOT / "src" / "charwise" / "data"
RAW = ("rigo.10000", "gurez.10000", "ile.10000", "palm.10000", "yt-filter", "redd.tok.uniq", "stacko-src")
BATCH = 500  # lines corrected at a time
SHOWN = 40  # candidates left as written, listed per kind
KINDS = ("apostrophe", "typed twice", "article")
DOUBLED = re.compile(r"(?<![\w'])([^\W\d_]+)\s+\1(?![\w'])", re.IGNORECASE)  # any word written twice
A_VOWEL = re.compile(r"(?<![\w'])[aA]\s+(?:[aeiouhAEIOUH]|[A-Z]{2})")  # `a` before a vowel letter, an h, an acronym

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def texts() -> dict[str, list[str]]:
    """Each text's lines, as written."""
    from benchmarks.common.retrieval import ewt_texts

    out = {name: (DATA / "wnut17" / "raw_text" / name).read_text(encoding="utf-8", errors="replace").splitlines()
           for name in RAW}
    out["ud ewt (train, dev, test)"] = [line for split in ("train", "dev", "test")
                                        for line in ewt_texts(DATA / "ud_en_ewt" / f"en_ewt-ud-{split}.conllu")]
    return out


def candidate(entries: list[Any], j: int) -> tuple[str, str, int, int] | None:
    """(kind, the slip as written, first and last word) of the slip whose last word is ``entries[j]``, or None."""
    second, first = entries[j], entries[j - 1]
    if first.word in ("a", "A") and A_VOWEL.match(first.word + " " + second.word):
        return "article", f"{first.word} {second.word}", j - 1, j
    if second.word.lower() == first.word.lower() and first.word.isalpha() and first.end < second.start:
        return "typed twice", f"{first.word} {second.word}", j - 1, j
    if j >= 2 and first.end == second.start and entries[j - 2].end == first.start:
        written = entries[j - 2].word + first.word + second.word
        if MARKED.fullmatch(entries[j - 2].word[-1:] + first.word + second.word[:1]):
            return "apostrophe", written, j - 2, j
    return None


def read_text(speller: Any, lines: list[str]) -> tuple[list[dict[str, Any]], dict[str, Counter[str]]]:
    """Every slip the speller mends in ``lines``, and the candidates of each kind it leaves."""
    from charwise.speller.slips import typed_twice_pattern

    twice = typed_twice_pattern("en")
    chosen = [line for line in lines if MARKED.search(line) or DOUBLED.search(line) or A_VOWEL.search(line)
              or (twice and twice.search(line))]
    found, left = [], {kind: Counter() for kind in KINDS}
    for i in range(0, len(chosen), BATCH):
        for result in speller.correct_lines(chosen[i:i + BATCH]):
            entries, words = result.words, [w.word for w in result.words]
            for j in range(1, len(entries)):
                slip = candidate(entries, j)
                if slip is None:
                    continue
                kind, written, start, end = slip
                mended = (entries[end].joined_away if kind == "typed twice" else entries[start].correction == "an"
                          if kind == "article" else entries[start + 1].correction == "'")
                if mended:
                    found.append({"kind": kind, "written": written, "context": in_context(words, start, end + 1)})
                else:
                    left[kind][written.lower()] += 1
    return found, left


def run(args: argparse.Namespace) -> dict[str, Any]:
    from charwise.speller import Speller

    speller = Speller.load("en")
    labels = read_labels(LABELS, keys=2)  # (written, context)
    result: dict[str, Any] = {"command": " ".join(["python -m benchmarks.correction.slips", *args.argv]),
                              "texts": {}}
    all_left: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
    for name, lines in texts().items():
        found, left = read_text(speller, lines[:args.limit])
        for item in found:
            item["label"], item["why"] = labels.get((item["written"], item["context"]), ("not labelled", ""))
        for kind in KINDS:
            all_left[kind] += left[kind]
        result["texts"][name] = {"lines": len(lines[:args.limit]), "changes": tally(found),
                                 "by kind": {kind: tally(f for f in found if f["kind"] == kind) for kind in KINDS},
                                 "found": found}
        print(name, result["texts"][name]["by kind"], flush=True)
    every = [f for row in result["texts"].values() for f in row["found"]]
    result["changes"] = tally(every)
    result["by kind"] = {kind: tally(f for f in every if f["kind"] == kind) for kind in KINDS}
    result["by mark"] = {mark: tally(f for f in every if f["kind"] == "apostrophe" and mark in f["written"])
                         for mark in sorted({m for f in every if f["kind"] == "apostrophe"
                                             for m in f["written"] if not m.isalnum()})}
    result["left"] = {kind: [f"{form}: {n}" for form, n in all_left[kind].most_common(SHOWN)] for kind in KINDS}
    return result


def plot(result: dict[str, Any], path: Path) -> None:
    plot_labels({f"{name}: {kind}": row["by kind"][kind] for name, row in result["texts"].items() for kind in KINDS
                 if sum(row["by kind"][kind].values())}, "slips mended, read by hand", path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="the first lines of each text only")
    parser.add_argument("--out", type=Path, default=RESULTS / "slips.json")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return write_result(args.out, run(args), plot)


if __name__ == "__main__":
    sys.exit(main())
