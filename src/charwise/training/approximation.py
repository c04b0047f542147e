"""The approximation phase: train a character encoder to reproduce a teacher's embedding table.

Batches are a pure function of ``(seed, step)``: each epoch is a seeded permutation of the
training rows and each batch draws its typos from its own seeded generator. A run resumed from
its last checkpoint therefore sees exactly the batches an uninterrupted run would have seen,
and ends with the same weights.

Runs under HF Accelerate: ``accelerate launch -m charwise.cli train ...`` shards every batch
over the processes; a plain ``charwise train`` uses one process on the best available device.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import torch

from charwise.charset import CharVocab
from charwise.encoders.base import CharEncoder, build_encoder
from charwise.evaluation import (
    approximation_metrics,
    evaluate,
    noise_config_for,
    noisy_samples,
    retrieval_hits,
)
from charwise.teachers import Teacher
from charwise.training.checkpoints import load_training_state, read_training_state, save_training_state
from charwise.training.losses import ApproximationLoss, LossWeights
from charwise.training.noise import NoiseNotApplicable, Noiser
from charwise.training.targets import TargetSplit, split_targets

CHECKPOINT_DIR = "checkpoint"
BEST_DIR = "encoder"


@dataclass
class TrainConfig:
    """Everything that determines a training run (saved next to its outputs)."""

    teacher: str = "minilm"
    encoder: str = "cnn"
    preset: str | None = "wide-mlp"
    encoder_overrides: dict[str, Any] = field(default_factory=dict)
    steps: int = 6000
    batch_size: int = 256
    lr: float = 3e-3
    weight_decay: float = 0.01
    warmup_steps: int = 100
    min_lr_ratio: float = 0.05
    grad_clip: float = 1.0
    noise_ratio: float = 0.5  # share of eligible samples (longer than 4 chars) replaced by a noisy copy
    noise_layouts: list[str] = field(default_factory=lambda: ["us", "uk", "de", "fr", "es"])
    losses: LossWeights = field(default_factory=LossWeights)
    heldout_fraction: float = 0.05
    eval_every: int = 500
    eval_words: int = 2000
    seed: int = 0
    max_chars: int = 32
    hash_buckets: int = 64
    checkpoint_every: int = 250
    train_rows_limit: int = 0  # >0: train on a seeded subset of this many rows (quick runs and tests)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TrainConfig":
        data = dict(data)
        data["losses"] = LossWeights(**data.get("losses", {}))
        return cls(**data)


def lr_factor(step: int, config: Any) -> float:
    """Linear warm-up, then cosine decay to ``min_lr_ratio`` (any config with ``warmup_steps``,
    ``steps`` and ``min_lr_ratio``: the approximation trainer's and hybrid tuning's)."""
    if step < config.warmup_steps:
        return (step + 1) / config.warmup_steps
    progress = (step - config.warmup_steps) / max(1, config.steps - config.warmup_steps)
    return config.min_lr_ratio + (1 - config.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))


class BatchSource:
    """Deterministic batches of (string, is-word-start, target id), clean and noisy."""

    def __init__(self, teacher: Teacher, rows: torch.Tensor, config: TrainConfig) -> None:
        self.rows = rows.tolist()
        self.surfaces = teacher.vocab.surfaces
        self.starts = teacher.vocab.word_start
        self.config = config
        self.noiser = Noiser(noise_config_for(teacher, tuple(config.noise_layouts)))
        self.per_epoch = max(1, len(self.rows) // config.batch_size)

    @lru_cache(maxsize=2)
    def _epoch_order(self, epoch: int) -> list[int]:
        order = list(self.rows)
        random.Random(f"{self.config.seed}-epoch-{epoch}").shuffle(order)
        return order

    def batch(self, step: int) -> tuple[list[str], list[bool], torch.Tensor]:
        epoch, index = divmod(step, self.per_epoch)
        order = self._epoch_order(epoch)
        ids = order[index * self.config.batch_size : (index + 1) * self.config.batch_size]
        rng = random.Random(f"{self.config.seed}-step-{step}")
        texts, starts = [], []
        for i in ids:
            text = self.surfaces[i]
            if self.noiser.eligible(text) and rng.random() < self.config.noise_ratio:
                try:
                    text, _ = self.noiser.corrupt(text, rng)
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
    return encoder


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
    """Runs the approximation phase and writes ``OUT/encoder`` (best), ``OUT/checkpoint`` (last,
    resumable), ``OUT/log.jsonl`` and ``OUT/train_config.json``."""

    def __init__(self, config: TrainConfig, out: str | os.PathLike, teacher: Teacher | None = None,
                 progress: bool = True) -> None:
        from accelerate import Accelerator

        self.config = config
        self.out = Path(out)
        self.accelerator = Accelerator()
        self.teacher = teacher or Teacher.load(config.teacher)
        self.split: TargetSplit = split_targets(self.teacher, config.heldout_fraction, config.seed)
        if config.train_rows_limit > 0:
            self.split = limit_rows(self.split, config.train_rows_limit, config.seed)
        self.encoder = build_for_teacher(self.teacher, config)
        self.source = BatchSource(self.teacher, self.split.train, config)
        device = self.accelerator.device
        self.loss = ApproximationLoss(self.teacher.embeddings, config.losses, self.teacher.normal_mask,
                                      self.split.train).to(device)
        self.optimizer = torch.optim.AdamW(self.encoder.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        self.model, self.optimizer = self.accelerator.prepare(self.encoder, self.optimizer)
        self.step = 0
        self.best_score = -1.0
        self.progress = progress and self.accelerator.is_main_process
        self._validation = self._validation_set()

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
        enc = self.accelerator.unwrap_model(self.model)
        v = self._validation
        words = [self.teacher.vocab.surfaces[i] for i in v["ids"].tolist()]
        clean = approximation_metrics(enc.embed(words).cpu(), v["ids"], self.teacher)
        noisy = retrieval_hits(enc.embed(v["noisy"]).cpu(), v["clean"], self.teacher)
        score = (clean["accuracy"] + clean["avg_prec"] + noisy["top1"]) / 3
        return {"accuracy": clean["accuracy"], "avg_prec": clean["avg_prec"], "cosine": clean["cosine"],
                "noisy_top1": noisy["top1"], "noisy_top10": noisy["top10"], "score": score}

    # --- checkpoints ----------------------------------------------------------------------------
    def save_checkpoint(self) -> None:
        """Write the resumable state atomically to ``OUT/checkpoint``."""
        if not self.accelerator.is_main_process:
            return
        state = {"step": self.step, "best_score": self.best_score, "config": asdict(self.config)}
        save_training_state(self.out / CHECKPOINT_DIR, self.accelerator.unwrap_model(self.model), self.optimizer, state)

    def load_checkpoint(self) -> bool:
        """Restore the last checkpoint in ``OUT`` if there is one; returns whether it did."""
        ckpt = self.out / CHECKPOINT_DIR
        state = read_training_state(ckpt)
        if state is None:
            return False
        saved = TrainConfig.from_dict(state["config"])
        if asdict(saved) != asdict(self.config):
            raise ValueError(f"'{ckpt}' was written by a run with a different configuration; use another --out")
        load_training_state(ckpt, self.accelerator.unwrap_model(self.model), self.optimizer)
        self.step = int(state["step"])
        self.best_score = float(state["best_score"])
        return True

    def _log(self, record: dict[str, Any]) -> None:
        if self.accelerator.is_main_process:
            self.out.mkdir(parents=True, exist_ok=True)
            with open(self.out / "log.jsonl", "a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")

    # --- the loop -------------------------------------------------------------------------------
    def train(self, resume: bool = False, stop_after: int | None = None) -> CharEncoder:
        """Train to ``config.steps`` (or stop early after ``stop_after`` steps, for tests)."""
        from tqdm.auto import tqdm

        if resume:
            self.load_checkpoint()
        elif (self.out / CHECKPOINT_DIR).exists():
            raise FileExistsError(f"'{self.out}' already holds a run; pass --resume or choose another --out")
        if self.accelerator.is_main_process:
            self.out.mkdir(parents=True, exist_ok=True)
            (self.out / "train_config.json").write_text(json.dumps(asdict(self.config), indent=2))
        cfg = self.config
        acc = self.accelerator
        end = cfg.steps if stop_after is None else min(cfg.steps, self.step + stop_after)
        bar = tqdm(total=cfg.steps, initial=self.step, desc="train", disable=not self.progress, dynamic_ncols=True)
        started = time.time()
        self.model.train()
        while self.step < end:
            texts, starts, ids = self.source.batch(self.step)
            # Each process takes its own shard of the global batch.
            shard = slice(acc.process_index, None, acc.num_processes)
            chars = self.encoder.charset.batch(texts[shard], starts[shard]).to(acc.device)
            ids = ids[shard].to(acc.device)
            for group in self.optimizer.param_groups:
                group["lr"] = cfg.lr * lr_factor(self.step, cfg)
            loss, parts = self.loss(self.model(chars), ids)
            self.optimizer.zero_grad(set_to_none=True)
            acc.backward(loss)
            if cfg.grad_clip > 0:
                acc.clip_grad_norm_(self.model.parameters(), cfg.grad_clip)
            self.optimizer.step()
            self.step += 1
            bar.update(1)
            bar.set_postfix(loss=f"{loss.item():.3f}")
            if self.step % 50 == 0:
                self._log({"step": self.step, "loss": loss.item(), **parts, "lr": self.optimizer.param_groups[0]["lr"],
                           "elapsed_s": time.time() - started})
            if self.step % cfg.eval_every == 0 or self.step == cfg.steps:
                self._evaluate_and_keep_best()
            if self.step % cfg.checkpoint_every == 0 or self.step == end:
                self.save_checkpoint()
        bar.close()
        acc.wait_for_everyone()
        return self.accelerator.unwrap_model(self.model)

    def _evaluate_and_keep_best(self) -> None:
        if not self.accelerator.is_main_process:
            return
        metrics = self.validate()
        self.model.train()
        self._log({"step": self.step, "validation": metrics, "processes": self.accelerator.num_processes})
        if metrics["score"] > self.best_score:
            self.best_score = metrics["score"]
            enc = self.accelerator.unwrap_model(self.model)
            enc.save_pretrained(self.out / BEST_DIR, extra={"training": {
                "step": self.step, "validation": metrics, "config": asdict(self.config),
                "heldout_words": self.split.heldout_words.tolist()}})

    def final_report(self, noise_words: int = 1000) -> dict[str, Any]:
        """Full evaluation of the best encoder on held-in and held-out words, with the baseline."""
        best = CharEncoder.from_pretrained(self.out / BEST_DIR)
        return evaluate(best, self.teacher, self.split.heldin_words, self.split.heldout_words, noise_words=noise_words)
