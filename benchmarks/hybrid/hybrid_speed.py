"""Sequence length and speed of hybrid models against their base model.

* Length: mean positions per sentence (special tokens included) under each policy, MiniLM and
  SmolLM2, on WNUT17 train and UD EWT test.
* Speed: wall time to encode the same 1,000 WNUT17 test sentences with all-MiniLM-L6-v2 sentence
  pooling, base (plain transformers: tokenizer on raw text, model, pooling) vs hybrid
  (``SentenceEncoder`` with policy oov), batch size 32, CPU, measured in one run,
  interleaving base, hybrid with empty caches (cold) and hybrid again (warm) 3 times and keeping
  medians. A cold pass pays for tokenising and character-encoding every unique word; a warm one
  hits the LRU caches.

Writes benchmarks/results/hybrid_speed.json and .png.
Run: HF_HUB_OFFLINE=1 PYTHONPATH=src python -m benchmarks.hybrid.hybrid_speed
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
from benchmarks.common.report import write_result
from benchmarks.hybrid.render import render_hybrid_speed as render  # noqa: F401  (make_results reads it)
from charwise import HybridModel, SentenceEncoder, Teacher  # noqa: E402
from charwise.corpora import read_sentences  # noqa: E402
from charwise.hybrid.sentence import mean_pool  # noqa: E402
from charwise.io import data_root  # noqa: E402

WRITES = ("hybrid_speed",)
PAGE = "hybrid.md"

OUT = RESULTS
CORPORA = {"wnut17-train": data_root() / "wnut17/wnut17train.conll",
           "ewt-test": data_root() / "ud_en_ewt/en_ewt-ud-test.conllu"}
POLICIES = ["none", "oov", "multi", "no-suffix", "random:0.1", "all"]


def lengths(teacher: Teacher, sentences: list[list[str]]) -> dict[str, float]:
    out = {}
    for policy in POLICIES:
        hm = HybridModel.from_teacher(teacher, policy=policy)
        total = 0
        with torch.inference_mode():
            for k in range(0, len(sentences), 256):
                total += int(hm.prepare(sentences[k : k + 256]).lengths.sum())
        out[policy] = round(total / len(sentences), 2)
    return out


def plain_encode(teacher: Teacher, texts: list[str], batch_size: int = 32) -> torch.Tensor:
    """The base model as users run it: the tokenizer on raw text, the model, mean pooling."""
    model, tok = teacher.model.eval(), teacher.tokenizer
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    out = torch.empty((len(texts), teacher.dim))
    with torch.inference_mode():
        for k in range(0, len(order), batch_size):
            idx = order[k : k + batch_size]
            batch = tok([texts[i] for i in idx], padding=True, truncation=True, max_length=256, return_tensors="pt")
            states = model(**batch).last_hidden_state
            out[torch.tensor(idx)] = torch.nn.functional.normalize(mean_pool(states, batch["attention_mask"]), dim=1)
    return out


def timed(fn, *args) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    result = run(parser.parse_args())  # no options: the parser answers --help
    write_result(OUT / "hybrid_speed.json", result, plot)


def run(args: argparse.Namespace) -> dict:
    """Sequence lengths under every policy, then the speed of MiniLM sentence vectors, base and hybrid."""
    result: dict = {"benchmark": "hybrid sequence length and speed", "threads": torch.get_num_threads(),
                    "command": "python -m benchmarks.hybrid.hybrid_speed", "length": {}}
    corpora = {name: read_sentences(path, comments=True) for name, path in CORPORA.items()}
    for name in ("minilm", "smollm2"):
        teacher = Teacher.load(name)
        result["length"][name] = {c: lengths(teacher, s) for c, s in corpora.items()}
        print(name, result["length"][name], flush=True)

    texts = [" ".join(s) for s in read_sentences(data_root() / "wnut17/emerging.test.annotated", comments=True)[:1000]]
    hybrid = SentenceEncoder("minilm", policy="oov")
    teacher = hybrid.hybrid.teacher
    plain_encode(teacher, texts[:64])  # warm-up of the model itself, for both
    hybrid.encode(texts[:64])
    runs = {"none": [], "oov_cold": [], "oov": []}
    for _ in range(3):  # interleaved, so that a change in machine load hits all three alike
        runs["none"].append(timed(plain_encode, teacher, texts))
        hybrid.hybrid.clear_cache()
        runs["oov_cold"].append(timed(hybrid.encode, texts))
        runs["oov"].append(timed(hybrid.encode, texts))
    cold = statistics.median(runs["oov_cold"])
    speed = {"sentences": len(texts), "batch_size": 32, "base_s": round(statistics.median(runs["none"]), 3),
             "hybrid_warm_s": round(statistics.median(runs["oov"]), 3), "hybrid_cold_s": round(cold, 3),
             "runs": {k: [round(x, 3) for x in v] for k, v in runs.items()}}
    speed["ratio_warm"] = round(speed["hybrid_warm_s"] / speed["base_s"], 3)
    speed["ratio_cold"] = round(speed["hybrid_cold_s"] / speed["base_s"], 3)
    result["speed"] = speed
    print(speed)
    return result


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(t, c) for t in result["length"] for c in result["length"][t]]
    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3.6), sharey=False)
    for ax, (t, c) in zip(axes, panels):
        values = result["length"][t][c]
        ax.bar(range(len(values)), list(values.values()), color="tab:blue")
        ax.set_xticks(range(len(values)), list(values), rotation=45, ha="right")
        ax.set_title(f"{t}, {c}", fontsize=9)
        ax.set_ylabel("positions per sentence")
    s = result["speed"]
    fig.suptitle(f"Sequence length by policy; speed hybrid/base = {s['ratio_warm']} warm, {s['ratio_cold']} cold")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
