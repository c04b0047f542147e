"""The constants of the speller's reading of informal text, each swept on the annotated development
tweets: which value of each gives the most error reduction, the judge refitted for every value.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.normaliser_constants [--language en|es] [--only NAME ...]

Most bound which candidates the normaliser proposes (:mod:`charwise.speller.normalise`): how
frequent both parts of a split must be (``SPLIT_ZIPF``), how many words an abbreviation may stand
for and how frequent they must be (``ABBREVIATIONS``, ``ABBREVIATION_ZIPF``), how many respellings by
sound are offered (``RESPELLINGS``), how much rarer an accented word may be than the plain one it is
proposed beside (``ACCENT_ZIPF_GAP``, Spanish), when a run-together final ``a`` is ``have``
(``REDUCED_MARGIN``) and how many passes read a sentence (``PASSES``). The others weigh evidence or
say which sentences are read how: how strongly the neighbours' classes of a word the tagged corpus
saw rarely are drawn to no information (``PRIOR``, :mod:`charwise.speller.class_context`,
English), the judge's inverse L2 strength (``STRENGTH``), under which of its probabilities the speller's own
correction is undone in informal text (``UNDO_BELOW``, Spanish), which written words make a sentence read
as informal (``INFORMAL_SHARE``, ``INFORMAL_SEEN``: style ``auto``) and when a sentence is left
whole as another language's (``FOREIGN_MARGIN``, ``MIN_FOREIGN_WORDS``, ``FOREIGN_ZIPF``, English). A candidate the
rule does not propose cannot be chosen; one it proposes is judged, so each value is measured with a
judge fitted anew for it, in the protocol of ``lexnorm.py`` (English: the LexNorm 2015 training tweets, two
folds) and ``tweetnorm.py`` (Spanish: the Tweet-Norm development tweets, two folds): each fold
learns the table and the judge on one half and is scored on the other, the default speller (style
``auto``) summed over both folds. Only development data is read.

The value chosen is the one of highest summed ERR (which counts every wrong change against the right
ones; each fold's judge keeps its own damage budget, ``--max-damage``, as ``lexnorm.py`` fits it), when
a paired bootstrap over the scored tweets finds it ahead of the shipped value in at least 95 % of the
resamples; else the shipped value stays (entries measured before the resamples, the first run's English
ones, moved for a gain of more than 0.3 ERR). A value chosen is a proposal: it is shipped only when the
clean-text and line-by-line checks of the other correction benchmarks agree (the development tweets'
annotation cannot see every wrong change: Tweet-Norm marks only the words its annotators did not know).
With ``--merge``, the constants swept replace their entries in ``--out`` and the others are kept;
``runs`` records each run's command.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from benchmarks.common.markdown import render_generic as render  # noqa: F401  (make_results reads it)
from benchmarks.common.paths import RESULTS, SPELLING_DATA
from benchmarks.common.report import pyplot, save_figure, write_result
from benchmarks.correction.judge_fitting import score_changes
from benchmarks.correction.lexnorm import (
    MAX_DAMAGE,
    TWEETS,
    learned_normaliser,
    read_tweets,
    speller_outputs,
    speller_with,
    summed,
)
from charwise.speller import (
    Speller,
    SpellerSettings,
    class_context,
    foreign,
    normalisation_judge,
    normalisation_rules,
    normalise,
)
from charwise.speller.corrections import SPELLING
from charwise.speller.normalisation_judge import UNDO_BELOW

WRITES = ("normaliser_constants",)
PAGE = "correction-experiments.md"
RESAMPLES = 2000  # paired bootstrap resamples of the tweets behind each gain_confidence
CONFIDENCE = 0.95  # a value replaces the shipped one when its gain holds in this share of the resamples
NOISE = 0.3  # ERR a value had to gain in the first run, before the resamples (its English entries)
#: constant -> (module that reads it, values swept); the shipped value is always among them
SWEPT: dict[str, tuple[Any, tuple[float, ...]]] = {
    "SPLIT_ZIPF": (normalise, (3.0, 3.5, 4.0, 4.5, 5.0)),
    "ABBREVIATIONS": (normalisation_rules, (1, 2, 3, 4, 6)),
    "ABBREVIATION_ZIPF": (normalisation_rules, (2.5, 3.0, 3.5, 4.0, 4.5)),
    "RESPELLINGS": (normalise, (1, 3, 5, 8)),
    "REDUCED_MARGIN": (normalisation_rules, (0.0, 0.25, 0.5, 1.0)),
    "PASSES": (normalise, (1, 2, 3)),
    "ACCENT_ZIPF_GAP": (normalise, (0.5, 1.0, 1.5, 2.0, 3.0)),
    "PRIOR": (class_context, (1.0, 5.0, 20.0, 50.0, 100.0, 200.0)),
    "STRENGTH": (normalisation_judge, (0.03, 0.1, 0.3, 1.0, 3.0)),
    "INFORMAL_SHARE": (normalisation_judge, (0.6, 0.7, 0.8, 0.9)),
    "INFORMAL_SEEN": (normalisation_judge, (2, 3, 5, 8)),
    "FOREIGN_MARGIN": (foreign, (0.5, 1.0, 1.5, 2.0)),
    "MIN_FOREIGN_WORDS": (foreign, (2, 3, 4, 5)),
    "FOREIGN_ZIPF": (foreign, (2.5, 3.0, 3.5, 4.0)),
    # the judge's probability under which the speller's own correction is undone in informal text (read here:
    # each fold's judge is given it); English decides that by a fitted decision (social_undo.json) instead
    "UNDO_BELOW": (sys.modules[__name__], (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)),
}
#: the constants each language's speller reads (English proposes no accents and no respellings by sound;
#: Spanish has no reduced ``a`` and no check for sentences in another language)
READ_BY: dict[str, tuple[str, ...]] = {
    "en": ("SPLIT_ZIPF", "ABBREVIATIONS", "ABBREVIATION_ZIPF", "REDUCED_MARGIN", "PASSES", "PRIOR", "STRENGTH",
           "INFORMAL_SHARE", "INFORMAL_SEEN", "FOREIGN_MARGIN", "MIN_FOREIGN_WORDS", "FOREIGN_ZIPF"),
    "es": ("SPLIT_ZIPF", "ABBREVIATIONS", "ABBREVIATION_ZIPF", "RESPELLINGS", "PASSES", "ACCENT_ZIPF_GAP",
           "STRENGTH", "INFORMAL_SHARE", "INFORMAL_SEEN", "UNDO_BELOW"),
}


@contextmanager
def constant_set(name: str, value: float) -> Iterator[None]:
    """``name`` set to ``value`` in the module that reads it, for the ``with`` block."""
    module = SWEPT[name][0]
    before = getattr(module, name)
    setattr(module, name, type(before)(value))
    try:
        yield
    finally:
        setattr(module, name, before)


class Folds:
    """The two development folds of a language: (learning tweets, scored tweets, the table's extra pairs)."""

    def __init__(self, language: str, data: Path) -> None:
        self.language = language
        if language == "en":
            tweets = read_tweets(data / TWEETS)
            half = len(tweets) // 2
            halves = [tweets[:half], tweets[half:]]
            self.folds = [(halves[k], halves[1 - k]) for k in (0, 1)]
            self.extra: list[tuple[str, str]] = []
            self.name = "LexNorm 2015 training tweets"
        else:
            from benchmarks.correction.tweetnorm import DATA_NAME, chat_labelled, chat_pairs, read_development

            tweets, annotated, _ = read_development(data / "tweetnorm_es")
            half = len(tweets) // 2
            labelled = chat_labelled(tweets, annotated)  # learned on; scored against the annotation as it is
            self.folds = [(labelled[:half], tweets[half:]), (labelled[half:], tweets[:half])]
            self.extra, self.name = chat_pairs(), DATA_NAME

    def outputs(self, max_damage: float) -> Iterator[tuple[list[Any], dict[tuple[int, int], str]]]:
        """For each fold, its scored tweets and the default speller's (style ``auto``) changes to them
        ((tweet, token) -> output), with a normaliser learned on the fold's other half."""
        for learn, test in self.folds:
            spelling = Speller.load(self.language, settings=SpellerSettings(changes=SPELLING))
            normaliser, _, _, _ = learned_normaliser(spelling, learn, max_damage, UNDO_BELOW, self.name,
                                                     self.extra)
            yield test, speller_outputs(speller_with(spelling, normaliser), test)[0]

    def scores(self, max_damage: float) -> tuple[dict[str, Any], np.ndarray]:
        """:meth:`outputs` scored, summed over the folds; and per scored tweet (both folds, in order) its
        right changes minus its changes to correct tokens, and the tokens that needed a change (the
        parts of ERR, for :func:`gain_confidence`)."""
        folds, parts = [], []
        for test, changes in self.outputs(max_damage):
            folds.append({"systems": {"charwise": score_changes(test, changes)}})
            for t, tweet in enumerate(test):
                outputs = [(raw, normal, changes.get((t, i), raw)) for i, (raw, normal) in enumerate(tweet)]
                parts.append((sum(raw != normal and out == normal for raw, normal, out in outputs)
                              - sum(raw == normal and out != raw for raw, normal, out in outputs),
                              sum(raw != normal for raw, normal, _ in outputs)))
        return summed(folds, "charwise"), np.asarray(parts, dtype=np.float64)


def gain_confidence(value: np.ndarray, shipped: np.ndarray, resamples: int = RESAMPLES) -> float:
    """The share of paired bootstrap resamples of the tweets (seeded) in which ``value``'s ERR beats
    ``shipped``'s: each array holds per tweet (right - damaged, needed), :meth:`Folds.scores`."""
    rng = np.random.default_rng(0)
    picks = rng.integers(0, len(value), size=(resamples, len(value)))
    need = shipped[:, 1][picks].sum(axis=1)
    gain = (value[:, 0][picks].sum(axis=1) - shipped[:, 0][picks].sum(axis=1)) / np.maximum(need, 1)
    return round(float((gain > 0).mean()), 4)


def sweep(folds: Folds, names: list[str], max_damage: float) -> dict[str, Any]:
    """Every value of each constant in ``names``: its summed scores, how sure a gain over the shipped
    value is (:func:`gain_confidence`), and the value chosen (:func:`choose`)."""
    out: dict[str, Any] = {}
    for name in names:
        module, values = SWEPT[name]
        shipped = getattr(module, name)
        rows, parts = [], {}
        for value in values:
            with constant_set(name, value):
                scores, parts[value] = folds.scores(max_damage)
            rows.append({"value": value, "err": scores["err"], "damage": scores["damage"],
                         "recall": scores["recall"], "precision": scores["precision"]})
            print(f"{folds.language} {name}={value}: ERR {scores['err']}, damage {scores['damage']}", file=sys.stderr)
        for row in rows:
            row["gain_confidence"] = gain_confidence(parts[row["value"]], parts[shipped])
        out[name] = {"shipped": shipped, "values": rows, "chosen": choose(rows, shipped)}
    return out


def choose(rows: list[dict[str, Any]], shipped: float, noise: float = NOISE, confidence: float = CONFIDENCE) -> float:
    """The value of highest ERR (which counts every wrong change against the right ones) when it beats
    the shipped one surely enough: in at least ``confidence`` of the paired bootstrap resamples
    (:func:`gain_confidence`), or, for rows measured without them, by more than ``noise`` ERR; else
    the shipped value."""
    best = max(rows, key=lambda r: r["err"])
    if best["value"] == shipped:
        return shipped
    if "gain_confidence" in best:
        return best["value"] if best["gain_confidence"] >= confidence else shipped
    mine = next((r for r in rows if r["value"] == shipped), None)
    return shipped if mine is not None and best["err"] - mine["err"] <= noise else best["value"]


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    languages = result["languages"]
    fig, axes = plt.subplots(len(languages), 1, figsize=(8, 3.2 * len(languages)), squeeze=False)
    for ax, (language, constants) in zip(axes[:, 0], languages.items()):
        for name, found in constants.items():
            shipped = next(r["err"] for r in found["values"] if r["value"] == found["shipped"])
            ax.plot(range(len(found["values"])), [r["err"] - shipped for r in found["values"]], "o-", label=name)
        ax.axhline(0.0, color="grey", lw=0.8)
        ax.set_xlabel("value swept (index in the grid; the JSON names each)")
        ax.set_ylabel("ERR - ERR at the shipped value")
        ax.set_title(f"{language}: normaliser constants on development tweets, two folds")
        ax.legend(fontsize=7)
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SPELLING_DATA)
    parser.add_argument("--language", choices=("en", "es"), nargs="+", default=["en", "es"])
    parser.add_argument("--only", nargs="+", choices=sorted(SWEPT), help="sweep only these constants")
    parser.add_argument("--merge", action="store_true",
                        help="replace only the entries swept in --out, keeping the others")
    parser.add_argument("--max-damage", type=float, default=MAX_DAMAGE, help="the judge's damage budget")
    parser.add_argument("--out", type=Path, default=RESULTS / "normaliser_constants.json")
    args = parser.parse_args(argv)
    args.command = " ".join(["python -m benchmarks.correction.normaliser_constants",
                             *(argv if argv is not None else sys.argv[1:])])
    return write_result(args.out, run(args), plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Each language's sweep; with ``args.merge``, merged into the result already in ``args.out``."""
    languages = {}
    for language in args.language:
        names = [n for n in READ_BY[language] if not args.only or n in args.only]
        languages[language] = sweep(Folds(language, args.data), names, args.max_damage)
    command = getattr(args, "command", "python -m benchmarks.correction.normaliser_constants")
    runs = [{"command": command, "swept": {language: sorted(found) for language, found in languages.items()}}]
    result: dict[str, Any] = {"command": command, "max_damage": args.max_damage, "confidence": CONFIDENCE,
                              "resamples": RESAMPLES, "noise": NOISE,
                              "data": "development tweets only (LexNorm 2015 training, Tweet-Norm dev)",
                              "languages": languages, "runs": runs}
    if args.merge and args.out.is_file():
        before = json.loads(args.out.read_text(encoding="utf-8"))
        first = [{"command": before["command"], "swept": {
            language: sorted(found) for language, found in before["languages"].items()}}]
        for language, found in languages.items():
            before["languages"].setdefault(language, {}).update(found)
        result = {**before, "confidence": CONFIDENCE, "resamples": RESAMPLES, "noise": NOISE,
                  "runs": [*before.get("runs", first), *runs]}
    return result


if __name__ == "__main__":
    raise SystemExit(main())
