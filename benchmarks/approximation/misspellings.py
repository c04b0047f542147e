"""Real misspellings: the intended word of each entry of Wikipedia's list of common English
misspellings, ranked by charwise, the mean of the teacher's pieces, SymSpell and pyspellchecker on
the same pairs.

    python -m benchmarks.approximation.misspellings                                  # both teachers, shipped encoders
    python -m benchmarks.approximation.misspellings --encoder v2=runs/minilm-v2/encoder  # an extra encoder joins

The list is read at run time from the installed ``misspellings`` package (GPL-3.0; ``pip install
charwise[bench]``) and never copied: the JSON holds only counts and metrics. Pairs per teacher:
``charwise.typos.wikipedia.benchmark_pairs`` (the correction is one whole-word row of the teacher,
the misspelling is not one token). Every system answers for every pair of a teacher:

* charwise encoders: the misspelling's vector, top-k among the teacher's whole-word rows (cosine);
  an encoder with a manifold projection (``charwise.encoders.manifold``) answers twice, with the
  projected vector (what ``embed`` returns) and with the raw character vector (``LABEL raw``);
* ``piece-mean``: the mean of the teacher's own piece rows, ranked the same way;
* ``symspell``: symspellpy's English frequency dictionary, max edit distance 2, ``Verbosity.ALL``,
  suggestions in symspellpy's order (``transfer_casing=True``);
* ``pyspellchecker``: ``SpellChecker(distance=2).candidates``, ranked by word frequency (ties
  alphabetical).

A spelling checker's suggestion is a hit when it equals the correction: lower-cased for a
lower-casing teacher (MiniLM), exactly for a cased one (SmolLM2). Metrics: top-1/5/10 accuracy, by
error kind (``charwise.typos.wikipedia.error_kind``), and words/s (wall clock, torch threads = 2,
charwise batched; dictionary loading is timed separately).
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import sys
import time
from importlib import metadata, resources
from pathlib import Path
from typing import Any, Callable

import torch

from benchmarks.approximation.render import (
    render_misspellings as render,  # noqa: F401  (make_results reads it)
)
from benchmarks.common.paths import RESULTS
from benchmarks.common.report import write_result

WRITES = ("misspellings",)
PAGE = {"misspellings": "approximation.md", "misspellings_e5": "multilingual.md"}

KS = (1, 5, 10)
PYSPELL_BUDGET_S = 600.0  # above this (estimated), pyspellchecker runs on a seeded subset
PYSPELL_SUBSET = 500


def _version(pkg: str) -> str | None:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return None


def _summary(hits: dict[int, list[bool]], kinds: list[str], seconds: float, subset: list[int] | None) -> dict[str, Any]:
    from charwise.typos.wikipedia import ERROR_KINDS

    idx = subset if subset is not None else list(range(len(kinds)))
    out: dict[str, Any] = {"n": len(idx), "seconds": seconds, "words_per_s": len(idx) / max(seconds, 1e-9)}
    for k in KS:
        out[f"top{k}"] = sum(hits[k][j] for j in range(len(idx))) / max(1, len(idx))
    by_kind: dict[str, Any] = {}
    for kind in ERROR_KINDS:
        rows = [j for j, i in enumerate(idx) if kinds[i] == kind]
        by_kind[kind] = {"n": len(rows), **{f"top{k}": (sum(hits[k][j] for j in rows) / len(rows) if rows else None)
                                           for k in KS}}
    out["by_kind"] = by_kind
    if subset is not None:
        out["subset"] = f"seeded random subset of {len(idx)} pairs (seed 0)"
    return out


def _list_hits(suggest: Callable[[str], list[str]], words: list[str], targets: list[str], lower: bool
               ) -> tuple[dict[int, list[bool]], float]:
    hits: dict[int, list[bool]] = {k: [] for k in KS}
    started = time.perf_counter()
    answers = [suggest(w) for w in words]
    seconds = time.perf_counter() - started
    for got, want in zip(answers, targets):
        got = [g.lower() for g in got] if lower else got
        for k in KS:
            hits[k].append(want in got[:k])
    return hits, seconds


def run_teacher(name: str, encoders: list[tuple[str, str]], raw_pairs: list[tuple[str, str]], symspell: Any,
                spell: Any, pyspell_budget: float = PYSPELL_BUDGET_S) -> dict[str, Any]:
    from symspellpy import Verbosity

    import charwise
    from charwise.evaluation import piece_mean_vectors
    from charwise.retrieval import hits_at, rank_vectors
    from charwise.teachers import Teacher
    from charwise.typos.wikipedia import ERROR_KINDS, benchmark_pairs, error_kind

    teacher = Teacher.load(name)
    pairs = benchmark_pairs(teacher, raw_pairs)
    words = [p.misspelling for p in pairs]
    targets = [p.correction for p in pairs]
    rows = torch.tensor([p.row for p in pairs], dtype=torch.long)
    kinds = [error_kind(p.misspelling, p.correction) for p in pairs]
    systems: dict[str, Any] = {}

    def from_vectors(make: Callable[[], torch.Tensor]) -> tuple[dict[int, list[bool]], float]:
        started = time.perf_counter()
        ids = rank_vectors(make(), teacher, max(KS))
        seconds = time.perf_counter() - started
        return {k: v.tolist() for k, v in hits_at(ids, rows, KS).items()}, seconds

    for label, source in encoders:
        encoder = charwise.load(source)
        if encoder.teacher_info.get("vocab_hash") != teacher.vocab_hash:
            continue  # an encoder for another teacher
        encoder.attach_teacher(teacher)
        variants = [(label, None)] + ([(f"{label} raw", False)] if encoder.manifold is not None else [])
        for variant, manifold in variants:
            encoder.embed(words[:256], manifold=manifold)  # warm-up
            hits, seconds = from_vectors(lambda enc=encoder, m=manifold: enc.embed(words, manifold=m).cpu())
            systems[variant] = {"kind": "charwise encoder" + (", raw vectors" if manifold is False else ""),
                                "source": source, "manifold": encoder.manifold.to_dict() if encoder.manifold and
                                manifold is None else None, **_summary(hits, kinds, seconds, None)}
            print(f"  {name} {variant}: top1 {100 * systems[variant]['top1']:.1f}", flush=True)
    hits, seconds = from_vectors(lambda: piece_mean_vectors(teacher, words))
    systems["piece-mean"] = {"kind": "mean of the teacher's piece rows", **_summary(hits, kinds, seconds, None)}

    def symspell_suggest(w: str) -> list[str]:
        return [s.term for s in symspell.lookup(w, Verbosity.ALL, max_edit_distance=2, transfer_casing=True)][:10]

    hits, seconds = _list_hits(symspell_suggest, words, targets, teacher.lowercase)
    systems["symspell"] = {"kind": "SymSpell, max edit distance 2, Verbosity.ALL",
                           **_summary(hits, kinds, seconds, None)}
    print(f"  {name} symspell: top1 {100 * systems['symspell']['top1']:.1f}", flush=True)

    def pyspell_suggest(w: str) -> list[str]:
        found = spell.candidates(w) or set()
        return sorted(found, key=lambda c: (-spell.word_usage_frequency(c), c))[:10]

    probe = words[:50]
    started = time.perf_counter()
    for w in probe:
        pyspell_suggest(w)
    estimate = (time.perf_counter() - started) / max(1, len(probe)) * len(words)
    subset = None
    if estimate > pyspell_budget:
        subset = sorted(random.Random(0).sample(range(len(words)), min(PYSPELL_SUBSET, len(words))))
    idx = subset if subset is not None else list(range(len(words)))
    hits, seconds = _list_hits(pyspell_suggest, [words[i] for i in idx], [targets[i] for i in idx], teacher.lowercase)
    systems["pyspellchecker"] = {"kind": "pyspellchecker, distance 2, candidates by word frequency",
                                 "estimated_full_seconds": estimate, **_summary(hits, kinds, seconds, subset)}
    print(f"  {name} pyspellchecker: top1 {100 * systems['pyspellchecker']['top1']:.1f}", flush=True)
    return {
        "teacher": teacher.describe(),
        "lowercase": teacher.lowercase,
        "pairs": len(pairs),
        "distinct_misspellings": len(set(words)),
        "pairs_by_kind": {kind: kinds.count(kind) for kind in ERROR_KINDS},
        "systems": systems,
    }


def plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    teachers = result["teachers"]
    fig, axes = plt.subplots(1, len(teachers), figsize=(6.5 * len(teachers), 4.5), squeeze=False)
    for ax, (name, block) in zip(axes[0], teachers.items()):
        labels = list(block["systems"])
        x = range(len(labels))
        for shift, key in ((-0.2, "top1"), (0.2, "top10")):
            values = [100 * block["systems"][s][key] for s in labels]
            bars = ax.bar([i + shift for i in x], values, 0.4, label=key.replace("top", "top-"))
            ax.bar_label(bars, fmt="%.1f", fontsize=7)
        ticks = [s + (f"\n({block['systems'][s]['n']}-pair subset)" if "subset" in block["systems"][s] else "")
                 for s in labels]
        ax.set_xticks(list(x), ticks, rotation=15)
        ax.set_ylim(0, 105)
        ax.set_ylabel("intended word found (%)")
        ax.set_title(f"{name}: {block['pairs']:,} real misspellings")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--teachers", nargs="+", default=["minilm", "smollm2"])
    p.add_argument("--encoder", action="append", default=[], metavar="LABEL=NAME_OR_DIR",
                   help="an extra charwise encoder (repeatable); it joins the teacher it was trained for")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--pyspell-budget", type=float, default=PYSPELL_BUDGET_S,
                   help=f"seconds pyspellchecker may take per teacher (estimated) before it runs on a seeded "
                        f"{PYSPELL_SUBSET}-pair subset")
    p.add_argument("--json", default=str(RESULTS / "misspellings.json"))
    args = p.parse_args(argv)
    result = run(args)
    given = argv if argv is not None else sys.argv[1:]
    result["command"] = "python -m benchmarks.approximation.misspellings" + (" " + shlex.join(given) if given else "")
    return write_result(Path(args.json), result, plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every system on every teacher's pairs; the result has no command line (``main`` records the one
    it was given)."""
    torch.set_num_threads(args.threads)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    extra = []
    for spec in args.encoder:
        label, sep, source = spec.partition("=")
        extra.append((label, source) if sep else (Path(spec).name, spec))

    from spellchecker import SpellChecker
    from symspellpy import SymSpell

    import charwise
    from charwise.typos.wikipedia import PHONETIC_RULES, load_wikipedia_pairs

    raw = load_wikipedia_pairs()
    started = time.perf_counter()
    symspell = SymSpell(max_dictionary_edit_distance=2)
    symspell.load_dictionary(str(resources.files("symspellpy") / "frequency_dictionary_en_82_765.txt"), 0, 1)
    symspell_load = time.perf_counter() - started
    started = time.perf_counter()
    spell = SpellChecker(distance=2)
    pyspell_load = time.perf_counter() - started
    teachers = {}
    for name in args.teachers:
        print(f"teacher {name}", flush=True)
        encoders = [("charwise", name)] + extra
        teachers[name] = run_teacher(name, encoders, raw, symspell, spell, args.pyspell_budget)
    result = {
        "benchmark": "Wikipedia list of common English misspellings (PyPI misspellings 1.5, read at run time)",
        "command": None,  # main fills it in: only it knows the command line
        "versions": {"charwise": charwise.__version__,
                     **{pkg: _version(pkg) for pkg in ("torch", "misspellings", "symspellpy", "pyspellchecker")}},
        "torch_threads": torch.get_num_threads(),
        "cpu_count": os.cpu_count(),
        "list_pairs": len(raw),
        "dictionary_load_seconds": {"symspell": symspell_load, "pyspellchecker": pyspell_load},
        "phonetic_rules": len(PHONETIC_RULES),
        "teachers": teachers,
    }
    return result


if __name__ == "__main__":
    sys.exit(main())
