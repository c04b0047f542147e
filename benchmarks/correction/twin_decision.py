"""Spanish accent twins of valid words (``dias`` -> ``días``, ``medico`` -> ``médico``): the fitted decision.

    OMP_NUM_THREADS=2 python -m benchmarks.correction.twin_decision [--ship]
        # -> results/twin_decision.json/.png; --ship writes charwise/data/normalisation-es/twins.json

Every known word whose twin with accents or a tilde is a known word too (``charwise.speller.twin_decision``;
the confusion sets' members, ``el``/``él``, ``esta``/``está``, are the accent model's) is a
candidate, in four texts:

* **fitting**: the Bible's development verses (1,000; never in the bigram counts, which are the
  training verses') and the lines of ``fortunes-es`` (``charwise/data/edited_es``) that write
  accents, every word written as meant, each candidate written without its accents and labelled by
  the text. A fortune line whose other words drop an accent (a word no dictionary has without it, or
  one whose twin is ten times as frequent) is left out; some writers still drop one here and there,
  so a change counted wrong there may be right. A future subjunctive the text writes (``si alguno
  hablare``: the verses of 1909 use it, today's Spanish does not) is left out too: written today,
  ``hablare`` is ``hablaré`` without its accent;
* **development tweets**: the Tweet-Norm 2013 development tweets as written: every change of at
  least 0.5 read by hand (``twin_labels.tsv``);
* **report**: the Bible's test verses, never used to choose anything.

In the fortunes, every change of at least 0.5 to a word the text writes plain was read by hand too
(``twin_labels.tsv``, ``fortunes: ...``): where its writer dropped that one accent, the reading
counts, not the text.

The decision (a logistic model over the evidence of ``twin_evidence``) is fitted on the fitting
texts; its probabilities there are out of fold (five folds by written word, so a word's own verses
never fit it). Each kind of twin gets a threshold of its own (``choose_kind``): among those at which
it is right at least nine times in ten in every development text (both fitting texts and the
tweets), the one where right - 9 x wrong is highest; a kind no threshold passes is not decided. The
rule it replaces, measured on the same candidates: a twin ten times as frequent (Zipf gap 1.0, set by
hand) whose frequencies and bigram fit give it at least the judge's threshold (the tweets' lower one
in the tweets).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path
from typing import Any, Sequence

from benchmarks.common.labels import in_context, read_labels, tally
from benchmarks.common.paths import RESULTS, SPELLING_DATA
from benchmarks.common.report import pyplot, save_figure, write_result
from benchmarks.correction.confusion_choice import THRESHOLDS, right_nine_in_ten
from benchmarks.correction.edited_text import lines
from benchmarks.correction.render import render_twin_decision as render  # noqa: F401  (make_results reads it)
from benchmarks.correction.tweetnorm import read_development
from charwise.speller.lexicon import strip_accents
from charwise.speller.twin_decision import plain_spelling

WRITES = ("twin_decision",)
PAGE = "correction-experiments.md"
LABELS = Path(__file__).resolve().parent / "twin_labels.tsv"
STRENGTH = 1.0  # scikit-learn's C (inverse L2 strength): its default, as the other fitted decisions'
FOLDS = 5
LABEL = {True: "right", False: "wrong", None: "not labelled"}  # a label read, as benchmarks.common.labels counts it
FITTING, TWEETS, REPORT = ("verses (dev)", "fortunes"), "tweets (dev)", "verses (test)"
EARLIER_GAP = 1.0  # the rule replaced: a twin ten times as frequent (TWIN_ZIPF_GAP, set by hand)


def candidates(speller: Any, texts: dict[str, list[list[str]]]) -> list[dict[str, Any]]:
    """Every candidate of ``texts`` with its evidence: edited text with every accent taken out (the
    word's tilde too), labelled by the text; the tweets as written, unlabelled."""
    from charwise.speller.confusions import MEMBERS
    from charwise.speller.real_words import adjacent_words
    from charwise.speller.twin_decision import accent_twins, accented_words, twin_evidence

    norm, lexicon = speller.normaliser, speller.lexicon
    # every twin, however rare: those under MIN_GAP are counted, never fitted on
    twins = accent_twins(lexicon, accented_words(lexicon), -math.inf, MEMBERS["es"])

    def writes_without_accent(word: str) -> bool:
        """A word no dictionary has as written whose accented form it has, or a word whose twin is ten
        times as frequent (the rule the decision replaced): its writer dropped an accent."""
        twin = twins.get(word)
        if twin is not None:
            return lexicon.zipf(twin) >= lexicon.zipf(word) + EARLIER_GAP
        return not lexicon.accepts(word) and norm.accented_form(word) not in (None, word)

    rows = []
    for name, texts_ in texts.items():
        as_written = name == TWEETS
        for words in texts_:
            lower = [w.lower() for w in words]
            shown = lower if as_written else [strip_accents(w) for w in lower]
            dropped = {j for j, w in enumerate(lower) if w.isalpha() and writes_without_accent(w)}
            for i, word in enumerate(lower):
                p = word if as_written else plain_spelling(word)
                twin = twins.get(p)
                if twin is None or word not in (p, twin) or not (words[i].islower() or words[i].istitle()):
                    continue
                if name == FITTING[1] and dropped - {i}:
                    continue  # its writer dropped accents elsewhere: the line's labels are not to be trusted
                if not as_written and word == p and future_subjunctive(lexicon, p, twin):
                    continue  # meant in 1909 (si alguno hablare), not today: today's hablare is hablaré
                left, right = adjacent_words(shown, i)
                evidence = twin_evidence(lexicon, norm.context, p, twin, left, right)
                rows.append({"text": name, "word": p, "twin": twin, "evidence": evidence,
                             "meant": None if as_written else word == twin,
                             "change": in_context([*shown[:i], f"{p} -> {twin}", *shown[i + 1:]], i, i + 1, 4),
                             "earlier": earlier_rule(norm, lexicon, p, twin, left, right, as_written)})
    return rows


def future_subjunctive(lexicon: Any, word: str, twin: str) -> bool:
    """Whether ``word`` is the future subjunctive of a verb in ``-ar`` (``hablare``: the infinitive and
    an ``e``) and ``twin`` its future (``hablaré``). The verses of 1909 use it (``si alguno hablare``);
    today's Spanish has dropped it, so a ``hablare`` written today is ``hablaré`` without its accent."""
    return word.endswith("are") and twin == word[:-1] + "é" and lexicon.knows(word[:-1])


def earlier_rule(norm: Any, lexicon: Any, word: str, twin: str, left: str | None, right: str | None,
                 social: bool) -> bool:
    """The rule the decision replaced: ten times as frequent, and frequencies and bigram fit give the
    twin at least the judge's threshold (in ``social`` text, the tweets' lower one), its probability
    each spelling's Zipf plus its fit between the neighbours, pointwise beside a left neighbour."""
    if lexicon.zipf(twin) < lexicon.zipf(word) + EARLIER_GAP:
        return False
    context = norm.context

    def association(text: str) -> float:
        fit = context.log_score(text, left)[0] - context.log_unigram(text) if left is not None else 0.0
        return fit + (context.log_score(right, text)[0] - context.log_unigram(right) if right is not None else 0.0)

    odds = lexicon.zipf(twin) - lexicon.zipf(word) + association(twin) - association(word)
    return 1.0 / (1.0 + 10.0 ** -odds) >= norm.judge.threshold_for(social)


def fitted(rows: list[dict[str, Any]]) -> tuple[Any, dict[int, float]]:
    """The decision fitted on every fitting row, and each fitting row's out-of-fold probability."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    fitting = [k for k, r in enumerate(rows) if r["text"] in FITTING]
    words = sorted({rows[k]["word"] for k in fitting})
    random.Random(0).shuffle(words)
    fold = {w: j % FOLDS for j, w in enumerate(words)}

    def model(keys: Sequence[int]) -> Any:
        x = np.array([rows[k]["evidence"] for k in keys])
        return LogisticRegression(C=STRENGTH, max_iter=2000).fit(x, np.array([rows[k]["meant"] for k in keys]))

    out_of_fold: dict[int, float] = {}
    for f in range(FOLDS):
        held = [k for k in fitting if fold[rows[k]["word"]] == f]
        probs = model([k for k in fitting if fold[rows[k]["word"]] != f]).predict_proba(
            np.array([rows[k]["evidence"] for k in held]))[:, 1]
        out_of_fold.update(zip(held, probs.tolist()))
    return model(fitting), out_of_fold


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SPELLING_DATA / "tweetnorm_es")
    parser.add_argument("--ship", action="store_true", help="write charwise/data/normalisation-es/twins.json")
    parser.add_argument("--out", type=Path, default=RESULTS / "twin_decision.json")
    args = parser.parse_args(argv)
    command = " ".join(["python -m benchmarks.correction.twin_decision", *(argv if argv is not None else sys.argv[1:])])
    return write_result(args.out, {"command": command, **run(args)}, plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from charwise.speller import Speller
    from charwise.speller.twin_decision import FEATURES, KINDS, MIN_GAP, TwinDecision
    from charwise.translation.data import read_pairs, source_words, split_pairs

    parts = split_pairs(read_pairs())
    tweets, _, _ = read_development(args.data)
    texts = {FITTING[0]: [source_words(p.source) for p in parts["dev"]],
             FITTING[1]: [words for words in (source_words(line) for line in lines("es"))
                          if any(plain_spelling(w) != w for w in words)],
             TWEETS: [[raw for raw, _ in t] for t in tweets],
             REPORT: [source_words(p.source) for p in parts["test"]]}
    everything = candidates(Speller.load("es"), texts)
    rows = [r for r in everything if r["evidence"][0] >= MIN_GAP]
    rare = [r for r in everything if r["evidence"][0] < MIN_GAP and r["meant"] is not None]
    model = scored(rows)
    labels, fortunes_unread = labelled(rows)
    chosen = [{"probability": r["probability"], "change": r["key"], "text": r["text"], "kind": r["kind"]}
              for r in rows if r["text"] != REPORT]
    choice = {kind: choose_kind([c for c in chosen if c["kind"] == kind], labels) for kind in KINDS}
    kinds = {kind: c["chosen"] for kind, c in choice.items() if c["chosen"] is not None}
    decision = TwinDecision(tuple(float(w) for w in model.coef_[0]), float(model.intercept_[0]),
                            min(kinds.values(), default=1.0),
                            "python -m benchmarks.correction.twin_decision --ship: fitted on the Bible's development "
                            "verses and the fortunes-es lines that write accents; each kind's threshold chosen where "
                            "right - 9 x wrong is highest among those right at least nine times in ten in both and in "
                            "the Tweet-Norm development tweets read by hand (benchmarks/correction/twin_labels.tsv)",
                            kinds)
    if args.ship:
        from charwise.io import write_json

        write_json(TwinDecision.path("es"), decision.to_dict())

    def shown(r: dict[str, Any]) -> dict[str, Any]:
        return {"probability": round(r["probability"], 3), "change": r["change"], "label": labels.get(r["key"])}

    by_probability = sorted(rows, key=lambda r: -r["probability"])
    return {"decision": decision.to_dict(), "features": list(FEATURES), "choice": choice,
            "texts": {name: text_tally(rows, name, labels, decision) for name in texts},
            "below_min_gap": {"candidates": len(rare), "meant": sum(1 for r in rare if r["meant"])},
            "wrong": {name: [shown(r) for r in by_probability if r["text"] == name
                             and labels.get(r["key"]) is False and makes(decision, r)] for name in texts},
            "tweets_unread": [shown(r) for r in by_probability if r["text"] == TWEETS
                              and r["probability"] >= THRESHOLDS[0] and r["key"] not in labels],
            "fortunes_unread": fortunes_unread,
            "tweet_changes": [shown(r) for r in by_probability
                              if r["text"] == TWEETS and (makes(decision, r) or r["earlier"])]}


def scored(rows: list[dict[str, Any]]) -> Any:
    """The decision fitted on the fitting rows; each row's ``probability`` (out of fold in the fitting
    texts) and ``kind`` set."""
    import numpy as np

    from charwise.speller.twin_decision import twin_kind

    model, out_of_fold = fitted(rows)
    others = [k for k in range(len(rows)) if k not in out_of_fold]
    probs = dict(out_of_fold)
    probs.update(zip(others, model.predict_proba(np.array([rows[k]["evidence"] for k in others]))[:, 1].tolist()))
    for k, row in enumerate(rows):
        row["probability"], row["kind"] = probs[k], twin_kind(row["word"], row["twin"])
    return model


def labelled(rows: list[dict[str, Any]]) -> tuple[dict[str, bool], list[dict[str, Any]]]:
    """Each row's ``key`` and every key's label (the tweets' and the fortunes' read by hand, the rest the
    text's), and the fortunes' changes of at least 0.5 to a plain word not read yet."""
    read = {key[0]: label == "right" for key, (label, _) in read_labels(LABELS, keys=1).items()} \
        if LABELS.is_file() else {}
    labels, unread = dict(read), []
    for k, row in enumerate(rows):
        if row["meant"] is None:
            row["key"] = row["change"]
            continue
        row["key"] = f"{row['text']} {k}: {row['change']}"
        labels[row["key"]] = row["meant"]
        if row["text"] == FITTING[1] and not row["meant"] and row["probability"] >= THRESHOLDS[0]:
            # its writer may have dropped this one accent: read by hand, the reading counts
            reading = read.get(f"{FITTING[1]}: {row['change']}")
            if reading is None:
                unread.append({"probability": round(row["probability"], 3), "change": row["change"]})
            else:
                labels[row["key"]] = reading
    return labels, unread


def choose_kind(changes: list[dict[str, Any]], labels: dict[str, bool]) -> dict[str, Any]:
    """One kind's threshold: at each of :data:`THRESHOLDS`, its ``changes`` (probability, change, text)
    right and wrong in each text; among the thresholds right at least nine times in ten in every text
    with none unread, the one where right - 9 x wrong is highest (a wrong edit costs nine right ones;
    the higher of a tie); None where no threshold passes or none gains."""
    sweep, best = [], None
    for threshold in THRESHOLDS:
        per_text: dict[str, dict[str, int]] = {}
        for c in changes:
            if c["probability"] >= threshold:
                label = labels.get(c["change"])
                row = per_text.setdefault(c["text"], {"right": 0, "wrong": 0, "unlabelled": 0})
                row["unlabelled" if label is None else "right" if label else "wrong"] += 1
        gain = sum(r["right"] - 9 * r["wrong"] for r in per_text.values())
        passes = all(right_nine_in_ten(r) for r in per_text.values())
        sweep.append({"threshold": threshold, "texts": per_text, "passes": passes, "gain": gain})
        if passes and gain > 0 and (best is None or gain >= best["gain"]):
            best = sweep[-1]
    return {"sweep": sweep, "chosen": None if best is None else best["threshold"]}


def makes(decision: Any, row: dict[str, Any]) -> bool:
    """Whether ``decision`` puts the row's twin in (its kind decided, its probability enough)."""
    needed = decision.threshold_of(row["word"], row["twin"])
    return needed is not None and row["probability"] >= needed


def text_tally(rows: list[dict[str, Any]], text: str, labels: dict[str, bool], decision: Any) -> dict[str, Any]:
    """In ``text``: the candidates, those meant (edited text), and the right / wrong / unread changes
    of the decision and of the earlier rule."""
    mine = [r for r in rows if r["text"] == text]

    def count(makes: Any) -> dict[str, int]:
        return tally({"label": LABEL[labels.get(r["key"])]} for r in mine if makes(r))

    return {"candidates": len(mine), "meant": sum(1 for r in mine if r["meant"]),
            "decision": count(lambda r: makes(decision, r)),
            "earlier rule": count(lambda r: r["earlier"])}


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    names = list(result["texts"])
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for j, (rule, colour) in enumerate((("earlier rule", "#999999"), ("decision", "#1f77b4"))):
        right = [result["texts"][n][rule]["right"] for n in names]
        wrong = [result["texts"][n][rule]["wrong"] for n in names]
        xs = [i + 0.4 * j for i in range(len(names))]
        ax.bar(xs, right, 0.38, color=colour, label=f"{rule}: right")
        ax.bar(xs, wrong, 0.38, bottom=right, color="#d62728", alpha=0.6 if j else 0.3,
               label=f"{rule}: wrong" if j == 0 else "decision: wrong")
    ax.set_xticks([i + 0.2 for i in range(len(names))], names)
    ax.set_ylabel("accents put back")
    ax.legend(fontsize=7)
    ax.set_title("Spanish accent twins of valid words: fitted decision against the rule")
    save_figure(fig, path)


if __name__ == "__main__":
    raise SystemExit(main())
