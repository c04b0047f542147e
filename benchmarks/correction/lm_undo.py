"""With SmolLM2 (``--context smollm2``), how is the speller's own correction in a social sentence undone
when the LM judge takes no candidate over it: below which probability of the LM judge, or by the fitted
undo decision (`charwise.speller.social_undo`) reading the plain judge? On the LexNorm 2015 training
tweets' two held-out halves.

    OMP_NUM_THREADS=2 python -m benchmarks.correction.lm_undo     # -> results/lm_undo.json/.png (9 minutes)

The plain judge's ``undo_below`` (0.3) was chosen on these folds, and the default's undo decision
replaced it; the LM judge's probabilities for the speller's candidates run lower (a speller candidate the
language model reads was, in the tweets it learned from, mostly a name): with a @handle in the line,
``thanks for the recieved package`` kept ``recieved``. Each fold learns the table, both judges and their
thresholds on one half (``lexnorm.run_fold``'s protocol) and runs ``charwise --style social --context
smollm2`` on the other at each ``undo_below`` of the sweep and then with the undo decision; the language
model's window scores are remembered, so the whole costs one reading. Measure: ERR summed over both folds
(MultiLexNorm's, which counts a wrong change against a right one), the lower damage on a tie. ``shipped``
says which wins: the undo decision (what the normaliser does with a model since 2026-12-02), or the best
``undo_below`` (``charwise.speller.normalisation_judge.LM_UNDO_BELOW``, which ``lexnorm.py --ship`` writes
into ``judge-lm.json``, read where no undo decision ships).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from benchmarks.common.markdown import render_generic as render  # noqa: F401  (make_results reads it)
from benchmarks.common.paths import RESULTS, SPELLING_DATA
from benchmarks.common.report import pyplot, save_figure, write_result
from benchmarks.correction.lexnorm import (
    MAX_DAMAGE,
    SPELLING,
    TWEETS,
    RememberedLM,
    fit_lm_judge,
    learned_normaliser,
    read_tweets,
    score_changes,
    speller_outputs,
    speller_with,
    summed,
)
from charwise.speller import Speller, SpellerSettings
from charwise.speller.normalisation_judge import UNDO_BELOW

WRITES = ("lm_undo",)
PAGE = "correction-experiments.md"
UNDOS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.3)
DECISION = "undo_decision"  # the row of the fitted undo decision (charwise.speller.social_undo)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from charwise.speller.neural import LMReranker

    tweets = read_tweets(args.data / TWEETS)
    lm = RememberedLM(LMReranker.load("smollm2"))
    half = len(tweets) // 2
    halves = [tweets[:half], tweets[half:]]
    spelling = Speller.load("en", settings=SpellerSettings(changes=SPELLING))
    parts: list[dict[str, Any]] = []
    for k in (0, 1):
        learn, test = halves[k], halves[1 - k]
        normaliser, _, choices, sentences = learned_normaliser(spelling, learn, args.max_damage, UNDO_BELOW)
        fit_lm_judge(normaliser, learn, choices, sentences, lm, args.max_damage, UNDO_BELOW)
        assert normaliser.lm_judge is not None
        with_lm = speller_with(spelling, normaliser, "social", lm)
        parts.append({"systems": {}})
        decision, normaliser.undo = normaliser.undo, None  # first the LM judge's own undo_below, swept
        for undo in (*UNDOS, DECISION):
            if undo == DECISION:  # the fitted undo decision (social_undo.json), reading the plain judge
                normaliser.undo = decision
            else:
                normaliser.lm_judge.undo_below = undo
            with_lm.clear_cache()
            scores = score_changes(test, speller_outputs(with_lm, test)[0])
            parts[-1]["systems"][str(undo)] = scores
            print(f"fold {k}, undo {undo}: ERR {scores['err']}, misspellings fixed "
                  f"{scores['misspellings_fixed']}, damage {scores['damage']}", file=sys.stderr, flush=True)
    sums = {}
    for undo in (*map(str, UNDOS), DECISION):
        s = summed(parts, undo)
        sums[undo] = {"err": s["err"], "misspellings_fixed": s["misspellings_fixed"], "damage": s["damage"],
                      "folds": [{k: p["systems"][undo][k] for k in ("err", "misspellings_fixed", "damage",
                                                                     "changed_wrongly")} for p in parts]}
    fitted = sums.pop(DECISION)
    chosen = max(sums, key=lambda u: (sums[u]["err"], -sums[u]["damage"]))
    best = sums[chosen]
    shipped = DECISION if (fitted["err"], -fitted["damage"]) >= (best["err"], -best["damage"]) else "undo_below"
    return {"data": "lexnorm2015_en/train.norm (development / training split), two halves", "tweets": len(tweets),
            "max_damage": args.max_damage, "undo_below": sums, "chosen": float(chosen), DECISION: fitted,
            "shipped": shipped}


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    undos = [float(u) for u in result["undo_below"]]
    rows = list(result["undo_below"].values())
    ax.plot(undos, [r["err"] for r in rows], "o-", label="ERR")
    ax.plot(undos, [r["misspellings_fixed"] for r in rows], "s-", label="misspellings fixed (%)")
    ax.axvline(result["chosen"], color="grey", linestyle=":", label=f"best undo_below: {result['chosen']}")
    if DECISION in result:
        ax.axhline(result[DECISION]["err"], color="C2", linestyle="--", label="ERR, the undo decision")
    ax.set_xlabel("LM judge's undo_below")
    ax.set_title("--context smollm2 on LexNorm 2015, held-out halves")
    ax.legend(fontsize=8)
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SPELLING_DATA)
    parser.add_argument("--max-damage", type=float, default=MAX_DAMAGE, help="damage a chosen threshold may cause")
    parser.add_argument("--out", type=Path, default=RESULTS / "lm_undo.json")
    args = parser.parse_args(argv)
    given = argv if argv is not None else sys.argv[1:]
    command = " ".join(["python -m benchmarks.correction.lm_undo", *given])
    return write_result(args.out, {"command": command, **run(args)}, plot)


if __name__ == "__main__":
    raise SystemExit(main())
