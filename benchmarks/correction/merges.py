"""Split words joined (``some one`` -> ``someone``): every pair the bigram counts would join, on real
text, with the language model's gain, read by hand; how many joins each margin makes and how many
are right.

    OMP_NUM_THREADS=2 python -m benchmarks.correction.merges

The default English speller (``Speller.load("en")``, as ``charwise correct`` runs it) corrects each
text; in its output every pair of valid, unchanged words whose join is a valid word is a candidate
(:func:`charwise.speller.merges.merge_targets`), and those the bigram counts favour joined
(:func:`~charwise.speller.merges.bigram_margin` > 0) are listed with SmolLM2's gain for the joined
word (nats, :func:`~charwise.speller.normalisation_judge.lm_gains`, the speller's own window) and the
hand label of ``merge_labels.tsv`` (right or wrong, why); a pair without a label is counted ``not
labelled`` and the run says so. The speller with ``context="smollm2"`` joins a pair when its gain
reaches :data:`~charwise.speller.merges.MERGE_LM_MARGIN`; here the neighbours are those of the speller
without the model (the model's own second look changes a few other words of a sentence).

Pairs of words shorter than :data:`~charwise.speller.merges.MIN_PART` letters (``so me``, ``in to``)
are listed too, marked ``short``: the shipped rule leaves them, and the sweep counts both.

Roles: the margin and the shortest part were chosen on ``choose`` (the LexNorm 2015 training tweets,
whose annotators joined a few pairs: ``head ache``, ``screen shot``; UD EWT dev; the ``gurez`` tenth
of WNUT17's raw tweets and web text); ``read`` (the ``ile``, ``palm`` and ``rigo`` tenths) was read in
the same pass, before the shortest part was set, so it is no independent test; ``fresh`` (UD EWT train
and test, as raw text; the WNUT17 NER tweets and comments, as tokens) was read only after both were
fixed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from benchmarks.common.labels import in_context, read_labels, tally
from benchmarks.common.paths import RESULTS, SPELLING_DATA
from benchmarks.common.report import pyplot, save_figure, write_result
from benchmarks.common.retrieval import ewt_texts
from benchmarks.correction.render import render_merges as render  # noqa: F401  (make_results reads it)

WRITES = ("merges",)
PAGE = "correction-experiments.md"
LABELS = Path(__file__).parent / "merge_labels.tsv"
DATA = Path(__file__).resolve().parents[2] / "src" / "charwise" / "data"
RAW = DATA / "wnut17" / "raw_text"
ROLES = {"lexnorm2015 train": "choose", "ud ewt dev": "choose", "wnut17 raw gurez": "choose",
         "wnut17 raw ile": "read", "wnut17 raw palm": "read", "wnut17 raw rigo": "read",
         "ud ewt train": "fresh", "ud ewt test": "fresh", "wnut17 ner": "fresh"}
WNUT17_NER = ("wnut17train.conll", "emerging.dev.conll", "emerging.test.annotated")
MARGINS = (0.0, 1.0, 2.0, 3.0, 4.0, 6.0)  # nats swept

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def corrected_texts(speller: Any, spelling_data: Path) -> dict[str, list[list[Any]]]:
    """The speller's output for each text."""
    from benchmarks.correction.lexnorm import read_tweets
    from charwise.corpora import parse_labelled_conll

    tweets = read_tweets(spelling_data / "lexnorm2015_en" / "train.norm")
    out = {"lexnorm2015 train": speller.correct_words([[raw for raw, _ in t] for t in tweets])}
    ner = [s.words for file in WNUT17_NER for s in parse_labelled_conll(
        (DATA / "wnut17" / file).read_text(encoding="utf-8").splitlines(), require_tags=False, source=file)]
    out["wnut17 ner"] = speller.correct_words(ner)
    lines = {f"ud ewt {split}": ewt_texts(DATA / "ud_en_ewt" / f"en_ewt-ud-{split}.conllu")
             for split in ("dev", "train", "test")}
    lines.update({f"wnut17 raw {name}": (RAW / f"{name}.10000").read_text(encoding="utf-8").splitlines()
                  for name in ("gurez", "ile", "palm", "rigo")})
    for name, texts in lines.items():  # whole lines, cut into words as ``charwise correct`` cuts them
        out[name] = [text.words for text in speller.correct_lines(texts)]
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    from charwise.speller import Speller
    from charwise.speller.context import NgramContext
    from charwise.speller.merges import MERGE_LM_MARGIN, MIN_PART, bigram_margin, merge_targets
    from charwise.speller.neural import LMReranker
    from charwise.speller.normalisation_judge import lm_gains

    labels = read_labels(LABELS, keys=2)
    from charwise.speller.settings import SpellerSettings

    # the default speller without its own joins (charwise.speller.run_together): every pair stays a candidate
    kinds = tuple(k for k in SpellerSettings().changes if k != "merge")
    speller = Speller.load("en", settings=SpellerSettings(changes=kinds))
    informal = speller.normaliser.table.informal_words if speller.normaliser is not None else frozenset()
    counts = NgramContext.load("en")
    pairs, texts = [], {}
    for name, rows in corrected_texts(speller, args.data).items():
        texts[name] = {"role": ROLES[name], "sentences": len(rows), "words": sum(map(len, rows)), "candidates": 0}
        for row in rows:
            words = [entry.correction for entry in row]
            for i in merge_targets(speller.lexicon, row, True, informal, min_part=2):
                short = min(len(words[i]), len(words[i + 1])) < MIN_PART
                texts[name]["candidates"] += not short
                margin = bigram_margin(counts, words, i)
                if margin <= 0:
                    continue
                joined = (words[i] + words[i + 1]).lower()
                shown = in_context(words, i, i + 2)
                label, why = labels.get((joined, shown), ("not labelled", ""))
                pair = {"text": name, "role": ROLES[name], "pair": f"{words[i]} {words[i + 1]}", "joined": joined,
                        "bigram_margin": round(margin, 2), "context": shown, "label": label, "why": why, "short": short,
                        "collapsed": [*words[:i], f"{words[i]} {words[i + 1]}", *words[i + 2:]], "at": i}
                pairs.append(pair)
    lm = LMReranker.load("smollm2")
    gains = lm_gains(lm, [p.pop("collapsed") for p in pairs],
                     [(k, p.pop("at"), p["pair"], [p["joined"]]) for k, p in enumerate(pairs)])
    for pair, row in zip(pairs, gains):
        pair["lm_gain"] = round(row[pair["joined"]], 2)
    missing = sum(p["label"] == "not labelled" for p in pairs)
    if missing:
        print(f"{missing} pairs are not labelled yet: read them and add them to {LABELS.name}", file=sys.stderr)

    roles = ("choose", "read", "fresh")
    shipped = [p for p in pairs if not p["short"]]
    sweep = {role: {f"{m:g}": tally([p for p in shipped if p["role"] == role and p["lm_gain"] >= m]) for m in MARGINS}
             for role in roles}
    with_short = {role: tally([p for p in pairs if p["role"] == role and p["lm_gain"] >= MERGE_LM_MARGIN])
                  for role in roles}
    bigrams_alone = {role: tally([p for p in shipped if p["role"] == role]) for role in roles}
    return {"command": "OMP_NUM_THREADS=2 python -m benchmarks.correction.merges", "shipped_margin": MERGE_LM_MARGIN,
            "min_part": MIN_PART, "texts": texts,
            "pairs": sorted(pairs, key=lambda p: (-p["lm_gain"], p["text"], p["context"])),
            "sweep": sweep, "with_short_pairs": with_short, "bigrams_alone": bigrams_alone}


def plot(result: dict[str, Any], path: Path) -> None:
    """Right and wrong joins against the language model's margin, per role."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(result["sweep"]), figsize=(11, 3.4), sharey=True)
    for ax, (role, sweep) in zip(axes, result["sweep"].items()):
        margins = [float(m) for m in sweep]
        for label, colour in (("right", "tab:green"), ("wrong", "tab:red")):
            ax.plot(margins, [sweep[m][label] for m in sweep], marker="o", color=colour, label=label)
        ax.axvline(result["shipped_margin"], color="gray", linestyle=":")
        ax.set_title(f"{role} texts")
        ax.set_xlabel("LM margin (nats)")
    axes[0].set_ylabel("pairs joined")
    axes[0].legend(frameon=False)
    fig.suptitle("Split words joined: bigram counts and SmolLM2 agreeing, read by hand")
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SPELLING_DATA, help="the spelling benchmarks (LexNorm 2015)")
    parser.add_argument("--out", type=Path, default=RESULTS / "merges.json")
    args = parser.parse_args(argv)
    return write_result(args.out, run(args), plot)


if __name__ == "__main__":
    sys.exit(main())
