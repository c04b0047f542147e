"""Words split in two joined (``some one`` -> ``someone``): every candidate pair on real text, read by
hand, the shipped rules measured on them, and a decision fitted on them beside the rules.

    OMP_NUM_THREADS=2 python -m benchmarks.correction.joins                      # the default's rule
    OMP_NUM_THREADS=2 python -m benchmarks.correction.joins --context smollm2    # the language model's too

The default English speller, its joins and cuts left out (it joins before it cuts), corrects each
text; every pair of its output that may be one word split in two is a candidate
(:func:`~charwise.speller.run_together.join_candidates`: valid words of at least three letters each
whose join is valid and written at least as often as the pair), with its evidence: the gap (Zipf:
the joined word against the pair), the bigram margin between the neighbours (log10), a capital, a
verb and its particle by their word classes (``come back``, ``take off``) and, with ``--context``,
the language model's gain for the joined word (nats).

The rules shipped: the default joins where the bigram margin is above 0 and the gap at least
:data:`~charwise.speller.run_together.JOIN_GAP` (``gap rule``); with a language model, where the
bigram margin is above 0 and the model's gain at least
:data:`~charwise.speller.merges.MERGE_LM_MARGIN` (``lm rule``), each constant also swept on the
fitting texts (``rule_sweeps``: the value where right - 9 x wrong is highest, which the shipped one
should be). The fitted decision: a logistic
model over the evidence, fitted and its threshold chosen as ``benchmarks/correction/run_together.py``
does (out of fold, five folds by joined word, right - 9 x wrong at its highest). Roles are that
script's: ``dev`` and ``fresh`` texts are read whole (labels in ``merge_labels.tsv``, keyed by the
joined word and the pair in the speller's output); in the ``held-out`` texts (the ``rigo``, ``ile``
and ``palm`` tenths of WNUT17's raw tweets) the joins each rule makes are read.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from benchmarks.common.labels import fit_labelled, in_context, nine_to_one, read_labels, tallies
from benchmarks.common.paths import RESULTS
from benchmarks.common.report import write_result
from benchmarks.correction.render import render_joins as render  # noqa: F401  (make_results reads it)
from benchmarks.correction.run_together import FITTING, FOLDS, ROLES, STRENGTH, choose, plot, texts

os.environ.setdefault("HF_HUB_OFFLINE", "1")
WRITES = ("joins", "joins_smollm2")
PAGE = "correction-experiments.md"
LABELS = Path(__file__).parent / "merge_labels.tsv"
FEATURES = ("gap", "bigram margin", "capital", "phrasal")
# a verb and its particle (``come back``, ``take off``, ``run away``): right as written where its noun
# is written as one word (``comeback``, ``takeoff``)
PHRASAL = frozenset({("VERB", "ADP"), ("VERB", "ADV")})
# the values each rule's constant is swept over (the bigram margin above 0 in both): the gap (Zipf)
# and the language model's gain (nats)
SWEEPS = {"gap rule": (0, (0.0, 0.18, 0.5, 1.0, 1.25, 1.5, 2.0, 2.5)),
          "lm rule": (4, (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0))}


def word_evidence(words: list[str], i: int, classes: Any) -> list[float]:
    """A capital, and whether the pair is a verb and its particle (their word classes)."""
    first, second = words[i].lower(), words[i + 1].lower()
    phrasal = classes is not None and (classes.classes(first), classes.classes(second)) in PHRASAL
    return [float(words[i][:1].isupper()), float(phrasal)]


def candidates(roles: tuple[str, ...], limit: int | None, context: str | None = None) -> list[dict[str, Any]]:
    """Every candidate pair of the texts of ``roles``, with its features and hand label; with a
    ``context`` model, its gain for the joined word in place of the pair too (nats; the candidates
    and their neighbours are the default speller's)."""
    from charwise.speller import Speller
    from charwise.speller.class_context import ClassContext
    from charwise.speller.neural import load_context_model
    from charwise.speller.normalisation_judge import lm_gains
    from charwise.speller.run_together import MERGE, SPLIT, join_candidates
    from charwise.speller.settings import SpellerSettings

    kinds = tuple(k for k in SpellerSettings().changes if k not in (MERGE, SPLIT))
    speller = Speller.load("en", settings=SpellerSettings(changes=kinds))
    assert speller.normaliser is not None
    informal, labels = speller.normaliser.table.informal_words, read_labels(LABELS, keys=2)
    lm = None if context is None else load_context_model(context, "en")
    classes = ClassContext.load("en")
    found: list[dict[str, Any]] = []
    for role in roles:
        for name, lines in texts(role).items():
            rows = [text.words for text in speller.correct_lines(lines[:limit])]
            here = [(s, i, joined, [gap, margin, *word_evidence([e.correction for e in rows[s]], i, classes)])
                    for s, i, joined, gap, margin in join_candidates(rows, speller.lexicon, [True] * len(rows),
                                                                     informal)]
            if lm is not None:  # the pair read as one position, the joined word put in its place
                collapsed = [[*(w := [e.correction for e in rows[s]])[:i], f"{w[i]} {w[i + 1]}", *w[i + 2:]]
                             for s, i, _, _ in here]
                gains = lm_gains(lm, collapsed, [(k, i, collapsed[k][i], [joined])
                                                 for k, (_, i, joined, _) in enumerate(here)])
                here = [(s, i, joined, [*f, g[joined]]) for (s, i, joined, f), g in zip(here, gains)]
            for s, i, joined, features in here:
                words = [e.correction for e in rows[s]]
                shown = in_context(words, i, i + 2)
                label, why = labels.get((joined, shown), ("not labelled", ""))
                found.append({"role": role, "text": name, "word": joined, "pair": f"{words[i]} {words[i + 1]}",
                              "features": [round(v, 4) for v in features], "context": shown,
                              "label": label, "why": why})
    return found


def joined_by(rule: str, value: float, items: list[dict[str, Any]]) -> list[bool]:
    """Whether ``rule`` with its constant at ``value`` joins each pair: the bigram margin above 0 and
    the rule's evidence at ``value`` or more."""
    at = SWEEPS[rule][0]
    return [f["features"][1] > 0 and f["features"][at] >= value for f in items]


def sweep_rule(fitting: list[dict[str, Any]], rule: str) -> dict[str, Any]:
    """Each value of ``rule``'s constant: its joins on the fitting texts, and the value where right
    - 9 x wrong is highest (the lower of a tie)."""
    values = SWEEPS[rule][1]
    made = {f"{v:g}": tallies(fitting, joined_by(rule, v, fitting)) for v in values}
    return {"joins": made, "chosen": nine_to_one(made, values)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    from charwise.speller.logistic_decision import logistic
    from charwise.speller.merges import MERGE_LM_MARGIN
    from charwise.speller.run_together import JOIN_GAP

    found = candidates(args.roles, args.limit, args.context)
    missing = sum(f["label"] == "not labelled" and f["role"] in FITTING for f in found)
    if missing:
        print(f"{missing} candidates of the fitting texts are not labelled: read them and add them to "
              f"{LABELS.name}", file=sys.stderr)
    fitting = [f for f in found if f["role"] in FITTING and f["label"] != "not labelled"]
    weights, bias, oof = fit_labelled(fitting, STRENGTH, FOLDS)
    threshold, sweep = choose(fitting, oof)
    names = [*FEATURES, *([f"{args.context} gain"] if args.context else [])]
    decision = {"features": names, "weights": [round(w, 4) for w in weights], "bias": round(bias, 4),
                "threshold": threshold}
    for item, p in zip(fitting, oof):
        item["out_of_fold"] = round(p, 4)
    for item in found:
        item["probability"] = round(logistic(bias + sum(w * v for w, v in zip(weights, item["features"]))), 4)
    rules = {"gap rule": JOIN_GAP, **({"lm rule": MERGE_LM_MARGIN} if args.context else {})}  # as shipped
    by_text: dict[str, Any] = {}
    for name in dict.fromkeys(f["text"] for f in found):
        here = [f for f in found if f["text"] == name]
        scored = [f.get("out_of_fold", f["probability"]) for f in here]
        made = {rule: tallies(here, joined_by(rule, value, here)) for rule, value in rules.items()}
        by_text[name] = {"role": here[0]["role"], "candidates": len(here), **made,
                         "decision": tallies(here, [p >= threshold for p in scored])}
    given = ["--context", args.context] if args.context else []
    swept = {rule: sweep_rule(fitting, rule) for rule in rules}
    return {"command": " ".join(["python -m benchmarks.correction.joins", *given]), "unit": "joins",
            "context": args.context, "rules": rules, "rule_sweeps": swept, "roles": list(args.roles),
            "decision": decision, "sweep_out_of_fold": sweep,
            "texts": by_text, "found": sorted(found, key=lambda f: -f["probability"])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--roles", nargs="+", choices=ROLES, default=ROLES)
    parser.add_argument("--limit", type=int, default=None, help="the first lines of each text only")
    parser.add_argument("--context", choices=("smollm2",), default=None,
                        help="fit with this language model's gain for each join as a fifth feature")
    parser.add_argument("--out", type=Path, default=None,
                        help="default: results/joins.json, joins_smollm2.json with --context")
    args = parser.parse_args(argv)
    args.out = args.out or RESULTS / f"joins{'' if args.context is None else '_' + args.context}.json"
    args.roles = tuple(args.roles)
    if not set(FITTING) <= set(args.roles):
        parser.error("the decision is fitted on the dev and fresh texts: --roles must include both")
    return write_result(args.out, run(args), plot)


if __name__ == "__main__":
    sys.exit(main())
