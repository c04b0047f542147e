"""The approximation phase: train a character encoder to reproduce a teacher's embedding table.

Batches are a pure function of ``(seed, step)``: each epoch is a seeded permutation of the
training rows and each batch draws its typos from its own seeded generator. A run resumed from
its last checkpoint therefore sees exactly the batches an uninterrupted run would have seen,
and ends with the same weights.

Trains on :mod:`charwise.training.engine` under HF Accelerate: ``accelerate launch -m charwise.cli
train ...`` shards every batch over the processes; a plain ``charwise train`` uses one process on
the best available device.
"""

from __future__ import annotations

import os
import random
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

import torch

from charwise.charset import CharVocab
from charwise.encoders.base import CharEncoder, build_encoder
from charwise.errors import ConfigError
from charwise.evaluation import (
    approximation_metrics,
    evaluate,
    noise_config_for,
    noisy_samples,
    retrieval_hits,
    sample_rows,
)
from charwise.teachers import Teacher
from charwise.training.config import NOISE_MODELS, TrainConfig  # noqa: F401 (re-exported)
from charwise.training.engine import (  # noqa: F401 (re-exported)
    CHECKPOINT_DIR,
    Engine,
    EngineSettings,
    RunState,
)
from charwise.training.engine import lr_factor as engine_lr_factor
from charwise.training.losses import ApproximationLoss
from charwise.training.targets import TargetSplit, split_targets
from charwise.typos.realistic import MisspellConfig, RealisticNoiser, check_noise_language, languages_of
from charwise.typos.single import NoiseNotApplicable, Noiser

BEST_DIR = "encoder"


def noisers_for(teacher: Teacher, noise: str, *, single_layouts: tuple[str, ...] = ("us",),
                realistic_layouts: tuple[str, ...] = ("us",), language: str = "en") -> list[Noiser | RealisticNoiser]:
    """The noise model ``noise`` (:data:`NOISE_MODELS`) for ``teacher``: the noisers a noisy sample
    is drawn from (one of them at random when there are two)."""
    if noise not in NOISE_MODELS:
        raise ConfigError(f"noise must be one of {', '.join(NOISE_MODELS)}, got {noise!r}")
    check_noise_language(language)
    single: list[Noiser | RealisticNoiser] = [Noiser(noise_config_for(teacher, single_layouts))]
    # One realistic noiser per language, so that with "en+es" half the rule-based errors are Spanish.
    realistic: list[Noiser | RealisticNoiser] = [
        RealisticNoiser(MisspellConfig(language=lang, layouts=realistic_layouts, cased=not teacher.lowercase))
        for lang in languages_of(language)]
    if noise == "mixed":  # a slip of the finger as often as a misremembered spelling, whatever the language count
        return single * len(realistic) + realistic
    return single if noise == "single" else realistic


def noisy_word(word: str, noisers: list[Noiser | RealisticNoiser], rng: random.Random) -> str:
    """``word`` through one of ``noisers`` (drawn with ``rng``); unchanged if it does not apply."""
    noiser = rng.choice(noisers) if len(noisers) > 1 else noisers[0]
    if not noiser.eligible(word):
        return word
    try:
        return noiser.corrupt(word, rng)[0]
    except NoiseNotApplicable:
        return word


def lr_factor(step: int, config: Any) -> float:
    """Linear warm-up, then cosine decay to ``min_lr_ratio`` (any config with ``warmup_steps``,
    ``steps`` and ``min_lr_ratio``: the approximation trainer's and hybrid tuning's); the engine's
    ``"cosine"`` schedule."""
    return engine_lr_factor(step, EngineSettings(steps=config.steps, warmup_steps=config.warmup_steps,
                                                 schedule="cosine", min_lr_ratio=config.min_lr_ratio))


class BatchSource:
    """Deterministic batches of (string, is-word-start, target id), clean and noisy."""

    def __init__(self, teacher: Teacher, rows: torch.Tensor, config: TrainConfig, first_step: int = 0) -> None:
        self.rows = rows.tolist()
        self.first_step = first_step  # a run started from a saved encoder goes on from that run's batches
        self.surfaces = teacher.vocab.surfaces
        self.starts = teacher.vocab.word_start
        self.config = config
        layouts = tuple(config.noise_layouts)
        self.noisers = noisers_for(teacher, config.noise, single_layouts=layouts, realistic_layouts=layouts,
                                   language=config.noise_language)
        self.per_epoch = max(1, len(self.rows) // config.batch_size)
        self._order: tuple[int, list[int]] = (-1, [])  # the last epoch's order: (epoch, rows)

    def _epoch_order(self, epoch: int) -> list[int]:
        if self._order[0] != epoch:
            order = list(self.rows)
            random.Random(f"{self.config.seed}-epoch-{epoch}").shuffle(order)
            self._order = (epoch, order)
        return self._order[1]

    def batch(self, step: int) -> tuple[list[str], list[bool], torch.Tensor]:
        step += self.first_step
        epoch, index = divmod(step, self.per_epoch)
        order = self._epoch_order(epoch)
        ids = order[index * self.config.batch_size : (index + 1) * self.config.batch_size]
        rng = random.Random(f"{self.config.seed}-step-{step}")
        texts, starts = [], []
        for i in ids:
            text = self.surfaces[i]
            noiser = self.noisers[0]
            if noiser.eligible(text) and rng.random() < self.config.noise_ratio:
                if len(self.noisers) > 1:
                    noiser = rng.choice(self.noisers)
                try:
                    text, _ = noiser.corrupt(text, rng)
                except NoiseNotApplicable:
                    pass
            texts.append(text)
            starts.append(self.starts[i])
        return texts, starts, torch.tensor(ids, dtype=torch.long)


def build_for_teacher(teacher: Teacher, config: TrainConfig) -> CharEncoder:
    """A fresh encoder whose character vocabulary is the teacher's (normal rows)."""
    surfaces = [s for s, k in zip(teacher.vocab.surfaces, teacher.vocab.kinds) if k == "normal"]
    charset = CharVocab.build(surfaces, lowercase=teacher.lowercase, hash_buckets=config.hash_buckets,
                              max_chars=config.max_chars)
    torch.manual_seed(config.seed)
    encoder = build_encoder(config.encoder, charset, teacher.dim, config.preset, teacher.describe(),
                            **config.encoder_overrides)
    rows = teacher.embeddings[teacher.normal_mask]
    encoder.init_output(rows.mean(dim=0), float(rows.norm(dim=1).mean()))
    if config.init_encoder:
        return _initial_encoder(encoder, config.init_encoder)
    return encoder


def _initial_encoder(fresh: CharEncoder, name_or_path: str) -> CharEncoder:
    """The saved encoder ``name_or_path`` to train on from, checked against ``fresh`` (what this run
    would build): same kind, architecture, alphabet and teacher, or a one-line error. Its manifold
    projection is dropped (it was tuned for the old weights; the run tunes a new one)."""
    from charwise.encoders.shipped import load

    encoder = load(name_or_path)
    for what, saved, built in (("encoder kind", encoder.config.encoder_type, fresh.config.encoder_type),
                               ("architecture", encoder.config.arch, fresh.config.arch),
                               ("alphabet", encoder.config.charset, fresh.config.charset),
                               ("teacher", encoder.teacher_info.get("vocab_hash"),
                                fresh.teacher_info.get("vocab_hash"))):
        if saved != built:
            raise ConfigError(f"--init-encoder '{name_or_path}' has another {what} than this run would build: "
                              "give the --teacher, --encoder, --preset and --max-chars it was trained with")
    encoder.set_manifold(None)
    encoder.training_info = dict(encoder.training_info)
    return encoder.train()


def limit_rows(split: TargetSplit, limit: int, seed: int) -> TargetSplit:
    """Keep a seeded subset of ``limit`` training rows; held-in words shrink to match."""
    rows = split.train.tolist()
    if limit >= len(rows):
        return split
    keep = sorted(random.Random(f"{seed}-limit").sample(rows, limit))
    kept = set(keep)
    heldin = [i for i in split.heldin_words.tolist() if i in kept]
    return TargetSplit(torch.tensor(keep), torch.tensor(heldin, dtype=torch.long), split.heldout_words)


class Trainer:
    """Runs the approximation phase on the training engine and writes ``OUT/encoder`` (best),
    ``OUT/checkpoint`` (last, resumable), ``OUT/log.jsonl`` and ``OUT/train_config.json``."""

    def __init__(self, config: TrainConfig, out: str | os.PathLike, teacher: Teacher | None = None,
                 progress: bool | str = True) -> None:
        from accelerate import Accelerator

        self.config = config
        self.out = Path(out)
        self.accelerator = Accelerator()
        self.teacher = teacher or Teacher.load(config.teacher)
        self.split: TargetSplit = split_targets(self.teacher, config.heldout_fraction, config.seed)
        if config.train_rows_limit > 0:
            self.split = limit_rows(self.split, config.train_rows_limit, config.seed)
        self.encoder = build_for_teacher(self.teacher, config)
        started_from = self.encoder.training_info.get("heldout_words") if config.init_encoder else None
        if started_from is not None and started_from != self.split.heldout_words.tolist():
            raise ConfigError(f"--init-encoder '{config.init_encoder}' was trained with other held-out words "
                              "(another --seed or held-out fraction): its held-out words would be trained on")
        info = self.encoder.training_info if config.init_encoder else {}
        # the batches the saved encoder's runs took, one run after another
        first_step = int(info.get("first_step", 0)) + int(info.get("step", 0))
        self.source = BatchSource(self.teacher, self.split.train, config, first_step)
        device = self.accelerator.device
        self.loss = ApproximationLoss(self.teacher.embeddings, config.losses, self.teacher.normal_mask,
                                      self.split.train).to(device)
        optimizer = torch.optim.AdamW(self.encoder.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        settings = EngineSettings(
            steps=config.steps, warmup_steps=config.warmup_steps, schedule="cosine", min_lr_ratio=config.min_lr_ratio,
            grad_clip=config.grad_clip, eval_every=config.eval_every, checkpoint_every=config.checkpoint_every,
            log_every=50, config_file="train_config.json", desc="train", progress=progress)
        self.engine = Engine(settings, self.out, self.encoder, optimizer, config=config.to_dict(),
                             accelerator=self.accelerator)
        self.model, self.optimizer = self.encoder, self.engine.optimizer
        self._validation = self._validation_set()

    @property
    def step(self) -> int:
        return self.engine.state.step

    @property
    def best_score(self) -> float:
        return self.engine.state.best

    # --- validation (held-in words only; held-out words stay unseen until the final report) ---
    def _validation_set(self) -> dict[str, Any]:
        rng = random.Random(f"{self.config.seed}-validation")
        heldin = self.split.heldin_words.tolist()
        sample = torch.tensor(sorted(rng.sample(heldin, min(self.config.eval_words, len(heldin)))))
        noiser = Noiser(noise_config_for(self.teacher))
        noisy, clean = [], []
        for op in noiser.config.operations:
            w, c = noisy_samples(self.teacher, sample, noiser, op, self.config.eval_words // 8, self.config.seed + 7)
            noisy += w
            clean.append(c)
        return {"ids": sample, "noisy": noisy, "clean": torch.cat(clean)}

    def validate(self) -> dict[str, float]:
        v = self._validation
        words = [self.teacher.vocab.surfaces[i] for i in v["ids"].tolist()]
        clean = approximation_metrics(self.encoder.embed(words).cpu(), v["ids"], self.teacher)
        noisy = retrieval_hits(self.encoder.embed(v["noisy"]).cpu(), v["clean"], self.teacher)
        score = (clean["accuracy"] + clean["avg_prec"] + noisy["top1"]) / 3
        return {"accuracy": clean["accuracy"], "avg_prec": clean["avg_prec"], "cosine": clean["cosine"],
                "noisy_top1": noisy["top1"], "noisy_top10": noisy["top10"], "score": score}

    # --- the loop: the engine's ---------------------------------------------------------------
    def train(self, resume: bool = False, stop_after: int | None = None) -> CharEncoder:
        """Train to ``config.steps`` (or stop after ``stop_after`` more steps, for tests);
        ``resume`` continues the run in ``OUT`` from its last checkpoint."""
        self.engine.run(_ApproximationTask(self), resume=resume, stop_after=stop_after)
        return self.encoder

    def best_encoder(self) -> CharEncoder:
        """The best encoder of the run, as saved in ``OUT/encoder``."""
        best = CharEncoder.from_pretrained(self.out / BEST_DIR)
        best.attach_teacher(self.teacher)
        return best

    def final_report(self, noise_words: int = 1000, max_words: int = 0,
                     progress: Callable[[int, int], Any] | None = None) -> dict[str, Any]:
        """Full evaluation of the best encoder on held-in (at most ``max_words`` of them; 0: all)
        and held-out words, with the baseline (and without its manifold projection when it has one);
        ``progress(n, total)``: as :func:`charwise.evaluation.evaluate`."""
        heldin = sample_rows(self.split.heldin_words, max_words)
        return evaluate(self.best_encoder(), self.teacher, heldin, self.split.heldout_words, noise_words=noise_words,
                        progress=progress)


class _ApproximationTask:
    """The approximation phase as an engine task: a batch is (string, is-word-start, target row) triples."""

    def __init__(self, trainer: Trainer) -> None:
        self.trainer = trainer

    def batch(self, step: int) -> list[tuple[str, bool, int]]:
        texts, starts, ids = self.trainer.source.batch(step)
        return list(zip(texts, starts, ids.tolist()))

    def loss(self, model: CharEncoder, shard: list[tuple[str, bool, int]]) -> tuple[torch.Tensor, dict[str, float]]:
        texts, starts, ids = (list(column) for column in zip(*shard))
        device = self.trainer.accelerator.device
        chars = self.trainer.encoder.charset.batch(texts, starts).to(device)
        return self.trainer.loss(model(chars), torch.tensor(ids, dtype=torch.long, device=device))

    def validate(self) -> dict[str, float]:
        return self.trainer.validate()

    def save_best(self, metrics: dict[str, float], state: RunState) -> None:
        t = self.trainer
        t.encoder.save_pretrained(t.out / BEST_DIR, training_info={
            "step": state.step, "first_step": t.source.first_step, "validation": metrics, "config": asdict(t.config),
            "heldout_words": t.split.heldout_words.tolist()})
