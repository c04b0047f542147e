"""``charwise correct`` and ``charwise speller train``: spelling correction with :class:`~charwise.speller.Speller`."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from charwise.cli.common import (
    add_input_options,
    argument_text,
    check_input_options,
    check_int_min,
    check_unit,
    input_lines,
    output_sink,
)
from charwise.io import check_output_dir, check_output_file

CORRECT_BLOCK = 256  # lines corrected at a time (the first block is one line, so output starts at once)
LANGUAGE_CHOICES = ("en", "es")


def add_parser(sub: Any) -> None:
    """Register ``correct`` and ``speller train``."""
    c = sub.add_parser("correct", help="correct misspelled words of a text (changes marked, or --json)")
    c.add_argument("file", nargs="?", default="-", help="UTF-8 text, one sentence per line ('-': stdin)")
    c.add_argument("--text", help="correct this text instead of a file")
    c.add_argument("--language", default="en", choices=LANGUAGE_CHOICES)
    c.add_argument("--encoder",
                   help="shipped encoder name or an encoder directory (default: the scorer's encoder)")
    c.add_argument("--scorer", help="a speller scorer directory (default: the shipped one of the language)")
    c.add_argument("--lexicon", action="append", default=[], metavar="FILE",
                   help="a file of words to accept as written, one per line (repeatable)")
    c.add_argument("--threshold", type=float,
                   help="change a word when the probability of its correction reaches this (default: the tuned one)")
    c.add_argument("--suggestions", type=int, default=5, help="candidates kept per word in --json output")
    c.add_argument("--out", help="write the output to this file instead of standard output")
    c.add_argument("--json", action="store_true",
                   help="one JSON object per line: each word looked at, its candidates and probabilities")
    c.add_argument("--plain", action="store_true", help="the corrected text without change marks")
    add_input_options(c)
    c.set_defaults(func=cmd_correct)

    from charwise.training.speller import ScorerTraining

    defaults = ScorerTraining()
    s = sub.add_parser("speller", help="fit a speller's scorer (train)")
    ssub = s.add_subparsers(dest="speller_command", required=True)
    t = ssub.add_parser("train", help="fit the ranker and the judge from the error model")
    t.add_argument("--language", default="en", choices=LANGUAGE_CHOICES)
    t.add_argument("--encoder", help="shipped encoder name or directory (default: minilm for en, "
                                     "e5-multilingual for es)")
    t.add_argument("--out", required=True, help="output directory (config.json, model.safetensors, training.json)")
    t.add_argument("--words", type=int, default=defaults.words, help="misspelled training words drawn from the lexicon")
    t.add_argument("--negatives", type=int, default=defaults.negatives,
                   help="lexicon words taken out as valid unknown words")
    t.add_argument("--threshold", type=float, default=defaults.threshold,
                   help="the probability at which `correct` changes a word, stored with the scorer")
    t.add_argument("--seed", type=int, default=defaults.seed)
    t.set_defaults(func=cmd_train)


def cmd_correct(args: argparse.Namespace) -> int:
    from tqdm.auto import tqdm

    from charwise.speller import Speller, SpellerSettings

    check_input_options(args)
    check_int_min("--suggestions", args.suggestions, 1)
    if args.threshold is not None:
        check_unit("--threshold", args.threshold)
    if args.out:
        check_output_file(args.out, "--out")
    text = argument_text(args, args.text, "--text") if args.text is not None else None
    lines = iter([text]) if text is not None else input_lines(args, args.file)
    speller = Speller.load(args.language, encoder=args.encoder, scorer=args.scorer, word_files=tuple(args.lexicon),
                           settings=SpellerSettings(threshold=args.threshold, suggestions=args.suggestions))
    bar = tqdm(desc="correct", unit=" lines", disable=None if text is None and args.file != "-" else True,
               file=sys.stderr)
    changed, block_size = 0, 1
    with output_sink(args.out) as sink:
        while True:
            block = [line for _, line in zip(range(block_size), lines)]
            if not block:
                break
            block_size = CORRECT_BLOCK
            for result in speller.correct_lines(block):
                changed += sum(w.changed for w in result.words)
                if args.json:
                    sink.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
                else:
                    sink.write((result.corrected if args.plain else result.marked()) + "\n")
            if hasattr(sink, "flush"):
                sink.flush()
            bar.update(len(block))
    bar.close()
    print(f"{changed} words corrected", file=sys.stderr)
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    from charwise.encoders.shipped import load
    from charwise.speller import Lexicon, Speller
    from charwise.speller.scorer import SpellScorer, SpellScorerConfig
    from charwise.speller.speller import DEFAULT_ENCODERS
    from charwise.training.speller import ScorerTraining, fit_scorer

    check_int_min("--words", args.words, 1)
    check_int_min("--negatives", args.negatives, 1)
    check_unit("--threshold", args.threshold)
    out = check_output_dir(args.out, "--out")
    name = args.encoder or DEFAULT_ENCODERS[args.language]
    encoder = load(name)
    lexicon = Lexicon.build(args.language, teacher=encoder.teacher_info.get("name"))
    scorer = SpellScorer(SpellScorerConfig(language=args.language, encoder=name))
    speller = Speller(lexicon, encoder, scorer)
    info = fit_scorer(speller, ScorerTraining(language=args.language, words=args.words, negatives=args.negatives,
                                              threshold=args.threshold, seed=args.seed))
    speller.scorer.save_pretrained(out)
    held = info["ranker_top1_heldout"][info["ranker"]]
    print(f"candidate recall {100 * info['candidate_recall']:.1f} %; ranker {info['ranker']}, held-out top-1 "
          + ", ".join(f"{k} {100 * v:.1f} %" for k, v in held.items())
          + f"; clean dev words changed at {info['dev']['threshold']:g}: {info['dev']['dev_changed']} of "
          f"{info['dev']['dev_words']:,}; saved to {out}")
    return 0
