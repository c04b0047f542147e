"""``charwise translate``: Spanish -> English translation models (train, eval, translate)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from charwise.cli.common import (
    add_input_options,
    argument_text,
    check_input_options,
    check_int_min,
    check_min,
    check_positive,
    check_unit,
    input_lines,
    output_sink,
)
from charwise.cli.progress import add_progress_option, progress_mode
from charwise.io import check_input_file, check_output_dir, check_output_file, read_json, write_json
from charwise.presets import (
    TRANSLATION_ARCHITECTURES,
    TRANSLATION_BEAM,
    TRANSLATION_FEATURE_MODES,
    TRANSLATION_FEATURES,
    TRANSLATION_LENGTH_PENALTY,
    TRANSLATION_SPLITS,
)
from charwise.training.config import TranslateConfig

TRANSLATE_BLOCK = 256  # lines read and translated at a time


def add_parser(sub: Any) -> None:
    """Register ``translate`` (train, eval, translate, average)."""
    d = TranslateConfig()
    g = sub.add_parser("translate", help="Spanish -> English Transformer and S2W translation models (train, eval, "
                                         "translate, average)")
    gsub = g.add_subparsers(dest="translate_command", required=True)
    t = gsub.add_parser("train", help="train a translation model on the verse-aligned Bible")
    t.add_argument("--out", required=True, help="output directory (model/, checkpoint/, log.jsonl)")
    t.add_argument("--architecture", default=d.architecture, choices=TRANSLATION_ARCHITECTURES,
                   help="transformer; s2w: subwords merged into words inside the encoder; s2w-words: its decoder "
                        "reads word states only")
    t.add_argument("--features", default=d.feature_mode, choices=TRANSLATION_FEATURE_MODES,
                   help="source word features: none; copy (onto every piece); merge (after the S2W merge)")
    t.add_argument("--feature-names", nargs="+", default=d.features, choices=TRANSLATION_FEATURES)
    t.add_argument("--char-vectors", action="store_true", help="S2W: add each word's character vector at the merge")
    t.add_argument("--corpus", default=d.corpus, help="another verse-aligned TSV with ref, es, en columns")
    t.add_argument("--split", default=d.split, choices=TRANSLATION_SPLITS,
                   help="verses: seeded held-out verses; books: held-out books")
    t.add_argument("--dev", type=int, default=d.dev, help="held-out verses for validation (split verses)")
    t.add_argument("--test", type=int, default=d.test, help="held-out verses for testing (split verses)")
    t.add_argument("--max-train-pairs", type=int, default=d.max_train_pairs,
                   help="train on the first N pairs only (0: all)")
    t.add_argument("--vocab", type=int, default=d.source_vocab, help="BPE pieces of each language")
    t.add_argument("--dim", type=int, default=d.dim)
    t.add_argument("--heads", type=int, default=d.heads)
    t.add_argument("--ffn", type=int, default=d.ffn)
    t.add_argument("--encoder-layers", type=int, default=d.encoder_layers)
    t.add_argument("--encoder-subword-layers", type=int, default=d.encoder_subword_layers,
                   help="S2W: encoder layers before the merge")
    t.add_argument("--decoder-layers", type=int, default=d.decoder_layers)
    t.add_argument("--decoder-subword-layers", type=int, default=d.decoder_subword_layers,
                   help="S2W: the last decoder layers, which attend to subword states")
    t.add_argument("--dropout", type=float, default=d.dropout)
    t.add_argument("--steps", type=int, default=d.steps)
    t.add_argument("--batch-tokens", type=int, default=d.batch_tokens, help="target pieces per batch")
    t.add_argument("--lr", type=float, default=d.lr, help="peak Adam rate (inverse square root after warm-up)")
    t.add_argument("--warmup", type=int, default=d.warmup)
    t.add_argument("--eval-every", type=int, default=d.eval_every)
    t.add_argument("--seed", type=int, default=d.seed)
    t.add_argument("--average-last", type=int, default=d.average_last, metavar="K",
                   help="also write OUT/model-averaged, the mean of the weights at the last K evaluations (0: no)")
    t.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    add_progress_option(t, quiet=True)
    t.set_defaults(func=cmd_train)
    e = gsub.add_parser("eval", help="BLEU, chrF, copy accuracy and speed on the model's test (or dev) split")
    e.add_argument("model", help="a model directory (OUT/model of `charwise translate train`)")
    e.add_argument("--split", default="test", choices=["test", "dev"])
    e.add_argument("--beam", type=int, default=TRANSLATION_BEAM)
    e.add_argument("--length-penalty", type=float, default=TRANSLATION_LENGTH_PENALTY)
    e.add_argument("--typos", type=float, default=0.0, help="share of source words given realistic typos")
    e.add_argument("--limit", type=int, default=0, help="the first N sentences only (0: all)")
    e.add_argument("--json", help="write the report (with the translations) to this file")
    add_progress_option(e, quiet=True)
    e.set_defaults(func=cmd_eval)
    r = gsub.add_parser("translate", help="translate Spanish text: one sentence a line, from a file or standard input")
    _translate_options(r)
    r.set_defaults(func=cmd_translate)
    a = gsub.add_parser("average", help="average the weights of several checkpoints of one run (e.g. OUT/snapshots/*)")
    a.add_argument("models", nargs="+", help="model directories of one run")
    a.add_argument("--out", required=True, help="where to write the averaged model")
    a.set_defaults(func=cmd_average)


def _translate_options(r: argparse.ArgumentParser) -> None:
    r.add_argument("model")
    r.add_argument("file", nargs="?", default="-", help="input file ('-' or nothing: standard input)")
    r.add_argument("--text", help="translate this text instead of reading a file")
    r.add_argument("--out", help="write the translations to this file (atomically) instead of standard output")
    r.add_argument("--beam", type=int, default=TRANSLATION_BEAM)
    r.add_argument("--length-penalty", type=float, default=TRANSLATION_LENGTH_PENALTY)
    r.add_argument("--batch-size", type=int, default=32)
    add_input_options(r)


def cmd_train(args: argparse.Namespace) -> int:
    from charwise.training.translation import (
        AVERAGED_DIR,
        CONFIG_FILE,
        MODEL_DIR,
        TranslationTrainer,
    )

    out = Path(args.out)
    if args.resume and (out / CONFIG_FILE).exists():
        config = TranslateConfig(**read_json(out / CONFIG_FILE))
    else:
        for flag, value, low in (("--dev", args.dev, 1), ("--test", args.test, 1), ("--vocab", args.vocab, 300),
                                 ("--max-train-pairs", args.max_train_pairs, 0), ("--warmup", args.warmup, 0),
                                 ("--average-last", args.average_last, 0)):
            check_int_min(flag, value, low)
        check_positive("--lr", args.lr)
        check_unit("--dropout", args.dropout)
        if args.corpus:
            check_input_file(args.corpus, "corpus file")
        config = TranslateConfig(
            architecture=args.architecture, feature_mode=args.features, features=list(args.feature_names),
            char_vectors=args.char_vectors, corpus=args.corpus, split=args.split, dev=args.dev, test=args.test,
            max_train_pairs=args.max_train_pairs, source_vocab=args.vocab, target_vocab=args.vocab, dim=args.dim,
            heads=args.heads, ffn=args.ffn, encoder_layers=args.encoder_layers,
            encoder_subword_layers=args.encoder_subword_layers, decoder_layers=args.decoder_layers,
            decoder_subword_layers=args.decoder_subword_layers, dropout=args.dropout, steps=args.steps,
            batch_tokens=args.batch_tokens, lr=args.lr, warmup=args.warmup, eval_every=args.eval_every,
            seed=args.seed, average_last=args.average_last)
    trainer = TranslationTrainer(config, out, progress=progress_mode(args))
    if trainer.accelerator.is_main_process:
        chars = ", character vectors" if config.char_vectors else ""
        print(f"{config.architecture} (features {config.feature_mode}{chars}): "
              f"{trainer.model.num_parameters():,} parameters, {len(trainer.data.splits['train']):,} training pairs, "
              f"{len(trainer.batches)} batches per epoch", file=sys.stderr)
    trainer.train(resume=args.resume)
    if trainer.accelerator.is_main_process:
        print(f"model written to {out / MODEL_DIR} (dev cross-entropy {-trainer.engine.state.best:.3f})",
              file=sys.stderr)
        if trainer.averaged is not None:
            print(f"averaged model written to {out / AVERAGED_DIR} (dev cross-entropy {trainer.averaged['nll']:.3f})",
                  file=sys.stderr)
    return 0


def _load(path: str) -> Any:
    from charwise.translation.model import TranslationModel

    return TranslationModel.from_pretrained(path)


def cmd_eval(args: argparse.Namespace) -> int:
    check_int_min("--beam", args.beam, 1)
    check_int_min("--limit", args.limit, 0)
    check_min("--length-penalty", args.length_penalty, 0)
    check_unit("--typos", args.typos)
    if args.json:
        check_output_file(args.json, "--json")
    from charwise.translation.evaluate import evaluate_split

    report = evaluate_split(_load(args.model), args.split, args.limit, beam=args.beam,
                            length_penalty=args.length_penalty, typo_rate=args.typos, progress=progress_mode(args))
    if args.json:
        write_json(args.json, report)
    print(f"{report['architecture']} ({report['evaluated_on']}, {report['sentences']} sentences, beam {args.beam}"
          f"{f', typos {args.typos:g}' if args.typos else ''}): BLEU {report['bleu']:.2f}, chrF {report['chrf']:.2f}, "
          f"copied names and numbers {report['copy_accuracy']:.1f} % of {report['copy_candidates']}, "
          f"{report['sentences_per_s']:.1f} sentences/s")
    return 0


def cmd_translate(args: argparse.Namespace) -> int:
    from tqdm.auto import tqdm

    check_int_min("--beam", args.beam, 1)
    check_int_min("--batch-size", args.batch_size, 1)
    check_min("--length-penalty", args.length_penalty, 0)
    check_input_options(args)
    if args.out:
        check_output_file(args.out, "--out")
    if args.text is None and args.file != "-":
        check_input_file(args.file)
    model = _load(args.model)
    lines = iter([argument_text(args, args.text, "--text")]) if args.text is not None else input_lines(args, args.file)
    bar = tqdm(desc="translate", unit=" lines", disable=None if args.text is None and args.file != "-" else True,
               file=sys.stderr)
    with output_sink(args.out) as sink:
        while True:
            block = [line for _, line in zip(range(TRANSLATE_BLOCK), lines)]
            if not block:
                break
            for line in model.translate(block, beam=args.beam, length_penalty=args.length_penalty,
                                        batch_size=args.batch_size):
                sink.write(line + "\n")
            bar.update(len(block))
    bar.close()
    return 0


def cmd_average(args: argparse.Namespace) -> int:
    from charwise.translation.averaging import average_models

    check_output_dir(args.out, "--out")
    model = average_models(args.models)
    model.save_pretrained(args.out)
    print(f"the mean of {len(args.models)} checkpoints written to {args.out}", file=sys.stderr)
    return 0
