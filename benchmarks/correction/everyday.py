"""Everyday errors, written by hand: what a new user types first, and whether charwise fixes it.

    OMP_NUM_THREADS=2 python -m benchmarks.correction.everyday     # -> benchmarks/results/everyday.json + .png

Data: ``benchmarks/correction/everyday/`` (its README): sentences written for this project, one a
line, ``written<TAB>intended``, in English and Spanish; ``dev_*`` to read and tune on, ``test_*``
held out (only reported). Each speller (``--systems``: the default speller, and with
``--context smollm2`` beside it when asked) corrects every line with its default settings.

The errors of a line are the word edits that turn what was written into what was meant (a word
replaced, words joined or split: ``difflib`` over whitespace-separated words). An error is
**fixed** when the output makes exactly that edit; every other edit the output makes is a **wrong
edit** (on a clean line, every edit is). **Protected** tokens (URLs, @handles, #hashtags, e-mail
addresses, paths, code identifiers: :func:`charwise.words.protected_spans` of the written line)
must come back unchanged. Per line the JSON keeps the output and what was fixed, missed and wrongly
changed, so that every figure can be read line by line, and for each missed error why the speller kept
the word (``why_missed``: the decision that read it and its probability against its threshold, as
``charwise correct --json`` gives it).
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from pathlib import Path
from typing import Any

from benchmarks.common.paths import RESULTS
from benchmarks.common.report import pyplot, save_figure, write_result
from benchmarks.correction.render import render_everyday as render  # noqa: F401  (make_results reads it)

WRITES = ("everyday",)
PAGE = "correction.md"
DATA = Path(__file__).resolve().parent / "everyday"

os.environ.setdefault("HF_HUB_OFFLINE", "1")

Edit = tuple[int, int, tuple[str, ...]]  # written words [i, j) become these words


def read_pairs(path: Path) -> list[tuple[str, str]]:
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            written, _, intended = line.partition("\t")
            if not intended:
                raise SystemExit(f"{path}:{number}: no tab between the written and the intended sentence")
            pairs.append((written, intended))
    return pairs


def edits(written: list[str], other: list[str]) -> set[Edit]:
    """The word edits that turn ``written`` into ``other``: a run of replaced words as long as its
    replacement is one edit a word (``CANT BELEIVE`` -> ``CAN'T BELIEVE`` is two errors); a join
    or a split is one edit."""
    matcher = difflib.SequenceMatcher(a=written, b=other, autojunk=False)
    found: set[Edit] = set()
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "replace" and i2 - i1 == j2 - j1:
            found.update((i, i + 1, (other[j1 + i - i1],)) for i in range(i1, i2))
        elif op != "equal":
            found.add((i1, i2, tuple(other[j1:j2])))
    return found


def protected_tokens(text: str) -> list[str]:
    from charwise.words import protected_spans

    return [text[start:end] for start, end in protected_spans(text)]


def score_line(written: str, intended: str, output: str) -> dict[str, Any]:
    words = written.split()
    wanted, made = edits(words, intended.split()), edits(words, output.split())

    def shown(edit: Edit) -> str:
        return f"{' '.join(words[edit[0]:edit[1]]) or '_'} -> {' '.join(edit[2]) or '_'}"

    kept = [token for token in protected_tokens(written) if token not in output]
    return {"written": written, "intended": intended, "output": output,
            "errors": len(wanted), "fixed": sorted(shown(e) for e in wanted & made),
            "missed": sorted(shown(e) for e in wanted - made), "wrong": sorted(shown(e) for e in made - wanted),
            "protected_changed": kept}


def why_missed(result: Any, missed: list[str]) -> dict[str, str]:
    """For each missed edit of a line (``their -> they're``), why the speller kept its first word, as
    its ``--json`` says: the decision that read it and kept it, the spelling scorer's best candidate
    for a word it looked at, or that nothing read it."""
    found = {}
    for edit in missed:
        token = edit.split(" -> ")[0].split(" ")[0].strip(".,!?;:")
        entry = next((w for w in result.words if w.word == token), None)
        if entry is None or entry.changed:
            continue  # a word made into something else: a wrong edit, shown as one
        if entry.decided_by:
            found[edit] = entry.decided_by
        elif entry.looked_at and entry.suggestions:
            best = entry.suggestions[0]
            found[edit] = f"looked at: {best.word} {best.probability:.2f}, below what a change needs"
        else:
            found[edit] = "read by no decision"
    return found


def evaluate(speller: Any, pairs: list[tuple[str, str]]) -> dict[str, Any]:
    results = list(speller.correct_lines([w for w, _ in pairs]))
    lines = [score_line(w, i, t.corrected) for (w, i), t in zip(pairs, results)]
    for line, result in zip(lines, results):
        line["why_missed"] = why_missed(result, line["missed"])
    errors = sum(line["errors"] for line in lines)
    fixed = sum(len(line["fixed"]) for line in lines)
    return {"lines": len(lines), "errors": errors, "fixed": fixed,
            "fixed_percent": round(100 * fixed / errors, 1) if errors else None,
            "wrong_edits": sum(len(line["wrong"]) for line in lines),
            "clean_lines": sum(1 for w, i in pairs if w == i),
            "protected_changed": sum(len(line["protected_changed"]) for line in lines),
            "per_line": lines}


def run(args: argparse.Namespace) -> dict[str, Any]:
    from charwise.speller import Speller

    result: dict[str, Any] = {"command": " ".join(["python -m benchmarks.correction.everyday",
                                                   *getattr(args, "argv", [])]),
                              "systems": {}}
    for system in args.systems:
        language, _, context = system.partition("+")
        speller = Speller.load(language, context=context or None)
        rows = {}
        for split in args.splits:
            path = DATA / f"{split}_{language}.tsv"
            rows[split] = evaluate(speller, read_pairs(path))
            row = rows[split]
            print(f"{system} {split}: {row['fixed']} of {row['errors']} errors fixed ({row['fixed_percent']} %), "
                  f"{row['wrong_edits']} wrong edits, {row['protected_changed']} protected tokens changed",
                  flush=True)
        result["systems"][system] = rows
    return result


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.2))
    labels, fixed, wrong = [], [], []
    for system, rows in result["systems"].items():
        for split, row in rows.items():
            labels.append(f"{system}\n{split}")
            fixed.append(row["fixed_percent"] or 0)
            wrong.append(row["wrong_edits"])
    positions = range(len(labels))
    ax.bar(positions, fixed, color="tab:green")
    for x, (f, w) in enumerate(zip(fixed, wrong)):
        ax.text(x, f + 1, f"{f:.0f} %\n{w} wrong", ha="center", fontsize=8)
    ax.set_xticks(list(positions), labels, fontsize=8)
    ax.set_ylim(0, 115)
    ax.set_ylabel("errors fixed (%)")
    ax.set_title("everyday errors, written by hand")
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", nargs="+", default=["en", "es"],
                        help="LANGUAGE or LANGUAGE+CONTEXT (en+smollm2): the spellers to run")
    parser.add_argument("--splits", nargs="+", default=["dev", "test"], choices=["dev", "test"])
    parser.add_argument("--out", type=Path, default=RESULTS / "everyday.json")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return write_result(args.out, run(args), plot)


if __name__ == "__main__":
    sys.exit(main())
