"""What else the normaliser's judge could read: variants of the judge tried on held-out tweets.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.judge_evidence   # -> results/judge_evidence.json/.png

The LexNorm 2015 training tweets' two held-out halves, as in ``lexnorm.py``: each fold learns on
one half (the replacement table; the judge on candidate rows with leave-one-out table features;
its threshold chosen out of fold as the lowest at which the damage stays <= ``--max-damage``) and
is scored on the other. Unlike ``lexnorm.py`` this reads the normaliser alone, on candidate rows
(``judge_fitting.candidate_rows``: every token with candidates, given the speller's suggestions):
no spelling change of the speller itself, no undo in social text, one pass. So the ``logistic``
row is this run's baseline, not the shipped pipeline's figure. Variants:

* ``logistic``: the shipped judge's model (``NormalisationJudge``: a logistic model with a weight
  per feature and candidate source);
* ``gradient-boosted trees``: scikit-learn's ``HistGradientBoostingClassifier`` on the same rows
  (interactions the logistic model cannot draw: a table share that matters only for short words);
* ``+ pair evidence``: for a candidate of several words (``best friends``, ``a lot``), how much
  likelier the bigram counts find its words together than apart (log10 score(b | a) - log10 P(b)),
  and whether the pair was counted: the split's own evidence, which the context columns lack;
* ``+ respellings by sound``: English rules (:data:`RESPELLINGS`: ``dey -> they``, ``betta ->
  better``, ``wen -> when``, ``songz -> songs``, ``thang -> thing``) as a candidate source, for
  unknown words and known words rarer than Zipf :data:`RESPELL_BELOW_ZIPF`;
* ``+ distributional similarity``: the cosine of the written word and the candidate in word2vec
  vectors (gensim skip-gram, 100 dimensions, seed 0, one thread) trained on the 40,000 unlabelled
  WNUT17 tweets charwise ships (about 450,000 words once links and handles are removed), and
  whether both had a vector;
* ``logistic, half the learning tweets``: the shipped model with its table and judge learned from
  the first half of each learning half only (590 tweets), scored on the same tweets: what twice the
  annotated tweets are worth.

Figures summed over both folds: ERR, misspellings fixed and damage at each variant's own threshold,
and ERR at 0.5 (near where the sweep of ``lexnorm.py`` peaks, at more damage).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

from benchmarks.common.paths import RESULTS, ROOT, SPELLING_DATA
from benchmarks.common.report import invocation, pyplot, write_result
from benchmarks.correction.judge_fitting import (
    Rows,
    Tweet,
    candidate_rows,
    decisions,
    lowest_threshold,
    out_of_fold,
    score_changes,
    stacked,
)
from benchmarks.correction.lexnorm import MAX_DAMAGE
from benchmarks.correction.render import render_judge_evidence as render  # noqa: F401  (make_results reads it)

WRITES = ("judge_evidence",)
PAGE = "correction-experiments.md"
RAW = ROOT / "src" / "charwise" / "data" / "wnut17" / "raw_text"
# written pattern -> standard spelling (English respellings by sound as tweets write them)
RESPELLINGS = (("^d(?=[aeiouy])", "th"), ("a$", "er"), ("ah$", "ar"), ("z$", "s"), ("z", "s"),
               ("^w(?=[aeiou])", "wh"), ("u$", "ou"), ("u", "a"), ("f", "ph"), ("ang$", "ing"), ("oo", "u"),
               ("^t(?=i)", "th"))
RESPELL_BELOW_ZIPF = 3.5
VARIANTS = ("logistic", "gradient-boosted trees", "+ pair evidence", "+ respellings by sound",
            "+ distributional similarity", "logistic, half the learning tweets")
REPORTED = ("err", "misspellings_fixed", "normalisations_fixed", "damage", "changed_wrongly", "err_kept")

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def word_vectors(folder: Path = RAW) -> tuple[Any, int]:
    """Skip-gram vectors of the user text in ``folder`` (lower-cased; links and handles removed), and
    the words they were trained on."""
    from gensim.models import Word2Vec

    token = re.compile(r"[a-z0-9']+")
    sentences = []
    for path in sorted(folder.iterdir()):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            words = token.findall(re.sub(r"https?://\S+|@\w+", " ", line.lower()))
            if len(words) > 2:
                sentences.append(words)
    model = Word2Vec(sentences, vector_size=100, window=4, min_count=3, epochs=15, workers=1, sg=1, seed=0)
    return model.wv, sum(map(len, sentences))


def pair_evidence(context: Any, candidate: str) -> tuple[float, float]:
    """How much likelier the bigram counts find a multi-word candidate's words together than apart
    (log10), and whether every pair was counted; (0, 0) for one word."""
    parts = candidate.split(" ")
    if len(parts) < 2:
        return 0.0, 0.0
    total, seen = 0.0, True
    for a, b in zip(parts, parts[1:]):
        score, counted = context.log_score(b, a)
        total, seen = total + score - context.log_unigram(b), seen and counted
    return total, float(seen)


def similarity(vectors: Any, written: str, candidate: str) -> tuple[float, float]:
    """Cosine of the written word and the candidate (its words' mean vector), and whether both had vectors."""
    parts = candidate.split(" ")
    if written not in vectors or any(p not in vectors for p in parts):
        return 0.0, 0.0
    a, b = vectors[written], np.mean([vectors[p] for p in parts], axis=0)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-12)), 1.0


def with_columns(rows: Rows, tweets: list[Tweet], column: Callable[[str, str], tuple[float, float]]) -> Rows:
    """``rows`` with two more feature columns per candidate, ``column(written, candidate)``."""
    return [(t, i, cands, np.concatenate([X, np.array([column(tweets[t][i][0], c) for c in cands])], axis=1), normal)
            for t, i, cands, X, normal in rows]


def respelling_normaliser(normaliser: Any) -> Any:
    """``normaliser`` with English respellings by sound as a candidate source (its rules replaced;
    the judge's columns follow its sources)."""
    from charwise.speller.normalisation_judge import feature_names
    from charwise.speller.normalisation_rules import ENGLISH_SOURCES

    sources = (*ENGLISH_SOURCES[:4], "phonetic", *ENGLISH_SOURCES[4:])
    normaliser.rules = dataclasses.replace(
        normaliser.rules, sources=sources, respell_below_zipf=RESPELL_BELOW_ZIPF,
        phonetic=tuple((re.compile(p), r) for p, r in RESPELLINGS))
    normaliser.feature_names = feature_names(sources)
    return normaliser


def models(sources: tuple[str, ...]) -> dict[str, tuple[Callable[..., Any], Callable[[Any, np.ndarray], np.ndarray]]]:
    """name -> (fit(X, y), probability(model, X))."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    from charwise.speller.normalise import NormalisationJudge

    def trees(X: np.ndarray, y: np.ndarray) -> Any:
        return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15,
                                              min_samples_leaf=20, l2_regularization=1.0, random_state=0).fit(X, y)

    return {"logistic": (lambda X, y: NormalisationJudge.fit(X, y, sources=sources), NormalisationJudge.probability),
            "trees": (trees, lambda model, X: model.predict_proba(X)[:, 1])}


def judged(learn_rows: Rows, test_rows: Rows, learn: list[Tweet], test: list[Tweet], sources: tuple[str, ...],
           model: str, max_damage: float) -> dict[str, Any]:
    """Fit ``model`` on the learning rows (threshold out of fold), decide the test rows: the changes
    at that threshold and at 0.5, keyed (tweet, token)."""
    fit, probability = models(sources)[model]
    threshold, _ = lowest_threshold(learn_rows, learn, out_of_fold(learn_rows, fit, probability), max_damage)
    X, y, _ = stacked(learn_rows)
    X_test, _, owner = stacked(test_rows)
    p = probability(fit(X, y), X_test)
    per_row = [p[owner == r] for r in range(len(test_rows))]
    return {"threshold": threshold, "changes": decisions(test_rows, per_row, threshold),
            "changes_at_half": decisions(test_rows, per_row, 0.5)}


def fold_results(learn: list[Tweet], test: list[Tweet], spelling: Any, context: Any, vectors: Any,
                 max_damage: float) -> dict[str, dict[str, Any]]:
    """Each variant's threshold and changes (:func:`judged`) learning on ``learn``, scored on ``test``."""
    from benchmarks.correction.lexnorm import speller_choices
    from charwise.speller.normalise import NormalisationTable, Normaliser

    learn_choices, _ = speller_choices(spelling, learn)
    test_choices, _ = speller_choices(spelling, test)
    table = NormalisationTable.from_pairs(p for t in learn for p in t)
    plain = Normaliser(spelling.lexicon, table, None, context)
    respelling = respelling_normaliser(Normaliser(spelling.lexicon, table, None, context))
    learn_rows, test_rows = (candidate_rows(plain, learn, learn_choices, leave_one_out=True),
                             candidate_rows(plain, test, test_choices, leave_one_out=False))

    def pairs(written: str, candidate: str) -> tuple[float, float]:
        return pair_evidence(context, candidate)

    def cosine(written: str, candidate: str) -> tuple[float, float]:
        return similarity(vectors, written, candidate)

    # the same judge learning from half as many tweets (table and judge): what more annotation would be worth
    fewer = learn[: len(learn) // 2]
    fewer_normaliser = Normaliser(spelling.lexicon, NormalisationTable.from_pairs(p for t in fewer for p in t), None,
                                  context)
    sources = plain.rules.sources
    setups = {
        "logistic": (learn, learn_rows, test_rows, sources, "logistic"),
        "gradient-boosted trees": (learn, learn_rows, test_rows, sources, "trees"),
        "+ pair evidence": (learn, with_columns(learn_rows, learn, pairs), with_columns(test_rows, test, pairs),
                            sources, "logistic"),
        "+ respellings by sound": (learn, candidate_rows(respelling, learn, learn_choices, leave_one_out=True),
                                   candidate_rows(respelling, test, test_choices, leave_one_out=False),
                                   respelling.rules.sources, "logistic"),
        "+ distributional similarity": (learn, with_columns(learn_rows, learn, cosine),
                                        with_columns(test_rows, test, cosine), sources, "logistic"),
        "logistic, half the learning tweets": (
            fewer, candidate_rows(fewer_normaliser, fewer, learn_choices[: len(fewer)], leave_one_out=True),
            candidate_rows(fewer_normaliser, test, test_choices, leave_one_out=False), sources, "logistic"),
    }
    return {name: judged(a, b, learning, test, src, model, max_damage)
            for name, (learning, a, b, src, model) in setups.items()}


def run(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.correction.lexnorm import TWEETS, read_tweets, spelling_context
    from charwise.speller import Speller, SpellerSettings
    from charwise.speller.corrections import SPELLING

    tweets = read_tweets(args.data / TWEETS)
    half = len(tweets) // 2
    spelling = Speller.load("en", settings=SpellerSettings(changes=SPELLING))
    context = spelling_context()
    vectors, trained_on = word_vectors()
    changes: dict[str, dict[str, dict[tuple[int, int], str]]] = {v: {"own": {}, "half": {}} for v in VARIANTS}
    thresholds: dict[str, list[float]] = {v: [] for v in VARIANTS}
    for fold in (0, 1):
        learn, test = (tweets[:half], tweets[half:]) if fold == 0 else (tweets[half:], tweets[:half])
        offset = half if fold == 0 else 0  # the test tweets' place among all tweets
        for name, out in fold_results(learn, test, spelling, context, vectors, args.max_damage).items():
            thresholds[name].append(out["threshold"])
            for key, made in (("own", out["changes"]), ("half", out["changes_at_half"])):
                changes[name][key].update({(t + offset, i): c for (t, i), c in made.items()})
            print(f"fold {fold} {name}: threshold {out['threshold']}", flush=True)
    results = {}
    for name in VARIANTS:
        own, at_half = score_changes(tweets, changes[name]["own"]), score_changes(tweets, changes[name]["half"])
        results[name] = {**{k: own[k] for k in REPORTED}, "thresholds": thresholds[name], "err_at_half": at_half["err"],
                         "damage_at_half": at_half["damage"]}
        print(f"{name:30s} ERR {own['err']:6.2f}  fixed {own['misspellings_fixed']:6.2f}  damage {own['damage']:.3f}"
              f"  (at 0.5: ERR {at_half['err']:.2f}, damage {at_half['damage']:.3f})")
    return {"data": TWEETS, "tweets": len(tweets), "max_damage": args.max_damage,
            "word_vectors": {"text": RAW.relative_to(ROOT).as_posix(), "words": trained_on, "vocabulary": len(vectors)},
            "respellings": [list(r) for r in RESPELLINGS], "respell_below_zipf": RESPELL_BELOW_ZIPF,
            "variants": results}


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    names = list(result["variants"])
    series = {"at its own threshold": [result["variants"][n]["err"] for n in names],
              "at 0.5 (more damage)": [result["variants"][n]["err_at_half"] for n in names]}
    fig, ax = plt.subplots(figsize=(8, 4))
    y = np.arange(len(names))
    for k, (label, values) in enumerate(series.items()):
        bars = ax.barh(y + (k - 0.5) * 0.4, values, height=0.4, label=label)
        ax.bar_label(bars, fmt="%.1f", padding=2, fontsize=8)
    low = min(min(v) for v in series.values())
    ax.set_xlim(5 * int(low // 5) - 5, max(max(v) for v in series.values()) + 4)
    ax.set_yticks(y, names)
    ax.invert_yaxis()
    ax.set_xlabel("ERR, LexNorm 2015 tweets (two held-out halves, normaliser alone)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SPELLING_DATA, help="the spelling benchmarks folder")
    parser.add_argument("--max-damage", type=float, default=MAX_DAMAGE,
                        help="each judge's threshold: the lowest keeping out-of-fold damage at or below this share")
    parser.add_argument("--out", type=Path, default=RESULTS / "judge_evidence.json")
    args = parser.parse_args(argv)
    return write_result(args.out, {"command": invocation("benchmarks.correction.judge_evidence", argv), **run(args)},
                        plot)


if __name__ == "__main__":
    sys.exit(main())
