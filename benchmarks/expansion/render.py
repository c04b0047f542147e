"""How the expansion results read on docs/results.md.

Markdown lines from each result's JSON; standard library only, so ``benchmarks.make_results`` stays fast.
"""

from __future__ import annotations

from typing import Any

from benchmarks.common.markdown import mean_std, packaged_paths, pct, plural, render_generic, table

Lines = list[str]


def render_expansion(data: dict[str, Any]) -> Lines:
    if data.get("only_covered"):  # the Spanish run: docs/multilingual.md discusses it; here its top-level fields
        return render_generic(data)
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
