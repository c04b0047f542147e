"""The normaliser's model: the replacement table learned from annotated text and the fitted judge.

:class:`NormalisationTable` counts what annotators wrote for each written word;
:class:`NormalisationJudge` is a logistic model over :data:`FEATURES` (one weight per feature and
candidate source, :func:`expand`) giving each candidate the probability that it is the intended
word. The features are computed by :meth:`charwise.speller.normalise.Normaliser.features`; the
language model's evidence (``lm_gain``, ``lm_scored``) by :func:`lm_gains`.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from charwise.errors import CheckpointError, ConfigError
from charwise.speller.normalisation_rules import ENGLISH_SOURCES, NEVER_PROPOSED, spelling_variants
from charwise.speller.settings import check_threshold

if TYPE_CHECKING:
    from charwise.speller.context_model import ContextModel
    from charwise.speller.normalise import Normaliser

SOURCES = ENGLISH_SOURCES  # a judge's candidate sources, unless it names its own (Spanish: SPANISH_SOURCES)
EVIDENCE = ("table_share", "table_changed", "table_seen", "written_known", "written_zipf", "candidate_zipf",
            "candidate_known", "speller_p", "distance", "length_gap", "context_gain", "context_seen", "multiword",
            "lm_gain", "lm_scored", "class_gain")


def feature_names(sources: Sequence[str] = SOURCES) -> tuple[str, ...]:
    """A judge's input columns: one indicator per candidate source, then the evidence."""
    return (*(f"src_{s}" for s in sources), *EVIDENCE)


def expanded_size(sources: Sequence[str] = SOURCES) -> int:
    """Columns of :func:`expand` for a judge with these sources."""
    return len(sources) * (len(EVIDENCE) + 1)


FEATURES = feature_names(SOURCES)
# nats: beyond this, one candidate is simply far likelier; the clip keeps the scale sane (about five
# standard deviations of the feature over the rows the shipped LM judge was fitted on that the LM scored)
LM_GAIN_CLIP = 30.0
# the words around a judged word that the language model reads (left, right): the neighbours say most,
# and a forward pass of SmolLM2 on one CPU thread costs about 0.2 s per word with the speller's wider window
LM_WINDOW = (6, 4)
# the plain judge's probabilities for which the language model reads the word: the band that kept the damage
# <= 0.3 % and most of the model's gain for about half the reading of (0.05, 0.95), on the two held-out halves
# of the LexNorm 2015 training tweets (benchmarks/correction/lm_gate.py; docs/correction.md)
LM_DOUBT = (0.15, 0.9)
# a written word is informal (style "auto") when annotators changed it in this share of the times they saw it,
# and saw it this often: u, ur, dont, gonna, cuz; swept on the development tweets (0.6 to 0.9, 2 to 8 times):
# no other value surely better (python -m benchmarks.correction.normaliser_constants)
INFORMAL_SHARE, INFORMAL_SEEN = 0.8, 3
# the judge's probability under which the speller's own correction is undone, for a judge made here and for
# a judge.json that does not say (one default for both): on lower-cased tweets, unknown words the speller
# corrects are often names and slang
UNDO_BELOW = 0.3
UNDO_SOURCE = ("chosen on development data: LexNorm 2015 training tweets (two folds: ERR 64.2 / 61.6 at 0.3, "
               "63.6 / 61.3 undoing every correction under the threshold) and UD EWT dev (the real typos' "
               "corrections kept)")
# the LM judge's own (its probabilities for the speller's candidates run lower than the plain judge's: a
# candidate the language model reads was, in the tweets it learned from, mostly a name's respelling), read
# only where no undo decision ships: English's (social_undo.json) reads the plain judge with the model too
LM_UNDO_BELOW = 0.1
LM_UNDO_SOURCE = ("chosen on development data: LexNorm 2015 training tweets, two folds, --context smollm2 at 0.0, "
                  "0.02, 0.05, 0.1, 0.2, 0.3: the highest ERR summed over both, 58.92 at 0.1 against 58.53 at the "
                  "plain judge's 0.3 (python -m benchmarks.correction.lm_undo)")
#: the judges' inverse L2 strength (scikit-learn's C): swept on the development tweets among 0.03, 0.1, 0.3,
#: 1 and 3, no other value surely better (``python -m benchmarks.correction.normaliser_constants``)
STRENGTH = 0.3
_SERIALS = itertools.count()  # one number per judge ever made (an id() is reused once its object is freed)


@dataclass
class NormalisationTable:
    """Lower-case written word -> {normal form: times annotators gave it} (the written word itself
    counts as a normal form: how often it was left as it is matters as much)."""

    counts: dict[str, dict[str, int]] = field(default_factory=dict)

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, str]]) -> "NormalisationTable":
        """Count ``(written, normal)`` token pairs (lower-cased)."""
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        for written, normal in pairs:
            counts[written.lower()][normal.lower()] += 1
        return cls({w: dict(c) for w, c in counts.items()})

    def total(self, word: str) -> int:
        return sum(self.counts.get(word, {}).values())

    def replacements(self, word: str) -> dict[str, int]:
        """The normal forms other than the word itself, with their counts."""
        return {n: c for n, c in self.counts.get(word, {}).items() if n != word and c > 0}

    @cached_property
    def informal_words(self) -> frozenset[str]:
        """Written words (letters only) that annotators normalised at least :data:`INFORMAL_SHARE` of
        the :data:`INFORMAL_SEEN` or more times they saw them, to a form the normaliser may propose
        (``u``, ``dont``, ``gonna``; not ``colour``, whose American spelling is never proposed).
        Computed once, at first use: a table is not changed after it is built (a fitting's leave-one-out
        takes a count out and puts it back before anything reads this)."""
        out = set()
        for word, normals in self.counts.items():
            seen = sum(normals.values())
            changed = sum(c for n, c in normals.items() if n != word and n not in NEVER_PROPOSED
                          and not spelling_variants(word, n))
            if word.isalpha() and seen >= INFORMAL_SEEN and changed >= INFORMAL_SHARE * seen:
                out.add(word)
        return frozenset(out)

    def to_rows(self) -> list[list[object]]:
        return [[w, n, c] for w in sorted(self.counts) for n, c in sorted(self.counts[w].items())]

    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[object]]) -> "NormalisationTable":
        counts: dict[str, dict[str, int]] = defaultdict(dict)
        for written, normal, count in rows:
            counts[str(written)][str(normal)] = int(count)  # type: ignore[call-overload]
        return cls(dict(counts))


def expand(rows: np.ndarray, n_sources: int = len(SOURCES)) -> np.ndarray:
    """The judge's inputs: the source columns, then every other feature once per source (a weight of
    its own per source: the speller's probability means something else than a table share)."""
    sources, rest = rows[:, :n_sources], rows[:, n_sources:]
    return np.concatenate([sources] + [sources[:, [k]] * rest for k in range(n_sources)], axis=1)


EXPANDED = expanded_size(SOURCES)  # columns of expand() for the English judge


@dataclass
class NormalisationJudge:
    """A logistic model over :func:`feature_names` of its ``sources``, each with a weight per
    candidate source (:func:`expand`): the probability that a candidate is the intended word."""

    weights: np.ndarray
    bias: float
    mean: np.ndarray
    scale: np.ndarray
    threshold: float = 0.5  # a candidate replaces the word from this probability up
    threshold_source: str = ""
    # the speller's own correction is undone when the judge gives it less than this (same unit)
    undo_below: float = UNDO_BELOW
    undo_source: str = UNDO_SOURCE
    sources: tuple[str, ...] = SOURCES
    # in sentences read as social, when set: where the annotation marks only the words its annotators
    # did not know (Tweet-Norm), a damage budget keeps the judge from tweets' own respellings
    social_threshold: float | None = None
    social_threshold_source: str = ""
    # for a word written with a capital first letter (at a sentence start: inside one it is a name), when set:
    # the judge learned from lower-cased tweets, blind to the case (Yo, Wth, N against U, Im), so the threshold
    # is chosen on changes read by hand in text that keeps it (benchmarks/correction/capital_normalisation.py)
    capital_threshold: float | None = None
    capital_threshold_source: str = ""
    # what the normaliser's cache of judgements tells judges apart by
    serial: int = field(default_factory=lambda: next(_SERIALS), init=False, repr=False, compare=False)

    def threshold_for(self, social: bool, capitalised: bool = False) -> float:
        """The probability a candidate needs in a sentence read as social (``social``) or not, for a word
        written with a capital first letter (``capitalised``: not one in capitals) or not."""
        base = self.social_threshold if social and self.social_threshold is not None else self.threshold
        return max(base, self.capital_threshold) if capitalised and self.capital_threshold is not None else base

    def probability(self, rows: np.ndarray) -> np.ndarray:
        """For each row of :func:`feature_names` (of its sources), the probability that its
        candidate is the intended word."""
        z = ((expand(rows, len(self.sources)) - self.mean) / self.scale) @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))

    def to_dict(self) -> dict[str, object]:
        return {"sources": list(self.sources), "features": list(feature_names(self.sources)),
                "weights": self.weights.tolist(), "bias": self.bias,
                "mean": self.mean.tolist(), "scale": self.scale.tolist(), "threshold": self.threshold,
                "threshold_source": self.threshold_source, "undo_below": self.undo_below,
                "undo_source": self.undo_source, "social_threshold": self.social_threshold,
                "social_threshold_source": self.social_threshold_source, "capital_threshold": self.capital_threshold,
                "capital_threshold_source": self.capital_threshold_source}

    @classmethod
    def from_dict(cls, data: dict[str, object], where: str = "the judge") -> "NormalisationJudge":
        sources = tuple(str(s) for s in data.get("sources", SOURCES))  # type: ignore[attr-defined]
        if data.get("features") != list(feature_names(sources)):
            raise CheckpointError(f"{where} was fitted on other features than this version of charwise reads: "
                                  "rebuild it (python -m benchmarks.correction.lexnorm --ship)")
        arrays = [np.asarray(data[k], dtype=np.float64) for k in ("weights", "mean", "scale")]
        size = expanded_size(sources)
        if any(a.shape != (size,) for a in arrays):
            raise CheckpointError(f"{where}: weights, mean and scale must each have {size} values")
        try:
            social = check_threshold(data.get("social_threshold"), "social_threshold")  # type: ignore[arg-type]
            capital = check_threshold(data.get("capital_threshold"), "capital_threshold")  # type: ignore[arg-type]
        except ConfigError as error:
            raise CheckpointError(f"{where}: {error}") from None
        undo = (UNDO_BELOW, UNDO_SOURCE)  # a file that does not say: the one default, with its source
        if "undo_below" in data:
            undo = (float(data["undo_below"]), str(data.get("undo_source", "")))  # type: ignore[arg-type]
        return cls(arrays[0], float(data["bias"]), arrays[1], arrays[2],  # type: ignore[arg-type]
                   float(data.get("threshold", 0.5)), str(data.get("threshold_source", "")),  # type: ignore[arg-type]
                   *undo, sources, social, str(data.get("social_threshold_source", "")),
                   capital, str(data.get("capital_threshold_source", "")))

    @classmethod
    def fit(cls, rows: np.ndarray, labels: np.ndarray, c: float | None = None,
            sources: Sequence[str] = SOURCES) -> "NormalisationJudge":
        """A judge fitted on candidate ``rows`` (:func:`feature_names` of ``sources``) and
        ``labels`` (1: the intended word); ``c``: the inverse L2 strength (default :data:`STRENGTH`)."""
        from sklearn.linear_model import LogisticRegression

        sources = tuple(sources)
        rows = expand(rows, len(sources))
        mean = rows.mean(axis=0)
        scale = rows.std(axis=0)
        scale[scale < 1e-9] = 1.0
        model = LogisticRegression(C=STRENGTH if c is None else c, max_iter=2000).fit((rows - mean) / scale, labels)
        return cls(model.coef_[0].astype(np.float64), float(model.intercept_[0]), mean, scale, sources=sources)


def lm_gains(lm: ContextModel, sentences: Sequence[Sequence[str]],
             targets: Sequence[tuple[int, int, str, Sequence[str]]]) -> list[dict[str, float]]:
    """For each target ``(sentence, position, written word, candidates)``: each candidate's gain in
    the language model's log-probability (nats, clipped to +-:data:`LM_GAIN_CLIP`) over the word as
    written, each put in place of ``sentences[sentence][position]`` in the words around it
    (:data:`LM_WINDOW`; :meth:`LMReranker.score <charwise.speller.neural.LMReranker.score>`,
    candidates in the written word's case pattern). The left and right context count alike: the
    whole window is scored."""
    from charwise.speller.corrections import same_case

    if not targets:
        return []
    left, right = LM_WINDOW
    windows, places = [], []
    for s, i, _, _ in targets:
        lo = max(0, i - left)
        windows.append(list(sentences[s][lo : i + right + 1]))
        places.append((len(windows) - 1, i - lo))
    variants = [[written, *(same_case(written, c) for c in cands)] for _, _, written, cands in targets]
    scores = lm.score(windows, places, variants)
    return [{c: float(np.clip(v - row[0], -LM_GAIN_CLIP, LM_GAIN_CLIP)) for c, v in zip(cands, row[1:])}
            for (_, _, _, cands), row in zip(targets, scores)]


LM_JUDGE_FILE = "judge-lm.json"  # the judge that reads a language model's gains too


def read_model(folder: Path) -> tuple[NormalisationTable, NormalisationJudge, NormalisationJudge | None]:
    """The table, the judge and the LM judge (when there is one) of a normalisation model folder."""
    try:
        judge = NormalisationJudge.from_dict(json.loads((folder / "judge.json").read_text(encoding="utf-8")),
                                             str(folder / "judge.json"))
        lm_file = folder / LM_JUDGE_FILE
        lm_judge = (NormalisationJudge.from_dict(json.loads(lm_file.read_text(encoding="utf-8")), str(lm_file))
                    if lm_file.is_file() else None)
        rows = [line.split("\t") for line in (folder / "table.tsv").read_text(encoding="utf-8").splitlines()
                if line and not line.startswith("#")]
        table = NormalisationTable.from_rows(rows)
    except (OSError, ValueError, KeyError, UnicodeDecodeError) as error:
        raise CheckpointError(f"cannot read the normalisation model in {folder}: {error}") from None
    return table, judge, lm_judge


def write_model(folder: Path, rows: Iterable[tuple[str, str, int]], judge: NormalisationJudge,
                lm_judge: NormalisationJudge | None, note: str = "") -> None:
    """``table.tsv`` (``note`` as its comment lines), ``judge.json`` and ``judge-lm.json`` in
    ``folder``, each written atomically."""
    from charwise.io import atomic_file, write_json

    folder.mkdir(parents=True, exist_ok=True)
    with atomic_file(folder / "table.tsv", "w") as f:
        if note:
            f.write("".join(f"# {line}\n" for line in note.splitlines()))
        f.write("".join(f"{w}\t{n}\t{c}\n" for w, n, c in rows))
    write_json(folder / "judge.json", judge.to_dict())
    if lm_judge is not None:
        write_json(folder / LM_JUDGE_FILE, lm_judge.to_dict())


def candidate_features(normaliser: Normaliser, word: str, candidates: dict[str, str], left: str | None,
                       right: str | None, speller: dict[str, float] | None = None,
                       lm: dict[str, float] | None = None, shares: dict[str, float] | None = None) -> np.ndarray:
    """One row of :data:`FEATURES` per candidate of lower-case ``word`` between ``left`` and
    ``right``, as ``normaliser`` reads them (its table, lexicon, bigram fit and the neighbours' classes:
    :mod:`charwise.speller.class_context`); ``lm``: each
    candidate's language-model gain over the written word (:func:`lm_gains`); ``shares``: members of a
    confusion set among the candidates, with the probability the sentence gives each among them
    (:meth:`ConfusionModel.shares <charwise.speller.confusions.ConfusionModel.shares>`): the table's
    share of those members is split between them as the sentence says (``ur``: ``your`` 25 times,
    ``you're`` 9, and ``you're`` before ``a legend``)."""
    import math

    from charwise.speller.class_context import class_gains
    from charwise.speller.normalisation_rules import edit_distance

    counts = normaliser.table.counts.get(word, {})
    total = sum(counts.values())
    kept = counts.get(word, 0)
    lexicon = normaliser.lexicon
    written_zipf = lexicon.zipf(word)
    base = normaliser._fit(word, left, right)
    classes = class_gains(lexicon.language, candidates, word, left, right) or {}  # none: no tagged corpus
    share = {c: counts.get(c, 0) / total if total else 0.0 for c in candidates}
    if shares:
        pooled = sum(counts.get(c, 0) for c in shares) / total if total else 0.0
        share.update({c: pooled * p for c, p in shares.items() if c in share})
    rows = np.zeros((len(candidates), len(normaliser.feature_names)), dtype=np.float64)
    for j, (cand, source) in enumerate(candidates.items()):
        parts = cand.split(" ")
        fit, seen = normaliser._fit(cand, left, right)
        values = {
            f"src_{source}": 1.0,
            "table_share": share[cand],
            "table_changed": (total - kept) / total if total else 0.0,
            "table_seen": math.log1p(total),
            "written_known": float(lexicon.knows(word)),
            "written_zipf": written_zipf,
            "candidate_zipf": min(lexicon.zipf(p) for p in parts),
            "candidate_known": float(normaliser._known(cand)),
            "speller_p": (speller or {}).get(cand, 0.0),
            "distance": min(edit_distance(word, cand), 5),
            "length_gap": len(cand) - len(word),
            "context_gain": fit - base[0],
            "context_seen": float(seen),
            "multiword": float(len(parts) > 1),
            "lm_gain": (lm or {}).get(cand, 0.0),
            "lm_scored": float(lm is not None and cand in lm),
            # the neighbours' classes (charwise.speller.class_context), where the language has a tagged corpus
            "class_gain": classes.get(cand, 0.0),
        }
        rows[j] = [values.get(name, 0.0) for name in normaliser.feature_names]
    return rows
