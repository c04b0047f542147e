"""How the correction results read on docs/results.md.

Markdown lines from each result's JSON; standard library only, so ``benchmarks.make_results`` stays fast.
"""

from __future__ import annotations

from typing import Any

from benchmarks.common.markdown import pct, plural, table
from benchmarks.correction.suite_markdown import markdown

Lines = list[str]


def render_speller(data: dict[str, Any]) -> Lines:
    if data["language"] == "es":
        clean_test = data.get("clean_test")
        lines = [f"Realistic Spanish misspellings of {data['pairs']:,} words of the Spanish test verses (of "
                 f"{data['test_words']:,}); intended word found, %. Clean dev verses: "
                 f"{data['clean_dev']['changed']} of {data['clean_dev']['words']:,} words changed "
                 f"({data['clean_dev']['changed_share']:.3f} %)" + (
                     f"; clean test verses: {clean_test['changed']} of {clean_test['words']:,} changed, "
                     f"{clean_test['changed_wrongly']} wrongly ({clean_test['changed_wrongly_share']:.3f} %, "
                     "checked by hand)" if clean_test else "") + ".", ""]
        rows = [[name, f"{r['top1']:.1f}", f"{r['top10']:.1f}"] for name, r in data["misspellings"].items()]
        return lines + table(["system", "top-1", "top-10"], rows, right={1, 2})
    speed = data["speed"]
    clean = data["clean"]
    lines = [f"Wikipedia's list, test half ({data['in_vocabulary']:,} pairs whose correction is a MiniLM whole "
             f"word, {data['outside']:,} whose correction MiniLM splits); intended word found, %. Clean text "
             "changed: " + "; ".join(
                 f"{task} test {c['changed']} of {c['words']:,} words ({c['changed_share']:.3f} %), "
                 f"{c.get('changed_wrongly', '?')} wrongly ({c.get('changed_wrongly_share', '?')} %)"
                 for task, c in clean.items())
             + f". Speed ({speed['threads']} thread): misspelled words/s "
             + ", ".join(f"{k} {v:,}" for k, v in speed["misspelled_words_per_second"].items())
             + f"; clean words/s {speed['clean_words_per_second']:,}; load {speed['load_seconds']} s; "
             f"index and vectors {speed['index_and_vectors_mb']:,} MB.", ""]
    rows = []
    for name, r in data["wikipedia"].items():
        kinds = r["by_kind"]
        outside = r.get("outside")
        rows.append([name, f"{r['n']:,}", f"{r['top1']:.1f}", f"{r['top10']:.1f}",
                     *(f"{kinds[k]['top1']:.1f}" for k in ("one-edit", "phonetic/rule", "multi-edit")),
                     "-" if outside is None else f"{outside['top1']:.1f}"])
    return lines + table(["system", "n", "top-1", "top-10", "one-edit", "phonetic/rule", "multi-edit",
                          "outside top-1"], rows, right=set(range(1, 8)))


def render_speller_neural(data: dict[str, Any]) -> Lines:
    """benchmarks/speller_neural.py: the default speller and SmolLM2 on its words in doubt, dev data."""
    report = data["report"]
    settings = data["settings"]
    lines = [f"Development data: {report['sentences']} UD EWT dev sentences with one misspelled word each (the "
             f"half not used for tuning) and the same sentences clean; Norvig testset1 words alone. SmolLM2 on "
             f"{data['device']}, {plural(data['threads'], 'torch thread')}; settings: "
             + ", ".join(f"{k} {v}" for k, v in settings.items()) + ".", ""]
    rows = [[name, f"{r['correction_rate']:.1f}", f"{r['damage_noisy']:.3f}",
             f"{r['clean_changed']:.3f} ({r['clean_changed_words']} of {r['clean_words']:,})",
             f"{r['words_fixed']:.1f}" if r["words_fixed"] is not None else "-",
             f"{r['sentences_per_second']:.1f}", f"{r['words_per_second']:.0f}"]
            for name, r in (("default (ngram)", report["default"]), ("--context smollm2", report["smollm2"]))]
    return lines + table(["mode", "misspelled words corrected, %", "other words of those sentences changed, %",
                          "clean words changed, %", "Norvig testset1 fixed, %", "sentences/s", "words/s"],
                         rows, right={1, 2, 3, 4, 5, 6})


def render_speller_speed(data: dict[str, Any]) -> Lines:
    """benchmarks/speller_speed.py: start-up of `charwise correct`, words/s beside SymSpell."""
    start = data["start_up"]
    lines = [f"{data['machine']}, {data['threads']} thread(s). `charwise correct` on one word, warm cache, "
             "fresh process (median): " + "; ".join(
                 f"{k.split()[1]} {v['seconds']:g} s, {v['peak_mb']:,} MB peak" for k, v in start.items()
                 if k.startswith("correct")) + f"; `import charwise` {start['import charwise']['seconds']:g} s. "
             f"Clean UD EWT test text: {data['clean_words_per_second']:,} words/s.", ""]
    rows = [[name, f"{rate:,}"] for name, rate in data["misspelled_words_per_second"].items()]
    return lines + table([f"misspelled words ({data['misspelled_words']:,}, same words, same run)", "words/s"],
                         rows, right={1})


def render_real_words(data: dict[str, Any]) -> Lines:
    """benchmarks/real_words.py: confusion-set swaps put back, and clean words changed, by margin."""
    lm = data.get("context", "ngram") != "ngram"
    lines = [f"{data['role']}: {data['sentences']:,} sentences ({data['words']:,} words, {data['clean_set_words']:,} "
             f"of them in a confusion set); {data['errors']:,} swapped words to put back. Shipped margin: "
             + (f"{data['shipped_lm_margin']:g} nats (SmolLM2); the bigram checker at its margin "
                f"{data['shipped_margin']:g} on the same words in the first row"
                + (f" (a seeded sample: {data['sampled_errors']:,} swaps, {data['sampled_clean_set_words']:,} clean "
                   "confusion-set words)" if "sampled_errors" in data else "") + "."
                if lm else f"{data['shipped_margin']:g}."),
             ""]
    margins = ([(f"bigrams, {m}", r) for m, r in data["bigram_same_items"].items()] if lm else []) + list(
        data["margins"].items())
    rows = [[margin, f"{r['errors_corrected']:.1f}", str(r["errors_changed_wrongly"]), str(r["false_alarms"]),
             f"{r['clean_words_changed']:.4f}"] for margin, r in margins]
    return lines + table(["margin (nats)" if lm else "margin (log10)", "swaps put back, %",
                          "swaps changed to a third word", "clean words changed", "clean words changed, %"], rows,
                         right={1, 2, 3, 4})


def render_real_words_informal(data: dict[str, Any]) -> Lines:
    """benchmarks/correction/real_words_informal.py: real-word changes on informal text, labelled by hand."""
    counts = data["counts"]
    texts = ", ".join(f"{name} ({t['words']:,} words{', ' + t['role'] if 'role' in t else ''})"
                      for name, t in data["texts"].items())
    lines = [f"{len(data['changes'])} real-word changes in {data['words']:,} words of {texts}: {counts['right']} "
             f"right, {counts['wrong']} wrong" + (f", {counts['not labelled']} not labelled" if counts["not labelled"]
                                                  else "") + "."]
    for role, r in data.get("roles", {}).items():  # read: the sets were chosen reading it; fresh: no choice saw it
        pct = "no change" if r["right_pct"] is None else f"{r['right_pct']:g} % right"
        lines.append(f"{role.capitalize()} text ({r['words']:,} words): {r['right']} right, {r['wrong']} wrong "
                     f"({pct}).")
    lines.append("")
    rows = [[c["text"], f"`{c['context']}`", f"`{c['correction']}`", c["label"] + (f": {c['why']}" if c["why"] else "")]
            for c in data["changes"]]
    return lines + table(["text", "written, in context", "changed to", "read by hand"], rows)


def render_merges(data: dict[str, Any]) -> Lines:
    """benchmarks/correction/merges.py: split words the bigram counts would join, with SmolLM2's gain, read by hand."""
    texts = ", ".join(f"{name} ({t['role']}, {t['words']:,} words)" for name, t in data["texts"].items())
    lines = [f"{len(data['pairs'])} pairs the bigram counts would join in {texts}; joined at "
             f"{data['shipped_margin']:g} nats when both words have at least {data['min_part']} letters "
             "(right / wrong, read by hand).", ""]
    margins = list(next(iter(data["sweep"].values())))

    def pair(counts: dict[str, int]) -> str:
        return f"{counts['right']} / {counts['wrong']}" + (f" ({counts['not labelled']} unread)"
                                                            if counts["not labelled"] else "")

    rows = [[role, *(pair(s[m]) for m in margins), pair(data["with_short_pairs"][role]),
             pair(data["bigrams_alone"][role])] for role, s in data["sweep"].items()]
    lines += table(["texts", *(f"LM >= {m} nats" for m in margins), "shipped margin, short pairs too",
                    "bigrams alone"], rows)
    rows = [[p["text"], f"`{p['context']}`", f"`{p['joined']}`" + (" (short)" if p["short"] else ""),
             f"{p['bigram_margin']:g}", f"{p['lm_gain']:g}", p["label"] + (f": {p['why']}" if p["why"] else "")]
            for p in data["pairs"]]
    return lines + [""] + table(["text", "pair, in context", "joined", "bigram margin (log10)", "LM gain (nats)",
                                 "read by hand"], rows)


def render_lexnorm_damage(result: dict[str, Any]) -> Lines:
    """benchmarks/correction/lexnorm_damage.py: the changes LexNorm counts as damage, read by hand."""
    labels = ("right", "wrong", "unlabelled")
    rows = [[what, *(str(result["statuses"][status].get(k, 0)) for k in labels)]
            for what, status in (("changed a token the annotators kept", "damage"),
                                 ("changed to a form the annotators did not write", "other form"))]
    kinds = ", ".join(f"{k} {n}" for k, n in result["wrong_by_what"].items())
    return [f"LexNorm 2015, two folds, {result['kept_tokens']:,} tokens kept by the annotators: damage "
            f"{result['damage_percent']} % as annotated, **{result['damage_percent_read']} %** counting only "
            "the changes read as wrong.", "",
            *table(["change", "right", "wrong", "unlabelled"], rows, {1, 2, 3}), "",
            f"The wrong ones: {kinds}."]


def render_decision(result: dict[str, Any], what: str, rules: dict[str, str]) -> Lines:
    """A fitted decision of ``benchmarks/correction/run_together.py``'s kind: its weights and threshold,
    and per text its changes right / wrong beside those of the earlier ``rules`` (key -> column)."""
    d = result["decision"]
    weights = ", ".join(f"{name} {w:+.2f}" for name, w in zip(d["features"], d["weights"]))
    rows = [[name, t["role"], str(t["candidates"]),
             *(f"{t[rule]['right']} / {t[rule]['wrong']}" + (f" ({t[rule]['not labelled']} unread)"
                                                              if t[rule]["not labelled"] else "")
               for rule in (*rules, "decision"))] for name, t in result["texts"].items()]
    model = f" read with {result['context']}" if result.get("context") else ""
    return [f"The {what}{model}: threshold **{d['threshold']}**; weights {weights}, bias {d['bias']:+.2f}.", "",
            *table(["text", "role", "candidates", *rules.values(),
                    "decision (fitting texts out of fold): right / wrong"], rows, {2}), ""]


def render_run_together(result: dict[str, Any]) -> Lines:
    """benchmarks/correction/run_together.py: the fitted split decision and its cuts, read by hand."""
    return render_decision(result, "split decision", {"listed rule": "listed cuts only: right / wrong"})


def render_joins(result: dict[str, Any]) -> Lines:
    """benchmarks/correction/joins.py: the shipped join rules and a decision fitted beside them, on
    pairs read by hand."""
    columns = {"gap rule": f"default rule (bigrams, gap >= {result['rules']['gap rule']}): right / wrong"}
    if "lm rule" in result["rules"]:
        columns["lm rule"] = f"model rule (bigrams, gain >= {result['rules']['lm rule']} nats): right / wrong"
    lines = render_decision(result, "join decision fitted (not shipped)", columns)
    for rule, swept in result["rule_sweeps"].items():
        made = ", ".join(f"{v}: {t['right']} / {t['wrong']}" for v, t in swept["joins"].items())
        lines += [f"The {rule}'s constant swept on the fitting texts (right / wrong): {made}; chosen "
                  f"**{swept['chosen']:g}** (right - 9 x wrong at its highest).", ""]
    return lines


def render_lexnorm(data: dict[str, Any]) -> Lines:
    """benchmarks/lexnorm.py: real tweets normalised, two folds, every system on the same tokens."""
    first = data["folds"][0]["systems"]["unchanged"]
    lines = [f"{data['tweets']:,} LexNorm 2015 training tweets (development), two folds: each half learned from, the "
             f"other scored; sums over both. Per fold about {first['tokens']:,} tokens, {first['needing']:,} needing "
             f"normalisation, {first['misspellings']:,} misspellings (one word within two edits).", ""]
    rows = [[name, f"{s['misspellings_fixed']:.1f}", f"{s['normalisations_fixed']:.1f}", f"{s['damage']:.3f}",
             f"{s['precision']:.1f}", f"{s['recall']:.1f}", f"{s['f1']:.1f}", f"{s['err']:.1f}",
             str(s.get("tweets_per_s", "-"))] for name, s in data["summed"].items()]
    return lines + table(["system", "misspellings fixed, %", "all normalisations fixed, %", "damage, %",
                          "precision, %", "recall, %", "F1", "ERR", "tweets/s"], rows, right=set(range(1, 9)))


def render_tweetnorm(data: dict[str, Any]) -> Lines:
    """benchmarks/correction/tweetnorm.py: Spanish tweets normalised, two folds, and the test tweets reported."""
    lines = render_lexnorm({**data, "summed": data["summed"]})
    lines[0] = (f"{data['tweets']:,} Tweet-Norm 2013 development tweets, two folds: each half learned from, the "
                "other scored; sums over both (damage is an upper bound: only out-of-vocabulary words are "
                "annotated).")
    test = data["test"]
    rows = [[name, f"{s['misspellings_fixed']:.1f}", f"{s['normalisations_fixed']:.1f}", f"{s['damage']:.3f}",
             f"{s['err']:.1f}", f"{s['oov_accuracy']:.1f}"]
            for name, s in test.items() if isinstance(s, dict) and "oov_accuracy" in s]
    return lines + ["", f"Test tweets ({test['tweets']}, reported only; the normaliser fitted on every development "
                        "tweet):", ""] + table(
        ["system", "misspellings fixed, %", "all normalisations fixed, %", "damage, %", "ERR",
         "OOV accuracy, %"], rows, right=set(range(1, 6)))


def render_accent_twins(data: dict[str, Any]) -> Lines:
    """benchmarks/correction/accent_twins.py: Spanish accents put back from the sentence."""
    model = data.get("model", {})
    rows = [[name, decider, f"{r['members_with_accent']:,}", f"{r['fixed']:.1f}", f"{r['members_without']:,}",
             f"{r['wrong']:.3f}"]
            for name, by in data["by_margin"].items()
            for decider, r in ([(f"**fitted model** ({model['choice']['threshold']:g})", model[name])] if name in model
                               else []) + [(f"bigram rule, margin {m}", r) for m, r in by.items()]]
    decided = (f"; the fitted model decides {len(model['choice']['decided'])} of them at "
               f"{model['choice']['threshold']:g}" if model else "")
    return [f"{data['sets']} confusion sets{decided}; the bigram rule's margin was {data['default_margin']:g} "
            "(log10).", ""] + table(
        ["text", "decided by", "members with an accent", "put back, %", "members without", "given one, %"], rows,
        right={2, 3, 4, 5})


def render_twin_decision(data: dict[str, Any]) -> Lines:
    """benchmarks/correction/twin_decision.py: the Spanish accent-twin decision against the rule it replaced."""
    d = data["decision"]
    weights = ", ".join(f"{name} {w:+.2f}" for name, w in zip(d["features"], d["weights"]))
    rows = [[name, str(t["candidates"]), str(t["meant"]) if t["meant"] else "",
             *(f"{t[rule]['right']} / {t[rule]['wrong']}" + (f" ({t[rule]['not labelled']} unread)"
                                                              if t[rule]["not labelled"] else "")
               for rule in ("earlier rule", "decision"))] for name, t in data["texts"].items()]
    kinds = ", ".join(f"{kind} {t}" for kind, t in d["kind_thresholds"].items()) or "none"
    return [f"Kinds of twin decided, each at its threshold: {kinds}; weights {weights}, bias {d['bias']:+.2f}.", "",
            *table(["text", "candidates", "accented as meant", "earlier rule (Zipf gap 1.0): right / wrong",
                    "decision (fitting texts out of fold): right / wrong"], rows, {1, 2}), ""]


def render_spelling_suite(data: dict[str, Any]) -> Lines:
    """benchmarks/correction/spelling_suite.py: its own tables (the ones docs/spelling_benchmarks.md quotes)."""
    lines = markdown(data).splitlines()
    # a run of a few sets leaves some tables with a header and no row: those are left out
    blocks: list[list[str]] = []
    block: list[str] = []
    for line in [*lines, ""]:
        if line.strip():
            block.append(line)
        elif block:
            blocks.append(block)
            block = []
    kept = [b for b in blocks if not (b[0].startswith("|") and len(b) <= 2)]
    style = f"style {data['style']}; " if "style" in data else ""  # recorded since --style exists
    return [f"charwise's context: {data.get('context', 'ngram')}; {style}"
            f"{data.get('omp_num_threads') or 'default'} thread(s); wall {data['wall_seconds']:g} s.", "",
            *[line for b in kept for line in [*b, ""]][:-1]]


def render_decoder(data: dict[str, Any]) -> Lines:
    beam = f"beam{data['beam']}"
    lines = [f"Spelling of held-in (a seeded 2,000) and held-out whole words (never trained) from the teacher's "
             f"rows, from the encoder's raw vectors of the clean words and of noisy copies ({data['noise']} noise). "
             "Exact match and character error rate (%), greedy and beam "
             f"{data['beam']} (its best, and the gold spelling among its {data['beam']}).", ""]
    rows = []
    for group in ("heldin", "heldout"):
        for source, entry in data[group].items():
            g, b = entry["greedy"], entry[beam]
            rows.append([group, source, f"{g['n']:,}", pct(g["exact"]), pct(g["cer"]), pct(b["exact"]),
                         pct(b[f"in_top{data['beam']}"])])
    return lines + table(["words", "from", "n", "greedy exact", "CER", f"{beam} exact", f"in top {data['beam']}"],
                         rows, right={2, 3, 4, 5, 6})


def render_cycle_loops(data: dict[str, Any]) -> Lines:
    lines = [f"{data['benchmark']}: {data['steps']} steps of `{data['common']}`. Encoder: real misspellings top-1 / "
             "top-10, one synthetic typo top-1 (held-in words), held-in avg_prec and cosine, held-out prec@1. "
             "Decoder: greedy exact match from held-in rows, from the encoder's vectors of noisy held-in strings "
             "and of clean held-out words (%).", ""]
    rows = [[r["run"], f"{pct(r['misspellings_top1'])} / {pct(r['misspellings_top10'])}", pct(r["one_typo_top1"]),
             pct(r["heldin_avg_prec"]), f"{r['heldin_cosine']:.3f}", pct(r["heldout_prec1"]), pct(r["heldin_rows"]),
             pct(r["heldin_encoder_noisy"]), pct(r["heldout_encoder_clean"])] for r in data["rows"]]
    return lines + table(["run", "misspellings top-1 / 10", "one typo top-1", "avg_prec", "cosine", "held-out p@1",
                          "dec: rows", "dec: noisy", "dec: held-out"], rows, right=set(range(1, 9)))


def render_lm_gate(data: dict[str, Any]) -> Lines:
    """benchmarks/lm_gate.py: which words SmolLM2 reads for the normaliser's LM judge."""
    lines = [f"{data['roles']}; {data['tweets']:,} tweets; the judges' thresholds chosen for "
             f"<= {100 * data['max_damage']:g} % damage. Shipped band in bold.", ""]
    rows = []
    for r in data["bands"]:
        band = f"{r['band'][0]:g} - {r['band'][1]:g}"
        rows.append([f"**{band}**" if r["shipped"] else band, f"{r['words_read']:,}", f"{r['variants_read']:,}",
                     f"{r['variants_per_tweet']:g}", f"{r['err']:g}", f"{r['misspellings_fixed']:g}",
                     f"{r['damage']:g}", " / ".join(f"{e:g}" for e in r["folds_err"])])
    return lines + table(["plain judge's p read", "words read", "texts scored", "texts / tweet", "ERR",
                          "misspellings fixed (%)", "damage (%)", "ERR per fold"], rows, right={1, 2, 3, 4, 5, 6})


def render_lm_precision(data: dict[str, Any]) -> Lines:
    """benchmarks/lm_precision.py: SmolLM2 in float32 and bfloat16 as the context model."""
    lines = [f"{data['roles']}; {data['torch_threads']} torch threads, bfloat16 "
             f"{'native' if data['native_bf16'] else 'emulated'} on this CPU.", ""]
    rows = [[name, f"{r['texts']:,}", f"{r['float32']['texts_per_s']:g}", f"{r['bfloat16']['texts_per_s']:g}",
             f"{r['speed_up']:g}x", f"{r['float32']['changes']:,} / {r['bfloat16']['changes']:,}",
             str(len(r["differing_words"]))] for name, r in data["sets"].items()]
    return lines + table(["set", "texts", "float32, texts/s", "bfloat16, texts/s", "speed-up",
                          "changes (float32 / bfloat16)", "words output differently"], rows, right={1, 2, 3, 4, 5, 6})


def render_judge_evidence(data: dict[str, Any]) -> Lines:
    """benchmarks/correction/judge_evidence.py: variants of the normaliser's judge on held-out tweets."""
    lines = [f"{data['tweets']:,} LexNorm 2015 training tweets (development), two folds, the normaliser alone on "
             f"candidate rows; each judge's threshold chosen out of fold at <= {100 * data['max_damage']:g} % damage; "
             "sums over both folds.", ""]
    rows = [[name, f"{v['err']:.2f}", f"{v['misspellings_fixed']:.2f}", f"{v['damage']:.3f}",
             ", ".join(f"{t:g}" for t in v["thresholds"]), f"{v['err_at_half']:.2f}", f"{v['damage_at_half']:.3f}"]
            for name, v in data["variants"].items()]
    return lines + table(["judge", "ERR", "misspellings fixed, %", "damage, %", "thresholds", "ERR at 0.5",
                          "damage at 0.5, %"], rows, right=set(range(1, 7)))


def render_everyday(data: dict[str, Any]) -> Lines:
    """benchmarks/correction/everyday.py: errors fixed per speller and split, and why each missed one was kept."""
    rows, misses = [], []
    for system, splits in data["systems"].items():
        for split, r in splits.items():
            rows.append([system, split, str(r["lines"]), f"{r['fixed']} / {r['errors']}", f"{r['fixed_percent']}",
                         str(r["wrong_edits"]), str(r["protected_changed"])])
            for line in r["per_line"]:
                for edit in line["missed"]:
                    misses.append([system, split, f"`{line['written']}`", f"`{edit}`",
                                   line.get("why_missed", {}).get(edit, "")])
    return [*table(["speller", "lines (dev: tuned on; test: held out)", "lines", "errors fixed", "%", "wrong edits",
                    "protected tokens changed"],
                   rows, {2, 3, 4, 5, 6}), "",
            "Each error missed, and why the speller kept the word (what `charwise correct --json` says of it):", "",
            *table(["speller", "lines", "written", "missed", "why"], misses, set()), ""]


def render_ewt_typos(data: dict[str, Any]) -> Lines:
    """benchmarks/correction/ewt_typos.py: UD EWT's marked typos fixed per corrector, split and kind."""
    rows = []
    for split, entry in data["splits"].items():
        for system, r in entry["systems"].items():
            kinds = ", ".join(f"{k} {v['fixed']}/{v['errors']}" for k, v in r["by_kind"].items() if v["errors"])
            read = r.get("other_edits_read")
            rows.append([f"{split} ({entry['role']})", system, f"{r['fixed']} / {r['errors']}", f"{r['fixed_percent']}",
                         str(r["other_edits"]), f"{read['wrong']} ({read['not read']} not read)" if read else "-",
                         kinds])
    return [*table(["split", "corrector", "fixed", "%", "other edits", "of them read wrong", "by kind (fixed/errors)"],
                   rows, {2, 3, 4}), ""]
