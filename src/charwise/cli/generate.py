"""``charwise generator``: train a word head for a causal LM and generate beyond its vocabulary."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from charwise.cli.common import (
    DECODER_HELP,
    argument_text,
    check_int_min,
    check_min,
    check_positive,
    check_unit,
    decoder_directory,
)
from charwise.cli.progress import add_progress_option, progress_mode
from charwise.io import check_input_file, read_json
from charwise.training.config import GeneratorConfig

POLICY_HELP = "which words the LM reads from characters (a hybrid policy)"


def add_parser(sub: Any) -> None:
    """Register ``generator`` (train, generate)."""
    d = GeneratorConfig(decoder="-")
    g = sub.add_parser("generator", help="open-vocabulary generation for a causal LM (train, generate)")
    gsub = g.add_subparsers(dest="generator_command", required=True)
    t = gsub.add_parser("train", help="train the head that maps the LM's state before a word to a vector to spell")
    t.add_argument("corpus", nargs="+", help="training sentences: plain text, CoNLL or CoNLL-U files")
    t.add_argument("--decoder", required=True, help=DECODER_HELP + ", trained for the teacher's encoder")
    t.add_argument("--out", required=True, help="output directory (generator/, checkpoint/, log.jsonl)")
    t.add_argument("--teacher", default=d.teacher, help="a causal LM: smollm2 or a model directory")
    t.add_argument("--encoder", default=None, help="the hybrid LM's encoder (default: the teacher's shipped one)")
    t.add_argument("--policy", default=d.policy, help=POLICY_HELP)
    t.add_argument("--steps", type=int, default=d.steps)
    t.add_argument("--batch-size", type=int, default=d.batch_size)
    t.add_argument("--lr", type=float, default=d.lr)
    t.add_argument("--typo-rate", type=float, default=d.typo_rate, help="typo probability per eligible word")
    t.add_argument("--clean-share", type=float, default=d.clean_share, help="share of sentences read without typos")
    t.add_argument("--eval-every", type=int, default=d.eval_every)
    t.add_argument("--seed", type=int, default=d.seed)
    t.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    add_progress_option(t, quiet=True)
    t.set_defaults(func=cmd_train)
    s = gsub.add_parser("generate", help="continue a prompt; words the decoder wrote are marked [like this]")
    s.add_argument("generator", help="a generator directory (OUT/generator of `charwise generator train`)")
    s.add_argument("prompt")
    s.add_argument("--words", type=int, default=10, help="words to generate")
    s.add_argument("--errors", default="strict", choices=["strict", "replace"],
                   help="undecodable input: stop (strict) or use U+FFFD (replace)")
    s.set_defaults(func=cmd_generate)


def cmd_train(args: argparse.Namespace) -> int:
    from charwise.hybrid.policies import get_policy
    from charwise.training.generation import CONFIG_FILE, GENERATOR_DIR, GeneratorTrainer

    out = Path(args.out)
    if args.resume and (out / CONFIG_FILE).exists():
        config = GeneratorConfig(**read_json(out / CONFIG_FILE))
    else:
        for flag, value in (("--steps", args.steps), ("--batch-size", args.batch_size),
                            ("--eval-every", args.eval_every)):
            check_int_min(flag, value, 1)
        check_positive("--lr", args.lr)
        check_unit("--typo-rate", args.typo_rate)
        check_unit("--clean-share", args.clean_share)
        get_policy(args.policy)
        for path in args.corpus:
            check_input_file(path, "corpus file")
        decoder = str(decoder_directory(args.decoder))
        config = GeneratorConfig(corpora=list(args.corpus), decoder=decoder, teacher=args.teacher,
                                 encoder=args.encoder or "", policy=args.policy, steps=args.steps,
                                 batch_size=args.batch_size, lr=args.lr, typo_rate=args.typo_rate,
                                 clean_share=args.clean_share, eval_every=args.eval_every, seed=args.seed)
    trainer = GeneratorTrainer(config, out, progress=progress_mode(args))
    trainer.train(resume=args.resume)
    if trainer.accelerator.is_main_process:
        print(f"generator written to {out / GENERATOR_DIR} (validation next-word accuracy of the decoder: "
              f"{trainer.engine.state.best:.4f})", file=sys.stderr)
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from charwise.hybrid.generation import WordGenerator
    from charwise.words import split_words

    check_min("--words", args.words, 1)
    prompt = argument_text(args, args.prompt, "the prompt")
    generator = WordGenerator.load(args.generator)
    text, from_decoder = generator.generate(prompt, words=args.words)
    words = split_words(text)
    start = len(words.words) - len(from_decoder)
    shown = [f"[{w}]" if k >= start and from_decoder[k - start] else w for k, w in enumerate(words.words)]
    print("".join((" " if s and k else "") + w for k, (w, s) in enumerate(zip(shown, words.space_before))))
    return 0
