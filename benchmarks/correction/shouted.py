"""Words written in capitals on real text: every change the default English speller makes to one
(``SERVISE -> SERVICE`` by the spelling scorer, ``CANT -> CAN'T`` by the normalisation judge), read
in its sentence and labelled by hand (``shouted_labels.tsv``).

    OMP_NUM_THREADS=1 python -m benchmarks.correction.shouted          # -> results/shouted.json + .png

The speller reads a word in capitals of ``capitals_min_length`` letters or more (4) as its lower-case
form, with the same scorer, judge and thresholds, and writes the change in capitals; shorter words
in capitals are acronyms far more often, and only the normalisation judge (at the threshold of a
capitalised word) and the confusion model read them, amid text in capitals (``IM`` -> ``I'M``, ``U``
-> ``YOU``, ``ITS`` -> ``IT'S``). Nothing is chosen here: the lines measured are those of each text
that hold a word in capitals of 4 letters or more (letters only):

* ``dev``: WNUT17's training and development tweets and UD EWT dev (the texts other thresholds were
  chosen on);
* ``fresh``: WNUT17's raw YouTube comments (``yt-filter`` after its first 5,000 lines, which other
  benchmarks read), Reddit posts and Stack Overflow text;
* ``tweets``: WNUT17's four raw tenths of tweets (``rigo``, ``gurez``, ``ile``, ``palm``), read since
  short words in capitals are read amid text in capitals (``IM``, ``U``).

A change is right when the word in capitals is the one meant, written as LexNorm 2015's annotators
write it (``GONNA -> GOING TO``, ``CAUSE -> BECAUSE`` where it means ``because``), as the judge
learned from them; wrong otherwise (``HYPE -> HAPPY``). The labels are keyed by the word, its change
and its kind, and by its sentence (``in_context``) where the label depends on it (``*`` elsewhere).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.common.labels import in_context, read_labels, tally
from benchmarks.common.markdown import render_generic as render  # noqa: F401  (make_results reads it)
from benchmarks.common.paths import RESULTS, ROOT
from benchmarks.common.report import plot_labels, write_result

WRITES = ("shouted",)
PAGE = "correction-experiments.md"
LABELS = Path(__file__).resolve().parent / "shouted_labels.tsv"
RAW = ROOT / "src" / "charwise" / "data" / "wnut17" / "raw_text"
READ_ELSEWHERE = 5000  # yt-filter's first lines, read by the confusion benchmarks
BATCH = 200  # lines corrected at a time
TWEETS = ("rigo.10000", "gurez.10000", "ile.10000", "palm.10000")

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def texts() -> dict[str, dict[str, list[str]]]:
    """Each role's texts, one line per sentence or post."""
    from benchmarks.common.retrieval import ewt_texts
    from charwise.tagging.data import load_task

    wnut = load_task("wnut17", splits=("train", "dev"))
    raw = {name: (RAW / name).read_text(encoding="utf-8", errors="replace").splitlines()
           for name in ("yt-filter", "redd.tok.uniq", "stacko-src", *TWEETS)}
    return {"dev": {"wnut17 train + dev": [" ".join(s.words) for s in wnut.train + wnut.dev],
                    "ud ewt dev": ewt_texts(ROOT / "src" / "charwise" / "data" / "ud_en_ewt" / "en_ewt-ud-dev.conllu")},
            "fresh": {"yt-filter": raw["yt-filter"][READ_ELSEWHERE:], "redd.tok.uniq": raw["redd.tok.uniq"],
                      "stacko-src": raw["stacko-src"]},
            "tweets": {"rigo, gurez, ile, palm": [line for name in TWEETS for line in raw[name]]}}


def changes(speller: Any, lines: list[str], minimum: int) -> tuple[int, list[dict[str, Any]]]:
    """(how many words in capitals the speller reads, every change of a word in capitals) in ``lines``."""
    from charwise.speller.looking import in_capitals_text, shouted

    def reads(word: str) -> bool:
        return len(word) >= minimum and word.isalpha() and shouted(word)

    chosen = [line for line in lines if any(reads(w) for w in line.split())]
    read, found = 0, []
    for i in range(0, len(chosen), BATCH):
        for result in speller.correct_lines(chosen[i:i + BATCH]):
            words = [w.word for w in result.words]
            for j, w in enumerate(result.words):
                read += reads(w.word)
                if w.changed and (shouted(w.word) or in_capitals_text(words, j)):  # `U` amid capitals too
                    found.append({"written": w.word, "correction": w.correction, "kind": w.kind,
                                  "probability": round(w.probability, 4), "decided_by": w.decided_by.split(":")[0],
                                  "context": in_context(words, j, j + 1)})
    return read, found


def run(args: argparse.Namespace) -> dict[str, Any]:
    from charwise.speller import Speller

    speller = Speller.load("en")
    labels = read_labels(LABELS, keys=4)  # (written, correction, kind, context or *)
    result: dict[str, Any] = {"command": " ".join(["python -m benchmarks.correction.shouted", *args.argv]),
                              "capitals_min_length": speller.settings.capitals_min_length, "roles": {}}
    for role, named in texts().items():
        for name, lines in named.items():
            read, found = changes(speller, lines[:args.limit], speller.settings.capitals_min_length)
            for item in found:
                key = (item["written"], item["correction"], item["kind"])
                item["label"], item["why"] = labels.get(key + (item["context"],),
                                                        labels.get(key + ("*",), ("not labelled", "")))
            kinds = sorted({f["kind"] for f in found})
            by_kind = {kind: tally(f for f in found if f["kind"] == kind) for kind in kinds}
            result["roles"][f"{role}: {name}"] = {"lines": len(lines[:args.limit]), "words in capitals read": read,
                                                  "changes": tally(found), "by kind": by_kind, "found": found}
            print(role, name, read, tally(found), by_kind, flush=True)
    every = [f for row in result["roles"].values() for f in row["found"]]
    result["changes"] = tally(every)
    counted = Counter((f["written"], f["correction"], f["kind"], f["label"]) for f in every)
    result["most frequent"] = [f"{w} -> {c} ({kind}, {label}): {n}"
                               for (w, c, kind, label), n in counted.most_common(30)]
    return result


def plot(result: dict[str, Any], path: Path) -> None:
    plot_labels({name: row["changes"] for name, row in result["roles"].items()},
                "changes of words in capitals, read by hand", path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="the first lines of each text only")
    parser.add_argument("--out", type=Path, default=RESULTS / "shouted.json")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return write_result(args.out, run(args), plot)


if __name__ == "__main__":
    sys.exit(main())
