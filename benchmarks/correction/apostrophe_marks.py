"""Apostrophes typed as other marks on real text (``don´t``, ``it,s``): every change the default
English speller makes to one, read in its sentence and labelled by hand (``apostrophe_marks_labels.tsv``),
and the marks between two letters it leaves.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.apostrophe_marks    # -> results/apostrophe_marks.json + .png

The texts keep their spacing (a tokenised text puts spaces around every mark, so its marks touch no
word): WNUT17's raw tweets (``rigo``, ``gurez``, ``ile``, ``palm``), YouTube comments, Reddit posts and
Stack Overflow text, and UD English-EWT's sentences as written (train, dev and test). Only the lines
that hold a mark of :mod:`charwise.speller.apostrophes` between two letters are corrected (the
decision reads nothing else). Nothing is chosen here: the rule has no threshold; this shows what it
does. A change is right when the writer meant the apostrophe, wrong otherwise. ``left`` lists the
commonest marks between two letters left as written, with a word before and after.
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

WRITES = ("apostrophe_marks",)
PAGE = "correction-experiments.md"
LABELS = Path(__file__).resolve().parent / "apostrophe_marks_labels.tsv"
DATA = ROOT / "src" / "charwise" / "data"
RAW = ("rigo.10000", "gurez.10000", "ile.10000", "palm.10000", "yt-filter", "redd.tok.uniq", "stacko-src")
BATCH = 500  # lines corrected at a time
SHOWN = 40  # marks left as written, listed

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def texts() -> dict[str, list[str]]:
    """Each text's lines, as written."""
    from benchmarks.common.retrieval import ewt_texts

    out = {name: (DATA / "wnut17" / "raw_text" / name).read_text(encoding="utf-8", errors="replace").splitlines()
           for name in RAW}
    out["ud ewt (train, dev, test)"] = [line for split in ("train", "dev", "test")
                                        for line in ewt_texts(DATA / "ud_en_ewt" / f"en_ewt-ud-{split}.conllu")]
    return out


def marks_between_letters() -> re.Pattern[str]:
    """A mark of :mod:`charwise.speller.apostrophes` written between two letters."""
    from charwise.speller.apostrophes import MARKS

    return re.compile(r"[^\W\d_]([" + re.escape("".join(sorted(MARKS))) + r"])[^\W\d_]")


def read_text(speller: Any, lines: list[str]) -> tuple[list[dict[str, Any]], Counter[str]]:
    """Every change of a mark to an apostrophe in ``lines``, and the marks between two letters left."""
    pattern = marks_between_letters()
    chosen = [line for line in lines if pattern.search(line)]
    found, left = [], Counter()
    for i in range(0, len(chosen), BATCH):
        for result in speller.correct_lines(chosen[i:i + BATCH]):
            entries = result.words
            words = [w.word for w in entries]
            for j in range(1, len(entries) - 1):
                first, mark, second = entries[j - 1 : j + 2]
                if not (pattern.fullmatch(first.word[-1:] + mark.word + second.word[:1])
                        and first.end == mark.start and mark.end == second.start):
                    continue
                if mark.changed and mark.correction == "'":
                    found.append({"written": first.word + mark.word + second.word,
                                  "context": in_context(words, j - 1, j + 2)})
                else:
                    left[(first.word + mark.word + second.word).lower()] += 1
    return found, left


def run(args: argparse.Namespace) -> dict[str, Any]:
    from charwise.speller import Speller

    speller = Speller.load("en")
    labels = read_labels(LABELS, keys=2)  # (written, context)
    result: dict[str, Any] = {"command": " ".join(["python -m benchmarks.correction.apostrophe_marks", *args.argv]),
                              "texts": {}}
    all_left: Counter[str] = Counter()
    for name, lines in texts().items():
        found, left = read_text(speller, lines[:args.limit])
        for item in found:
            item["label"], item["why"] = labels.get((item["written"], item["context"]), ("not labelled", ""))
        all_left += left
        result["texts"][name] = {"lines": len(lines[:args.limit]), "changes": tally(found),
                                 "left": sum(left.values()), "found": found}
        print(name, tally(found), "left", sum(left.values()), flush=True)
    every = [f for row in result["texts"].values() for f in row["found"]]
    result["changes"] = tally(every)
    result["by mark"] = {mark: tally(f for f in every if mark in f["written"]) for mark in sorted(
        {m for f in every for m in f["written"] if not m.isalnum()})}
    result["left"] = [f"{form}: {n}" for form, n in all_left.most_common(SHOWN)]
    return result


def plot(result: dict[str, Any], path: Path) -> None:
    plot_labels({name: row["changes"] for name, row in result["texts"].items()},
                "marks made apostrophes, read by hand", path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="the first lines of each text only")
    parser.add_argument("--out", type=Path, default=RESULTS / "apostrophe_marks.json")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return write_result(args.out, run(args), plot)


if __name__ == "__main__":
    sys.exit(main())
