"""How the GPU checks read on docs/results.md.

Markdown lines from each result's JSON; standard library only, so ``benchmarks.make_results`` stays fast.
"""

from __future__ import annotations

from typing import Any

from benchmarks.common.markdown import table

Lines = list[str]


def render_gpu_checks(data: dict[str, Any]) -> Lines:
    """benchmarks/gpu_checks.py: resume tests on CUDA, encode overlap, the front end and the LM speller on a GPU."""
    sec = data["sections"]
    lines = [f"{data['device']}, torch {data['torch']} (CUDA {data['cuda']}); {data['texts']:,} WNUT17 tweets, "
             f"batch {data['batch']}, median of {data['repeats']} warm passes. {data.get('setup', '')}", ""]
    if "resume" in sec:
        r = sec["resume"]
        deterministic = "on" if r.get("deterministic_algorithms") else "off"
        lines += [f"Resume tests on CUDA (deterministic algorithms {deterministic}"
                  f"): {r['passed']} passed, {r['failed']} failed, {r['skipped']} skipped; GPU peak "
                  f"{r['gpu_peak_mib']} MiB.", ""]
        lines += table(["test", "outcome", "s"], [[f"`{k}`", v["outcome"], f"{v['seconds']:.1f}"]
                                                  for k, v in r["tests"].items()], right={2})
    rates: dict[str, float] = dict(sec.get("front_end", {}).get("sentences_per_second", {}))
    rates.update({f"charwise {k}": v for k, v in sec.get("overlap", {}).get("sentences_per_second", {}).items()})
    fresh = sec.get("prepare_workers", {}).get("sentences_per_second", {})  # one pass over new text
    rates.update({f"{k}, new text": v for k, v in fresh.items()})
    alone = sec.get("prepare_workers", {}).get("preparation_alone_sentences_per_second", {})
    rates.update({f"preparing `{k}` alone, new text": v for k, v in alone.items()})  # what the GPU could be fed
    speller = sec.get("lm_speller", {}).get("tweets_per_second", {})
    rates.update({f"speller, context {k}": v for k, v in speller.items()})
    if rates:
        lines += ["", *table(["what", "sentences / s"], [[k, f"{v:,.1f}"] for k, v in rates.items()], right={1})]
    lm = sec.get("lm_speller", {})
    if "lm_forward_passes" in lm:
        lines += ["", f"The LM mode's pass over {lm['tweets']:,} tweets ran {lm['lm_forward_passes']:,} forward passes "
                  f"of the language model, {lm['lm_forward_seconds']} s in all."]
    return lines
