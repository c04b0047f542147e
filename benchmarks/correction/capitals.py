"""A capitalised word at a sentence start: a misspelling (``Teh``, ``Definately``) or a name
(``Bisconti``)? ``capital_threshold`` chosen on development text, and a judge tried in its place,
fitted on development text and left out (the record of why).

**The threshold.** Every capitalised first word of a sentence of UD EWT dev and WNUT17 dev that the
speller looks at and whose best candidate the scorer gives at least 0.5 was read in its sentence
and labelled by hand (``capital_labels.tsv``: ``Lovley -> lovely`` right, ``Plz -> pl`` and
``Bruh -> brush`` wrong). ``capital_threshold`` is the lowest threshold of a sweep at which those
changes are wrong for at most 0.3 % of the sentence starts: the criterion the normalisation
judge's threshold was chosen by (:func:`choose_threshold`; ``SpellerSettings.capital_threshold``).

    OMP_NUM_THREADS=2 python -m benchmarks.correction.capitals          # -> results/capitals.json + .png

The speller's scorer gives a looked-at word the probability that it is a misspelling of its best
candidate; it learned that from lower-case words. At a sentence start, where every word has a
capital, unknown words are names far more often, and the scorer cannot tell: it gives the name
``Bisconti`` 0.97 (``Visconti``) and ``Definately`` 0.92. What tells them apart is how often the
written form itself is written on the web (wordfreq's Zipf frequency): common misspellings are
(``definately`` 2.9, ``teh`` 3.0, ``wierd`` 2.6), a name nobody has written is not (``bisconti`` 0).

The judge is a logistic model over the scorer's log-odds, the written form's Zipf frequency and
the best candidate's, fitted on development text:

* real sentence starts: the capitalised first word of every sentence of UD EWT dev and WNUT17 dev
  that the speller looks at, label 1 where its best candidate was read to be the word meant
  (``capital_labels.tsv``: ``Lovley -> lovely``), else 0 (names, slang: right as written);
* misspellings (label 1 when the best candidate is the word meant, else 0: a change to another
  word is wrong too): Norvig's development misspellings (``pairs_testset1``: real ones, in the
  spelling benchmarks ``--data``) and the realistic error model's (seeded) put, capitalised, in
  place of the first word of those sentences.

A capitalised word would be changed when the judge's probability reaches the speller's own
threshold. Reported on the same development words: names changed and misspellings put right, with
the rule in use (``capital_threshold``) beside the judge. The fit gives the written form's
frequency a *negative* weight: the development misspellings (Norvig's, the error model's) are
rarely written on the web, while the capitalised words of tweets that are no misspelling often
are (``Plz``, ``Ive``); so the judge puts more development misspellings right but would change
``Bisconti`` and leave ``Definately``, and it is not used.
"""

from __future__ import annotations

import argparse
import math
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
# (written, the scorer's probability, its best candidate), read off the shipped speller on 2026-11-28
EXAMPLES = (("Definately", 0.925, "definitely"), ("Teh", 0.812, "the"), ("Wierd", 0.465, "weird"),
            ("Bisconti", 0.972, "visconti"))

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
        found.append({"word": words[0], "source": source, "p": entry.probability, "best": best,
                      "zipf": speller.lexicon.zipf(words[0].lower()), "best_zipf": speller.lexicon.zipf(best),
                      "label": int(meant is not None and best == meant)})

    texts = sentences()
    for words in texts:
        if words[0][:1].isupper() and words[0].isalpha():
            add(words, None, "clean")
    rng = random.Random(seed)
    pairs = [line.split("\t") for line in (data / "norvig_spell_testsets" / "pairs_testset1.tsv")
             .read_text(encoding="utf-8").splitlines() if line.strip()]
    for written, meant in pairs:
        if written.isalpha() and meant.isalpha() and not speller.lexicon.accepts(written):
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
    p = min(max(row["p"], 1e-6), 1 - 1e-6)
    return [math.log(p / (1 - p)), row["zipf"], row["best_zipf"]]


def fit_judge(found: list[dict[str, Any]]) -> dict[str, Any]:
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    x = np.array([columns(r) for r in found])
    y = np.array([r["label"] for r in found])
    model = LogisticRegression(C=1.0, max_iter=1000).fit(x, y)  # scikit-learn's default strength, not tuned
    return {"weights": [round(float(w), 5) for w in model.coef_[0]], "bias": round(float(model.intercept_[0]), 5),
            "features": ["scorer log-odds", "written form's Zipf", "best candidate's Zipf"]}


def judged(judge: dict[str, Any], row: dict[str, Any]) -> float:
    z = judge["bias"] + sum(w * v for w, v in zip(judge["weights"], columns(row)))
    return 1.0 / (1.0 + math.exp(-z))


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
               label="names changed" if source == "clean" else f"{source}s put right")
    ax.set_xticks([i + 0.27 for i in range(len(names))], names)
    ax.set_ylabel("share of the words")
    ax.legend(fontsize=8)
    ax.set_title("capitalised sentence starts (development)")
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SPELLING_DATA)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS / "capitals.json")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return write_result(args.out, run(args), plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Fit the judge on development sentence starts; both rules' outcomes on the same words."""
    from charwise.speller import Speller

    speller = Speller.load("en")
    found = rows(speller, args.data, args.seed)
    labels = read_labels()
    for r in found:  # a real sentence start's change is right where it was read to be (capital_labels.tsv)
        if r["source"] == "clean":
            r["label"] = int(labels.get(f"{r['word']} -> {r['best']}", False))
    judge = fit_judge(found)
    threshold = speller.threshold
    result = {"command": " ".join(["python -m benchmarks.correction.capitals", *getattr(args, "argv", [])]),
              "judge": judge, "threshold": threshold, "rows": len(found),
              "outcomes": {f"capital_threshold ({speller.settings.capital_threshold})":
                           outcome(found, lambda r: r["p"] >= speller.settings.capital_threshold),
                           "judge": outcome(found, lambda r: judged(judge, r) >= threshold)}}
    result["examples"] = {word: round(judged(judge, {"p": p, "zipf": speller.lexicon.zipf(word.lower()),
                                                    "best_zipf": speller.lexicon.zipf(best)}), 3)
                          for word, p, best in EXAMPLES}
    starts = sum(1 for words in sentences() if words[0][:1].isupper() and words[0].isalpha())
    result["capital_threshold"] = choose_threshold(found, starts, labels)
    result["sweep"] = [{"threshold": t, **{source: {k: v for k, v in row.items() if k != "changes"}
                                          for source, row in outcome(found, lambda r, t=t: r["p"] >= t).items()}}
                       for t in SWEEP]
    print(f"capital_threshold: {result['capital_threshold']['chosen']} ({result['capital_threshold']['source']})")
    for name, row in result["outcomes"].items():
        print(name, {k: {kk: vv for kk, vv in v.items() if kk != "changes"} for k, v in row.items()}, flush=True)
    return result


if __name__ == "__main__":
    sys.exit(main())
