"""The spelling suite's tables (the ones docs/spelling_benchmarks.md quotes); standard library only."""

from __future__ import annotations

from typing import Any

from benchmarks.correction.suite_data import SYSTEMS


def fmt(v: Any, digits: int = 1) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def markdown(result: dict[str, Any]) -> str:
    """The tables of docs/spelling_benchmarks.md, from a result file."""
    def role(e: dict[str, Any]) -> str:
        return "dev" if e["role"] == "development" else "test"

    lines = ["| set | role | n | identical / multi-word target / real-word | charwise fixed | changed wrongly "
             "| unchanged | SymSpell fixed | changed wrongly | pyspellchecker fixed | changed wrongly | (pyspell n) "
             "| published, same data |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for name, e in result["word_sets"].items():
        c, s = e["counts"], e["systems"]
        cw, sy, py = s["charwise"], s["SymSpell"], s["pyspellchecker"]
        pub = "; ".join(f"{p['system']}: {p['value']}" for p in result["published"].get(name, []) if p["same_data"])
        lines.append(f"| {name} | {role(e)} | {c['n']:,} | {c['identical']} / {c['multi_word_target']} / "
                     f"{c['real_word_errors']['charwise']} | {fmt(cw['fixed'])} | {fmt(cw['changed_wrongly'])} | "
                     f"{fmt(cw['unchanged'])} | {fmt(sy['fixed'])} | {fmt(sy['changed_wrongly'])} | "
                     f"{fmt(py['fixed'])} | {fmt(py['changed_wrongly'])} | {py['n']:,} | {pub} |")
    lines += ["", "| set | charwise top-1 | top-10 | SymSpell top-1 | top-10 | (BASELINES.md) | pyspellchecker top-1 "
              "| top-10 | charwise fixed, lower-case input | charwise fixed / SymSpell fixed on pyspell's subset |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, e in result["word_sets"].items():
        s = e["systems"]
        cw, sy, py = s["charwise"], s["SymSpell"], s["pyspellchecker"]
        base = sy.get("baselines_md_top1_top10")
        sub = py.get("on_pyspell_subset")
        paired = f"{fmt(sub['charwise']['fixed'])} / {fmt(sub['SymSpell']['fixed'])}" if sub else "(whole set)"
        lines.append(f"| {name} | {fmt(cw['top1'])} | {fmt(cw['top10'])} | {fmt(sy['top1'])} | {fmt(sy['top10'])} | "
                     f"{f'{base[0]} / {base[1]}' if base else '–'} | {fmt(py['top1'])} | {fmt(py['top10'])} | "
                     f"{fmt(cw['fixed_lowercase_input'])} | {paired} |")
    lines += ["", "| sentence set | role | sentences | system | correction rate % | damage % | exact sentences "
              "| exact ignoring case | (ignoring case) rate / damage | sentences/s | unaligned (gold / output) |",
              "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, e in result["sentence_sets"].items():
        for system, v in e["systems"].items():
            lines.append(f"| {name} | {role(e)} | {v['sentences']:,} | {system} | {fmt(v['correction_rate'])} | "
                         f"{fmt(v['damage'], 3)} | {v['exact']} ({fmt(v['exact_share'])} %) | {v['exact_nocase']} | "
                         f"{fmt(v['correction_rate_nocase'])} / {fmt(v['damage_nocase'], 3)} | "
                         f"{fmt(v['sentences_per_second'])} | {v['unaligned_gold']} / {v['unaligned_output']} |")
    lines += ["", "| words/s, one thread | " + " | ".join(SYSTEMS) + " |", "| --- | ---: | ---: | ---: |"]
    for name, e in result["word_sets"].items():
        lines.append(f"| {name} | " + " | ".join(fmt(e["systems"][s]["words_per_second"], 0) for s in SYSTEMS) + " |")
    lines += ["", "| load seconds | " + " | ".join(SYSTEMS) + " |", "| --- | ---: | ---: | ---: |"]
    for language, load in result["load_seconds"].items():
        lines.append(f"| {language} | " + " | ".join(fmt(load[s], 2) for s in SYSTEMS) + " |")
    return "\n".join(lines)
