"""How fast the speller starts and how fast it works, beside SymSpell, on one thread.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.speller_speed  # -> benchmarks/results/speller_speed.json + .png

* **start-up**: ``charwise correct --text WORD`` (English and Spanish) as a user runs it, in a fresh
  process with warm caches (one run first to fill them): wall seconds and peak resident memory
  (the child's ``ru_maxrss``), the median of ``--repeats`` runs; and ``import charwise``.
* **misspelled words per second**: the test half of Wikipedia's list of common misspellings
  (lower-case, alphabetic, each once), ranked by ``Speller.suggest`` in blocks of 256 (scores
  computed anew), against SymSpell's ranked look-up (``Verbosity.ALL``, distance 2) over its own
  82k-word dictionary and over the speller's lexicon, on the same words in the same process.
* **clean words per second**: ``Speller.correct_lines`` on the UD English-EWT test sentences,
  everything computed anew (``clear_cache``), the median of three passes (almost every word is
  known: the lexicon answers).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common.paths import RESULTS
from benchmarks.common.report import pyplot, write_result
from benchmarks.correction.render import (
    render_speller_speed as render,  # noqa: F401  (make_results reads it)
)

WRITES = ("speller_speed",)
PAGE = "correction-experiments.md"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
WORDS = {"en": "I recieved it", "es": "despues de la fista"}


def run_child(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, peak resident MB) of one child process run to its end."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with {child.returncode}")
    return seconds, usage.ru_maxrss / 1024


def start_up(repeats: int) -> dict[str, Any]:
    charwise = str(Path(sys.executable).with_name("charwise"))
    result: dict[str, Any] = {}
    for language, text in WORDS.items():
        argv = [charwise, "correct", "--language", language, "--text", text]
        run_child(argv)  # fills the caches (lexicon, index, vectors, teacher rows) if they are cold
        runs = [run_child(argv) for _ in range(repeats)]
        result[f"correct {language}"] = {"seconds": round(statistics.median(s for s, _ in runs), 2),
                                         "peak_mb": round(statistics.median(m for _, m in runs))}
        print(language, result[f"correct {language}"], flush=True)
    runs = [run_child([sys.executable, "-c", "import charwise"]) for _ in range(repeats)]
    python_alone = [run_child([sys.executable, "-c", "pass"]) for _ in range(repeats)]
    result["import charwise"] = {"seconds": round(statistics.median(s for s, _ in runs)
                                                  - statistics.median(s for s, _ in python_alone), 3)}
    return result


def misspelled_words() -> list[str]:
    from charwise.typos.wikipedia import list_half, load_wikipedia_pairs

    words = {b.strip().lower() for b, g in load_wikipedia_pairs() if list_half(g) == "test"}
    return sorted(w for w in words if w.isalpha())


def symspell_index(words_counts: Any) -> Any:
    from symspellpy import SymSpell
    from symspellpy.editdistance import DistanceAlgorithm, EditDistance

    index = SymSpell(2, 7, distance_comparer=EditDistance(DistanceAlgorithm.DAMERAU_OSA_FAST))
    for w, c in words_counts:
        index.create_dictionary_entry(w, c)
    return index


def words_per_second(run: Any, words: list[str]) -> float:
    started = time.perf_counter()
    run(words)
    return len(words) / (time.perf_counter() - started)


def working_speed() -> dict[str, Any]:
    import symspellpy
    from symspellpy import Verbosity

    from charwise.speller import Speller
    from charwise.tagging.data import load_task

    speller = Speller.load("en")
    words = misspelled_words()

    def charwise_suggest(ws: list[str]) -> None:
        speller.clear_cache()
        for start in range(0, len(ws), 256):
            speller.suggest(ws[start : start + 256])

    def symspell(index: Any) -> Any:
        return lambda ws: [index.lookup(w, Verbosity.ALL, 2) for w in ws]

    # charwise first: SymSpell's indexes hold millions of Python objects, which would make every
    # garbage collection in the speller's measurement slower
    charwise_suggest(words[:256])  # first use: the index and the context model are mapped in
    rates = {"charwise speller": words_per_second(charwise_suggest, words)}
    lines = [" ".join(s.words) for s in load_task("ewt-upos", splits=("test",)).test]
    clean_rates = []
    for _ in range(3):  # everything computed anew each time; the median
        speller.clear_cache()
        started = time.perf_counter()
        clean_words = sum(len(c.words) for c in speller.correct_lines(lines))
        clean_rates.append(clean_words / (time.perf_counter() - started))
    clean = statistics.median(clean_rates)
    path = Path(symspellpy.__file__).parent / "frequency_dictionary_en_82_765.txt"
    with open(path, encoding="utf-8") as f:
        shipped = symspell_index((line.split()[0], int(line.split()[1])) for line in f if line.strip())
    rates["SymSpell (its 82k dictionary)"] = words_per_second(symspell(shipped), words)
    del shipped
    same = symspell_index((w, max(1, int(10 ** e.zipf))) for w, e in speller.lexicon.entries.items())
    rates["SymSpell (the speller's lexicon)"] = words_per_second(symspell(same), words)
    print({k: round(v) for k, v in rates.items()}, "clean", round(clean), flush=True)
    return {"misspelled_words": len(words), "lexicon_words": len(speller.lexicon),
            "misspelled_words_per_second": {k: round(v) for k, v in rates.items()},
            "clean_words": clean_words, "clean_words_per_second": round(clean)}


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()

    rates = result["misspelled_words_per_second"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
    left.barh(list(rates), list(rates.values()), color=["tab:blue", "tab:grey", "tab:grey"])
    left.set_xlabel("misspelled words / s (one thread)")
    start = {k: v for k, v in result["start_up"].items() if k.startswith("correct")}
    right.bar(list(start), [v["seconds"] for v in start.values()], color="tab:blue")
    right.set_ylabel("seconds, one word, warm cache")
    for i, v in enumerate(start.values()):
        right.annotate(f"{v['peak_mb']} MB", (i, v["seconds"]), ha="center", va="bottom")
    fig.suptitle("charwise speller: start-up and speed beside SymSpell")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each start-up measurement (median)")
    parser.add_argument("--out", type=Path, default=RESULTS / "speller_speed.json")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")
    command = " ".join(["OMP_NUM_THREADS=1 python -m benchmarks.correction.speller_speed", *sys.argv[1:]])
    return write_result(args.out, {"command": command, **run(args)}, plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Start-up (median of ``--repeats`` fresh processes) and working speed, on this machine."""
    return {"machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
            "threads": os.environ.get("OMP_NUM_THREADS", "unset"),
            "start_up": start_up(args.repeats), **working_speed()}


if __name__ == "__main__":
    sys.exit(main())
