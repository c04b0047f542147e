"""What the ``repair`` policy costs on clean text: sentence-vector time against the base model.

Texts: UD EWT test (2,077 edited sentences) and the first 1,000 WNUT17 test tweets (many words no
dictionary knows: names, slang), clean as written. For each corpus, ``SentenceEncoder("minilm")``
with policy ``none`` (the base model) and ``repair`` encode the same texts, batch size 32,
interleaved 3 times (medians kept): ``repair_cold`` starts with the speller's score cache empty (every
unknown word is scored), ``repair_warm`` runs again with it filled. The speller's one-off loading
time (lexicon, candidate index, vectors; cached on disk after the first run) is reported apart, as are
the share of words the speller looked at and the share it repaired.

Writes benchmarks/results/repair_speed.json and .png.
Run: OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1 python -m benchmarks.hybrid.repair_speed
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from benchmarks.common.paths import RESULTS
from benchmarks.common.retrieval import EWT_TEST, ewt_texts
from benchmarks.hybrid.render import render_repair_speed as render  # noqa: F401  (make_results reads it)
from charwise import SentenceEncoder  # noqa: E402
from charwise.corpora import read_sentences  # noqa: E402
from charwise.io import data_root, write_json  # noqa: E402
from charwise.speller.repair import shared_speller  # noqa: E402
from charwise.words import split_words  # noqa: E402

WRITES = ("repair_speed",)
PAGE = "hybrid.md"

OUT = RESULTS


def timed(fn, *args) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    result = run(args)
    OUT.mkdir(parents=True, exist_ok=True)
    write_json(OUT / "repair_speed.json", result)
    plot(result, OUT / "repair_speed.png")


def run(args: argparse.Namespace) -> dict:
    """Encoding times of ``none`` and ``repair`` on each corpus, and what the speller looked at and repaired."""
    corpora = {
        "ewt-test": ewt_texts(EWT_TEST),
        "wnut17-test": [" ".join(s) for s in read_sentences(data_root() / "wnut17/emerging.test.annotated",
                                                              comments=True)[:1000]],
    }
    t0 = time.perf_counter()
    speller = shared_speller("en")
    speller.index.symspell  # noqa: B018  (the symmetric-delete index is built on first use)
    load_s = time.perf_counter() - t0
    base = SentenceEncoder("minilm", policy="none")
    repair = SentenceEncoder("minilm", policy="repair")
    result: dict = {"benchmark": "repair policy speed on clean text", "threads": torch.get_num_threads(),
                    "command": "python -m benchmarks.hybrid.repair_speed", "batch_size": 32, "repeats": args.repeats,
                    "speller_load_s": round(load_s, 2), "corpora": {}}
    for name, texts in corpora.items():
        base.encode(texts[:64])  # warm-up of the model itself
        runs: dict[str, list[float]] = {"none": [], "repair_cold": [], "repair_warm": []}
        for _ in range(args.repeats):  # interleaved: a change in machine load hits every row alike
            runs["none"].append(timed(base.encode, texts))
            speller.clear_cache()
            runs["repair_cold"].append(timed(repair.encode, texts))
            runs["repair_warm"].append(timed(repair.encode, texts))
        medians = {k: statistics.median(v) for k, v in runs.items()}
        words = [split_words(t).words for t in texts]
        looked = sum(sum(speller.looked_at(w)) for w in words)
        with torch.inference_mode():
            repaired = sum(len(r) for k in range(0, len(texts), 256)
                           for r in repair.hybrid.prepare_texts(texts[k : k + 256]).repairs)
        total = sum(len(w) for w in words)
        row = {"texts": len(texts), "words": total, "looked_at_pct": round(100 * looked / total, 3),
               "repaired_pct": round(100 * repaired / total, 3),
               **{f"{k}_s": round(v, 3) for k, v in medians.items()},
               "added_cold_pct": round(100 * (medians["repair_cold"] / medians["none"] - 1), 1),
               "added_warm_pct": round(100 * (medians["repair_warm"] / medians["none"] - 1), 1),
               "runs": {k: [round(x, 3) for x in v] for k, v in runs.items()}}
        result["corpora"][name] = row
        print(name, row, flush=True)
    return result


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(result["corpora"])
    keys = ["none_s", "repair_cold_s", "repair_warm_s"]
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for k, key in enumerate(keys):
        ax.bar([i + 0.27 * (k - 1) for i in range(len(names))], [result["corpora"][n][key] for n in names], 0.27,
               label=key[:-2])
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("seconds to encode (median)")
    ax.set_title(f"repair on clean text, MiniLM sentence vectors ({result['threads']} thread(s)); "
                 f"speller load {result['speller_load_s']} s", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
