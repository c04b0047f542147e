"""``charwise`` command line: a thin layer over the library."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Sequence

from charwise.io import read_lines

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # weights come from installed packages, never a hub


class CLIError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


def _load_encoder(name_or_path: str):
    from charwise.encoders.shipped import load

    return load(name_or_path)


def _write_json(path: str, data: dict) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=target.parent, delete=False, suffix=".tmp", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
    os.replace(f.name, target)


# --- train -------------------------------------------------------------------------------------
def cmd_train(args: argparse.Namespace) -> int:
    from charwise.training.approximation import TrainConfig, Trainer
    from charwise.training.losses import LossWeights

    out = Path(args.out)
    if args.resume and (out / "train_config.json").exists():
        config = TrainConfig.from_dict(json.loads((out / "train_config.json").read_text()))
    else:
        losses = LossWeights(cos=args.cos, l2=args.l2, nbr=args.nbr, ce=args.ce, contrastive=args.contrastive,
                             ce_scale=args.ce_scale, nbr_k=args.nbr_k, hard_negatives=args.hard_negatives)
        config = TrainConfig(teacher=args.teacher, encoder=args.encoder, preset=args.preset, steps=args.steps,
                             batch_size=args.batch_size, lr=args.lr, noise_ratio=args.noise_ratio, seed=args.seed,
                             eval_every=args.eval_every, losses=losses, max_chars=args.max_chars,
                             warmup_steps=args.warmup_steps, checkpoint_every=args.checkpoint_every)
    trainer = Trainer(config, out, progress=not args.quiet)
    if trainer.accelerator.is_main_process:
        enc = trainer.encoder
        print(f"teacher {trainer.teacher.name}: V={trainer.teacher.vocab_size} d={trainer.teacher.dim}; "
              f"{config.encoder}/{config.preset}: {enc.num_parameters():,} parameters "
              f"({100 * enc.num_parameters() / trainer.teacher.embeddings.numel():.1f}% of the table); "
              f"{len(trainer.split.train)} training rows, {len(trainer.split.heldout_words)} held-out words",
              file=sys.stderr)
    trainer.train(resume=args.resume)
    if trainer.accelerator.is_main_process and not args.no_report:
        from charwise.evaluation import format_report

        report = trainer.final_report()
        report["train_config"] = asdict(config)
        _write_json(str(out / "eval.json"), report)
        print(format_report(report))
        print(f"encoder saved to {out / 'encoder'}; report in {out / 'eval.json'}")
    return 0


# --- eval --------------------------------------------------------------------------------------
def cmd_eval(args: argparse.Namespace) -> int:
    import torch

    from charwise.evaluation import evaluate, format_report
    from charwise.training.targets import split_for_encoder

    encoder = _load_encoder(args.encoder)
    teacher = encoder.teacher
    split = split_for_encoder(teacher, getattr(encoder, "training_info", {}) or {})
    heldin, heldout = split.heldin_words, split.heldout_words
    if args.max_words and len(heldin) > args.max_words:
        g = torch.Generator().manual_seed(0)
        heldin = heldin[torch.randperm(len(heldin), generator=g)[: args.max_words]].sort().values
    report = evaluate(encoder, teacher, heldin, heldout, noise_words=args.noise_words, seed=args.seed)
    report["encoder"] = {"path": str(args.encoder), "kind": encoder.kind, "parameters": encoder.num_parameters()}
    print(format_report(report))
    if args.json:
        _write_json(args.json, report)
    return 0


# --- neighbors ---------------------------------------------------------------------------------
def cmd_neighbors(args: argparse.Namespace) -> int:
    from charwise.evaluation import piece_mean_vectors
    from charwise.retrieval import topk_rows

    encoder = _load_encoder(args.encoder)
    teacher = encoder.teacher
    vectors = encoder.embed(args.words)
    baseline = piece_mean_vectors(teacher, args.words)
    mask = teacher.normal_mask
    s_enc, i_enc = topk_rows(vectors, teacher.embeddings, args.k, candidates=mask)
    s_base, i_base = topk_rows(baseline, teacher.embeddings, args.k, candidates=mask)
    for n, word in enumerate(args.words):
        ids = teacher.piece_ids([word])[0]
        pieces = " ".join(teacher.display(i) for i in ids) or "(none)"
        print(f"{word!r}  teacher pieces: {pieces}")
        print(f"  {'charwise':<28s}  {'mean of teacher pieces':<28s}")
        for r in range(i_enc.shape[1]):
            a = f"{teacher.display(int(i_enc[n, r]))} ({s_enc[n, r]:.2f})"
            b = f"{teacher.display(int(i_base[n, r]))} ({s_base[n, r]:.2f})"
            print(f"  {a:<28s}  {b:<28s}")
    return 0


# --- embed -------------------------------------------------------------------------------------
def cmd_embed(args: argparse.Namespace) -> int:
    encoder = _load_encoder(args.encoder)  # fail on a bad encoder before reading any input
    # Row i is line i, always: empty lines give the empty-string vector instead of being dropped.
    words = [line.strip() for line in read_lines(args.words_file)]
    vectors = encoder.embed(words, batch_size=args.batch_size, progress=len(words) > 10 * args.batch_size)
    _save_npy(args.out, vectors)
    print(f"{len(words)} vectors of dimension {vectors.shape[1]} written to {args.out}", file=sys.stderr)
    return 0


def _save_npy(path: str, vectors) -> None:
    """Write float32 rows to ``path`` atomically."""
    import numpy as np

    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=out.parent, delete=False, suffix=".npy") as f:
        np.save(f, vectors.detach().cpu().numpy().astype(np.float32))
    os.replace(f.name, out)


# --- encode ------------------------------------------------------------------------------------
def cmd_encode(args: argparse.Namespace) -> int:
    from charwise.hybrid.sentence import SentenceEncoder

    sentences = read_lines(args.file)
    encoder = SentenceEncoder(args.teacher, policy=args.policy, encoder=args.encoder, max_length=args.max_length)
    vectors = encoder.encode(sentences, batch_size=args.batch_size, normalize=not args.no_normalize,
                             progress=len(sentences) > 10 * args.batch_size)
    _save_npy(args.out, vectors)
    print(f"{len(sentences)} sentence vectors of dimension {vectors.shape[1]} ({encoder.policy.name} policy) "
          f"written to {args.out}", file=sys.stderr)
    return 0


# --- tune --------------------------------------------------------------------------------------
def cmd_tune(args: argparse.Namespace) -> int:
    from charwise.training.tuning import HybridTuner, TuneConfig

    out = Path(args.out)
    if args.resume and (out / "tune_config.json").exists():
        config = TuneConfig(**json.loads((out / "tune_config.json").read_text()))
    else:
        for path in args.corpus:
            if not Path(path).is_file():
                raise CLIError(f"no such corpus file: {path}")
        config = TuneConfig(corpora=list(args.corpus), teacher=args.teacher, encoder=args.encoder, policy=args.policy,
                            objective=args.objective, steps=args.steps, batch_size=args.batch_size, lr=args.lr, typo_rate=args.typo_rate,
                            eval_every=args.eval_every, seed=args.seed)
    tuner = HybridTuner(config, out, progress=not args.quiet)
    tuner.tune(resume=args.resume)
    if tuner.accelerator.is_main_process:
        what = "mean word log-likelihood" if config.objective == "lm" else "mean sentence cosine"
        print(f"tuned encoder written to {out / 'encoder'} (validation {what}: {tuner.best:.4f})", file=sys.stderr)
    return 0


# --- compare -----------------------------------------------------------------------------------
def cmd_compare(args: argparse.Namespace) -> int:
    import torch

    from charwise.hybrid.model import HybridModel
    from charwise.retrieval import topk_rows
    from charwise.words import split_words

    hybrid = HybridModel.from_teacher(args.teacher, policy=args.policy, encoder=args.encoder)
    teacher = hybrid.teacher
    with torch.inference_mode():
        inputs = hybrid.prepare_texts([args.text])
        words = split_words(args.text).words
    chosen = [w for w, s in zip(words, inputs.selected[0]) if s]
    near = {}
    if chosen:
        with torch.inference_mode():
            vectors = hybrid.char_vectors(chosen)
        _, idx = topk_rows(vectors, teacher.embeddings, 3, candidates=teacher.normal_mask)
        near = {w: ", ".join(teacher.display(int(i)) for i in row) for w, row in zip(chosen, idx)}
    width = max([len(w) for w in words] + [4])
    print(f"{'word':<{width}}  {'teacher pieces':<32}  hybrid input")
    for word, pieces, sel in zip(words, inputs.pieces[0], inputs.selected[0]):
        shown = " ".join(teacher.display(i) for i in pieces) or "(none)"
        hybrid_in = f"[char] ~ {near[word]}" if sel else "table"
        print(f"{word:<{width}}  {shown:<32}  {hybrid_in}")
    base_len = len(hybrid.adapter.prefix_ids) + len(hybrid.adapter.suffix_ids) + sum(
        max(len(p), 1) for p in inputs.pieces[0])
    print(f"\npolicy {hybrid.policy.name}: {len(chosen)} of {len(words)} words from characters; "
          f"sequence length {base_len} (teacher) -> {int(inputs.lengths[0])} (hybrid), special tokens included")
    return 0


# --- stats -------------------------------------------------------------------------------------
def cmd_stats(args: argparse.Namespace) -> int:
    from charwise.corpora import read_sentences
    from charwise.stats import corpus_stats, format_table, plot_stats
    from charwise.teachers import Teacher

    # Read every corpus before loading any teacher: a bad file fails fast.
    corpora = [(path, read_sentences(path, args.format, comments=not args.keep_hash_lines)) for path in args.corpus]
    results = []
    for name in args.teacher or ["minilm"]:
        teacher = Teacher.load(name)
        for path, sentences in corpora:
            results.append(corpus_stats(teacher, sentences, top=args.top, corpus=path))
    print(format_table(results))
    if args.json:
        _write_json(args.json, results[0] if len(results) == 1 else results)
    if args.plot:
        plot_stats(results, args.plot)
    return 0


# --- expand ------------------------------------------------------------------------------------
def cmd_expand(args: argparse.Namespace) -> int:
    from charwise.expansion.core import (
        STATIC_METHODS,
        Expander,
        check_output_dir,
        default_encoder,
        parse_method,
        read_corpus_lines,
        select_from_corpus,
        select_words,
        write_expanded_model,
    )
    from charwise.expansion.vectors import StaticVectors
    from charwise.teachers import Teacher

    # Cheap checks first: a bad method, option, output or input file fails before any model loads.
    parts = parse_method(args.method)
    if args.words and args.min_count is not None:
        raise CLIError("--min-count applies to --corpus, not to --words")
    if args.words and args.max_words:
        raise CLIError("--max-words applies to --corpus, not to --words")
    if args.max_words < 0:
        raise CLIError("--max-words must be >= 0")
    out = Path(args.out)
    check_output_dir(out, args.force)
    lines = read_lines(args.words) if args.words else read_corpus_lines(args.corpus)
    vectors = None
    if any(p in STATIC_METHODS for p in parts):
        vectors = StaticVectors.load(args.vectors, args.vectors_words)
    teacher = Teacher.load(args.teacher)
    if args.words:
        selection = select_words(teacher, lines)
    else:
        selection = select_from_corpus(teacher, lines, 5 if args.min_count is None else args.min_count, args.max_words)
    skips = [(key, why, getattr(selection, key)) for key, why in (
        ("in_vocab", "already one vocabulary token"), ("not_a_word", "split by the pre-tokenizer"),
        ("duplicates", "duplicates"))]
    if not selection.words:
        counts = ", ".join(f"{len(skipped)} {why}" for _, why, skipped in skips if skipped)
        raise CLIError(f"no new words to add from {args.words or args.corpus}" + (f" ({counts})" if counts else ""))
    for _, why, skipped in skips:
        if skipped:
            shown = ", ".join(skipped[:8]) + (", ..." if len(skipped) > 8 else "")
            print(f"skipped {len(skipped)} ({why}): {shown}", file=sys.stderr)
    # The encoder serves 'char' and is the fallback of mixture/joint for words without a static vector.
    needs_encoder = "char" in parts or vectors is not None or args.encoder is not None
    encoder = default_encoder(teacher, args.encoder) if needs_encoder else None
    if "char" in parts and encoder is None:
        raise CLIError(f"method '{args.method}' needs a character encoder trained for teacher '{args.teacher}': "
                       "pass --encoder, or use --method mean, mixture or joint")
    rows = Expander(teacher, vectors=vectors, encoder=encoder).rows(selection.words, args.method)
    report = {"inputs": {"teacher": args.teacher, "words": args.words, "corpus": args.corpus,
                         "min_count": args.min_count if args.words else (args.min_count or 5),
                         "vectors": vectors.source if vectors is not None else None,
                         "encoder": args.encoder or (teacher.name if encoder is not None else None)}}
    result = write_expanded_model(teacher, selection, rows, out, force=args.force, report=report)
    if rows.fallbacks:
        print(f"{len(rows.fallbacks)} words without a static vector used '{rows.info['fallback']['method']}'",
              file=sys.stderr)
    if "joint" in rows.info:
        align = rows.info["joint"]["alignment"]
        print(f"joint alignment: prec@1 {align['prec@1']:.3f} on {align['heldout']} held-out shared words", file=sys.stderr)
    if args.report:
        _write_json(args.report, result)
    print(f"added {result['added']} words (ids {result['first_id']}..{result['vocab_size'] - 1}, method {args.method}) "
          f"to {out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="charwise", description="Character-built word vectors in a subword model's space.")
    sub = p.add_subparsers(dest="command", required=True)

    from charwise.training.approximation import TrainConfig
    from charwise.training.losses import LossWeights

    tc, lw = TrainConfig(), LossWeights()
    t = sub.add_parser("train", help="train a character encoder to reproduce a teacher's embedding table")
    t.add_argument("--teacher", default=tc.teacher, help="minilm, smollm2, a HF model directory or a .gguf file")
    t.add_argument("--encoder", default=tc.encoder, choices=["cnn", "transformer", "bilstm"])
    t.add_argument("--preset", default=tc.preset, help="encoder preset (cnn: kim-small, kim-large, xray, wide; "
                   "transformer: small, char2subword; bilstm: mimick, large)")
    t.add_argument("--out", required=True, help="output directory (encoder/, checkpoint/, log.jsonl, eval.json)")
    t.add_argument("--steps", type=int, default=tc.steps)
    t.add_argument("--batch-size", type=int, default=tc.batch_size)
    t.add_argument("--lr", type=float, default=tc.lr)
    t.add_argument("--warmup-steps", type=int, default=tc.warmup_steps)
    t.add_argument("--noise-ratio", type=float, default=tc.noise_ratio, help="share of eligible samples given one typo")
    t.add_argument("--seed", type=int, default=tc.seed)
    t.add_argument("--eval-every", type=int, default=tc.eval_every)
    t.add_argument("--max-chars", type=int, default=tc.max_chars)
    t.add_argument("--checkpoint-every", type=int, default=tc.checkpoint_every, help="steps between resumable checkpoints")
    for name, what in (("cos", "cosine distance"), ("l2", "Euclidean distance"), ("nbr", "neighbour"),
                       ("ce", "tied cross-entropy"), ("contrastive", "contrastive (in-batch + hard negatives)")):
        t.add_argument(f"--{name}", type=float, default=getattr(lw, name), help=f"weight of the {what} loss (0 disables)")
    t.add_argument("--ce-scale", type=float, default=lw.ce_scale, help="logit scale of the tied cross-entropy")
    t.add_argument("--nbr-k", type=int, default=lw.nbr_k)
    t.add_argument("--hard-negatives", type=int, default=lw.hard_negatives)
    t.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    t.add_argument("--no-report", action="store_true", help="skip the final evaluation")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    t.set_defaults(func=cmd_train)

    e = sub.add_parser("eval", help="evaluate an encoder against its teacher (table + JSON)")
    e.add_argument("encoder", help="shipped encoder name (minilm) or an encoder directory")
    e.add_argument("--json", help="write the report as JSON to this file")
    e.add_argument("--noise-words", type=int, default=1000, help="noisy samples per operation")
    e.add_argument("--max-words", type=int, default=0, help="evaluate on at most this many held-in words (0: all)")
    e.add_argument("--seed", type=int, default=1234)
    e.set_defaults(func=cmd_eval)

    n = sub.add_parser("neighbors", help="nearest teacher rows of each word, beside the teacher's own pieces")
    n.add_argument("words", nargs="+")
    n.add_argument("-k", type=int, default=10)
    n.add_argument("--encoder", default="minilm", help="shipped encoder name or an encoder directory")
    n.set_defaults(func=cmd_neighbors)

    m = sub.add_parser("embed", help="embed one word per line into a .npy matrix (row i = line i)")
    m.add_argument("words_file", help="UTF-8 text file, one word per line ('-' for stdin)")
    m.add_argument("--out", required=True, help="output .npy file")
    m.add_argument("--encoder", default="minilm")
    m.add_argument("--batch-size", type=int, default=1024)
    m.set_defaults(func=cmd_embed)

    c = sub.add_parser("encode", help="sentence vectors (all-MiniLM-L6-v2 pooling) of one sentence per line, as .npy")
    c.add_argument("file", help="UTF-8 text file, one sentence per line ('-' for stdin); row i = line i")
    c.add_argument("--out", required=True, help="output .npy file")
    c.add_argument("--teacher", default="minilm")
    c.add_argument("--policy", default="oov", help="none, oov, multi, no-suffix, random:P or all")
    c.add_argument("--encoder", default=None, help="character encoder (default: the one shipped for the teacher)")
    c.add_argument("--batch-size", type=int, default=32)
    c.add_argument("--max-length", type=int, default=256, help="positions per sentence; longer ones are truncated")
    c.add_argument("--no-normalize", action="store_true", help="keep the mean-pooled vectors unnormalised")
    c.set_defaults(func=cmd_encode)

    h = sub.add_parser("compare", help="teacher pieces vs hybrid input for a text: which words the policy picks")
    h.add_argument("text")
    h.add_argument("--teacher", default="minilm", help="minilm, smollm2 or a model directory")
    h.add_argument("--policy", default="oov", help="none, oov, multi, no-suffix, random:P or all")
    h.add_argument("--encoder", default=None, help="character encoder (default: the one shipped for the teacher)")
    h.set_defaults(func=cmd_compare)

    u = sub.add_parser("tune", help="adapt an encoder to the frozen model that reads it (hybrid tuning)")
    u.add_argument("corpus", nargs="+", help="training sentences: plain text, CoNLL or CoNLL-U files")
    u.add_argument("--out", required=True, help="output directory (encoder/, checkpoint/, log.jsonl)")
    u.add_argument("--teacher", default="minilm")
    u.add_argument("--encoder", default="minilm", help="encoder to start from (shipped name or directory)")
    u.add_argument("--policy", default="oov")
    u.add_argument("--objective", default="distill", choices=["distill", "lm"],
                   help="distill: match the base model's states on clean text (any model); "
                        "lm: next-word likelihood of the clean text (causal LMs)")
    u.add_argument("--steps", type=int, default=600)
    u.add_argument("--batch-size", type=int, default=32)
    u.add_argument("--lr", type=float, default=3e-4)
    u.add_argument("--typo-rate", type=float, default=0.3, help="typo probability per eligible word, student side")
    u.add_argument("--eval-every", type=int, default=100)
    u.add_argument("--seed", type=int, default=0)
    u.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    u.add_argument("--quiet", action="store_true", help="no progress bar")
    u.set_defaults(func=cmd_tune)

    s = sub.add_parser("stats", help="how much a teacher's tokenizer fragments the words of a corpus")
    s.add_argument("corpus", nargs="+", help="corpus files: plain text, CoNLL or CoNLL-U")
    s.add_argument("--teacher", action="append", default=None,
                   help="minilm, smollm2, a HF model directory or a .gguf file (repeatable; default minilm)")
    s.add_argument("--format", default="auto", choices=["auto", "text", "conll", "conllu"],
                   help="corpus format (auto: from the extension / content)")
    s.add_argument("--json", help="write the statistics as JSON to this file")
    s.add_argument("--plot", help="write a PNG of the pieces-per-word histograms")
    s.add_argument("--top", type=int, default=20, help="how many of the most shattered words to list")
    s.add_argument("--keep-hash-lines", action="store_true",
                   help="CoNLL: keep token lines starting with '#' (by default they are comments)")
    s.set_defaults(func=cmd_stats)

    x = sub.add_parser("expand", help="add words to a model's vocabulary as whole-word tokens with good rows")
    x.add_argument("--teacher", default="minilm", help="minilm, smollm2, a HF model directory or a .gguf file")
    source = x.add_mutually_exclusive_group(required=True)
    source.add_argument("--words", help="UTF-8 file, one word per line")
    source.add_argument("--corpus", help="UTF-8 plain text (a file, or a directory of files), one sentence per "
                        "line: adds the words the tokenizer splits")
    x.add_argument("--min-count", type=int, default=None, help="--corpus: least occurrences of a word (default 5)")
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
    x.set_defaults(func=cmd_expand)

    from charwise.cli.tag import add_tag_parser

    add_tag_parser(sub)  # charwise tag train|eval|predict (issue #4)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from transformers.utils import logging as hf_logging

    # charwise prints its own progress; transformers' weight-loading bars would bury the output.
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    from charwise.encoders.base import CheckpointError
    from charwise.teachers import TeacherNotFoundError

    try:
        return args.func(args)
    except (CLIError, TeacherNotFoundError, CheckpointError, FileNotFoundError, FileExistsError, ValueError) as e:
        print(f"charwise: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("charwise: interrupted (training can continue with --resume)", file=sys.stderr)
        return 130


