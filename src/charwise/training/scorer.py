"""Fitting the speller's scorer (:class:`~charwise.speller.scorer.SpellScorer`) from the error model:
:func:`fit_scorer` reads candidates and features from a
:class:`~charwise.speller.features.Featurizer` and returns the fitted scorer and what was measured
(``charwise speller train`` saves the scorer).

Training pairs, never from test data:

* **misspellings**: lexicon words (Zipf >= ``min_zipf``, at least 4 letters, drawn uniformly) given
  the language's realistic misspellings (:class:`~charwise.typos.realistic.RealisticNoiser`, 70 %)
  or one keyboard typo (:class:`~charwise.typos.single.Noiser`, 30 %); for English also the
  **tuning half** of Wikipedia's list (:func:`~charwise.typos.wikipedia.list_half`; the test half is
  never read here);
* **misspellings in sentences** (``sentence_words``, :func:`sentence_pairs`): a lexicon word of 3+
  letters of a training sentence (UD EWT and WNUT17 train; the Spanish training verses) misspelled
  in place (from the tuning half of Wikipedia's list when it has the word, half of the time; else
  from the error model) and read between its neighbours: what the context features
  (:mod:`charwise.speller.context`) are learnt from; and, in English, the real misspellings UD
  EWT's annotators marked in its training sentences (``Typo=Yes`` with its ``CorrectForm``:
  ``definately``, ``recieved``, ``hvae``; :func:`annotated_typos`), read where they were written;
* **valid words the lexicon lacks**: lexicon words of low frequency taken out of the lexicon (their
  own candidate removed, scored alone), and the alphabetic lower-case words of those training
  sentences that the lexicon does not hold (names, slang, archaic forms), between the neighbours of
  their first occurrence. Not among them: the forms EWT's annotators marked as typos, and those the
  list of known misspellings names (:mod:`charwise.speller.known_misspellings`): of the 198 such
  words of those sentences, read by hand, all but a handful are misspellings (``absoulutely``,
  ``enviroment``, ``becuse``) or informal spellings (``didnt``, ``gettin``), and taught as valid
  words they taught the judge that a listed form is likely spelled as meant.

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
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Iterable

import numpy as np

from charwise.errors import ConfigError
from charwise.languages import check_language
from charwise.speller.candidates import CandidateBatch
from charwise.speller.features import RANK_FEATURES, WORD_FEATURES, Featurizer, rank_order
from charwise.speller.lexicon import TEACHER, Lexicon
from charwise.speller.speller import DEFAULT_ENCODERS, Context, Speller

if TYPE_CHECKING:
    from charwise.speller.scorer import SpellScorer


@dataclass
class ScorerTraining:
    """How the scorer is fitted (see the module docstring)."""

    language: str = "en"
    encoder: str = ""  # the encoder the scorer names (Speller.load loads it); "": the language's default
    words: int = 12000  # misspelled training words drawn from the lexicon
    negatives: int = 4000  # lexicon words taken out (valid words the lexicon lacks)
    min_zipf: float = 3.0
    realistic_share: float = 0.7
    wikipedia: bool = True  # English: add the tuning half of Wikipedia's list
    # misspellings put into training sentences, read between their neighbours (context evidence);
    # 0: every word is scored alone
    sentence_words: int = 12000
    # the probability at which a word is changed: the English scorer's, chosen on development data
    # as the threshold that corrects most misspellings planted in UD EWT dev sentences while changing
    # no more of their clean words than the scorer before it did at its own 0.75 (python -m
    # benchmarks.correction.speller_dev; 0.75 had been chosen by reading every change to clean EWT
    # dev: at >= 0.75, 59 of 61 right; docs/correction-experiments.md, "Constants and where they come from")
    threshold: float = 0.85
    real_weight: int = 3  # how many times a real (Wikipedia) misspelling counts in the ranker's fit
    rank_hidden: int = 16  # width of the perceptron ranker tried beside the logistic one
    seed: int = 0

    def __post_init__(self) -> None:
        check_language(self.language)
        if not self.encoder:
            self.encoder = DEFAULT_ENCODERS[self.language]
        for name, low in (("words", 1), ("negatives", 1), ("sentence_words", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(f"{name} must be an integer >= {low}, got {value!r}")
        if not 0 <= self.realistic_share <= 1 or not 0 <= self.threshold <= 1:
            raise ConfigError("realistic_share and threshold must lie in [0, 1]")


def _misspeller(lexicon: Lexicon, config: ScorerTraining,
                min_length: int) -> Callable[[str, random.Random], str | None]:
    """A function that gives a word one of the language's misspellings (realistic or a keyboard
    typo, see the module docstring), lower-case, or None when none applies or it is a lexicon word."""
    from charwise.typos.realistic import MisspellConfig, RealisticNoiser
    from charwise.typos.single import NoiseConfig, NoiseNotApplicable, Noiser

    realistic = RealisticNoiser(MisspellConfig(language=config.language, cased=False, min_length=min_length,
                                               layouts=("es",) if config.language == "es" else ("us",)))
    single = Noiser(NoiseConfig(cased=False, min_length=min_length,
                                operations=("mistype", "repeat", "swap", "drop")))

    def misspell(word: str, rng: random.Random) -> str | None:
        noiser = realistic if rng.random() < config.realistic_share else single
        try:
            noisy = noiser.corrupt(word, rng)[0].lower()
        except NoiseNotApplicable:
            return None
        return noisy if noisy != word and noisy.isalpha() and noisy not in lexicon.entries else None

    return misspell


def _wikipedia_tuning_pairs(lexicon: Lexicon) -> list[tuple[str, str]]:
    """(misspelling, word) of the tuning half of Wikipedia's list whose word is a lexicon word."""
    from charwise.typos.wikipedia import list_half, load_wikipedia_pairs

    out = []
    for bad, good in load_wikipedia_pairs():
        bad, good = bad.strip().lower(), good.strip().lower()
        if list_half(good) == "tune" and bad.isalpha() and good in lexicon.entries and bad != good:
            out.append((bad, good))
    return out


def misspelled_pairs(lexicon: Lexicon, config: ScorerTraining) -> list[tuple[str, str]]:
    """(misspelling, intended word) training pairs, lower-case (see the module docstring)."""
    rng = random.Random(config.seed)
    pool = sorted(w for w, e in lexicon.entries.items() if e.zipf >= config.min_zipf and len(w) >= 4 and w.isalpha())
    misspell = _misspeller(lexicon, config, 4)
    pairs: list[tuple[str, str]] = []
    while len(pairs) < config.words:
        word = rng.choice(pool)
        noisy = misspell(word, rng)
        if noisy is not None:
            pairs.append((noisy, word))
    if config.language == "en" and config.wikipedia:
        pairs += _wikipedia_tuning_pairs(lexicon)
    return pairs


def sentence_pairs(lexicon: Lexicon, config: ScorerTraining) -> list[tuple[str, str, Context]]:
    """(misspelling, intended word, its neighbours) for ``sentence_words`` words of the training
    sentences (:func:`training_sentences`, drawn at random), each misspelled in its sentence
    (:func:`misspell_in_sentences`)."""
    from charwise.speller.context import neighbours

    if not config.sentence_words:
        return []
    rng = random.Random(config.seed + 2)
    sentences = training_sentences(config.language)
    drawn = (rng.choice(sentences) for _ in range(50 * config.sentence_words))
    return [(bad, words[i].lower(), neighbours(words, i))
            for words, i, bad in misspell_in_sentences(drawn, lexicon, config, config.sentence_words, rng)]


def annotated_typo_pairs(lexicon: Lexicon, config: ScorerTraining) -> list[tuple[str, str, Context]]:
    """(misspelling, intended word, its neighbours), lower-case, of the typos :func:`annotated_typos`
    gives that the speller looks at and can fix: a form of 3+ letters the lexicon lacks, meant as one
    lexicon word (none when ``sentence_words`` is 0: every word is then scored alone)."""
    from charwise.speller.context import neighbours

    if not config.sentence_words:
        return []
    out = []
    for words, i, meant in annotated_typos(config.language):
        bad = words[i].lower()
        if len(bad) >= 3 and bad.isalpha() and bad not in lexicon.entries and meant in lexicon.entries:
            out.append((bad, meant, neighbours(words, i)))
    return out


def annotated_typos(language: str) -> list[tuple[list[str], int, str]]:
    """(sentence, position, the form meant, lower-case) of every word UD EWT's annotators marked as
    a typo in its training sentences (``Typo=Yes`` among its features, ``CorrectForm`` in its last
    column), when the form meant is one alphabetic word; none outside English."""
    return [(list(words), i, meant) for words, i, meant in _annotated_typos(language)]


@lru_cache(maxsize=None)
def _annotated_typos(language: str) -> tuple[tuple[tuple[str, ...], int, str], ...]:
    """:func:`annotated_typos`, read once per process (a fit reads them twice: 2 s each)."""
    if language != "en":
        return ()
    from charwise.tagging.data import load_task

    out = []
    for sentence in load_task("ewt-upos", splits=("train",)).train:
        for i, (feats, misc) in enumerate(zip(sentence.columns["feats"], sentence.columns["misc"])):
            if "Typo=Yes" not in feats.split("|"):
                continue
            meant = dict(kv.split("=", 1) for kv in misc.split("|") if "=" in kv).get("CorrectForm", "")
            if meant.isalpha() and meant.lower() != sentence.words[i].lower():
                out.append((tuple(sentence.words), i, meant.lower()))
    return tuple(out)


def misspell_in_sentences(sentences: Iterable[list[str]], lexicon: Lexicon, config: ScorerTraining, n: int,
                          rng: random.Random) -> list[tuple[list[str], int, str]]:
    """(sentence, position, misspelling) for the first ``n`` of ``sentences`` that have a word to
    misspell: a lexicon word of at least 3 letters, given a misspelling from the tuning half of
    Wikipedia's list when the list has one for it (English, half of the time), else one from the
    error model (lower-case)."""
    misspell = _misspeller(lexicon, config, 3)
    real: dict[str, list[str]] = {}
    if config.language == "en" and config.wikipedia:
        for bad, good in _wikipedia_tuning_pairs(lexicon):
            real.setdefault(good, []).append(bad)
    out: list[tuple[list[str], int, str]] = []
    for words in sentences:
        if len(out) >= n:
            break
        eligible = [i for i, w in enumerate(words) if len(w) >= 3 and w.isalpha() and w.lower() in lexicon.entries]
        if not eligible:
            continue
        i = rng.choice(eligible)
        good = words[i].lower()
        noisy = rng.choice(real[good]) if good in real and rng.random() < 0.5 else misspell(good, rng)
        if noisy is not None:
            out.append((words, i, noisy))
    return out


def valid_unknown_words(lexicon: Lexicon, config: ScorerTraining) -> list[tuple[str, str | None, Context]]:
    """(word, the lexicon word to take out or None, its neighbours) for words that are spelled
    right but that the lexicon lacks (see the module docstring): the corpus words keep the
    neighbours of their first occurrence (when ``sentence_words``), the rare lexicon words have none."""
    from charwise.speller.context import neighbours
    from charwise.speller.known_misspellings import listed_corrections

    rng = random.Random(config.seed + 1)
    rare = sorted(w for w, e in lexicon.entries.items()
                  if e.zipf < config.min_zipf and len(w) >= 4 and w.isalpha() and not e.sources & TEACHER)
    alone: Context = (None, None)
    out: list[tuple[str, str | None, Context]] = [
        (w, w, alone) for w in rng.sample(rare, min(config.negatives, len(rare)))]
    # misspellings are no valid words (see the module docstring)
    misspelled = {words[i].lower() for words, i, _ in annotated_typos(config.language)}
    first: dict[str, Context] = {}
    for words in training_sentences(config.language):
        for i, w in enumerate(words):
            if (w.isalpha() and w.islower() and len(w) >= 3 and w not in lexicon.entries and w not in first
                    and w not in misspelled and not listed_corrections(w, config.language)):
                first[w] = neighbours(words, i) if config.sentence_words else alone
    out += [(w, None, first[w]) for w in sorted(first)]
    return out


def training_sentences(language: str) -> list[list[str]]:
    """The training sentences of the language, as words: UD EWT and WNUT17 train (English), the
    training verses (Spanish)."""
    if language == "en":
        from charwise.tagging.data import load_task

        return [list(s.words) for task in ("ewt-upos", "wnut17") for s in load_task(task, splits=("train",)).train]
    from charwise.translation.data import read_pairs, source_words, split_pairs

    return [source_words(pair.source) for pair in split_pairs(read_pairs())["train"]]


def clean_dev_words(language: str) -> list[list[str]]:
    """Sentences of clean dev text (EWT dev; Spanish: dev verses), as words."""
    from charwise.words import split_words

    if language == "en":
        from charwise.tagging.data import load_task

        return [s.words for s in load_task("ewt-upos", splits=("dev",)).dev]
    from charwise.translation.data import read_pairs, split_pairs

    return [split_words(pair.source).words for pair in split_pairs(read_pairs())["dev"]]


def featurize(featurizer: Featurizer, words: list[str], exclude: list[str | None],
              contexts: list[Context] | None = None, batch_size: int = 512) -> CandidateBatch:
    """The candidates and features of ``words`` (batches of ``batch_size``, as the speller scores
    them; read between ``contexts``), without the candidate ``exclude`` names for each word (a
    lexicon word taken out: its candidate is dropped after the features of the others are made)."""
    batch = CandidateBatch.concatenate([
        featurizer.featurize(words[start : start + batch_size], None,
                             contexts[start : start + batch_size] if contexts is not None else None)
        for start in range(0, len(words), batch_size)])
    dropped = np.array([exclude[i] for i in batch.word_index.tolist()], dtype=object)
    return batch.select(np.array(batch.names, dtype=object) != dropped)


def _fit_logistic(x: np.ndarray, y: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    from sklearn.linear_model import LogisticRegression

    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    # C=1.0: scikit-learn's default strength, not tuned
    model = LogisticRegression(C=1.0, max_iter=2000, random_state=seed).fit((x - mean) / scale, y)
    return mean, scale, model.coef_[0], float(model.intercept_[0])


def _fit_mlp(x: np.ndarray, y: np.ndarray, mean: np.ndarray, scale: np.ndarray, hidden: int,
             seed: int) -> dict[str, np.ndarray]:
    from sklearn.neural_network import MLPClassifier

    model = MLPClassifier(hidden_layer_sizes=(hidden,), activation="tanh", alpha=1e-4, batch_size=1024,
                          max_iter=30, early_stopping=True, random_state=seed).fit((x - mean) / scale, y)
    (w1, w2), (b1, b2) = model.coefs_, model.intercepts_
    return {"rank_hidden_weight": w1.T, "rank_hidden_bias": b1, "rank_weight": w2[:, 0], "rank_bias": b2[0]}


def fit_scorer(featurizer: Featurizer, config: ScorerTraining,
               compare: bool = True) -> tuple[SpellScorer, dict[str, Any]]:
    """Fit a scorer (ranker, judge, threshold) on ``featurizer``'s candidates and features; returns
    it and what was measured (also its ``training_info``)."""
    from charwise.speller.scorer import SpellScorer, SpellScorerConfig, judge_probabilities, rank_scores

    if featurizer.language != config.language:
        raise ConfigError(f"the featurizer's lexicon is {featurizer.language!r}, the training is for "
                          f"{config.language!r}")
    rng = np.random.default_rng(config.seed)
    lexicon = featurizer.lexicon
    # misspellings alone (synthetic, then Wikipedia's), misspellings in sentences, valid unknown words
    alone = misspelled_pairs(lexicon, config)
    typos = annotated_typo_pairs(lexicon, config)  # real misspellings in sentences, last of those
    in_sentences = sentence_pairs(lexicon, config) + typos
    negatives = valid_unknown_words(lexicon, config)
    pairs = alone + [(bad, good) for bad, good, _ in in_sentences]
    words = [bad for bad, _ in pairs] + [w for w, _, _ in negatives]
    exclude: list[str | None] = [None] * len(pairs)
    exclude += [drop for _, drop, _ in negatives]
    contexts: list[Context] = [(None, None)] * len(alone) + [c for _, _, c in in_sentences]
    contexts += [c for _, _, c in negatives]
    batch = featurize(featurizer, words, exclude, contexts)
    counts, word = batch.counts, batch.word_index
    labels: list[str | None] = [good for _, good in pairs]
    labels += [None] * len(negatives)
    # each candidate: is it the intended word (never, for a valid unknown word)
    hit = np.array(batch.names, dtype=object) == np.array([labels[i] for i in word.tolist()], dtype=object)
    found = np.bincount(word[hit], minlength=len(words)) > 0
    recall = int(found[: len(pairs)].sum()) / max(1, len(pairs))
    # ranker: misspellings whose intended word is among several candidates, one group each
    grouped = found & (counts > 1) & (np.arange(len(words)) < len(pairs))
    member = grouped[word]
    x, y = batch.rows[member], hit[member].astype(bool)
    group = (np.cumsum(grouped) - 1)[word[member]]
    group_offsets = np.concatenate([[0], np.cumsum(counts[grouped])]).astype(np.int64)
    # a real misspelling: a pair of Wikipedia's list (after the synthetic ones, before those in
    # sentences) or an annotated typo (the last pairs)
    position = np.arange(len(words))
    real_word = ((position >= config.words) & (position < len(alone))
                 | (position >= len(pairs) - len(typos)) & (position < len(pairs)))
    is_real = real_word[grouped]
    n_groups = int(grouped.sum())
    fit_groups = rng.random(n_groups) < 0.8  # 80 % of words fit, 20 % measure (ranking accuracy)
    # real misspellings count `real_weight` times in the fit: they are what the speller is for
    repeats = np.where(is_real[group], config.real_weight, 1)

    def fit_rows(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        take = np.repeat(np.flatnonzero(mask), repeats[mask])
        return x[take], y[take]

    x_fit, y_fit = fit_rows(fit_groups[group])
    mean, scale, weight, bias = _fit_logistic(x_fit, y_fit, config.seed)

    def top1(score: np.ndarray) -> dict[str, float]:
        """Held-out share of groups whose best-scored candidate is the intended word."""
        right = y[rank_order(score, group_offsets)[group_offsets[:-1]]]
        out = {}
        for name, want in (("synthetic", False), ("real", True)):
            held = ~fit_groups & (is_real == want)
            if held.any():
                out[name] = round(int(right[held].sum()) / int(held.sum()), 4)
        return out

    info: dict[str, Any] = {"config": asdict(config), "pairs": len(alone), "sentence_pairs": len(in_sentences),
                            "annotated_typos": len(typos),
                            "negatives": len(negatives),
                            "candidate_recall": round(recall, 4), "rank_rows": int(len(x))}
    ranker = {"rank_mean": mean, "rank_scale": scale}
    measured = info["ranker_top1_heldout"] = {
        "logistic": top1(rank_scores({**ranker, "rank_weight": weight, "rank_bias": bias}, x))}
    mlp = _fit_mlp(x_fit, y_fit, mean, scale, config.rank_hidden, config.seed)
    measured[f"mlp{config.rank_hidden}"] = top1(rank_scores({**ranker, **mlp}, x))
    if compare:
        from sklearn.ensemble import HistGradientBoostingClassifier

        boosted = HistGradientBoostingClassifier(max_iter=200, random_state=config.seed).fit(x_fit, y_fit)
        measured["gradient_boosting"] = top1(boosted.decision_function(x))

    def quality(m: dict[str, float]) -> float:  # real misspellings decide when there are any
        return m.get("real", m["synthetic"])

    # the better of the two that can be stored, refitted on every word
    use_mlp = quality(measured[f"mlp{config.rank_hidden}"]) > quality(measured["logistic"])
    info["ranker"] = f"mlp{config.rank_hidden}" if use_mlp else "logistic"
    scorer = SpellScorer(SpellScorerConfig(language=config.language, encoder=config.encoder,
                                           rank_hidden=config.rank_hidden if use_mlp else 0))
    parts: dict[str, Any] = dict(ranker)
    x_all, y_all = fit_rows(np.ones(len(x), dtype=np.bool_))
    if use_mlp:
        parts.update(_fit_mlp(x_all, y_all, mean, scale, config.rank_hidden, config.seed))
    else:
        _, _, weight, bias = _fit_logistic(x_all, y_all, config.seed)
        parts.update(rank_weight=weight, rank_bias=bias)
    scorer.set_parts(parts)
    # judge: every word with candidates, its best candidate by the fitted ranker
    scores = scorer.rank(batch.rows)
    order = rank_order(scores, batch.offsets)
    has = counts > 0
    jx = featurizer.word_rows(batch, scores, order)
    jy = hit[order[batch.offsets[:-1][has]]]
    # real misspellings count `real_weight` times here too
    judge_repeats = np.where(real_word[has], config.real_weight, 1)
    jx, jy = np.repeat(jx, judge_repeats, axis=0), np.repeat(jy.astype(bool), judge_repeats)
    split = rng.random(len(jx)) < 0.8
    jm, js, jw, jb = _fit_logistic(jx[split], jy[split], config.seed)
    p = judge_probabilities({"word_mean": jm, "word_scale": js, "word_weight": jw, "word_bias": jb}, jx[~split])
    info["judge_heldout"] = {"accuracy": round(float(((p >= 0.5) == jy[~split]).mean()), 4),
                             "brier": round(float(((p - jy[~split]) ** 2).mean()), 4)}
    jm, js, jw, jb = _fit_logistic(jx, jy, config.seed)
    scorer.set_parts({"word_mean": jm, "word_scale": js, "word_weight": jw, "word_bias": np.float32(jb)})
    if not use_mlp:
        info["ranker_weights"] = {n: round(float(w), 4) for n, w in zip(RANK_FEATURES, parts["rank_weight"])}
    info["judge_weights"] = {n: round(float(w), 4) for n, w in zip(WORD_FEATURES, jw)}
    scorer.config.threshold = config.threshold
    info["dev"] = dev_changes(Speller.from_featurizer(featurizer, scorer), config)
    scorer.training_info = info
    return scorer, info


def dev_changes(speller: Speller, config: ScorerTraining) -> dict[str, Any]:
    """What the threshold does to clean dev text: words looked at, words changed, and each change."""
    sentences = clean_dev_words(config.language)
    total = sum(len(s) for s in sentences)
    corrected = [w for words in speller.correct_words(sentences) for w in words]
    # every change, the speller's own and those other decisions make (an accent twin has no suggestions)
    changes = sorted(((round(w.probability, 3), w.word, w.correction) for w in corrected if w.changed), reverse=True)
    return {"threshold": speller.threshold, "dev_words": total, "dev_looked_at": sum(w.looked_at for w in corrected),
            "dev_changed": len(changes), "dev_changed_share": round(len(changes) / max(1, total), 6),
            "changes": changes}
