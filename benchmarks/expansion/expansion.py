"""Vocabulary-expansion reconstruction benchmark: writes ``benchmarks/results/expansion.json`` + ``.png``.

    HF_HUB_OFFLINE=1 PYTHONPATH=src python -m benchmarks.expansion.expansion            # MiniLM and SmolLM2
    HF_HUB_OFFLINE=1 PYTHONPATH=src python -m benchmarks.expansion.expansion --teachers minilm --max-words 200
    HF_HUB_OFFLINE=1 PYTHONPATH=src python -m benchmarks.expansion.expansion --teachers e5-multilingual \
        --vectors bible-es-word2vec --only-covered --out benchmarks/results/expansion_es.json

Wang et al.'s own setting is the last command: multilingual-e5-small (XLM-R's vocabulary) and
Spanish. ``--vectors bible-es-word2vec`` trains skip-gram vectors with gensim on the Spanish side of
the Bible's training verses (``charwise.translation.split_pairs``; cached under ``runs/``), and
``--only-covered`` keeps the held-out entries those vectors cover: the Spanish words among them.

Existing whole-word vocabulary entries pretend to be new. To be fair to ``char``, they are drawn
from the words the shipped character encoder never saw in training (``split_for_encoder``), keeping
real words (at least 2 characters, one of them a letter); at most ``--max-words`` (2,000) of them,
all when there are fewer (the count is recorded). For every other method they are removed:

* ``mean`` averages the pieces the tokenizer would produce if the entry did not exist
  (:func:`charwise.expansion.pieces_without`: WordPiece greedy longest-match over the vocabulary
  minus the held-out entries; byte-level BPE with the merges that create them undone).
* ``mixture`` and ``joint`` may use neither the held-out entries nor any other entry with the same
  lower-cased surface (a new word rarely has a case variant in the vocabulary, and with uncased
  GloVe such a variant would share the word's exact static vector) as mixture words or
  Procrustes pairs.

Each method rebuilds the held-out rows; reported: mean cosine to the true row, and prec@1 / prec@10
of retrieving the true row among all of the teacher's normal rows (cosine). Figures are given for
all held-out words (words without a GloVe vector use the fallback, ``char``) and for the subset
GloVe covers (every method on its own). The joint map's alignment accuracy is the prec@1 of a
held-out tenth of the shared words.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from benchmarks.common.fingerprint import code_fingerprint
from benchmarks.common.paths import RESULTS
from benchmarks.common.report import write_result
from benchmarks.expansion.render import render_expansion as render  # noqa: F401  (make_results reads it)
from charwise.io import write_json  # noqa: E402

WRITES = ("expansion",)
PAGE = {"expansion": "expansion.md", "expansion_es": "multilingual.md"}

METHODS = ["mean", "char", "mixture", "joint", "char+mixture", "char+joint", "mixture+joint", "char+mixture+joint"]


def reconstruction_metrics(pred: torch.Tensor, rows: torch.Tensor, teacher) -> dict[str, float]:
    """Mean cosine to the true rows and prec@1 / prec@10 of retrieving them among the normal rows."""
    from charwise.retrieval import topk_rows

    cos = torch.nn.functional.cosine_similarity(pred, teacher.embeddings[rows], dim=-1)
    _, top = topk_rows(pred, teacher.embeddings, 10, candidates=teacher.normal_mask)
    hit = top == rows[:, None]
    return {"n": len(rows), "cosine": float(cos.mean()), "prec@1": float(hit[:, 0].float().mean()),
            "prec@10": float(hit.any(dim=1).float().mean())}


def train_word2vec(sentences: list[list[str]], path: Path, seed: int = 0) -> dict:
    """Skip-gram vectors (gensim, one thread, so the run is reproducible) written as word2vec text."""
    from gensim.models import Word2Vec

    started = time.time()
    settings = {"vector_size": 100, "window": 5, "min_count": 3, "sg": 1, "epochs": 10}
    model = Word2Vec(sentences, workers=1, seed=seed, **settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    model.wv.save_word2vec_format(str(tmp), binary=False)
    tmp.replace(path)
    return {"library": f"gensim {__import__('gensim').__version__}", "algorithm": "word2vec skip-gram", **settings,
            "words": len(model.wv), "seconds": round(time.time() - started, 1)}


def bible_spanish_vectors(path: Path = Path("runs/word2vec_bible_es.txt")) -> tuple[Path, dict]:
    """word2vec vectors of the Spanish training verses (trained once, then read from ``path`` while
    charwise's code and data, which split the verses into words, stay the same)."""
    from charwise import split_words
    from charwise.translation.data import read_pairs, split_pairs

    info_path = path.with_suffix(".json")
    if not (path.exists() and info_path.exists()
            and json.loads(info_path.read_text(encoding="utf-8")).get("code") == code_fingerprint()):
        train = split_pairs(read_pairs(), "verses")["train"]
        info = train_word2vec([split_words(p.source).words for p in train], path)
        info["corpus"] = f"Reina-Valera 1909, the {len(train)} training verses of the 'verses' split"
        info["code"] = code_fingerprint()
        write_json(info_path, info)
    return path, json.loads(info_path.read_text(encoding="utf-8"))


def run_teacher(name: str, max_words: int, seed: int, methods: list[str], vectors, only_covered: bool = False) -> dict:
    import charwise
    from charwise.expansion import Expander, pieces_without
    from charwise.training.targets import split_for_encoder

    started = time.time()
    encoder = charwise.load(name)
    teacher = encoder.teacher
    split = split_for_encoder(teacher, getattr(encoder, "training_info", {}) or {})
    heldout = split.heldout_words.tolist()
    surfaces = teacher.vocab.surfaces
    eligible = [r for r in heldout if len(surfaces[r]) >= 2 and any(c.isalpha() for c in surfaces[r])]
    if only_covered:
        eligible = [r for r in eligible if vectors.lookup(surfaces[r]) is not None]
    chosen = sorted(random.Random(seed).sample(eligible, max_words)) if len(eligible) > max_words else eligible
    rows = torch.tensor(chosen)
    words = [surfaces[r] for r in chosen]
    lowered = {w.lower() for w in words}
    whole = (teacher.normal_mask & teacher.word_start_mask).nonzero().squeeze(1).tolist()
    variants = [r for r in whole if surfaces[r].lower() in lowered and r not in set(chosen)]
    expander = Expander(teacher, vectors=vectors, encoder=encoder, exclude_rows=chosen + variants, seed=seed)
    pieces = pieces_without(teacher, chosen, words)
    covered = torch.tensor([vectors.lookup(w) is not None for w in words])

    result = {
        "teacher": teacher.describe(),
        "heldout_whole_words": len(heldout),
        "eligible": len(eligible),
        "evaluated": len(chosen),
        "glove_covered": int(covered.sum()),
        "case_variants_excluded": len(variants),
        "mean_pieces_per_word": sum(map(len, pieces)) / max(1, len(pieces)),
        "examples": [{"word": teacher.display(r), "pieces_without_entry": [teacher.display(i) for i in p]}
                     for r, p in list(zip(chosen, pieces))[:: max(1, len(chosen) // 10)]],
        "methods": {},
    }
    for method in methods:
        t0 = time.time()
        out = expander.rows(words, method, pieces=pieces)
        entry = reconstruction_metrics(out.rows, rows, teacher)
        entry["covered"] = reconstruction_metrics(out.rows[covered], rows[covered], teacher)
        entry["fallbacks"] = len(out.fallbacks)
        entry["seconds"] = round(time.time() - t0, 2)
        result["methods"][method] = entry
        if "joint" in out.info:
            result["joint_alignment"] = out.info["joint"]["alignment"]
        if "mixture" in out.info:
            result["mixture_setting"] = out.info["mixture"]
        print(f"{name:8s} {method:20s} cos {entry['cosine']:.3f}  p@1 {100 * entry['prec@1']:5.1f}  "
              f"p@10 {100 * entry['prec@10']:5.1f}  ({entry['seconds']} s)", file=sys.stderr)
    result["seconds"] = round(time.time() - started, 1)
    return result


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    teachers = list(result["teachers"])
    fig, axes = plt.subplots(1, len(teachers), figsize=(7 * len(teachers), 4.5), squeeze=False)
    for ax, name in zip(axes[0], teachers):
        block = result["teachers"][name]
        methods = list(block["methods"])
        x = range(len(methods))
        width = 0.27
        for shift, key in enumerate(("cosine", "prec@1", "prec@10")):
            ax.bar([i + (shift - 1) * width for i in x], [100 * block["methods"][m][key] for m in methods], width,
                   label=key)
        ax.set_xticks(list(x), methods, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("% (held-out entries rebuilt)")
        ax.set_title(f"{name}: {block['evaluated']} held-out words, joint align. "
                     f"p@1 {100 * (block.get('joint_alignment', {}).get('prec@1') or 0):.1f}%")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--teachers", nargs="+", default=["minilm", "smollm2"])
    p.add_argument("--max-words", type=int, default=2000)
    p.add_argument("--methods", nargs="+", default=METHODS)
    p.add_argument("--vectors", default="glove50", help="glove50, bible-es-word2vec or a vectors file")
    p.add_argument("--only-covered", action="store_true", help="evaluate only held-out words the vectors cover")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=str(RESULTS / "expansion.json"))
    args = p.parse_args()
    command = shlex.join(["python", "-m", "benchmarks.expansion.expansion", *sys.argv[1:]])
    return write_result(Path(args.out), {"command": command, **run(args)}, plot)


def run(args: argparse.Namespace) -> dict:
    """Every method on every teacher's held-out entries, with the static vectors of ``--vectors``."""
    torch.set_num_threads(1)  # a shared 2-core machine; every figure below is single-threaded
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    from charwise.expansion.vectors import StaticVectors

    trained = None
    if args.vectors == "bible-es-word2vec":
        path, trained = bible_spanish_vectors()
        vectors = StaticVectors.load(path)
    else:
        vectors = StaticVectors.load(args.vectors)
    result = {
        "vectors": {"source": args.vectors if trained else vectors.source, "words": len(vectors), "dim": vectors.dim,
                    **({"training": trained} if trained else {})},
        "only_covered": args.only_covered,
        "torch_threads": torch.get_num_threads(),
        "teachers": {},
    }
    for name in args.teachers:
        result["teachers"][name] = run_teacher(name, args.max_words, args.seed, args.methods, vectors,
                                               args.only_covered)
    return result


if __name__ == "__main__":
    sys.exit(main())
