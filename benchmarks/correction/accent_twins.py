"""Spanish accent twins (el/él, mas/más, esta/está): accents taken out of correct text, put back from the sentence.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.accent_twins     # -> results/accent_twins.json/.png

The Spanish confusion sets (``charwise.speller.real_words.CONFUSION_SETS["es"]``: a word and its
accented twin, both valid) are judged by the bigram counts of the Bible's training verses. Here
each member of a set is written without its accent in correct text and the checker
(``RealWordChecker.load("es")``, the margin the speller uses and others) decides from its
neighbours; as in the speller, only an accent left out is put back. Text:

* the Bible's **dev** verses (1,000; the split of ``charwise.translation.data.split_pairs``, never
  counted), where the margin may be chosen, and its **test** verses (reported);
* **tweets that write accents**: the Tweet-Norm 2013 development tweets (``--data``) with at least one
  accented letter, whose writers are taken to mean the accents they wrote (and not those they left
  out: a few of these "wrong" changes are right, as listed).

**Fixed**: accents put back where the text had them, over the members that had one; **wrong**: a
member changed that the text had written without an accent, over those members.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Sequence

from benchmarks.common.paths import RESULTS, SPELLING_DATA
from benchmarks.common.report import pyplot, write_result
from benchmarks.correction.render import render_accent_twins as render  # noqa: F401  (make_results reads it)
from benchmarks.correction.tweetnorm import read_development
from charwise.speller.corrections import restores_accents
from charwise.speller.lexicon import strip_accents
from charwise.speller.real_words import RealWordChecker
from charwise.speller.settings import SpellerSettings

WRITES = ("accent_twins",)
PAGE = "correction-experiments.md"
MARGINS = (0.5, 1.0, 2.0, 3.0)


def restore(checker: RealWordChecker, texts: Sequence[Sequence[str]], margin: float) -> dict[str, Any]:
    """Accents of the sets' members taken out of ``texts`` and put back at ``margin``."""
    fixed = needing = wrong = plain = 0
    wrong_shown: list[str] = []
    for gold in texts:
        written = [strip_accents(w) if w.lower() in checker.alternatives else w for w in gold]
        out = list(written)
        for i, word in enumerate(written):
            if word in checker:
                found = checker.check(out, i, margin)
                if found is not None and restores_accents(word.lower(), found):
                    out[i] = found
        for i, (g, w, o) in enumerate(zip(gold, written, out)):
            if w.lower() not in checker.alternatives:
                continue
            if g.lower() != w.lower():
                needing += 1
                fixed += o.lower() == g.lower()
            else:
                plain += 1
                if o.lower() != w.lower():
                    wrong += 1
                    wrong_shown.append(" ".join(out[max(0, i - 3) : i + 4]) + f"  [written: {g}]")
    return {"members_with_accent": needing, "fixed": round(100 * fixed / max(needing, 1), 2),
            "members_without": plain, "wrong": round(100 * wrong / max(plain, 1), 3), "wrong_count": wrong,
            "wrong_shown": wrong_shown[:20]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SPELLING_DATA / "tweetnorm_es")
    parser.add_argument("--out", type=Path, default=RESULTS / "accent_twins.json")
    args = parser.parse_args(argv)
    given = argv if argv is not None else sys.argv[1:]
    command = " ".join(["python -m benchmarks.correction.accent_twins", *given])
    return write_result(args.out, {"command": command, **run(args)}, plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every text's accents put back at each margin (the command line is ``main``'s to record)."""
    from charwise.translation.data import read_pairs, source_words, split_pairs

    checker = RealWordChecker.load("es")
    parts = split_pairs(read_pairs())
    texts = {split: [source_words(p.source) for p in parts[split]] for split in ("dev", "test")}
    tweets, _, _ = read_development(args.data)
    texts["tweets"] = [[raw for raw, _ in t] for t in tweets if any(strip_accents(raw) != raw for raw, _ in t)]
    default = SpellerSettings().real_word_margin
    return {
        "sets": len({tuple(sorted((w, *o))) for w, o in checker.alternatives.items()}), "default_margin": default,
        "texts": {k: len(v) for k, v in texts.items()},
        "by_margin": {name: {str(m): restore(checker, v, m) for m in sorted({*MARGINS, default})}
                      for name, v in texts.items()}}


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, rows in result["by_margin"].items():
        ax.plot([r["wrong"] for r in rows.values()], [r["fixed"] for r in rows.values()], "o-", label=name)
    ax.set_xlabel("members without an accent given one (%)")
    ax.set_ylabel("accents put back (%)")
    ax.set_title("Spanish accent twins, margin swept")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
