"""``charwise tag predict``: tag the sentences of a file, a bounded batch at a time, on ``--workers``
processes.

The input (plain text, CoNLL or CoNLL-U) becomes *pieces* (a sentence, or a model-window piece of a
longer one, with its word-feature column) and the pieces *batches* of at most :data:`BATCH_WORDS`
words or :data:`BATCH_PIECES` pieces. A batch is what one process tags at a time, and the model's
own batches are made inside it: the batches, and so the bytes written, are the same whatever
``--workers`` is. With one worker (or an input of one batch) the tagger runs in the command's own
process; otherwise each worker loads it once (:mod:`charwise.parallel`) and the batches' CoNLL
text comes back in input order, written as it comes. An ``--out`` file is resumable
(:func:`charwise.io.resumable_output`): a resumed run starts at the first batch the interrupted one
did not finish, since what a batch writes (one line a word, a blank line after a sentence) is known
from the input alone.
"""

from __future__ import annotations

import argparse
import collections
import gc
import itertools
import sys
from typing import Any, Callable, Iterable, Iterator

from charwise.cli.common import (
    add_input_options,
    check_input_options,
    check_policy,
    fingerprint,
    output_sink,
    read_first,
    scan_input,
)
from charwise.cli.progress import Progress
from charwise.cli.workers import add_worker_options, check_worker_options
from charwise.errors import ConfigError, InputError
from charwise.io import (
    FORMATS,
    MAX_LINE_CHARS,
    ReadReport,
    TextWindow,
    check_input_file,
    check_resumable,
    resumable_output,
)
from charwise.parallel import Job, ordered_results

DEVICE_HELP = "where the tagger runs: cpu (default), cuda, cuda:1..."
OVERRIDE_POLICY_HELP = ("read the input with this policy instead of the tagger's own (e.g. repair in front of a "
                        "tagger trained with none; policies that build words from characters need the tagger to "
                        "have an encoder)")
BATCH_WORDS = 65_536  # words read before a process tags them (and their lines are written) ...
BATCH_PIECES = 4_096  # ... or this many pieces (sentences, or model-window pieces of long ones)
PREDICT_OPTIONS = ("format", "policy", "errors", "max_line_chars")  # the options that change the output
TAGGER_LOADER = "charwise.cli.tag_predict:load_predictor"  # what each worker process loads, once

Piece = tuple[list[str], list[str] | None, bool]  # words, their feature column, whether the sentence ends


def add_predict_parser(tsub: Any) -> None:
    """Register ``tag predict`` on the ``tag`` group's subparsers."""
    p = tsub.add_parser("predict", help="tag the sentences of a file; prints CoNLL (word TAB tag)")
    p.add_argument("dir", help="a training run's --out directory or its tagger/ directory")
    p.add_argument("file", help="plain text (one sentence per line), CoNLL or CoNLL-U ('-' for stdin)")
    p.add_argument("--format", default="auto", choices=list(FORMATS))
    p.add_argument("--out", help="write the CoNLL output here instead of stdout")
    p.add_argument("--policy", default=None, help=OVERRIDE_POLICY_HELP)
    p.add_argument("--device", help=DEVICE_HELP + "; a GPU runs the tagger in this process (--workers 1)")
    add_input_options(p, windows=True)
    add_worker_options(p)
    p.set_defaults(func=cmd_tag_predict)


def with_policy(tagger: Any, policy: str | None) -> Any:
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


# --- reading the input: pieces of sentences, in memory that does not grow with a line -------------
def _prediction_input(path: str, format: str, errors: str, max_chars: int, check: bool = True,
                      scanned: bool = False) -> tuple[str, Iterator[TextWindow], ReadReport]:
    """The input's format and its windows (:func:`charwise.io.iter_windows`), with the report that
    counts what the read found. With ``check``, a file under ``errors="strict"`` is read through
    once first, a window at a time, so that text that is not UTF-8 anywhere in it fails before the
    model loads, unless it was ``scanned`` already (standard input, which cannot be read twice,
    only has its first window read)."""
    from charwise.io import detect_format, iter_windows

    if check and not scanned and path != "-" and errors == "strict":
        for _ in iter_windows(path, errors=errors, max_chars=max_chars):
            pass
    report = ReadReport()
    windows = iter_windows(path, errors=errors, max_chars=max_chars, report=report)
    if format == "auto":
        format = detect_format(path, [])  # by the file name: conllu, conll, else text ...
        if format == "text":  # ... or conll if every non-blank line has a tab
            format, windows = _detect_from_windows(windows)
    if check:
        first = next(windows, None)  # an unreadable input fails before the model loads
        windows = itertools.chain([first] if first is not None else [], windows)
    return format, windows, report


def _detect_from_windows(windows: Iterator[TextWindow]) -> tuple[str, Iterator[TextWindow]]:
    """:func:`charwise.io.detect_format`'s content rule on windows: ``conll`` if there are non-blank
    lines and each has a tab, else ``text``; the windows read to decide are given back in front of
    the rest. Plain text is known at its first non-blank line without a tab, so only the lines
    before it are held."""
    seen: list[TextWindow] = []
    nonblank = tab = any_nonblank = False
    for window in windows:
        seen.append(window)
        nonblank = nonblank or bool(window.text.strip())
        tab = tab or "\t" in window.text
        if window.line_end:
            if nonblank and not tab:
                return "text", itertools.chain(seen, windows)
            any_nonblank = any_nonblank or nonblank
            nonblank = tab = False
    return ("conll" if any_nonblank else "text"), iter(seen)


def _print_read_warnings(report: ReadReport, path: str, max_chars: int) -> None:
    report.verbatim = 0  # stretches without whitespace are split into words and tagged too: none is left unread
    for message in report.warnings("<stdin>" if path == "-" else path, max_chars):
        print(f"charwise: warning: {message}", file=sys.stderr)


def _window_words(windows: Iterable[TextWindow]) -> Iterator[tuple[list[str], bool]]:
    """``(words, whether the line ends)`` for each window: the words :func:`charwise.io.text_sentences`
    splits the whole line into, given as the line is read, in memory that does not grow with it.

    A window cut after whitespace splits on its own (whitespace always ends a word). A stretch
    without whitespace longer than a window comes in several ``verbatim`` windows cut anywhere, even
    inside a word: it is split as one text, and the words that end in its last two characters (the
    splitter looks one character ahead) wait for the next window. Such a text has no whitespace, so
    its words' lengths add up to their offsets. An unfinished word longer than what has come since
    is split again only when the text after it is as long as it, so that a stretch that is one word
    costs a few passes over it, not one per window.
    """
    from charwise.words import split_words

    tail, pending, pending_chars = "", [], 0
    for window in windows:
        pending.append(window.text)
        pending_chars += len(window.text)
        if window.verbatim and not window.line_end:  # the stretch may go on in the next window
            if pending_chars < len(tail):
                continue
            text = tail + "".join(pending)
            words = split_words(text).words
            done, end = 0, 0
            for word in words:
                if end + len(word) > len(text) - 2:
                    break
                end += len(word)
                done += 1
            tail, pending, pending_chars = text[end:], [], 0
            yield words[:done], False
            continue
        text = tail + "".join(pending)
        tail, pending, pending_chars = "", [], 0
        yield split_words(text).words, window.line_end


def _text_pieces(windows: Iterable[TextWindow], size: int | None) -> Iterator[tuple[list[str], None, bool]]:
    """Plain text (one sentence per non-blank line) as ``(words, None, whether the sentence ends)``:
    each sentence in consecutive pieces of at most ``size`` words (None: whole)."""
    current: list[str] = []
    for words, line_end in _window_words(windows):
        current.extend(words)
        if size is not None and len(current) > size:
            start = 0
            while len(current) - start > size:  # more words follow this piece: it does not end the sentence
                yield current[start : start + size], None, False
                start += size
            current = current[start:]
        if line_end and current:
            yield current, None, True
            current = []


def _sentence_pieces(sentences: list[list[str]], features: list[list[str]] | None, size: int
                     ) -> Iterator[tuple[list[str], list[str] | None, bool]]:
    """Read sentences (CoNLL, CoNLL-U) as :func:`_text_pieces` gives plain text's."""
    for n, words in enumerate(sentences):
        for start in range(0, max(len(words), 1), size):
            yield (words[start : start + size], features[n][start : start + size] if features is not None else None,
                   start + size >= len(words))


def _read_columns(path: str, format: str, windows: Iterable[TextWindow]
                  ) -> tuple[list[list[str]], dict[str, list[list[str]]]]:
    """Sentences of words and their CoNLL-U columns from a CoNLL or CoNLL-U file's windows (read
    whole: a sentence and its columns are parsed together)."""
    from charwise.corpora import parse_labelled_conll, parse_labelled_conllu
    from charwise.io import whole_lines

    lines = list(whole_lines(windows))
    if format == "conllu":
        sentences = parse_labelled_conllu(lines, strict=False, source=path)
        columns = {name: [s.columns[name] for s in sentences] for name in (sentences[0].columns if sentences else {})}
        return [s.words for s in sentences], columns
    return [s.words for s in parse_labelled_conll(lines, require_tags=False, source=path)], {}


def _read_for_prediction(path: str, format: str, args: argparse.Namespace | None = None
                         ) -> tuple[list[list[str]], dict[str, list[list[str]]]]:
    """Sentences of words (and their CoNLL-U columns) from a text, CoNLL or CoNLL-U file, every word
    of it (``charwise tag predict`` reads plain text the same way, a window at a time)."""
    errors, max_chars = (args.errors, args.max_line_chars) if args is not None else ("strict", MAX_LINE_CHARS)
    format, windows, report = _prediction_input(path, format, errors, max_chars, check=False)
    if format == "text":
        result: tuple[list[list[str]], dict[str, list[list[str]]]] = (
            [words for words, _, _ in _text_pieces(windows, None)], {})
    else:
        result = _read_columns(path, format, windows)
    _print_read_warnings(report, path, max_chars)
    return result


# --- tagging: batches, in this process or on the workers ---------------------------------------------
def load_predictor(directory: str, device: str | None, policy: str | None) -> Any:
    """The tagger ``tag predict`` runs (once per worker process)."""
    from charwise.tagging.model import load_tagger

    return with_policy(load_tagger(directory, device), policy)


def tag_chunk(tagger: Any, batch: list[Piece]) -> str:
    """Tag a batch of pieces: each word with its tag, a blank line after each sentence (a worker's
    part, and the command's own with one worker: the same code, so the same bytes). Pieces that
    repeat (the same words and features) are tagged once."""
    unique: dict[tuple[tuple[str, ...], tuple[str, ...] | None], int] = {}
    keys = [(tuple(words), tuple(feats) if feats is not None else None) for words, feats, _ in batch]
    for key in keys:
        unique.setdefault(key, len(unique))
    with_features = any(feats is not None for _, feats, _ in batch)
    tags = tagger.predict([list(words) for words, _ in unique],
                          [list(feats or ()) for _, feats in unique] if with_features else None,
                          batch_size=tagger.config.eval_batch_size)
    return "".join("".join(f"{w}\t{t}\n" for w, t in zip(words, tags[unique[key]])) + ("\n" if ends else "")
                   for (words, _, ends), key in zip(batch, keys))


class _Batches:
    """The pieces in batches (see the module docstring), counted as they are handed out: sentences,
    sentences in more than one piece, and the progress units each batch completes (input lines read
    up to its last sentence's end for plain text, ``lines()`` telling how many were read so far;
    sentences for CoNLL and CoNLL-U)."""

    def __init__(self, pieces: Iterable[Piece], lines: Callable[[], int] | None = None) -> None:
        self.pieces, self.lines = pieces, lines
        self.sentences = self.long = 0
        self.ended = 0  # units up to the last sentence's end
        self.counted = 0  # units in the batches handed out
        self.units: collections.deque[int] = collections.deque()  # of each batch handed out, not yet taken

    def __iter__(self) -> Iterator[list[Piece]]:
        batch: list[Piece] = []
        words = parts = 0
        for piece in self.pieces:
            batch.append(piece)
            words += len(piece[0])
            parts += 1
            if piece[2]:
                self.sentences, self.long, parts = self.sentences + 1, self.long + (parts > 1), 0
                self.ended = self.read()
            if words >= BATCH_WORDS or len(batch) >= BATCH_PIECES:
                yield self._handed(batch)
                batch, words = [], 0
        if batch:
            yield self._handed(batch)

    def _handed(self, batch: list[Piece]) -> list[Piece]:
        self.units.append(self.ended - self.counted)
        self.counted = self.ended
        return batch

    def read(self) -> int:
        """Units read so far (once all is read, plain text's blank lines at its end too)."""
        return self.lines() if self.lines is not None else self.sentences


def _skip_done(batches: _Batches, done: int) -> tuple[Iterator[list[Piece]], int, int]:
    """Resuming an output that holds ``done`` lines: the batches after those it holds whole, the
    lines of those (what the output keeps) and their progress units. A batch writes a line a word
    and a blank line after each sentence, whatever the tags."""
    batch_iter, kept, units = iter(batches), 0, 0
    for batch in batch_iter:
        written = sum(len(words) + ends for words, _, ends in batch)
        if kept + written > done:
            return itertools.chain([batch], batch_iter), kept, units
        kept += written
        units += batches.units.popleft()
    return batch_iter, kept, units


def _counted(windows: Iterable[TextWindow], lines: list[int]) -> Iterator[TextWindow]:
    """``windows``, adding up in ``lines[0]`` the lines that have been read whole."""
    for window in windows:
        lines[0] += window.line_end
        yield window


def _tagger_files(directory: str) -> list[str]:
    """The files of the tagger in ``directory``: what its output is made from, beside the input."""
    from charwise.tagging.model import resolve_tagger_dir

    return [str(path) for path in sorted(resolve_tagger_dir(directory).resolve().rglob("*")) if path.is_file()]


def cmd_tag_predict(args: argparse.Namespace) -> int:
    check_input_options(args)
    check_worker_options(args, args.file)
    if args.file != "-":
        check_input_file(args.file)
    if args.policy is not None:
        check_policy(args.policy)
    # A bad file (binary, not UTF-8 anywhere in it) fails before torch and the model load: the whole
    # file is scanned first, as every command that reads text does; standard input, which cannot be
    # read twice, has its first window read now.
    scan = scan_input(args, args.file)
    from charwise.devices import check_device

    if args.device is not None:
        check_device(args.device)
    mark = fingerprint("tag predict", scan, args, PREDICT_OPTIONS, _tagger_files(args.dir)) if args.out else {}
    if args.out:
        check_resumable(args.out, mark, args.resume)
    format, windows, report = _prediction_input(args.file, args.format, args.errors, args.max_line_chars,
                                                scanned=scan is not None)
    if args.file != "-":
        windows = read_first(windows)
    sentences: list[list[str]] = []
    columns: dict[str, list[list[str]]] = {}
    if format != "text":  # CoNLL and CoNLL-U are read whole, with their columns
        sentences, columns = _read_columns(args.file, format, windows)
        _print_read_warnings(report, args.file, args.max_line_chars)
    # Loaded here even for the workers: the tagger's window cuts the pieces, and a tagger that
    # cannot read this input is refused before anything is written.
    tagger = load_predictor(args.dir, args.device, args.policy)
    features = None
    if tagger.config.feature:
        if tagger.config.feature not in columns:
            raise InputError(f"this tagger uses the word feature {tagger.config.feature!r}: "
                             "give a CoNLL-U file that has it")
        features = columns[tagger.config.feature]
    # Plain text is read, tagged and written a bounded batch at a time, so memory does not grow with
    # the input; every word is written with its tag. A sentence longer than the model's window is
    # tagged in consecutive pieces that fit, so that every word gets a tag of its own.
    ad = tagger.hybrid.adapter
    window = max(1, ad.max_length - len(ad.prefix_ids) - len(ad.suffix_ids))
    lines = [0]
    batches = (_Batches(_text_pieces(_counted(windows, lines), window), lambda: lines[0]) if format == "text"
               else _Batches(_sentence_pieces(sentences, features, window)))
    job = Job(TAGGER_LOADER, "charwise.cli.tag_predict:tag_chunk",
              {"directory": args.dir, "device": args.device, "policy": args.policy})
    with resumable_output(args.out, mark, resume=args.resume) if args.out else output_sink(None) as out:
        todo, kept, done = _skip_done(batches, getattr(out, "done", 0))
        if args.out:
            out.keep(kept)  # a batch cut short by the interruption is tagged again, whole
        unit, total = (("lines", scan.lines if scan is not None else None) if format == "text"
                       else ("sentences", len(sentences)))
        progress = Progress("tag predict", unit, total, args.progress, done)
        head = list(itertools.islice(todo, 2)) if args.workers > 1 else []
        todo = itertools.chain(head, todo)
        if len(head) < 2:  # one worker, or one batch: the tagger loaded above, in this process
            results: Iterator[str] = (tag_chunk(tagger, batch) for batch in todo)
        else:
            del tagger  # each worker loads its own: this copy would only hold memory
            gc.collect()
            results = ordered_results(job, todo, args.workers)
        for text in results:
            out.write(text)
            out.flush()  # the batch is committed: a killed run keeps it
            progress.update(batches.units.popleft())
        progress.update(batches.read() - batches.counted)  # blank lines after the last sentence
        progress.close()
        if format == "text":
            _print_read_warnings(report, args.file, args.max_line_chars)
    if batches.long:
        print(f"charwise: warning: {batches.long} sentences had more than {window} words (the model's window) and "
              f"were cut into pieces of {window} words, each tagged on its own (every word has its tag)",
              file=sys.stderr)
    if args.out:
        print(f"{batches.sentences} sentences tagged, written to {args.out}"
              + (f" (resumed after {done:,} {unit})" if done else ""), file=sys.stderr)
    return 0
