"""Word-level tagging benchmark: MiniLM on WNUT17 NER and UD EWT UPOS, base vs hybrid
policies, word poolings, S2W merge and word features, clean and noisy test sets.

    python -m benchmarks.tagging.tagging                               # the full grid, full protocol
    python -m benchmarks.tagging.tagging --epochs 1 --train-sentences 2000 --dev-sentences 400 \\
        --lr 1e-4 --budget-minutes 95                          # the reduced run of the committed JSON
    python -m benchmarks.tagging.tagging --plot-only                   # redraw the PNG from the JSON

Every (task, setting, seed) is one fine-tune (``charwise.tagging.train_tagger``, seeded); its best
model (by dev score) is scored on the test set clean and with synthetic typos at each ``--noise``
word rate (the same noisy test set for every setting: typo seed 1234). Rows aggregate the seeds
of one (task, setting, noise): mean and standard deviation of dev and test scores (entity F1 with
seqeval conventions for wnut17, accuracy for ewt-upos) and of the word-accuracy splits
``acc_single`` (one vocabulary token under the base tokenizer), ``acc_multi`` (several pieces or
[UNK]) and ``acc_unseen`` (not in the training sentences), plus training minutes.

The run is resumable: finished (task, setting, seed) runs already in the JSON with the same
protocol (charwise's code and shipped data included: :func:`benchmarks.common.fingerprint.code_fingerprint`)
are skipped, and the JSON is rewritten after every run. Jobs run in priority order (see
:data:`PRIORITY`) until ``--budget-minutes`` is spent; the exact protocol is stored in the JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from benchmarks.common.fingerprint import code_fingerprint
from benchmarks.common.paths import RESULTS
from benchmarks.tagging.commands import tagging_commands as commands  # noqa: F401  (make_results reads it)
from benchmarks.tagging.render import render_tagging as render  # noqa: F401  (make_results reads it)

WRITES = ("tagging",)
PAGE = "tagging.md"
os.environ.setdefault("HF_HUB_OFFLINE", "1")

OUT_JSON = RESULTS / "tagging.json"
OUT_PNG = RESULTS / "tagging.png"

# name -> TaggerConfig overrides. "base" = policy none: exactly MiniLM on its own tokenisation.
SETTINGS: dict[str, dict[str, Any]] = {
    "base-first": {"policy": "none", "pool": "first"},
    # Trained and tested with the default policy: words the speller is confident about read as corrected.
    "repair-first": {"policy": "repair", "pool": "first"},
    # Trained and tested with character vectors only for the words the speller could not resolve
    "repair+oov-first": {"policy": "repair+oov", "pool": "first"},
    "hybrid-oov": {"policy": "oov", "pool": "first"},
    "hybrid-no-suffix": {"policy": "no-suffix", "pool": "first"},
    "hybrid-random:0.1": {"policy": "random:0.1", "pool": "first"},
    # The character encoder at 10x the model's learning rate: can it adapt within the short budget?
    "hybrid-oov-enc-lr10x": {"policy": "oov", "pool": "first", "encoder_lr_factor": 10.0},
    # The encoder after hybrid tuning (docs/hybrid.md): `charwise tune
    # src/charwise/data/ud_en_ewt/en_ewt-ud-train.conllu src/charwise/data/wnut17/raw_text/*.10000
    # --out runs/tune-minilm --steps 400 --batch-size 16 --eval-every 100`.
    "hybrid-oov-tuned": {"policy": "oov", "pool": "first", "char_encoder": "runs/tune-minilm/encoder"},
    "base-last": {"policy": "none", "pool": "last"},
    "base-mean": {"policy": "none", "pool": "mean"},
    "base-max": {"policy": "none", "pool": "max"},
    "base-attention": {"policy": "none", "pool": "attention"},
    "base-gru": {"policy": "none", "pool": "gru"},
    "s2w": {"policy": "none", "pool": "gru", "s2w_layers": 3},
    "s2w+lemma": {"policy": "none", "pool": "gru", "s2w_layers": 3, "feature": "lemma", "feature_mode": "merge"},
    "lemma-copy": {"policy": "none", "pool": "first", "feature": "lemma", "feature_mode": "copy"},
    # Every word keeps its pieces and also gets its character vector (char_fusion), instead of the
    # vector replacing the pieces as in the hybrid policies.
    "chars-concat": {"policy": "none", "pool": "first", "char_fusion": "concat"},
    "s2w+chars": {"policy": "none", "pool": "gru", "s2w_layers": 3, "char_fusion": "merge"},
}
NEEDS_LEMMA = {"s2w+lemma", "lemma-copy"}

# (task, setting) in the order they are run.
PRIORITY: list[tuple[str, str]] = (
    [("wnut17", s) for s in ("base-first", "repair-first", "repair+oov-first", "hybrid-oov", "hybrid-no-suffix",
                             "hybrid-random:0.1")]
    + [("wnut17", "hybrid-oov-enc-lr10x"), ("wnut17", "hybrid-oov-tuned")]
    + [("wnut17", s) for s in ("base-last", "base-mean", "base-max", "base-attention", "base-gru")]
    + [("wnut17", "s2w")]
    + [("ewt-upos", s) for s in ("base-first", "repair-first", "repair+oov-first", "s2w", "s2w+lemma", "lemma-copy")]
    + [("ewt-upos", s) for s in ("hybrid-oov", "hybrid-no-suffix", "hybrid-random:0.1")]
    + [("ewt-upos", s) for s in ("base-last", "base-mean", "base-max", "base-attention", "base-gru")]
    + [(t, s) for s in ("chars-concat", "s2w+chars") for t in ("wnut17", "ewt-upos")]
)
SPLITS = ("acc_single", "acc_multi", "acc_unseen")
ENTITY_SPLITS = ("f1_multi", "f1_single")
NOISE_SEED = 1234


def _stats(values: list[float]) -> dict[str, float]:
    return {"mean": statistics.fmean(values), "std": statistics.pstdev(values) if len(values) > 1 else 0.0}


def previous(args: argparse.Namespace) -> dict[str, Any]:
    """What ``--json`` holds (nothing with ``--fresh``): the results a run resumes."""
    path = Path(args.json)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() and not args.fresh else {}


def _write(results: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(results, indent=2), encoding="utf-8")
    os.replace(tmp, path)


def aggregate(runs: list[dict[str, Any]], seeds_wanted: int) -> list[dict[str, Any]]:
    """One row per (task, setting, noise) over the seeds that finished."""
    rows = []
    keys = list(dict.fromkeys((r["task"], r["setting"]) for r in runs))
    order = {k: i for i, k in enumerate(PRIORITY)}
    # A setting tested with another policy (SETTING@POLICY) follows its setting.
    keys.sort(key=lambda k: (order.get((k[0], k[1].split("@")[0]), len(order)), k[1]))
    for task, setting in keys:
        group = [r for r in runs if r["task"] == task and r["setting"] == setting]
        for noise in sorted({float(n) for r in group for n in r["test"]}):
            done = [r for r in group if f"{noise:g}" in r["test"]]
            tests = [r["test"][f"{noise:g}"] for r in done]
            row = {"task": task, "setting": setting, "noise": noise, "seeds": [r["seed"] for r in done],
                   "complete": len(done) >= seeds_wanted,
                   "metric": "entity_f1" if task == "wnut17" else "accuracy",
                   "dev": _stats([r["dev"] for r in done]),
                   "test": _stats([t["score"] for t in tests]),
                   "changed_words": statistics.fmean(t["changed_words"] for t in tests),
                   "train_minutes": _stats([r["train_minutes"] for r in done]),
                   "minutes_per_epoch": _stats([r["minutes_per_epoch"] for r in done]),
                   "cpu_minutes_per_epoch": _stats([r["cpu_minutes_per_epoch"] for r in done])}
            for key in SPLITS:
                row[key] = _stats([t[key] for t in tests])
                row[f"n_{key.split('_')[1]}"] = tests[0][f"n_{key.split('_')[1]}"]
            # Entity F1 over entities with / without a split word (runs made since it was measured).
            for key in ENTITY_SPLITS:
                if all(key in t for t in tests):
                    row[key] = _stats([t[key] for t in tests])
                    row[f"n_entities_{key.split('_')[1]}"] = tests[0][f"n_entities_{key.split('_')[1]}"]
            rows.append(row)
    return rows


def test_scores(tagger: Any, data: Any, args: argparse.Namespace) -> dict[str, Any]:
    from charwise.tagging import evaluate_tagger

    test_sentences = data.test[: args.test_sentences] if args.test_sentences > 0 else data.test
    tests = {}
    for noise in args.noise:
        r = evaluate_tagger(tagger, test_sentences, metric=data.spec.metric, train_words=tagger.train_words,
                            noise=noise, seed=NOISE_SEED)
        r.pop("per_type", None)
        tests[f"{noise:g}"] = r
    return tests


def test_policy(spec: str, seed: int) -> Any:
    """A policy by name; ``repair-normalise`` is ``repair`` whose speller also normalises informal
    text (the shipped English speller with every change kind on, as ``charwise correct`` runs it)."""
    from charwise.hybrid.policies import RepairPolicy, get_policy
    from charwise.speller import Speller

    if spec == "repair-normalise":
        policy = RepairPolicy("en", speller=Speller.load("en"))
        policy.name = spec
        return policy
    return get_policy(spec, seed)


def run_one(task: str, setting: str, seed: int, args: argparse.Namespace, data: Any) -> list[dict[str, Any]]:
    """The run of (task, setting, seed), then one record per ``--test-policies`` entry: the same
    trained tagger tested with that policy in front (setting ``SETTING@POLICY``)."""
    from charwise.tagging import TaggerConfig, load_tagger, train_tagger

    overrides = dict(SETTINGS[setting])
    factor = overrides.pop("encoder_lr_factor", None)
    config = TaggerConfig(task=task, teacher=args.teacher, seed=seed, epochs=args.epochs, max_steps=args.max_steps,
                          train_sentences=args.train_sentences, dev_sentences=args.dev_sentences,
                          batch_size=args.batch_size, lr=args.lr, head_lr=args.head_lr, patience=args.patience,
                          encoder_lr=factor * args.lr if factor else None, **overrides)
    work = Path(args.work) / task / setting / f"seed{seed}"
    if work.exists():
        shutil.rmtree(work)  # an interrupted run: start it again
    started = time.time()
    result = train_tagger(config, work, data=data, progress=False,
                          log=lambda m: print(f"  [{task} {setting} seed {seed}] {m}", file=sys.stderr, flush=True))
    tagger = load_tagger(work)
    run = {"task": task, "setting": setting, "seed": seed, "config": asdict(config), "dev": result.best_dev,
           "best_epoch": result.best_epoch, "epochs_run": result.epochs_run, "steps": result.steps,
           "train_minutes": result.train_minutes, "minutes_per_epoch": result.minutes_per_epoch,
           "cpu_minutes_per_epoch": result.cpu_minutes_per_epoch, "history": result.history,
           "test": test_scores(tagger, data, args)}
    runs = [dict(run, wall_minutes=round((time.time() - started) / 60, 3))]
    for policy in args.test_policies:
        tagger.hybrid.policy = test_policy(policy, seed)
        if tagger.hybrid.policy.needs_encoder and tagger.hybrid.encoder is None:
            from charwise.encoders.shipped import resolve_encoder

            # a tagger trained without characters, tested with them: the encoder of the teacher it was tuned from
            tagger.hybrid.encoder = resolve_encoder(args.teacher, tagger.hybrid.teacher,
                                                    needed_by=f"policy '{policy}'", option="--teacher")
        runs.append(dict(run, setting=f"{setting}@{policy}", test_policy=policy,
                         test=test_scores(tagger, data, args), wall_minutes=round((time.time() - started) / 60, 3)))
    if not args.keep_models:
        shutil.rmtree(work / "tagger", ignore_errors=True)  # ~90 MB per run; the logs stay
    return runs


def protocol(args: argparse.Namespace) -> dict[str, Any]:
    from charwise.tagging.model import TaggerConfig

    d = TaggerConfig()
    return {"teacher": args.teacher, "epochs": args.epochs, "max_steps": args.max_steps,
            "train_sentences": args.train_sentences or "all", "dev_sentences": args.dev_sentences or "all",
            "test_sentences": args.test_sentences or "all", "batch_size": args.batch_size, "lr": args.lr,
            "head_lr": args.head_lr, "patience": args.patience, "warmup_ratio": d.warmup_ratio,
            "schedule": "AdamW, linear warm-up then linear decay to 0", "head": d.head,
            "noise": list(args.noise), "noise_seed": NOISE_SEED, "threads": args.threads,
            "test_policies": list(args.test_policies),
            "noise_kind": "one Char2Subword typo per corrupted word; words of >= 5 characters eligible; "
                          "the rate is per eligible word; labels and lemma column kept clean",
            "subsamples": "train: seeded by the run's seed (the same sentences for every setting of a seed); "
                          "dev: one fixed subsample for all runs; test: the full test set",
            "code": code_fingerprint()}  # a run resumes or merges only figures of this very code


def plot(results: dict[str, Any], path: Path = OUT_PNG) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = results.get("rows", [])
    tasks = [t for t in ("wnut17", "ewt-upos") if any(r["task"] == t for r in rows)]
    if not tasks:
        raise SystemExit("no rows to plot")
    noises = sorted({r["noise"] for r in rows})
    fig, axes = plt.subplots(len(tasks), 2, figsize=(14, 4.2 * len(tasks)), squeeze=False)
    for i, task in enumerate(tasks):
        settings = list(dict.fromkeys(r["setting"] for r in rows if r["task"] == task))
        task_rows = [r for r in rows if r["task"] == task]
        # NER: the entity F1 over entities with a split word, where the runs have it.
        second = (("f1_multi", "entity F1, entities with a multi-piece word")
                  if all("f1_multi" in r for r in task_rows) else ("acc_multi", "accuracy on multi-piece words"))
        for j, (key, label) in enumerate((("test", "test score"), second)):
            ax = axes[i][j]
            width = 0.8 / max(len(noises), 1)
            lowest = 100.0
            for k, noise in enumerate(noises):
                xs, ys, es = [], [], []
                for x, s in enumerate(settings):
                    row = next((r for r in rows if r["task"] == task and r["setting"] == s and r["noise"] == noise),
                               None)
                    if row:
                        xs.append(x - 0.4 + width * (k + 0.5))
                        ys.append(100 * row[key]["mean"])
                        es.append(100 * row[key]["std"])
                ax.bar(xs, ys, width=width, yerr=es, capsize=2, label=f"typo rate {noise:g}")
                lowest = min([lowest] + [y - e for y, e in zip(ys, es)])
            # Start the axis near the lowest bar: differences of a point must stay visible.
            ax.set_ylim(max(0.0, 5 * (lowest // 5) - 5), None)
            ax.set_xticks(range(len(settings)))
            ax.set_xticklabels([s + ("" if all(r["complete"] for r in rows if r["task"] == task and r["setting"] == s)
                                     else "*") for s in settings], rotation=30, ha="right", fontsize=8)
            metric = "entity F1" if task == "wnut17" and key != "acc_multi" else "accuracy"
            ax.set_ylabel(f"{metric} x 100")
            ax.set_title(f"{task}: {label}")
            ax.legend(fontsize=8)
    p = results.get("protocol", {})
    fig.suptitle(f"MiniLM taggers, mean ± std over seeds (* = fewer seeds than asked); epochs {p.get('epochs')}, "
                 f"train sentences {p.get('train_sentences')}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def markdown(results: dict[str, Any]) -> str:
    """The rows as a Markdown table (scores x 100, mean ± std over seeds)."""
    def cell(stat: dict[str, float]) -> str:
        return f"{100 * stat['mean']:.1f} ± {100 * stat['std']:.1f}"

    rows = results.get("rows", [])
    entity = any(k in r for r in rows for k in ENTITY_SPLITS)
    lines = ["| task | setting | typo rate | seeds | dev | test | acc single | acc multi | acc unseen | "
             + ("F1 multi | F1 single | " if entity else "") + "train min |",
             "|---" * (12 if entity else 10) + "|"]
    for r in rows:
        extra = "".join(f"{cell(r[k]) if k in r else '-'} | " for k in ENTITY_SPLITS) if entity else ""
        lines.append(f"| {r['task']} | {r['setting']} | {r['noise']:g} | {len(r['seeds'])} | {cell(r['dev'])} | "
                     f"{cell(r['test'])} | {cell(r['acc_single'])} | {cell(r['acc_multi'])} | "
                     f"{cell(r['acc_unseen'])} | {extra}{r['train_minutes']['mean']:.1f} |")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--teacher", default="minilm", help="minilm (all-MiniLM-L6-v2) or a BERT-family model directory")
    p.add_argument("--json", default=str(OUT_JSON), help="results file (the PNG is written beside it)")
    p.add_argument("--tasks", nargs="+", default=["wnut17", "ewt-upos"])
    p.add_argument("--settings", nargs="+", default=None, help=f"subset of: {', '.join(SETTINGS)}")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--noise", type=float, nargs="+", default=[0.0, 0.2])
    p.add_argument("--test-policies", nargs="*", default=[], metavar="POLICY",
                   help="also test each trained tagger with these policies in front (recorded as SETTING@POLICY); "
                        "besides the hybrid policies, repair-normalise: repair that also normalises")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--max-steps", type=int, default=0)
    p.add_argument("--train-sentences", type=int, default=0, help="seeded training subsample (0: all)")
    p.add_argument("--dev-sentences", type=int, default=0, help="seeded dev subsample for early stopping (0: all)")
    p.add_argument("--test-sentences", type=int, default=0, help="first N test sentences (0: all)")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=5e-5)
    p.add_argument("--head-lr", type=float, default=1e-3)
    p.add_argument("--patience", type=int, default=2)
    p.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    p.add_argument("--budget-minutes", type=float, default=0, help="start no new run after this long (0: no limit)")
    p.add_argument("--work", default="runs/tagging", help="per-run directories (logs; models with --keep-models)")
    p.add_argument("--keep-models", action="store_true")
    p.add_argument("--fresh", action="store_true", help="discard the existing JSON instead of resuming")
    p.add_argument("--timing-run", help="a `charwise tag train --epochs 1` output directory on full WNUT17: "
                                        "its minutes per epoch are recorded as epoch_timing")
    p.add_argument("--merge", nargs="+", metavar="JSON",
                   help="add the runs of these result files (same protocol; e.g. written by parallel "
                        "invocations with their own --json) to --json, then exit")
    p.add_argument("--plot-only", action="store_true")
    p.add_argument("--markdown", action="store_true", help="print the rows as a Markdown table and exit")
    args = p.parse_args()

    out_json = Path(args.json)
    out_png = out_json.with_suffix(".png")
    results = previous(args)
    if args.markdown:
        print(markdown(results))
        return 0
    if args.plot_only:
        print(plot(results, out_png))
        return 0
    if args.merge:
        for other_path in args.merge:
            other = json.loads(Path(other_path).read_text(encoding="utf-8"))
            if results.get("protocol") not in (None, other.get("protocol")):
                raise SystemExit(f"{other_path} was written with another protocol than {out_json}")
            results.setdefault("protocol", other.get("protocol"))
            results.setdefault("runs", [])
            done = {(r["task"], r["setting"], r["seed"]) for r in results["runs"]}
            added = [r for r in other.get("runs", []) if (r["task"], r["setting"], r["seed"]) not in done]
            results["runs"] += added
            print(f"{other_path}: {len(added)} runs added", file=sys.stderr)
        results["rows"] = aggregate(results["runs"], len(args.seeds))
        _write(results, out_json)
        print(plot(results, out_png))
        return 0
    run(args)
    return 0


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The runs of the grid that ``--json`` lacks, in priority order until ``--budget-minutes`` is spent;
    the JSON and the PNG are rewritten after each run (a stopped run resumes). All results so far."""
    out_json = Path(args.json)
    out_png = out_json.with_suffix(".png")
    results = previous(args)

    import torch

    torch.set_num_threads(args.threads)
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    from charwise.tagging.data import load_task

    proto = protocol(args)
    if results.get("protocol") not in (None, proto):
        print("the JSON was written with another protocol; pass --fresh to replace it", file=sys.stderr)
        raise SystemExit(2)
    results["protocol"] = proto
    results["machine"] = {"python": platform.python_version(), "torch": torch.__version__,
                          "cpus": os.cpu_count(), "platform": platform.platform()}
    results.setdefault("runs", [])
    if args.timing_run:
        r = json.loads((Path(args.timing_run) / "result.json").read_text())
        results["epoch_timing"] = {"task": "wnut17", "setting": "base-first", "threads": args.threads,
                                   "command": "charwise tag train --task wnut17 --epochs 1 --out DIR",
                                   "wall_minutes_per_epoch_full": r["minutes_per_epoch"],
                                   "cpu_minutes_per_epoch_full": r.get("cpu_minutes_per_epoch"),
                                   "full_run_dev_f1": r["best_dev"],
                                   "train_sentences": r["protocol"]["train_sentences"]}
    results["rows"] = aggregate(results["runs"], len(args.seeds))
    _write(results, out_json)

    settings = args.settings or list(SETTINGS)
    for name in settings:
        if name not in SETTINGS:
            raise SystemExit(f"unknown setting {name!r} (known: {', '.join(SETTINGS)})")
    ordered = PRIORITY + [(t, s) for t in args.tasks for s in settings if (t, s) not in PRIORITY]  # none left out
    jobs = [(t, s) for t, s in ordered if t in args.tasks and s in settings
            and not (s in NEEDS_LEMMA and t != "ewt-upos")]
    started = time.time()
    data_cache: dict[str, Any] = {}
    for task, setting in jobs:
        for seed in args.seeds:
            if any(r["task"] == task and r["setting"] == setting and r["seed"] == seed for r in results["runs"]):
                continue
            elapsed = (time.time() - started) / 60
            if args.budget_minutes and elapsed >= args.budget_minutes:
                print(f"budget of {args.budget_minutes} min spent ({elapsed:.1f}); stopping", file=sys.stderr)
                plot(results, out_png)
                return results
            if task not in data_cache:
                data_cache[task] = load_task(task)
            print(f"[{elapsed:6.1f} min] {task} {setting} seed {seed}", file=sys.stderr, flush=True)
            for record in run_one(task, setting, seed, args, data_cache[task]):
                results["runs"].append(record)
                print(f"  {record['setting']}: dev {record['dev']:.4f}  test "
                      + "  ".join(f"{k}: {v['score']:.4f}" for k, v in record["test"].items())
                      + f"  ({record['wall_minutes']:.1f} min)", file=sys.stderr, flush=True)
            results["rows"] = aggregate(results["runs"], len(args.seeds))
            _write(results, out_json)
            plot(results, out_png)
    print("all jobs done", file=sys.stderr)
    return results


if __name__ == "__main__":
    sys.exit(main())
