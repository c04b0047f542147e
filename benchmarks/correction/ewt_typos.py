"""Real slips in web text: the typos UD English-EWT's annotators marked, put right or not by each corrector.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.ewt_typos     # -> benchmarks/results/ewt_typos.json + .png
    OMP_NUM_THREADS=2 python -m benchmarks.correction.ewt_typos --context smollm2   # and with SmolLM2 beside it

UD English-EWT (reviews, e-mails, blogs, newsgroups, answers) keeps its writers' slips and marks each
one (``Typo=Yes`` with its ``CorrectForm``): ``probablyl``, ``reciept``, ``Thrusday``, ``their`` for
``there``, ``it's`` for ``its``, ``dont``, ``ive``. Every sentence of a split that holds one is read
as written and as meant (:func:`benchmarks.common.retrieval.ewt_texts`, which also puts a marked
contraction's words back together: ``Whats`` -> ``What's``). The development split (``dev``) is
what the speller's thresholds and confusion models were chosen on; the test split (``test``) is
held out: reported, never tuned on, and its misses are not listed.

Each corrector reads every such sentence: charwise's default speller (``Speller.correct``, one call
per sentence, as a user would; with ``--context smollm2``, also with SmolLM2 reading the doubtful
words, ``charwise+smollm2``), and SymSpell and pyspellchecker (each word's letters looked up on
their own, its punctuation kept, in the spelling suite's settings: ``suite_systems.Baselines``).
Scored as the everyday lines are (``everyday.score_line``), without regard to case (the treebank
puts ``im`` right as ``i'm``; a speller's ``I'm`` is as right): the errors of a sentence are the
word edits that turn it into the sentence as meant; an error is **fixed** when the output makes
exactly that edit. Each error has a kind (:func:`kind`): a non-word (the written word is not in
charwise's lexicon), a real-word error, an apostrophe (only apostrophes differ: ``dont``, ``its`` for
``it's``), words run together or split, or agreement (the same lemma by simplemma, not a confusion
pair: ``are`` for ``is``, which no speller is meant to fix; counted apart and left out of the
headline).

Every other edit is one the treebank does not make. Its annotators did not mark every slip
(``im``, ``ive``, ``musems`` are left as written), so charwise's other edits were read by hand
(``ewt_typo_labels.tsv``): **right** (a slip the treebank left: ``im -> I'm``) or **wrong** (a word
that was right changed, or a slip made into the wrong word); one not read yet is reported as such.
The baselines' other edits are counted, not read.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable

from benchmarks.common.paths import RESULTS, ROOT
from benchmarks.common.report import pyplot, save_figure, write_result
from benchmarks.correction.render import render_ewt_typos as render  # noqa: F401  (make_results reads it)

WRITES = ("ewt_typos",)
PAGE = "spelling_benchmarks.md"
EWT = ROOT / "src" / "charwise" / "data" / "ud_en_ewt"
SPLITS = {"dev": "development", "test": "test"}
KINDS = ("non-word", "real word", "apostrophe", "split or join", "agreement")
HEADLINE = KINDS[:-1]  # what a speller is for: all but agreement
LABELS = Path(__file__).parent / "ewt_typo_labels.tsv"
WORD = re.compile(r"^(\W*)(.+?)(\W*)$")

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def typo_sentences(split: str) -> list[tuple[str, str]]:
    """(as written, as meant) for every sentence of the split that holds a marked typo."""
    from benchmarks.common.retrieval import ewt_texts

    path = EWT / f"en_ewt-ud-{split}.conllu"
    return [(w, m) for w, m in zip(ewt_texts(path), ewt_texts(path, corrected=True)) if w != m]


def kind(written: str, meant: str, knows: Callable[[str], bool], confusable: frozenset[str]) -> str:
    """Which of :data:`KINDS` the error ``written`` -> ``meant`` (words, punctuation included) is."""
    if len(written.split()) != len(meant.split()):
        return "split or join"
    w, m = (WORD.sub(r"\2", t) for t in (written, meant))
    if w.lower().replace("'", "").replace("\u2019", "") == m.lower().replace("'", "").replace("\u2019", ""):
        return "apostrophe"
    if not knows(w.lower()):
        return "non-word"
    import simplemma

    if not {w.lower(), m.lower()} <= confusable and simplemma.lemmatize(w.lower(), "en") == \
            simplemma.lemmatize(m.lower(), "en"):
        return "agreement"
    return "real word"


def baseline_sentence(text: str, correct: Callable[[str], str]) -> str:
    """``text`` with the letters of each whitespace token corrected by ``correct``, its punctuation kept."""
    out = []
    for token in text.split():
        lead, core, trail = WORD.match(token).groups()  # type: ignore[union-attr]  (.+? always matches)
        out.append(lead + correct(core) + trail if core.isalpha() else token)
    return " ".join(out)


def tally(lines: list[dict[str, Any]], kinds: dict[str, str],
          labels: dict[tuple[str, ...], tuple[str, str]] | None = None) -> dict[str, Any]:
    """Errors and fixes per kind, the headline (every kind but agreement) and the other edits (with
    ``labels``: how many were read right and wrong)."""
    by_kind = {k: {"errors": 0, "fixed": 0} for k in KINDS}
    for line in lines:
        for edit in line["fixed"] + line["missed"]:
            row = by_kind[kinds[edit]]
            row["errors"] += 1
            row["fixed"] += edit in line["fixed"]
    errors = sum(by_kind[k]["errors"] for k in HEADLINE)
    fixed = sum(by_kind[k]["fixed"] for k in HEADLINE)
    words = sum(len(line["written"].split()) for line in lines)
    other = sum(len(line["wrong"]) for line in lines)
    row: dict[str, Any] = {"errors": errors, "fixed": fixed,
                           "fixed_percent": round(100 * fixed / errors, 1) if errors else None,
                           "other_edits": other, "other_edits_per_1000_words": round(1000 * other / words, 2)}
    if labels is not None:
        read = [labels.get((edit, line["written"]), ("not read", ""))[0] for line in lines for edit in line["wrong"]]
        row["other_edits_read"] = {label: read.count(label) for label in ("right", "wrong", "not read")}
    row["by_kind"] = {k: {**r, "fixed_percent": round(100 * r["fixed"] / r["errors"], 1) if r["errors"] else None}
                      for k, r in by_kind.items()}
    return row


def run(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.common.labels import read_labels
    from benchmarks.correction.everyday import score_line, why_missed
    from benchmarks.correction.suite_systems import Baselines
    from charwise.speller import Speller
    from charwise.speller.confusions import MEMBERS

    spellers = {"charwise": Speller.load("en")}
    if args.context:
        spellers[f"charwise+{args.context}"] = Speller.load("en", context=args.context)
    speller, base = spellers["charwise"], Baselines("en")
    confusable = MEMBERS["en"]
    labels = read_labels(LABELS, 2)
    result: dict[str, Any] = {"command": " ".join(["python -m benchmarks.correction.ewt_typos",
                                                   *getattr(args, "argv", [])]), "splits": {}}
    for split in args.splits:
        pairs = typo_sentences(split)
        found = {name: list(s.correct_lines([w for w, _ in pairs])) for name, s in spellers.items()}
        results = found["charwise"]
        outputs = {**{name: [r.corrected for r in rs] for name, rs in found.items()},
                   "SymSpell": [baseline_sentence(w, base.symspell_token) for w, _ in pairs],
                   "pyspellchecker": [baseline_sentence(w, base.pyspell_token) for w, _ in pairs]}
        entry: dict[str, Any] = {"role": SPLITS[split], "sentences": len(pairs),
                                 "words": sum(len(w.split()) for w, _ in pairs), "systems": {}}
        # each error's kind, once: a line's errors are the same whoever corrects it (the text as written misses all)
        errors = [e for w, m in pairs for e in score_line(w.lower(), m.lower(), w.lower())["missed"]]
        kinds = {e: kind(e.partition(" -> ")[0], e.partition(" -> ")[2], speller.lexicon.knows, confusable)
                 for e in errors}
        for system in outputs:
            lines = [score_line(w.lower(), m.lower(), o.lower()) for (w, m), o in zip(pairs, outputs[system])]
            read = system in spellers
            entry["systems"][system] = tally(lines, kinds, labels if read else None)
            if read:
                entry["systems"][system]["other_edits_listed"] = [
                    {"edit": edit, "written": line["written"],
                     "read": " / ".join(filter(None, labels.get((edit, line["written"]), ("not read", ""))))}
                    for line in lines for edit in line["wrong"]]
            if system == "charwise":
                entry["errors_by_kind"] = {k: row["errors"] for k, row in entry["systems"][system]["by_kind"].items()}
                if split == "dev":  # the held-out split's misses are not read, lest they be tuned on
                    entry["missed"] = [{"edit": edit, "kind": kinds[edit], "written": line["written"],
                                        "why": why_missed(r, [edit]).get(edit, "")}
                                       for line, r in zip(lines, results) for edit in line["missed"]]
            row = entry["systems"][system]
            print(f"{split} {system}: {row['fixed']} of {row['errors']} fixed ({row['fixed_percent']} %), "
                  f"{row['other_edits']} other edits {row.get('other_edits_read', '')}", flush=True)
        result["splits"][split] = entry
    return result


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    splits = list(result["splits"])
    fig, axes = plt.subplots(1, len(splits), figsize=(5.5 * len(splits), 3.4), squeeze=False)
    for ax, split in zip(axes[0], splits):
        entry = result["splits"][split]
        kinds = [k for k in HEADLINE if entry["errors_by_kind"][k]]
        systems = list(entry["systems"])
        width = 0.8 / len(systems)
        for s, system in enumerate(systems):
            rows = entry["systems"][system]["by_kind"]
            ax.bar([x + s * width for x in range(len(kinds))], [rows[k]["fixed_percent"] or 0 for k in kinds],
                   width, label=f"{system} ({entry['systems'][system]['other_edits']} other edits)")
        ax.set_xticks([x + width for x in range(len(kinds))],
                      [f"{k}\n({entry['errors_by_kind'][k]})" for k in kinds], fontsize=7)
        ax.set_ylim(0, 100)
        ax.set_ylabel("errors fixed (%)")
        ax.set_title(f"UD EWT {split} ({entry['role']}): marked typos", fontsize=9)
        ax.legend(fontsize=7)
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", nargs="+", default=list(SPLITS), choices=list(SPLITS))
    parser.add_argument("--context", choices=["smollm2"], help="also run charwise with this language model")
    parser.add_argument("--out", type=Path, default=RESULTS / "ewt_typos.json")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return write_result(args.out, run(args), plot)


if __name__ == "__main__":
    sys.exit(main())
