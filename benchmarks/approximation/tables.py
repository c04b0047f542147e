"""Print the approximation result tables of docs/approximation.md (Markdown) from benchmarks/results/.

The page of every result is docs/results.md, written by ``benchmarks/make_results.py``.

    python -m benchmarks.approximation.tables
"""

from __future__ import annotations

import json

from benchmarks.approximation.render import METRICS
from benchmarks.common.markdown import pct
from benchmarks.common.paths import RESULTS


def approximation_table(name: str) -> str:
    data = json.loads((RESULTS / f"approximation_{name}.json").read_text())
    rep, base = data["report"], data["report"]["baseline"]
    enc = data["encoder"]
    lines = [
        f"**{rep['teacher']['name']}** ({rep['teacher']['family']}, d={rep['teacher']['dim']}): `{data['command']}`  ",
        f"encoder {enc['kind']}, {enc['parameters']:,} parameters = {100 * enc['ratio_to_table']:.1f} % of the table; "
        f"training {data['train_minutes']:.1f} min on this machine, best checkpoint at step {enc['best_step']}.",
        "",
        "| words | vectors | " + " | ".join(METRICS) + " |",
        "| --- | --- | " + " | ".join("---:" for _ in METRICS) + " |",
    ]
    for split, label in (("heldin", "held-in"), ("heldout", "held-out (never trained)")):
        charwise = " | ".join(pct(rep[split][m]) for m in METRICS)
        lines.append(f"| {label} (n={rep[split]['n']}) | charwise | {charwise} |")
        lines.append(f"| {label} | mean of teacher pieces | " + " | ".join(pct(base[split][m]) for m in METRICS) + " |")
    ops = rep["noise_operations"] + ["mean"]
    lines += ["", "One typo, clean word retrieved among the teacher's whole-word rows (top-1 / top-10, %):", "",
              "| words | vectors | " + " | ".join(ops) + " |",
              "| --- | --- | " + " | ".join("---:" for _ in ops) + " |"]
    for split, label in (("noise", "held-in"), ("noise_heldout", "held-out")):
        for who, block in (("charwise", rep), ("mean of teacher pieces", base)):
            cells = " | ".join(f"{pct(block[split][op]['top1'])} / {pct(block[split][op]['top10'])}" for op in ops)
            lines.append(f"| {label} | {who} | {cells} |")
    return "\n".join(lines)


def ablation_table() -> str:
    path = RESULTS / "ablation_minilm.json"
    if not path.exists():
        return ""
    data = json.loads(path.read_text())
    keys = ["accuracy", "avg_prec", "cosine", "noisy_top1", "noisy_top10"]
    command = f"python -m benchmarks.approximation.ablation --steps {data['steps']}"
    lines = [f"Validation (held-in words) after {data['steps']} steps, `{command}`:", "",
             "| variant | " + " | ".join(keys) + " | minutes |",
             "| --- | " + " | ".join("---:" for _ in keys) + " | ---: |"]
    for name, v in data["variants"].items():
        lines.append(f"| {name} | " + " | ".join(pct(v["final"][k]) for k in keys) + f" | {v['minutes']:.1f} |")
    return "\n".join(lines)


def throughput_table() -> str:
    path = RESULTS / "throughput.json"
    if not path.exists():
        return ""
    data = json.loads(path.read_text())
    lines = [f"Words per second at batch {data['batch_size']} ({data['device']}, {data['torch_threads']} threads), "
             f"`{data['command']}`:", "", "| encoder | preset | parameters | words/s |", "| --- | --- | ---: | ---: |"]
    for r in data["rows"]:
        lines.append(f"| {r['encoder']} | {r['preset']} | {r['parameters']:,} | {r['words_per_s']:,.0f} |")
    return "\n".join(lines)


def main() -> None:
    for name in ("minilm", "smollm2"):
        if (RESULTS / f"approximation_{name}.json").exists():
            print(approximation_table(name), end="\n\n")
    print(ablation_table(), end="\n\n")
    print(throughput_table())


if __name__ == "__main__":
    main()
