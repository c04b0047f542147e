"""How the tagging results read on docs/results.md.

Markdown lines from each result's JSON; standard library only, so ``benchmarks.make_results`` stays fast.
"""

from __future__ import annotations

from typing import Any

from benchmarks.common.markdown import mean_std, plural, table

Lines = list[str]


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
