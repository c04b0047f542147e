"""Downstream check of vocabulary expansion: WNUT 2017 NER with MiniLM, after adding the words of
the WNUT17 raw tweets (src/charwise/data/wnut17/raw_text, min-count 5) with each method, vs no expansion.

Each method expands MiniLM with ``charwise expand`` into runs/expansion_ner/<method>/model, then
the word-level tagger of ``benchmarks/tagging/tagging.py`` (its ``run_one``, setting ``base-first``: policy none,
first-piece pooling, linear head) is fine-tuned on that model with the same reduced protocol as
benchmarks/results/tagging.json (defaults below) and scored on the full test set, clean and with
typos. Results: benchmarks/results/expansion_ner.json (+ .png); resumable (finished runs are kept).

Run: HF_HUB_OFFLINE=1 PYTHONPATH=src python -m benchmarks.expansion.expansion_ner [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from benchmarks.common.paths import RESULTS
from benchmarks.expansion.render import render_expansion_ner as render  # noqa: F401  (make_results reads it)
from benchmarks.tagging import tagging as tagging_benchmark  # noqa: E402
from charwise.cli import main as charwise_main  # noqa: E402
from charwise.io import data_root, write_json  # noqa: E402
from charwise.tagging.data import load_task  # noqa: E402

WRITES = ("expansion_ner",)
PAGE = "expansion.md"

OUT = RESULTS / "expansion_ner.json"
METHODS = ["none", "mean", "char", "mixture", "joint", "char+joint"]


def expanded_model(method: str, work: Path) -> str:
    if method == "none":
        return "minilm"
    target = work / method / "model"
    if not (target / "config.json").exists():
        code = charwise_main(["expand", "--teacher", "minilm", "--corpus", str(data_root() / "wnut17/raw_text"),
                              "--min-count", "5", "--method", method, "--vectors", "glove50", "--out", str(target),
                              "--force"])
        if code != 0:
            raise SystemExit(f"charwise expand failed for {method}")
    return str(target)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--methods", nargs="+", default=METHODS)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--noise", type=float, nargs="+", default=[0.0, 0.2])
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--train-sentences", type=int, default=2000)
    ap.add_argument("--dev-sentences", type=int, default=400)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--head-lr", type=float, default=1e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--work", default="runs/expansion_ner")
    args = ap.parse_args()
    plot(run(args))


def run(args: argparse.Namespace) -> dict:
    """Every (seed, method) the JSON does not hold yet, the JSON rewritten after each (so a stopped run
    resumes): all runs and their rows."""
    torch.set_num_threads(args.threads)
    work = Path(args.work)
    results = json.loads(OUT.read_text()) if OUT.exists() else {"runs": []}
    results["protocol"] = {"task": "wnut17", "setting": "base-first", "epochs": args.epochs,
                           "train_sentences": args.train_sentences, "dev_sentences": args.dev_sentences,
                           "lr": args.lr, "head_lr": args.head_lr, "batch_size": 16, "patience": 2,
                           "noise": args.noise,
                           "expansion": "--corpus data/wnut17/raw_text --min-count 5 --vectors glove50",
                           "command": "python -m benchmarks.expansion.expansion_ner --seeds "
                           + " ".join(map(str, args.seeds))}
    data = load_task("wnut17")
    for seed in args.seeds:
        for method in args.methods:
            if any(r["method"] == method and r["seed"] == seed for r in results["runs"]):
                continue
            teacher = expanded_model(method, work)
            run_args = argparse.Namespace(teacher=teacher, epochs=args.epochs, max_steps=0,
                                          train_sentences=args.train_sentences, dev_sentences=args.dev_sentences,
                                          batch_size=16, lr=args.lr, head_lr=args.head_lr, patience=2,
                                          work=str(work / method / "tagging"), test_sentences=0, noise=args.noise,
                                          keep_models=False, test_policies=[])
            t0 = time.time()
            [record] = tagging_benchmark.run_one("wnut17", "base-first", seed, run_args, data)  # no test policies
            record.update(method=method, minutes=round((time.time() - t0) / 60, 2))
            results["runs"].append(record)
            print(method, seed, {k: round(v["score"], 4) for k, v in record["test"].items()}, flush=True)
            results["rows"] = rows(results["runs"])
            write_json(OUT, results)  # after every run: an interrupted benchmark resumes from here
    return results


def rows(runs: list[dict]) -> list[dict]:
    out = []
    for method in dict.fromkeys(r["method"] for r in runs):
        group = [r for r in runs if r["method"] == method]
        for noise in group[0]["test"]:
            scores = [r["test"][noise]["score"] for r in group]
            multi = [r["test"][noise]["acc_multi"] for r in group]
            out.append({"method": method, "noise": float(noise), "seeds": [r["seed"] for r in group],
                        "test_f1": {"mean": statistics.fmean(scores), "std": statistics.pstdev(scores)},
                        "acc_multi": {"mean": statistics.fmean(multi), "std": statistics.pstdev(multi)},
                        "dev_f1": statistics.fmean(r["dev"] for r in group)})
    return out


def plot(results: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = results.get("rows", [])
    methods = list(dict.fromkeys(r["method"] for r in table))
    noises = sorted({r["noise"] for r in table})
    fig, ax = plt.subplots(figsize=(7, 4))
    for k, noise in enumerate(noises):
        vals = [next(100 * r["test_f1"]["mean"] for r in table if r["method"] == m and r["noise"] == noise)
                for m in methods]
        ax.bar([i + 0.4 * k for i in range(len(methods))], vals, width=0.4, label=f"typo rate {noise:g}")
    ax.set_xticks([i + 0.2 for i in range(len(methods))], methods)
    ax.set_ylabel("WNUT17 test entity F1 x 100")
    ax.set_title("MiniLM NER after vocabulary expansion from WNUT17 raw tweets")
    ax.legend()
    fig.tight_layout()
    fig.savefig(OUT.with_suffix(".png"), dpi=110)


if __name__ == "__main__":
    main()
