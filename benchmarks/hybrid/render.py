"""How the hybrid results read on docs/results.md.

Markdown lines from each result's JSON; standard library only, so ``benchmarks.make_results`` stays fast.
"""

from __future__ import annotations

from typing import Any

from benchmarks.common.markdown import packaged_paths, pct, table

Lines = list[str]


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
             f"{c['repair_cold_s']:.1f} ({c['added_cold_pct']:+.1f} %)",
             f"{c['repair_warm_s']:.1f} ({c['added_warm_pct']:+.1f} %)"]
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


def render_front_end(data: dict[str, Any]) -> Lines:
    """benchmarks/front_end.py: preparation against the tokenizer, throughput against sentence-transformers."""
    lines = [f"{data['texts']:,} WNUT17 test tweets, batch {data['batch']}, median of {data['repeats']} warm passes.",
             ""]
    rows = []
    for r in data["devices"].values():
        sec, rate = r["seconds"], r["sentences_per_second"]
        rows.append([f"{r['device']} ({r['torch_threads']} threads)", f"{sec['tokenizer']:.3f}",
                     f"{sec['prepare none']:.3f} ({r['preparation_over_tokenizer']['none']:.2f}x)",
                     f"{sec['prepare repair']:.3f} ({r['preparation_over_tokenizer']['repair']:.2f}x)",
                     f"{sec['model forward']:.3f}", f"{rate['sentence-transformers']:.1f}",
                     *(f"{rate[k]:.1f} ({r['relative_to_sentence_transformers'][k]:.2f}x)"
                       for k in ("charwise none", "charwise repair", "repairing(model)")),
                     f"{rate['correct']:,.0f}"])
    lines += table(["device", "tokenizer s", "prepare `none` s", "prepare `repair` s", "model forward s",
                    "sentence-transformers sent/s", "`none` sent/s", "`repair` sent/s",
                    "`repairing(model)` sent/s", "`correct` sent/s"], rows, right=set(range(1, 10)))
    fresh = {r["device"]: r["new_text"] for r in data["devices"].values() if "new_text" in r}
    if fresh:
        lines += ["", "New text (one pass, the speller's caches empty), sentences per second:", ""]
        lines += new_text_table(fresh)
        lines += ["", "New text, the batches of `repair` prepared with no model run (sentences per second): "
                  + "; ".join(f"{device}: " + ", ".join(f"{k} {v:,.1f}" for k, v in
                                                         r.get("preparation_alone_sentences_per_second", {}).items())
                              for device, r in fresh.items())]
    return lines


def new_text_table(by_device: dict[str, Any]) -> Lines:
    """Sentences/s of one pass over new text per device, and each against sentence-transformers."""
    keys = list(dict.fromkeys(k for r in by_device.values() for k in r["sentences_per_second"]))
    rows = [[device, *(f"{r['sentences_per_second'][k]:.1f}" + (
        f" ({r['relative_to_sentence_transformers'][k]:.2f}x)" if k in r["relative_to_sentence_transformers"] else "")
        if k in r["sentences_per_second"] else "-" for k in keys)] for device, r in by_device.items()]
    return table(["device", *keys], rows, right=set(range(1, len(keys) + 1)))


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


def describe_retrieval(stem: str, data: dict[str, Any]) -> str | None:
    """The real-misspelling runs say what they measure in their own ``benchmark`` field."""
    if not data.get("benchmark", "").startswith("retrieval with"):
        return None
    return (f"Sentence retrieval with {data['benchmark'].removeprefix('retrieval with ')}: find the clean UD EWT "
            "sentence from a copy whose words are misspelled.")


def render_entity_vectors(data: dict[str, Any]) -> Lines:
    lines = [f"Teacher {data['teacher']}; WNUT17 test, words the `oov` policy builds from characters; a common "
             f"word: Zipf >= {data['common_zipf']}.", ""]
    rows = [[group, f"{data['built_from_characters_percent'][group]} %", str(s["words"]),
             f"{s['capitalised_percent']} %", f"{s['nearest_common_percent']} %", f"{s['spelled_alike_percent']} %",
             f"{s['nearest_cosine']:.3f}", f"{s['piece_mean_cosine']:.3f}"] for group, s in data["groups"].items()]
    lines += table(["words", "of the group's tokens built", "n", "capitalised", "nearest row a common word",
                    "nearest row spelled alike", "cosine to nearest row", "cosine to own piece mean"], rows,
                   right=set(range(1, 8)))
    if "built_by_repair_oov_percent" in data:
        counts = data.get("built_by_repair_oov", {})
        shares = [f"{g} {v} %" + (f" ({counts[g]['tokens']} tokens, {counts[g]['capitalised']} capitalised)"
                                  if g in counts else "") for g, v in data["built_by_repair_oov_percent"].items()]
        lines += ["", "Built from characters by `repair+oov`: " + ", ".join(shares) + " of the group's tokens."]
    for group, s in data["groups"].items():
        lines += ["", f"First {group} words and their nearest rows: " + ", ".join(f"`{e}`" for e in s["examples"][:12])]
    return lines
