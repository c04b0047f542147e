"""Fitting the speller's scorer (:class:`~charwise.speller.scorer.SpellScorer`) from the error model.

Training pairs, never from test data:

* **misspellings**: lexicon words (Zipf >= ``min_zipf``, at least 4 letters, drawn uniformly) given
  the language's realistic misspellings (:class:`~charwise.typos.realistic.RealisticNoiser`, 70 %)
  or one keyboard typo (:class:`~charwise.typos.single.Noiser`, 30 %); for English also the
  **tuning half** of Wikipedia's list (:func:`~charwise.typos.wikipedia.list_half`; the test half is
  never read here);
* **valid words the lexicon lacks**: lexicon words of low frequency taken out of the lexicon (their
  own candidate removed), and the alphabetic lower-case words of the training split of UD EWT and
  WNUT17 (English) or of the Spanish training verses that the lexicon does not hold (names, slang,
  archaic forms).

The **ranker** (label: the candidate is the intended word) is fitted on the misspellings' candidates:
a logistic regression and a one-layer perceptron (``rank_hidden`` tanh units) are both fitted on
80 % of the words, and the one with the better top-1 on the other 20 % (on real misspellings when
there are any) is refitted on all and kept. The **judge** (a logistic regression over word
features, label: a misspelling whose best candidate is the intended word) is fitted on every
training word's best candidate, after the ranker. scikit-learn fits all of them; ``compare=True`` also fits
scikit-learn's gradient boosting on the same rows and records its held-out top-1 in
``training_info`` (a reference only: it cannot be stored without pickle).

The correction threshold (``threshold``) was chosen by reading the changes the speller makes to clean
dev text (UD EWT dev) at each probability: that text holds real typos of its own, so the share it
changes is not the share it changes wrongly. ``training_info["dev"]`` lists every change at the
chosen threshold (Spanish: on the dev verses).
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from charwise.errors import ConfigError
from charwise.speller.features import RANK_FEATURES, WORD_FEATURES, word_features
from charwise.speller.lexicon import TEACHER
from charwise.speller.speller import Speller


@dataclass
class ScorerTraining:
    """How the scorer is fitted (see the module docstring)."""

    language: str = "en"
    words: int = 12000  # misspelled training words drawn from the lexicon
    negatives: int = 4000  # lexicon words taken out (valid words the lexicon lacks)
    min_zipf: float = 3.0
    realistic_share: float = 0.7
    wikipedia: bool = True  # English: add the tuning half of Wikipedia's list
    # the probability at which a word is changed; chosen on the changes it makes to clean dev text
    # (EWT dev, checked by hand: above 0.75 nearly every change fixes a real typo; see docs/correction.md)
    threshold: float = 0.75
    real_weight: int = 3  # how many times a real (Wikipedia) misspelling counts in the ranker's fit
    rank_hidden: int = 16  # width of the perceptron ranker tried beside the logistic one
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("words", "negatives"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be an integer >= 1, got {value!r}")
        if not 0 <= self.realistic_share <= 1 or not 0 <= self.threshold <= 1:
            raise ConfigError("realistic_share and threshold must lie in [0, 1]")


def misspelled_pairs(speller: Speller, config: ScorerTraining) -> list[tuple[str, str]]:
    """(misspelling, intended word) training pairs, lower-case (see the module docstring)."""
    from charwise.typos.realistic import MisspellConfig, RealisticNoiser
    from charwise.typos.single import NoiseConfig, NoiseNotApplicable, Noiser

    rng = random.Random(config.seed)
    lexicon = speller.lexicon
    pool = sorted(w for w, e in lexicon.entries.items() if e.zipf >= config.min_zipf and len(w) >= 4 and w.isalpha())
    realistic = RealisticNoiser(MisspellConfig(language=config.language, cased=False, min_length=4,
                                               layouts=("es",) if config.language == "es" else ("us",)))
    single = Noiser(NoiseConfig(cased=False, min_length=4, operations=("mistype", "repeat", "swap", "drop")))
    pairs: list[tuple[str, str]] = []
    while len(pairs) < config.words:
        word = rng.choice(pool)
        noiser = realistic if rng.random() < config.realistic_share else single
        try:
            noisy, _ = noiser.corrupt(word, rng)
        except NoiseNotApplicable:
            continue
        noisy = noisy.lower()
        if noisy != word and noisy.isalpha() and noisy not in lexicon.entries:
            pairs.append((noisy, word))
    if config.language == "en" and config.wikipedia:
        from charwise.typos.wikipedia import list_half, load_wikipedia_pairs

        for bad, good in load_wikipedia_pairs():
            bad, good = bad.strip().lower(), good.strip().lower()
            if list_half(good) == "tune" and bad.isalpha() and good in lexicon.entries and bad != good:
                pairs.append((bad, good))
    return pairs


def valid_unknown_words(speller: Speller, config: ScorerTraining) -> list[tuple[str, str | None]]:
    """(word, the lexicon word to take out or None) for words that are spelled right but that the
    lexicon lacks (see the module docstring)."""
    rng = random.Random(config.seed + 1)
    lexicon = speller.lexicon
    rare = sorted(w for w, e in lexicon.entries.items()
                  if e.zipf < config.min_zipf and len(w) >= 4 and w.isalpha() and not e.sources & TEACHER)
    out: list[tuple[str, str | None]] = [(w, w) for w in rng.sample(rare, min(config.negatives, len(rare)))]
    corpus = sorted({w for w in _training_corpus_words(config.language)
                     if w.isalpha() and w.islower() and len(w) >= 3 and w not in lexicon.entries})
    out += [(w, None) for w in corpus]
    return out


def _training_corpus_words(language: str) -> list[str]:
    if language == "en":
        from charwise.tagging.data import load_task

        words = []
        for task in ("ewt-upos", "wnut17"):
            words += [w for s in load_task(task, splits=("train",)).train for w in s.words]
        return words
    from charwise.translation.data import read_pairs, source_words, split_pairs

    return [w for pair in split_pairs(read_pairs())["train"] for w in source_words(pair.source)]


def clean_dev_words(language: str) -> list[list[str]]:
    """Sentences of clean dev text (EWT dev; Spanish: dev verses), as words."""
    from charwise.words import split_words

    if language == "en":
        from charwise.tagging.data import load_task

        return [s.words for s in load_task("ewt-upos", splits=("dev",)).dev]
    from charwise.translation.data import read_pairs, split_pairs

    return [split_words(pair.source).words for pair in split_pairs(read_pairs())["dev"]]


def _rows(speller: Speller, words: list[str], exclude: list[str | None]) -> list[tuple[list[str], np.ndarray]]:
    out = []
    for start in range(0, len(words), 512):
        batch = words[start : start + 512]
        for (names, rows), drop in zip(speller.candidate_rows(batch), exclude[start : start + 512]):
            if drop is not None and drop in names:
                keep = [j for j, n in enumerate(names) if n != drop]
                names, rows = [names[j] for j in keep], rows[keep]
            out.append((names, rows))
    return out


def _fit_logistic(x: np.ndarray, y: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    from sklearn.linear_model import LogisticRegression

    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    model = LogisticRegression(C=1.0, max_iter=2000, random_state=seed).fit((x - mean) / scale, y)
    return mean, scale, model.coef_[0], float(model.intercept_[0])


def _fit_mlp(x: np.ndarray, y: np.ndarray, mean: np.ndarray, scale: np.ndarray, hidden: int,
             seed: int) -> dict[str, np.ndarray]:
    from sklearn.neural_network import MLPClassifier

    model = MLPClassifier(hidden_layer_sizes=(hidden,), activation="tanh", alpha=1e-4, batch_size=1024,
                          max_iter=30, early_stopping=True, random_state=seed).fit((x - mean) / scale, y)
    (w1, w2), (b1, b2) = model.coefs_, model.intercepts_
    return {"rank_hidden_weight": w1.T, "rank_hidden_bias": b1, "rank_weight": w2[:, 0], "rank_bias": b2[0]}


def fit_scorer(speller: Speller, config: ScorerTraining, compare: bool = True) -> dict[str, Any]:
    """Fit a scorer for ``speller`` (ranker, judge, threshold) and install it as ``speller.scorer``;
    returns what was measured."""
    from charwise.speller.scorer import SpellScorer, SpellScorerConfig

    rng = np.random.default_rng(config.seed)
    pairs = misspelled_pairs(speller, config)
    negatives = valid_unknown_words(speller, config)
    words = [bad for bad, _ in pairs] + [w for w, _ in negatives]
    exclude: list[str | None] = [None] * len(pairs)
    exclude += [drop for _, drop in negatives]
    found = _rows(speller, words, exclude)
    # ranker: misspellings whose intended word is among the candidates
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    groups: list[np.ndarray] = []
    real: list[bool] = []
    for i, ((names, rows), (_, good)) in enumerate(zip(found[: len(pairs)], pairs)):
        if good in names and len(names) > 1:
            groups.append(np.full(len(names), len(xs)))
            xs.append(rows)
            ys.append(np.array([n == good for n in names]))
            real.append(i >= config.words)  # a pair of Wikipedia's list (after the synthetic ones)
    recall = sum(good in names for (names, _), (_, good) in zip(found, pairs)) / max(1, len(pairs))
    x, y, group = np.concatenate(xs), np.concatenate(ys), np.concatenate(groups)
    is_real = np.array(real)
    fit_groups = rng.random(len(xs)) < 0.8  # 80 % of words fit, 20 % measure (ranking accuracy)
    # real misspellings count `real_weight` times in the fit: they are what the speller is for
    repeats = np.where(is_real[group], config.real_weight, 1)

    def fit_rows(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        take = np.repeat(np.flatnonzero(mask), repeats[mask])
        return x[take], y[take]

    x_fit, y_fit = fit_rows(fit_groups[group])
    mean, scale, weight, bias = _fit_logistic(x_fit, y_fit, config.seed)

    def top1(score: np.ndarray) -> dict[str, float]:
        out = {}
        for name, want in (("synthetic", False), ("wikipedia", True)):
            held = [g for g in range(len(xs)) if not fit_groups[g] and real[g] == want]
            hits = sum(bool(y[group == g][int(np.argmax(score[group == g]))]) for g in held)
            if held:
                out[name] = round(hits / len(held), 4)
        return out

    info: dict[str, Any] = {"config": asdict(config), "pairs": len(pairs), "negatives": len(negatives),
                            "candidate_recall": round(recall, 4), "rank_rows": int(len(x))}
    measured = info["ranker_top1_heldout"] = {"logistic": top1(((x - mean) / scale) @ weight + bias)}
    mlp = _fit_mlp(x_fit, y_fit, mean, scale, config.rank_hidden, config.seed)
    hidden = np.tanh(((x - mean) / scale) @ mlp["rank_hidden_weight"].T + mlp["rank_hidden_bias"])
    measured[f"mlp{config.rank_hidden}"] = top1(hidden @ mlp["rank_weight"] + mlp["rank_bias"])
    if compare:
        from sklearn.ensemble import HistGradientBoostingClassifier

        boosted = HistGradientBoostingClassifier(max_iter=200, random_state=config.seed).fit(x_fit, y_fit)
        measured["gradient_boosting"] = top1(boosted.decision_function(x))

    def quality(m: dict[str, float]) -> float:  # real misspellings decide when there are any
        return m.get("wikipedia", m["synthetic"])

    # the better of the two that can be stored, refitted on every word
    use_mlp = quality(measured[f"mlp{config.rank_hidden}"]) > quality(measured["logistic"])
    info["ranker"] = f"mlp{config.rank_hidden}" if use_mlp else "logistic"
    old = speller.scorer.config
    # Fitted apart and installed once whole: assigning speller.scorer forgets the scores cached
    # under the old one, and a failed fit leaves the speller as it was.
    scorer = SpellScorer(SpellScorerConfig(language=old.language, encoder=old.encoder,
                                           rank_hidden=config.rank_hidden if use_mlp else 0))
    parts: dict[str, Any] = {"rank_mean": mean, "rank_scale": scale}
    x_all, y_all = fit_rows(np.ones(len(x), dtype=np.bool_))
    if use_mlp:
        parts.update(_fit_mlp(x_all, y_all, mean, scale, config.rank_hidden, config.seed))
    else:
        _, _, weight, bias = _fit_logistic(x_all, y_all, config.seed)
        parts.update(rank_weight=weight, rank_bias=bias)
    scorer.set_parts(parts)
    judge_x, judge_y = [], []
    labels: list[str | None] = [good for _, good in pairs]
    labels += [None] * len(negatives)
    for word, (names, rows), intended in zip(words, found, labels):
        if not names:
            continue
        scores = scorer.rank(rows)
        order = list(np.argsort(-scores, kind="stable"))
        judge_x.append(word_features(word, scores, order, rows, speller.lexicon.zipf(word)))
        judge_y.append(intended is not None and names[order[0]] == intended)
    jx, jy = np.stack(judge_x), np.array(judge_y)
    # real misspellings count `real_weight` times here too
    judge_repeats = np.array([config.real_weight if i >= config.words and i < len(pairs) else 1
                              for i, (names, _) in enumerate(found) if names])
    jx, jy = np.repeat(jx, judge_repeats, axis=0), np.repeat(jy, judge_repeats)
    split = rng.random(len(jx)) < 0.8
    jm, js, jw, jb = _fit_logistic(jx[split], jy[split], config.seed)
    p = 1 / (1 + np.exp(-(((jx[~split] - jm) / js) @ jw + jb)))
    info["judge_heldout"] = {"accuracy": round(float(((p >= 0.5) == jy[~split]).mean()), 4),
                             "brier": round(float(((p - jy[~split]) ** 2).mean()), 4)}
    jm, js, jw, jb = _fit_logistic(jx, jy, config.seed)
    scorer.set_parts({"word_mean": jm, "word_scale": js, "word_weight": jw, "word_bias": np.float32(jb)})
    if not use_mlp:
        info["ranker_weights"] = {n: round(float(w), 4) for n, w in zip(RANK_FEATURES, parts["rank_weight"])}
    info["judge_weights"] = {n: round(float(w), 4) for n, w in zip(WORD_FEATURES, jw)}
    scorer.config.threshold = config.threshold
    speller.scorer = scorer
    info["dev"] = dev_changes(speller, config)
    scorer.training_info = info
    return info


def dev_changes(speller: Speller, config: ScorerTraining) -> dict[str, Any]:
    """What the threshold does to clean dev text: words looked at, words changed, and each change."""
    sentences = clean_dev_words(config.language)
    total = sum(len(s) for s in sentences)
    looked = [w for s in sentences for w, f in zip(s, speller.looked_at(s)) if f]
    scored = speller._score([w.lower() for w in looked]) if looked else []
    changes = sorted(((round(p, 3), w, sugg[0].word) for (sugg, p), w in zip(scored, looked)
                      if sugg and sugg[0].word != w.lower() and speller.changes(w, p)), reverse=True)
    return {"threshold": speller.threshold, "dev_words": total, "dev_looked_at": len(looked),
            "dev_changed": len(changes), "dev_changed_share": round(len(changes) / max(1, total), 6),
            "changes": changes}
