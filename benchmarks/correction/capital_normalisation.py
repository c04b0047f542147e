"""Capitalised words the normalisation judge changes: the probability they need, chosen on text that keeps case.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.capital_normalisation          # results/capital_normalisation.*
    OMP_NUM_THREADS=1 python -m benchmarks.correction.capital_normalisation --ship   # and into the shipped judge

The English judge learned from LexNorm 2015's tweets, which are lower-cased: it reads ``Yo can I get``,
``Wth is wrong`` and ``N . Ban .`` as it reads ``yo``, ``wth`` and ``n`` (you, with, and), and cannot
tell them from ``U should``, ``Im here`` or ``Whats that``. A word written with a capital first letter
(not all capitals) is read by the normaliser only at a sentence start (inside one it is a name); there
the judge's probability is compared with a threshold of its own (``NormalisationJudge.capital_threshold``,
never below the judge's), chosen here.

Every such change the default English speller makes, at the judge's own threshold, on WNUT17's raw texts
that keep case is listed with its probability and with what the word becomes where the judge's change is
not made (the speller's own correction, another part's, or nothing); both outcomes of those below the
highest threshold swept were read by hand in their sentence (``capital_normalisation_labels.tsv``): right
when the output is what the writer meant, wrong when it is not (a name: ``Lil Yachty``, ``Boi Ching Lang``;
another language: Dutch ``Ik vind``; an initial or a letter: ``N .``; ``Yo`` as a greeting; ``Wth``: what
the hell).
The threshold is the one where right - 9 x wrong is highest on the development texts (a wrong edit costs
nine right ones; the lower of a tie), with every change below it labelled; the held-out texts report
what it does there. Roles: the fresh YouTube, Reddit and Stack Exchange texts and ``rigo.10000``
(development, as for the confusion model's choice); ``ile.10000`` and ``palm.10000`` (held out here).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from benchmarks.common.labels import in_context, nine_to_one, read_labels
from benchmarks.common.markdown import render_generic as render  # noqa: F401  (make_results reads it)
from benchmarks.common.report import plot_right_wrong, write_result

os.environ.setdefault("HF_HUB_OFFLINE", "1")
WRITES = ("capital_normalisation",)
PAGE = "correction-experiments.md"
LABELS = Path(__file__).with_name("capital_normalisation_labels.tsv")
RAW = Path(__file__).resolve().parents[2] / "src" / "charwise" / "data" / "wnut17" / "raw_text"
TEXTS = {"yt-filter": "dev", "redd.tok.uniq": "dev", "stacko-src": "dev", "rigo.10000": "dev",
         "ile.10000": "held-out", "palm.10000": "held-out"}
THRESHOLDS = tuple(round(0.7 + 0.025 * k, 3) for k in range(11))  # the judge's own (0.7) to 0.95
CHUNK = 2000  # lines corrected at a time
WIDTH = 5  # words shown on each side of a change (the labels' key)


def capitalised_changes(speller: Any, lines: list[str]) -> list[dict[str, Any]]:
    """Every change the normalisation judge makes to a word written with a capital first letter (not all
    capitals) in ``lines``: written, output, probability, the sentence around it, and ``declined``: what the
    word becomes where the judge's change is not made (the speller's own change stands, or none)."""
    from charwise.speller.looking import capitalised

    found = []
    for start in range(0, len(lines), CHUNK):
        for n, result in enumerate(speller.correct(lines[start:start + CHUNK])):
            words = [w.word for w in result.words]
            for i, w in enumerate(result.words):
                # below the judge's own threshold: a cut in place of the speller's change, made whatever it is
                if (w.changed and capitalised(w.word) and w.probability >= THRESHOLDS[0]
                        and w.decided_by.startswith("normalisation judge")):
                    found.append({"written": w.word, "output": w.correction, "probability": round(w.probability, 4),
                                  "context": in_context(words, i, i + 1, WIDTH), "line": start + n, "index": i})
    judge = speller.normaliser.judge
    kept, judge.capital_threshold = judge.capital_threshold, 1.0  # no capitalised word changed by the judge
    try:
        lines_read = sorted({c["line"] for c in found})
        declined = dict(zip(lines_read, speller.correct([lines[k] for k in lines_read])))
    finally:
        judge.capital_threshold = kept
    for c in found:
        c["declined"] = declined[c["line"]].words[c["index"]].correction
    return found


def outcome(change: dict[str, Any], threshold: float) -> tuple[str, str, str] | None:
    """The labels' key of what ``change``'s word becomes at ``threshold``, or None when it stays as written."""
    output = change["output"] if change["probability"] >= threshold else change["declined"]
    return None if output == change["written"] else (change["written"], output, change["context"])


def sweep(changes: list[dict[str, Any]], labels: dict[tuple[str, ...], tuple[str, str]]) -> dict[str, dict[str, int]]:
    """For each threshold: the changes made to these words (the judge's, or the speller's where the judge's is
    not made), by label (``unlabelled``: not read); of the words whose change the highest threshold still makes
    (the same at every one, and not read)."""
    out = {}
    varying = [c for c in changes if c["probability"] < THRESHOLDS[-1]]
    for t in THRESHOLDS:
        counts = {"right": 0, "wrong": 0, "unlabelled": 0}
        for c in varying:
            key = outcome(c, t)
            if key is not None:
                counts[labels.get(key, ("unlabelled", ""))[0]] += 1
        out[f"{t:g}"] = counts
    return out


def choose(dev: dict[str, dict[str, int]]) -> float | None:
    """The threshold where right - 9 x wrong is highest on the development changes (the lower of a tie); None
    while any change in the sweep is not read (every threshold is compared on the same words)."""
    if any(row["unlabelled"] for row in dev.values()):
        return None
    return nine_to_one(dev, THRESHOLDS)


def run(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    from charwise.speller import Speller

    torch.set_num_threads(1)
    speller = Speller.load("en")
    judge = speller.normaliser.judge
    shipped = judge.capital_threshold
    judge.capital_threshold = None  # every change the judge's own threshold makes
    labels = read_labels(args.labels, keys=3)
    per_text, changes = {}, {"dev": [], "held-out": []}
    for name, role in TEXTS.items():
        text = (RAW / name).read_text(encoding="utf-8", errors="replace")
        lines = [line for line in text.splitlines() if line.strip()]
        found = capitalised_changes(speller, lines[: args.limit])
        for c in found:
            c["text"] = name
        changes[role] += found
        per_text[name] = {"role": role, "lines": len(lines[: args.limit]), "changes": len(found)}
        print(name, per_text[name], flush=True)
    sweeps = {role: sweep(found, labels) for role, found in changes.items()}
    chosen = choose(sweeps["dev"])
    shown = [dict(c, key=key, label=labels.get(key, ("unlabelled", ""))[0]) for role in ("dev", "held-out")
             for c in changes[role] if c["probability"] < THRESHOLDS[-1]
             for key in {outcome(c, THRESHOLDS[0]), outcome(c, THRESHOLDS[-1])} if key is not None]
    made_above = {role: sum(c["probability"] >= THRESHOLDS[-1] for c in found) for role, found in changes.items()}
    return {"command": "python -m benchmarks.correction.capital_normalisation", "judge_threshold": judge.threshold,
            "shipped_capital_threshold": shipped, "chosen": chosen, "texts": per_text,
            "made_at_every_threshold": made_above, "sweep": sweeps,
            "unlabelled": [c for c in shown if c["label"] == "unlabelled"],
            "changes_below_the_highest_threshold": sorted(shown, key=lambda c: c["probability"])}


def ship(result: dict[str, Any]) -> None:
    """Write the chosen threshold, with its source, into the shipped English judge."""
    import json

    from charwise.io import write_json
    from charwise.speller.normalise import DATA_DIR, NormalisationJudge

    path = DATA_DIR / "normalisation-en" / "judge.json"
    judge = NormalisationJudge.from_dict(json.loads(path.read_text(encoding="utf-8")), str(path))  # checked
    dev, low = result["sweep"]["dev"][f"{result['chosen']:g}"], result["sweep"]["dev"][f"{THRESHOLDS[0]:g}"]
    judge.capital_threshold = result["chosen"]
    judge.capital_threshold_source = (
        "python -m benchmarks.correction.capital_normalisation: every change of the judge to a capitalised word "
        "in WNUT17's raw YouTube, Reddit and Stack Exchange texts and rigo.10000 read by hand "
        f"(capital_normalisation_labels.tsv); the threshold from {THRESHOLDS[0]:g} to {THRESHOLDS[-1]:g} where "
        f"right - 9 x wrong is highest: of the changes below {THRESHOLDS[-1]:g}, {dev['right']} right and "
        f"{dev['wrong']} wrong ({low['right']} and {low['wrong']} at {THRESHOLDS[0]:g}, the judge's own)")
    write_json(path, judge.to_dict())
    print(f"shipped capital threshold {result['chosen']} to {path}")


def plot(result: dict[str, Any], path: Path) -> None:
    plot_right_wrong(result["sweep"], result["chosen"], "chosen",
                     "threshold for a capitalised word (the judge's probability)", "changes made", path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--limit", type=int, default=None, help="the first lines of each text only")
    parser.add_argument("--ship", action="store_true", help="write the chosen threshold into the shipped judge")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    result = run(args)
    if args.ship:
        if result["chosen"] is None:
            for change in result["unlabelled"]:  # what to read: the key the labels take, the sentence around it
                print("not read:", *change["key"], f"{change['probability']:.3f}", sep="\t", file=sys.stderr)
            raise SystemExit(f"{len(result['unlabelled'])} changes not read: label them in {args.labels.name} first")
        ship(result)
    from benchmarks.common.paths import RESULTS

    return write_result(args.out or RESULTS / "capital_normalisation.json", result, plot)


if __name__ == "__main__":
    sys.exit(main())
