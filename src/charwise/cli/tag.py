"""``charwise tag train|eval|predict``: the command-line face of :mod:`charwise.tagging`.

:func:`add_parser` registers the group on the main parser. Errors are charwise's own
(:mod:`charwise.errors`) or file errors, which ``charwise.cli.main`` prints as one line with exit
status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from charwise.cli.common import add_input_options, check_input_options, check_min
from charwise.errors import ConfigError, InputError
from charwise.io import (
    FORMATS,
    ReadReport,
    atomic_file,
    check_input_file,
    check_output_dir,
    check_output_file,
    read_json,
    write_json,
)
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
    t.add_argument("--quiet", action="store_true", help="no progress bar")
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
    e.set_defaults(func=cmd_tag_eval)

    p = tsub.add_parser("predict", help="tag the sentences of a file; prints CoNLL (word TAB tag)")
    p.add_argument("dir", help="a training run's --out directory or its tagger/ directory")
    p.add_argument("file", help="plain text (one sentence per line), CoNLL or CoNLL-U ('-' for stdin)")
    p.add_argument("--format", default="auto", choices=list(FORMATS))
    p.add_argument("--out", help="write the CoNLL output here instead of stdout")
    p.add_argument("--policy", default=None, help=OVERRIDE_POLICY_HELP)
    add_input_options(p, windows=True)
    p.set_defaults(func=cmd_tag_predict)


OVERRIDE_POLICY_HELP = ("read the input with this policy instead of the tagger's own (e.g. repair in front of a "
                        "tagger trained with none; policies that build words from characters need the tagger to "
                        "have an encoder)")


def _with_policy(tagger: Any, policy: str | None) -> Any:
    """The tagger reading its input with ``policy`` (its own when None); word counts never change."""
    if policy is None:
        return tagger
    from charwise.hybrid.policies import get_policy

    chosen = get_policy(policy, tagger.config.seed)
    if chosen.needs_encoder and tagger.hybrid.encoder is None:
        raise ConfigError(f"--policy {policy} builds words from characters, but this tagger has no character "
                          "encoder: use repair or none, or train the tagger with such a policy")
    tagger.hybrid.policy = chosen
    return tagger


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
    result = train_tagger(config, args.out, data=data, progress=not args.quiet, resume=args.resume,
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
    tagger = _with_policy(load_tagger(args.dir), args.policy)
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


def _read_for_prediction(path: str, format: str, args: argparse.Namespace | None = None
                         ) -> tuple[list[list[str]], dict[str, list[list[str]]]]:
    """Sentences of words (and their CoNLL-U columns) from a text, CoNLL or CoNLL-U file."""
    from charwise.corpora import parse_labelled_conll, parse_labelled_conllu
    from charwise.io import detect_format, iter_windows, read_lines, text_sentences, whole_lines

    report = ReadReport()
    errors, max_chars = (args.errors, args.max_line_chars) if args is not None else ("strict", None)
    # Every word is written back with its tag: a long line is read a window at a time but never cut.
    lines = (list(whole_lines(iter_windows(path, errors=errors, max_chars=max_chars, report=report)))
             if max_chars is not None else read_lines(path, errors=errors, report=report))
    report.verbatim = 0  # lines joined back whole: no stretch was left unread
    for message in report.warnings("<stdin>" if path == "-" else path, max_chars):
        print(f"charwise: warning: {message}", file=sys.stderr)
    if format == "auto":
        format = detect_format(path, lines)
    if format == "conllu":
        sentences = parse_labelled_conllu(lines, strict=False, source=path)
        columns = {name: [s.columns[name] for s in sentences] for name in (sentences[0].columns if sentences else {})}
        return [s.words for s in sentences], columns
    if format == "conll":
        return [s.words for s in parse_labelled_conll(lines, require_tags=False, source=path)], {}
    return text_sentences(lines), {}


def cmd_tag_predict(args: argparse.Namespace) -> int:
    from charwise.hybrid.policies import get_policy
    from charwise.tagging.model import load_tagger

    check_input_options(args)
    if args.file != "-":
        check_input_file(args.file)
    if args.out:
        check_output_file(args.out, "--out")
    if args.policy is not None:
        get_policy(args.policy)
    sentences, columns = _read_for_prediction(args.file, args.format, args)  # a bad file fails before the model loads
    tagger = _with_policy(load_tagger(args.dir), args.policy)
    features = None
    if tagger.config.feature:
        if tagger.config.feature not in columns:
            raise InputError(f"this tagger uses the word feature {tagger.config.feature!r}: "
                             "give a CoNLL-U file that has it")
        features = columns[tagger.config.feature]
    # A sentence longer than the model's window is tagged in consecutive pieces that fit, so that
    # memory stays bounded by the window and every word gets a tag of its own.
    ad = tagger.hybrid.adapter
    window = max(1, ad.max_length - len(ad.prefix_ids) - len(ad.suffix_ids))
    pieces, owner = [], []
    piece_features: list[list[str]] | None = [] if features is not None else None
    for n, words in enumerate(sentences):
        for start in range(0, max(len(words), 1), window):
            pieces.append(words[start : start + window])
            owner.append(n)
            if piece_features is not None and features is not None:
                piece_features.append(features[n][start : start + window])
    long = sum(1 for words in sentences if len(words) > window)
    if long:
        print(f"charwise: warning: {long} sentences had more than {window} words (the model's window) and were "
              f"tagged {window} words at a time", file=sys.stderr)
    piece_tags = tagger.predict(pieces, piece_features, batch_size=tagger.config.eval_batch_size)
    tags: list[list[str]] = [[] for _ in sentences]
    for n, t in zip(owner, piece_tags):
        tags[n].extend(t)
    text = "".join("".join(f"{w}\t{t}\n" for w, t in zip(ws, ts)) + "\n" for ws, ts in zip(sentences, tags))
    if args.out:
        with atomic_file(args.out) as f:
            f.write(text)
        print(f"{len(sentences)} sentences tagged, written to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
