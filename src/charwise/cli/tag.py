"""``charwise tag train|eval|predict``: the command-line face of :mod:`charwise.tagging`.

:func:`add_parser` registers the group on the main parser (``predict`` lives in
:mod:`charwise.cli.tag_predict`). Errors are charwise's own
(:mod:`charwise.errors`) or file errors, which ``charwise.cli.main`` prints as one line with exit
status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from charwise.cli.common import check_min
from charwise.cli.progress import add_progress_option, progress_mode
from charwise.cli.tag_predict import DEVICE_HELP, OVERRIDE_POLICY_HELP, add_predict_parser, with_policy
from charwise.errors import ConfigError
from charwise.io import check_output_dir, check_output_file, read_json, write_json
from charwise.presets import POLICY_HELP, POOLINGS
from charwise.tagging.config import CHAR_FUSIONS, FEATURE_MODES, HEADS, TaggerConfig
from charwise.tagging.data import TASKS


def add_parser(sub: Any) -> None:
    """Register ``tag`` and its subcommands on the main parser's subparsers."""
    d = TaggerConfig()
    g = sub.add_parser("tag", help="word-level tagging (NER on WNUT17, POS on UD EWT): train, eval, predict")
    tsub = g.add_subparsers(dest="tag_command", required=True)

    t = tsub.add_parser("train", help="fine-tune a tagger (hybrid model + pooling or S2W merge + head)")
    t.add_argument("--task", required=True, choices=sorted(TASKS))
    t.add_argument("--teacher", "--model", default=d.teacher,
                   help="minilm or a HF model directory (BERT family; e.g. the model/ of `charwise pretrain`)")
    t.add_argument("--policy", default=d.policy, help=POLICY_HELP)
    t.add_argument("--char-encoder", default=d.char_encoder,
                   help="character encoder for hybrid policies and --char-fusion (shipped name or directory; "
                        "default: the teacher's)")
    t.add_argument("--pool", default=d.pool, choices=sorted(POOLINGS),
                   help="pieces -> word pooling (with --s2w-layers: the merge inside the encoder)")
    t.add_argument("--head", default=d.head, choices=list(HEADS))
    t.add_argument("--char-fusion", default=d.char_fusion, choices=list(CHAR_FUSIONS),
                   help="also give every word its character vector: concat (at the head) or merge (after the "
                        "S2W merge, needs --s2w-layers)")
    t.add_argument("--s2w-layers", type=int, default=d.s2w_layers,
                   help="merge pieces into words after this many layers (S2W; 0 = no merge)")
    t.add_argument("--feature", default=d.feature, help="word-feature column, e.g. lemma (CoNLL-U tasks)")
    t.add_argument("--feature-mode", default=d.feature_mode, choices=list(FEATURE_MODES),
                   help="merge: add after the S2W merge; copy: add to every piece (Sennrich & Haddow)")
    t.add_argument("--epochs", type=int, default=d.epochs)
    t.add_argument("--batch-size", type=int, default=d.batch_size)
    t.add_argument("--lr", type=float, default=d.lr, help="learning rate of the pretrained model and encoder")
    t.add_argument("--head-lr", type=float, default=d.head_lr, help="learning rate of the new layers")
    t.add_argument("--encoder-lr", type=float, default=d.encoder_lr,
                   help="learning rate of the character encoder (default: --lr)")
    t.add_argument("--patience", type=int, default=d.patience, help="dev evaluations without improvement")
    t.add_argument("--max-steps", type=int, default=d.max_steps, help="stop after this many steps (0: no limit)")
    t.add_argument("--train-sentences", type=int, default=d.train_sentences,
                   help="seeded subsample of the training set (0: all)")
    t.add_argument("--dev-sentences", type=int, default=d.dev_sentences, help="seeded subsample of dev (0: all)")
    t.add_argument("--seed", type=int, default=d.seed)
    t.add_argument("--data-dir", default=d.data_dir,
                   help="directory holding wnut17/ and ud_en_ewt/ "
                        "(default: the installed data, charwise.io.data_root())")
    t.add_argument("--out", required=True, help="output directory (tagger/, log.jsonl, result.json)")
    t.add_argument("--no-test", action="store_true", help="do not score the best model on the test set")
    add_progress_option(t, quiet=True)
    t.add_argument("--resume", action="store_true",
                   help="continue the run in --out from its last checkpoint (give the same settings)")
    t.set_defaults(func=cmd_tag_train)

    e = tsub.add_parser("eval", help="score a trained tagger on its task's test (or dev) set, clean and noisy")
    e.add_argument("dir", help="a training run's --out directory or its tagger/ directory")
    e.add_argument("--noise", type=float, nargs="+", default=[0.0],
                   help="word typo rates of the evaluation sets (e.g. --noise 0 0.2)")
    e.add_argument("--split", default="test", choices=["dev", "test"])
    e.add_argument("--seed", type=int, default=1234, help="seed of the typos")
    e.add_argument("--max-sentences", type=int, default=0, help="score only the first N sentences (0: all)")
    e.add_argument("--data-dir", default=None)
    e.add_argument("--json", help="write the scores as JSON to this file")
    e.add_argument("--policy", default=None, help=OVERRIDE_POLICY_HELP)
    e.add_argument("--device", help=DEVICE_HELP)
    e.set_defaults(func=cmd_tag_eval)

    add_predict_parser(tsub)


def cmd_tag_train(args: argparse.Namespace) -> int:
    from charwise.tagging import evaluate_tagger, load_tagger, train_tagger
    from charwise.tagging.data import load_task

    check_output_dir(args.out, "--out")
    saved = Path(args.out) / "train_config.json"
    if args.resume and saved.is_file():  # the run's own settings, as `train` and `tune` do
        config = TaggerConfig.from_dict(read_json(saved))
    else:
        # Option conflicts are reported with the flags that fix them.
        if args.s2w_layers <= 0 and args.char_fusion == "merge":
            raise ConfigError("--char-fusion merge adds character vectors after the S2W merge: give --s2w-layers N")
        if args.s2w_layers <= 0 and args.feature and args.feature_mode == "merge":
            raise ConfigError("--feature-mode merge adds the feature after the S2W merge: give --s2w-layers N")
        config = TaggerConfig(
            task=args.task, teacher=args.teacher, policy=args.policy, char_encoder=args.char_encoder, pool=args.pool,
            head=args.head, char_fusion=args.char_fusion, s2w_layers=args.s2w_layers, feature=args.feature,
            feature_mode=args.feature_mode,
            epochs=args.epochs, batch_size=args.batch_size, lr=args.lr, head_lr=args.head_lr,
            encoder_lr=args.encoder_lr, patience=args.patience,
            max_steps=args.max_steps, train_sentences=args.train_sentences, dev_sentences=args.dev_sentences,
            seed=args.seed, data_dir=args.data_dir)
    config.validate()
    from charwise.hybrid.policies import get_policy

    get_policy(config.policy)  # a bad policy fails before any data or model is loaded
    data = load_task(config.task, config.data_dir)
    result = train_tagger(config, args.out, data=data, progress=progress_mode(args), resume=args.resume,
                          log=lambda m: print(m, file=sys.stderr))
    summary: dict[str, Any] = {"out": str(args.out), "best_dev": result.best_dev, "best_epoch": result.best_epoch,
                               "epochs": result.epochs_run, "steps": result.steps,
                               "minutes_per_epoch": result.minutes_per_epoch}
    if not args.no_test:
        tagger = load_tagger(args.out)
        summary["test"] = evaluate_tagger(tagger, data.test, metric=data.spec.metric,
                                          train_words=tagger.train_words)["score"]
    print(json.dumps(summary, indent=2))
    return 0


def _format_row(noise: float, r: dict[str, Any]) -> str:
    splits = ("acc_single", "acc_multi", "acc_unseen", "f1_single", "f1_multi")
    extra = "  ".join(f"{k} {100 * r[k]:.2f}" for k in splits if k in r)
    return f"noise {noise:<4g}  score {100 * r['score']:.2f}  accuracy {100 * r['accuracy']:.2f}  {extra}"


def cmd_tag_eval(args: argparse.Namespace) -> int:
    from charwise.devices import check_device
    from charwise.hybrid.policies import get_policy
    from charwise.tagging import evaluate_tagger, load_tagger
    from charwise.tagging.data import load_task

    for rate in args.noise:
        if not 0.0 <= rate <= 1.0:
            raise ConfigError(f"--noise must be in [0, 1], got {rate}")
    check_min("--max-sentences", args.max_sentences, 0)
    if args.json:
        check_output_file(args.json, "--json")
    if args.policy is not None:
        get_policy(args.policy)  # a bad policy fails before the model loads
    if args.device is not None:
        check_device(args.device)
    tagger = with_policy(load_tagger(args.dir, args.device), args.policy)
    print(f"scoring {args.dir} ...", file=sys.stderr)
    task = tagger.config.task
    if task not in TASKS:
        raise ConfigError(f"the tagger was trained on {task!r}, not a built-in task: evaluate it from Python")
    data = load_task(task, args.data_dir or tagger.config.data_dir, splits=(args.split,))
    sentences = getattr(data, args.split)
    if args.max_sentences > 0:
        sentences = sentences[: args.max_sentences]
    results = {}
    print(f"{task} {args.split} ({len(sentences)} sentences, metric {data.spec.metric})")
    for rate in args.noise:
        r = evaluate_tagger(tagger, sentences, metric=data.spec.metric, train_words=tagger.train_words,
                            noise=rate, seed=args.seed)
        results[f"{rate:g}"] = r
        print(_format_row(rate, r))
    if args.json:
        write_json(args.json, {"task": task, "split": args.split, "results": results})
    return 0
