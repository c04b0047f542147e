"""Public spelling benchmarks: charwise's speller beside SymSpell and pyspellchecker, same pairs, same run.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.spelling_suite  # -> results/spelling_suite.json/.png
    OMP_NUM_THREADS=1 python -m benchmarks.correction.spelling_suite --limit 100 --out /tmp/s.json   # quick look
    OMP_NUM_THREADS=1 python -m benchmarks.correction.spelling_suite --sets aspell jfleg_sentences --languages en

The data are the sets of ``shared/data/spelling_benchmarks`` (``--data``; default: the environment
variable ``CHARWISE_SPELLING_BENCHMARKS``, else ``../shared/data/spelling_benchmarks`` from the
repository root); they are read where they are, never copied into the repository (several licences
are non-commercial). Its README says which sets are for development (Norvig's testset1, Tweet-Norm
``*_dev``) and which are test only (everything else); the result file names the role of every set it
ran (``roles``). Nothing is tuned here: every system runs with its defaults.

Systems, all on the same pairs in the same run:

* **charwise**: ``Speller.load(language)`` with its shipped encoder, scorer and default settings (the
  tuned threshold). Ranking: ``Speller.suggest(words, k=10)``. What it *outputs*: ``correct_lines``
  for the misspelling alone, as written (a capitalised word is a sentence start: changed only at
  ``capital_threshold``; the same figure for the lower-cased word is kept as
  ``fixed_lowercase_input``); a known word, a short one, one with a capital inside is left alone.
  ``--context smollm2`` runs the English sets with SmolLM2 judging the words in doubt again.
* **SymSpell**: symspellpy with its bundled ``frequency_dictionary_en_82_765.txt``,
  ``max_dictionary_edit_distance=2``, ``prefix_length=7``, ``lookup(misspelling.lower(),
  Verbosity.ALL, max_edit_distance=2, include_unknown=True)`` (the protocol of the data's
  BASELINES.md); its output is suggestion 1. Spanish: symspellpy ships no Spanish dictionary, so the
  same lookup runs over pyspellchecker's Spanish word frequencies (the list charwise's Spanish
  lexicon is built from).
* **pyspellchecker**: ``SpellChecker(language="en"|"es")`` (distance 2); ranking: ``candidates()``
  ordered by its word frequency; output: ``correction()`` (``None``: the word is left as it is).
  It takes seconds on a long unknown word, so each set runs in a seeded random order until
  ``--pyspell-budget`` seconds are spent (a uniform random subset; its size is recorded, and
  charwise and SymSpell are scored on that same subset too: ``on_pyspell_subset``).

Word sets (``misspelling<TAB>correct``), compared case-insensitively (as BASELINES.md does):
**top-1 / top-10** of the ranking; **fixed** = the output is the intended word (a misspelling left
unchanged is a miss); **changed wrongly** = the output differs from both the misspelling and the
intended word; **unchanged**. Nothing is dropped: real-word errors (the misspelling is a word of a
system's dictionary; counted per dictionary), multi-word targets (``alot`` -> ``a lot``: no system
here outputs a space, so they are misses) and identical pairs (misspelling == intended word, e.g.
SymSpell's distance-0 queries: leaving them alone is right) are counted per set; ``fixed_misspelled``
is *fixed* over the pairs that are not identical. Tweet-Norm test: a word with two annotated forms
(``pairs_test_all_forms.tsv``, 7 words) is right with either.

Sentence sets (``noisy<TAB>clean``): each system's output is split on whitespace and aligned token
by token with the noisy and clean sides (only where the three token counts agree: the sentences
where they do not are counted, ``unaligned_gold`` / ``unaligned_output``). NeuSpell's metrics:
**correction rate** = misspelled tokens (noisy != clean) made exactly right / misspelled tokens;
**damage** = correct tokens changed / correct tokens; **exact** = sentences whose output equals the
clean side token for token (also ignoring case: ``exact_nocase``, DL-typo's "exact queries").
Every token metric is also given ignoring case (``*_nocase``; Tweet-Norm annotates casing).
charwise: ``Speller.correct(text).corrected``, one call per sentence, as a new user would.
SymSpell: each token that is all letters is replaced by its suggestion 1 (lookup as above), in the
token's case pattern (``Becouse`` -> ``Because``); other tokens are left alone. pyspellchecker:
``correction()`` per all-letter token, same case rule, results memoised per word (time-budgeted).

Speed: one thread (``--threads``), words already in memory: words/s of the ranking call per word set
(charwise: ``suggest`` in blocks of 256 with its score cache cleared first; ``correct`` afterwards
reuses those scores and is timed apart), sentences/s per sentence set (charwise's cache cleared
before each set), and the load time of each system.

Published figures beside these (``published`` in the JSON, ``--markdown``) are other people's
numbers, on these sets or not (NeuSpell's BEA-60K), with their source; BASELINES.md's SymSpell run
is an earlier run of the same protocol (a check that this one reproduces it).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib.metadata
import os
import random
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.common.paths import ROOT, SPELLING_DATA
from benchmarks.correction.speller import RESULTS, rss_mb, shipped_symspell, symspell_index
from charwise.speller.corrections import same_case  # noqa: E402  (the baselines take the word's case as charwise does)

SYSTEMS = ("charwise", "SymSpell", "pyspellchecker")
BLOCK = 256  # words per suggest() call when timing

# name: (language, file under the data folder, role)
WORD_SETS: dict[str, tuple[str, str, str]] = {
    "norvig_testset1": ("en", "norvig_spell_testsets/pairs_testset1.tsv", "development"),
    "norvig_testset2": ("en", "norvig_spell_testsets/pairs_testset2.tsv", "test"),
    "aspell": ("en", "aspell_norvig/pairs.tsv", "test"),
    "birkbeck": ("en", "birkbeck_missp/pairs.tsv", "test"),
    "toefl_spell": ("en", "toefl_spell/pairs.tsv", "test"),
    "symspell_noisy_query_1000": ("en", "symspell_noisy_query_1000/pairs.tsv", "test"),
    "jfleg_pairs": ("en", "neuspell_jfleg_spelling/pairs.tsv", "test"),
    "dl_typo_pairs": ("en", "characterbert_dl_typo/pairs.tsv", "test"),
    "wikipedia_es": ("es", "wikipedia_es_languagetool/pairs.tsv", "test"),
    "tweetnorm_es_dev": ("es", "tweetnorm_es/pairs_dev.tsv", "development"),
    "tweetnorm_es_test": ("es", "tweetnorm_es/pairs_test.tsv", "test"),
}
ALL_FORMS = {"tweetnorm_es_test": "tweetnorm_es/pairs_test_all_forms.tsv"}  # gold alternatives joined by |
SENTENCE_SETS: dict[str, tuple[str, str, str]] = {
    "jfleg_sentences": ("en", "neuspell_jfleg_spelling/sentences.tsv", "test"),
    "dl_typo_queries": ("en", "characterbert_dl_typo/sentences.tsv", "test"),
    "tweetnorm_es_dev_tweets": ("es", "tweetnorm_es/sentences_dev.tsv", "development"),
    "tweetnorm_es_test_tweets": ("es", "tweetnorm_es/sentences_test.tsv", "test"),
}

# Other people's figures (never computed here). "same_data": on these very pairs/sentences.
PUBLISHED: dict[str, list[dict[str, Any]]] = {
    "norvig_testset1": [{"system": "Norvig spell.py (big.txt)", "metric": "fixed", "value": 75.0, "same_data": True,
                         "source": "norvig.com/spell-correct.html output: 75% of 270 correct (6% unknown)"}],
    "norvig_testset2": [{"system": "Norvig spell.py (big.txt)", "metric": "fixed", "value": 68.0, "same_data": True,
                         "source": "norvig.com/spell-correct.html output: 68% of 400 correct (11% unknown)"}],
    "aspell": [{"system": "Norvig spell.py", "metric": "fixed", "value": 43.0, "same_data": True,
                "source": "spell.py output quoted in third-party READMEs: 43% of 531 correct (23% unknown)"}],
    "birkbeck": [{"system": "Norvig spell.py", "metric": "fixed", "value": 31.0, "same_data": True,
                  "source": "third-party README (Kaggle birkbeck.txt version): 31% of 36133 correct (11% unknown)"}],
    "toefl_spell": [{"system": "Flor et al. 2019 context-aware model (in context, with the essays)",
                     "metric": "accuracy", "value": 88.12, "same_data": False,
                     "source": "BEA 2019 W19-4407 abstract; uses essay context, not isolated words"}],
    "dl_typo_queries": [
        {"system": "Bing Spell Check API (authors' shipped output)", "metric": "exact queries", "value": 58,
         "of": 60, "same_data": True, "source": "computed from ielab/CharacterBERT-DR query.typo.ms.tsv (SOURCE.md)"},
        {"system": "pyspellchecker (authors' shipped output)", "metric": "exact queries", "value": 27, "of": 60,
         "same_data": True, "source": "computed from ielab/CharacterBERT-DR query.typo.py.tsv (SOURCE.md)"}],
    "jfleg_sentences": [
        {"system": "SymSpell, suggestion 1 per token (project issue)", "metric": "correction rate / damage",
         "value": 67.3, "damage": 0.437, "same_data": True, "source": "reported in the project's issue, same protocol"},
        {"system": "Aspell (NeuSpell README)", "metric": "correction rate", "value": 48.7, "same_data": False,
         "source": "NeuSpell README, BEA-60K (not these sentences)"},
        {"system": "JamSpell (NeuSpell README)", "metric": "correction rate", "value": 68.9, "same_data": False,
         "source": "NeuSpell README, BEA-60K"},
        {"system": "BERT (NeuSpell README)", "metric": "correction rate / damage", "value": 79.1, "damage": 2.2,
         "same_data": False, "source": "NeuSpell README, BEA-60K (word accuracy 96.58 %)"},
        {"system": "SC-LSTM + ELMo (NeuSpell README)", "metric": "correction rate", "value": 79.8,
         "same_data": False, "source": "NeuSpell README, BEA-60K"}],
}
# BASELINES.md (2026-11-25): SymSpell, the same protocol, an earlier run: (top1, top10)
BASELINES_MD = {"norvig_testset1": (74.4, 94.8), "norvig_testset2": (73.5, 92.0), "aspell": (51.2, 74.6),
                "toefl_spell": (73.7, 87.8), "jfleg_pairs": (69.0, 96.7), "dl_typo_pairs": (58.3, 91.7),
                "birkbeck": (33.3, 50.4), "symspell_noisy_query_1000": (57.0, 75.1)}


# --- data ----------------------------------------------------------------------------------------
def default_data() -> Path:
    return SPELLING_DATA


def read_tsv(path: Path) -> list[tuple[str, str]]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) < 2:
            raise SystemExit(f"{path}:{n}: expected two tab-separated columns")
        rows.append((cells[0], cells[1]))
    return rows


def sample(n: int, limit: int | None, seed: int) -> list[int]:
    """Indices of the items to run: all, or a seeded sample of ``limit`` (in file order)."""
    if limit is None or limit >= n:
        return list(range(n))
    return sorted(random.Random(seed).sample(range(n), limit))


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


# --- systems -------------------------------------------------------------------------------------
class Baselines:
    """SymSpell and pyspellchecker for one language, with their load times."""

    def __init__(self, language: str) -> None:
        from spellchecker import SpellChecker

        class Memoised(SpellChecker):  # one computation of candidates per word: correction() asks again
            def __init__(self, language: str) -> None:
                super().__init__(language=language)
                self.seen: dict[str, Any] = {}

            def candidates(self, word: str) -> Any:
                if word not in self.seen:
                    self.seen[word] = super().candidates(word)
                return self.seen[word]

        started = time.perf_counter()
        self.pyspell = Memoised(language)
        self.pyspell_load = time.perf_counter() - started
        started = time.perf_counter()
        if language == "en":
            self.symspell = shipped_symspell()
            self.symspell_dictionary = "symspellpy frequency_dictionary_en_82_765.txt"
        else:
            self.symspell = symspell_index(self.pyspell.word_frequency.dictionary.items())
            self.symspell_dictionary = "pyspellchecker's Spanish word frequencies (symspellpy ships none)"
        self.symspell_load = time.perf_counter() - started
        self.symspell_words = self.symspell.words

    def symspell_lookup(self, word: str) -> list[str]:
        from symspellpy import Verbosity

        return [s.term for s in self.symspell.lookup(word.lower(), Verbosity.ALL, max_edit_distance=2,
                                                     include_unknown=True)]

    def pyspell_ranked(self, word: str) -> list[str]:
        found = self.pyspell.candidates(word.lower()) or set()
        return sorted(found, key=lambda c: (-self.pyspell.word_usage_frequency(c), c))

    def pyspell_correction(self, word: str) -> str:
        return self.pyspell.correction(word.lower()) or word

    def pyspell_knows(self, word: str) -> bool:
        return bool(self.pyspell.known([word.lower()]))

    def symspell_token(self, token: str) -> str:
        if not token.isalpha():
            return token
        best = self.symspell_lookup(token)[0]
        return token if best == token.lower() else same_case(token, best)

    def pyspell_token(self, token: str) -> str:
        if not token.isalpha():
            return token
        best = self.pyspell_correction(token)
        return token if best.lower() == token.lower() else same_case(token, best)


# --- word sets -----------------------------------------------------------------------------------
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


def run_word_set(name: str, items: list[tuple[str, list[str]]], speller: Any, base: Baselines,
                 args: argparse.Namespace) -> dict[str, Any]:
    words = [w for w, _ in items]
    all_idx = list(range(len(items)))
    known = {"charwise": [speller.lexicon.knows(w) for w in words],
             "SymSpell": [w.lower() in base.symspell_words for w in words],
             "pyspellchecker": [base.pyspell_knows(w) for w in words]}
    gold_known = {"charwise": sum(any(g in speller.lexicon.entries for g in gold) for _, gold in items),
                  "SymSpell": sum(any(g in base.symspell_words for g in gold) for _, gold in items),
                  "pyspellchecker": sum(any(base.pyspell_knows(g) for g in gold if " " not in g)
                                        for _, gold in items)}
    counts = {"n": len(items), "identical": sum(w.lower() in gold for w, gold in items),
              "multi_word_target": sum(any(" " in g for g in gold) for _, gold in items),
              "multi_word_misspelling": sum(" " in w.strip() for w in words),
              "real_word_errors": {s: sum(k) for s, k in known.items()},
              "gold_in_dictionary": gold_known}
    systems: dict[str, Any] = {}
    # charwise
    speller.clear_cache()
    started = time.perf_counter()
    ranked: dict[int, list[str]] = {}
    for start in range(0, len(words), BLOCK):
        for j, ss in enumerate(speller.suggest(words[start : start + BLOCK], k=10)):
            ranked[start + j] = [s.word for s in ss]
    rank_seconds = time.perf_counter() - started
    started = time.perf_counter()
    corrected = speller.correct_lines(words)
    correct_seconds = time.perf_counter() - started
    output = {i: c.corrected for i, c in enumerate(corrected)}
    lower = {i: c.corrected for i, c in enumerate(speller.correct_lines([w.lower() for w in words]))}
    entry = word_scores(items, ranked, output, all_idx, known["charwise"])
    entry["fixed_lowercase_input"] = word_scores(items, ranked, lower, all_idx, known["charwise"])["fixed"]
    entry["left_without_a_look"] = sum(not any(w.looked_at for w in c.words) for c in corrected)
    entry["seconds"] = round(rank_seconds, 3)
    entry["words_per_second"] = round(len(words) / rank_seconds, 1)
    entry["correct_seconds_after_suggest"] = round(correct_seconds, 3)
    systems["charwise"] = entry
    charwise_out = (ranked, output)
    # SymSpell
    started = time.perf_counter()
    sym_ranked = {i: base.symspell_lookup(w) for i, w in enumerate(words)}
    seconds = time.perf_counter() - started
    sym_out = {i: (r[0] if r else words[i]) for i, r in sym_ranked.items()}
    entry = word_scores(items, sym_ranked, sym_out, all_idx, known["SymSpell"])
    entry["seconds"], entry["words_per_second"] = round(seconds, 3), round(len(words) / seconds, 1)
    if name in BASELINES_MD:
        entry["baselines_md_top1_top10"] = list(BASELINES_MD[name])
    systems["SymSpell"] = entry
    # pyspellchecker, time-budgeted
    done, seconds = budgeted(len(words), lambda i: (base.pyspell_ranked(words[i]),
                                                    base.pyspell_correction(words[i])), args.pyspell_budget,
                             args.seed)
    sub = sorted(done)
    entry = word_scores(items, {i: r for i, (r, _) in done.items()}, {i: o for i, (_, o) in done.items()}, sub,
                        known["pyspellchecker"])
    entry["subset"] = f"seeded random order (seed {args.seed}) within {args.pyspell_budget:g} s: {len(sub)} of " \
                      f"{len(words)}"
    entry["seconds"], entry["words_per_second"] = round(seconds, 3), round(len(sub) / max(seconds, 1e-9), 1)
    if len(sub) < len(words):
        entry["on_pyspell_subset"] = {
            "charwise": word_scores(items, charwise_out[0], charwise_out[1], sub, known["charwise"]),
            "SymSpell": word_scores(items, sym_ranked, sym_out, sub, known["SymSpell"])}
    systems["pyspellchecker"] = entry
    return {"counts": counts, "systems": systems}


# --- sentence sets -------------------------------------------------------------------------------
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


def run_sentence_set(rows: list[tuple[str, str]], speller: Any, base: Baselines,
                     args: argparse.Namespace) -> dict[str, Any]:
    all_idx = list(range(len(rows)))
    noisy = [r[0] for r in rows]
    counts = {"sentences": len(rows), "tokens": sum(len(t.split()) for t in noisy),
              "unaligned_gold": sum(len(a.split()) != len(b.split()) for a, b in rows),
              "unchanged_pairs": sum(a.split() == b.split() for a, b in rows)}
    systems: dict[str, Any] = {}
    speller.clear_cache()
    started = time.perf_counter()
    charwise_out = {i: speller.correct(t).corrected for i, t in enumerate(noisy)}
    seconds = time.perf_counter() - started
    systems["charwise"] = {**sentence_scores(rows, charwise_out, all_idx), "seconds": round(seconds, 3),
                           "sentences_per_second": round(len(rows) / seconds, 1)}
    started = time.perf_counter()
    sym_out = {i: " ".join(base.symspell_token(t) for t in s.split()) for i, s in enumerate(noisy)}
    seconds = time.perf_counter() - started
    systems["SymSpell"] = {**sentence_scores(rows, sym_out, all_idx), "seconds": round(seconds, 3),
                           "sentences_per_second": round(len(rows) / seconds, 1)}
    done, seconds = budgeted(len(rows), lambda i: " ".join(base.pyspell_token(t) for t in noisy[i].split()),
                             args.pyspell_budget, args.seed)
    sub = sorted(done)
    entry = {**sentence_scores(rows, done, sub), "seconds": round(seconds, 3),
             "sentences_per_second": round(len(sub) / max(seconds, 1e-9), 1),
             "subset": f"seeded random order (seed {args.seed}) within {args.pyspell_budget:g} s: {len(sub)} of "
                       f"{len(rows)}"}
    if len(sub) < len(rows):
        entry["on_pyspell_subset"] = {"charwise": sentence_scores(rows, charwise_out, sub),
                                      "SymSpell": sentence_scores(rows, sym_out, sub)}
    systems["pyspellchecker"] = entry
    examples = [{"noisy": noisy[i], "clean": rows[i][1], "charwise": charwise_out[i]} for i in all_idx[:5]]
    return {"counts": counts, "systems": systems, "examples": examples}


# --- the run -------------------------------------------------------------------------------------
def load_items(data: Path, name: str, limit: int | None, seed: int) -> tuple[list[Any], list[int], int]:
    language, rel, _ = WORD_SETS.get(name) or SENTENCE_SETS[name]
    rows = read_tsv(data / rel)
    idx = sample(len(rows), limit, seed)
    if name in SENTENCE_SETS:
        return [rows[i] for i in idx], idx, len(rows)
    forms = None
    if name in ALL_FORMS:
        forms = read_tsv(data / ALL_FORMS[name])
        if [w for w, _ in forms] != [w for w, _ in rows]:
            raise SystemExit(f"{ALL_FORMS[name]} does not list the words of {rel} in order")
    items = []
    for i in idx:
        written, gold = rows[i]
        alternatives = forms[i][1].split("|") if forms else [gold]
        items.append((written.strip(), [g.strip().lower() for g in alternatives]))
    return items, idx, len(rows)


def run(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    from charwise.speller import Speller

    data = Path(args.data)
    if not (data / "README.md").is_file():
        raise SystemExit(f"no spelling benchmarks at {data} (give --data or set CHARWISE_SPELLING_BENCHMARKS)")
    names = args.sets or [*WORD_SETS, *SENTENCE_SETS]
    unknown = [n for n in names if n not in WORD_SETS and n not in SENTENCE_SETS]
    if unknown:
        raise SystemExit(f"unknown sets {unknown}; known: {[*WORD_SETS, *SENTENCE_SETS]}")
    result: dict[str, Any] = {"roles": {}, "files": {}, "word_sets": {}, "sentence_sets": {}, "load_seconds": {},
                              "speller": {}, "symspell_dictionary": {}}
    for language in args.languages:
        todo = [n for n in names if (WORD_SETS.get(n) or SENTENCE_SETS[n])[0] == language]
        if not todo:
            continue
        started = time.perf_counter()
        speller = Speller.load(language, context=args.context if language == "en" else None)
        speller.index.symspell  # noqa: B018 (build the candidate index now: part of the load)
        load = {"charwise": round(time.perf_counter() - started, 2)}
        base = Baselines(language)
        load["SymSpell"], load["pyspellchecker"] = round(base.symspell_load, 2), round(base.pyspell_load, 2)
        result["load_seconds"][language] = load
        result["symspell_dictionary"][language] = base.symspell_dictionary
        result["speller"][language] = {"threshold": speller.threshold,
                                       "capital_threshold": speller.settings.capital_threshold,
                                       "lexicon_words": len(speller.lexicon)}
        print(f"{language}: loaded {load}", file=sys.stderr)
        speller.correct_lines(["Teh firts call warms up", "El corazon"])  # not timed: first-call costs
        for name in todo:
            _, rel, role = WORD_SETS.get(name) or SENTENCE_SETS[name]
            result["roles"][name] = role
            result["files"][name] = rel
            items, idx, total = load_items(data, name, args.limit, args.seed)
            base.pyspell.seen.clear()  # pyspellchecker's memo is per set, like charwise's score cache
            started = time.perf_counter()
            if name in WORD_SETS:
                entry = run_word_set(name, items, speller, base, args)
            else:
                entry = run_sentence_set(items, speller, base, args)
            entry.update(language=language, role=role, in_file=total,
                         limit=None if len(idx) == total else f"seeded sample (seed {args.seed}) of {len(idx)}")
            entry["wall_seconds"] = round(time.perf_counter() - started, 1)
            (result["word_sets"] if name in WORD_SETS else result["sentence_sets"])[name] = entry
            print(name, summary(entry), f"{entry['wall_seconds']} s", file=sys.stderr)
        del speller, base
        gc.collect()
    result["published"] = {k: v for k, v in PUBLISHED.items() if k in result["roles"]}
    result["threads"] = torch.get_num_threads()
    result["peak_rss_mb"] = round(rss_mb())
    return result


def summary(entry: dict[str, Any]) -> str:
    s = entry["systems"]
    if "top1" in s["charwise"]:
        return " | ".join(f"{k}: fixed {v['fixed']} top1 {v['top1']} top10 {v['top10']} (n {v['n']})"
                          for k, v in s.items())
    return " | ".join(f"{k}: rate {v['correction_rate']} damage {v['damage']} exact {v['exact']}/{v['sentences']}"
                      for k, v in s.items())


def versions() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for package in ("charwise", "symspellpy", "pyspellchecker", "torch"):
        try:
            out[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            out[package] = None
    try:
        out["git_commit"] = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                                           check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "src"], cwd=ROOT, capture_output=True, text=True,
                               check=True).stdout.splitlines()
        out["src_files_changed_since_commit"] = len(dirty)
    except (OSError, subprocess.CalledProcessError):
        out["git_commit"] = None
    return out


# --- report --------------------------------------------------------------------------------------
def plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    words = result["word_sets"]
    jfleg = result["sentence_sets"].get("jfleg_sentences")
    fig, axes = plt.subplots(1, 2 if jfleg else 1, figsize=(16 if jfleg else 12, 5.5), squeeze=False,
                             gridspec_kw={"width_ratios": [3, 1]} if jfleg else None)
    colours = {"charwise": "#36c", "SymSpell": "#e80", "pyspellchecker": "#999"}
    ax = axes[0][0]
    names = list(words)
    width = 0.27
    for k, system in enumerate(SYSTEMS):
        xs = [i + (k - 1) * width for i in range(len(names))]
        vals = [words[n]["systems"][system]["fixed"] or 0 for n in names]
        ax.bar(xs, vals, width, label=system, color=colours[system])
        for x, v in zip(xs, vals):
            ax.text(x, v + 0.8, f"{v:.0f}", ha="center", fontsize=7)
    labels = [f"{n}\n({'dev' if words[n]['role'] == 'development' else 'test'}, n={words[n]['counts']['n']})"
              for n in names]
    ax.set_xticks(range(len(names)), labels, rotation=35, ha="right", fontsize=8)
    ax.set_ylim(0, 105)
    ax.set_ylabel("fixed: output is the intended word (%)")
    ax.set_title("Word sets: what each corrector outputs (pyspellchecker on a time-budgeted random subset)")
    ax.legend(loc="upper right", fontsize=8)
    if jfleg:
        ax = axes[0][1]
        for system in SYSTEMS:
            e = jfleg["systems"][system]
            ax.scatter(e["damage"], e["correction_rate"], s=70, color=colours[system], zorder=3,
                       label=f"{system}: {e['correction_rate']:.1f} % / {e['damage']:.3f} %")
        for ref in result["published"].get("jfleg_sentences", []):
            if ref["same_data"] and "damage" in ref:
                ax.scatter(ref["damage"], ref["value"], s=70, marker="x", color="k", zorder=4,
                           label=f"SymSpell as reported (project issue,\nnot this run): {ref['value']} % / "
                                 f"{ref['damage']} %")
        damages = [jfleg["systems"][s]["damage"] or 0 for s in SYSTEMS]
        ax.set_xlim(0, max(0.5, *damages) * 1.25)
        ax.legend(loc="lower right", fontsize=7, title="correction rate / damage", title_fontsize=7)
        ax.set_xlabel("damage: correct tokens changed (%)")
        ax.set_ylabel("correction rate: misspelled tokens made right (%)")
        ax.set_title(f"JFLEG spelling ({jfleg['counts']['sentences']} sentences)")
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default=str(default_data()), help="the spelling_benchmarks folder")
    p.add_argument("--sets", nargs="+", help=f"sets to run (default: all): {', '.join([*WORD_SETS, *SENTENCE_SETS])}")
    p.add_argument("--languages", nargs="+", default=["en", "es"], choices=["en", "es"])
    p.add_argument("--limit", type=int, help="at most N items per set (a seeded sample)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--pyspell-budget", type=float, default=60.0, help="seconds of pyspellchecker per set")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--context", default="ngram", choices=["ngram", "smollm2"],
                   help="charwise's context for English (smollm2: SmolLM2 judges the words in doubt again)")
    p.add_argument("--out", help="output JSON (default: results/spelling_suite.json; the chart beside it, .png)")
    p.add_argument("--markdown", metavar="JSON", help="only print the doc's tables from a result file")
    p.add_argument("--replot", metavar="JSON", help="only redraw the chart of a result file (beside it, .png)")
    args = p.parse_args(argv)
    import json

    if args.markdown:
        print(markdown(json.loads(Path(args.markdown).read_text(encoding="utf-8"))))
        return 0
    if args.replot:
        plot(json.loads(Path(args.replot).read_text(encoding="utf-8")), Path(args.replot).with_suffix(".png"))
        return 0
    if args.limit is not None and args.limit < 1:
        p.error("--limit must be at least 1")
    import torch

    from charwise.io import write_json

    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    result = run(args)
    given = sys.argv[1:] if argv is None else argv
    result = {"command": "OMP_NUM_THREADS=1 python -m benchmarks.correction.spelling_suite" + (
        " " + shlex.join(given) if given else ""), "date": datetime.date.today().isoformat(),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"), "context": args.context, "limit": args.limit,
        "seed": args.seed,
        "pyspell_budget_seconds": args.pyspell_budget, "data": str(args.data), "versions": versions(), **result}
    result["wall_seconds"] = round(time.perf_counter() - started, 1)
    out = Path(args.out) if args.out else RESULTS / "spelling_suite.json"
    write_json(out, result)
    plot(result, out.with_suffix(".png"))
    print(markdown(result))
    print(f"wrote {out} in {result['wall_seconds']} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
