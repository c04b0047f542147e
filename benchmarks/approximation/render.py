"""How the approximation results read on docs/results.md.

Markdown lines from each result's JSON; standard library only, so ``benchmarks.make_results`` stays fast.
"""

from __future__ import annotations

import shlex
from typing import Any

from benchmarks.common.markdown import pct, plural, table

Lines = list[str]

METRICS = ["accuracy", "prec@1", "prec@5", "prec@15", "avg_prec", "cosine"]


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
                         *(pct(block[split][m]) for m in METRICS)])
    lines = table(["words", "vectors", *METRICS], rows, right=set(range(2, 2 + len(METRICS))))
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


# --- how to regenerate the results whose JSON records only part of the recipe ----------------
def approximation_commands(stem: str, data: dict[str, Any]) -> Lines:
    """The benchmark wrapped around the recorded ``charwise train`` command."""
    args = shlex.split(data["command"])[2:]  # after "charwise train"
    if "--out" in args:
        i = args.index("--out")
        del args[i : i + 2]
    name = stem.removeprefix("approximation_")
    return [f"python -m benchmarks.approximation.approximation --name {name} -- {shlex.join(args)}"]


def ablation_commands(stem: str, data: dict[str, Any]) -> Lines:
    return [f"python -m benchmarks.approximation.ablation --steps {data['steps']}"]


def eval_commands(stem: str, data: dict[str, Any]) -> Lines:
    name = data["teacher"]["name"]
    encoder = f"runs/v1/src/charwise/pretrained/{name}" if stem.endswith("_v1") else name
    return [f"charwise eval {encoder} --json benchmarks/results/{stem}.json"]


def eval_describe(stem: str, data: dict[str, Any]) -> str:
    version = ("the v1 encoder, shipped with charwise 0.2" if stem.endswith("_v1")
               else "the v2 encoder, shipped until 2026-11-29" if stem == "eval_smollm2_v2"
               else "the shipped v2 encoder" if stem.endswith("_v2")
               else "the shipped v3 encoder" if stem.endswith("_v3") else "a shipped encoder")
    return f"The `charwise eval` report (the one `charwise train` writes as `eval.json`) of {version}."
