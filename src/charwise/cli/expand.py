"""``charwise expand``: add words to a model's vocabulary as whole-word tokens with good rows."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Iterator, Sequence

from charwise.cli.common import check_min
from charwise.cli.progress import Progress, add_progress_option
from charwise.errors import ConfigError, InputError, OutputExistsError
from charwise.io import check_output_dir, check_output_file, read_lines, write_json

DEFAULT_MIN_COUNT = 5
SKIPS = (("in_vocab", "already one vocabulary token"), ("not_a_word", "split by the pre-tokenizer"),
         ("duplicates", "duplicates"))


def add_parser(sub: Any) -> None:
    """Register ``expand`` on the main parser's subparsers."""
    x = sub.add_parser("expand", help="add words to a model's vocabulary as whole-word tokens with good rows")
    x.add_argument("--teacher", default="minilm",
                   help="minilm, smollm2, e5-multilingual, a HF model directory or a .gguf file")
    source = x.add_mutually_exclusive_group(required=True)
    source.add_argument("--words", help="UTF-8 file, one word per line ('-' for stdin)")
    source.add_argument("--corpus", help="UTF-8 plain text (a file, or a directory of files), one sentence per "
                        "line: adds the words the tokenizer splits")
    x.add_argument("--min-count", type=int, default=None,
                   help=f"--corpus: least occurrences of a word (default {DEFAULT_MIN_COUNT})")
    x.add_argument("--max-words", type=int, default=0, help="--corpus: add at most this many, most frequent first")
    x.add_argument("--method", default="char+joint",
                   help="mean, char, mixture, joint, or a '+' average of them such as char+joint (default)")
    x.add_argument("--vectors", default="glove50",
                   help="static word vectors for mixture/joint: glove50, a word2vec/GloVe text file or a .npy")
    x.add_argument("--vectors-words", help="word list of a .npy --vectors (default: same stem, .words/.vocab/.txt)")
    x.add_argument("--encoder", default=None, help="character encoder (default: the one shipped for --teacher)")
    x.add_argument("--out", required=True, help="output model directory (tokenizer + weights, plain HF format)")
    x.add_argument("--force", action="store_true", help="replace a non-empty --out")
    x.add_argument("--report", help="also write the expansion report (JSON) to this file")
    add_progress_option(x)
    x.set_defaults(func=cmd_expand)


def _check_flags(args: argparse.Namespace) -> list[str]:
    """The method's parts, after every check that needs no file or model."""
    from charwise.expansion import parse_method

    parts = parse_method(args.method)
    if args.words and args.min_count is not None:
        raise ConfigError("--min-count applies to --corpus, not to --words")
    if args.words and args.max_words:
        raise ConfigError("--max-words applies to --corpus, not to --words")
    check_min("--max-words", args.max_words, 0)
    if args.min_count is not None:
        check_min("--min-count", args.min_count, 1)
    if args.report:
        check_output_file(args.report, "--report")  # before the model is written, not after
    out = check_output_dir(args.out, "--out")
    if out.exists() and not out.is_dir():
        raise OutputExistsError(f"--out {out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not args.force:
        raise OutputExistsError(f"--out {out} exists and is not empty (use --force to replace it)")
    return parts


def _counted(lines: Sequence[str], progress: Progress, every: int = 1000) -> Iterator[str]:
    """``lines``, with ``progress`` told of every ``every`` of them read (and of the rest at the end)."""
    for n, line in enumerate(lines, 1):
        yield line
        if n % every == 0:
            progress.update(every)
    progress.update(len(lines) % every)


def cmd_expand(args: argparse.Namespace) -> int:
    from charwise.expansion import (
        STATIC_METHODS,
        Expander,
        StaticVectors,
        default_encoder,
        read_corpus_lines,
        select_from_corpus,
        select_words,
        write_expanded_model,
    )
    from charwise.teachers import Teacher

    # Cheap checks first: a bad method, option, output or input file fails before any model loads.
    parts = _check_flags(args)
    min_count = DEFAULT_MIN_COUNT if args.min_count is None else args.min_count
    lines = read_lines(args.words) if args.words else read_corpus_lines(args.corpus)
    vectors = None
    if any(p in STATIC_METHODS for p in parts):
        vectors = StaticVectors.load(args.vectors, args.vectors_words)
    teacher = Teacher.load(args.teacher)
    # a corpus goes through the tokenizer's normaliser and pre-tokenizer line by line: the long part
    progress = Progress("expand", "lines", len(lines), args.progress)
    counted = _counted(lines, progress)
    if args.words:
        selection = select_words(teacher, counted)
    else:
        selection = select_from_corpus(teacher, counted, min_count, args.max_words)
    progress.close()
    skips = [(why, getattr(selection, key)) for key, why in SKIPS]
    if not selection.words:
        counts = ", ".join(f"{len(skipped)} {why}" for why, skipped in skips if skipped)
        raise InputError(f"no new words to add from {args.words or args.corpus}" + (f" ({counts})" if counts else ""))
    for why, skipped in skips:
        if skipped:
            shown = ", ".join(skipped[:8]) + (", ..." if len(skipped) > 8 else "")
            print(f"skipped {len(skipped)} ({why}): {shown}", file=sys.stderr)
    # The encoder serves 'char' and is the fallback of mixture/joint for words without a static vector.
    needs_encoder = "char" in parts or vectors is not None or args.encoder is not None
    encoder = default_encoder(teacher, args.encoder) if needs_encoder else None
    if "char" in parts and encoder is None:
        raise ConfigError(f"method '{args.method}' needs a character encoder trained for teacher '{args.teacher}': "
                          "pass --encoder, or use --method mean, mixture or joint")
    rows = Expander(teacher, vectors=vectors, encoder=encoder).rows(selection.words, args.method)
    report = {"inputs": {"teacher": args.teacher, "words": args.words, "corpus": args.corpus,
                         "min_count": args.min_count if args.words else min_count,
                         "vectors": vectors.source if vectors is not None else None,
                         "encoder": args.encoder or (teacher.name if encoder is not None else None)}}
    result = write_expanded_model(teacher, selection, rows, args.out, force=args.force, report=report)
    if rows.fallbacks:
        print(f"{len(rows.fallbacks)} words without a static vector used '{rows.info['fallback']['method']}'",
              file=sys.stderr)
    if "joint" in rows.info:
        align = rows.info["joint"]["alignment"]
        print(f"joint alignment: prec@1 {align['prec@1']:.3f} on {align['heldout']} held-out shared words",
              file=sys.stderr)
    if args.report:
        write_json(args.report, result)
    print(f"added {result['added']} words (ids {result['first_id']}..{result['vocab_size'] - 1}, method {args.method}) "
          f"to {args.out}")
    return 0
