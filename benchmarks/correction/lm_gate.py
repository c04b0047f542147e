"""Which words SmolLM2 reads for the normaliser's LM judge: the band of the plain judge's probability.

    python -m benchmarks.correction.lm_gate   # -> benchmarks/results/lm_gate.json + .png

With ``--context smollm2`` in ``--style social`` the language model reads a word only when the plain
judge's best probability for it lies in ``Normaliser.lm_doubt`` (:data:`LM_DOUBT`); each word read
costs a pass of the model over its window with the written word and every candidate in its place.
The band therefore sets the speed of the mode. This sweeps bands on the LexNorm 2015 training
tweets (development data), in the two folds of ``lexnorm.py``: for each band, each fold's LM judge is
fitted on the learning half with the model's gains for the words that band reads, then the other
half is corrected. Reported: ERR, misspellings fixed and damage summed over both held-out halves,
and what the model read there (words, and variants: the texts it scored). Every band reads the
same remembered window scores, so the bands differ only in which words are read.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.common.paths import RESULTS, SPELLING_DATA  # noqa: E402
from benchmarks.common.report import invocation, pyplot, write_result  # noqa: E402
from benchmarks.correction.lexnorm import MAX_DAMAGE, RememberedLM  # noqa: E402
from benchmarks.correction.render import render_lm_gate as render  # noqa: E402, F401  (make_results reads it)

WRITES = ("lm_gate",)
PAGE = "correction-experiments.md"
BANDS = ((0.05, 0.95), (0.05, 0.9), (0.05, 0.85), (0.1, 0.95), (0.1, 0.9), (0.15, 0.9), (0.2, 0.95), (0.2, 0.9),
         (0.3, 0.95), (0.3, 0.8))


class CountedLM(RememberedLM):
    """:class:`RememberedLM` that counts the words and variants it is asked for while ``counting``."""

    def __init__(self, lm: Any) -> None:
        super().__init__(lm)
        self.counting, self.words, self.variants = False, 0, 0

    def score(self, sentences: list[list[str]], targets: list[tuple[int, int]], candidates: list[list[str]]
              ) -> list[list[float]]:
        if self.counting:
            self.words += len(targets)
            self.variants += sum(map(len, candidates))
        return super().score(sentences, targets, candidates)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SPELLING_DATA)
    parser.add_argument("--out", type=Path, default=RESULTS / "lm_gate.json")
    args = parser.parse_args(argv)
    return write_result(args.out, {"command": invocation("benchmarks.correction.lm_gate", argv), **run(args)}, plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.correction.lexnorm import (
        TWEETS,
        UNDO_BELOW,
        fit_lm_judge,
        learned_normaliser,
        read_tweets,
        score_changes,
        speller_outputs,
        speller_with,
        summed,
    )
    from charwise.speller import Speller, SpellerSettings
    from charwise.speller.corrections import SPELLING
    from charwise.speller.neural import LMReranker
    from charwise.speller.normalisation_judge import LM_DOUBT

    tweets = read_tweets(args.data / TWEETS)
    half = len(tweets) // 2
    halves = [tweets[:half], tweets[half:]]
    lm = CountedLM(LMReranker.load("smollm2"))
    spelling = Speller.load("en", settings=SpellerSettings(changes=SPELLING))
    folds = []
    for k in (0, 1):  # what does not depend on the band: each learning half's normaliser, plain judge, choices
        normaliser, _, choices, sentences = learned_normaliser(spelling, halves[k], MAX_DAMAGE, UNDO_BELOW)
        folds.append((halves[k], halves[1 - k], normaliser, choices, sentences))
    rows = []
    for band in BANDS:
        lm.words = lm.variants = 0
        parts = []
        for learn, test, normaliser, choices, sentences in folds:
            normaliser.lm_doubt = band
            fit_lm_judge(normaliser, learn, choices, sentences, lm, MAX_DAMAGE, UNDO_BELOW)
            lm.counting = True
            try:
                changes = speller_outputs(speller_with(spelling, normaliser, "social", lm), test)[0]
            finally:
                lm.counting = False
            parts.append({"systems": {"lm": score_changes(test, changes)}})
        s = summed(parts, "lm")
        rows.append({"band": list(band), "shipped": band == LM_DOUBT, "err": s["err"],
                     "misspellings_fixed": s["misspellings_fixed"], "damage": s["damage"],
                     "folds_err": [p["systems"]["lm"]["err"] for p in parts],
                     "words_read": lm.words, "variants_read": lm.variants,
                     "variants_per_tweet": round(lm.variants / len(tweets), 2)})
        print(f"band {band}: ERR {s['err']}, damage {s['damage']} %, {lm.variants} variants", file=sys.stderr)
    return {"roles": "development only (LexNorm 2015 training tweets, two held-out halves)",
            "tweets": len(tweets), "max_damage": MAX_DAMAGE, "bands": rows}


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for row in result["bands"]:
        ok = row["damage"] <= 100 * result["max_damage"]
        ax.scatter(row["variants_per_tweet"], row["err"], marker="*" if row["shipped"] else "o",
                   s=140 if row["shipped"] else 40, color="tab:blue" if ok else "tab:red")
        ax.annotate(f"{row['band'][0]:g}-{row['band'][1]:g}", (row["variants_per_tweet"], row["err"]),
                    textcoords="offset points", xytext=(4, 3), fontsize=7)
    ax.set_xlabel("texts SmolLM2 scores per tweet (the cost)")
    ax.set_ylabel("ERR, both held-out halves")
    ax.set_title("LM judge: band of the plain judge's probability read\n(red: damage above "
                 f"{100 * result['max_damage']:g} %; star: shipped)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
