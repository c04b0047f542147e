"""``charwise correct`` and ``charwise speller train``: spelling correction with :class:`~charwise.speller.Speller`.

``correct`` writes back every character it reads: it reads through
:func:`~charwise.cli.common.input_windows`, so a line longer than ``--max-line-chars`` is corrected
window by window (windows cut after whitespace, each corrected as the continuation of the one
before: a sentence start carries over) and written back whole, and a longer stretch without
whitespace is written back as it is. Memory stays bounded by the window, not by the line (with
``--json``, one object per line holds the line's text and its looked-at words).

Progress (``--progress``) counts lines and the input's bytes: a long line moves it window by
window, so a file of one 5 MB line shows its share done and the time left as it goes. Worker
processes take whole lines (a line's windows carry the sentence state from one to the next), so
an input whose lines are longer than a worker's chunk on average runs in this process.
"""

from __future__ import annotations

import argparse
import io
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
    fingerprint,
    input_windows,
    output_sink,
    scan_input,
)
from charwise.cli.progress import Progress
from charwise.cli.workers import add_worker_options, check_worker_options
from charwise.errors import ConfigError
from charwise.io import (
    TextWindow,
    check_input_file,
    check_output_dir,
    check_resumable,
    resumable_output,
    text_windows,
)
from charwise.parallel import Job, ordered_results

CORRECT_BLOCK = 256  # lines corrected at a time (the first block is one line, so output starts at once)
LANGUAGE_CHOICES = ("en", "es")
CONTEXT_CHOICES = ("ngram", "smollm2")  # charwise.speller.neural.CONTEXT_MODELS (not imported: startup time)
PRECISION_CHOICES = ("auto", "float32", "bfloat16")  # charwise.devices.PRECISIONS (not imported: it imports torch)
# charwise.speller.corrections.CHANGE_KINDS (not imported: startup time; a test keeps them equal)
CHANGE_KINDS = ("spelling", "real_word", "accent", "normalisation", "split", "merge")
STYLES = ("auto", "standard", "social")  # charwise.speller.settings.STYLES (likewise)


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
                   help="one JSON object per line: each word looked at, its candidates and probabilities, and what "
                        "decided each change or kept a word read")
    c.add_argument("--plain", action="store_true", help="the corrected text without change marks")
    c.add_argument("--context", default="ngram", choices=CONTEXT_CHOICES,
                   help="context for words in doubt: ngram (bigrams, fast) or smollm2 (a neural LM, English only)")
    c.add_argument("--device", help="where --context smollm2 runs: cpu (default), cuda, cuda:1...")
    c.add_argument("--precision", choices=PRECISION_CHOICES,
                   help="the dtype --context smollm2 runs in: auto (bfloat16 where the CPU or GPU computes it "
                        "natively, else float32; the default), float32 or bfloat16")
    c.add_argument("--protect", action="append", default=[], metavar="REGEX",
                   help="leave what this regular expression matches as written (repeatable); URLs, e-mails, "
                        "@handles, #hashtags, paths, identifiers, numbers, TeX and emoticons always are")
    c.add_argument("--style", default="auto", choices=STYLES,
                   help="auto (the default: social for each line that reads like a tweet, with a @handle, "
                        "#hashtag, emoji or words like u, dont; standard for the others), standard (edited text) "
                        "or social (tweets, chat: corrections unlikely in informal text, where unknown words are "
                        "often names and slang, are undone; in Spanish, tweets' respellings such as aser, xq are "
                        "normalised more readily)")
    c.add_argument("--skip", action="append", default=[], metavar="KIND", choices=CHANGE_KINDS,
                   help=f"never make this kind of change (repeatable): {', '.join(CHANGE_KINDS)}")
    add_input_options(c, windows=True)
    add_worker_options(c)
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


CORRECT_OPTIONS = ("language", "encoder", "scorer", "threshold", "suggestions", "json", "plain", "context", "protect",
                   "style", "skip", "errors", "max_line_chars", "precision")  # the options that change the output
CHUNK_LINES = 256  # lines a worker corrects at a time (--workers above 1) ...
CHUNK_CHARS = 1 << 20  # ... or fewer, once they hold this many characters
SPELLER_LOADER = "charwise.cli.correct:load_speller"  # what each worker process loads, once


def cmd_correct(args: argparse.Namespace) -> int:
    check_input_options(args)
    check_int_min("-k/--suggestions", args.suggestions, 1)
    if args.threshold is not None:
        check_unit("--threshold", args.threshold)
    check_worker_options(args, args.file if args.text is None else None)
    from charwise.words import compile_patterns

    compile_patterns(args.protect)  # a bad pattern is refused before anything loads
    if args.context == "ngram" and args.precision is not None:
        raise ConfigError("--precision is the dtype --context smollm2 runs in; the ngram context has none")
    if args.device is not None:
        if args.context == "ngram":
            raise ConfigError("--device is where --context smollm2 runs; the ngram context needs none")
        from charwise.devices import check_device

        check_device(args.device)
    text = argument_text(args, args.text, "--text") if args.text is not None else None
    # The whole input is checked (and its lines counted) before the models load or a line is written.
    scan = scan_input(args, args.file) if text is None else None
    for path in args.lexicon:
        check_input_file(path, "lexicon file")
    mark = fingerprint("correct", scan, args, CORRECT_OPTIONS, args.lexicon) if args.out else {}
    if args.out:
        check_resumable(args.out, mark, args.resume)
    windows = text_windows(text, args.max_line_chars) if text is not None else input_windows(args, args.file, True)
    # an empty input is answered without the models
    first = next(windows, None)
    if first is None:
        with output_sink(args.out):
            pass
        print("0 words corrected", file=sys.stderr)
        return 0
    windows = itertools.chain([first], windows)
    mode = "json" if args.json else "plain" if args.plain else "marked"
    job = Job(SPELLER_LOADER, "charwise.cli.correct:correct_chunk",
              {"mode": mode, **{name: getattr(args, name) for name in SPELLER_OPTIONS}},
              warm="charwise.cli.correct:warm_speller")
    if scan is not None and scan.size > CHUNK_CHARS * max(1, scan.lines):
        # lines longer than a chunk on average: a line is never shared between workers, so they
        # would not share the work; in this process its windows also show as they are corrected
        args.workers = 1
    with resumable_output(args.out, mark, resume=args.resume) if args.out else output_sink(None) as sink:
        done = getattr(sink, "done", 0)
        windows, done_size = skip_lines(windows, done)
        progress = Progress("correct", "lines", scan.lines if scan is not None else None,
                            args.progress if text is None else "none", done,
                            size=scan.size if scan is not None else None, size_done=done_size)
        if args.workers == 1:  # the speller in this process: output starts with the first line
            speller, _ = job.start()
            changed = correct_windows(speller, windows, sink, mode, progress.update)
        else:
            changed = 0
            for chunk_text, chunk_changed, lines, size in ordered_results(job, line_chunks(windows), args.workers):
                sink.write(chunk_text)
                sink.flush()  # the chunk is committed: a killed run keeps it
                changed += chunk_changed
                progress.update(lines, size)
        progress.close()
    print(f"{changed} words corrected" + (f" (after {done:,} lines done before)" if done else ""), file=sys.stderr)
    return 0


SPELLER_OPTIONS = ("language", "encoder", "scorer", "lexicon", "threshold", "suggestions", "protect", "style", "skip",
                   "context", "device", "precision")


def load_speller(mode: str, language: str, encoder: str | None, scorer: str | None, lexicon: list[str],
                 threshold: float | None, suggestions: int, protect: list[str], style: str, skip: list[str],
                 context: str, device: str | None, precision: str | None) -> tuple[Any, str]:
    """The speller ``correct`` runs, from its options (once per worker process), and the output mode."""
    from charwise.speller import Speller, SpellerSettings

    speller = Speller.load(language, encoder=encoder, scorer=scorer, word_files=tuple(lexicon),
                           settings=SpellerSettings(threshold=threshold, suggestions=suggestions,
                                                    protect=tuple(protect), style=style,
                                                    changes=tuple(k for k in CHANGE_KINDS if k not in skip)),
                           context=context, device=device, precision=precision or "auto")
    return speller, mode


def warm_speller(state: tuple[Any, str]) -> None:
    """The worker state's speller warmed (:func:`charwise.speller.repair.warm_speller`)."""
    from charwise.speller.repair import warm_speller

    warm_speller(state[0])


def correct_chunk(state: tuple[Any, str], windows: list[TextWindow]) -> tuple[str, int, int, int]:
    """A worker's part of ``correct``: the output of a chunk of whole lines (:func:`line_chunks`),
    the words it changed, its lines and its input bytes; the same code as one process runs, so
    the same bytes."""
    speller, mode = state
    out = io.StringIO()
    changed = correct_windows(speller, iter(windows), out, mode, first_block=CORRECT_BLOCK)
    return out.getvalue(), changed, sum(w.line_end for w in windows), sum(map(window_size, windows))


def window_size(window: TextWindow) -> int:
    """The bytes of the input a window stands for: its text in UTF-8 and its line's newline (about:
    a CR before it, or a byte replaced under ``--errors replace``, is not counted back)."""
    return len(window.text.encode("utf-8", "surrogatepass")) + window.line_end


def skip_lines(windows: Iterator[TextWindow], lines: int) -> tuple[Iterator[TextWindow], int]:
    """``windows`` after the windows of their first ``lines`` lines (read and dropped: a resumed
    run goes on after the lines an interrupted one finished), and the bytes of those lines."""
    size = 0
    while lines > 0:
        window = next(windows, None)
        if window is None:
            break
        lines -= window.line_end
        size += window_size(window)
    return windows, size


def line_chunks(windows: Iterator[TextWindow], lines: int = CHUNK_LINES, chars: int = CHUNK_CHARS
                ) -> Iterator[list[TextWindow]]:
    """The windows in chunks of whole lines: ``lines`` lines, or fewer once they hold ``chars``
    characters (a line's windows are never split between chunks)."""
    chunk: list[TextWindow] = []
    count = size = 0
    for window in windows:
        chunk.append(window)
        size += len(window.text)
        if window.line_end:
            count += 1
            if count >= lines or size >= chars:
                yield chunk
                chunk, count, size = [], 0, 0
    if chunk:
        yield chunk


def correct_windows(speller: Any, windows: Iterator[TextWindow], sink: Any, mode: str = "marked",
                    progress: Callable[[int, int], Any] | None = None, first_block: int = 1) -> int:
    """Correct the lines given as windows (:func:`charwise.io.iter_windows`) and write each one
    to ``sink`` followed by a newline: ``mode`` ``"marked"`` (changes as ``[word -> correction]``),
    ``"plain"`` or ``"json"`` (one object per line, as :meth:`CorrectedText.to_dict`). Whole lines
    are corrected a block at a time; a line in several windows window by window, each window
    starting where the sentence state of the one before left off, verbatim windows written back as
    they are. Returns the number of words changed; ``progress(n, size)`` is told of each ``n``
    lines and ``size`` input bytes done (a long line's windows one by one, with ``n`` 0 until its last).
    The first block is ``first_block`` lines (1: the first line is written at once)."""
    changed, block_size, block_bytes = 0, first_block, 0
    block: list[str] = []

    def write_block() -> None:
        nonlocal changed, block_size, block_bytes
        for result in speller.correct_lines(block):
            changed += sum(w.changed for w in result.words)
            sink.write(_shown(result, mode) + "\n")
        if hasattr(sink, "flush"):
            sink.flush()
        if progress is not None:
            progress(len(block), block_bytes)
        block.clear()
        block_size, block_bytes = CORRECT_BLOCK, 0

    long_line: _LongLine | None = None
    for window in windows:
        if window.whole_line and not window.verbatim:
            block.append(window.text)
            if progress is not None:
                block_bytes += window_size(window)
            if len(block) >= block_size:
                write_block()
            continue
        if block:
            write_block()
        if long_line is None:
            long_line = _LongLine(speller, sink, mode)
        changed += long_line.add(window)
        if progress is not None:
            progress(window.line_end, window_size(window))
        if window.line_end:
            long_line = None
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
