"""Spanish accent twins (el/él, mas/más, esta/está): accents taken out of correct text, put back from the sentence.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.accent_twins --chat-clauses --modern-priors wordfreq
        # -> results/accent_twins.json/.png; with --ship, the shipped model: charwise/data/confusions-es

The Spanish confusion sets (``charwise.speller.real_words.CONFUSION_SETS["es"]``: a word and its
accented twin, both valid). Here each member of a set is written without its accent in correct text
and two deciders put accents back from the neighbours; as in the speller, only an accent left out is
put back:

* **the fitted model** (``charwise.speller.confusions``, what the speller uses): per set a
  multinomial logistic model over the neighbours (read without their accents) and the bigram fit,
  learned from the Bible's training verses, where every member is used as meant. The threshold and
  the sets it decides are chosen on two development texts, as the English model's are on labelled
  tweets: at each threshold of the sweep a set is decided when its changes are right at least 90 %
  of the time in each text, and the threshold whose sets make the most right changes is kept; then
  each accent of a set left undecided is chosen on its own by the same sweep, at a threshold of its
  own (``choose_own``: ``que->qué`` 0.99). The texts: the Bible's dev verses with every member
  written without its accents (labelled by the accent the verse wrote), their questions and
  exclamations as chat writes them (each ``¿ ... ?`` and ``¡ ... !`` clause alone, without its
  marks: :func:`chat_clauses`), and the Tweet-Norm development tweets as written (every change of
  at least 0.5 read by hand: ``accent_labels.tsv``);
  ``--chat-clauses`` also learns from the training verses' clauses so written, and
  ``--modern-priors wordfreq`` moves each set's priors from the verses' frequencies to today's
  (the verses of 1909 write ``mas``, "but", 2.5 times as often as ``más``): both shipped;
* **the bigram rule** it replaced (``RealWordChecker.load("es")``: the other member must fit the
  bigram counts of the Bible's training verses ``margin`` log10 better), at the margin the speller
  used and others.

Measured on: the Bible's **dev** verses (1,000; the split of ``charwise.translation.data.split_pairs``,
never learned from), its **test** verses, and **tweets that write accents** (the Tweet-Norm 2013
development tweets, ``--data``, with at least one accented letter, whose writers are taken to mean
the accents they wrote: a change there counted wrong may be an accent the writer left out).

**Fixed**: accents put back where the text had them, over the members that had one; **wrong**: a
member changed that the text had written without an accent, over those members.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from benchmarks.common.paths import RESULTS, SPELLING_DATA
from benchmarks.common.report import pyplot, save_figure, write_result
from benchmarks.correction.edited_text import lines
from benchmarks.correction.render import render_accent_twins as render  # noqa: F401  (make_results reads it)
from benchmarks.correction.tweetnorm import read_development
from charwise.speller.corrections import restores_accents
from charwise.speller.lexicon import strip_accents
from charwise.speller.real_words import CONFUSION_SETS

WRITES = ("accent_twins", "accent_twins_edited")
PAGE = "correction-experiments.md"
MARGINS = (0.5, 1.0, 2.0, 3.0)
STRENGTH = 1.0  # scikit-learn's C (inverse L2 strength): its default, not tuned, as the English model's
SHOWN = 20  # wrong changes listed per text
CLASS_WORDS = 30_000  # with --classes: today's most frequent words (wordfreq) given a class, beside the verses'
LABELS = Path(__file__).resolve().parent / "accent_labels.tsv"  # the development tweets' changes, read by hand

#: sets whose members the normaliser would read from the sentence (``normaliser_sets``) that it does not:
#: on the Tweet-Norm development tweets (every line through the speller with and without, read) reading
#: ``si``/``sí`` made two changes worse, ``siii -> si`` where the annotators wrote ``sí`` (the table's
#: 3 to 1 for ``sí`` overruled by a sentence model learned from verses, where ``si`` is "if")
NORMALISER_LEFT_OUT = {"si/sí": "Tweet-Norm development tweets: 2 worse (siii -> si), 0 better"}
Decide = Callable[[list[str], int], "str | None"]  # the sentence as corrected so far, a position -> a member
#: members whose accent falls on their first letter (él): the Bible of 1909 writes no accent on a capital,
#: so its sentence-initial ``El`` is the article or the pronoun (``El entonces``: él): never scored (nor learned
#: from, with ``--untold-capitals``)
FIRST_LETTER_ACCENTED = frozenset(strip_accents(m) for found in CONFUSION_SETS["es"] for m in found
                                  if m[:1] in "áéíóú")


def untold(word: str) -> bool:
    """Whether ``word`` as the verses write it cannot say which member it is (``El``, ``EL``)."""
    return word[:1] in "AEIOU" and word.lower() in FIRST_LETTER_ACCENTED


def restore(decide: Decide, members: frozenset[str], texts: Sequence[Sequence[str]]) -> dict[str, Any]:
    """Accents of the sets' ``members`` taken out of ``texts`` and put back by ``decide``."""
    fixed = needing = wrong = plain = 0
    wrong_shown: list[str] = []
    for gold in texts:
        written = [strip_accents(w) if w.lower() in members else w for w in gold]
        out = list(written)
        for i, word in enumerate(written):
            if word.lower() in members:
                found = decide(out, i)
                if found is not None and restores_accents(word.lower(), found):
                    out[i] = found
        for i, (g, w, o) in enumerate(zip(gold, written, out)):
            if w.lower() not in members or untold(g):
                continue
            if g.lower() != w.lower():
                needing += 1
                fixed += o.lower() == g.lower()
            else:
                plain += 1
                if o.lower() != w.lower():
                    wrong += 1
                    wrong_shown.append(" ".join(out[max(0, i - 3) : i + 4]) + f"  [written: {g}]")
    return {"members_with_accent": needing, "fixed": round(100 * fixed / max(needing, 1), 2),
            "members_without": plain, "wrong": round(100 * wrong / max(plain, 1), 3), "wrong_count": wrong,
            "wrong_shown": wrong_shown[:SHOWN]}


def model_decides(model: Any) -> Decide:
    """The model's member for a word, when it decides the word's set at its threshold."""
    from charwise.speller.confusions import normal

    def decide(words: list[str], i: int) -> str | None:
        found = model.change([normal(w) for w in words], i)
        return None if found is None else found[0]
    return decide


def accent_changes(model: Any, texts: Sequence[Sequence[str]], text: str = "verses"
                   ) -> tuple[list[dict[str, Any]], dict[str, bool]]:
    """Every change of at least 0.5 the model makes when each member of ``texts`` is written without
    its accents (any set, decided or not), and whether the text wrote that member: an input of
    :func:`benchmarks.correction.confusion_choice.sweep_choice`, the changes marked as made in ``text``."""
    from charwise.speller.confusion_fitting import examples
    from charwise.speller.confusions import direction

    changes, labels = [], {}
    for n, (words, i, k) in enumerate(examples(texts, model.sets, untold)):
        plain = list(words)
        plain[i] = strip_accents(words[i])
        if plain[i] not in model.sets[k]:
            continue
        found = model.best(plain, i)
        if found is not None and found[1] >= 0.5 and restores_accents(plain[i], found[0]):
            before, after = " ".join(plain[max(0, i - 3):i]), " ".join(plain[i + 1:i + 4])
            key = f"{text} {n}: {before} [{plain[i]} -> {found[0]}] {after}"
            changes.append({"probability": found[1], "set": "/".join(model.sets[k]), "change": key, "text": text,
                            "direction": direction(plain[i], found[0])})
            labels[key] = found[0] == words[i]
    return changes, labels


def written_changes(model: Any, texts: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
    """Every change of at least 0.5 the model makes in ``texts`` as written (any set), that puts back
    an accent in a word in lower case or capitalised, as the speller reads them; keyed as labelled
    by hand in ``accent_labels.tsv``."""
    from benchmarks.correction.confusions import sentence_changes
    from charwise.speller.confusions import normal

    def admits(word: str, member: str) -> bool:
        return restores_accents(normal(word), member) and (word.islower() or word.istitle())

    return [dict(change, text="tweets") for change in sentence_changes(model, texts, 0.5, admits)]


#: the opening and closing marks of a Spanish question and exclamation
CLAUSE_MARKS = {"\u00bf": "?", "\u00a1": "!"}


def chat_clauses(words: Sequence[str]) -> list[list[str]]:
    """The questions and exclamations of a sentence as chat writes them: each ``¿ ... ?`` or
    ``¡ ... !`` clause on its own, without the marks, first word in lower case (``¿ Dónde estás
    tú ?`` -> ``dónde estás tú``). Written so, ``dónde`` starts the text: a model that learned from
    the verses alone has seen it only after ``¿`` (``como te llamas`` gave ``cómo`` 0.17, ``¿ como
    te llamas`` 0.95)."""
    out = []
    for i, word in enumerate(words):
        close, rest = CLAUSE_MARKS.get(word), list(words[i + 1:])
        if close is None or close not in rest:
            continue
        clause = rest[:rest.index(close)]
        if len(clause) >= 2 and not any(w in CLAUSE_MARKS for w in clause) and not untold(clause[0]):
            out.append([clause[0].lower(), *clause[1:]])
    return out


def modern_priors(source: str, edited: Sequence[Sequence[str]]) -> dict[str, float]:
    """Each member's frequency (log10) in today's Spanish: wordfreq's Zipf (``source`` "wordfreq":
    subtitles, the web, tweets; its unaccented forms also count the accents tweets leave out), or
    its count in ``edited``, the lines of fortunes-es ("fortunes": accents as meant; a member they
    never hold counts half an occurrence)."""
    import math
    from collections import Counter

    from charwise.speller.confusions import SETS
    from charwise.speller.frequencies import zipf_frequency

    members = [m for found in SETS["es"] for m in found]
    if source == "wordfreq":
        return {m: zipf_frequency(m, "es") for m in members}
    counts = Counter(w.lower() for words in edited for w in words)
    return {m: math.log10(counts[m] + 0.5) for m in members}


def fit_model(texts: dict[str, list[list[str]]], modern: str = "", classes: bool = False,
              untold_capitals: bool = False) -> tuple[Any, dict[str, Any]]:
    """The Spanish model learned from the Bible's training verses, its threshold and sets chosen on
    the development verses and tweets; ``modern``: its priors moved to today's frequencies
    (:func:`modern_priors`); ``classes``: it reads its neighbours' word classes too
    (``benchmarks.correction.spanish_classes``: of the training words and today's most frequent);
    ``untold_capitals``: learn nothing from the verses' capital ``El`` (:func:`untold`; tried, not shipped)."""
    from benchmarks.correction.confusion_choice import choose, choose_own
    from benchmarks.correction.confusions import read_labels
    from charwise.speller.confusion_fitting import fit
    from charwise.speller.confusions import direction
    from charwise.speller.context import NgramContext

    priors = modern_priors(modern, texts.get("edited", [])) if modern else None
    word_classes = None
    if classes:
        from wordfreq import top_n_list

        from benchmarks.correction.spanish_classes import spanish_classes

        vocabulary = {strip_accents(w.lower()) for words in texts["train"] for w in words}
        word_classes = spanish_classes(vocabulary | {strip_accents(w) for w in top_n_list("es", CLASS_WORDS)})
    model = fit("es", texts["train"], word_classes, NgramContext.load("es"), STRENGTH, priors=priors,
                untold=untold if untold_capitals else None)
    changes, labels = accent_changes(model, texts["dev"])
    # the dev verses' questions and exclamations as chat writes them, without their marks: the text the
    # speller reads (tweets, chat) far more often than verses of 1909
    clauses, clause_labels = accent_changes(model, [c for words in texts["dev"] for c in chat_clauses(words)],
                                            "clauses")
    changes, labels = changes + clauses, {**labels, **clause_labels}
    written = written_changes(model, texts["all tweets"])
    labels.update(read_labels(LABELS))
    choice = choose(model, changes + written, labels)
    chosen = choice["chosen"]
    # the sets left undecided, each accent put back chosen on its own at a threshold of its own
    undecided = [direction(a, b) for members, d in zip(model.sets, model.decides) if not d
                 for a in members for b in members if a != b]
    own = choose_own(model, changes + written, labels, undecided)
    model.threshold_source = (
        "benchmarks/correction/accent_twins.py: chosen with the sets decided on two development texts not learned "
        "from, the Bible's dev verses (each member written without its accents, labelled by the text; and their "
        "questions and exclamations without the marks, as chat writes them) and the "
        "Tweet-Norm development tweets as written (every change read by hand, accent_labels.tsv): the threshold whose "
        "sets, each right at least 90 % of the time in each text, make the most right changes "
        f"({chosen['right']} right, {chosen['wrong']} wrong)"
        + ("; the accents of the other sets each chosen on its own by the same rule, at a threshold of its own: "
           + ", ".join(f"{c} {t}" for c, t in sorted(model.own_thresholds.items())) if model.own_thresholds else "")
        + (f"; the priors moved from the verses' frequencies to today's ({modern}: modern_priors)" if modern else ""))
    print(f"es: threshold {model.threshold}, {len(chosen['decided'])} of {len(model.sets)} sets decided", flush=True)
    unlabelled = [c["change"] for c in written if c["change"] not in labels]
    # the changes the chosen model makes in the development tweets as written, read by hand
    made = [labels.get(c["change"]) for c in written if c["probability"] >= model.threshold_of(c["direction"])
            and (c["set"] in chosen["decided"] or c["direction"] in model.own_thresholds)]
    return model, {"threshold": model.threshold, "decided": chosen["decided"], "own_thresholds": own,
                   "right": chosen["right"], "wrong": chosen["wrong"], "unlabelled_tweet_changes": unlabelled,
                   "tweets_as_written": {"right": made.count(True), "wrong": made.count(False)},
                   "sweep": [{k: row[k] for k in ("threshold", "decided", "right", "wrong")}
                             for row in choice["sweep"]]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SPELLING_DATA / "tweetnorm_es")
    parser.add_argument("--ship", action="store_true", help="write the model to charwise/data/confusions-es")
    parser.add_argument("--out", type=Path, default=RESULTS / "accent_twins.json")
    parser.add_argument("--edited-text", action="store_true",
                        help="learn from the lines of fortunes-es too (charwise/data/edited_es)")
    parser.add_argument("--chat-clauses", action="store_true",
                        help="learn from the verses' questions and exclamations without their marks too")
    parser.add_argument("--modern-priors", choices=("wordfreq", "fortunes"), default="",
                        help="move each set's priors from the verses' frequencies to today's")
    parser.add_argument("--classes", action="store_true", help="read the neighbours' word classes too")
    parser.add_argument("--untold-capitals", action="store_true",
                        help="learn nothing from the verses' capital El, article or pronoun (tried, not shipped)")
    args = parser.parse_args(argv)
    given = argv if argv is not None else sys.argv[1:]
    command = " ".join(["python -m benchmarks.correction.accent_twins", *given])
    return write_result(args.out, {"command": command, **run(args)}, plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The model fitted and chosen, then every text's accents put back by it and by the bigram rule
    at each margin (the command line is ``main``'s to record)."""
    from charwise.speller.confusions import DATA
    from charwise.speller.real_words import RealWordChecker
    from charwise.speller.settings import SpellerSettings
    from charwise.translation.data import read_pairs, source_words, split_pairs

    checker = RealWordChecker.load("es")
    members = frozenset(checker.alternatives)
    parts = split_pairs(read_pairs())
    texts = {split: [source_words(p.source) for p in parts[split]] for split in ("train", "dev", "test")}
    if getattr(args, "edited_text", False):  # modern Spanish beside the verses of 1909 (tried, not shipped)
        texts["train"] += [source_words(line) for line in lines("es")]
    if getattr(args, "chat_clauses", False):  # the verses' questions as chat writes them, beside the verses
        texts["train"] += [c for words in texts["train"] for c in chat_clauses(words)]
    tweets, _, _ = read_development(args.data)
    texts["all tweets"] = [[raw for raw, _ in t] for t in tweets]
    texts["tweets"] = [t for t in texts["all tweets"] if any(strip_accents(w) != w for w in t)]
    if getattr(args, "modern_priors", "") == "fortunes":  # the sayings' counts as the priors
        texts["edited"] = [source_words(line) for line in lines("es")]
    model, choice = fit_model(texts, getattr(args, "modern_priors", ""), getattr(args, "classes", False),
                              getattr(args, "untold_capitals", False))
    if args.ship:
        from benchmarks.correction.confusions import shipped_normaliser_sets

        # q -> que or qué, as the sentence says: the normaliser reads the members' probabilities
        model.normaliser_reads = shipped_normaliser_sets(model.sets, "es") - set(NORMALISER_LEFT_OUT)
        flags = " ".join(f for f, on in (("--edited-text", args.edited_text), ("--chat-clauses", args.chat_clauses),
                                         (f"--modern-priors {args.modern_priors}", args.modern_priors),
                                         ("--classes", args.classes),
                                         ("--untold-capitals", args.untold_capitals)) if on)
        model.save(DATA / "confusions-es", f"Rebuilt by: python -m benchmarks.correction.accent_twins {flags} --ship "
                   "(trained on the Spanish side of the Bible's training verses"
                   + (" and the lines of fortunes-es that hold a member: charwise/data/edited_es" if args.edited_text
                      else "")
                   + (", and their questions and exclamations without the marks" if args.chat_clauses else "")
                   + (f"; each set's priors moved to today's frequencies ({args.modern_priors})" if args.modern_priors
                      else "") + ")")
    default = SpellerSettings().real_word_margin
    measured = ("dev", "test", "tweets")
    return {
        "sets": len(model.sets), "default_margin": default, "texts": {k: len(texts[k]) for k in measured},
        "model": {"choice": choice, **{name: restore(model_decides(model), members, texts[name]) for name in measured}},
        "by_margin": {name: {str(m): restore(lambda w, i, m=m: checker.check(w, i, m), members, texts[name])
                             for m in sorted({*MARGINS, default})} for name in measured}}


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for (name, rows), colour in zip(result["by_margin"].items(), ("tab:blue", "tab:orange", "tab:green")):
        ax.plot([r["wrong"] for r in rows.values()], [r["fixed"] for r in rows.values()], "o-", color=colour,
                label=f"{name}: bigram rule, margin swept")
        model = result["model"][name]
        ax.plot([model["wrong"]], [model["fixed"]], "*", color=colour, markersize=14, label=f"{name}: fitted model")
    ax.set_xlabel("members without an accent given one (%)")
    ax.set_ylabel("accents put back (%)")
    ax.set_title("Spanish accent twins")
    ax.legend(fontsize=7)
    save_figure(fig, path)


if __name__ == "__main__":
    raise SystemExit(main())
