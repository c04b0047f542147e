"""Public spelling benchmarks: charwise's speller beside SymSpell and pyspellchecker, same pairs, same run.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.spelling_suite  # -> results/spelling_suite.json/.png
    OMP_NUM_THREADS=1 python -m benchmarks.correction.spelling_suite --limit 100 --out /tmp/s.json   # quick look
    OMP_NUM_THREADS=1 python -m benchmarks.correction.spelling_suite --sets aspell jfleg_sentences --languages en

The data are the sets of ``shared/data/spelling_benchmarks`` (``--data``; default: the environment
variable ``CHARWISE_SPELLING_BENCHMARKS``, else ``../shared/data/spelling_benchmarks`` from the
repository root); they are read where they are, never copied into the repository (several licences
are non-commercial). Its README says which sets are for development (Norvig's testset1, Tweet-Norm
``*_dev``) and which are test only (everything else); the result file names the role of every set it
ran (``roles``). Nothing is tuned here: every system runs with its defaults.

Systems, all on the same pairs in the same run:

* **charwise**: ``Speller.load(language)`` with its shipped encoder, scorer and default settings (the
  tuned threshold). Ranking: ``Speller.suggest(words, k=10)``. What it *outputs*: ``correct_lines``
  for the misspelling alone, as written (a capitalised word is a sentence start: changed only at
  ``capital_threshold``; the same figure for the lower-cased word is kept as
  ``fixed_lowercase_input``); a known word, a short one, one with a capital inside is left alone.
  ``--context smollm2`` runs the English sets with SmolLM2 judging the words in doubt again;
  ``--style standard`` reads every text as edited (``SpellerSettings(style="standard")``).
* **SymSpell**: symspellpy with its bundled ``frequency_dictionary_en_82_765.txt``,
  ``max_dictionary_edit_distance=2``, ``prefix_length=7``, ``lookup(misspelling.lower(),
  Verbosity.ALL, max_edit_distance=2, include_unknown=True)`` (the protocol of the data's
  BASELINES.md); its output is suggestion 1. Spanish: symspellpy ships no Spanish dictionary, so the
  same lookup runs over pyspellchecker's Spanish word frequencies (the list charwise's Spanish
  lexicon is built from).
* **pyspellchecker**: ``SpellChecker(language="en"|"es")`` (distance 2); ranking: ``candidates()``
  ordered by its word frequency; output: ``correction()`` (``None``: the word is left as it is).
  It takes seconds on a long unknown word, so each set runs in a seeded random order until
  ``--pyspell-budget`` seconds are spent (a uniform random subset; its size is recorded, and
  charwise and SymSpell are scored on that same subset too: ``on_pyspell_subset``).

Word sets (``misspelling<TAB>correct``), compared case-insensitively (as BASELINES.md does):
**top-1 / top-10** of the ranking; **fixed** = the output is the intended word (a misspelling left
unchanged is a miss); **changed wrongly** = the output differs from both the misspelling and the
intended word; **unchanged**. Nothing is dropped: real-word errors (the misspelling is a word of a
system's dictionary; counted per dictionary), multi-word targets (``alot`` -> ``a lot``: no system
here outputs a space, so they are misses) and identical pairs (misspelling == intended word, e.g.
SymSpell's distance-0 queries: leaving them alone is right) are counted per set; ``fixed_misspelled``
is *fixed* over the pairs that are not identical. Tweet-Norm test: a word with two annotated forms
(``pairs_test_all_forms.tsv``, 7 words) is right with either.

Sentence sets (``noisy<TAB>clean``): each system's output is split on whitespace and aligned token
by token with the noisy and clean sides (only where the three token counts agree: the sentences
where they do not are counted, ``unaligned_gold`` / ``unaligned_output``). NeuSpell's metrics:
**correction rate** = misspelled tokens (noisy != clean) made exactly right / misspelled tokens;
**damage** = correct tokens changed / correct tokens; **exact** = sentences whose output equals the
clean side token for token (also ignoring case: ``exact_nocase``, DL-typo's "exact queries").
Every token metric is also given ignoring case (``*_nocase``; Tweet-Norm annotates casing).
charwise: ``Speller.correct(text).corrected``, one call per sentence, as a new user would.
SymSpell: each token that is all letters is replaced by its suggestion 1 (lookup as above), in the
token's case pattern (``Becouse`` -> ``Because``); other tokens are left alone. pyspellchecker:
``correction()`` per all-letter token, same case rule, results memoised per word (time-budgeted).

Speed: one thread (``--threads``), words already in memory: words/s of the ranking call per word set
(charwise: ``suggest`` in blocks of 256 with its score cache cleared first; ``correct`` afterwards
reuses those scores and is timed apart), sentences/s per sentence set (charwise's cache cleared
before each set), and the load time of each system.

Published figures beside these (``published`` in the JSON, ``--markdown``) are other people's
numbers, on these sets or not (NeuSpell's BEA-60K), with their source; BASELINES.md's SymSpell run
is an earlier run of the same protocol (a check that this one reproduces it).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib.metadata
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.common.paths import ROOT
from benchmarks.correction.render import (
    render_spelling_suite as render,  # noqa: F401  (make_results reads it)
)
from benchmarks.correction.speller import RESULTS, rss_mb
from benchmarks.correction.suite_data import (
    BASELINES_MD,
    BLOCK,
    PUBLISHED,
    SENTENCE_SETS,
    SYSTEMS,
    WORD_SETS,
    default_data,
    load_items,
)
from benchmarks.correction.suite_markdown import markdown
from benchmarks.correction.suite_metrics import budgeted, sentence_scores, word_scores
from benchmarks.correction.suite_systems import Baselines

WRITES = ("spelling_suite",)
PAGE = "spelling_benchmarks.md"


def run_word_set(name: str, items: list[tuple[str, list[str]]], speller: Any, base: Baselines,
                 args: argparse.Namespace) -> dict[str, Any]:
    words = [w for w, _ in items]
    all_idx = list(range(len(items)))
    known = {"charwise": [speller.lexicon.knows(w) for w in words],
             "SymSpell": [w.lower() in base.symspell_words for w in words],
             "pyspellchecker": [base.pyspell_knows(w) for w in words]}
    gold_known = {"charwise": sum(any(g in speller.lexicon.entries for g in gold) for _, gold in items),
                  "SymSpell": sum(any(g in base.symspell_words for g in gold) for _, gold in items),
                  "pyspellchecker": sum(any(base.pyspell_knows(g) for g in gold if " " not in g)
                                        for _, gold in items)}
    counts = {"n": len(items), "identical": sum(w.lower() in gold for w, gold in items),
              "multi_word_target": sum(any(" " in g for g in gold) for _, gold in items),
              "multi_word_misspelling": sum(" " in w.strip() for w in words),
              "real_word_errors": {s: sum(k) for s, k in known.items()},
              "gold_in_dictionary": gold_known}
    systems: dict[str, Any] = {}
    # charwise
    speller.clear_cache()
    started = time.perf_counter()
    ranked: dict[int, list[str]] = {}
    for start in range(0, len(words), BLOCK):
        for j, ss in enumerate(speller.suggest(words[start : start + BLOCK], k=10)):
            ranked[start + j] = [s.word for s in ss]
    rank_seconds = time.perf_counter() - started
    started = time.perf_counter()
    corrected = speller.correct_lines(words)
    correct_seconds = time.perf_counter() - started
    output = {i: c.corrected for i, c in enumerate(corrected)}
    lower = {i: c.corrected for i, c in enumerate(speller.correct_lines([w.lower() for w in words]))}
    entry = word_scores(items, ranked, output, all_idx, known["charwise"])
    entry["fixed_lowercase_input"] = word_scores(items, ranked, lower, all_idx, known["charwise"])["fixed"]
    entry["left_without_a_look"] = sum(not any(w.looked_at for w in c.words) for c in corrected)
    entry["seconds"] = round(rank_seconds, 3)
    entry["words_per_second"] = round(len(words) / rank_seconds, 1)
    entry["correct_seconds_after_suggest"] = round(correct_seconds, 3)
    systems["charwise"] = entry
    charwise_out = (ranked, output)
    # SymSpell
    started = time.perf_counter()
    sym_ranked = {i: base.symspell_lookup(w) for i, w in enumerate(words)}
    seconds = time.perf_counter() - started
    sym_out = {i: (r[0] if r else words[i]) for i, r in sym_ranked.items()}
    entry = word_scores(items, sym_ranked, sym_out, all_idx, known["SymSpell"])
    entry["seconds"], entry["words_per_second"] = round(seconds, 3), round(len(words) / seconds, 1)
    if name in BASELINES_MD:
        entry["baselines_md_top1_top10"] = list(BASELINES_MD[name])
    systems["SymSpell"] = entry
    # pyspellchecker, time-budgeted
    done, seconds = budgeted(len(words), lambda i: (base.pyspell_ranked(words[i]),
                                                    base.pyspell_correction(words[i])), args.pyspell_budget,
                             args.seed)
    sub = sorted(done)
    entry = word_scores(items, {i: r for i, (r, _) in done.items()}, {i: o for i, (_, o) in done.items()}, sub,
                        known["pyspellchecker"])
    entry["subset"] = f"seeded random order (seed {args.seed}) within {args.pyspell_budget:g} s: {len(sub)} of " \
                      f"{len(words)}"
    entry["seconds"], entry["words_per_second"] = round(seconds, 3), round(len(sub) / max(seconds, 1e-9), 1)
    if len(sub) < len(words):
        entry["on_pyspell_subset"] = {
            "charwise": word_scores(items, charwise_out[0], charwise_out[1], sub, known["charwise"]),
            "SymSpell": word_scores(items, sym_ranked, sym_out, sub, known["SymSpell"])}
    systems["pyspellchecker"] = entry
    return {"counts": counts, "systems": systems}


def run_sentence_set(rows: list[tuple[str, str]], speller: Any, base: Baselines,
                     args: argparse.Namespace) -> dict[str, Any]:
    all_idx = list(range(len(rows)))
    noisy = [r[0] for r in rows]
    counts = {"sentences": len(rows), "tokens": sum(len(t.split()) for t in noisy),
              "unaligned_gold": sum(len(a.split()) != len(b.split()) for a, b in rows),
              "unchanged_pairs": sum(a.split() == b.split() for a, b in rows)}
    systems: dict[str, Any] = {}
    speller.clear_cache()
    started = time.perf_counter()
    charwise_out = {i: speller.correct(t).corrected for i, t in enumerate(noisy)}
    seconds = time.perf_counter() - started
    systems["charwise"] = {**sentence_scores(rows, charwise_out, all_idx), "seconds": round(seconds, 3),
                           "sentences_per_second": round(len(rows) / seconds, 1)}
    started = time.perf_counter()
    sym_out = {i: " ".join(base.symspell_token(t) for t in s.split()) for i, s in enumerate(noisy)}
    seconds = time.perf_counter() - started
    systems["SymSpell"] = {**sentence_scores(rows, sym_out, all_idx), "seconds": round(seconds, 3),
                           "sentences_per_second": round(len(rows) / seconds, 1)}
    done, seconds = budgeted(len(rows), lambda i: " ".join(base.pyspell_token(t) for t in noisy[i].split()),
                             args.pyspell_budget, args.seed)
    sub = sorted(done)
    entry = {**sentence_scores(rows, done, sub), "seconds": round(seconds, 3),
             "sentences_per_second": round(len(sub) / max(seconds, 1e-9), 1),
             "subset": f"seeded random order (seed {args.seed}) within {args.pyspell_budget:g} s: {len(sub)} of "
                       f"{len(rows)}"}
    if len(sub) < len(rows):
        entry["on_pyspell_subset"] = {"charwise": sentence_scores(rows, charwise_out, sub),
                                      "SymSpell": sentence_scores(rows, sym_out, sub)}
    systems["pyspellchecker"] = entry
    examples = [{"noisy": noisy[i], "clean": rows[i][1], "charwise": charwise_out[i]} for i in all_idx[:5]]
    return {"counts": counts, "systems": systems, "examples": examples}


def run(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    from charwise.speller import Speller, SpellerSettings

    data = Path(args.data)
    if not (data / "README.md").is_file():
        raise SystemExit(f"no spelling benchmarks at {data} (give --data or set CHARWISE_SPELLING_BENCHMARKS)")
    names = args.sets or [*WORD_SETS, *SENTENCE_SETS]
    unknown = [n for n in names if n not in WORD_SETS and n not in SENTENCE_SETS]
    if unknown:
        raise SystemExit(f"unknown sets {unknown}; known: {[*WORD_SETS, *SENTENCE_SETS]}")
    result: dict[str, Any] = {"roles": {}, "files": {}, "word_sets": {}, "sentence_sets": {}, "load_seconds": {},
                              "speller": {}, "symspell_dictionary": {}}
    for language in args.languages:
        todo = [n for n in names if (WORD_SETS.get(n) or SENTENCE_SETS[n])[0] == language]
        if not todo:
            continue
        started = time.perf_counter()
        speller = Speller.load(language, context=args.context if language == "en" else None,
                               settings=SpellerSettings(style=args.style))
        speller.index.symspell  # noqa: B018 (build the candidate index now: part of the load)
        load = {"charwise": round(time.perf_counter() - started, 2)}
        base = Baselines(language)
        load["SymSpell"], load["pyspellchecker"] = round(base.symspell_load, 2), round(base.pyspell_load, 2)
        result["load_seconds"][language] = load
        result["symspell_dictionary"][language] = base.symspell_dictionary
        result["speller"][language] = {"threshold": speller.threshold,
                                       "capital_threshold": speller.settings.capital_threshold,
                                       "lexicon_words": len(speller.lexicon)}
        print(f"{language}: loaded {load}", file=sys.stderr)
        speller.correct_lines(["Teh firts call warms up", "El corazon"])  # not timed: first-call costs
        for name in todo:
            _, rel, role = WORD_SETS.get(name) or SENTENCE_SETS[name]
            result["roles"][name] = role
            result["files"][name] = rel
            items, idx, total = load_items(data, name, args.limit, args.seed)
            base.pyspell.seen.clear()  # pyspellchecker's memo is per set, like charwise's score cache
            started = time.perf_counter()
            if name in WORD_SETS:
                entry = run_word_set(name, items, speller, base, args)
            else:
                entry = run_sentence_set(items, speller, base, args)
            entry.update(language=language, role=role, in_file=total,
                         limit=None if len(idx) == total else f"seeded sample (seed {args.seed}) of {len(idx)}")
            entry["wall_seconds"] = round(time.perf_counter() - started, 1)
            (result["word_sets"] if name in WORD_SETS else result["sentence_sets"])[name] = entry
            print(name, summary(entry), f"{entry['wall_seconds']} s", file=sys.stderr)
        del speller, base
        gc.collect()
    result["published"] = {k: v for k, v in PUBLISHED.items() if k in result["roles"]}
    result["threads"] = torch.get_num_threads()
    result["peak_rss_mb"] = round(rss_mb())
    return result


def summary(entry: dict[str, Any]) -> str:
    s = entry["systems"]
    if "top1" in s["charwise"]:
        return " | ".join(f"{k}: fixed {v['fixed']} top1 {v['top1']} top10 {v['top10']} (n {v['n']})"
                          for k, v in s.items())
    return " | ".join(f"{k}: rate {v['correction_rate']} damage {v['damage']} exact {v['exact']}/{v['sentences']}"
                      for k, v in s.items())


def versions() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for package in ("charwise", "symspellpy", "pyspellchecker", "torch"):
        try:
            out[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            out[package] = None
    try:
        out["git_commit"] = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                                           check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "src"], cwd=ROOT, capture_output=True, text=True,
                               check=True).stdout.splitlines()
        out["src_files_changed_since_commit"] = len(dirty)
    except (OSError, subprocess.CalledProcessError):
        out["git_commit"] = None
    return out


# --- report --------------------------------------------------------------------------------------
def plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    words = result["word_sets"]
    jfleg = result["sentence_sets"].get("jfleg_sentences")
    fig, axes = plt.subplots(1, 2 if jfleg else 1, figsize=(16 if jfleg else 12, 5.5), squeeze=False,
                             gridspec_kw={"width_ratios": [3, 1]} if jfleg else None)
    colours = {"charwise": "#36c", "SymSpell": "#e80", "pyspellchecker": "#999"}
    ax = axes[0][0]
    names = list(words)
    width = 0.27
    for k, system in enumerate(SYSTEMS):
        xs = [i + (k - 1) * width for i in range(len(names))]
        vals = [words[n]["systems"][system]["fixed"] or 0 for n in names]
        ax.bar(xs, vals, width, label=system, color=colours[system])
        for x, v in zip(xs, vals):
            ax.text(x, v + 0.8, f"{v:.0f}", ha="center", fontsize=7)
    labels = [f"{n}\n({'dev' if words[n]['role'] == 'development' else 'test'}, n={words[n]['counts']['n']})"
              for n in names]
    ax.set_xticks(range(len(names)), labels, rotation=35, ha="right", fontsize=8)
    ax.set_ylim(0, 105)
    ax.set_ylabel("fixed: output is the intended word (%)")
    ax.set_title("Word sets: what each corrector outputs (pyspellchecker on a time-budgeted random subset)")
    ax.legend(loc="upper right", fontsize=8)
    if jfleg:
        ax = axes[0][1]
        for system in SYSTEMS:
            e = jfleg["systems"][system]
            ax.scatter(e["damage"], e["correction_rate"], s=70, color=colours[system], zorder=3,
                       label=f"{system}: {e['correction_rate']:.1f} % / {e['damage']:.3f} %")
        for ref in result["published"].get("jfleg_sentences", []):
            if ref["same_data"] and "damage" in ref:
                ax.scatter(ref["damage"], ref["value"], s=70, marker="x", color="k", zorder=4,
                           label=f"SymSpell as reported (project issue,\nnot this run): {ref['value']} % / "
                                 f"{ref['damage']} %")
        damages = [jfleg["systems"][s]["damage"] or 0 for s in SYSTEMS]
        ax.set_xlim(0, max(0.5, *damages) * 1.25)
        ax.legend(loc="lower right", fontsize=7, title="correction rate / damage", title_fontsize=7)
        ax.set_xlabel("damage: correct tokens changed (%)")
        ax.set_ylabel("correction rate: misspelled tokens made right (%)")
        ax.set_title(f"JFLEG spelling ({jfleg['counts']['sentences']} sentences)")
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default=str(default_data()), help="the spelling_benchmarks folder")
    p.add_argument("--sets", nargs="+", help=f"sets to run (default: all): {', '.join([*WORD_SETS, *SENTENCE_SETS])}")
    p.add_argument("--languages", nargs="+", default=["en", "es"], choices=["en", "es"])
    p.add_argument("--limit", type=int, help="at most N items per set (a seeded sample)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--pyspell-budget", type=float, default=60.0, help="seconds of pyspellchecker per set")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--context", default="ngram", choices=["ngram", "smollm2"],
                   help="charwise's context for English (smollm2: SmolLM2 judges the words in doubt again)")
    p.add_argument("--style", default="auto", choices=["auto", "standard", "social"],
                   help="charwise's style (default auto, the speller's default; standard: every text edited)")
    p.add_argument("--out", help="output JSON (default: results/spelling_suite.json; the chart beside it, .png)")
    p.add_argument("--markdown", metavar="JSON", help="only print the doc's tables from a result file")
    p.add_argument("--replot", metavar="JSON", help="only redraw the chart of a result file (beside it, .png)")
    args = p.parse_args(argv)
    import json

    if args.markdown:
        print(markdown(json.loads(Path(args.markdown).read_text(encoding="utf-8"))))
        return 0
    if args.replot:
        plot(json.loads(Path(args.replot).read_text(encoding="utf-8")), Path(args.replot).with_suffix(".png"))
        return 0
    if args.limit is not None and args.limit < 1:
        p.error("--limit must be at least 1")
    import torch

    from charwise.io import write_json

    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    result = run(args)
    given = sys.argv[1:] if argv is None else argv
    result = {"command": "OMP_NUM_THREADS=1 python -m benchmarks.correction.spelling_suite" + (
        " " + shlex.join(given) if given else ""), "date": datetime.date.today().isoformat(),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"), "context": args.context, "style": args.style,
        "limit": args.limit,
        "seed": args.seed,
        "pyspell_budget_seconds": args.pyspell_budget, "data": str(args.data), "versions": versions(), **result}
    result["wall_seconds"] = round(time.perf_counter() - started, 1)
    out = Path(args.out) if args.out else RESULTS / "spelling_suite.json"
    write_json(out, result)
    plot(result, out.with_suffix(".png"))
    print(markdown(result))
    print(f"wrote {out} in {result['wall_seconds']} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
