"""Why `repair` wins back only part of what typos cost a tagger: what happens to each planted typo.

    OMP_NUM_THREADS=1 python -m benchmarks.hybrid.typo_coverage    # -> results/typo_coverage.json + .png

The tagging protocol's typos (``charwise.tagging.evaluate.noisy_sentences``: one edit in 20 % of the
words of five letters or more, Char2Subword's six operations less case toggling for an uncased
teacher, seed 0) are planted in WNUT17's development and test tweets, and the default English
speller corrects them as `repair` runs it (``Speller.correct_words``, its own threshold). Each typo'd
word, entity words (tagged ``B-``/``I-``) and the others apart, ends in one of:

* **fixed**: the speller's correction is the word as written before the typo;
* **changed to another word**;
* **already a word**: the typo made another valid word (``shirt`` for ``short``), which the speller
  does not look at;
* **not looked at, capital inside a sentence**: a capitalised word after a sentence's first, read as
  a name (``Clnton``, ``Dpnald``);
* **not looked at, mark or digit inside**: a word holding a character that is no letter (``busin&ess``,
  ``mart9n``: the ``punct`` operation and keys of the digit row), which the speller leaves as it
  leaves code and identifiers;
* **not looked at, other** (too short or long, protected, capitals inside a word);
* **looked at, left**: below the threshold.

Then the character encoder's answer for what the speller leaves: for every word `repair` leaves that
the lexicon does not know and the teacher splits into pieces (what ``repair+oov`` builds from
characters), the nearest whole-word row to its raw vector (``manifold=False``, the better vector for
ranking), and at each cosine threshold how many typos that row would put right, put wrong, and how many
words without a typo it would change, in the tweets with typos and in the clean tweets. A policy
that replaced a word by its nearest row only above such a cosine is what this measures, without
training a tagger.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.common.markdown import table  # noqa: E402
from benchmarks.common.paths import RESULTS  # noqa: E402
from benchmarks.common.report import pyplot, save_figure, write_result  # noqa: E402

WRITES = ("typo_coverage",)
PAGE = "tagging.md"
RATE, SEED = 0.2, 0  # the tagging protocol's typos (docs/tagging.md)
COSINES = (0.35, 0.4, 0.45, 0.5, 0.55)
OUTCOMES = ("fixed", "changed to another word", "already a word", "not looked at, capital inside a sentence",
            "not looked at, mark or digit inside", "not looked at, other", "looked at, left")
SHOWN = 12


def read_as(entry: Any, word: str) -> str:
    """The word `repair` hands the model for ``word``: its correction, unless the speller joined it to
    the next word (a join `repair` never makes: the model's positions could not follow it)."""
    return entry.correction if entry.changed and entry.kind != "merge" else word


def outcome(speller: Any, clean: str, typo: str, entry: Any, first: bool) -> str:
    """What the speller made of one typo'd word (see the module docstring)."""
    out = read_as(entry, typo)
    if out == clean:
        return "fixed"
    if out != typo:
        return "changed to another word"
    if speller.lexicon.accepts(typo) or speller.lexicon.accepts(typo.lower()):
        return "already a word"
    if entry.looked_at:
        return "looked at, left"
    if typo[:1].isupper() and not first and not typo.isupper():
        return "not looked at, capital inside a sentence"
    if any(not c.isalpha() for c in typo):
        return "not looked at, mark or digit inside"
    return "not looked at, other"


def coverage(speller: Any, clean: list[Any], noisy: list[Any], corrected: list[Any]) -> dict[str, Any]:
    """Each typo's outcome (``corrected``: the speller's reading of ``noisy``), per group (entity,
    other), with examples."""
    counts: dict[str, Counter[str]] = {"entity": Counter(), "other": Counter()}
    shown: dict[str, list[str]] = {}
    for gold, typed, entries in zip(clean, noisy, corrected):
        for i, (g, w, entry, tag) in enumerate(zip(gold.words, typed.words, entries, gold.tags)):
            if g == w:
                continue
            kind = outcome(speller, g, w, entry, i == 0)
            group = "entity" if tag != "O" else "other"
            counts[group][kind] += 1
            examples = shown.setdefault(f"{group}: {kind}", [])
            if len(examples) < SHOWN:
                examples.append(f"{g} -> {w} -> {read_as(entry, w)}")
    return {"typos": {g: sum(c.values()) for g, c in counts.items()},
            "outcomes": {g: {k: c[k] for k in OUTCOMES} for g, c in counts.items()}, "examples": shown}


def left_words(speller: Any, teacher: Any, clean: list[Any], typed: list[Any],
               corrected: list[Any]) -> list[tuple[str, str, bool]]:
    """(word before the typo, word as read, entity) for each word `repair` leaves (``corrected``: the
    speller's reading of ``typed``) that the lexicon does not know and the teacher splits: the words
    ``repair+oov`` builds from characters."""
    kinds, out = teacher.vocab.kinds, []
    for gold, sentence, entries in zip(clean, typed, corrected):
        pieces = teacher.piece_ids(list(sentence.words))
        for g, w, entry, ids, tag in zip(gold.words, sentence.words, entries, pieces, gold.tags):
            if entry.changed or entry.protected or len(w) < 3 or not any(c.isalpha() for c in w):
                continue
            if speller.lexicon.accepts(w) or speller.lexicon.accepts(w.lower()):
                continue
            if len(ids) == 1 and kinds[ids[0]] == "normal":
                continue
            out.append((g, w, tag != "O"))
    return out


def nearest_rows(encoder: Any, teacher: Any, words: list[str]) -> tuple[list[str], list[float]]:
    """Each word's nearest whole-word row (its word, lower-case) and the cosine, from its raw vector."""
    from charwise.retrieval import topk_rows, whole_word_mask

    if not words:
        return [], []
    scores, ids = topk_rows(encoder.embed(words, manifold=False), teacher.embeddings, 1,
                            candidates=whole_word_mask(teacher))
    surfaces = teacher.vocab.surfaces
    return [surfaces[i].lower() for i in ids[:, 0].tolist()], scores[:, 0].tolist()


SNAPPED = ("typos put right", "typos put wrong", "clean words changed", "clean entity words changed")


def snapping(rows: list[tuple[str, str, bool]], nearest: list[str], cosines: list[float],
             one_edit: bool = False) -> list[dict[str, Any]]:
    """At each cosine of :data:`COSINES`: the typos the nearest row would put right, put wrong, and
    the words without a typo it would change (entity words among them); ``one_edit``: only where the
    row is one edit from the word as read (a typo is one edit)."""
    from charwise.typos.distance import osa_distance

    out = []
    for threshold in COSINES:
        row: Counter[str] = Counter()
        for (gold, word, entity), near, cos in zip(rows, nearest, cosines):
            if cos < threshold or near == word.lower() or (one_edit and osa_distance(near, word.lower()) != 1):
                continue
            if gold == word:
                row["clean words changed"] += 1
                row["clean entity words changed"] += entity
            else:
                row["typos put right" if near == gold.lower() else "typos put wrong"] += 1
        out.append({"cosine": threshold, **{k: row[k] for k in SNAPPED}})
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    from charwise.encoders.shipped import load
    from charwise.speller.repair import shared_speller
    from charwise.tagging.data import load_task
    from charwise.tagging.evaluate import noisy_sentences
    from charwise.teachers import Teacher

    teacher, encoder, speller = Teacher.load("minilm"), load("minilm"), shared_speller("en")
    task = load_task("wnut17", splits=tuple(args.splits))
    result: dict[str, Any] = {"command": f"python -m benchmarks.hybrid.typo_coverage --splits {' '.join(args.splits)}",
                              "rate": RATE, "seed": SEED, "threshold": speller.settings.threshold, "splits": {}}
    for split in args.splits:
        clean = getattr(task, split)
        noisy, share = noisy_sentences(clean, RATE, SEED, teacher)
        read = {text: speller.correct_words([list(s.words) for s in typed])
                for text, typed in (("with typos", noisy), ("clean", clean))}
        found: dict[str, Any] = {"words_changed_percent": round(100 * share, 2),
                                 **coverage(speller, clean, noisy, read["with typos"])}
        for text, typed in (("with typos", noisy), ("clean", clean)):
            rows = left_words(speller, teacher, clean, typed, read[text])
            nearest, cosines = nearest_rows(encoder, teacher, [w for _, w, _ in rows])
            found[f"left, {text}"] = {"words": len(rows), "typos": sum(g != w for g, w, _ in rows),
                                      "nearest_is_intended": sum(n == g.lower() for (g, w, _), n in zip(rows, nearest)
                                                                 if g != w),
                                      "by_cosine": snapping(rows, nearest, cosines),
                                      "by_cosine_one_edit": snapping(rows, nearest, cosines, one_edit=True)}
        result["splits"][split] = found
        print(f"{split}: {found['typos']} typos, outcomes {found['outcomes']}", flush=True)
    return result


def render(result: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for split, found in result["splits"].items():
        rows = [[k, *(str(found["outcomes"][g][k]) for g in ("entity", "other"))] for k in OUTCOMES]
        rows.append(["all typos", *(str(found["typos"][g]) for g in ("entity", "other"))])
        lines += [f"WNUT17 {split}, what the speller makes of each typo (entity words / others):", "",
                  *table(["outcome", "entity", "other"], rows, {1, 2}), ""]
        for text in ("with typos", "clean"):
            part = found[f"left, {text}"]
            lines += [f"Words `repair` leaves that the teacher splits, {text} ({part['words']} words, "
                      f"{part['typos']} with a typo; nearest row the intended word for {part['nearest_is_intended']}), "
                      "replaced by their nearest row at a cosine (any row / only a row one edit away):", "",
                      *table(["cosine >=", *SNAPPED],
                             [[str(r["cosine"]), *(f"{r[k]} / {e[k]}" for k in SNAPPED)]
                              for r, e in zip(part["by_cosine"], part["by_cosine_one_edit"])], {0, 1, 2, 3, 4}), ""]
    return lines


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    splits = list(result["splits"])
    fig, axes = plt.subplots(1, len(splits), figsize=(6 * len(splits), 3.8), squeeze=False)
    for ax, split in zip(axes[0], splits):
        found = result["splits"][split]
        left = [0, 0]
        for k in OUTCOMES:
            values = [found["outcomes"][g][k] for g in ("entity", "other")]
            ax.barh(["entity words", "other words"], values, left=left, label=k)
            left = [a + b for a, b in zip(left, values)]
        ax.set_xlabel("typos planted")
        ax.set_title(f"WNUT17 {split}: what the speller makes of each typo")
    axes[0][0].legend(fontsize=7, loc="lower right")
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", nargs="+", default=["dev", "test"], choices=["dev", "test"])
    parser.add_argument("--out", type=Path, default=RESULTS / "typo_coverage.json")
    args = parser.parse_args(argv)
    return write_result(args.out, run(args), plot)


if __name__ == "__main__":
    sys.exit(main())
