"""The speller with SmolLM2 judging its words in doubt (``charwise correct --context smollm2``)
beside the default speller, on development data: misspellings corrected, clean words changed, speed.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.speller_neural --sentences 400 --tune

Development data only (the test sets of ``benchmarks/correction/spelling_suite.py`` are never read): the
``noisy`` and ``clean`` sets of ``benchmarks/correction/speller_dev.py`` (UD EWT dev sentences, one word in
each misspelled from the error model or the tuning half of Wikipedia's list) and Norvig's
development list (``pairs_testset1``, each word alone). ``2 * --sentences`` dev sentences are drawn
and cut in two halves:

* ``tune`` (with ``--tune``): SmolLM2 scores every looked-at word of the first half once (the written
  word and its best suggestions, in its sentence window); the decision rule's constants (the lowest
  scorer probability judged again, the prior's weight, the margin, the candidates, capitalised
  words or not) are then searched on those scores: the most misspellings corrected while changing
  no more clean words than the default speller (ties: fewer changes in the noisy sentences, then
  fewer words judged). The same search with the words the speller changes judged too (``undo``)
  is recorded beside it, with the clean-text changes each one adds and undoes;
* ``report``: the second half, read by the default speller and by the speller with the reranker at
  its shipped settings (:class:`charwise.speller.neural.RerankSettings`), each timed end to end
  (scores recomputed: the score cache is cleared first) at ``--threads`` torch threads.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import time
from dataclasses import asdict, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.common.fingerprint import code_fingerprint  # noqa: E402
from benchmarks.common.report import invocation  # noqa: E402
from benchmarks.correction.render import (
    render_speller_neural as render,  # noqa: F401  (make_results reads it)
)
from benchmarks.correction.speller_dev import DATA, RESULTS, dev_sentences  # noqa: E402
from charwise.io import write_json  # noqa: E402

WRITES = ("speller_neural",)
PAGE = "correction-experiments.md"

GRID = {"lower": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6], "weight": [0.0, 1.0, 2.0, 3.0, 4.0],
        "margin": [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0, 18.0, 20.0, 22.0, 26.0], "candidates": [2, 4],
        "capitals": [False, True]}


def norvig_words(data: Path) -> list[tuple[str, str]]:
    path = data / "norvig_spell_testsets" / "pairs_testset1.tsv"
    words = []
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            bad, _, good = line.partition("\t")
            if bad.strip() and good.strip():
                words.append((bad.strip(), good.strip().lower()))
    return words


def measure(outputs: dict[str, list[list[str]]], noisy: list[tuple[list[str], int, str]],
            words: list[tuple[str, str]]) -> dict[str, Any]:
    """The figures of one mode from its lower-case outputs: ``noisy`` and ``clean`` (per sentence
    and word) and ``alone`` (one per Norvig word)."""
    fixed = sum(out[i] == w[i].lower() for out, (w, i, _) in zip(outputs["noisy"], noisy))
    others = [(a, x.lower()) for out, (w, i, _) in zip(outputs["noisy"], noisy)
              for j, (a, x) in enumerate(zip(out, w)) if j != i]
    clean = [(a, x.lower()) for out, (w, _, _) in zip(outputs["clean"], noisy) for a, x in zip(out, w)]
    return {
        "correction_rate": round(100 * fixed / max(1, len(noisy)), 2),
        "damage_noisy": round(100 * sum(a != b for a, b in others) / max(1, len(others)), 3),
        "clean_changed": round(100 * sum(a != b for a, b in clean) / max(1, len(clean)), 3),
        "clean_changed_words": sum(a != b for a, b in clean),
        "clean_words": len(clean),
        "words_fixed": round(100 * sum(out[0] == good for out, (_, good) in zip(outputs["alone"], words))
                             / max(1, len(words)), 2) if words else None,
    }


def lower_outputs(corrected: list[list[Any]]) -> list[list[str]]:
    return [[e.correction.lower() for e in row] for row in corrected]


def run_mode(speller: Any, noisy: list[tuple[list[str], int, str]], words: list[tuple[str, str]]) -> dict[str, Any]:
    """Correct the three sets with ``speller`` as it is (score cache cleared first), timed."""
    speller.clear_cache()
    judged: list[int] = []
    model = speller.context_model
    if model is not None:  # count the words it judges (its rerank returns how many)
        rerank = type(model).rerank

        def counting(sentences: Any, corrected: Any) -> int:
            judged.append(rerank(model, sentences, corrected))
            return judged[-1]

        model.rerank = counting
    noisy_sentences = [w[:i] + [bad] + w[i + 1 :] for w, i, bad in noisy]
    clean_sentences = [w for w, _, _ in noisy]
    start = time.perf_counter()
    outputs = {"noisy": speller.correct_words(noisy_sentences), "clean": speller.correct_words(clean_sentences)}
    seconds = time.perf_counter() - start
    outputs["alone"] = speller.correct_words([[bad] for bad, _ in words]) if words else []
    n_words = sum(map(len, noisy_sentences)) + sum(map(len, clean_sentences))
    looked = sum(e.looked_at for key in ("noisy", "clean") for row in outputs[key] for e in row)
    report = measure({k: lower_outputs(v) for k, v in outputs.items()}, noisy, words)
    report["clean_changes"] = [f"{e.word} -> {e.correction}" for row in outputs["clean"] for e in row
                               if e.correction.lower() != e.word.lower()]
    report.update({"seconds": round(seconds, 1), "sentences_per_second": round(2 * len(noisy) / seconds, 2),
                   "words_per_second": round(n_words / seconds, 1), "looked_at_words": looked})
    if model is not None:
        del model.rerank
        report["judged_again"] = judged[0] + judged[1]  # the noisy and the clean sentences (not the words alone)
    return report


def tune(speller: Any, reranker: Any, noisy: list[tuple[list[str], int, str]], words: list[tuple[str, str]],
         budget: float, cache: Path | None = None) -> dict[str, Any]:
    """Score every looked-at word of ``noisy`` once (or read those scores from ``cache``, written
    by an earlier run on the same sentences with the same code), then search :data:`GRID` (see the
    module docstring)."""
    from charwise.speller.neural import LMReranker, RerankSettings, choose

    speller.context_model = None
    stored = json.loads(cache.read_text(encoding="utf-8")) if cache is not None and cache.is_file() else {}
    if stored.get("code") == code_fingerprint():  # scores of this very code, not of an earlier speller
        base, judged, seconds = stored["base"], [tuple(x) for x in stored["judged"]], stored["seconds"]
    else:
        base, judged, seconds = score_all(speller, reranker, noisy, words)
        if cache is not None:
            write_json(cache, {"code": code_fingerprint(), "base": base, "judged": judged, "seconds": seconds})
    def outputs_of(lower: float, weight: float, margin: float, cands: int, capitals: bool, undo: bool
                   ) -> dict[str, list[list[str]]]:
        """The outputs under one grid point, decided by the runtime's own rule (``LMReranker.in_doubt``,
        ``choose``); ``undo`` also judges the words the speller changed, which the runtime never does."""
        reranker_like = SimpleNamespace(settings=RerankSettings(lower=lower, weight=weight, margin=margin,
                                                                candidates=cands, capitals=capitals))
        outputs = {k: [list(row) for row in v] for k, v in base.items()}
        for key, s, i, prob, w, p, lm in judged:
            left = base[key][s][i] == w[0].lower()  # the speller left the word as written
            entry = SimpleNamespace(looked_at=True, suggestions=True, changed=not (left or undo), word=w[0],
                                    probability=prob)
            if LMReranker.in_doubt(reranker_like, entry):
                n = cands + 1  # the written word and the best ``candidates`` suggestions, as ``variants`` keeps
                outputs[key][s][i] = w[choose(lm[:n], p[:n], weight, margin)].lower()
        return outputs

    def best_of(undo: bool) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        rows = [{"lower": lower, "weight": weight, "margin": margin, "candidates": cands, "capitals": capitals,
                 **measure(outputs_of(lower, weight, margin, cands, capitals, undo), noisy, words)}
                for lower, weight, margin, cands, capitals in itertools.product(*GRID.values())]
        within = [r for r in rows if r["clean_changed"] <= budget]
        # ties: fewer changes in the noisy sentences, then fewer words judged (a higher lower bound)
        return max(within, key=lambda r: (r["correction_rate"], -r["damage_noisy"], r["lower"]), default=None), rows

    def clean_changes(outputs: dict[str, list[list[str]]]) -> list[str]:
        return [f"{x} -> {a}" for out, (w, _, _) in zip(outputs["clean"], noisy) for a, x in zip(out, w)
                if a != x.lower()]

    default_changes = clean_changes(base)
    report: dict[str, Any] = {"sentences": len(noisy), "words_scored": len(judged),
                              "seconds_scoring": round(seconds, 1), "clean_budget": budget, "grid": GRID}
    for undo in (False, True):
        best, rows = best_of(undo)
        entry: dict[str, Any] = {"best": best, "frontier": frontier(rows)}
        if best is not None:
            changes = clean_changes(outputs_of(*(best[k] for k in ("lower", "weight", "margin", "candidates",
                                                                   "capitals")), undo))
            entry["clean_changes_added"] = [c for c in changes if c not in default_changes]
            entry["clean_changes_undone"] = [c for c in default_changes if c not in changes]
        report["undo" if undo else "chosen"] = entry
    report["undo"]["note"] = ("also judging the words the speller changes: within the same budget it corrects "
                              "about as many, by undoing right corrections of the clean text's own typos")
    return report


def frontier(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The settings no other one beats on both misspellings corrected and clean words changed."""
    ranked = sorted(rows, key=lambda r: (r["clean_changed"], -r["correction_rate"], r["damage_noisy"]))
    out: list[dict[str, Any]] = []
    for r in ranked:
        if not out or r["correction_rate"] > out[-1]["correction_rate"]:
            out.append(r)
    return out


def score_all(speller: Any, reranker: Any, noisy: list[tuple[list[str], int, str]], words: list[tuple[str, str]]
              ) -> tuple[dict[str, list[list[str]]], list[Any], float]:
    """The default speller's lower-case outputs and, for every looked-at word with suggestions and
    context, (set, sentence, position, probability, variants, priors, LM scores)."""
    from charwise.speller.neural import variants

    sets = {"noisy": [w[:i] + [bad] + w[i + 1 :] for w, i, bad in noisy], "clean": [w for w, _, _ in noisy],
            "alone": [[bad] for bad, _ in words]}
    keep = max(GRID["candidates"])
    base: dict[str, list[list[str]]] = {}
    judged: list[tuple[str, int, int, float, list[str], list[float], list[float]]] = []
    start = time.perf_counter()
    for key, sentences in sets.items():
        corrected = speller.correct_words(sentences)
        base[key] = lower_outputs(corrected)
        targets, found = [], []
        for s, row in enumerate(corrected):
            for i, entry in enumerate(row):
                if entry.looked_at and entry.suggestions and reranker.has_context(sentences[s], i):
                    w, p = variants(entry, keep)
                    if len(w) > 1:
                        targets.append((s, i))
                        found.append((entry.probability, w, p))
        scores = reranker.score(sentences, targets, [w for _, w, _ in found])
        judged += [(key, s, i, prob, w, p, lm) for (s, i), (prob, w, p), lm in zip(targets, found, scores)]
    return base, judged, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=400, help="dev sentences per half")
    parser.add_argument("--tune", action="store_true", help="search the decision rule on the first half")
    parser.add_argument("--tune-only", action="store_true", help="stop after --tune (no report half)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (the machine is shared: 1)")
    parser.add_argument("--device", default=None, help="where SmolLM2 runs (default: CPU)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--window", type=int, nargs=2, metavar=("LEFT", "RIGHT"), default=None,
                        help="words SmolLM2 reads before and after the word (default: RerankSettings')")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=RESULTS / "speller_neural.json")
    parser.add_argument("--cache", type=Path, default=Path("runs/speller_neural_scores.json"),
                        help="the tuning half's LM scores (reused by a later --tune on the same sentences and code)")
    args = parser.parse_args(argv)
    command = invocation("benchmarks.correction.speller_neural", argv)
    result = {"command": command, **run(args)}
    write_json(args.out, result)
    if not (args.tune and args.tune_only):  # --tune-only writes its half quietly
        print(f"wrote {args.out}")
    return 0


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The tuning half (with ``--tune``) and the report half (unless ``--tune-only``)."""
    import torch

    torch.set_num_threads(args.threads)
    from charwise.speller import Speller
    from charwise.speller.neural import LMReranker, RerankSettings

    speller = Speller.load("en")
    drawn = dev_sentences("en", speller.lexicon, 2 * args.sentences, args.seed)
    halves = {"tune": drawn[: len(drawn) // 2], "report": drawn[len(drawn) // 2 :]}
    words = norvig_words(args.data)
    reranker = LMReranker.load("smollm2", device=args.device)
    reranker.score_texts(["The first forward pass sets the kernels up; it is not timed."])
    shipped = RerankSettings()
    if args.window is not None:  # the window swept: every other setting as shipped
        shipped = replace(shipped, left_words=args.window[0], right_words=args.window[1])
    reranker.settings = shipped
    result: dict[str, Any] = {
        "roles": {"tune": "development (first half of the drawn EWT dev sentences; norvig_testset1)",
                  "report": "development (second half; norvig_testset1)"},
        "threads": args.threads, "device": str(reranker.device), "settings": asdict(shipped),
    }
    if args.tune:
        default = run_mode(speller, halves["tune"], words)
        window = f"-{shipped.left_words}-{shipped.right_words}" if args.window is not None else ""
        cache = args.cache.with_name(f"{args.cache.stem}-{args.sentences}-{args.seed}{window}{args.cache.suffix}")
        result["tune"] = {"default": default, **tune(speller, reranker, halves["tune"], words,
                                                      default["clean_changed"], cache)}
        print("tune", json.dumps({k: result["tune"][k]["best"] for k in ("chosen", "undo")}), flush=True)
        if args.tune_only:
            return result
    speller.context_model = None
    default = run_mode(speller, halves["report"], words)
    print("default", json.dumps(default), flush=True)
    speller.context_model = reranker
    reranker.settings = replace(shipped)
    neural = run_mode(speller, halves["report"], words)
    print("smollm2", json.dumps(neural), flush=True)
    result["report"] = {"sentences": len(halves["report"]), "default": default, "smollm2": neural}
    return result


if __name__ == "__main__":
    raise SystemExit(main())
