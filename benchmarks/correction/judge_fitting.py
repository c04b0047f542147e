"""Fitting the normaliser's judge on annotated tweets, and scoring changes against the annotation.

Shared by the LexNorm 2015 (``lexnorm.py``), Tweet-Norm (``tweetnorm.py``) and judge-evidence
(``judge_evidence.py``) benchmarks: candidate rows with leave-one-out table features, the
out-of-fold choice of the judge's threshold (the lowest at which the damage stays within a
budget, or, where only some words are annotated and the damage is an upper bound, the one of highest
error reduction), and the metrics of ``lexnorm.py``'s docstring (:func:`score_changes`).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from charwise.speller.normalisation_rules import edit_distance
from charwise.speller.normalise import (
    NEVER_PROPOSED,
    NormalisationJudge,
    Normaliser,
    normalisable,
    spelling_variants,
)
from charwise.speller.real_words import adjacent_words

Tweet = list[tuple[str, str]]
Rows = list[tuple[int, int, list[str], np.ndarray, str]]  # (tweet, token, candidates, feature rows, normal form)


def candidate_rows(normaliser: Normaliser, tweets: list[Tweet], choices: list[list[dict[str, float]]],
                   leave_one_out: bool, gains: dict[tuple[int, int], dict[str, float]] | None = None
                   ) -> Rows:
    """(tweet, token, candidates, feature rows, normal form) for each token with candidates;
    ``leave_one_out``: the token's own annotation is taken out of the table while it is read;
    ``gains``: the language model's, for the LM judge."""
    rows = []
    counts = normaliser.table.counts
    for t, (tweet, choice) in enumerate(zip(tweets, choices)):
        words = [raw for raw, _ in tweet]
        for i, (raw, normal) in enumerate(tweet):
            if not normalisable(raw):
                continue
            own = counts.get(raw, {})
            if leave_one_out and own.get(normal):
                own[normal] -= 1
            try:
                found = normaliser.candidates(raw, choice[i])
                if found:
                    left, right = adjacent_words(words, i)
                    lm = gains.get((t, i)) if gains is not None else None
                    shares = normaliser.shares(raw, words, i)
                    rows.append((t, i, list(found), normaliser.features(raw, found, left, right, choice[i], lm,
                                                                        shares), normal))
            finally:
                if leave_one_out and normal in own:
                    own[normal] += 1
    return rows


def decisions(rows: Rows, probabilities: list[np.ndarray],
              threshold: float) -> dict[tuple[int, int], str]:
    """The change made to each (tweet, token) at ``threshold``."""
    out = {}
    for (t, i, cands, _, _), p in zip(rows, probabilities):
        j = int(np.argmax(p))
        if p[j] >= threshold:
            out[(t, i)] = cands[j]
    return out


def stacked(rows: Rows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The candidate rows of :func:`candidate_rows` as one matrix, their labels (1: the annotated
    form) and the row each candidate belongs to."""
    X = np.concatenate([r[3] for r in rows])
    y = np.concatenate([[c == r[4] for c in r[2]] for r in rows]).astype(int)
    return X, y, np.repeat(np.arange(len(rows)), [len(r[2]) for r in rows])


def out_of_fold(rows: Rows, fit: Callable[[np.ndarray, np.ndarray], Any],
                probability: Callable[[Any, np.ndarray], np.ndarray]) -> list[np.ndarray]:
    """Each row's candidate probabilities from a model (``fit``, then ``probability``) fitted on the
    other quarter: the learning half cut in two by tweet parity."""
    X, y, owner = stacked(rows)
    half = np.array([r[0] % 2 for r in rows])
    oof: list[np.ndarray] = [np.zeros(0)] * len(rows)
    for k in (0, 1):
        train = half[owner] != k
        p_all = probability(fit(X[train], y[train]), X)
        for r in np.flatnonzero(half == k):
            oof[r] = p_all[owner == r]
    return oof


def threshold_sweep(rows: Rows, tweets: list[Tweet], probabilities: list[np.ndarray]) -> list[dict[str, Any]]:
    """The scores of the changes made with ``probabilities`` at each threshold from 0.05 to 0.975."""
    return [{"threshold": float(t), **score_changes(tweets, decisions(rows, probabilities, float(t)))}
            for t in np.round(np.arange(0.05, 1.0, 0.025), 3)]


def lowest_threshold(rows: Rows, tweets: list[Tweet],
                     probabilities: list[np.ndarray], max_damage: float) -> tuple[float, list[dict[str, Any]]]:
    """The lowest threshold at which the changes made with ``probabilities`` keep the damage to
    ``tweets`` at or below ``max_damage`` (the highest swept when none does), and the sweep."""
    sweep = threshold_sweep(rows, tweets, probabilities)
    return lowest_within(sweep, max_damage), sweep


def lowest_within(sweep: list[dict[str, Any]], max_damage: float) -> float:
    """:func:`lowest_threshold`'s choice in a :func:`threshold_sweep`."""
    allowed = [s for s in sweep if s["damage"] <= 100 * max_damage]
    return float((min(allowed, key=lambda s: s["threshold"]) if allowed else sweep[-1])["threshold"])


def fit_judge(normaliser: Normaliser, tweets: list[Tweet], choices: list[list[dict[str, float]]],
              max_damage: float, gains: dict[tuple[int, int], dict[str, float]] | None = None,
              data: str = "LexNorm 2015 training tweets") -> tuple[NormalisationJudge, dict[str, Any]]:
    """A judge fitted on ``tweets`` (leave-one-out table features, ``data`` names them), its
    threshold chosen out of fold, the lowest within ``max_damage``; with ``gains``, the LM judge."""
    sources = normaliser.rules.sources

    def fit(X: np.ndarray, y: np.ndarray) -> NormalisationJudge:
        return NormalisationJudge.fit(X, y, sources=sources)

    rows = candidate_rows(normaliser, tweets, choices, leave_one_out=True, gains=gains)
    sweep = threshold_sweep(rows, tweets, out_of_fold(rows, fit, NormalisationJudge.probability))
    threshold = lowest_within(sweep, max_damage)
    X, y, _ = stacked(rows)
    judge = fit(X, y)
    judge.threshold = threshold
    judge.threshold_source = (f"lowest threshold at which out-of-fold changes to correct tokens stay <= "
                              f"{100 * max_damage:.1f} % on {len(tweets)} {data}")
    correct_tokens = sum(raw == normal for t in tweets for raw, normal in t)
    return judge, {"candidate_rows": int(len(X)), "tokens_with_candidates": len(rows),
                   "correct_tokens": correct_tokens, "threshold": threshold,
                   "social_threshold": judge.social_threshold, "out_of_fold_sweep": sweep}


# --- scoring ---------------------------------------------------------------------------------------
def refused(raw: str, normal: str) -> bool:
    """An annotation charwise declines by design: a slur as a normal form, or the other national
    spelling of a valid word (``favourite -> favorite``)."""
    return normal in NEVER_PROPOSED or spelling_variants(raw, normal)


def score_changes(tweets: list[Tweet], changes: dict[tuple[int, int], str]) -> dict[str, Any]:
    """The metrics of the module docstring for ``changes`` ((tweet, token) -> output, lower-case),
    and the main ones again without the tokens whose annotation charwise declines (``*_kept``)."""
    out = _scores(tweets, changes, skip_refused=False)
    kept = _scores(tweets, changes, skip_refused=True)
    out.update({f"{k}_kept": kept[k] for k in ("needing", "misspellings", "misspellings_fixed", "normalisations_fixed",
                                                "damage", "err")})
    return out


def _scores(tweets: list[Tweet], changes: dict[tuple[int, int], str], skip_refused: bool) -> dict[str, Any]:
    tp = fp = fn = correct = damaged = need = miss_total = miss_fixed = changed_right = changed = 0
    for t, tweet in enumerate(tweets):
        for i, (raw, normal) in enumerate(tweet):
            if skip_refused and raw != normal and refused(raw, normal):
                continue
            out = changes.get((t, i), raw).lower()
            if out != raw:
                changed += 1
                changed_right += out == normal
            if raw == normal:
                correct += 1
                if out != raw:
                    damaged += 1
                    fp += 1
                continue
            need += 1
            if out == normal:
                tp += 1
            else:
                fn += 1
            if " " not in normal and raw.isalpha() and edit_distance(raw, normal) <= 2:
                miss_total += 1
                miss_fixed += out == normal
    precision = changed_right / changed if changed else 0.0
    recall = tp / need if need else 0.0
    return {"tokens": correct + need, "needing": need, "misspellings": miss_total,
            "misspellings_fixed": round(100 * miss_fixed / max(miss_total, 1), 2),
            "normalisations_fixed": round(100 * tp / max(need, 1), 2),
            "damage": round(100 * damaged / max(correct, 1), 3), "changed_wrongly": damaged,
            "changes": changed, "precision": round(100 * precision, 2), "recall": round(100 * recall, 2),
            "f1": round(100 * 2 * precision * recall / (precision + recall), 2) if precision + recall else 0.0,
            "err": round(100 * (tp - fp) / max(tp + fn, 1), 2)}
