"""``charwise encode | compare | tune | pretrain``: hybrid models, which read chosen words from characters."""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path
from typing import Any

from charwise.cli.common import (
    add_input_options,
    argument_text,
    check_encoder,
    check_input_options,
    check_min,
    check_policy,
    check_positive,
    check_unit,
    fingerprint,
    input_lines,
    scan_input,
)
from charwise.cli.progress import Progress, add_progress_option, progress_mode
from charwise.cli.workers import add_worker_options, check_worker_options
from charwise.errors import ConfigError
from charwise.io import check_input_file, check_resumable, read_json, resumable_output
from charwise.parallel import Job, ordered_results
from charwise.presets import CHAR_POLICY_HELP, DEFAULT_POLICY, POLICY_HELP
from charwise.training.config import NOISE_MODELS, PRETRAIN_MODES, PretrainConfig, TuneConfig

# Sentences encoded and written at a time (by one worker), memory bounded by it; the same chunks
# whatever --workers is, so that the batches, and the bytes written, are the same.
ENCODE_BLOCK = 256

ENCODER_HELP = "character encoder (default: the one shipped for the teacher)"


def add_parser(sub: Any) -> None:
    """Register ``encode``, ``compare``, ``tune`` and ``pretrain`` on the main parser's subparsers."""
    c = sub.add_parser("encode", help="sentence vectors (all-MiniLM-L6-v2 pooling) of one sentence per line, as .npy")
    c.add_argument("file", help="UTF-8 text file, one sentence per line ('-' for stdin); row i = line i")
    c.add_argument("--out", required=True, help="output .npy file")
    c.add_argument("--teacher", default="minilm")
    c.add_argument("--policy", default=DEFAULT_POLICY, help=POLICY_HELP)
    c.add_argument("--encoder", default=None, help=ENCODER_HELP)
    c.add_argument("--batch-size", type=int, default=32)
    c.add_argument("--max-length", type=int, default=256, help="positions per sentence; longer ones are truncated")
    c.add_argument("--no-normalize", action="store_true", help="keep the mean-pooled vectors unnormalised")
    c.add_argument("--device", help="where the model runs: cpu (default), cuda, cuda:1...; a GPU runs it in this "
                                    "process (--workers 1)")
    c.add_argument("--prepare-workers", type=int, default=0,
                   help="with a repair policy and --workers 1 (a GPU): processes that run the speller on the "
                        "batches ahead of the model (default 0: in this process)")
    add_input_options(c)
    add_worker_options(c)
    c.set_defaults(func=cmd_encode)

    h = sub.add_parser("compare", help="teacher pieces vs hybrid input for a text: which words the policy picks")
    h.add_argument("text")
    h.add_argument("--teacher", default="minilm", help="minilm, smollm2, e5-multilingual or a model directory")
    h.add_argument("--policy", default=DEFAULT_POLICY, help=POLICY_HELP)
    h.add_argument("--encoder", default=None, help=ENCODER_HELP)
    h.add_argument("--errors", default="strict", choices=["strict", "replace"],
                   help="text that is not UTF-8: strict refuses it, replace reads each bad byte as U+FFFD")
    h.set_defaults(func=cmd_compare)

    tc = TuneConfig()
    u = sub.add_parser("tune", help="adapt an encoder to the frozen model that reads it (hybrid tuning)")
    u.add_argument("corpus", nargs="+", help="training sentences: plain text, CoNLL or CoNLL-U files")
    u.add_argument("--out", required=True, help="output directory (encoder/, checkpoint/, log.jsonl)")
    u.add_argument("--teacher", default=tc.teacher)
    u.add_argument("--encoder", default=tc.encoder, help="encoder to start from (shipped name or directory)")
    u.add_argument("--policy", default=tc.policy, help=CHAR_POLICY_HELP)
    u.add_argument("--objective", default=tc.objective, choices=["distill", "lm"],
                   help="distill: match the base model's states on clean text (any model); "
                        "lm: next-word likelihood of the clean text (causal LMs)")
    u.add_argument("--steps", type=int, default=tc.steps)
    u.add_argument("--batch-size", type=int, default=tc.batch_size)
    u.add_argument("--lr", type=float, default=tc.lr)
    u.add_argument("--typo-rate", type=float, default=tc.typo_rate,
                   help="typo probability per eligible word, student side")
    u.add_argument("--eval-every", type=int, default=tc.eval_every)
    u.add_argument("--seed", type=int, default=tc.seed)
    u.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    add_progress_option(u, quiet=True)
    u.set_defaults(func=cmd_tune)

    d = PretrainConfig()
    r = sub.add_parser("pretrain", help="second pre-training: a masked LM learns to read character vectors")
    r.add_argument("corpus", nargs="+", help="training sentences: plain text, CoNLL or CoNLL-U files")
    r.add_argument("--out", required=True, help="output directory (model/ with its encoder, checkpoint/, log.jsonl)")
    r.add_argument("--teacher", default=d.teacher, help="minilm or a BERT-family model directory")
    r.add_argument("--encoder", default=d.encoder, help="encoder to start from (shipped name or directory)")
    r.add_argument("--mode", default=d.mode, choices=PRETRAIN_MODES,
                   help="frozen: transformer frozen, encoder and head trained (Char2Subword); "
                        "full: the transformer trains too, at --model-lr (XRayEmb 2PT)")
    r.add_argument("--policy", default=d.policy, help=CHAR_POLICY_HELP)
    r.add_argument("--steps", type=int, default=d.steps)
    r.add_argument("--batch-size", type=int, default=d.batch_size)
    r.add_argument("--lr", type=float, default=d.lr, help="learning rate of the character encoder")
    r.add_argument("--head-lr", type=float, default=d.head_lr, help="learning rate of the MLM head (new)")
    r.add_argument("--model-lr", type=float, default=d.model_lr, help="learning rate of the transformer (mode full)")
    r.add_argument("--mask-rate", type=float, default=d.mask_rate, help="share of each sentence's words masked")
    r.add_argument("--noise", default=d.noise, choices=NOISE_MODELS, help="typo model of the noisy sentences")
    r.add_argument("--typo-rate", type=float, default=d.typo_rate, help="typo probability per eligible word")
    r.add_argument("--max-words", type=int, default=d.max_words, help="words per sentence (longer ones are cut)")
    r.add_argument("--eval-every", type=int, default=d.eval_every)
    r.add_argument("--seed", type=int, default=d.seed)
    r.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    add_progress_option(r, quiet=True)
    r.set_defaults(func=cmd_pretrain)


# --- encode ------------------------------------------------------------------------------------
ENCODE_OPTIONS = ("teacher", "policy", "encoder", "batch_size", "max_length", "no_normalize", "errors",
                  "max_line_chars", "device")  # the options that change the output (a GPU's last bits differ)
ENCODER_LOADER = "charwise.cli.hybrid:load_sentence_encoder"  # what each worker process loads, once


def cmd_encode(args: argparse.Namespace) -> int:
    import numpy as np

    check_min("--batch-size", args.batch_size, 1)
    check_min("--max-length", args.max_length, 1)
    check_input_options(args)
    check_worker_options(args, args.file)
    check_policy(args.policy)  # without torch: a bad name fails at once
    check_min("--prepare-workers", args.prepare_workers, 0)
    if args.prepare_workers:
        if not args.policy.startswith("repair"):
            raise ConfigError(f"--prepare-workers runs a repair policy's speller in other processes; policy "
                              f"'{args.policy}' has none")
        if args.workers > 1:
            raise ConfigError("--prepare-workers goes with --workers 1 (the default with a GPU --device): each "
                              "of several workers would start processes of its own")
    if args.device is not None:
        from charwise.devices import check_device

        check_device(args.device)
    if args.encoder is not None:
        check_encoder(args.encoder)
    # The whole input is checked before torch and the model load and before anything is written.
    scan = scan_input(args, args.file)
    mark = fingerprint("encode", scan, args, ENCODE_OPTIONS)
    check_resumable(args.out, mark, args.resume)
    job = Job(ENCODER_LOADER, "charwise.cli.hybrid:encode_chunk",
              {"teacher": args.teacher, "policy": args.policy, "encoder": args.encoder, "max_length": args.max_length,
               "batch_size": args.batch_size, "normalize": not args.no_normalize, "device": args.device,
               "prepare_workers": args.prepare_workers})
    cut = 0
    with resumable_output(args.out, mark, resume=args.resume, npy=True) as out:
        # whole chunks only: a chunk encoded again in other batches could differ in its last bits
        out.keep(out.done - out.done % ENCODE_BLOCK)
        progress = Progress("encode", "sentences", scan.lines if scan is not None else None, args.progress, out.done)
        lines = itertools.islice(input_lines(args, args.file, scanned=True), out.done, None)
        chunks = iter(lambda: list(itertools.islice(lines, ENCODE_BLOCK)), [])
        for vectors, chunk_cut in ordered_results(job, chunks, args.workers):
            out.write_rows(vectors)
            out.flush()  # the chunk is committed: a killed run keeps it
            cut += chunk_cut
            progress.update(len(vectors))
        progress.close()
        if out.rows is None:  # an empty input: the model says the width of its (no) rows
            out.write_rows(np.zeros((0, job.start()[0].dim), dtype=np.float32))
        rows, dim = out.units, out.rows.dim if out.rows is not None else 0
    if cut:
        print(f"charwise: warning: {cut} sentences were longer than {args.max_length} positions and were cut "
              "to fit; --max-length sets the window", file=sys.stderr)
    print(f"{rows} sentence vectors of dimension {dim} ({args.policy} policy) written to {args.out}", file=sys.stderr)
    return 0


def load_sentence_encoder(teacher: str, policy: str, encoder: str | None, max_length: int, batch_size: int,
                          normalize: bool, device: str | None = None,
                          prepare_workers: int = 0) -> tuple[Any, int, bool]:
    """The sentence encoder ``encode`` runs (once per worker process), with its batch options."""
    from charwise.hybrid.sentence import SentenceEncoder

    return SentenceEncoder(teacher, policy=policy, encoder=encoder, max_length=max_length, device=device,
                           prepare_workers=prepare_workers), batch_size, normalize


def encode_chunk(state: tuple[Any, int, bool], lines: list[str]) -> tuple[Any, int]:
    """A worker's part of ``encode``: float32 vectors of a chunk of sentences, and how many of them
    were cut to the model's window (HybridModel warns "N of M texts exceed ... and were truncated"
    per batch; counted over the file and said once)."""
    import warnings

    encoder, batch_size, normalize = state
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vectors = encoder.encode(lines, batch_size=batch_size, normalize=normalize).numpy()
    cut = sum(int(str(w.message).split()[0]) for w in caught if "were truncated" in str(w.message))
    return vectors, cut


# --- tune and pretrain -------------------------------------------------------------------------
def check_training_options(args: argparse.Namespace) -> None:
    """The options ``tune`` and ``pretrain`` share, checked before any model loads."""
    from charwise.hybrid.policies import get_policy

    for flag, value in (("--steps", args.steps), ("--batch-size", args.batch_size), ("--eval-every", args.eval_every)):
        check_min(flag, value, 1)
    check_positive("--lr", args.lr)
    check_unit("--typo-rate", args.typo_rate)
    get_policy(args.policy)
    for path in args.corpus:
        check_input_file(path, "corpus file")


# --- tune --------------------------------------------------------------------------------------
def cmd_tune(args: argparse.Namespace) -> int:
    from charwise.training.tuning import HybridTuner

    out = Path(args.out)
    if args.resume and (out / "tune_config.json").exists():
        config = TuneConfig(**read_json(out / "tune_config.json"))
    else:
        check_training_options(args)
        config = TuneConfig(corpora=list(args.corpus), teacher=args.teacher, encoder=args.encoder, policy=args.policy,
                            objective=args.objective, steps=args.steps, batch_size=args.batch_size, lr=args.lr,
                            typo_rate=args.typo_rate, eval_every=args.eval_every, seed=args.seed)
    tuner = HybridTuner(config, out, progress=progress_mode(args))
    tuner.tune(resume=args.resume)
    if tuner.accelerator.is_main_process:
        what = "mean word log-likelihood" if config.objective == "lm" else "mean sentence cosine"
        print(f"tuned encoder written to {out / 'encoder'} (validation {what}: {tuner.best:.4f})", file=sys.stderr)
    return 0


# --- pretrain ----------------------------------------------------------------------------------
def cmd_pretrain(args: argparse.Namespace) -> int:
    from charwise.training.pretraining import CONFIG_FILE, MODEL_DIR, Pretrainer

    out = Path(args.out)
    if args.resume and (out / CONFIG_FILE).exists():
        config = PretrainConfig(**read_json(out / CONFIG_FILE))
    else:
        check_training_options(args)
        check_min("--max-words", args.max_words, 1)
        check_positive("--head-lr", args.head_lr)
        check_positive("--model-lr", args.model_lr)
        check_positive("--mask-rate", args.mask_rate)
        check_unit("--mask-rate", args.mask_rate)
        config = PretrainConfig(corpora=list(args.corpus), teacher=args.teacher, encoder=args.encoder,
                                mode=args.mode, policy=args.policy, steps=args.steps, batch_size=args.batch_size,
                                lr=args.lr, head_lr=args.head_lr, model_lr=args.model_lr, mask_rate=args.mask_rate,
                                noise=args.noise, typo_rate=args.typo_rate, max_words=args.max_words,
                                eval_every=args.eval_every, seed=args.seed)
    trainer = Pretrainer(config, out, progress=progress_mode(args))
    trainer.train(resume=args.resume)
    if trainer.accelerator.is_main_process:
        print(f"model and its encoder written to {out / MODEL_DIR} (validation masked-piece accuracy, "
              f"noisy hybrid input: {trainer.engine.state.best:.4f}); use it as a teacher: "
              f"charwise tag train --teacher {out / MODEL_DIR} ...", file=sys.stderr)
    return 0


# --- compare -----------------------------------------------------------------------------------
def _why_kept(policy: Any, words: list[str], space_before: list[bool]) -> dict[int, str]:
    """For a repair policy, why its speller left each word it read as written: the decision that kept
    it, or its best candidate's probability against the threshold (``emphaticaly``: 0.849 < 0.85)."""
    from charwise.hybrid.policies import RepairPolicy

    if not isinstance(policy, RepairPolicy) or not words:
        return {}
    speller = policy.speller
    threshold = speller.threshold if policy.threshold is None else policy.threshold
    (entries,) = speller.correct_words([list(words)], policy.threshold, space_before=[space_before])
    notes = {}
    for i, entry in enumerate(entries):
        if entry.changed:
            continue
        if entry.decided_by:
            notes[i] = f" ({entry.decided_by})"
        elif entry.looked_at and entry.suggestions:
            best = entry.suggestions[0]
            notes[i] = f" (speller: {best.word} {best.probability:.3f} < {threshold:.2f})"
    return notes


def cmd_compare(args: argparse.Namespace) -> int:
    import torch

    from charwise.hybrid.model import HybridModel
    from charwise.retrieval import topk_rows
    from charwise.words import split_words

    args.text = argument_text(args, args.text, "the text")
    hybrid = HybridModel.from_teacher(args.teacher, policy=args.policy, encoder=args.encoder)
    teacher = hybrid.teacher
    split = split_words(args.text)
    words = split.words
    with torch.inference_mode():
        inputs = hybrid.prepare_texts([args.text])
    own_pieces = hybrid.word_pieces(words, split.space_before)  # as written, before any repair
    repairs = inputs.repairs[0] if inputs.repairs else {}
    chosen = [w for w, s in zip(words, inputs.selected[0]) if s]
    kept = _why_kept(hybrid.policy, words, split.space_before)
    near = {}
    if chosen:
        with torch.inference_mode():
            vectors = hybrid.char_vectors(chosen)
        _, idx = topk_rows(vectors, teacher.embeddings, 3, candidates=teacher.normal_mask)
        near = {w: ", ".join(teacher.display(int(i)) for i in row) for w, row in zip(chosen, idx)}
    width = max([len(w) for w in words] + [4])
    print(f"{'word':<{width}}  {'teacher pieces':<32}  hybrid input")
    for i, (word, pieces, sel) in enumerate(zip(words, inputs.pieces[0], inputs.selected[0])):
        shown = " ".join(teacher.display(j) for j in own_pieces[i]) or "(none)"
        if sel:
            hybrid_in = f"[char] ~ {near[word]}"
        elif i in repairs:
            fixed = " ".join(teacher.display(j) for j in pieces)
            hybrid_in = f"repaired -> {repairs[i].correction} (p {repairs[i].probability:.2f}): {fixed}"
        else:
            hybrid_in = "table" + kept.get(i, "")
        print(f"{word:<{width}}  {shown:<32}  {hybrid_in}")
    base_len = len(hybrid.adapter.prefix_ids) + len(hybrid.adapter.suffix_ids) + sum(
        max(len(p), 1) for p in own_pieces)
    print(f"\npolicy {hybrid.policy.name}: {len(repairs)} of {len(words)} words repaired, {len(chosen)} from "
          f"characters; sequence length {base_len} (teacher) -> {int(inputs.lengths[0])} (hybrid), special tokens "
          "included")
    return 0
