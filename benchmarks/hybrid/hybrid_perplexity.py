"""SmolLM2 per-word perplexity on held-out King James verses: base vs hybrid, clean and with typos.

With a ``repair`` policy, ``words_repaired_pct`` is the share of words read as a correction,
``repaired_to_the_clean_word`` how many of those corrections are the verse's own word, and
``repairs_shown`` the first repairs (``written -> correction (clean: the verse's word)``).

Verses: the last N of src/charwise/data/kjv/kjv_verses.txt (Revelation; no charwise component was
trained on KJV text). For every word the model reads the verse up to that word (built by the policy,
with typos in the noisy setting) and predicts the word's *clean* pieces (teacher forcing), so all rows
score the same targets: ``HybridModel.word_log_likelihoods``. Per-word perplexity =
exp(-mean word log-likelihood). ``words_from_characters_pct`` is the share of words the policy
builds from characters (in the context of the words after them), and
``ppl_of_words_from_characters`` the perplexity of those same words as targets (always their clean
pieces; they are the rare, multi-piece words, so this is high under any policy).

Writes benchmarks/results/hybrid_perplexity.json and .png.
Run: HF_HUB_OFFLINE=1 PYTHONPATH=src python -m benchmarks.hybrid.hybrid_perplexity [--verses 300]
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from benchmarks.common.paths import RESULTS
from benchmarks.common.report import write_result
from benchmarks.hybrid.render import (
    render_hybrid_perplexity as render,  # noqa: F401  (make_results reads it)
)
from charwise import HybridModel, Teacher, split_words  # noqa: E402
from charwise.evaluation import noise_config_for  # noqa: E402
from charwise.io import data_root  # noqa: E402
from charwise.typos.single import add_typos  # noqa: E402

WRITES = ("hybrid_perplexity",)
PAGE = "hybrid.md"
BEFORE: dict[str, list[str]] = {
    "hybrid_perplexity_tuned": [
        "head -n -300 src/charwise/data/kjv/kjv_verses.txt > runs/kjv_train.txt",
        "charwise tune runs/kjv_train.txt --teacher smollm2 --encoder smollm2 --objective lm \\",
        "    --out runs/tune-smollm2 --steps 80 --batch-size 8 --eval-every 40 --lr 5e-4",
    ],
}

KJV = data_root() / "kjv" / "kjv_verses.txt"
OUT = RESULTS


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--verses", type=int, default=300)
    ap.add_argument("--policies", default="none,oov,no-suffix")
    ap.add_argument("--typo-rate", type=float, default=0.3)
    ap.add_argument("--encoder", default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--name", default="hybrid_perplexity", help="output file stem under benchmarks/results/")
    args = ap.parse_args()
    result = run(args)
    write_result(OUT / f"{args.name}.json", result, plot)


def run(args: argparse.Namespace) -> dict:
    """Per-word perplexity of every policy on the clean and the typo'd verses."""
    verses = [v for v in KJV.read_text(encoding="utf-8").splitlines() if v.strip()][-args.verses:]
    splits = [split_words(v) for v in verses]
    clean = [s.words for s in splits]
    spaces = [s.space_before for s in splits]
    teacher = Teacher.load("smollm2")
    config = noise_config_for(teacher)
    noisy = [add_typos(w, args.typo_rate, args.seed * 1_000_003 + i, config)[0] for i, w in enumerate(clean)]
    changed = sum(a != b for c, n in zip(clean, noisy) for a, b in zip(c, n))
    total_words = sum(len(c) for c in clean)
    result = {"benchmark": "SmolLM2 per-word perplexity, KJV", "verses": len(verses), "words": total_words,
              "typo_rate": args.typo_rate, "words_changed_pct": round(100 * changed / total_words, 2),
              "encoder": args.encoder or "shipped smollm2", "threads": torch.get_num_threads(),
              "command": "python -m benchmarks.hybrid.hybrid_perplexity"
              + (f" --encoder {args.encoder} --policies {args.policies} --name {args.name}" if args.encoder else ""),
              "rows": []}
    for policy in args.policies.split(","):
        hm = HybridModel.from_teacher(teacher, policy=policy, encoder=args.encoder)
        for setting, context in (("clean", clean), ("typos", noisy)):
            t0 = time.perf_counter()
            lls, picked, repaired = [], [], []
            with torch.inference_mode():
                for k in range(0, len(context), 16):
                    batch = context[k : k + 16]
                    out = hm.word_log_likelihoods(batch, clean[k : k + 16], space_before=spaces[k : k + 16])
                    inputs = hm.prepare(batch, spaces[k : k + 16])
                    for b, (ll, sel) in enumerate(zip(out, inputs.selected)):
                        lls += ll.tolist()
                        picked += sel
                        repaired += [(r.word, r.correction, clean[k + b][i]) for i, r in inputs.repairs[b].items()]
            # A word's own selection does not change its score; it marks the words whose
            # representation changes for everything that follows them.
            sel_ll = [x for x, s in zip(lls, picked) if s]
            row = {"policy": policy, "setting": setting, "ppl": round(math.exp(-sum(lls) / len(lls)), 3),
                   "words_from_characters_pct": round(100 * sum(picked) / len(picked), 2),
                   "ppl_of_words_from_characters": round(math.exp(-sum(sel_ll) / len(sel_ll)), 3) if sel_ll else None,
                   "words_repaired_pct": round(100 * len(repaired) / len(picked), 2),
                   "repaired_to_the_clean_word": sum(c == w for _, c, w in repaired),
                   "repairs_shown": [f"{a} -> {c} (clean: {w})" for a, c, w in repaired[:25]],
                   "seconds": round(time.perf_counter() - t0, 1)}
            result["rows"].append(row)
            print(row, flush=True)
    return result


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    policies = list(dict.fromkeys(r["policy"] for r in result["rows"]))
    fig, ax = plt.subplots(figsize=(6, 4))
    for j, setting in enumerate(("clean", "typos")):
        values = [next(r["ppl"] for r in result["rows"] if r["policy"] == p and r["setting"] == setting)
                  for p in policies]
        ax.bar([i + 0.4 * j for i in range(len(policies))], values, width=0.4, label=setting)
    ax.set_xticks([i + 0.2 for i in range(len(policies))], policies)
    ax.set_ylabel("per-word perplexity (lower is better)")
    ax.set_title(f"SmolLM2 on {result['verses']} KJV verses (typo rate {result['typo_rate']})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
