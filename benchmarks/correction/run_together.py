"""Run-together words cut apart without a language model (``thankyou`` -> ``thank you``): every word
the rule of :mod:`charwise.speller.run_together` would cut at any gap, on real text, with its gap
and the hand label of ``run_together_labels.tsv``; the right and wrong cuts at each gap.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.run_together [--texts dev|fresh]

The default English speller (``Speller.load("en")``, which cuts only the words the list of known
misspellings names with the cut: ``listed``) corrects each text; in its output a word is listed when
it made such a cut, or when every condition but the gap holds
(:func:`~charwise.speller.run_together.run_together_split` with the gap at minus infinity).

Roles: ``dev`` (the LexNorm 2015 training tweets, UD EWT dev, the ``gurez`` tenth of WNUT17's raw
tweets and web text) chose :data:`~charwise.speller.run_together.SPLIT_GAP` (the gap that maximises
right - 9 x wrong); ``fresh`` (WNUT17's raw YouTube comments, Reddit posts and Stack Overflow
text, ``yt-filter``, ``redd.tok.uniq``, ``stacko-src``) was read only after it was fixed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from benchmarks.common.labels import in_context, read_labels
from benchmarks.common.paths import SPELLING_DATA

os.environ.setdefault("HF_HUB_OFFLINE", "1")
LABELS = Path(__file__).parent / "run_together_labels.tsv"
DATA = Path(__file__).resolve().parents[2] / "src" / "charwise" / "data"
RAW = DATA / "wnut17" / "raw_text"
GAPS = (-1.0, -0.5, 0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)  # Zipf swept


def texts(role: str) -> dict[str, list[str]]:
    """Raw lines of each text of ``role``."""
    from benchmarks.common.retrieval import ewt_texts
    from benchmarks.correction.lexnorm import read_tweets

    if role == "fresh":
        return {name: (RAW / name).read_text(encoding="utf-8").splitlines()
                for name in ("yt-filter", "redd.tok.uniq", "stacko-src")}
    tweets = read_tweets(SPELLING_DATA / "lexnorm2015_en" / "train.norm")
    return {"lexnorm2015 train": [" ".join(raw for raw, _ in t) for t in tweets],
            "ud ewt dev": ewt_texts(DATA / "ud_en_ewt" / "en_ewt-ud-dev.conllu"),
            "wnut17 raw gurez": (RAW / "gurez.10000").read_text(encoding="utf-8").splitlines()}


def run(role: str, limit: int | None) -> dict[str, Any]:
    import charwise.speller.run_together as rt
    from charwise.speller import Speller
    from charwise.speller.known_misspellings import listed_cut

    found: list[dict[str, Any]] = []

    def record(corrected: Any, lexicon: Any, rules: Any, starts: Any) -> None:
        for entries, start in zip(corrected, starts):
            at_start = bool(start)
            for i, e in enumerate(entries):
                first, at_start = at_start, rt.starts_after(e.word, at_start)
                word = e.word.lower()
                if e.kind == rt.SPLIT:  # cut by the speller: a listed cut
                    cut: str | None = e.correction.lower()
                elif e.changed or e.protected or not (e.word.islower() or (first and e.word.istitle())):
                    continue
                else:
                    cut = rt.run_together_split(lexicon, rules, word, gap=float("-inf"))
                if cut is not None:
                    gap = (rt.split_gap(cut.split(" ")) or 0.0) - lexicon.zipf(word)
                    found.append({"word": word, "cut": cut, "gap": round(gap, 2), "listed": listed_cut(word, cut),
                                  "context": in_context([x.word for x in entries], i, i + 1)})

    speller = Speller.load("en")
    assert speller.normaliser is not None
    labels = read_labels(LABELS, keys=2)
    for name, lines in texts(role).items():
        before = len(found)
        rows = [text.words for text in speller.correct_lines(lines[:limit])]
        record(rows, speller.lexicon, speller.normaliser.rules, [True] * len(rows))
        for item in found[before:]:
            item["text"] = name
            item["label"], item["why"] = labels.get((item["cut"], item["context"]), ("not labelled", ""))
    sweep = {f"{g:g}": {lab: sum(f["label"] == lab and f["gap"] >= g for f in found)
                        for lab in ("right", "wrong", "not labelled")} for g in GAPS}
    listed = {lab: sum(f["label"] == lab and f["listed"] for f in found) for lab in ("right", "wrong", "not labelled")}
    return {"role": role, "found": sorted(found, key=lambda f: -f["gap"]), "sweep": sweep, "listed": listed}


def main(argv: list[str] | None = None) -> int:
    import json

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", choices=("dev", "fresh"), default="dev")
    parser.add_argument("--limit", type=int, default=None, help="the first lines of each text only")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    result = run(args.texts, args.limit)
    for f in result["found"]:
        print(f"{f['label']}\t{f['gap']}\t{f['cut']}\t{f['context']}\t{f['text']}")
    print(json.dumps(result["sweep"], indent=1))
    print("listed cuts (made by the default speller at any gap):", json.dumps(result["listed"]))
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
