"""``charwise lm``: character-aware language models (train, eval, sample, neighbors)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from charwise.cli.common import argument_text, check_int_min, check_min, check_positive
from charwise.cli.progress import add_progress_option, progress_mode
from charwise.io import check_input_file, read_json, write_json
from charwise.presets import LM_LANGUAGES, LM_PRESETS
from charwise.training.config import LMConfig


def add_parser(sub: Any) -> None:
    """Register ``lm`` (train, eval, sample, neighbors)."""
    d = LMConfig()
    g = sub.add_parser("lm", help="character-aware language models, Kim et al. 2016 (train, eval, sample, neighbors)")
    gsub = g.add_subparsers(dest="lm_command", required=True)
    t = gsub.add_parser("train", help="train a character (CharCNN + highway) or word LSTM language model on the Bible")
    t.add_argument("--out", required=True, help="output directory (model/, checkpoint/, log.jsonl)")
    t.add_argument("--language", default=d.language, choices=LM_LANGUAGES, help="en: KJV; es: Reina-Valera 1909")
    t.add_argument("--preset", default=d.preset, choices=sorted(LM_PRESETS))
    t.add_argument("--encoder", default=d.encoder,
                   help="a charwise encoder (name or directory) in place of the CharCNN")
    t.add_argument("--train-encoder", action="store_true", help="train that encoder too (default: frozen)")
    t.add_argument("--corpus", default=d.corpus, help="another verse-aligned TSV with ref, es, en columns")
    t.add_argument("--epochs", type=int, default=d.epochs)
    t.add_argument("--batch-size", type=int, default=d.batch_size)
    t.add_argument("--bptt", type=int, default=d.bptt, help="words per truncated-backpropagation segment")
    t.add_argument("--lr", type=float, default=d.lr, help="SGD learning rate (halved when validation stalls)")
    t.add_argument("--min-count", type=int, default=d.min_count, help="rarer training words are <unk> as targets")
    t.add_argument("--max-train-tokens", type=int, default=d.max_train_tokens,
                   help="train on the first N tokens only (0: all)")
    t.add_argument("--seed", type=int, default=d.seed)
    t.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    add_progress_option(t, quiet=True)
    t.set_defaults(func=cmd_train)
    e = gsub.add_parser("eval", help="validation and test perplexity and OOV rates of a trained model")
    e.add_argument("model", help="a model directory (OUT/model of `charwise lm train`)")
    e.add_argument("--json", help="write the report to this file")
    e.add_argument("--batch-size", type=int, default=1, help="streams read side by side (1: the whole split)")
    e.set_defaults(func=cmd_eval)
    s = gsub.add_parser("sample", help="sample text after a prompt")
    s.add_argument("model")
    s.add_argument("prompt", nargs="?", default="", help="words to start from (default: a verse start)")
    s.add_argument("--words", type=int, default=30)
    s.add_argument("--temperature", type=float, default=1.0, help="0: greedy")
    s.add_argument("--seed", type=int, default=None)
    s.add_argument("--errors", default="strict", choices=["strict", "replace"],
                   help="undecodable input: stop (strict) or use U+FFFD (replace)")
    s.set_defaults(func=cmd_sample)
    n = gsub.add_parser("neighbors", help="nearest vocabulary words of any strings (Kim et al., table 6)")
    n.add_argument("model")
    n.add_argument("words", nargs="+")
    n.add_argument("-k", type=int, default=5)
    n.add_argument("--stage", default="both", choices=["cnn", "highway", "both"],
                   help="a character model's representation before / after the highway layers")
    n.add_argument("--json", action="store_true", help="print JSON")
    n.add_argument("--errors", default="strict", choices=["strict", "replace"],
                   help="undecodable input: stop (strict) or use U+FFFD (replace)")
    n.set_defaults(func=cmd_neighbors)


def cmd_train(args: argparse.Namespace) -> int:
    from charwise.training.lm import CONFIG_FILE, MODEL_DIR, LMTrainer

    out = Path(args.out)
    if args.resume and (out / CONFIG_FILE).exists():
        config = LMConfig(**read_json(out / CONFIG_FILE))
    else:
        for flag, value in (("--epochs", args.epochs), ("--batch-size", args.batch_size), ("--bptt", args.bptt),
                            ("--min-count", args.min_count)):
            check_int_min(flag, value, 1)
        check_int_min("--max-train-tokens", args.max_train_tokens, 0)
        check_positive("--lr", args.lr)
        if args.corpus:
            check_input_file(args.corpus, "corpus file")
        config = LMConfig(language=args.language, corpus=args.corpus, preset=args.preset, encoder=args.encoder,
                          freeze_encoder=not args.train_encoder, min_count=args.min_count, epochs=args.epochs,
                          batch_size=args.batch_size, bptt=args.bptt, lr=args.lr,
                          max_train_tokens=args.max_train_tokens, seed=args.seed)
    trainer = LMTrainer(config, out, progress=progress_mode(args))
    if trainer.accelerator.is_main_process:
        print(f"{config.preset} ({config.language}): {trainer.model.num_parameters():,} parameters, "
              f"{len(trainer.data.vocab):,} output words, {trainer.segments} steps per epoch", file=sys.stderr)
    trainer.train(resume=args.resume)
    if trainer.accelerator.is_main_process:
        print(f"model written to {out / MODEL_DIR} (validation perplexity {-trainer.engine.state.best:.2f})",
              file=sys.stderr)
    return 0


def _load(path: str) -> Any:
    from charwise.lm.model import CharAwareLM

    return CharAwareLM.from_pretrained(path)


def evaluate(model: Any, batch_size: int = 1) -> dict[str, Any]:
    """Validation and test perplexity of a model on the data it was trained on, with OOV rates."""
    from charwise.errors import ConfigError
    from charwise.training.lm import LMData, perplexity

    config = LMConfig(**model.training_info["config"])
    data = LMData(config)
    if data.vocab.words != list(model.config.words):
        raise ConfigError("this model's vocabulary differs from its training data's; was the corpus changed?")
    report: dict[str, Any] = {"language": config.language, "preset": config.preset, "input": model.config.input,
                              "parameters": model.num_parameters(), "data": data.describe()}
    for split in ("validation", "test"):
        report[split] = perplexity(model, data.streams[split], batch_size, config.bptt)
    return report


def cmd_eval(args: argparse.Namespace) -> int:
    check_int_min("--batch-size", args.batch_size, 1)
    report = evaluate(_load(args.model), args.batch_size)
    if args.json:
        write_json(args.json, report)
    oov = report["data"]["test_oov"]
    print(f"{report['preset']} ({report['language']}, {report['parameters']:,} parameters): validation perplexity "
          f"{report['validation']['ppl']:.2f}, test {report['test']['ppl']:.2f}; test tokens unseen in training "
          f"{100 * oov['unseen_tokens']:.2f} %, <unk> targets {100 * oov['unk_tokens']:.2f} %")
    return 0


def cmd_sample(args: argparse.Namespace) -> int:
    from charwise.lm.explore import detokenize, sample
    from charwise.words import split_words

    check_int_min("--words", args.words, 1)
    check_min("--temperature", args.temperature, 0)
    prompt = split_words(argument_text(args, args.prompt, "the prompt")).words if args.prompt else []
    words = sample(_load(args.model), prompt, args.words, args.temperature, args.seed)
    print(detokenize([*prompt, *words]))
    return 0


def cmd_neighbors(args: argparse.Namespace) -> int:
    from charwise.lm.explore import nearest_words

    check_int_min("-k", args.k, 1)
    model = _load(args.model)
    stages = ["cnn", "highway"] if args.stage == "both" else [args.stage]
    if model.config.input != "chars":
        stages = ["highway"]  # a word model has one representation; an encoder has no highway split
    words = [argument_text(args, w, "a word") for w in args.words]
    found = {stage: nearest_words(model, words, args.k, stage) for stage in stages}
    if args.json:
        print(json.dumps(found, ensure_ascii=False))
        return 0
    for word in words:
        for stage in stages:
            near = found[stage][word]
            shown = ", ".join(f"{w} {s:.2f}" for w, s in near) if near is not None else "(not in the vocabulary)"
            print(f"{word}\t{stage if model.config.input == 'chars' else 'embedding'}\t{shown}")
    return 0
