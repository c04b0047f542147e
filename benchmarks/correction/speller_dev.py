"""Development data for the speller in running text: choose a scorer and its threshold here, never
on the public test sets (``benchmarks/correction/spelling_suite.py`` reports those).

    OMP_NUM_THREADS=1 python -m benchmarks.correction.speller_dev --scorers shipped runs/speller-en-ctx
    OMP_NUM_THREADS=1 python -m benchmarks.correction.speller_dev --language es --scorers shipped runs/speller-es-ctx

Sets (all development; seeded):

* ``noisy``: dev sentences (English: UD EWT dev; Spanish: the dev verses), one word in each
  (a lexicon word of 3+ letters) replaced by a misspelling: from the tuning half of Wikipedia's
  list when it has one for the word (English, half of the time), else from the error model
  (:mod:`charwise.typos.realistic`, :mod:`charwise.typos.single`). Correction rate = misspelled
  words made exactly right (case-insensitive); the other words of these sentences count as clean;
* ``clean``: the same dev sentences without errors: the share of words changed (they hold some
  typos of their own, so not every change is wrong);
* words alone: English, Norvig's development word list (``norvig_testset1``, when ``--data`` has the
  public sets); Spanish, the misspellings of the ``noisy`` dev verses, each alone (the Tweet-Norm
  development pairs are normalisations that no speller threshold moves: 94.6 % fixed at every one);
  fixed = the output is the intended word, compared ignoring case;
* ``tweets`` (Spanish, with the public sets): the Tweet-Norm development tweets, NeuSpell's token
  metrics ignoring case (``benchmarks/correction/spelling_suite.py``'s): correction rate and damage.

For each scorer and each threshold in ``--thresholds``: correction rate, clean words changed, fixed
and changed wrongly (the output is neither the written nor the intended word); the threshold that
corrects most while changing no more clean words than the shipped scorer at its own threshold (the
same damage budget); and, in English, the **threshold for a word alone** (``alone_threshold`` of the
scorer's config): the lowest one at which Norvig's words alone are changed wrongly at most a third
as often as SymSpell changes them wrongly (its suggestion 1, run here on the same words).
``--ship-alone`` writes that choice into the shipped English scorer's ``config.json``. JSON + PNG
under ``benchmarks/results/``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.common.markdown import render_generic as render  # noqa: F401  (make_results reads it)
from benchmarks.common.paths import RESULTS, SPELLING_DATA
from benchmarks.common.report import write_result

WRITES = ("speller_dev",)
PAGE = "correction-experiments.md"

os.environ.setdefault("HF_HUB_OFFLINE", "1")

DATA = SPELLING_DATA


def dev_sentences(language: str, lexicon: Any, n: int, seed: int) -> list[tuple[list[str], int, str]]:
    """(clean words, the misspelled position, the misspelling) for ``n`` dev sentences (in a seeded
    order), misspelled as the scorer's training sentences are; the misspelling takes the word's
    capital."""
    from charwise.speller.corrections import same_case
    from charwise.training.scorer import ScorerTraining, clean_dev_words, misspell_in_sentences

    rng = random.Random(seed)
    sentences = [list(s) for s in clean_dev_words(language) if len(s) >= 4]
    rng.shuffle(sentences)
    found = misspell_in_sentences(sentences, lexicon, ScorerTraining(language=language), n, rng)
    return [(words, i, same_case(words[i], bad)) for words, i, bad in found]


def evaluate(speller: Any, noisy: list[tuple[list[str], int, str]], words: list[tuple[str, str]],
             thresholds: list[float], tweets: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    """Every threshold's figures. Sentences: the scorer's own decision (spelling and accents alone,
    no normalisation or real-word change), each word's probability read against each threshold.
    Words alone and tweets: the speller's whole output (normalisation included), with the threshold
    for a word alone, or every threshold, set to each value."""
    clean_sentences = [w for w, _, _ in noisy]
    noisy_sentences = [w[:i] + [bad] + w[i + 1 :] for w, i, bad in noisy]
    changes = speller.settings.changes
    speller.settings.changes = tuple(k for k in changes if k in ("spelling", "accent"))
    try:
        start = time.perf_counter()
        corrected_noisy = speller.correct_words(noisy_sentences, threshold=0.0)
        corrected_clean = speller.correct_words(clean_sentences, threshold=0.0)
        seconds = time.perf_counter() - start
    finally:
        speller.settings.changes = changes
    rows = {}
    noisy_inside = [inside_flags(c) for c in corrected_noisy]
    clean_inside = [inside_flags(c) for c in corrected_clean]
    for t in thresholds:
        def out(entry: Any, inside: bool, t: float = t) -> str:
            if entry.looked_at and entry.suggestions and speller.changes(entry.word, entry.probability, t,
                                                                         entry.suggestions[0].word, inside):
                return entry.suggestions[0].word
            return entry.word.lower()

        fixed = sum(out(c[i], f[i]) == w[i].lower() for c, f, (w, i, _) in zip(corrected_noisy, noisy_inside, noisy))
        others = [(out(e, g), x.lower()) for c, f, (w, i, _) in zip(corrected_noisy, noisy_inside, noisy)
                  for j, (e, g, x) in enumerate(zip(c, f, w)) if j != i]
        clean = [(out(e, g), x.lower()) for c, f, w in zip(corrected_clean, clean_inside, clean_sentences)
                 for e, g, x in zip(c, f, w)]
        rows[f"{t:.2f}"] = {
            "correction_rate": round(100 * fixed / max(1, len(noisy)), 2),
            "damage_noisy": round(100 * sum(a != b for a, b in others) / max(1, len(others)), 3),
            "clean_changed": round(100 * sum(a != b for a, b in clean) / max(1, len(clean)), 3),
        }
        if words:
            rows[f"{t:.2f}"].update(words_alone(speller, words, t))
        if tweets:
            from benchmarks.correction.suite_metrics import sentence_scores

            output = {i: c.corrected for i, c in enumerate(speller.correct_lines([n for n, _ in tweets], t))}
            scores = sentence_scores(tweets, output, list(range(len(tweets))))
            rows[f"{t:.2f}"]["tweets_correction_rate"] = scores["correction_rate_nocase"]
            rows[f"{t:.2f}"]["tweets_damage"] = scores["damage_nocase"]
    return {"thresholds": rows, "sentences_per_second": round(2 * len(noisy) / seconds, 1),
            "misspellings_where": misspellings_where(speller, noisy, corrected_noisy)}


def inside_flags(entries: list[Any]) -> list[bool]:
    """For each word of a corrected sentence, whether it stands inside the sentence (not at its start)."""
    from charwise.speller.corrections import starts_after

    flags, start, previous = [], True, ""
    for entry in entries:
        flags.append(not start)
        start, previous = starts_after(entry.word, start, previous), entry.word
    return flags


def misspellings_where(speller: Any, noisy: list[tuple[list[str], int, str]], corrected: list[Any]) -> dict[str, int]:
    """Where each seeded misspelling ends, whatever the threshold: not looked at (a capitalised word
    inside a sentence, read as a name; a valid word; another reason), or looked at with the
    intended word ranked first, lower, or not among the suggestions kept (what bounds the correction rate)."""
    where: Counter[str] = Counter()
    for (words, i, bad), entries in zip(noisy, corrected):
        entry, intended = entries[i], words[i].lower()
        ranked = [s.word for s in entry.suggestions]
        if not entry.looked_at:
            kind = ("not looked at: capitalised inside a sentence" if i and bad[:1].isupper() and not bad.isupper()
                    else "not looked at: a valid word" if speller.lexicon.accepts(bad.lower())
                    else "not looked at: other")
        else:
            kind = ("looked at: ranked first" if ranked[:1] == [intended] else
                    "looked at: ranked lower" if intended in ranked else "looked at: not among the suggestions")
        where[kind] += 1
    return dict(where.most_common())


def words_alone(speller: Any, words: list[tuple[str, str]], threshold: float) -> dict[str, float]:
    """Fixed and changed wrongly (neither the written nor the intended word), in %, for each word
    corrected alone as a user would (``correct_lines``) with the threshold for a word alone set."""
    config = speller.scorer.config
    kept = config.alone_threshold
    config.alone_threshold = threshold
    try:
        outputs = [c.corrected.lower() for c in speller.correct_lines([bad for bad, _ in words])]
    finally:
        config.alone_threshold = kept
    fixed, wrong = fixed_and_wrong(outputs, words)
    return {"words_fixed": fixed, "words_changed_wrongly": wrong}


def fixed_and_wrong(outputs: list[str], words: list[tuple[str, str]]) -> tuple[float, float]:
    """% of ``words`` (written, intended) whose lower-case output is the intended word, and % whose
    output is neither the written nor the intended word."""
    fixed = sum(o == good for o, (_, good) in zip(outputs, words))
    wrong = sum(o not in (bad.lower(), good) for o, (bad, good) in zip(outputs, words))
    return round(100 * fixed / len(words), 2), round(100 * wrong / len(words), 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--language", default="en", choices=["en", "es"])
    parser.add_argument("--scorers", nargs="+", default=["shipped"], help="'shipped' or scorer directories")
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--thresholds", type=float, nargs="+",
                        default=[0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95])
    parser.add_argument("--ship-alone", action="store_true",
                        help="write the chosen threshold for a word alone into the shipped scorer")
    parser.add_argument("--accent-thresholds", type=float, nargs="*", default=[0.0, 0.05, 0.1, 0.2, 0.3, 0.5],
                        help="values of the accent-only threshold measured at the shipped scorer's own (Spanish)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--name", default=None)
    args = parser.parse_args(argv)
    command = " ".join(["python -m benchmarks.correction.speller_dev", *sys.argv[1:]])
    result = {"command": command, **run(args)}
    if args.ship_alone:
        ship_alone(result)
    out = RESULTS / f"{args.name or 'speller_dev' + ('_es' if args.language == 'es' else '')}.json"
    return write_result(out, result, plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every scorer at every threshold on the development sets, one torch thread."""
    import torch

    torch.set_num_threads(1)
    from charwise.speller import Speller
    from charwise.speller.lexicon import ACCENTED

    base = Speller.load(args.language)
    noisy = dev_sentences(args.language, base.lexicon, args.sentences, args.seed)
    words: list[tuple[str, str]] = []
    norvig = args.data / "norvig_spell_testsets" / "pairs_testset1.tsv"
    if args.language == "en" and norvig.is_file():
        for line in norvig.read_text(encoding="utf-8").splitlines():
            bad, _, good = line.partition("\t")
            if bad and good:
                words.append((bad.strip(), good.strip().lower()))
    tweets: list[tuple[str, str]] = []
    tweet_norm = args.data / "tweetnorm_es"
    if args.language == "es" and tweet_norm.is_dir():
        from benchmarks.correction.suite_data import read_tsv

        tweets = read_tsv(tweet_norm / "sentences_dev.tsv")
    if args.language == "es":  # Tweet-Norm's pairs are normalisations no speller threshold moves
        words = [(bad.lower(), w[i].lower()) for w, i, bad in noisy]
    result: dict[str, Any] = {"language": args.language, "sentences": len(noisy), "roles": {
                                  "noisy/clean": "development (dev split, seeded misspellings)",
                                  "words alone": "development (English: norvig_testset1; Spanish: the "
                                                 "noisy dev verses' misspellings, each alone)",
                                  "tweetnorm_es sentences_dev": "development"}, "scorers": {}}
    budget = None
    for name in args.scorers:
        speller = base if name == "shipped" else Speller.load(args.language, scorer=name, lexicon=base.lexicon)
        report = evaluate(speller, noisy, words, args.thresholds, tweets)
        report["own_threshold"] = speller.threshold
        report["reads_context"] = speller.scorer.reads_context
        if name == "shipped":
            own = evaluate(speller, noisy, words, [speller.threshold], tweets)["thresholds"]
            report["at_own_threshold"] = next(iter(own.values()))
            budget = report["at_own_threshold"]["clean_changed"]
        if budget is not None:
            within = {t: r for t, r in report["thresholds"].items() if r["clean_changed"] <= budget}
            if within:
                best = max(within, key=lambda t: (within[t]["correction_rate"], float(t)))
                report["best_within_budget"] = {"threshold": float(best), **within[best]}
        if name == "shipped" and args.accent_thresholds and args.language in ACCENTED:
            report["accent_thresholds"] = accent_sweep(speller, noisy, words, tweets, args.accent_thresholds)
        result["scorers"][name] = report
        print(name, json.dumps({k: v for k, v in report.items() if k != "thresholds"}), flush=True)
    if words:
        result["alone"] = choose_alone(result["scorers"]["shipped"]["thresholds"], words, args.language)
        print("alone", json.dumps(result["alone"]), flush=True)
    return result


def accent_sweep(speller: Any, noisy: list[tuple[list[str], int, str]], words: list[tuple[str, str]],
                 tweets: list[tuple[str, str]], values: list[float]) -> dict[str, Any]:
    """The figures at the scorer's own threshold for each value of ``settings.accent_threshold``
    (the probability a correction that only puts back a word's missing accents needs)."""
    kept, rows = speller.settings.accent_threshold, {}
    try:
        for value in values:
            speller.settings.accent_threshold = value
            speller.clear_cache()
            rows[f"{value:.2f}"] = next(iter(evaluate(speller, noisy, words, [speller.threshold], tweets)
                                             ["thresholds"].values()))
    finally:
        speller.settings.accent_threshold = kept
        speller.clear_cache()
    return {"shipped": kept, "values": rows}


def choose_alone(rows: dict[str, Any], words: list[tuple[str, str]], language: str) -> dict[str, Any]:
    """The lowest threshold at which words alone are changed wrongly at most a third as often as
    SymSpell changes them wrongly, beside SymSpell's own figures on the same words."""
    from benchmarks.correction.suite_systems import Baselines

    baselines = Baselines(language)
    fixed, wrong = fixed_and_wrong([baselines.symspell_lookup(bad)[0] for bad, _ in words], words)
    symspell = {"fixed": fixed, "changed_wrongly": wrong}
    budget = symspell["changed_wrongly"] / 3
    within = sorted(float(t) for t, r in rows.items() if r["words_changed_wrongly"] <= budget)
    chosen = within[0] if within else None
    figures = {(r["words_fixed"], r["words_changed_wrongly"]) for r in rows.values()}
    if len(figures) == 1:  # the lowest of a flat curve is the grid's edge, not a choice
        chosen = None
    return {"rule": "lowest threshold with words changed wrongly <= a third of SymSpell's (none when the "
                    "threshold does not move the words)", "symspell": symspell,
            "budget": round(budget, 2), "threshold": chosen,
            "at_threshold": rows[f"{chosen:.2f}"] if chosen is not None else None}


def ship_alone(result: dict[str, Any]) -> None:
    """Write the chosen threshold for a word alone into the shipped scorer's config."""
    from charwise.encoders.shipped import SHIPPED_DIR
    from charwise.speller.scorer import SpellScorerConfig
    from charwise.speller.speller import SHIPPED_SCORERS

    chosen = (result.get("alone") or {}).get("threshold")
    if chosen is None:
        raise SystemExit("no threshold for a word alone met the rule on the development words: nothing shipped")
    path = SHIPPED_DIR / SHIPPED_SCORERS[result["language"]]
    config = SpellScorerConfig.from_pretrained(path)
    config.alone_threshold = chosen
    config.save_pretrained(path)
    print(f"alone_threshold {chosen} written to {path}", flush=True)


def plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, report in result["scorers"].items():
        rows = report["thresholds"]
        xs = [r["clean_changed"] for r in rows.values()]
        ys = [r["correction_rate"] for r in rows.values()]
        ax.plot(xs, ys, marker="o", label=f"{Path(name).name} (context: {report['reads_context']})")
        for t, x, y in zip(rows, xs, ys):
            ax.annotate(t, (x, y), fontsize=6, xytext=(2, 2), textcoords="offset points")
    ax.set_xlabel("clean dev words changed (%)")
    ax.set_ylabel("misspelled dev words corrected (%)")
    ax.set_title(f"Speller on {result['language']} dev sentences ({result['sentences']}), by threshold")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=130)


if __name__ == "__main__":
    raise SystemExit(main())
