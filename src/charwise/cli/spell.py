"""``charwise decoder train | eval | spell``: the character decoder."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from charwise.cli.common import (
    DECODER_HELP,
    argument_text,
    check_int_min,
    check_min,
    check_positive,
    check_unit,
    decoder_directory,
    load_decoder,
    load_encoder,
)
from charwise.cli.progress import add_progress_option, progress_mode
from charwise.errors import CheckpointError, ConfigError
from charwise.io import check_output_dir, check_output_file, read_json, write_json
from charwise.presets import DECODER_BEAM, DECODER_PRESETS
from charwise.training.config import NOISE_MODELS, SpellingConfig

WEIGHT_FLAGS = (("rows", "spelling the teacher's rows"),
                ("cycle-ed", "the E -> D loop (string -> encoder -> decoder -> clean string)"),
                ("cycle-de", "the D -> E loop (vector -> decoder -> encoder -> vector; trains the encoder only)"),
                ("approx", "the encoder's approximation loss (with --train-encoder)"))


def add_parser(sub: Any) -> None:
    """Register ``decoder`` (train, eval, spell)."""
    sc = SpellingConfig()
    d = sub.add_parser("decoder", help="a character decoder that spells vectors (train, eval, spell)")
    dsub = d.add_subparsers(dest="decoder_command", required=True)
    t = dsub.add_parser("train", help="train a decoder for an encoder (optionally with the cycle loops)")
    t.add_argument("--encoder", default=sc.encoder,
                   help="shipped encoder name (minilm, smollm2, e5-multilingual) or directory")
    t.add_argument("--out", required=True, help="output directory (decoder/, checkpoint/, log.jsonl, eval.json)")
    t.add_argument("--preset", default=sc.preset, choices=sorted(DECODER_PRESETS))
    t.add_argument("--init-decoder", default=sc.init_decoder,
                   help="start from this decoder instead of a fresh one: " + DECODER_HELP)
    t.add_argument("--steps", type=int, default=sc.steps)
    t.add_argument("--batch-size", type=int, default=sc.batch_size)
    t.add_argument("--lr", type=float, default=sc.lr)
    for flag, what in WEIGHT_FLAGS:
        t.add_argument(f"--{flag}", type=float, default=getattr(sc, flag.replace("-", "_")),
                       help=f"weight of {what} (0 disables)")
    t.add_argument("--train-encoder", action="store_true", help="train the encoder too (saved to OUT/encoder)")
    t.add_argument("--encoder-lr", type=float, default=sc.encoder_lr)
    t.add_argument("--noise", default=sc.noise, choices=NOISE_MODELS,
                   help="noise of the strings the E -> D loop reads")
    t.add_argument("--noise-ratio", type=float, default=sc.noise_ratio, help="share of those strings given noise")
    t.add_argument("--seed", type=int, default=sc.seed)
    t.add_argument("--eval-every", type=int, default=sc.eval_every)
    t.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    t.add_argument("--no-report", action="store_true", help="skip the final evaluation")
    add_progress_option(t, quiet=True)
    t.set_defaults(func=cmd_train)

    e = dsub.add_parser("eval", help="spelling of held-in and held-out words: exact match and CER by length")
    e.add_argument("decoder", help=DECODER_HELP)
    e.add_argument("--encoder", default="minilm", help="the encoder it was trained for")
    e.add_argument("--json", help="write the report as JSON to this file")
    e.add_argument("--beam", type=int, default=DECODER_BEAM)
    e.add_argument("--words", type=int, default=2000, help="held-in words (all held-out words are used)")
    e.set_defaults(func=cmd_eval)

    s = dsub.add_parser("spell", help="read each word with the encoder and spell its vector back")
    s.add_argument("words", nargs="+")
    s.add_argument("--decoder", required=True, help=DECODER_HELP)
    s.add_argument("--encoder", default="minilm")
    s.add_argument("--beam", type=int, default=DECODER_BEAM)
    s.add_argument("--errors", default="strict", choices=["strict", "replace"],
                   help="words that are not UTF-8: strict refuses them, replace reads each bad byte as U+FFFD")
    s.set_defaults(func=cmd_spell)


# --- decoder train ---------------------------------------------------------------------------------
def cmd_train(args: argparse.Namespace) -> int:
    from charwise.training.decoder import CONFIG_FILE, SpellingTrainer, spelling_report

    out = check_output_dir(args.out, "--out")
    if args.resume:
        if not (out / CONFIG_FILE).is_file():  # no run at all
            raise CheckpointError(f"nothing to resume: {out} has no checkpoint; run without --resume")
        # a run stopped before its first checkpoint: the engine starts it over from step 0
        config = SpellingConfig.from_dict(read_json(out / CONFIG_FILE))
    else:
        for flag, value in (("--steps", args.steps), ("--batch-size", args.batch_size),
                            ("--eval-every", args.eval_every)):
            check_int_min(flag, value, 1)
        check_positive("--lr", args.lr)
        check_positive("--encoder-lr", args.encoder_lr)
        check_unit("--noise-ratio", args.noise_ratio)
        for flag, _ in WEIGHT_FLAGS:
            check_min(f"--{flag}", getattr(args, flag.replace("-", "_")), 0)
        init_decoder = str(decoder_directory(args.init_decoder)) if args.init_decoder else ""
        config = SpellingConfig(encoder=args.encoder, preset=args.preset, init_decoder=init_decoder,
                                steps=args.steps,
                                batch_size=args.batch_size, lr=args.lr, rows=args.rows, cycle_ed=args.cycle_ed,
                                cycle_de=args.cycle_de, approx=args.approx, train_encoder=args.train_encoder,
                                encoder_lr=args.encoder_lr, noise=args.noise, noise_ratio=args.noise_ratio,
                                eval_every=args.eval_every, seed=args.seed)
    trainer = SpellingTrainer(config, out, progress=progress_mode(args))
    if trainer.accelerator.is_main_process:
        print(f"decoder {config.preset}: {trainer.decoder.num_parameters():,} parameters; encoder "
              f"{'trained' if config.train_encoder else 'frozen'}; {len(trainer.rows)} training rows, "
              f"{len(trainer.split.heldout_words)} held-out words never trained", file=sys.stderr)
    trainer.train(resume=args.resume)
    if trainer.accelerator.is_main_process and not args.no_report:
        from charwise.decoders.lstm import CharDecoder

        decoder = CharDecoder.from_pretrained(out / "decoder")
        report = spelling_report(decoder, trainer.encoder, trainer.teacher)
        write_json(out / "eval.json", report)
        print(format_spelling(report))
        print(f"decoder saved to {out / 'decoder'}; report in {out / 'eval.json'}")
    return 0


def format_spelling(report: dict[str, Any]) -> str:
    """The report of :func:`~charwise.training.decoder.spelling_report` as a small table."""
    beam = f"beam{report['beam']}"
    lines = [f"{'words':<8} {'from':<14} {'n':>6} {'greedy exact':>13} {'CER':>6} {beam + ' exact':>12} "
             f"{'in top':>7}"]
    for group in ("heldin", "heldout"):
        for source, entry in report[group].items():
            g, b = entry["greedy"], entry.get(beam, {})
            lines.append(f"{group:<8} {source:<14} {g['n']:>6} {100 * g['exact']:>12.1f}% {100 * g['cer']:>5.1f}% "
                         f"{100 * b.get('exact', float('nan')):>11.1f}% "
                         f"{100 * b.get('in_top' + str(report['beam']), float('nan')):>6.1f}%")
    return "\n".join(lines)


def cmd_eval(args: argparse.Namespace) -> int:
    from charwise.training.decoder import spelling_report

    check_int_min("--beam", args.beam, 1)
    check_int_min("--words", args.words, 1)
    if args.json:
        check_output_file(args.json, "--json")
    decoder = load_decoder(args.decoder)
    encoder = load_encoder(args.encoder)
    _check_pair(encoder, decoder)
    report = spelling_report(decoder, encoder, encoder.teacher, heldin_words=args.words, beam=args.beam)
    print(format_spelling(report))
    if args.json:
        write_json(args.json, report)
    return 0


def _check_pair(encoder: Any, decoder: Any) -> None:
    if decoder.charset.to_dict() != encoder.charset.to_dict() or decoder.dim != encoder.dim:
        raise ConfigError("this decoder was not trained for this encoder (another alphabet or dimension): "
                          "give the matching --encoder")


def cmd_spell(args: argparse.Namespace) -> int:
    check_int_min("--beam", args.beam, 1)
    words = [argument_text(args, w, "a word") for w in args.words]
    decoder = load_decoder(args.decoder)
    encoder = load_encoder(args.encoder)
    _check_pair(encoder, decoder)
    for word, options in zip(words, decoder.spellings(encoder.embed(words, manifold=False), beam=args.beam)):
        shown = "  ".join(f"{o.text} ({o.logprob:.2f})" for o in options)
        print(f"{word}\t{shown}")
    return 0
