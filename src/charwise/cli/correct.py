"""``charwise correct`` and ``charwise speller train``: spelling correction with :class:`~charwise.speller.Speller`.

``correct`` writes back every character it reads: it reads through
:func:`~charwise.cli.common.input_windows`, so a line longer than ``--max-line-chars`` is corrected
window by window (windows cut after whitespace, each corrected as the continuation of the one
before: a sentence start carries over) and written back whole, and a longer stretch without
whitespace is written back as it is. Memory stays bounded by the window, not by the line (with
``--json``, one object per line holds the line's text and its looked-at words).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from typing import Any, Callable, Iterator

from charwise.cli.common import (
    add_input_options,
    argument_text,
    check_input_options,
    check_int_min,
    check_unit,
    input_windows,
    output_sink,
)
from charwise.errors import ConfigError
from charwise.io import TextWindow, check_output_dir, check_output_file, text_windows

CORRECT_BLOCK = 256  # lines corrected at a time (the first block is one line, so output starts at once)
LANGUAGE_CHOICES = ("en", "es")
CONTEXT_CHOICES = ("ngram", "smollm2")  # charwise.speller.neural.CONTEXT_MODELS (not imported: startup time)
# charwise.speller.corrections.CHANGE_KINDS (not imported: startup time; a test keeps them equal)
CHANGE_KINDS = ("spelling", "real_word", "accent", "normalisation", "split")


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
    c.add_argument("-k", "--suggestions", type=int, default=5, help="candidates kept per word in --json output (>= 1)")
    c.add_argument("--out", help="write the output to this file instead of standard output")
    c.add_argument("--json", action="store_true",
                   help="one JSON object per line: each word looked at, its candidates and probabilities")
    c.add_argument("--plain", action="store_true", help="the corrected text without change marks")
    c.add_argument("--context", default="ngram", choices=CONTEXT_CHOICES,
                   help="context for words in doubt: ngram (bigrams, fast) or smollm2 (a neural LM, English only)")
    c.add_argument("--device", help="where --context smollm2 runs: cpu (default), cuda, cuda:1...")
    c.add_argument("--protect", action="append", default=[], metavar="REGEX",
                   help="leave what this regular expression matches as written (repeatable); URLs, e-mails, "
                        "@handles, #hashtags, paths, identifiers, numbers and emoticons always are")
    c.add_argument("--style", default="standard", choices=("standard", "social"),
                   help="standard (edited text) or social (tweets, chat: corrections unlikely in informal "
                        "text, where unknown words are often names and slang, are undone)")
    c.add_argument("--skip", action="append", default=[], metavar="KIND", choices=CHANGE_KINDS,
                   help=f"never make this kind of change (repeatable): {', '.join(CHANGE_KINDS)}")
    add_input_options(c, windows=True)
    c.set_defaults(func=cmd_correct)

    from charwise.training.scorer import ScorerTraining

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
    t.add_argument("--sentence-words", type=int, default=defaults.sentence_words,
                   help="misspellings put into training sentences, read between their neighbours "
                        "(0: a scorer that reads no context)")
    t.add_argument("--threshold", type=float, default=defaults.threshold,
                   help="the probability at which `correct` changes a word, stored with the scorer")
    t.add_argument("--seed", type=int, default=defaults.seed)
    t.set_defaults(func=cmd_train)


def cmd_correct(args: argparse.Namespace) -> int:
    from tqdm.auto import tqdm

    from charwise.speller import Speller, SpellerSettings

    check_input_options(args)
    check_int_min("-k/--suggestions", args.suggestions, 1)
    if args.threshold is not None:
        check_unit("--threshold", args.threshold)
    if args.out:
        check_output_file(args.out, "--out")
    from charwise.words import compile_patterns

    compile_patterns(args.protect)  # a bad pattern is refused before anything loads
    text = argument_text(args, args.text, "--text") if args.text is not None else None
    windows = text_windows(text, args.max_line_chars) if text is not None else input_windows(args, args.file)
    # the first line is read (and checked: a binary or non-UTF-8 file is refused) before the models
    # load, which takes seconds; an empty input is answered without them
    first = next(windows, None)
    if first is None:
        with output_sink(args.out):
            pass
        print("0 words corrected", file=sys.stderr)
        return 0
    windows = itertools.chain([first], windows)
    if args.device is not None:
        if args.context == "ngram":
            raise ConfigError("--device is where --context smollm2 runs; the ngram context needs none")
        from charwise.devices import check_device

        check_device(args.device)
    speller = Speller.load(args.language, encoder=args.encoder, scorer=args.scorer, word_files=tuple(args.lexicon),
                           settings=SpellerSettings(threshold=args.threshold, suggestions=args.suggestions,
                                                    protect=tuple(args.protect), style=args.style,
                                                    changes=tuple(k for k in CHANGE_KINDS if k not in args.skip)),
                           context=args.context, device=args.device)
    bar = tqdm(desc="correct", unit=" lines", disable=None if text is None and args.file != "-" else True,
               file=sys.stderr)
    mode = "json" if args.json else "plain" if args.plain else "marked"
    with output_sink(args.out) as sink:
        changed = correct_windows(speller, windows, sink, mode, bar.update)
    bar.close()
    print(f"{changed} words corrected", file=sys.stderr)
    return 0


def correct_windows(speller: Any, windows: Iterator[TextWindow], sink: Any, mode: str = "marked",
                    progress: Callable[[int], Any] | None = None) -> int:
    """Correct the lines given as windows (:func:`charwise.io.iter_windows`) and write each one
    to ``sink`` followed by a newline: ``mode`` ``"marked"`` (changes as ``[word -> correction]``),
    ``"plain"`` or ``"json"`` (one object per line, as :meth:`CorrectedText.to_dict`). Whole lines
    are corrected a block at a time; a line in several windows window by window, each window
    starting where the sentence state of the one before left off, verbatim windows written back as
    they are. Returns the number of words changed; ``progress(n)`` is told of each ``n`` lines done."""
    changed, block_size = 0, 1
    block: list[str] = []

    def write_block() -> None:
        nonlocal changed, block_size
        for result in speller.correct_lines(block):
            changed += sum(w.changed for w in result.words)
            sink.write(_shown(result, mode) + "\n")
        if hasattr(sink, "flush"):
            sink.flush()
        if progress is not None:
            progress(len(block))
        block.clear()
        block_size = CORRECT_BLOCK  # the first block is one line, so output starts at once

    long_line: _LongLine | None = None
    for window in windows:
        if window.whole_line and not window.verbatim:
            block.append(window.text)
            if len(block) >= block_size:
                write_block()
            continue
        if block:
            write_block()
        if long_line is None:
            long_line = _LongLine(speller, sink, mode)
        changed += long_line.add(window)
        if window.line_end:
            long_line = None
            if progress is not None:
                progress(1)
    if block:
        write_block()
    return changed


def _shown(result: Any, mode: str) -> str:
    if mode == "json":
        return json.dumps(result.to_dict(), ensure_ascii=False)
    return result.corrected if mode == "plain" else result.marked()


class _LongLine:
    """One line that comes in several windows (or a verbatim one), written as it is corrected
    (``--json``: gathered, then written as one object with offsets into the whole line)."""

    def __init__(self, speller: Any, sink: Any, mode: str) -> None:
        self.speller, self.sink, self.mode = speller, sink, mode
        self.start = True  # whether the next window begins a sentence
        self.offset = 0  # characters of the line before the next window
        self.texts: list[str] = []
        self.corrected: list[str] = []
        self.words: list[dict[str, Any]] = []

    def add(self, window: TextWindow) -> int:
        """Correct and write (or gather) one window; returns the words it changed."""
        changed = 0
        if window.verbatim:
            shown = corrected = window.text
            self.start = self.speller.sentence_start_after([window.text], self.start)
        else:
            (result,) = self.speller.correct_lines([window.text], starts=[self.start])
            self.start = self.speller.sentence_start_after([w.word for w in result.words], self.start)
            changed = sum(w.changed for w in result.words)
            corrected = result.corrected
            shown = corrected if self.mode == "plain" else result.marked()
            if self.mode == "json":
                for entry in result.to_dict()["words"]:
                    entry["start"] += self.offset
                    entry["end"] += self.offset
                    self.words.append(entry)
        if self.mode == "json":
            self.texts.append(window.text)
            self.corrected.append(corrected)
        else:
            self.sink.write(shown)
        self.offset += len(window.text)
        if window.line_end:
            if self.mode == "json":
                line = {"text": "".join(self.texts), "corrected": "".join(self.corrected), "words": self.words}
                self.sink.write(json.dumps(line, ensure_ascii=False))
            self.sink.write("\n")
            if hasattr(self.sink, "flush"):
                self.sink.flush()
        return changed


def cmd_train(args: argparse.Namespace) -> int:
    from charwise.encoders.shipped import load
    from charwise.speller import Lexicon
    from charwise.speller.features import Featurizer
    from charwise.training.scorer import ScorerTraining, fit_scorer

    check_int_min("--words", args.words, 1)
    check_int_min("--negatives", args.negatives, 1)
    check_int_min("--sentence-words", args.sentence_words, 0)
    check_unit("--threshold", args.threshold)
    out = check_output_dir(args.out, "--out")
    config = ScorerTraining(language=args.language, encoder=args.encoder or "", words=args.words,
                            negatives=args.negatives, sentence_words=args.sentence_words,
                            threshold=args.threshold, seed=args.seed)
    encoder = load(config.encoder)
    lexicon = Lexicon.build(args.language, teacher=encoder.teacher_info.get("name"))
    scorer, info = fit_scorer(Featurizer(lexicon, encoder), config)
    scorer.save_pretrained(out)
    held = info["ranker_top1_heldout"][info["ranker"]]
    print(f"candidate recall {100 * info['candidate_recall']:.1f} %; ranker {info['ranker']}, held-out top-1 "
          + ", ".join(f"{k} {100 * v:.1f} %" for k, v in held.items())
          + f"; clean dev words changed at {info['dev']['threshold']:g}: {info['dev']['dev_changed']} of "
          f"{info['dev']['dev_words']:,}; saved to {out}")
    return 0
