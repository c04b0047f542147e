"""Real tweets: lexical normalisation of the LexNorm 2015 training tweets, two-fold, against baselines.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.lexnorm            # -> results/lexnorm.json/.png
    OMP_NUM_THREADS=1 python -m benchmarks.correction.lexnorm --ship     # refit the shipped table + judge on all tweets

Data: ``lexnorm2015_en/train.norm`` of the spelling benchmarks (``--data``; the README there names it a
development / training split: learning and tuning on it is allowed). Its 2,360 tweets are cut in two
halves by position; each fold learns on one half (the replacement table, the judge, its threshold) and
is scored on the other, which nothing in that fold saw; the figures are the sums over both folds.

Within the learning half the judge's threshold is chosen out of fold (the half cut in two again: a
judge fitted on one quarter scores the other's candidates), as the lowest probability at which the
changes made to correct tokens stay at or below ``--max-damage`` (0.3 %), then the judge is fitted on
the whole half. Table features of a learning token are counted without that token (leave one out).

Systems, all on the same tokens (lower-case, as annotated), each token read in its tweet:

* ``unchanged``: every token as written (ERR 0 by definition);
* ``lookup``: the most frequent normal form of each written token in the learning half (MultiLexNorm's
  baseline; a token it never saw stays);
* ``symspell`` / ``pyspellchecker``: each all-letter token replaced by the top suggestion (as in
  ``spelling_suite.py``);
* ``charwise spelling``: ``Speller.load("en")`` without normalisation (``changes=("spelling",
  "real_word", "accent")``): the speller before normalisation was added;
* ``charwise``: the default speller with this fold's normaliser (table and judge of the learning half),
  in the default style ``auto`` (social for each tweet that reads like one: ``looks_informal``);
* ``charwise --style standard`` / ``--style social``: every tweet read as edited text, or as social
  text, where the judge also undoes the speller's corrections it finds unlikely in tweets;
* ``charwise --style social --context smollm2``: the same with SmolLM2 reading the sentence: every
  word with candidates is scored with each candidate in its window (the speller's output around it),
  and a second judge, fitted the same way with those gains among its features (``lm_gain``,
  ``lm_scored``), decides (``Speller.load("en", context="smollm2")``; ``--no-lm`` leaves it out);
* a threshold sweep of ``charwise --style social`` for the trade-off figure.

Metrics over aligned tokens: **misspellings fixed** (tokens whose normal form is one word within two
edits: ``tho`` -> ``though``), **all normalisations fixed** (every token whose normal form differs),
**damage** (correct tokens changed / correct tokens), precision / recall / F1 of changed tokens
(W-NUT 2015) and **ERR** (MultiLexNorm: (TP - FP) / (TP + FN); TP: a token needing normalisation made
exactly right, FP: a token not needing it changed). The ``*_kept`` figures leave out the tokens whose
annotation charwise declines by design (101 slurs as normal forms, 36 British spellings made American,
of 2,653 normalisations).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from benchmarks.common.paths import RESULTS, SPELLING_DATA
from benchmarks.common.report import pyplot, write_result
from benchmarks.correction.judge_fitting import (  # noqa: F401 (Tweet, score_changes: tweetnorm and lm_gate read them here)
    Tweet,
    candidate_rows,
    decisions,
    fit_judge,
    score_changes,
)
from benchmarks.correction.render import render_lexnorm as render  # noqa: F401  (make_results reads it)
from charwise.speller import Speller, SpellerSettings
from charwise.speller.corrections import SPELLING
from charwise.speller.neural import LMReranker, substitute
from charwise.speller.normalisation_judge import (  # --undo-below's default, its source; the LM judge's own
    LM_UNDO_BELOW,
    LM_UNDO_SOURCE,
    UNDO_BELOW,
    UNDO_SOURCE,
)
from charwise.speller.normalise import (
    DATA_DIR,
    NormalisationTable,
    Normaliser,
    lm_gains,
    normalisable,
    speller_candidates,
)

WRITES = ("lexnorm",)
PAGE = "spelling_benchmarks.md"

TWEETS = "lexnorm2015_en/train.norm"  # under --data
# the share of correct tokens a judge's threshold may change when it is chosen (0.3 %: the damage the
# speller aims for on real tweets); every benchmark that fits the judges reads it
MAX_DAMAGE = 0.003


def read_tweets(path: Path) -> list[Tweet]:
    """``raw<TAB>normal`` lines, a blank line between tweets (lower-cased)."""
    tweets: list[Tweet] = [[]]
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            if tweets[-1]:
                tweets.append([])
            continue
        raw, _, normal = line.partition("\t")
        tweets[-1].append((raw.lower(), (normal or raw).lower()))
    return [t for t in tweets if t]


# --- fitting the judge --------------------------------------------------------------------------
def speller_choices(speller: Speller, tweets: list[Tweet]) -> tuple[list[list[dict[str, float]]], list[list[str]]]:
    """The speller's suggestions (with their probabilities) for each token, and each tweet as the
    speller leaves it (the context the language model reads)."""
    out = speller.correct_words([[raw for raw, _ in t] for t in tweets])
    return [[speller_candidates(e) for e in row] for row in out], [[e.correction for e in row] for row in out]


def learned_normaliser(spelling: Speller, tweets: list[Tweet], max_damage: float, undo_below: float,
                       data: str = "LexNorm 2015 training tweets",
                       extra_pairs: Sequence[tuple[str, str]] = ()
                       ) -> tuple[Normaliser, dict[str, Any], list[list[dict[str, float]]], list[list[str]]]:
    """A normaliser learned from ``tweets`` (their table, a judge fitted on them, :func:`fit_judge`)
    over ``spelling``'s lexicon, with the fitting's report, and
    :func:`speller_choices` of the tweets; ``extra_pairs``: ``(written, normal)`` pairs counted into
    the table besides the tweets' (Spanish chat forms the tweets lack: ``tweetnorm.py``)."""
    pairs = [p for t in tweets for p in t] + list(extra_pairs)
    normaliser = Normaliser(spelling.lexicon, NormalisationTable.from_pairs(pairs), None,
                            spelling_context(spelling.lexicon.language))
    choices, sentences = speller_choices(spelling, tweets)
    normaliser.judge, fitting = fit_judge(normaliser, tweets, choices, max_damage, data=data)
    normaliser.judge.undo_below = undo_below
    return normaliser, fitting, choices, sentences


def fit_lm_judge(normaliser: Normaliser, tweets: list[Tweet], choices: list[list[dict[str, float]]],
                 sentences: list[list[str]], lm: Any, max_damage: float, undo_below: float = LM_UNDO_BELOW,
                 data: str = "LexNorm 2015 training tweets") -> dict[str, Any]:
    """Fit ``normaliser``'s LM judge on ``tweets`` with ``lm``'s gains (:func:`tweet_gains`), undoing below
    ``undo_below`` (its own: :data:`LM_UNDO_BELOW`); its fitting's report."""
    gains = tweet_gains(normaliser, tweets, choices, sentences, lm)
    normaliser.lm_judge, fitting = fit_judge(normaliser, tweets, choices, max_damage, gains, data)
    normaliser.lm_judge.undo_below = undo_below
    return fitting


def speller_with(spelling: Speller, normaliser: Normaliser, style: str = "auto", lm: Any = None) -> Speller:
    """A speller of every change in ``style``, sharing ``spelling``'s lexicon, encoder, scorer and
    features, with ``normaliser`` and the context model ``lm``."""
    speller = Speller(spelling.lexicon, spelling.encoder, spelling.scorer, SpellerSettings(style=style),
                      featurizer=spelling.featurizer)
    speller.normaliser, speller.context_model = normaliser, lm
    return speller


class RememberedLM:
    """An :class:`LMReranker` whose window scores are remembered (both folds and the shipped fit read
    the same windows): what :func:`lm_gains` calls of it; everything else is the language model's own,
    so a speller may read it as its context model (``lm_undo.py``)."""

    def __init__(self, lm: Any) -> None:
        self.lm, self.memo = lm, {}

    def has_context(self, words: list[str], index: int) -> bool:
        return self.lm.has_context(words, index)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.lm, name)

    def score(self, sentences: list[list[str]], targets: list[tuple[int, int]], candidates: list[list[str]]
              ) -> list[list[float]]:
        groups = []
        for (t, i), words in zip(targets, candidates):
            text, span = self.lm.window(sentences[t], i)
            groups.append(tuple(substitute(text, span, w) for w in words))
        todo = [g for g in dict.fromkeys(groups) if g not in self.memo]
        for group, scores in zip(todo, self.lm.score_groups(todo, shared_scored=False)):  # as LMReranker.score
            self.memo[group] = scores
        return [self.memo[g] for g in groups]


def tweet_gains(normaliser: Normaliser, tweets: list[Tweet], choices: list[list[dict[str, float]]],
                sentences: list[list[str]], lm: Any) -> dict[tuple[int, int], dict[str, float]]:
    """(tweet, token) -> its candidates' LM gains (:func:`lm_gains`, the library's own), for every
    token the runtime gives the language model (:meth:`Normaliser.lm_candidates`: the plain judge in
    doubt), read in the tweet as the speller left it."""
    targets = []
    for t, tweet in enumerate(tweets):
        for i, (raw, _) in enumerate(tweet):
            found = normaliser.lm_candidates(raw, sentences[t], i, choices[t][i], lm) if normalisable(raw) else []
            if found:
                targets.append((t, i, raw, found))
    return {(t, i): row for (t, i, _, _), row in zip(targets, lm_gains(lm, sentences, targets))}


# --- systems -------------------------------------------------------------------------------------
def system_changes(tweets: list[Tweet], outputs: Callable[[list[str]], list[str]]) -> dict[tuple[int, int], str]:
    changes = {}
    for t, tweet in enumerate(tweets):
        out = outputs([raw for raw, _ in tweet])
        for i, ((raw, _), o) in enumerate(zip(tweet, out)):
            if o.lower() != raw:
                changes[(t, i)] = o.lower()
    return changes


def speller_outputs(speller: Speller, tweets: list[Tweet], threshold: float | None = None
                    ) -> tuple[dict[tuple[int, int], str], float, list[dict[str, Any]]]:
    """(changes, seconds, every change with its kind) of ``speller`` over the tweets."""
    started = time.perf_counter()
    rows = speller.correct_words([[raw for raw, _ in t] for t in tweets])
    seconds = time.perf_counter() - started
    changes, shown = {}, []
    for t, (tweet, row) in enumerate(zip(tweets, rows)):
        for i, (entry, (raw, normal)) in enumerate(zip(row, tweet)):
            if entry.changed:
                changes[(t, i)] = entry.correction.lower()
                shown.append({"written": raw, "output": entry.correction.lower(), "normal": normal,
                              "kind": entry.kind, "probability": round(entry.probability, 3)})
    return changes, seconds, shown


def all_cores_speed(speller: Speller, tweets: list[Tweet]) -> float:
    """Tweets per second of ``speller`` with torch on every core (the run's other timings use one
    thread): what a user gets, scores computed anew."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(os.cpu_count() or 1)
    try:
        speller.clear_cache()
        return round(len(tweets) / speller_outputs(speller, tweets)[1], 1)
    finally:
        torch.set_num_threads(before)


def lookup_changes(learn: list[Tweet], tweets: list[Tweet]) -> dict[tuple[int, int], str]:
    table = NormalisationTable.from_pairs(p for t in learn for p in t)
    best = {w: max(c.items(), key=lambda kv: (kv[1], kv[0] == w))[0] for w, c in table.counts.items()}
    return system_changes(tweets, lambda words: [best.get(w, w) for w in words])


def run_fold(learn: list[Tweet], test: list[Tweet], base: Any, args: argparse.Namespace,
             lm: RememberedLM | None, language: str = "en", data: str = "LexNorm 2015 training tweets",
             extra_pairs: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    spelling = Speller.load(language, settings=SpellerSettings(changes=SPELLING))
    normaliser, fitting, choices, sentences = learned_normaliser(spelling, learn, args.max_damage, args.undo_below,
                                                                 data, extra_pairs)
    judge = normaliser.judge
    if lm is not None:
        lm_fitting = fit_lm_judge(normaliser, learn, choices, sentences, lm, args.max_damage, LM_UNDO_BELOW, data)
    social = speller_with(spelling, normaliser, "social")
    systems: dict[str, dict[str, Any]] = {}
    systems["unchanged"] = score_changes(test, {})
    systems["lookup"] = score_changes(test, lookup_changes(learn, test))
    systems["symspell"] = score_changes(test, system_changes(test, lambda ws: [base.symspell_token(w) for w in ws]))
    if not args.no_pyspell:
        systems["pyspellchecker"] = score_changes(test, system_changes(
            test, lambda ws: [base.pyspell_token(w) if len(w) <= 15 else w for w in ws]))
    changes, seconds, _ = speller_outputs(spelling, test)
    systems["charwise spelling"] = {**score_changes(test, changes), "tweets_per_s": round(len(test) / seconds, 1)}
    for name, style in (("charwise", "auto"), ("charwise --style standard", "standard"),
                        ("charwise --style social", "social")):
        changes, seconds, shown = speller_outputs(speller_with(spelling, normaliser, style), test)  # shown: social's
        systems[name] = {**score_changes(test, changes), "tweets_per_s": round(len(test) / seconds, 1)}
    if lm is not None:
        with_lm = speller_with(spelling, normaliser, "social", lm.lm)
        changes, seconds, lm_shown = speller_outputs(with_lm, test)
        systems["charwise --style social --context smollm2"] = {
            **score_changes(test, changes), "tweets_per_s": round(len(test) / seconds, 1),
            "tweets_per_s_all_cores": all_cores_speed(with_lm, test), "threshold": lm_fitting["threshold"]}
    sweep = []
    for threshold in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95):
        judge.threshold = judge.social_threshold = threshold
        sweep.append({"threshold": threshold, **score_changes(test, speller_outputs(social, test)[0])})
    judge.threshold, judge.social_threshold = fitting["threshold"], fitting["social_threshold"]
    if lm is not None:
        fitting["lm_judge"] = {k: v for k, v in lm_fitting.items() if k != "out_of_fold_sweep"}
    return {"systems": systems, "fitting": {k: v for k, v in fitting.items() if k != "out_of_fold_sweep"},
            "sweep": sweep, "changes": shown}


def spelling_context(language: str = "en") -> Any:
    from charwise.speller.context import NgramContext

    return NgramContext.load(language)


def summed(folds: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """Scores of system ``name`` over both folds (token counts added, rates recomputed)."""
    parts = [f["systems"][name] for f in folds]
    n = {k: sum(p[k] for p in parts) for k in ("tokens", "needing", "misspellings", "changed_wrongly", "changes")}
    out = dict(n)
    for key in ("needing_kept", "misspellings_kept"):
        out[key] = sum(p[key] for p in parts)
    for key in ("misspellings_fixed_kept", "normalisations_fixed_kept", "err_kept"):
        weight = "misspellings_kept" if key.startswith("misspellings") else "needing_kept"
        out[key] = round(sum(p[key] * p[weight] for p in parts) / max(sum(p[weight] for p in parts), 1), 2)
    for key in ("misspellings_fixed", "normalisations_fixed", "precision", "recall", "err"):
        weight = {"misspellings_fixed": "misspellings", "precision": "changes"}.get(key, "needing")
        out[key] = round(sum(p[key] * p[weight] for p in parts) / max(sum(p[weight] for p in parts), 1), 2)
    correct = n["tokens"] - n["needing"]
    out["damage"] = round(100 * n["changed_wrongly"] / max(correct, 1), 3)
    pr = out["precision"] + out["recall"]
    out["f1"] = round(2 * out["precision"] * out["recall"] / pr, 2) if pr else 0.0
    for key in ("tweets_per_s", "tweets_per_s_all_cores"):
        if all(key in p for p in parts):
            out[key] = round(sum(p[key] for p in parts) / len(parts), 1)
    return out


def ship(tweets: list[Tweet], args: argparse.Namespace) -> int:
    """Fit the table and judge on every training tweet and write them to charwise/data."""
    spelling = Speller.load("en", settings=SpellerSettings(changes=SPELLING))
    normaliser, fitting, choices, sentences = learned_normaliser(spelling, tweets, args.max_damage, args.undo_below)
    if not args.no_lm:
        lm_fitting = fit_lm_judge(normaliser, tweets, choices, sentences, RememberedLM(LMReranker.load("smollm2")),
                                  args.max_damage, LM_UNDO_BELOW)
        assert normaliser.lm_judge is not None
        normaliser.lm_judge.undo_source = LM_UNDO_SOURCE
        print(f"LM judge: threshold {lm_fitting['threshold']}")
    normaliser.judge.undo_source = UNDO_SOURCE
    # chosen on case-keeping text the tweets lack: kept from the judge replaced (choose it again for the new one:
    # python -m benchmarks.correction.capital_normalisation --ship)
    # read as written: a judge fitted on other features is replaced, its chosen threshold is not
    shipped = json.loads((DATA_DIR / "normalisation-en" / "judge.json").read_text(encoding="utf-8"))
    if shipped.get("capital_threshold") is not None:
        normaliser.judge.capital_threshold = float(shipped["capital_threshold"])
        normaliser.judge.capital_threshold_source = str(shipped.get("capital_threshold_source", ""))
        print("kept the capital threshold: python -m benchmarks.correction.capital_normalisation --ship chooses it")
    note = ("Counts of normal forms per written token, from the LexNorm 2015 training tweets (W-NUT 2015, Baldwin\n"
            "et al. 2015; MultiLexNorm English training split, van der Goot et al. 2021), research data.\n"
            "Rebuilt by: python -m benchmarks.correction.lexnorm --ship. written<TAB>normal<TAB>count")
    normaliser.save(DATA_DIR / "normalisation-en", note)
    print(f"shipped: {len(normaliser.table.counts)} written forms, threshold {fitting['threshold']}")
    return 0


def plot(result: dict[str, Any], path: Path, title: str = "LexNorm 2015 tweets, held-out halves",
         xlabel: str = "correct tokens changed (%)") -> None:
    """Misspellings fixed against damage: the threshold sweep of each fold, every system a point."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for fold in result["folds"]:
        sweep = fold["sweep"]
        ax.plot([s["damage"] for s in sweep], [s["misspellings_fixed"] for s in sweep], "o-", alpha=0.6,
                label=f"charwise --style social, threshold swept (fold {fold['fold']})")
    for name, s in result["summed"].items():
        ax.scatter([s["damage"]], [s["misspellings_fixed"]], marker="s", zorder=3)
        ax.annotate(name, (s["damage"], s["misspellings_fixed"]), fontsize=8, xytext=(4, 2), textcoords="offset points")
    ax.set_xscale("symlog", linthresh=0.1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("misspellings fixed (%)")
    ax.set_title(title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SPELLING_DATA)
    parser.add_argument("--max-damage", type=float, default=MAX_DAMAGE, help="damage a chosen threshold may cause")
    parser.add_argument("--no-pyspell", action="store_true", help="leave pyspellchecker out (slow)")
    parser.add_argument("--undo-below", type=float, default=UNDO_BELOW,
                        help="the judge's probability under which a spelling correction is undone")
    parser.add_argument("--ship", action="store_true", help="refit the shipped normaliser on all tweets")
    parser.add_argument("--no-lm", action="store_true", help="leave out the SmolLM2 judge")
    parser.add_argument("--out", type=Path, default=RESULTS / "lexnorm.json")
    args = parser.parse_args(argv)
    if args.ship:
        return ship(read_tweets(args.data / TWEETS), args)
    given = argv if argv is not None else sys.argv[1:]
    command = " ".join(["python -m benchmarks.correction.lexnorm", *given])
    return write_result(args.out, {"command": command, **run(args)}, plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Both folds and their sums (the command line is ``main``'s to record)."""
    tweets = read_tweets(args.data / TWEETS)
    from benchmarks.correction.suite_systems import Baselines

    base = Baselines("en")
    lm = None if args.no_lm else RememberedLM(LMReranker.load("smollm2"))
    half = len(tweets) // 2
    halves = [tweets[:half], tweets[half:]]
    folds = []
    for k in (0, 1):
        fold = run_fold(halves[k], halves[1 - k], base, args, lm)
        learned = f"1-{half}" if k == 0 else f"{half + 1}-{len(tweets)}"
        folds.append({"fold": k, "learn": f"tweets {learned}",
                      **fold})
        print(f"fold {k}: " + ", ".join(f"{n} {s['misspellings_fixed']}/{s['err']}/{s['damage']}"
                                         for n, s in fold["systems"].items()), file=sys.stderr)
    return {"data": "lexnorm2015_en/train.norm (development / training split)", "tweets": len(tweets),
            "max_damage": args.max_damage, "cores": os.cpu_count(),
            "lm_dtype": None if lm is None else str(lm.lm.model.dtype).removeprefix("torch."),
            "summed": {name: summed(folds, name) for name in folds[0]["systems"]}, "folds": folds}


if __name__ == "__main__":
    raise SystemExit(main())
