"""``charwise train | eval | neighbors | embed``: character encoders that reproduce a teacher's table."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from charwise.cli.common import (
    ENCODER_HELP,
    add_input_options,
    argument_text,
    check_encoder,
    check_input_options,
    check_min,
    check_positive,
    check_unit,
    fingerprint,
    input_lines,
    load_encoder,
    scan_input,
)
from charwise.cli.progress import Progress, add_progress_option, progress_mode
from charwise.cli.workers import add_worker_options, check_worker_options
from charwise.errors import CheckpointError, ConfigError, InputError
from charwise.io import check_output_dir, check_output_file, check_resumable, read_json, resumable_output, write_json
from charwise.parallel import Job, ordered_results
from charwise.presets import ENCODER_PRESETS
from charwise.training.config import NOISE_MODELS, LossWeights, TrainConfig
from charwise.typos.realistic import LANGUAGES

if TYPE_CHECKING:
    import torch

    from charwise.teachers import Teacher

# Words embedded and written at a time (by one worker), memory bounded by it; the same chunks
# whatever --workers is, so that the batches, and the bytes written, are the same.
EMBED_BLOCK = 4096

LOSS_FLAGS = (("cos", "cosine distance"), ("l2", "Euclidean distance"), ("nbr", "neighbour"),
              ("ce", "tied cross-entropy"), ("contrastive", "contrastive (in-batch + hard negatives)"))


def add_parser(sub: Any) -> None:
    """Register ``train``, ``eval``, ``manifold``, ``neighbors`` and ``embed`` on the main parser's subparsers."""
    tc, lw = TrainConfig(), LossWeights()
    presets = "; ".join(f"{kind}: {', '.join(names)}" for kind, names in sorted(ENCODER_PRESETS.items()))
    t = sub.add_parser("train", help="train a character encoder to reproduce a teacher's embedding table")
    t.add_argument("--teacher", default=tc.teacher,
                   help="minilm, smollm2, e5-multilingual, a HF model directory or a .gguf file")
    t.add_argument("--encoder", default=tc.encoder, choices=sorted(ENCODER_PRESETS))
    t.add_argument("--preset", default=tc.preset, help=f"encoder preset ({presets}; default {tc.preset})")
    t.add_argument("--out", required=True, help="output directory (encoder/, checkpoint/, log.jsonl, eval.json)")
    t.add_argument("--steps", type=int, default=tc.steps)
    t.add_argument("--batch-size", type=int, default=tc.batch_size)
    t.add_argument("--lr", type=float, default=tc.lr)
    t.add_argument("--warmup-steps", type=int, default=tc.warmup_steps)
    t.add_argument("--noise-ratio", type=float, default=tc.noise_ratio,
                   help="share of eligible samples (longer than 4 characters) given typo noise")
    t.add_argument("--noise", default=tc.noise, choices=NOISE_MODELS,
                   help="training noise: single (one keyboard-style typo, the default) or realistic (1-3 spelling "
                        "errors by sound, rule and keyboard) or mixed (either, half and half); evaluation always "
                        "uses single typos")
    t.add_argument("--noise-language", default=tc.noise_language,
                   help=f"language of the realistic noise's spelling rules ({', '.join(sorted(LANGUAGES))}; "
                        "several joined by '+', as en+es)")
    t.add_argument("--seed", type=int, default=tc.seed)
    t.add_argument("--eval-every", type=int, default=tc.eval_every)
    t.add_argument("--max-chars", type=int, default=tc.max_chars)
    t.add_argument("--checkpoint-every", type=int, default=tc.checkpoint_every,
                   help="steps between resumable checkpoints")
    for name, what in LOSS_FLAGS:
        t.add_argument(f"--{name}", type=float, default=getattr(lw, name),
                       help=f"weight of the {what} loss (0 disables)")
    t.add_argument("--ce-scale", type=float, default=lw.ce_scale, help="logit scale of the tied cross-entropy")
    t.add_argument("--ce-negatives", type=int, default=lw.ce_negatives,
                   help="sampled softmax over this many random rows plus the batch (0: the whole table; "
                        "large tables such as XLM-R's 250k rows train several times faster)")
    t.add_argument("--nbr-k", type=int, default=lw.nbr_k)
    t.add_argument("--hard-negatives", type=int, default=lw.hard_negatives)
    t.add_argument("--init-encoder", default="", metavar="ENCODER",
                   help="start from this saved encoder (a shipped name or a directory trained with the same "
                        "teacher, encoder, preset and seed) instead of random weights, its batches going on "
                        "where its run stopped")
    t.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    t.add_argument("--no-manifold", action="store_true",
                   help="do not tune the projection onto the table's manifold after training (raw vectors)")
    t.add_argument("--no-report", action="store_true", help="skip the final evaluation")
    t.add_argument("--report-words", type=int, default=0,
                   help="final evaluation on at most this many held-in words (0: all; as eval --max-words)")
    add_progress_option(t, quiet=True)
    t.set_defaults(func=cmd_train)

    e = sub.add_parser("eval", help="evaluate an encoder against its teacher (table + JSON)")
    e.add_argument("encoder", help=ENCODER_HELP)
    e.add_argument("--json", help="write the report as JSON to this file")
    e.add_argument("--noise-words", type=int, default=1000, help="noisy samples per operation")
    e.add_argument("--max-words", type=int, default=0, help="evaluate on at most this many held-in words (0: all)")
    e.add_argument("--words-from", metavar="CORPUS",
                   help="only words that occur in this UTF-8 plain-text file or directory (a language, a domain)")
    e.add_argument("--seed", type=int, default=1234)
    add_progress_option(e)
    e.set_defaults(func=cmd_eval)

    p = sub.add_parser("manifold", help="tune an encoder's projection onto its teacher's rows on validation "
                                          "words and save a copy with it")
    p.add_argument("encoder", help=ENCODER_HELP)
    p.add_argument("--out", required=True, help="output encoder directory")
    p.add_argument("--words", type=int, default=2000, help="held-in validation words (each clean and misspelled)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--gate-max", type=float, default=0.5, help="the most the mixture of rows may weigh, in (0, 1]")
    p.set_defaults(func=cmd_manifold)

    n = sub.add_parser("neighbors", help="nearest teacher rows of each word, beside the teacher's own pieces")
    n.add_argument("words", nargs="+")
    n.add_argument("-k", type=int, default=10)
    n.add_argument("--encoder", default="minilm", help=ENCODER_HELP)
    n.add_argument("--errors", default="strict", choices=["strict", "replace"],
                   help="words that are not UTF-8: strict refuses them, replace reads each bad byte as U+FFFD")
    n.set_defaults(func=cmd_neighbors)

    m = sub.add_parser("embed", help="embed one word per line into a .npy matrix (row i = line i)")
    m.add_argument("words_file", help="UTF-8 text file, one word per line ('-' for stdin)")
    m.add_argument("--out", required=True, help="output .npy file")
    m.add_argument("--encoder", default="minilm", help=ENCODER_HELP)
    m.add_argument("--batch-size", type=int, default=1024)
    add_input_options(m)
    add_worker_options(m)
    m.set_defaults(func=cmd_embed)


# --- train -------------------------------------------------------------------------------------
def _check_train_flags(args: argparse.Namespace) -> None:
    known = ENCODER_PRESETS[args.encoder]
    if args.preset is not None and args.preset not in known:
        raise ConfigError(f"--preset {args.preset!r} is not a {args.encoder} preset (known: {', '.join(known)})")
    for flag, value in (("--steps", args.steps), ("--batch-size", args.batch_size), ("--eval-every", args.eval_every),
                        ("--max-chars", args.max_chars), ("--checkpoint-every", args.checkpoint_every),
                        ("--nbr-k", args.nbr_k)):
        check_min(flag, value, 1)
    check_min("--warmup-steps", args.warmup_steps, 0)
    check_min("--hard-negatives", args.hard_negatives, 0)
    for name, _ in LOSS_FLAGS:
        check_min(f"--{name}", getattr(args, name), 0)
    if not any(getattr(args, name) > 0 for name, _ in LOSS_FLAGS):
        raise ConfigError("every loss weight is zero: give one of " + ", ".join(f"--{n}" for n, _ in LOSS_FLAGS)
                          + " a positive weight")
    check_positive("--lr", args.lr)
    check_positive("--ce-scale", args.ce_scale)
    if args.ce_negatives < 0:
        raise ConfigError(f"--ce-negatives must be >= 0 (0: the whole table), got {args.ce_negatives}")
    check_unit("--noise-ratio", args.noise_ratio)


def cmd_train(args: argparse.Namespace) -> int:
    from charwise.training.approximation import Trainer

    check_min("--report-words", args.report_words, 0)
    out = check_output_dir(args.out, "--out")
    started = (out / "train_config.json").exists()
    if args.resume and not (out / "checkpoint" / "state.json").is_file():
        if not started:
            raise CheckpointError(f"nothing to resume: {out} has no checkpoint; run without --resume")
        # else a run stopped before its first checkpoint: the engine starts it over from step 0
    if args.resume and started:
        config = TrainConfig.from_dict(read_json(out / "train_config.json"))
        # --resume continues the run as it was configured: a flag asking for something else is refused.
        defaults = TrainConfig()
        for flag, asked, saved, default in (("--steps", args.steps, config.steps, defaults.steps),
                                            ("--batch-size", args.batch_size, config.batch_size, defaults.batch_size),
                                            ("--lr", args.lr, config.lr, defaults.lr),
                                            ("--teacher", args.teacher, config.teacher, defaults.teacher)):
            if asked != default and asked != saved:
                raise ConfigError(f"{flag} {asked} differs from the run in {out} ({flag} {saved}): --resume "
                                  f"continues that run as configured; drop {flag}, or start a new run with "
                                  "another --out")
    else:
        _check_train_flags(args)
        losses = LossWeights(cos=args.cos, l2=args.l2, nbr=args.nbr, ce=args.ce, contrastive=args.contrastive,
                             ce_scale=args.ce_scale, ce_negatives=args.ce_negatives, nbr_k=args.nbr_k,
                             hard_negatives=args.hard_negatives)
        config = TrainConfig(teacher=args.teacher, encoder=args.encoder, preset=args.preset, steps=args.steps,
                             batch_size=args.batch_size, lr=args.lr, noise_ratio=args.noise_ratio, seed=args.seed,
                             eval_every=args.eval_every, losses=losses, max_chars=args.max_chars,
                             warmup_steps=args.warmup_steps, checkpoint_every=args.checkpoint_every,
                             noise=args.noise, noise_language=args.noise_language,
                             init_encoder=args.init_encoder)
    trainer = Trainer(config, out, progress=progress_mode(args))
    if trainer.accelerator.is_main_process:
        enc = trainer.encoder
        print(f"teacher {trainer.teacher.name}: V={trainer.teacher.vocab_size} d={trainer.teacher.dim}; "
              f"{config.encoder}/{config.preset}: {enc.num_parameters():,} parameters "
              f"({100 * enc.num_parameters() / trainer.teacher.embeddings.numel():.1f}% of the table); "
              f"{len(trainer.split.train)} training rows, {len(trainer.split.heldout_words)} held-out words",
              file=sys.stderr)
    trainer.train(resume=args.resume)
    if trainer.accelerator.is_main_process and not args.no_manifold:
        from charwise.training.manifold import format_tuning, save_with_manifold

        best = trainer.best_encoder()
        print(format_tuning(save_with_manifold(best, trainer.teacher, trainer.split, out / "encoder",
                                               seed=config.seed, language=config.noise_language)), file=sys.stderr)
    if trainer.accelerator.is_main_process and not args.no_report:
        from charwise.evaluation import format_report

        progress = Progress("final evaluation", "words", None, progress_mode(args))
        report = trainer.final_report(max_words=args.report_words, progress=progress.tell)
        progress.close()
        report["train_config"] = asdict(config)
        write_json(out / "eval.json", report)
        print(format_report(report))
        print(f"encoder saved to {out / 'encoder'}; report in {out / 'eval.json'}")
    return 0


# --- eval --------------------------------------------------------------------------------------
def cmd_eval(args: argparse.Namespace) -> int:
    from charwise.evaluation import evaluate, format_report, sample_rows
    from charwise.training.targets import split_for_encoder

    check_min("--max-words", args.max_words, 0)
    check_min("--noise-words", args.noise_words, 0)
    if args.json:
        check_output_file(args.json, "--json")
    encoder = load_encoder(args.encoder)
    teacher = encoder.teacher
    split = split_for_encoder(teacher, getattr(encoder, "training_info", {}) or {})
    heldin, heldout = split.heldin_words, split.heldout_words
    if args.words_from:
        heldin, heldout = (rows_in_corpus(teacher, ids, args.words_from) for ids in (heldin, heldout))
        if len(heldin) == 0:
            raise InputError(f"no whole-word row of teacher '{teacher.name}' occurs in {args.words_from}")
    heldin = sample_rows(heldin, args.max_words)
    print(f"evaluating {args.encoder} against {teacher.name}: {len(heldin)} held-in and {len(heldout)} held-out "
          f"words, {args.noise_words} noisy samples per typo operation"
          + (" (projected and raw vectors)" if encoder.manifold is not None else "") + " ...", file=sys.stderr)
    progress = Progress("eval", "words", None, args.progress)
    report = evaluate(encoder, teacher, heldin, heldout, noise_words=args.noise_words, seed=args.seed,
                      progress=progress.tell)
    progress.close()
    report["encoder"] = {"path": str(args.encoder), "kind": encoder.kind, "parameters": encoder.num_parameters()}
    if args.words_from:
        report["words_from"] = str(args.words_from)
    print(format_report(report))
    if args.json:
        write_json(args.json, report)
    return 0


def rows_in_corpus(teacher: Teacher, rows: torch.Tensor, corpus: str) -> torch.Tensor:
    """The rows among ``rows`` whose vocabulary entry occurs as a word of ``corpus``."""
    import torch

    from charwise.expansion.selection import corpus_word_counts, read_corpus_lines

    seen = corpus_word_counts(teacher, read_corpus_lines(corpus))
    return torch.tensor([i for i in rows.tolist() if teacher.vocab.tokens[i] in seen], dtype=torch.long)


# --- manifold ----------------------------------------------------------------------------------
def cmd_manifold(args: argparse.Namespace) -> int:
    from charwise.training.manifold import format_tuning, save_with_manifold
    from charwise.training.targets import split_for_encoder

    check_min("--words", args.words, 1)
    encoder = load_encoder(args.encoder)
    teacher = encoder.teacher
    split = split_for_encoder(teacher, encoder.training_info)
    if not 0 < args.gate_max <= 1:
        raise ConfigError(f"--gate-max must be in (0, 1], got {args.gate_max}")
    # Misspelled validation words in the languages the encoder was trained on.
    language = (encoder.training_info.get("config") or {}).get("noise_language", "en")
    report = save_with_manifold(encoder, teacher, split, args.out, words=args.words, seed=args.seed,
                                gate_max=args.gate_max, language=language)
    print(format_tuning(report))
    print(f"encoder saved to {args.out}")
    return 0


# --- neighbors ---------------------------------------------------------------------------------
def cmd_neighbors(args: argparse.Namespace) -> int:
    from charwise.evaluation import piece_mean_vectors
    from charwise.retrieval import topk_rows

    check_min("-k", args.k, 1)
    args.words = [argument_text(args, w, f"word {n + 1}") for n, w in enumerate(args.words)]
    for n, word in enumerate(args.words):
        if not word.strip():
            raise InputError(f"word {n + 1} is empty: give words of at least one character")
    encoder = load_encoder(args.encoder)
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
EMBED_OPTIONS = ("encoder", "batch_size", "errors", "max_line_chars")  # the options that change the output
EMBEDDER_LOADER = "charwise.cli.encoder:load_embedder"  # what each worker process loads, once


def cmd_embed(args: argparse.Namespace) -> int:
    import itertools

    check_min("--batch-size", args.batch_size, 1)
    check_input_options(args)
    check_worker_options(args, args.words_file)
    check_encoder(args.encoder)
    scan = scan_input(args, args.words_file)  # the whole input is checked before anything loads
    mark = fingerprint("embed", scan, args, EMBED_OPTIONS)
    check_resumable(args.out, mark, args.resume)
    job = Job(EMBEDDER_LOADER, "charwise.cli.encoder:embed_chunk",
              {"encoder": args.encoder, "batch_size": args.batch_size})
    with resumable_output(args.out, mark, resume=args.resume, npy=True) as out:
        out.keep(out.done - out.done % EMBED_BLOCK)  # whole chunks: the same batches as a run not interrupted
        progress = Progress("embed", "words", scan.lines if scan is not None else None, args.progress, out.done)
        lines = itertools.islice(input_lines(args, args.words_file, scanned=True), out.done, None)
        # Row i is line i, always: empty lines give the empty-string vector instead of being dropped.
        chunks = iter(lambda: [line.strip() for line in itertools.islice(lines, EMBED_BLOCK)], [])
        for vectors in ordered_results(job, chunks, args.workers):
            out.write_rows(vectors)
            out.flush()  # the chunk is committed: a killed run keeps it
            progress.update(len(vectors))
        progress.close()
        if out.rows is None:  # an empty input: the encoder says the width of its (no) rows
            import numpy as np

            out.write_rows(np.zeros((0, job.start()[0].dim), dtype=np.float32))
        rows, dim = out.units, out.rows.dim if out.rows is not None else 0
    print(f"{rows} vectors of dimension {dim} written to {args.out}", file=sys.stderr)
    return 0


def load_embedder(encoder: str, batch_size: int) -> tuple[Any, int]:
    """The encoder ``embed`` runs (once per worker process) and its batch size."""
    return load_encoder(encoder), batch_size


def embed_chunk(state: tuple[Any, int], words: list[str]) -> Any:
    """A worker's part of ``embed``: the float32 vectors of a chunk of words."""
    import numpy as np

    encoder, batch_size = state
    return np.ascontiguousarray(encoder.embed(words, batch_size=batch_size).detach().cpu().numpy(), dtype=np.float32)
