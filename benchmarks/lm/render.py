"""How the language-model and generation results read on docs/results.md.

Markdown lines from each result's JSON; standard library only, so ``benchmarks.make_results`` stays fast.
"""

from __future__ import annotations

from typing import Any

from benchmarks.common.markdown import plural, table

Lines = list[str]


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
