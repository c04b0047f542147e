"""How the translation results read on docs/results.md.

Markdown lines from each result's JSON; standard library only, so ``benchmarks.make_results`` stays fast.
"""

from __future__ import annotations

from typing import Any

from benchmarks.common.markdown import table

Lines = list[str]


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
