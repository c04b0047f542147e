"""How the multilingual results read on docs/results.md.

Markdown lines from each result's JSON; standard library only, so ``benchmarks.make_results`` stays fast.
"""

from __future__ import annotations

from typing import Any

from benchmarks.common.markdown import pct, table

Lines = list[str]


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
