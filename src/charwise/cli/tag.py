"""``charwise tag train|eval|predict``: the command-line face of :mod:`charwise.tagging`.

:func:`add_parser` registers the group on the main parser. Errors are charwise's own
(:mod:`charwise.errors`) or file errors, which ``charwise.cli.main`` prints as one line with exit
status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import sys
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

from charwise.cli.common import add_input_options, check_input_options, check_min, read_first, scan_input
from charwise.errors import ConfigError, InputError
from charwise.io import (
    FORMATS,
    MAX_LINE_CHARS,
    ReadReport,
    TextWindow,
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
    e.add_argument("--device", help=DEVICE_HELP)
    e.set_defaults(func=cmd_tag_eval)

    p = tsub.add_parser("predict", help="tag the sentences of a file; prints CoNLL (word TAB tag)")
    p.add_argument("dir", help="a training run's --out directory or its tagger/ directory")
    p.add_argument("file", help="plain text (one sentence per line), CoNLL or CoNLL-U ('-' for stdin)")
    p.add_argument("--format", default="auto", choices=list(FORMATS))
    p.add_argument("--out", help="write the CoNLL output here instead of stdout")
    p.add_argument("--policy", default=None, help=OVERRIDE_POLICY_HELP)
    p.add_argument("--device", help=DEVICE_HELP)
    add_input_options(p, windows=True)
    p.set_defaults(func=cmd_tag_predict)


DEVICE_HELP = "where the tagger runs: cpu (default), cuda, cuda:1..."
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
    tagger = _with_policy(load_tagger(args.dir, args.device), args.policy)
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


# --- tag predict: read the input, tag it a bounded batch at a time ----------------------------------
_BATCH_WORDS = 65_536  # words read before the model tags them (and their lines are written)
_BATCH_PIECES = 4_096  # ... or this many pieces (sentences, or model-window pieces of long ones)


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


def _tag_batch(tagger: Any, batch: list[tuple[list[str], list[str] | None, bool]], out: IO[str]) -> None:
    """Tag a batch of pieces and write each word with its tag, a blank line after each sentence.
    Pieces that repeat (the same words and features) are tagged once."""
    unique: dict[tuple[tuple[str, ...], tuple[str, ...] | None], int] = {}
    keys = [(tuple(words), tuple(feats) if feats is not None else None) for words, feats, _ in batch]
    for key in keys:
        unique.setdefault(key, len(unique))
    with_features = any(feats is not None for _, feats, _ in batch)
    tags = tagger.predict([list(words) for words, _ in unique],
                          [list(feats or ()) for _, feats in unique] if with_features else None,
                          batch_size=tagger.config.eval_batch_size)
    out.write("".join("".join(f"{w}\t{t}\n" for w, t in zip(words, tags[unique[key]])) + ("\n" if ends else "")
                      for (words, _, ends), key in zip(batch, keys)))


def _tag_pieces(tagger: Any, pieces: Iterable[tuple[list[str], list[str] | None, bool]], out: IO[str]
                ) -> tuple[int, int]:
    """Tag ``pieces`` a bounded batch at a time, writing as it goes; ``(sentences, sentences in
    more than one piece)``."""
    batch: list[tuple[list[str], list[str] | None, bool]] = []
    words = sentences = long = parts = 0
    for piece in pieces:
        batch.append(piece)
        words += len(piece[0])
        parts += 1
        if piece[2]:
            sentences, long, parts = sentences + 1, long + (parts > 1), 0
        if words >= _BATCH_WORDS or len(batch) >= _BATCH_PIECES:
            _tag_batch(tagger, batch, out)
            batch, words = [], 0
    if batch:
        _tag_batch(tagger, batch, out)
    return sentences, long


def cmd_tag_predict(args: argparse.Namespace) -> int:
    check_input_options(args)
    if args.file != "-":
        check_input_file(args.file)
    if args.out:
        check_output_file(args.out, "--out")
    # A bad file (binary, not UTF-8 anywhere in it) fails before torch and the model load: the whole
    # file is scanned first, as every command that reads text does; standard input, which cannot be
    # read twice, has its first window read now.
    scanned = scan_input(args, args.file) is not None
    format, windows, report = _prediction_input(args.file, args.format, args.errors, args.max_line_chars,
                                                scanned=scanned)
    if args.file != "-":
        windows = read_first(windows)
    from charwise.devices import check_device
    from charwise.hybrid.policies import get_policy
    from charwise.tagging.model import load_tagger

    if args.policy is not None:
        get_policy(args.policy)
    if args.device is not None:
        check_device(args.device)
    sentences: list[list[str]] = []
    columns: dict[str, list[list[str]]] = {}
    if format != "text":  # CoNLL and CoNLL-U are read whole, with their columns
        sentences, columns = _read_columns(args.file, format, windows)
        _print_read_warnings(report, args.file, args.max_line_chars)
    tagger = _with_policy(load_tagger(args.dir, args.device), args.policy)
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
    pieces = (_text_pieces(windows, window) if format == "text" else _sentence_pieces(sentences, features, window))
    with atomic_file(args.out) if args.out else contextlib.nullcontext(sys.stdout) as out:
        count, long = _tag_pieces(tagger, pieces, out)
        if format == "text":
            _print_read_warnings(report, args.file, args.max_line_chars)
    if long:
        print(f"charwise: warning: {long} sentences had more than {window} words (the model's window) and were cut "
              f"into pieces of {window} words, each tagged on its own (every word has its tag)", file=sys.stderr)
    if args.out:
        print(f"{count} sentences tagged, written to {args.out}", file=sys.stderr)
    return 0
