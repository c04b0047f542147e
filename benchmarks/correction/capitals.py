"""A capitalised word at a sentence start or a word in capitals: a misspelling (``Teh``,
``Wierd``, ``WENSDAY``) or a name (``Bisconti``, ``GPSA``)? The capitals decision fitted on
development text and shipped with the scorer (:mod:`charwise.speller.capital_decision`), beside the
earlier rule, a higher threshold on the scorer's probability.

    OMP_NUM_THREADS=2 python -m benchmarks.correction.capitals          # -> results/capitals.json + .png
    OMP_NUM_THREADS=2 python -m benchmarks.correction.capitals --ship   # and writes the decision into
                                                                        # the English scorer's config.json

The rows the decision is fitted on, all development text, each with the scorer's own best
candidate and probability (read with spelling changes only, so that no later stage's probability
stands in for the scorer's):

* real sentence starts: the capitalised first word of every sentence of UD EWT dev and WNUT17 dev
  that the speller looks at, label 1 where its best candidate was read in its sentence to be the
  word meant (``capital_labels.tsv``: ``Lovley -> lovely`` right; ``Plz -> pl``, ``Bruh -> brush``
  wrong), else 0 (names, slang: right as written);
* misspellings (label 1 when the best candidate is the word meant, else 0: a change to another
  word is wrong too): Norvig's development misspellings (``pairs_testset1``: real ones, in the
  spelling benchmarks ``--data``) and the realistic error model's (seeded), capitalised, in place of
  the first word of those sentences.

The decision is a logistic model (scikit-learn's default strength, not tuned) over the scorer's
log-odds, whether the best candidate is a listed correction of the written form (the list of known
misspellings), the written form's Zipf frequency and the best candidate's, and whether the best
candidate changes the first letter (``Bisconti -> Visconti``: a slip there is rare, another name
common). Its threshold for sentence starts is chosen by the criterion of the earlier rule: the lowest at which the real
sentence starts are changed wrongly at most 0.3 % of the time (every change read), never below the
scorer's own threshold; then raised where needed so that the spelling changes it adds to the
rule's on the first words of WNUT17 train + dev and UD EWT dev are right nine times in ten
(:func:`starts_sweep`, :func:`nine_in_ten`). Its threshold for words in capitals is chosen on the final output of the
default speller (:func:`capitals_sweep`): every change to a word in capitals of shouted.py's texts
(development and fresh, all development text for this choice) at each threshold of
:data:`CAPITALS_SWEEP`, read by hand; the lowest at which the changes it adds to the rule's are
right at least nine times in ten (:func:`nine_in_ten`). Its threshold for capitalised words inside a
sentence, and how much more often their candidate must be written capitalised, are chosen by
:mod:`benchmarks.correction.capitals_inside`. Five-fold cross-validation over the
sentence-start rows (fit and threshold on four folds, counted on the fifth) says whether the gain
holds on words the fit did not see; the earlier rule's own threshold is re-derived beside it
(:func:`choose_threshold`).

An earlier judge over the scorer's log-odds and both Zipf frequencies, without the list, was left
out: it gave the written form's frequency a negative weight, so it would leave ``Definately``. With
the list as evidence, the listed forms people write (``definately`` 2.9 Zipf, ``teh``, ``wierd``)
are told from slang by the list.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import sys
from pathlib import Path
from typing import Any

from benchmarks.common.markdown import render_generic as render  # noqa: F401  (make_results reads it)
from benchmarks.common.paths import RESULTS, ROOT, SPELLING_DATA
from benchmarks.common.report import pyplot, save_figure, write_result

WRITES = ("capitals",)
PAGE = "correction-experiments.md"
SWEEP = (0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.925, 0.95, 0.975, 0.99)
LABELS = Path(__file__).resolve().parent / "capital_labels.tsv"
# at most this share of the capitalised sentence starts changed wrongly: the criterion the
# normalisation judge's threshold was chosen by (judge.json's threshold_source: <= 0.3 % of correct tokens)
DAMAGE = 0.003
# sentences written for this benchmark (two from the everyday lines' development half) whose first word is a
# capitalised misspelling or a name
EXAMPLES = ("Teh meeting starts at noon.", "Wierd how nobody noticed.", "Definately the best pizza in town.",
            "Bisconti scored twice in the second half.", "Jahmaal met us at the station.")
FOLDS = 5
CAPITALS_SWEEP = (0.8, 0.825, 0.85, 0.875, 0.9, 0.925, 0.95)  # thresholds tried for words in capitals
STARTS_SWEEP = (0.75, 0.8, 0.85, 0.875, 0.9, 0.925, 0.95)  # and for capitalised sentence starts

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def sentences() -> list[list[str]]:
    from benchmarks.common.retrieval import ewt_texts
    from charwise.tagging.data import load_task
    from charwise.words import split_words

    path = ROOT / "src" / "charwise" / "data" / "ud_en_ewt" / "en_ewt-ud-dev.conllu"
    ewt = [split_words(text.strip()).words for text in ewt_texts(path)]
    return [s for s in ewt + [list(s.words) for s in load_task("wnut17", splits=("dev",)).dev] if len(s) >= 3]


def first_word(speller: Any, words: list[str]) -> Any:
    """The speller's reading of the first word of ``words`` (a sentence start)."""
    return speller.correct_words([words], space_before=[[i > 0 for i in range(len(words))]])[0][0]


def rows(speller: Any, data: Path, seed: int) -> list[dict[str, Any]]:
    from charwise.typos.realistic import MisspellConfig, RealisticNoiser

    found = []

    def add(words: list[str], meant: str | None, source: str) -> None:
        entry = first_word(speller, words)
        if not entry.looked_at or not entry.suggestions:
            return
        best = entry.suggestions[0].word
        found.append({"word": words[0], "source": source, **evidence(speller, words[0], entry.probability, best),
                      "label": int(meant is not None and best == meant)})

    texts = sentences()
    for words in texts:
        if words[0][:1].isupper() and words[0].isalpha():
            add(words, None, "clean")
    rng = random.Random(seed)
    for written, meant in norvig_pairs(speller, data):
        rest = rng.choice(texts)[1:]
        add([written.capitalize(), *rest], meant.lower(), "real misspelling")
    noiser = RealisticNoiser(MisspellConfig())
    for words in texts:
        first = words[0]
        if first.isalpha() and len(first) >= noiser.config.min_length and speller.lexicon.accepts(first.lower()):
            noisy = noiser.corrupt(first.lower(), rng)[0]
            if noisy.isalpha() and not speller.lexicon.accepts(noisy):
                add([noisy.capitalize(), *words[1:]], first.lower(), "synthetic misspelling")
    return found


def columns(row: dict[str, Any]) -> list[float]:
    from charwise.speller.capital_decision import log_odds

    return [log_odds(row["p"]), row["listed"], row["zipf"], row["best_zipf"], row["first"]]


def lowest_safe(decision: Any, clean: list[dict[str, Any]], read: int) -> float:
    """The lowest threshold on ``decision``'s probability at which the ``clean`` rows (real words as
    written, each change read by hand) are changed wrongly at most :data:`DAMAGE` of ``read`` words."""
    chosen = 1.0
    for t in sorted({round(judged(decision, r), 6) for r in clean}, reverse=True):
        if sum(1 for r in clean if not r["label"] and judged(decision, r) >= t) > DAMAGE * read:
            break
        chosen = t
    return chosen


def fit_decision(found: list[dict[str, Any]], starts: int, floor: float) -> Any:
    """The capitals decision fitted on the sentence-start rows ``found``; its threshold the
    :func:`lowest_safe` for the ``starts`` capitalised sentence starts, not below ``floor``."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from charwise.speller.capital_decision import CapitalDecision

    model = LogisticRegression(C=1.0, max_iter=1000).fit(np.array([columns(r) for r in found]),
                                                         np.array([r["label"] for r in found]))
    fitted = CapitalDecision(tuple(float(w) for w in model.coef_[0]), float(model.intercept_[0]), 1.0, "")
    chosen = lowest_safe(fitted, [r for r in found if r["source"] == "clean"], starts)
    source = (f"benchmarks/correction/capitals.py: logistic fit on {len(found)} development rows (capitalised "
              f"sentence starts of UD EWT dev and WNUT17 dev read by hand, Norvig's development misspellings "
              f"and the error model's in their place); threshold: the lowest ({chosen:.4f}) at which the "
              f"{starts} sentence starts are changed wrongly at most {DAMAGE:.1%} of the time, not below the "
              f"scorer's {floor}")
    return CapitalDecision(fitted.weights, fitted.bias, round(max(floor, chosen), 4), source)


def capitals_sweep(decision: Any) -> dict[str, dict[str, Any]]:
    """Every change the default speller makes to a word in capitals in shouted.py's texts
    (development and fresh), tallied by its hand label (``shouted_labels.tsv``), with words in
    capitals read by the scorer's rule (``rule``) and by ``decision`` at each threshold of
    :data:`CAPITALS_SWEEP`."""
    from benchmarks.common.labels import read_labels as read_keyed
    from benchmarks.correction.shouted import LABELS as SHOUTED
    from benchmarks.correction.shouted import changes
    from benchmarks.correction.shouted import texts as shouted_texts

    keyed = read_keyed(SHOUTED, keys=4)
    lines = [line for named in shouted_texts().values() for text in named.values() for line in text]

    def found(speller: Any) -> tuple[int, list[tuple[str, str]]]:
        read, made = changes(speller, lines, speller.settings.capitals_min_length)
        return read, [(f"{f['written']} -> {f['correction']} ({f['kind']}): {f['context']}",
                       keyed.get((f["written"], f["correction"], f["kind"], f["context"]),
                                 keyed.get((f["written"], f["correction"], f["kind"], "*"), ("not labelled",)))[0])
                      for f in made]

    return final_sweep(decision, "capitals_threshold", CAPITALS_SWEEP, found)


def starts_sweep(decision: Any) -> dict[str, dict[str, Any]]:
    """Every spelling change (the decision's kind; the normaliser's own are the same at every
    threshold) the default speller makes to the capitalised first word of a line of WNUT17 train +
    dev and UD EWT dev (real text as written), tallied by its hand label
    (``capital_labels.tsv``), with sentence starts read by the scorer's rule (``rule``) and by
    ``decision`` at each threshold of :data:`STARTS_SWEEP`."""
    from charwise.speller.looking import shouted

    labels = read_labels()
    lines = [" ".join(words) for words in real_sentences()]
    lines = [line for line in lines if line[:1].isupper() and not shouted(line.split()[0])]

    def found(speller: Any) -> tuple[int, list[tuple[str, str]]]:
        made = []
        for i in range(0, len(lines), 200):
            for result in speller.correct_lines(lines[i:i + 200]):
                first = result.words[0] if result.words else None
                if first is not None and first.changed and first.start == 0 and first.kind == "spelling":
                    change = f"{first.word} -> {first.correction.lower()}"
                    made.append((change, {True: "right", False: "wrong"}.get(labels.get(change), "not labelled")))
        return len(lines), made

    return final_sweep(decision, "threshold", STARTS_SWEEP, found)


def real_sentences() -> list[list[str]]:
    """The real text the threshold for capitalised sentence starts is chosen on: UD EWT dev and WNUT17
    dev (:func:`sentences`) and WNUT17 train, as written."""
    from charwise.tagging.data import load_task

    return sentences() + [list(s.words) for s in load_task("wnut17", splits=("train",)).train]


def final_sweep(decision: Any, field: str, thresholds: tuple[float, ...], found: Any) -> dict[str, dict[str, Any]]:
    """``found(speller)`` -> (words read, [(change, label)]) for the default English speller whose
    capitals decision has ``field`` at each of ``thresholds`` (``rule``: the scorer's rule)."""
    from charwise.speller import Speller
    from charwise.speller.capital_decision import CapitalDecision

    speller, out = Speller.load("en"), {}
    for t in (None, *thresholds):
        speller.capital_decision = (CapitalDecision.scorer_rule() if t is None
                                    else dataclasses.replace(decision, **{field: t}))
        read, made = found(speller)
        labels = [label for _, label in made]
        out["rule" if t is None else str(t)] = {"read": read, "right": labels.count("right"),
                                                 "wrong": labels.count("wrong"),
                                                 "not read": sorted({c for c, lab in made if lab == "not labelled"})}
    return out


def nine_in_ten(sweep: dict[str, dict[str, Any]], thresholds: tuple[float, ...],
                damage: float | None = None) -> float | None:
    """The lowest of ``thresholds`` at which the changes the decision adds to the rule's on real text
    are right at least nine times in ten (right gained >= 9 x wrong gained: none added passes), every
    change read, and (``damage``) wrong for at most that share of the words read; None where none is."""
    rule, chosen = sweep["rule"], None
    for t in sorted(thresholds, reverse=True):
        row = sweep[str(t)]
        if row["not read"]:
            break
        gained, lost = row["right"] - rule["right"], row["wrong"] - rule["wrong"]
        if gained >= 9 * lost and (damage is None or row["wrong"] <= damage * row["read"]):
            chosen = t
    return chosen


def misspellings_in_capitals(speller: Any, data: Path, seed: int) -> list[dict[str, Any]]:
    """Norvig's development misspellings in capitals, each put in place of a word inside a
    development sentence: label 1 where the scorer's candidate is the word meant."""
    rng = random.Random(seed)
    texts = [s for s in sentences() if len(s) >= 4]
    found = []
    for written, meant in norvig_pairs(speller, data):
        words = list(rng.choice(texts))
        k = rng.randrange(1, len(words))
        words[k] = written.upper()
        entry = speller.correct_words([words], space_before=[[i > 0 for i in range(len(words))]])[0][k]
        if entry.looked_at and entry.suggestions:
            best = entry.suggestions[0].word
            found.append({"word": entry.word, **evidence(speller, entry.word, entry.probability, best),
                          "label": int(best == meant.lower())})
    return found


def norvig_pairs(speller: Any, data: Path) -> list[tuple[str, str]]:
    """Norvig's development misspellings (``pairs_testset1``) the lexicon does not accept."""
    pairs = [line.split("\t") for line in (data / "norvig_spell_testsets" / "pairs_testset1.tsv")
             .read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(w, m) for w, m in pairs if w.isalpha() and m.isalpha() and not speller.lexicon.accepts(w)]


def judged(decision: Any, row: dict[str, Any]) -> float:
    return float(decision.probability(row["p"], row["listed"], row["zipf"], row["best_zipf"], row["first"]))


def cross_validated(found: list[dict[str, Any]], starts: int, floor: float, seed: int) -> dict[str, Any]:
    """Both rules counted on words the decision was not fitted on (:data:`FOLDS` folds)."""
    from charwise.speller.capital_decision import SCORER_THRESHOLD

    order = list(range(len(found)))
    random.Random(seed).shuffle(order)
    held: dict[str, list[dict[str, Any]]] = {"scorer": [], "decision": []}
    for k in range(FOLDS):
        test = set(order[k::FOLDS])
        decision = fit_decision([found[i] for i in order if i not in test], starts * (FOLDS - 1) // FOLDS, floor)
        held["decision"] += [r for i, r in enumerate(found) if i in test and judged(decision, r) >= decision.threshold]
    held["scorer"] = [r for r in found if r["p"] >= SCORER_THRESHOLD]
    return {name: {source: {"changed": sum(r["source"] == source for r in rows),
                            "right": sum(r["label"] for r in rows if r["source"] == source)}
                   for source in ("clean", "real misspelling", "synthetic misspelling")}
            for name, rows in held.items()}


def outcome(found: list[dict[str, Any]], decide: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for source in ("clean", "real misspelling", "synthetic misspelling"):
        group = [r for r in found if r["source"] == source]
        changed = [r for r in group if decide(r)]
        out[source] = {"words": len(group), "changed": len(changed), "right": sum(r["label"] for r in changed)}
        if source == "clean":
            out[source]["changes"] = [f"{r['word']} -> {r['best']}" for r in changed][:60]
    return out


def read_labels() -> dict[str, bool]:
    rows = [line.split("\t") for line in LABELS.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]
    return {change: label == "right" for label, change in rows}


def choose_threshold(found: list[dict[str, Any]], starts: int, labels: dict[str, bool]) -> dict[str, Any]:
    """``capital_threshold``: the lowest threshold of the sweep at which the changes of real
    capitalised sentence starts (the ``clean`` rows: UD EWT dev and WNUT17 dev as written, each change
    read by hand in ``capital_labels.tsv``) change at most :data:`DAMAGE` of the ``starts`` wrongly."""
    sweep = []
    for t in SWEEP:
        changed = [f"{r['word']} -> {r['best']}" for r in found if r["source"] == "clean" and r["p"] >= t]
        wrong = sum(not labels[c] for c in changed if c in labels)
        unlabelled = sorted({c for c in changed if c not in labels})
        sweep.append({"threshold": t, "changes": len(changed), "wrong": wrong, "unlabelled": unlabelled,
                      "damage": round(wrong / max(1, starts), 5)})
    eligible = [row for row in sweep if not row["unlabelled"] and row["damage"] <= DAMAGE]
    chosen = min(row["threshold"] for row in eligible) if eligible else None
    return {"starts": starts, "damage_at_most": DAMAGE, "sweep": sweep, "chosen": chosen,
            "source": (f"benchmarks/correction/capitals.py: the lowest threshold at which the scorer's changes of "
                       f"the {starts} capitalised sentence starts of UD EWT dev and WNUT17 dev, read by hand "
                       f"(capital_labels.tsv), change at most {DAMAGE:.1%} of them wrongly (the normalisation "
                       "judge's criterion)")}


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.4))
    names = list(result["outcomes"])
    for k, source in enumerate(("clean", "real misspelling", "synthetic misspelling")):
        values = [result["outcomes"][n][source]["right" if source != "clean" else "changed"]
                  / max(1, result["outcomes"][n][source]["words"]) for n in names]
        ax.bar([i + 0.27 * k for i in range(len(names))], values, width=0.27,
               label="real starts changed" if source == "clean" else f"{source}s put right")
    ax.set_xticks([i + 0.27 for i in range(len(names))], names)
    ax.set_ylabel("share of the words")
    ax.legend(fontsize=8)
    ax.set_title("capitalised sentence starts (development)")
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SPELLING_DATA)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ship", action="store_true",
                        help="write the fitted decision into the shipped English scorer's config.json")
    parser.add_argument("--out", type=Path, default=RESULTS / "capitals.json")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return write_result(args.out, run(args), plot)


def ship(decision: Any) -> Path:
    """Write ``decision`` into the shipped English scorer's ``config.json`` (atomically)."""
    import json

    from charwise.encoders.shipped import SHIPPED_DIR
    from charwise.io.writing import write_json
    from charwise.speller.loading import SHIPPED_SCORERS

    path = SHIPPED_DIR / SHIPPED_SCORERS["en"] / "config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    config["capital_decision"] = decision.to_dict()
    write_json(path, config)
    return path


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Fit the decision on development rows; it and the scorer's rule on the same words."""
    from charwise.speller import Speller, SpellerSettings
    from charwise.speller.capital_decision import SCORER_THRESHOLD

    # the scorer's candidates and probabilities alone, whatever decides the changes (the rows do
    # not depend on the decision being fitted): spelling changes only, no normaliser's second look
    speller = Speller.load("en", settings=SpellerSettings(changes=("spelling",), style="standard"))
    found = rows(speller, args.data, args.seed)
    labels = read_labels()
    for r in found:  # a real sentence start's change is right where it was read to be (capital_labels.tsv)
        if r["source"] == "clean":
            r["label"] = int(labels.get(f"{r['word']} -> {r['best']}", False))
    starts = sum(1 for words in sentences() if words[0][:1].isupper() and words[0].isalpha())
    decision = fit_decision(found, starts, speller.threshold)
    unread = sorted({f"{r['word']} -> {r['best']}" for r in found if r["source"] == "clean"
                     and judged(decision, r) >= decision.threshold and f"{r['word']} -> {r['best']}" not in labels})
    if unread:
        raise SystemExit(f"capitals: changes not read yet, label them in {LABELS.name}: {', '.join(unread)}")
    starts_rows = starts_sweep(decision)
    start_choice = nine_in_ten(starts_rows, STARTS_SWEEP)
    if start_choice is None:
        raise SystemExit("capitals: no threshold for sentence starts keeps the added changes nine in ten right, or "
                         "some are not read yet (capital_labels.tsv): "
                         + "; ".join(next((r["not read"] for r in starts_rows.values() if r["not read"]), [])[:30]))
    decision = dataclasses.replace(decision, threshold=max(decision.threshold, start_choice), source=decision.source + (
        f"; raised to the lowest of {list(STARTS_SWEEP)} at which the changes it adds to the scorer's rule on the "
        f"{starts_rows['rule']['read']} capitalised first words of WNUT17 train + dev and UD EWT dev, every change "
        "read by hand, are right at least nine times in ten"))
    sweep = capitals_sweep(decision)
    chosen = nine_in_ten(sweep, CAPITALS_SWEEP)
    if chosen is None and any(row["not read"] for row in sweep.values()):
        raise SystemExit("capitals: changes of words in capitals not read yet, label them in shouted_labels.tsv: "
                         + "; ".join(next(row["not read"] for row in sweep.values() if row["not read"])[:20]))
    decision = dataclasses.replace(decision, capitals_threshold=chosen, source=decision.source + (
        f"; capitals_threshold: the lowest of {list(CAPITALS_SWEEP)} at which the changes the decision adds to the "
        f"scorer's rule among the {sweep['rule']['read']} words in capitals of WNUT17 train + dev, UD EWT dev and "
        "WNUT17's raw YouTube, Reddit and Stack Overflow texts, every change read by hand, are right at least nine "
        "times in ten (none: the scorer's rule)"))
    from benchmarks.correction.capitals_inside import INSIDE_ODDS, INSIDE_SWEEP, inside_choice

    inside_threshold, inside_odds, inside = inside_choice(decision)
    decision = dataclasses.replace(decision, inside_threshold=inside_threshold, inside_odds=inside_odds,
                                   source=decision.source + (
        f"; inside_threshold and inside_odds: of {list(INSIDE_ODDS)} (how much more often the candidate is written "
        f"capitalised) and {list(INSIDE_SWEEP)}, the pair making the most right changes among the "
        f"{inside[str(INSIDE_ODDS[0])]['rule']['read']} capitalised words inside the sentences of WNUT17 train + "
        "dev, UD EWT dev and WNUT17's raw YouTube, Reddit and Stack Overflow texts, every change read by hand, right "
        f"at least nine times in ten and wrong for at most {DAMAGE:.1%} of them (none: such words are not read)"))
    misspelled = misspellings_in_capitals(speller, args.data, args.seed)
    result = {"command": " ".join(["python -m benchmarks.correction.capitals", *getattr(args, "argv", [])]),
              "decision": decision.to_dict(), "threshold": speller.threshold, "rows": len(found),
              "outcomes": {f"scorer's probability >= {SCORER_THRESHOLD}":
                           outcome(found, lambda r: r["p"] >= SCORER_THRESHOLD),
                           "capitals decision": outcome(found, lambda r: judged(decision, r) >= decision.threshold)},
              "cross_validated": cross_validated(found, starts, decision.threshold, args.seed),
              "sentence starts on real text": {"changes by threshold": starts_rows},
              "capitalised words inside sentences": {"changes by threshold": inside},
              "words in capitals": {"changes by threshold": sweep, "misspellings in capitals": len(misspelled),
                                    "put right": {f"scorer's probability >= {SCORER_THRESHOLD}": sum(
                                        r["label"] for r in misspelled if r["p"] >= SCORER_THRESHOLD),
                                        **{str(t): sum(r["label"] for r in misspelled if judged(decision, r) >= t)
                                           for t in CAPITALS_SWEEP}}}}
    result["examples"] = {}
    for text in EXAMPLES:
        words = text.split()
        entry = first_word(speller, words)
        best = entry.suggestions[0].word if entry.suggestions else words[0]
        row = evidence(speller, words[0], entry.probability, best)
        result["examples"][f"{words[0]} -> {best}"] = {"scorer": round(entry.probability, 3),
                                                        "decision": round(judged(decision, row), 3)}
    result["capital_threshold"] = choose_threshold(found, starts, labels)
    result["sweep"] = [{"threshold": t, **{source: {k: v for k, v in row.items() if k != "changes"}
                                          for source, row in outcome(found, lambda r, t=t: r["p"] >= t).items()}}
                       for t in SWEEP]
    print(f"scorer's rule: {result['capital_threshold']['chosen']} ({result['capital_threshold']['source']})")
    print(f"capitals decision: {result['decision']}")
    for name, row in result["outcomes"].items():
        print(name, {k: {kk: vv for kk, vv in v.items() if kk != "changes"} for k, v in row.items()}, flush=True)
    print("cross-validated:", result["cross_validated"], "\nexamples:", result["examples"])
    print("words in capitals:", result["words in capitals"])
    if args.ship:
        print(f"capitals decision written into {ship(decision)}")
    return result


def evidence(speller: Any, word: str, p: float, best: str) -> dict[str, Any]:
    """What the decision reads of changing ``word`` to ``best``, which the scorer gives ``p``."""
    from charwise.speller.capital_decision import change_evidence

    listed, zipf, best_zipf, first = change_evidence(speller.lexicon, word, best)
    return {"p": p, "best": best, "listed": listed, "zipf": zipf, "best_zipf": best_zipf, "first": first}


if __name__ == "__main__":
    sys.exit(main())
