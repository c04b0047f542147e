"""``charwise`` command line: a thin layer over the library (train, eval, neighbors, embed)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Sequence

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # weights come from installed packages, never a hub


class CLIError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


def _load_encoder(name_or_path: str):
    from .pretrained import load

    return load(name_or_path)


def _write_json(path: str, data: dict) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=target.parent, delete=False, suffix=".tmp", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
    os.replace(f.name, target)


# --- train -------------------------------------------------------------------------------------
def cmd_train(args: argparse.Namespace) -> int:
    from .losses import LossWeights
    from .trainer import TrainConfig, Trainer

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
        from .evaluation import format_report

        report = trainer.final_report()
        report["train_config"] = asdict(config)
        _write_json(str(out / "eval.json"), report)
        print(format_report(report))
        print(f"encoder saved to {out / 'encoder'}; report in {out / 'eval.json'}")
    return 0


# --- eval --------------------------------------------------------------------------------------
def cmd_eval(args: argparse.Namespace) -> int:
    import torch

    from .evaluation import evaluate, format_report
    from .targets import split_for_encoder

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
    from .evaluation import piece_mean_vectors
    from .retrieval import topk_rows

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
    import numpy as np

    encoder = _load_encoder(args.encoder)  # fail on a bad encoder before reading any input
    if args.words_file == "-":
        lines = sys.stdin.read().splitlines()
    else:
        path = Path(args.words_file)
        if not path.is_file():
            raise CLIError(f"no such file: {path}")
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError as e:
            raise CLIError(f"{path} is not UTF-8 text ({e.reason} at byte {e.start}); give one word per line") from None
    # Row i is line i, always: empty lines give the empty-string vector instead of being dropped.
    words = [line.strip() for line in lines]
    vectors = encoder.embed(words, batch_size=args.batch_size, progress=len(words) > 10 * args.batch_size)
    vectors = vectors.cpu().numpy().astype(np.float32)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=out.parent, delete=False, suffix=".npy") as f:
        np.save(f, vectors)
    os.replace(f.name, out)
    print(f"{len(words)} vectors of dimension {vectors.shape[1]} written to {out}", file=sys.stderr)
    return 0


# --- stats -------------------------------------------------------------------------------------
def cmd_stats(args: argparse.Namespace) -> int:
    from .stats import corpus_stats, format_table, plot_stats, read_corpus
    from .teachers import Teacher

    # Read every corpus before loading any teacher: a bad file fails fast.
    corpora = [(path, read_corpus(path, args.format, conll_comments=not args.keep_hash_lines)) for path in args.corpus]
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


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="charwise", description="Character-built word vectors in a subword model's space.")
    sub = p.add_subparsers(dest="command", required=True)

    from .losses import LossWeights
    from .trainer import TrainConfig

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
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from transformers.utils import logging as hf_logging

    # charwise prints its own progress; transformers' weight-loading bars would bury the output.
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    from .encoders.base import CheckpointError
    from .teachers import TeacherNotFoundError

    try:
        return args.func(args)
    except (CLIError, TeacherNotFoundError, CheckpointError, FileNotFoundError, FileExistsError, ValueError) as e:
        print(f"charwise: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("charwise: interrupted (training can continue with --resume)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
