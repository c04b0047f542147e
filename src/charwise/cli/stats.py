"""``charwise stats``: how much a teacher's tokenizer fragments the words of a corpus."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from charwise.cli.common import add_input_options, check_input_options, check_min, scan_input
from charwise.cli.progress import Progress, add_progress_option
from charwise.errors import ConfigError
from charwise.io import FORMATS, ReadReport, check_output_file, write_json


def add_parser(sub: Any) -> None:
    """Register ``stats`` on the main parser's subparsers."""
    s = sub.add_parser("stats", help="how much a teacher's tokenizer fragments the words of a corpus")
    s.add_argument("corpus", nargs="+", help="corpus files: plain text, CoNLL or CoNLL-U ('-' for stdin)")
    s.add_argument("--teacher", action="append", default=None,
                   help="minilm, smollm2, e5-multilingual, a HF model directory or a .gguf file "
                        "(repeatable; default minilm)")
    s.add_argument("--format", default="auto", choices=list(FORMATS),
                   help="corpus format (auto: from the extension / content)")
    s.add_argument("--json", help="write the statistics as JSON to this file")
    s.add_argument("--plot", help="write a PNG of the pieces-per-word histograms (a .png file name)")
    s.add_argument("--top", type=int, default=20, help="how many of the most shattered words to list")
    s.add_argument("--keep-hash-lines", action="store_true",
                   help="CoNLL: keep token lines starting with '#' (by default they are comments)")
    add_input_options(s)
    add_progress_option(s)
    s.set_defaults(func=cmd_stats)


def cmd_stats(args: argparse.Namespace) -> int:
    from charwise.corpora import read_sentences
    from charwise.corpora.stats import corpus_stats, format_table, plot_stats, word_types
    from charwise.teachers import Teacher

    check_min("--top", args.top, 0)
    check_input_options(args)
    if args.json:
        check_output_file(args.json, "--json")
    if args.plot:
        check_output_file(args.plot, "--plot")
        if not args.plot.lower().endswith(".png"):
            raise ConfigError(f"--plot writes a PNG: give a file name ending in .png, got {args.plot}")
    # Read every corpus before loading any teacher: a bad file fails fast.
    for path in args.corpus:  # binary, or not UTF-8 anywhere: refused before anything is read into memory
        scan_input(args, path)
    corpora = []
    for path in args.corpus:
        report = ReadReport()
        corpora.append((path, read_sentences(path, args.format, comments=not args.keep_hash_lines, errors=args.errors,
                                             max_chars=args.max_line_chars, report=report)))
        for message in report.warnings("<stdin>" if path == "-" else path, args.max_line_chars):
            print(f"charwise: warning: {message}", file=sys.stderr)
    counts = [word_types(sentences) for _, sentences in corpora]
    teachers = args.teacher or ["minilm"]
    # the word types of every corpus, tokenised by every teacher: the part that grows with the corpus
    progress = Progress("stats", "word types", len(teachers) * sum(map(len, counts)), args.progress)
    results = []
    for name in teachers:
        teacher = Teacher.load(name)
        for (path, sentences), types in zip(corpora, counts):
            results.append(corpus_stats(teacher, sentences, top=args.top, corpus=path, progress=progress.update,
                                        counts=types))
    progress.close()
    print(format_table(results))
    if args.json:
        write_json(args.json, results[0] if len(results) == 1 else results)
    if args.plot:
        plot_stats(results, args.plot)
    return 0
