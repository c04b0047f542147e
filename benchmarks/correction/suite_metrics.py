"""The spelling suite's scores: words fixed, changed wrongly, ranked; sentences corrected and damaged."""

from __future__ import annotations

import random
import time
from typing import Any, Callable


def pct(a: float, b: float, digits: int = 2) -> float | None:
    return round(100 * a / b, digits) if b else None


def budgeted(n: int, run: Callable[[int], Any], budget: float, seed: int) -> tuple[dict[int, Any], float]:
    """``run(i)`` for items in a seeded random order until ``budget`` seconds are spent."""
    order = list(range(n))
    random.Random(seed).shuffle(order)
    done: dict[int, Any] = {}
    started = time.perf_counter()
    for i in order:
        if time.perf_counter() - started > budget:
            break
        done[i] = run(i)
    return done, time.perf_counter() - started


def word_scores(items: list[tuple[str, list[str]]], ranked: dict[int, list[str]], output: dict[int, str],
                idx: list[int], real_word: list[bool]) -> dict[str, Any]:
    """Figures over the items ``idx`` (those a system ran): top-1/10, fixed, changed wrongly..."""
    n = len(idx)
    top1 = top10 = fixed = wrong = unchanged = fixed_real = fixed_multi = 0
    fixed_misspelled = misspelled = 0
    for i in idx:
        written, gold = items[i]
        r = [w.lower() for w in ranked[i][:10]]
        out = output[i].lower()
        top1 += bool(r) and r[0] in gold
        top10 += any(w in gold for w in r)
        ok = out in gold
        fixed += ok
        unchanged += out == written.lower()
        wrong += not ok and out != written.lower()
        fixed_real += ok and real_word[i]
        fixed_multi += ok and any(" " in g for g in gold)
        if written.lower() not in gold:
            misspelled += 1
            fixed_misspelled += ok
    return {"n": n, "top1": pct(top1, n), "top10": pct(top10, n), "fixed": pct(fixed, n),
            "changed_wrongly": pct(wrong, n), "unchanged": pct(unchanged, n),
            "fixed_misspelled": pct(fixed_misspelled, misspelled),
            "real_word_errors": sum(real_word[i] for i in idx), "real_word_fixed": fixed_real,
            "multi_word_fixed": fixed_multi}


def sentence_scores(rows: list[tuple[str, str]], output: dict[int, str], idx: list[int]) -> dict[str, Any]:
    """NeuSpell's token metrics over whitespace-aligned tokens, exact and ignoring case."""
    c: dict[str, int] = dict.fromkeys(
        ("exact", "exact_nocase", "unaligned_gold", "unaligned_output", "misspelled", "made_right", "changed_wrongly",
         "correct", "damaged", "misspelled_nocase", "made_right_nocase", "correct_nocase", "damaged_nocase"), 0)
    for i in idx:
        noisy, clean = rows[i][0].split(), rows[i][1].split()
        out = output[i].split()
        c["exact"] += out == clean
        c["exact_nocase"] += [t.lower() for t in out] == [t.lower() for t in clean]
        if len(noisy) != len(clean):
            c["unaligned_gold"] += 1
            continue
        if len(out) != len(noisy):
            c["unaligned_output"] += 1
            continue
        for n, g, o in zip(noisy, clean, out):
            if n != g:
                c["misspelled"] += 1
                c["made_right"] += o == g
                c["changed_wrongly"] += o != g and o != n
            else:
                c["correct"] += 1
                c["damaged"] += o != n
            if n.lower() != g.lower():
                c["misspelled_nocase"] += 1
                c["made_right_nocase"] += o.lower() == g.lower()
            else:
                c["correct_nocase"] += 1
                c["damaged_nocase"] += o.lower() != n.lower()
    n = len(idx)
    return {"sentences": n, **c, "exact_share": pct(c["exact"], n), "exact_nocase_share": pct(c["exact_nocase"], n),
            "correction_rate": pct(c["made_right"], c["misspelled"]),
            "damage": pct(c["damaged"], c["correct"], 3),
            "correction_rate_nocase": pct(c["made_right_nocase"], c["misspelled_nocase"]),
            "damage_nocase": pct(c["damaged_nocase"], c["correct_nocase"], 3)}
