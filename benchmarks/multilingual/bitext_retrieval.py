"""Cross-lingual Bible verse retrieval with multilingual-e5-small: base, hybrid and expanded models.

    OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1 PYTHONPATH=src python -m benchmarks.multilingual.bitext_retrieval
    ... --limit 200 --systems base hybrid:oov     # a quick look

Corpus and queries: the first ``--limit`` (500) test verses of the Bible's ``verses`` split
(:func:`charwise.translation.split_pairs`; never seen by the static vectors or the expansion).
Each Spanish verse retrieves its English verse among all of them (es -> en), and each English verse
its Spanish verse (en -> es): accuracy (the right verse first) and MRR. Every text gets the model
card's ``"query: "`` prefix (symmetric tasks such as bitext mining), then mean pooling.

Query conditions (the corpus side stays clean):

* ``clean``;
* ``typos``: realistic misspellings of the query's language (``charwise.typos.realistic``: its
  spelling rules plus keyboard slips), each alphabetic word longer than 4 characters with
  probability ``--typo-rate`` (0.3);
* ``switched`` (es -> en only): code-switched Spanish queries, each word with an entry in a Dice
  lexicon learnt from the training verses (:mod:`charwise.translation.lexicon`) replaced by its
  English translation with probability ``--switch-rate`` (0.3), Char2Subword's code-switching angle.

Systems: ``base`` (the model as is), ``hybrid:POLICY`` (words chosen by the policy built from
characters by the e5 character encoder; ``hybrid:repair`` and ``hybrid:repair+oov`` repair each
text with the speller of its own language: ``repair:es`` for Spanish, ``repair`` for English),
``expanded:METHOD`` (Wang et al.: the Spanish words of the training verses seen at least ``--min-count``
times that XLM-R splits, added as whole tokens with rows from ``METHOD``; ``mixture`` and ``joint``
use word2vec vectors trained with gensim on the training verses' Spanish side, as in
``benchmarks/expansion/expansion.py``).
Writes ``benchmarks/results/bitext_retrieval.json`` and ``.png``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from benchmarks.common.fingerprint import code_fingerprint
from benchmarks.common.misspelling import realistic_copy
from benchmarks.common.paths import RESULTS
from benchmarks.common.report import write_result
from benchmarks.common.retrieval import rank_metrics
from benchmarks.expansion.expansion import bible_spanish_vectors  # noqa: E402
from benchmarks.multilingual.render import (
    render_bitext_retrieval as render,  # noqa: F401  (make_results reads it)
)
from charwise.io import write_json  # noqa: E402

WRITES = ("bitext_retrieval",)
PAGE = "multilingual.md"

SYSTEMS = ["base", "hybrid:repair", "hybrid:oov", "hybrid:no-suffix", "expanded:mean", "expanded:char",
           "expanded:mixture", "expanded:joint", "expanded:char+joint"]
PREFIX = "query: "


def expanded_models(methods: list[str], train_es: list[str], work: Path, encoder_name: str, min_count: int,
                    seed: int) -> tuple[dict[str, Path], dict]:
    """One expanded model directory per method (reused when already written for the same words)."""
    from charwise import Teacher
    from charwise.expansion import Expander, StaticVectors, select_from_corpus, write_expanded_model
    from charwise.expansion.mappings import default_encoder

    teacher = Teacher.load("e5-multilingual")
    vectors_path, vectors_info = bible_spanish_vectors()  # the same vectors as expansion_es.json
    vectors = StaticVectors.load(vectors_path)
    info: dict = {"vectors": vectors_info}
    selection = select_from_corpus(teacher, train_es, min_count)
    info["selection"] = selection.summary()
    # Words without a static vector fall back to ``char`` when an encoder is given, else to ``mean``.
    needs_chars = any("char" in m for m in methods)
    encoder = default_encoder(teacher, encoder_name) if needs_chars else None
    info["fallback"] = "char" if encoder is not None else "mean"
    expander = Expander(teacher, vectors=vectors, encoder=encoder, seed=seed)
    out: dict[str, Path] = {}
    for method in methods:
        directory = work / f"expanded-{method.replace('+', '_')}"
        stamp = directory / "built_from.json"  # reused only if built from the same words, vectors, encoder and code
        built_from = {"words": selection.words, "vectors": vectors_info,
                      "encoder": encoder_name if needs_chars else None, "code": code_fingerprint()}
        if not (stamp.exists() and json.loads(stamp.read_text())["built_from"] == built_from):
            rows = expander.rows(selection.words, method)
            write_expanded_model(teacher, selection, rows, directory, force=True)
            write_json(stamp, {"built_from": built_from, "fallbacks": len(rows.fallbacks)})
        # Words without a static vector (mixture, joint) take the fallback's row.
        info.setdefault("fallbacks", {})[method] = json.loads(stamp.read_text())["fallbacks"]
        out[method] = directory
    return out, info


def encoder_for(system: str, expanded: dict[str, Path], char_encoder: str):
    from charwise import SentenceEncoder

    kind, _, arg = system.partition(":")
    if kind == "base":
        return SentenceEncoder("e5-multilingual", policy="none", max_length=512)
    if kind == "hybrid":
        return SentenceEncoder("e5-multilingual", policy=arg, encoder=char_encoder, max_length=512)
    return SentenceEncoder(str(expanded[arg]), policy="none", max_length=512)


def set_language(model, language: str) -> None:
    """A repair policy follows the language of the texts it reads (``repair`` -> ``repair:es``)."""
    from charwise.hybrid.policies import RepairPolicy

    policy = model.hybrid.policy
    if isinstance(policy, RepairPolicy) and policy.language != language:
        model.hybrid.policy = RepairPolicy(language, policy.threshold, chars_for_unsure=policy.chars_for_unsure)


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    systems = list(result["systems"])
    tasks = list(result["systems"][systems[0]]["tasks"])
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(tasks)), 4.5))
    width = 0.8 / len(systems)
    for k, system in enumerate(systems):
        ax.bar([i + (k - len(systems) / 2 + 0.5) * width for i in range(len(tasks))],
               [result["systems"][system]["tasks"][t]["recall@1"] for t in tasks], width, label=system)
    ax.set_xticks(range(len(tasks)), tasks, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("accuracy (%): the translation ranked first")
    ax.set_ylim(min(50, ax.get_ylim()[0]), 100)
    ax.set_title(f"multilingual-e5-small, Bible verse retrieval among {result['verses']} verses")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--limit", type=int, default=500, help="test verses (corpus and queries)")
    p.add_argument("--systems", nargs="+", default=SYSTEMS)
    p.add_argument("--encoder", default="e5-multilingual", help="character encoder (shipped name or directory)")
    p.add_argument("--typo-rate", type=float, default=0.3)
    p.add_argument("--switch-rate", type=float, default=0.3)
    p.add_argument("--min-count", type=int, default=5, help="expansion: Spanish words seen this often in training")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--work", default="runs/bitext", help="word2vec vectors and expanded models go here")
    p.add_argument("--out", default=str(RESULTS / "bitext_retrieval.json"))
    args = p.parse_args()
    command = shlex.join(["python", "-m", "benchmarks.multilingual.bitext_retrieval", *sys.argv[1:]])
    return write_result(Path(args.out), {"command": command, **run(args)}, plot)


def run(args: argparse.Namespace) -> dict:
    """Every system on every retrieval task (each system's figures kept in ``--work`` for later runs)."""
    torch.set_num_threads(1)
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    from charwise.translation.data import read_pairs, split_pairs
    from charwise.translation.lexicon import code_switch, dice_lexicon

    started = time.time()
    splits = split_pairs(read_pairs(), "verses")
    test, train = splits["test"][: args.limit], splits["train"]
    es, en = [t.source for t in test], [t.target for t in test]
    lexicon = dice_lexicon([(t.source, t.target) for t in train])
    _, typos_es, changed_es = realistic_copy(es, args.seed, 0, args.typo_rate, language="es")
    _, typos_en, changed_en = realistic_copy(en, args.seed, 0, args.typo_rate, language="en")
    switched_es, share_switched = code_switch(es, lexicon, args.switch_rate, args.seed)
    queries = {("es", "clean"): es, ("en", "clean"): en, ("es", "typos"): typos_es, ("en", "typos"): typos_en,
               ("es", "switched"): switched_es}
    changed = {"typos_es": changed_es, "typos_en": changed_en, "switched_es": share_switched}
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    methods = [s.partition(":")[2] for s in args.systems if s.startswith("expanded:")]
    expanded, expansion_info = (expanded_models(methods, [t.source for t in train], work, args.encoder,
                                                args.min_count, args.seed) if methods else ({}, {}))
    gold = [{i} for i in range(len(test))]
    result: dict = {
        "verses": len(test), "prefix": PREFIX, "typo_rate": args.typo_rate, "switch_rate": args.switch_rate,
        "words_changed": changed, "lexicon_entries": len(lexicon), "encoder": args.encoder,
        "examples": {f"{lang} {cond}": texts[0] for (lang, cond), texts in queries.items()},
        "expansion": expansion_info, "torch_threads": torch.get_num_threads(), "systems": {},
    }
    for system in args.systems:
        # Each system's figures are kept in --work, keyed by everything they depend on (the package's
        # code and data included), so that systems can be run in separate invocations (and a killed
        # run loses one system at most).
        uses_chars = system.startswith("hybrid") or "char" in system
        key = {"system": system, "verses": len(test), "typo_rate": args.typo_rate, "switch_rate": args.switch_rate,
               "seed": args.seed, "min_count": args.min_count, "encoder": args.encoder if uses_chars else None,
               "code": code_fingerprint()}  # never the figures of other code (another speller, another model)
        cache = work / f"system-{system.replace(':', '-').replace('+', '_')}.json"
        if cache.exists() and json.loads(cache.read_text())["key"] == key:
            result["systems"][system] = json.loads(cache.read_text())["result"]
        else:
            t0 = time.time()
            model = encoder_for(system, expanded, args.encoder)
            vectors = {}
            for (lang, cond), texts in queries.items():
                set_language(model, lang)
                vectors[(lang, cond)] = model.encode([PREFIX + t for t in texts])
            tasks = {}
            for (lang, cond), q in vectors.items():
                other = "en" if lang == "es" else "es"
                metrics = rank_metrics(q, vectors[(other, "clean")], gold)
                tasks[f"{lang}->{other} {cond}"] = {k: round(v, 2) for k, v in metrics.items()}
            result["systems"][system] = {"tasks": tasks, "seconds": round(time.time() - t0, 1)}
            write_json(cache, {"key": key, "result": result["systems"][system]})
        tasks = result["systems"][system]["tasks"]
        print(f"{system:22s} " + "  ".join(f"{k} {v['recall@1']:.1f}/{v['mrr']:.1f}" for k, v in tasks.items()),
              file=sys.stderr)
    result["seconds"] = round(time.time() - started, 1)
    return result


if __name__ == "__main__":
    sys.exit(main())
