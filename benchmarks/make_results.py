"""Write ``docs/results.md`` from every ``benchmarks/results/*.json``.

    python -m benchmarks.make_results            # rewrites docs/results.md (atomically)
    python -m benchmarks.make_results --check    # exit status 1 if docs/results.md is out of date

One section per JSON file, in file-name order: what the benchmark measures (the first sentence of
its script's docstring), the command that regenerates it, a table of its key figures and links to
the JSON and its PNG. The output depends only on the JSON files (no dates, no machine names), so it
is reproducible; ``tests/test_results_doc.py`` checks that the committed page is up to date.

Only the standard library is used (no torch, no charwise import), so this runs in a fraction of a
second.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

BENCHMARKS = Path(__file__).resolve().parent
ROOT = BENCHMARKS.parent
RESULTS = BENCHMARKS / "results"
DOC = ROOT / "docs" / "results.md"

Lines = list[str]

# Commands for results whose JSON records none (or records only part of the recipe). Paths to the
# built-in data are given in the package layout (src/charwise/data/...).
COMMANDS: dict[str, list[str]] = {
    "eval_e5": ["charwise eval e5-multilingual --max-words 2000 --json benchmarks/results/eval_e5.json"],
    "eval_e5_es": [
        "cut -f2 src/charwise/data/bible_es_en/bible.es-en.tsv | tail -n +2 > runs/bible_es.txt",
        "charwise eval e5-multilingual --words-from runs/bible_es.txt --max-words 2000 \\",
        "    --json benchmarks/results/eval_e5_es.json",
    ],
    "eval_e5_en": [
        "cut -f3 src/charwise/data/bible_es_en/bible.es-en.tsv | tail -n +2 > runs/bible_en.txt",
        "charwise eval e5-multilingual --words-from runs/bible_en.txt --max-words 2000 \\",
        "    --json benchmarks/results/eval_e5_en.json",
    ],
    "tagging": [
        "python -m benchmarks.tagging.tagging --epochs 1 --train-sentences 2000 --dev-sentences 400 --lr 1e-4 \\",
        "    --threads 1 --budget-minutes 95    # resumes: runs what the JSON does not have yet",
        "# the second core: another invocation with its own JSON, joined afterwards",
        "python -m benchmarks.tagging.tagging --epochs 1 --train-sentences 2000 --dev-sentences 400 --lr 1e-4 \\",
        "    --threads 1 --settings chars-concat s2w+chars --json runs/fusion.json",
        "python -m benchmarks.tagging.tagging --merge runs/fusion.json",
    ],
    "tagging_full": [
        "python -m benchmarks.tagging.tagging --tasks wnut17 --settings base-first hybrid-oov chars-concat --seeds 0 \\",
        "    --json runs/full_s0.json --work runs/tagging_full        # and --seeds 1 on the other core",
        "python -m benchmarks.tagging.tagging --json benchmarks/results/tagging_full.json --seeds 0 1 \\",
        "    --merge runs/full_s0.json runs/full_s1.json",
    ],
    "tagging_full_v2": [
        "python -m benchmarks.tagging.tagging --tasks wnut17 --settings hybrid-oov chars-concat --seeds 0 \\",
        "    --json runs/v2_s0.json --work runs/tagging_v2        # and --seeds 1 on the other core",
        "python -m benchmarks.tagging.tagging --json benchmarks/results/tagging_full_v2.json --seeds 0 1 \\",
        "    --merge runs/v2_s0.json runs/v2_s1.json",
    ],
    "tagging_2pt": [
        "python -m benchmarks.hybrid.pretraining --run runs/2pt/full --train --mode full --steps 800",
        "python -m benchmarks.tagging.tagging --teacher runs/2pt/full/model --tasks wnut17 --settings hybrid-oov --seeds 0 \\",
        "    --json runs/2pt/wnut_a.json --work runs/2pt/tag_a     # --seeds 1 and --settings base-first alongside",
        "python -m benchmarks.tagging.tagging --json benchmarks/results/tagging_2pt.json --seeds 0 1 \\",
        "    --merge runs/2pt/wnut_a.json runs/2pt/wnut_s1.json runs/2pt/wnut_b.json",
    ],
    "tagging_2pt_ewt": [
        "python -m benchmarks.tagging.tagging --teacher runs/2pt/full/model --tasks ewt-upos --settings hybrid-oov --seeds 0 \\",
        "    --epochs 1 --json benchmarks/results/tagging_2pt_ewt.json --work runs/2pt/tag_a",
    ],
    "tagging_repair": [
        "python -m benchmarks.tagging.tagging --tasks wnut17 --settings base-first --seeds 0 1 --epochs 5 \\",
        "    --test-policies repair --json benchmarks/results/tagging_repair.json",
    ],
    "tagging_repair_ewt": [
        "python -m benchmarks.tagging.tagging --tasks ewt-upos --settings base-first --seeds 0 1 --epochs 1 \\",
        "    --test-policies repair --json benchmarks/results/tagging_repair_ewt.json",
    ],
    "tagging_ewt_full": [
        "python -m benchmarks.tagging.tagging --tasks ewt-upos --settings base-first --seeds 0 1 2 --epochs 1 \\",
        "    --json runs/ewt_base.json         # and --settings s2w+chars --json runs/ewt_chars.json alongside",
        "python -m benchmarks.tagging.tagging --json benchmarks/results/tagging_ewt_full.json \\",
        "    --merge runs/ewt_base.json runs/ewt_chars.json",
    ],
}

# Steps that must run before the recorded command.
_V1 = "git archive 3714bfe src/charwise/pretrained | tar -x -C runs/v1    # the v1 encoders (charwise 0.2)"
BEFORE: dict[str, list[str]] = {
    "hybrid_retrieval_real_v1": ["mkdir -p runs/v1", _V1],
    "hybrid_retrieval_v1": ["mkdir -p runs/v1", _V1],
    "eval_minilm_v1": ["mkdir -p runs/v1", _V1],
    "eval_smollm2_v1": ["mkdir -p runs/v1", _V1],
    "generation": [
        "head -n -300 src/charwise/data/kjv/kjv_verses.txt > runs/kjv_train.txt",
        "charwise decoder train --encoder smollm2 --out runs/spell/smollm2 --steps 2000 --lr 3e-3 --eval-every 500",
        "charwise generator train runs/kjv_train.txt src/charwise/data/wnut17/raw_text/*.10000 \\",
        "    --decoder runs/spell/smollm2/decoder --out runs/gen/smollm2 --steps 300 --batch-size 12 --eval-every 100",
        "charwise tune runs/kjv_train.txt --teacher smollm2 --encoder smollm2 --objective lm \\",
        "    --out runs/tune-smollm2 --steps 80 --batch-size 8 --eval-every 40 --lr 5e-4",
        "# the tuned row used the encoder this run saved at step 40 (the run was stopped there for time)",
    ],
    "hybrid_perplexity_tuned": [
        "head -n -300 src/charwise/data/kjv/kjv_verses.txt > runs/kjv_train.txt",
        "charwise tune runs/kjv_train.txt --teacher smollm2 --encoder smollm2 --objective lm \\",
        "    --out runs/tune-smollm2 --steps 80 --batch-size 8 --eval-every 40 --lr 5e-4",
    ],
}

# Which user-guide page explains each result (by file-name prefix; the longest prefix wins).
PAGES = {
    "ablation": "approximation.md",
    "approximation": "approximation.md",
    "eval": "approximation.md",
    "throughput": "approximation.md",
    "hybrid": "hybrid.md",
    "misspellings": "approximation.md",
    "pretraining": "hybrid.md",
    "tagging": "tagging.md",
    "speller": "correction.md",
    "real_words": "correction.md",
    "front_end": "hybrid.md",
    "gpu_checks": "scaling.md",
    "spelling_suite": "spelling_benchmarks.md",
    "lexnorm": "spelling_benchmarks.md",
    "decoder": "correction.md",
    "cycle_loops": "correction.md",
    "generation": "generation.md",
    "lm": "lm.md",
    "translation": "translation.md",
    "e5_agreement": "multilingual.md",
    "eval_e5": "multilingual.md",
    "expansion_es": "multilingual.md",
    "misspellings_e5": "multilingual.md",
    "bitext_retrieval": "multilingual.md",
    "repair_models": "multilingual.md",
    "repair_speed": "hybrid.md",
    "expansion": "expansion.md",
    "stats": "stats.md",
}


# --- formatting ----------------------------------------------------------------------------------
def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def plural(n: int | float, word: str) -> str:
    return f"{n:g} {word}" + ("" if n == 1 else "s")


def mean_std(stat: dict[str, float]) -> str:
    return f"{100 * stat['mean']:.1f} ± {100 * stat['std']:.1f}"


def table(header: list[str], rows: list[list[str]], right: set[int] | None = None) -> Lines:
    """A Markdown table; columns in ``right`` are right-aligned (numbers)."""
    right = right or set()
    lines = [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join("---:" if i in right else "---" for i in range(len(header))) + " |",
    ]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def packaged_paths(text: str) -> str:
    """``data/...`` (where the built-in data lived when a JSON was written) -> ``src/charwise/data/...``."""
    return re.sub(r"(^|[\s=])data/", r"\1src/charwise/data/", text)


# --- one renderer per kind of result -------------------------------------------------------------
APPROX_METRICS = ["accuracy", "prec@1", "prec@5", "prec@15", "avg_prec", "cosine"]


def _eval_tables(rep: dict[str, Any]) -> Lines:
    """The tables of a ``charwise eval`` report: clean words, then one typo per word."""
    base = rep["baseline"]
    # an encoder with a manifold projection is reported projected ("charwise") and raw
    whos = [("charwise", rep)] + ([("charwise, raw vectors", rep["raw"])] if "raw" in rep else [])
    whos.append(("mean of teacher pieces", base))
    rows = []
    for split, label in (("heldin", "held-in"), ("heldout", "held-out (never trained)")):
        for i, (who, block) in enumerate(whos):
            rows.append([f"{label} (n={rep[split]['n']})" if i == 0 else label, who,
                         *(pct(block[split][m]) for m in APPROX_METRICS)])
    lines = table(["words", "vectors", *APPROX_METRICS], rows, right=set(range(2, 2 + len(APPROX_METRICS))))
    ops = list(rep["noise_operations"]) + ["mean"]
    rows = []
    for split, label in (("noise", "held-in"), ("noise_heldout", "held-out")):
        for who, block in whos:
            rows.append(
                [label, who, *(f"{pct(block[split][op]['top1'])} / {pct(block[split][op]['top10'])}" for op in ops)]
            )
    lines += ["", "One typo, clean word retrieved among the teacher's whole-word rows (top-1 / top-10, %):", ""]
    lines += table(["words", "vectors", *ops], rows, right=set(range(2, 2 + len(ops))))
    return lines


def render_approximation(data: dict[str, Any]) -> Lines:
    rep, enc = data["report"], data["encoder"]
    t = rep["teacher"]
    lines = [
        f"Teacher **{t['name']}** ({t['family']}, d={t['dim']}); encoder {enc['kind']}, "
        f"{enc['parameters']:,} parameters = {100 * enc['ratio_to_table']:.1f} % of the table; "
        f"training {data['train_minutes']:.1f} min, best checkpoint at step {enc['best_step']}. "
        f"Training command: `{data['command']}`.",
        "",
    ]
    curve = data.get("validation_curve", [])
    if curve:
        keys = ["accuracy", "avg_prec", "cosine", "noisy_top1", "noisy_top10"]
        lines += ["Validation curve (held-in validation words, %):", ""]
        lines += table(
            ["step", *keys],
            [[str(c["step"]), *(pct(c[k]) for k in keys)] for c in curve],
            right=set(range(len(keys) + 1)),
        )
        lines.append("")
    return lines + _eval_tables(rep)


def render_eval(data: dict[str, Any]) -> Lines:
    t = data["teacher"]
    lines = [f"Teacher **{t['name']}** ({t['family']}, d={t['dim']}).", ""]
    if "manifold" in data:
        settings = ", ".join(f"{k} {v}" for k, v in data["manifold"].items())
        lines += [f"Manifold projection: {settings}.", ""]
    return lines + _eval_tables(data)


def render_ablation(data: dict[str, Any]) -> Lines:
    keys = ["accuracy", "avg_prec", "cosine", "noisy_top1", "noisy_top10"]
    rows = [[name, *(pct(v["final"][k]) for k in keys), f"{v['minutes']:.1f}"] for name, v in data["variants"].items()]
    lines = [f"Validation (held-in words) after {data['steps']} steps, %:", ""]
    lines += table(["variant", *keys, "minutes"], rows, right=set(range(1, len(keys) + 2)))
    lines += ["", "Each variant's training command:", ""]
    lines += [f"* {name}: `{v['command']}`" for name, v in data["variants"].items()]
    return lines


def render_throughput(data: dict[str, Any]) -> Lines:
    lines = [
        f"Words per second at batch {data['batch_size']} ({data['device']}, {data['torch_threads']} threads, "
        f"{data['cpu_count']} CPUs; {data['words']:,} words):",
        "",
    ]
    rows = [[r["encoder"], r["preset"], f"{r['parameters']:,}", f"{r['words_per_s']:,.0f}"] for r in data["rows"]]
    return lines + table(["encoder", "preset", "parameters", "words/s"], rows, right={2, 3})


def render_expansion(data: dict[str, Any]) -> Lines:
    teachers = data["teachers"]
    names = list(teachers)
    v = data["vectors"]
    lines = [
        f"Static vectors: {v['source']} ({v['words']:,} words, {v['dim']}-d); "
        f"{plural(data['torch_threads'], 'torch thread')}.",
        "",
    ]
    info = [
        [
            name,
            str(t["heldout_whole_words"]),
            str(t["evaluated"]),
            str(t["glove_covered"]),
            str(t["case_variants_excluded"]),
            f"{t['mean_pieces_per_word']:.2f}",
            f"{100 * t['joint_alignment']['prec@1']:.1f} / {100 * t['joint_alignment']['prec@10']:.1f}",
            f"{t['seconds']:.1f}",
        ]
        for name, t in teachers.items()
    ]
    lines += table(
        [
            "teacher",
            "held-out whole words",
            "evaluated",
            "with a static vector",
            "case variants excluded",
            "pieces per word",
            "joint alignment prec@1 / @10",
            "seconds",
        ],
        info,
        right=set(range(1, 8)),
    )
    methods = list(dict.fromkeys(m for t in teachers.values() for m in t["methods"]))
    rows = []
    for m in methods:
        row = [f"`{m}`"]
        for name in names:
            r = teachers[name]["methods"].get(m)
            row += [pct(r["cosine"]), pct(r["prec@1"]), pct(r["prec@10"])] if r else ["-", "-", "-"]
        rows.append(row)
    header = ["method"] + [f"{name} {k}" for name in names for k in ("cosine", "prec@1", "prec@10")]
    lines += [
        "",
        "Rebuilt rows, all evaluated words: mean cosine to the true row, prec@1 / prec@10 of retrieving " "it (%):",
        "",
    ]
    return lines + table(header, rows, right=set(range(1, len(header))))


def render_expansion_ner(data: dict[str, Any]) -> Lines:
    p = data["protocol"]
    noises = sorted({r["noise"] for r in data["rows"]})
    methods = list(dict.fromkeys(r["method"] for r in data["rows"]))
    by = {(r["method"], r["noise"]): r for r in data["rows"]}
    rows = []
    for m in methods:
        first = by[(m, noises[0])]
        rows.append(
            [
                f"`{m}`",
                str(len(first["seeds"])),
                pct(first["dev_f1"]),
                *(mean_std(by[(m, n)]["test_f1"]) if (m, n) in by else "-" for n in noises),
            ]
        )
    lines = [
        f"Task {p['task']}, tagger setting `{p['setting']}`; {plural(p['epochs'], 'epoch')} on {p['train_sentences']} "
        f"training sentences, dev subsample {p['dev_sentences']}, lr {p['lr']:g} / {p['head_lr']:g}, batch "
        f"{p['batch_size']}. Expansion: `{packaged_paths(p['expansion'])}`.",
        "",
        "Entity F1 x 100 (mean ± std over seeds):",
        "",
    ]
    header = ["new rows", "seeds", "dev F1"] + [f"test F1, typo rate {n:g}" for n in noises]
    return lines + table(header, rows, right=set(range(1, len(header))))


def render_hybrid_perplexity(data: dict[str, Any]) -> Lines:
    lines = [
        f"{data['benchmark']}: {data['verses']} verses ({data['words']:,} words); typos: rate {data['typo_rate']:g} "
        f"per eligible word ({data['words_changed_pct']:.2f} % of all words changed); encoder: {data['encoder']}; "
        f"{data['threads']} threads.",
        "",
    ]
    rows = [
        [
            f"`{r['policy']}`",
            r["setting"],
            f"{r['ppl']:.2f}",
            f"{r['words_from_characters_pct']:.2f}",
            "-" if r["ppl_of_words_from_characters"] is None else f"{r['ppl_of_words_from_characters']:,.1f}",
            f"{r['seconds']:.1f}",
        ]
        for r in data["rows"]
    ]
    return lines + table(
        ["policy", "context", "per-word perplexity", "% words from characters", "perplexity of those words", "seconds"],
        rows,
        right={2, 3, 4, 5},
    )


def render_misspelled_retrieval(data: dict[str, Any]) -> Lines:
    lines = [
        f"{data['benchmark'].capitalize()}: {data['queries']:,} queries (sentences with at least {data['min_subs']} "
        f"replaced words; {data['words_changed_pct']:.2f} % of their words replaced) against the "
        f"{data['sentences']:,} clean sentences of `{packaged_paths(data['corpus'])}`; encoder {data['encoder']}, "
        f"seed {data['seed']}.",
        "",
        "MRR / recall@1 (%) of the clean sentence:",
        "",
    ]
    rows = [[f"`{policy}`", f"{e['clean']['mrr']:.2f} / {e['clean']['recall@1']:.2f}",
             f"{e['real']['mrr']:.2f} / {e['real']['recall@1']:.2f}", f"{e['seconds']:.1f}"]
            for policy, e in data["policies"].items()]
    return lines + table(["policy", "clean queries", "misspelled queries", "seconds"], rows, right={1, 2, 3})


def render_hybrid_retrieval(data: dict[str, Any]) -> Lines:
    if "rates" not in data:
        return render_misspelled_retrieval(data)
    rates = data["rates"]
    first = next(iter(data["policies"].values()))
    changed = ", ".join(f"{e['words_changed_pct']:.2f} % at r = {e['rate']:g}" for e in first)
    lines = [
        f"{data['benchmark']}: {data['sentences']:,} sentences of `{packaged_paths(data['corpus'])}`, encoder "
        f"{data['encoder']}, seed {data['seed']}. Words changed: {changed}.",
        "",
        "MRR / recall@1 (%) of the clean sentence:",
        "",
    ]
    rows = []
    for policy, entries in data["policies"].items():
        by = {e["rate"]: e for e in entries}
        rows.append(
            [
                f"`{policy}`",
                *(f"{by[r]['mrr']:.2f} / {by[r]['recall@1']:.2f}" if r in by else "-" for r in rates),
                f"{data.get('seconds', {}).get(policy, 0):.1f}",
            ]
        )
    return lines + table(
        ["policy", *(f"r = {r:g}" for r in rates), "seconds"], rows, right=set(range(1, len(rates) + 2))
    )


def render_repair_speed(data: dict[str, Any]) -> Lines:
    lines = [f"Seconds to encode clean texts (medians of {data['repeats']} interleaved repetitions, batch "
             f"{data['batch_size']}, {data['threads']} thread(s)); the speller loads once in "
             f"{data['speller_load_s']:.1f} s:", ""]
    rows = [[name, f"{c['texts']:,}", f"{c['looked_at_pct']:.2f}", f"{c['repaired_pct']:.2f}", f"{c['none_s']:.1f}",
             f"{c['repair_cold_s']:.1f} ({c['added_cold_pct']:+.1f} %)", f"{c['repair_warm_s']:.1f} ({c['added_warm_pct']:+.1f} %)"]
            for name, c in data["corpora"].items()]
    lines += table(["corpus", "texts", "words looked at (%)", "words repaired (%)", "`none`", "`repair`, cold cache",
                    "`repair`, warm cache"], rows, right=set(range(1, 7)))
    return lines


def render_hybrid_speed(data: dict[str, Any]) -> Lines:
    policies = list(dict.fromkeys(p for t in data["length"].values() for c in t.values() for p in c))
    rows = []
    for teacher, corpora in data["length"].items():
        for corpus, by in corpora.items():
            rows.append([teacher, corpus, *(f"{by[p]:.2f}" if p in by else "-" for p in policies)])
    lines = ["Mean positions per sentence, special tokens included:", ""]
    lines += table(["teacher", "corpus", *(f"`{p}`" for p in policies)], rows, right=set(range(2, len(policies) + 2)))
    s = data["speed"]
    runs = "; ".join(f"{name}: " + ", ".join(f"{x:.1f}" for x in xs) for name, xs in s["runs"].items())
    lines += [
        "",
        f"Speed: {s['sentences']:,} sentences, batch {s['batch_size']}, {data['threads']} threads; "
        f"medians of the interleaved repetitions (seconds; runs: {runs}):",
        "",
    ]
    lines += table(
        ["pass", "seconds", "relative to base"],
        [
            ["base (plain transformers)", f"{s['base_s']:.1f}", "1.00x"],
            ["hybrid `oov`, empty caches", f"{s['hybrid_cold_s']:.1f}", f"{s['ratio_cold']:.2f}x"],
            ["hybrid `oov`, warm caches", f"{s['hybrid_warm_s']:.1f}", f"{s['ratio_warm']:.2f}x"],
        ],
        right={1, 2},
    )
    return lines


def render_misspellings(data: dict[str, Any]) -> Lines:
    kinds = ["one-edit", "phonetic/rule", "multi-edit"]
    v = data["versions"]
    lines = [
        f"{data['benchmark']}: {data['list_pairs']:,} pairs in the list; versions: "
        + ", ".join(f"{k} {v[k]}" for k in v if v[k])
        + f"; {plural(data['torch_threads'], 'torch thread')}.",
        "",
    ]
    for name, block in data["teachers"].items():
        counts = ", ".join(f"{k} {block['pairs_by_kind'][k]:,}" for k in kinds)
        lines += [f"**{name}**: {block['pairs']:,} pairs ({counts}). Top-1 / top-5 / top-10 (%), by error kind "
                  "top-1 / top-10 (%):", ""]
        rows = []
        for label, r in block["systems"].items():
            note = f" ({r['n']}-pair subset)" if "subset" in r else ""
            cells = []
            for k in kinds:
                b = r["by_kind"][k]
                cells.append(f"{pct(b['top1'])} / {pct(b['top10'])}" if b["n"] else "-")
            rows.append([f"{label}{note}", pct(r["top1"]), pct(r["top5"]), pct(r["top10"]), *cells,
                         f"{r['words_per_s']:,.0f}"])
        lines += table(["system", "top-1", "top-5", "top-10", *kinds, "words/s"], rows, right=set(range(1, 8)))
        lines.append("")
    return lines[:-1]


def render_decoder(data: dict[str, Any]) -> Lines:
    beam = f"beam{data['beam']}"
    lines = [f"Spelling of held-in (a seeded 2,000) and held-out whole words (never trained) from the teacher's "
             f"rows, from the encoder's raw vectors of the clean words and of noisy copies ({data['noise']} noise). "
             "Exact match and character error rate (%), greedy and beam "
             f"{data['beam']} (its best, and the gold spelling among its {data['beam']}).", ""]
    rows = []
    for group in ("heldin", "heldout"):
        for source, entry in data[group].items():
            g, b = entry["greedy"], entry[beam]
            rows.append([group, source, f"{g['n']:,}", pct(g["exact"]), pct(g["cer"]), pct(b["exact"]),
                         pct(b[f"in_top{data['beam']}"])])
    return lines + table(["words", "from", "n", "greedy exact", "CER", f"{beam} exact", f"in top {data['beam']}"],
                         rows, right={2, 3, 4, 5, 6})


def render_speller_neural(data: dict[str, Any]) -> Lines:
    """benchmarks/correction/speller_neural.py: the default speller and SmolLM2 on its words in doubt, dev data."""
    report = data["report"]
    settings = data["settings"]
    lines = [f"Development data: {report['sentences']} UD EWT dev sentences with one misspelled word each (the "
             f"half not used for tuning) and the same sentences clean; Norvig testset1 words alone. SmolLM2 on "
             f"{data['device']}, {plural(data['threads'], 'torch thread')}; settings: "
             + ", ".join(f"{k} {v}" for k, v in settings.items()) + ".", ""]
    rows = [[name, f"{r['correction_rate']:.1f}", f"{r['damage_noisy']:.3f}",
             f"{r['clean_changed']:.3f} ({r['clean_changed_words']} of {r['clean_words']:,})",
             f"{r['words_fixed']:.1f}" if r["words_fixed"] is not None else "-",
             f"{r['sentences_per_second']:.1f}", f"{r['words_per_second']:.0f}"]
            for name, r in (("default (ngram)", report["default"]), ("--context smollm2", report["smollm2"]))]
    return lines + table(["mode", "misspelled words corrected, %", "other words of those sentences changed, %",
                          "clean words changed, %", "Norvig testset1 fixed, %", "sentences/s", "words/s"],
                         rows, right={1, 2, 3, 4, 5, 6})


def render_real_words(data: dict[str, Any]) -> Lines:
    """benchmarks/correction/real_words.py: confusion-set swaps put back, and clean words changed, by margin."""
    lines = [f"{data['role']}: {data['sentences']:,} sentences ({data['words']:,} words, {data['clean_set_words']:,} "
             f"of them in a confusion set); {data['errors']:,} swapped words to put back. Shipped margin: "
             f"{data['shipped_margin']:g}.", ""]
    rows = [[margin, f"{r['errors_corrected']:.1f}", str(r["errors_changed_wrongly"]), str(r["false_alarms"]),
             f"{r['clean_words_changed']:.4f}"] for margin, r in data["margins"].items()]
    return lines + table(["margin (log10)", "swaps put back, %", "swaps changed to a third word",
                          "clean words changed", "clean words changed, %"], rows, right={1, 2, 3, 4})


def render_lexnorm(data: dict[str, Any]) -> Lines:
    """benchmarks/correction/lexnorm.py: real tweets normalised, two folds, every system on the same tokens."""
    first = data["folds"][0]["systems"]["unchanged"]
    lines = [f"{data['tweets']:,} LexNorm 2015 training tweets (development), two folds: each half learned from, the "
             f"other scored; sums over both. Per fold about {first['tokens']:,} tokens, {first['needing']:,} needing "
             f"normalisation, {first['misspellings']:,} misspellings (one word within two edits).", ""]
    rows = [[name, f"{s['misspellings_fixed']:.1f}", f"{s['normalisations_fixed']:.1f}", f"{s['damage']:.3f}",
             f"{s['precision']:.1f}", f"{s['recall']:.1f}", f"{s['f1']:.1f}", f"{s['err']:.1f}",
             str(s.get("tweets_per_s", "-"))] for name, s in data["summed"].items()]
    return lines + table(["system", "misspellings fixed, %", "all normalisations fixed, %", "damage, %",
                          "precision, %", "recall, %", "F1", "ERR", "tweets/s"], rows, right=set(range(1, 9)))


def render_front_end(data: dict[str, Any]) -> Lines:
    """benchmarks/hybrid/front_end.py: preparation against the tokenizer, throughput against sentence-transformers."""
    lines = [f"{data['texts']:,} WNUT17 test tweets, batch {data['batch']}, median of {data['repeats']} warm passes.",
             ""]
    rows = []
    for key, r in data["devices"].items():
        sec, rate = r["seconds"], r["sentences_per_second"]
        rows.append([f"{r['device']} ({r['torch_threads']} threads)", f"{sec['tokenizer']:.3f}",
                     f"{sec['prepare none']:.3f} ({r['preparation_over_tokenizer']['none']:.2f}x)",
                     f"{sec['prepare repair']:.3f} ({r['preparation_over_tokenizer']['repair']:.2f}x)",
                     f"{sec['model forward']:.3f}", f"{rate['sentence-transformers']:.1f}",
                     *(f"{rate[k]:.1f} ({r['relative_to_sentence_transformers'][k]:.2f}x)"
                       for k in ("charwise none", "charwise repair", "repairing(model)")),
                     f"{rate['correct']:,.0f}"])
    return lines + table(["device", "tokenizer s", "prepare `none` s", "prepare `repair` s", "model forward s",
                          "sentence-transformers sent/s", "`none` sent/s", "`repair` sent/s",
                          "`repairing(model)` sent/s", "`correct` sent/s"], rows, right=set(range(1, 10)))


def render_gpu_checks(data: dict[str, Any]) -> Lines:
    """benchmarks/scaling/gpu_checks.py: resume tests on CUDA, encode overlap, the front end and the LM speller on a GPU."""
    sec = data["sections"]
    lines = [f"{data['device']}, torch {data['torch']} (CUDA {data['cuda']}); {data['texts']:,} WNUT17 tweets, "
             f"batch {data['batch']}, median of {data['repeats']} warm passes. {data.get('setup', '')}", ""]
    if "resume" in sec:
        r = sec["resume"]
        lines += [f"Resume tests on CUDA (deterministic algorithms {'on' if r.get('deterministic_algorithms') else 'off'}"
                  f"): {r['passed']} passed, {r['failed']} failed, {r['skipped']} skipped; GPU peak "
                  f"{r['gpu_peak_mib']} MiB.", ""]
        lines += table(["test", "outcome", "s"], [[f"`{k}`", v["outcome"], f"{v['seconds']:.1f}"]
                                                  for k, v in r["tests"].items()], right={2})
    rates: dict[str, float] = dict(sec.get("front_end", {}).get("sentences_per_second", {}))
    rates.update({f"charwise {k}": v for k, v in sec.get("overlap", {}).get("sentences_per_second", {}).items()})
    rates.update({f"speller, context {k}": v for k, v in sec.get("lm_speller", {}).get("tweets_per_second", {}).items()})
    if rates:
        lines += ["", *table(["what", "sentences / s"], [[k, f"{v:,.1f}"] for k, v in rates.items()], right={1})]
    return lines


def render_spelling_suite(data: dict[str, Any]) -> Lines:
    """benchmarks/correction/spelling_suite.py: its own tables (the ones docs/spelling_benchmarks.md quotes)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from spelling_suite import markdown

    return [f"charwise's context: {data.get('context', 'ngram')}; {data.get('omp_num_threads') or 'default'} "
            f"thread(s); wall {data['wall_seconds']:g} s.", "", *markdown(data).splitlines()]


def render_speller(data: dict[str, Any]) -> Lines:
    if data["language"] == "es":
        clean_test = data.get("clean_test")
        lines = [f"Realistic Spanish misspellings of {data['pairs']:,} words of the Spanish test verses (of "
                 f"{data['test_words']:,}); intended word found, %. Clean dev verses: "
                 f"{data['clean_dev']['changed']} of {data['clean_dev']['words']:,} words changed "
                 f"({data['clean_dev']['changed_share']:.3f} %)" + (
                     f"; clean test verses: {clean_test['changed']} of {clean_test['words']:,} changed, "
                     f"{clean_test['changed_wrongly']} wrongly ({clean_test['changed_wrongly_share']:.3f} %, "
                     "checked by hand)" if clean_test else "") + ".", ""]
        rows = [[name, f"{r['top1']:.1f}", f"{r['top10']:.1f}"] for name, r in data["misspellings"].items()]
        return lines + table(["system", "top-1", "top-10"], rows, right={1, 2})
    speed = data["speed"]
    clean = data["clean"]
    lines = [f"Wikipedia's list, test half ({data['in_vocabulary']:,} pairs whose correction is a MiniLM whole "
             f"word, {data['outside']:,} whose correction MiniLM splits); intended word found, %. Clean text "
             "changed: " + "; ".join(
                 f"{task} test {c['changed']} of {c['words']:,} words ({c['changed_share']:.3f} %), "
                 f"{c.get('changed_wrongly', '?')} wrongly ({c.get('changed_wrongly_share', '?')} %)"
                 for task, c in clean.items())
             + f". Speed ({speed['threads']} thread): misspelled words/s "
             + ", ".join(f"{k} {v:,}" for k, v in speed["misspelled_words_per_second"].items())
             + f"; clean words/s {speed['clean_words_per_second']:,}; load {speed['load_seconds']} s; "
             f"index and vectors {speed['index_and_vectors_mb']:,} MB.", ""]
    rows = []
    for name, r in data["wikipedia"].items():
        kinds = r["by_kind"]
        outside = r.get("outside")
        rows.append([name, f"{r['n']:,}", f"{r['top1']:.1f}", f"{r['top10']:.1f}",
                     *(f"{kinds[k]['top1']:.1f}" for k in ("one-edit", "phonetic/rule", "multi-edit")),
                     "-" if outside is None else f"{outside['top1']:.1f}"])
    return lines + table(["system", "n", "top-1", "top-10", "one-edit", "phonetic/rule", "multi-edit",
                          "outside top-1"], rows, right=set(range(1, 8)))


def render_speller_speed(data: dict[str, Any]) -> Lines:
    """benchmarks/correction/speller_speed.py: start-up of `charwise correct`, words/s beside SymSpell."""
    start = data["start_up"]
    lines = [f"{data['machine']}, {data['threads']} thread(s). `charwise correct` on one word, warm cache, "
             "fresh process (median): " + "; ".join(
                 f"{k.split()[1]} {v['seconds']:g} s, {v['peak_mb']:,} MB peak" for k, v in start.items()
                 if k.startswith("correct")) + f"; `import charwise` {start['import charwise']['seconds']:g} s. "
             f"Clean UD EWT test text: {data['clean_words_per_second']:,} words/s.", ""]
    rows = [[name, f"{rate:,}"] for name, rate in data["misspelled_words_per_second"].items()]
    return lines + table([f"misspelled words ({data['misspelled_words']:,}, same words, same run)", "words/s"],
                         rows, right={1})


def render_pretraining(data: dict[str, Any]) -> Lines:
    c = data["config"]
    lines = [f"Mode {c['mode']}, {c['steps']:,} steps of {c['batch_size']} sentences (at most {c['max_words']} words), "
             f"lr {c['lr']:g} (encoder) / {c['head_lr']:g} (head)"
             + (f" / {c['model_lr']:g} (transformer)" if c["mode"] == "full" else "")
             + f", {100 * c['mask_rate']:g} % of words masked, typos {c['noise']} at {c['typo_rate']:g} per word in "
             f"{100 * (1 - c['clean_share']):g} % of sentences; {data['seconds_per_step']:.2f} s per step "
             f"({data['torch_threads_note']}). Masked-piece accuracy / loss on 256 validation sentences; "
             f"best step {data['best_step']}.", ""]
    rows = [[str(v["step"]), f"{pct(v['hybrid_acc'])} / {v['hybrid_loss']:.2f}",
             f"{pct(v['pieces_acc'])} / {v['pieces_loss']:.2f}",
             f"{pct(v['hybrid_clean_acc'])} / {v['hybrid_clean_loss']:.2f}"] for v in data["validations"]]
    return lines + table(["step", "typos, hybrid oov", "typos, plain pieces", "clean, hybrid oov"], rows,
                         right={0, 1, 2, 3})


def render_generation(data: dict[str, Any]) -> Lines:
    lines = [f"{data['benchmark']}; generator `{data['generator']}`; typos at {data['typo_rate']:g} per eligible word "
             f"in the context (targets clean); {plural(data['threads'], 'torch thread')}. Per-word perplexity of the "
             "LM's pieces, of the decoder's spelling and of their 50/50 mixture; next-word accuracy (%) of greedy "
             "pieces, of the decoder's greedy spelling and of the combined rule, over every word and over the "
             "words SmolLM2 splits.", ""]
    rows = []
    for r in data["rows"]:
        a, sp = r["all"], r.get("split")
        rows.append([r["data"], r["setting"], r["input"], f"{a['words']:,}", f"{a['ppl_pieces']:.1f}",
                     f"{a['ppl_decoder']:.1f}", f"{a['ppl_mixture']:.1f}", f"{a['acc_pieces']:.1f}",
                     f"{a['acc_decoder']:.1f}", f"{a['acc_combined']:.1f}",
                     f"{sp['words']:,}" if sp else "0",
                     f"{sp['acc_pieces']:.1f} / {sp['acc_decoder']:.1f} / {sp['acc_combined']:.1f}" if sp else "-"])
    return lines + table(["data", "context", "input", "words", "ppl pieces", "ppl decoder", "ppl mixture",
                          "acc pieces", "acc decoder", "acc combined", "split words", "split: pieces / decoder / "
                          "combined"], rows, right=set(range(3, 12)))


def render_cycle_loops(data: dict[str, Any]) -> Lines:
    lines = [f"{data['benchmark']}: {data['steps']} steps of `{data['common']}`. Encoder: real misspellings top-1 / "
             "top-10, one synthetic typo top-1 (held-in words), held-in avg_prec and cosine, held-out prec@1. "
             "Decoder: greedy exact match from held-in rows, from the encoder's vectors of noisy held-in strings "
             "and of clean held-out words (%).", ""]
    rows = [[r["run"], f"{pct(r['misspellings_top1'])} / {pct(r['misspellings_top10'])}", pct(r["one_typo_top1"]),
             pct(r["heldin_avg_prec"]), f"{r['heldin_cosine']:.3f}", pct(r["heldout_prec1"]), pct(r["heldin_rows"]),
             pct(r["heldin_encoder_noisy"]), pct(r["heldout_encoder_clean"])] for r in data["rows"]]
    return lines + table(["run", "misspellings top-1 / 10", "one typo top-1", "avg_prec", "cosine", "held-out p@1",
                          "dec: rows", "dec: noisy", "dec: held-out"], rows, right=set(range(1, 9)))


def render_lm(data: dict[str, Any]) -> Lines:
    lines = [f"{data['benchmark']}; threads per run: {data['threads_per_run']}. Perplexity with batch 1 and the state "
             "carried through each split; minutes per epoch count training steps only.", ""]
    rows = [[r["language"], r["preset"], f"{r['parameters'] / 1e6:.2f} M", f"{r['vocabulary']:,}", str(r["epochs"]),
             f"{r['minutes_per_epoch']:.1f}", f"{r['validation_ppl']:.2f}", f"{r['test_ppl']:.2f}",
             f"{100 * r['test_oov']['unseen_tokens']:.2f}"] for r in data["rows"]]
    ratios = "; ".join(f"{lang} {size}: {ratio:.3f}" for lang, by in data["char_over_word_test_ppl"].items()
                       for size, ratio in by.items())
    return lines + table(["language", "model", "parameters", "output words", "epochs", "min / epoch",
                          "validation ppl", "test ppl", "test tokens unseen (%)"], rows, right=set(range(2, 9))) + [
        "", f"Test perplexity, char / word: {ratios or '-'}."]


def render_translation(data: dict[str, Any]) -> Lines:
    def cell(s: dict[str, Any], key: str, digits: int = 2) -> str:
        sd = s.get(key + "_sd")
        return f"{s[key]:.{digits}f}" + (f" ± {sd:.{digits}f}" if sd is not None else "")

    first = data["runs"][0] if data["runs"] else {}
    lines = [f"{data['benchmark']}; split: {data['split']}; {data['device']}, threads per run: "
             f"{data['threads_per_run']}; {first.get('test_sentences', '-')} test verses, beam 5; "
             f"typos: {100 * first.get('words_changed_typos', 0):.1f} % of the source words changed. "
             "Mean ± standard deviation over seeds where there are several.", ""]
    rows = [[s["row"], ", ".join(map(str, s["seeds"])), f"{s['parameters'] / 1e6:.2f} M", cell(s, "bleu"),
             cell(s, "chrf"), cell(s, "copy_accuracy", 1), cell(s, "bleu_typos"), cell(s, "copy_accuracy_typos", 1),
             f"{s['upper_encoder_positions_per_sentence']:.1f}", f"{s['train_target_pieces_per_s']:.0f}",
             f"{s['decode_sentences_per_s']:.1f}"] for s in data["summary"]]
    header = ["system", "seeds", "parameters", "BLEU", "chrF", "copy (%)", "BLEU typos", "copy typos (%)",
              "upper positions", "train pieces/s", "decode sent/s"]
    if data["summary"] and all("bleu_averaged" in s for s in data["summary"]):  # runs with checkpoint averaging
        steps = first.get("averaged_steps", [])
        header += [f"BLEU, steps {', '.join(map(str, steps))} averaged", "BLEU typos, averaged"]
        for row, s in zip(rows, data["summary"]):
            row += [cell(s, "bleu_averaged"), cell(s, "bleu_typos_averaged")]
    targets = "; ".join(f"{k.replace('_', ' ')}: {v:+.2f}" for k, v in data["targets"].items())
    return lines + table(header, rows, right=set(range(2, len(header)))) + [
        "", f"Differences: {targets or '-'}.", "", f"Signatures: BLEU `{first.get('bleu_signature', '-')}`, "
        f"chrF `{first.get('chrf_signature', '-')}`."]


def render_stats(data: list[dict[str, Any]]) -> Lines:
    corpora = sorted({packaged_paths(d["corpus"]) for d in data})
    lines = ["Corpus: " + ", ".join(f"`{c}`" for c in corpora) + ".", ""]
    rows = [
        [
            d["teacher"],
            d["family"],
            f"{d['sentences']:,}",
            f"{d['words']:,}",
            f"{d['types']:,}",
            f"{d['multitoken_types_pct']:.2f} %",
            f"+{d['token_mass_increase_pct']:.2f} %",
            f"{d['pieces_per_word']:.4f}",
            f"{d['oov_word_rate_pct']:.2f} %",
            f"{d['unk_rate_pct']:.2f} %",
        ]
        for d in data
    ]
    lines += table(
        [
            "teacher",
            "family",
            "sentences",
            "words",
            "types",
            "multitoken types",
            "token mass increase",
            "pieces per word",
            "OOV word rate",
            "[UNK] rate",
        ],
        rows,
        right=set(range(2, 10)),
    )
    buckets = list(dict.fromkeys(k for d in data for k in d["pieces_per_word_histogram"]))
    lines += ["", "Words by number of pieces:", ""]
    lines += table(
        ["teacher", *buckets],
        [[d["teacher"], *(f"{d['pieces_per_word_histogram'].get(b, 0):,}" for b in buckets)] for d in data],
        right=set(range(1, len(buckets) + 1)),
    )
    return lines


def render_tagging(data: dict[str, Any]) -> Lines:
    p = data.get("protocol", {})
    lines = []
    if p:
        lines += [
            f"Protocol: teacher {p['teacher']}, {plural(p['epochs'], 'epoch')}, "
            f"train sentences {p['train_sentences']}, "
            f"dev sentences {p['dev_sentences']}, test sentences {p['test_sentences']}, batch {p['batch_size']}, "
            f"lr {p['lr']:g} (model, character encoder) / {p['head_lr']:g} (new layers), patience "
            f"{p['patience']}, {p['schedule']}, {p['head']} head, {plural(p['threads'], 'thread')} per run; typos "
            f"({', '.join(f'{n:g}' for n in p['noise'])}, seed {p['noise_seed']}): {p['noise_kind']}.",
            "",
        ]
    timing = data.get("epoch_timing")
    if timing:
        command, _, note = timing["command"].partition("  (")
        estimates = timing.get("cpu_minutes_per_epoch_full_estimate", {})
        lines += [
            f"Epoch timing ({timing['task']}, `{timing['setting']}`, {plural(timing['threads'], 'thread')}): "
            f"`{command}`"
            + (f" ({note}" if note else "")
            + f" took {timing['wall_minutes_per_epoch_full']:.1f} wall minutes per epoch ({timing['wall_note']})"
            + (
                "; estimated CPU minutes per full epoch: " + ", ".join(f"{k} {v:.2f}" for k, v in estimates.items())
                if estimates
                else ""
            )
            + ".",
            "",
        ]
    lines += ["Scores x 100, mean ± std over seeds (entity F1 for wnut17, accuracy for ewt-upos):", ""]
    rows = data.get("rows", [])
    entity = any("f1_multi" in r for r in rows)
    header = ["task", "setting", "typo rate", "seeds", "dev", "test", "acc single", "acc multi", "acc unseen"]
    header += ["F1 multi", "F1 single"] if entity else []
    body = []
    for r in rows:
        row = [
            r["task"],
            r["setting"],
            f"{r['noise']:g}",
            str(len(r["seeds"])),
            mean_std(r["dev"]),
            mean_std(r["test"]),
            mean_std(r["acc_single"]),
            mean_std(r["acc_multi"]),
            mean_std(r["acc_unseen"]),
        ]
        if entity:
            row += [mean_std(r[k]) if k in r else "-" for k in ("f1_multi", "f1_single")]
        body.append(row + [f"{r['train_minutes']['mean']:.1f}"])
    return lines + table(header + ["train min"], body, right=set(range(2, len(header) + 1)))


def render_bitext_retrieval(data: dict[str, Any]) -> Lines:
    systems = data["systems"]
    tasks = list(next(iter(systems.values()))["tasks"])
    changed = data["words_changed"]
    lines = [
        f"{data['verses']} test verses, each text prefixed with `{data['prefix']}`; "
        f"typos in {pct(changed['typos_es'])} % of Spanish and {pct(changed['typos_en'])} % of English query words, "
        f"{pct(changed['switched_es'])} % of Spanish words switched to English (lexicon of "
        f"{data['lexicon_entries']:,} entries). Accuracy / MRR (%):",
        "",
    ]
    rows = [[name, *(f"{v['tasks'][t]['recall@1']:.1f} / {v['tasks'][t]['mrr']:.1f}" for t in tasks)]
            for name, v in systems.items()]
    return lines + table(["system", *tasks], rows, right=set(range(1, len(tasks) + 1)))


def render_generic(data: Any) -> Lines:
    """Any other result: its top-level numbers and strings."""
    if not isinstance(data, dict):
        return ["(no renderer for this result; see the JSON)"]
    rows = [[f"`{k}`", str(v)] for k, v in data.items() if isinstance(v, (int, float, str)) and not isinstance(v, bool)]
    return table(["field", "value"], rows) if rows else ["(no renderer for this result; see the JSON)"]


# stem (exact, or prefix ending in "_") -> renderer
RENDERERS: dict[str, Callable[[Any], Lines]] = {
    "ablation_": render_ablation,
    "approximation_": render_approximation,
    "bitext_retrieval": render_bitext_retrieval,
    "bitext_retrieval_": render_bitext_retrieval,
    "eval_": render_eval,
    "speller": render_speller,
    "speller_": render_speller,
    "speller_dev": render_generic,  # benchmarks/correction/speller_dev.py: thresholds by scorer, development data
    "speller_neural": render_speller_neural,
    "speller_speed": render_speller_speed,
    "real_words": render_real_words,
    "lexnorm": render_lexnorm,
    "front_end": render_front_end,
    "gpu_checks": render_gpu_checks,
    "spelling_suite": render_spelling_suite,
    "spelling_suite_": render_spelling_suite,
    "speller_dev_": render_generic,
    "cycle_loops_": render_cycle_loops,
    "generation": render_generation,
    "lm": render_lm,
    "lm_": render_lm,
    "decoder_": render_decoder,
    "expansion": render_expansion,
    "expansion_ner": render_expansion_ner,
    "hybrid_perplexity": render_hybrid_perplexity,
    "hybrid_perplexity_": render_hybrid_perplexity,
    "hybrid_retrieval": render_hybrid_retrieval,
    "hybrid_retrieval_": render_hybrid_retrieval,
    "hybrid_speed": render_hybrid_speed,
    "repair_speed": render_repair_speed,
    "misspellings": render_misspellings,
    "misspellings_": render_misspellings,
    "pretraining_": render_pretraining,
    "stats_": render_stats,
    "tagging": render_tagging,
    "tagging_": render_tagging,
    "throughput": render_throughput,
    "translation": render_translation,
    "translation_": render_translation,
}


def renderer_for(stem: str) -> Callable[[Any], Lines]:
    """The renderer registered for ``stem`` itself, else for its longest registered prefix."""
    if stem in RENDERERS:
        return RENDERERS[stem]
    prefixes = [k for k in RENDERERS if k.endswith("_") and stem.startswith(k)]
    return RENDERERS[max(prefixes, key=len)] if prefixes else render_generic


# --- where a result comes from -------------------------------------------------------------------
def script_for(stem: str, scripts: list[str]) -> str | None:
    """The benchmark script that wrote ``stem``.json: the longest script name that prefixes it."""
    hits = [s for s in scripts if stem == s or stem.startswith(s + "_")]
    return max(hits, key=len) if hits else None


def summary(script: Path) -> str:
    """The first sentence of a script's docstring, on one line (read without importing it)."""
    doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or ""
    paragraph = " ".join(doc.split("\n\n")[0].split())
    match = re.match(r"(.+?[.?])(\s|$)", paragraph)
    return (match.group(1) if match else paragraph).replace("``", "`")


def command_lines(stem: str, data: Any, script: str | None) -> Lines:
    if stem in COMMANDS:
        lines = list(COMMANDS[stem])
    elif stem.startswith("approximation_"):
        args = shlex.split(data["command"])[2:]  # after "charwise train"
        if "--out" in args:
            i = args.index("--out")
            del args[i : i + 2]
        lines = [
            f"python -m benchmarks.approximation.approximation --name {stem.removeprefix('approximation_')} -- {shlex.join(args)}"
        ]
    elif stem.startswith("eval_"):
        name = data["teacher"]["name"]
        encoder = f"runs/v1/src/charwise/pretrained/{name}" if stem.endswith("_v1") else name
        lines = [f"charwise eval {encoder} --json benchmarks/results/{stem}.json"]
    elif stem.startswith("ablation_"):
        lines = [f"python -m benchmarks.approximation.ablation --steps {data['steps']}"]
    else:
        recorded = None
        if isinstance(data, dict):
            recorded = data.get("command") or (data.get("protocol") or {}).get("command")
        lines = [recorded.strip() if recorded else f"python benchmarks/{script or stem}.py"]
    return [packaged_paths(line) for line in BEFORE.get(stem, []) + lines]


def page_for(stem: str) -> str | None:
    key = max((k for k in PAGES if stem == k or stem.startswith(k + "_")), key=len, default=None)
    return PAGES[key] if key else None


# --- the page ------------------------------------------------------------------------------------
def section(path: Path, scripts: dict[str, Path]) -> Lines:
    stem = path.stem
    data = json.loads(path.read_text(encoding="utf-8"))
    script = script_for(stem, sorted(scripts))
    lines = [f"## {stem}", ""]
    what = summary(scripts[script]) if script else None
    if isinstance(data, dict) and data.get("benchmark", "").startswith("retrieval with"):
        what = (f"Sentence retrieval with {data['benchmark'].removeprefix('retrieval with ')}: find the clean UD EWT "
                "sentence from a copy whose words are misspelled.")
    if stem.startswith("eval_"):
        version = ("the v1 encoder, shipped with charwise 0.2" if stem.endswith("_v1")
                   else "the shipped v2 encoder" if stem.endswith("_v2") else "a shipped encoder")
        what = f"The `charwise eval` report (the one `charwise train` writes as `eval.json`) of {version}."
    if what:
        lines += [what if what.endswith((".", "?")) else what + ".", ""]
    links = [f"[`{stem}.json`](../benchmarks/results/{stem}.json)"]
    if path.with_suffix(".png").exists():
        links.append(f"figure: [`{stem}.png`](../benchmarks/results/{stem}.png)")
    if script:
        links.append(f"script: [`benchmarks/{script}.py`](../benchmarks/{script}.py)")
    page = page_for(stem)
    if page:
        links.append(f"discussed in [{page}]({page})")
    lines += [
        "Data: " + "; ".join(links) + ".",
        "",
        "Regenerate:",
        "",
        "```bash",
        *command_lines(stem, data, script),
        "```",
        "",
    ]
    lines += renderer_for(stem)(data)
    return lines + [""]


def render(results_dir: Path = RESULTS) -> str:
    """The whole page as a string: a deterministic function of the JSON files in ``results_dir``."""
    results_dir = Path(results_dir)
    scripts = {p.stem: p for p in sorted(BENCHMARKS.glob("*.py")) if p.stem not in ("make_results", "tables")}
    files = sorted(results_dir.glob("*.json"), key=lambda p: p.name)
    lines = [
        "<!-- Generated by benchmarks/make_results.py from benchmarks/results/*.json: do not edit by hand. -->",
        "",
        "# Benchmark results",
        "",
        "Every figure charwise publishes, one section per result file in `benchmarks/results/`, with the",
        "command that regenerates it (run from the repository root after `make install`, with",
        "`HF_HUB_OFFLINE=1`). Percentages are x 100 and rounded as in the user guide; the JSON files hold",
        "the unrounded values and the exact protocol. Regenerate this page with",
        "`python -m benchmarks.make_results`.",
        "",
        "| result | page |",
        "| --- | --- |",
    ]
    for path in files:
        page = page_for(path.stem)
        lines.append(f"| [{path.stem}](#{path.stem}) | {f'[{page}]({page})' if page else '-'} |")
    lines.append("")
    for path in files:
        lines += section(path, scripts)
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(line.rstrip() for line in lines) + "\n"


def write(path: Path = DOC, results_dir: Path = RESULTS) -> Path:
    """Write the page to ``path`` atomically (a temporary file beside it, then a rename)."""
    path = Path(path)
    text = render(results_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=str(DOC), help="output file (default docs/results.md)")
    p.add_argument("--results", default=str(RESULTS), help="directory of the result JSON files")
    p.add_argument("--check", action="store_true", help="only check that --out is up to date (exit 1 if not)")
    args = p.parse_args(argv)
    if args.check:
        current = Path(args.out).read_text(encoding="utf-8") if Path(args.out).exists() else None
        if current != render(Path(args.results)):
            print(f"{args.out} is out of date: run python -m benchmarks.make_results", file=sys.stderr)
            return 1
        return 0
    print(f"wrote {write(Path(args.out), Path(args.results))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
