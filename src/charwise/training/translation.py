"""Training a translation model (Transformer or S2W) on the verse-aligned Bible, on the shared engine.

Vocabularies (byte-level BPE, source and target separately), feature vocabularies and the alphabet
are built from the training split only. Batches hold about ``batch_tokens`` target pieces of
sentences of similar length (fairseq-style buckets); their order is a pure function of (seed,
epoch), so a resumed run sees the same batches. Loss: label-smoothed cross-entropy (0.1) averaged
over target pieces; Adam (0.9, 0.98), the inverse-square-root schedule after ``warmup`` steps,
gradient clipping. Validation: per-piece cross-entropy of the dev split (score = minus it).

Checkpoint averaging (``average_last`` = K > 0): the weights at each of the last K evaluations are
kept in ``OUT/snapshots/step-NNNNNNN`` (older ones removed) and, when the run reaches its last
step, their mean (:func:`charwise.translation.averaging.average_models`) is validated and written
to ``OUT/model-averaged``; ``OUT/model`` stays the best single checkpoint.
"""

from __future__ import annotations

import math
import os
import random
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from charwise.charset import CharVocab
from charwise.training.config import TranslateConfig
from charwise.training.engine import Engine, EngineSettings, RunState
from charwise.translation.averaging import average_models, snapshot_directories, snapshot_name, snapshot_step
from charwise.translation.data import PAD, Pair, Subwords, read_pairs, source_words, split_pairs
from charwise.translation.features import FeatureVocab, word_features
from charwise.translation.inputs import SourceExample, SourceReader, pad_targets
from charwise.translation.model import MAX_POSITIONS, TranslationModel

MODEL_DIR = "model"
AVERAGED_DIR = "model-averaged"
SNAPSHOT_DIR = "snapshots"
CONFIG_FILE = "translate_config.json"
MAX_TARGET_PIECES = 400


class TranslationData:
    """The splits, the vocabularies built on the training split and the encoded examples."""

    def __init__(self, config: TranslateConfig) -> None:
        pairs = read_pairs(config.corpus or None)
        self.splits: dict[str, list[Pair]] = split_pairs(pairs, config.split, dev=config.dev, test=config.test,
                                                         seed=config.split_seed)
        if config.max_train_pairs:
            self.splits["train"] = self.splits["train"][: config.max_train_pairs]
        train = self.splits["train"]
        words = [source_words(p.source) for p in train]
        self.source = Subwords.train((" ".join(w) for w in words), config.source_vocab)
        self.target = Subwords.train((p.target for p in train), config.target_vocab)
        names = config.features if config.feature_mode != "none" else []
        values = [word_features(w, names) for w in words] if names else []
        self.feature_vocabs = {name: FeatureVocab.build(v for sentence in values for v in sentence[k])
                               for k, name in enumerate(names)}
        self.charset = (CharVocab.build(sorted({w for ws in words for w in ws}), lowercase=False, hash_buckets=16,
                                        max_chars=24) if config.char_vectors else None)
        self.reader = SourceReader(self.source, self.feature_vocabs, self.charset, MAX_POSITIONS)
        self.examples = {"train": self.encode(train, words), "dev": self.encode(self.splits["dev"])}

    def encode(self, pairs: list[Pair], words: list[list[str]] | None = None) -> list[tuple[SourceExample, list[int]]]:
        """Each pair as (source example, target pieces); ``words``: the sources' words, when already split."""
        out = []
        for k, p in enumerate(pairs):
            example = self.reader.example(words[k] if words is not None else source_words(p.source))
            if example.pieces:
                out.append((example, self.target.encode(p.target)[:MAX_TARGET_PIECES]))
        return out

    def describe(self) -> dict[str, Any]:
        return {**{f"{k}_pairs": len(v) for k, v in self.splits.items()}, "source_vocab": len(self.source),
                "train_target_pieces": sum(len(y) + 1 for _, y in self.examples["train"]),
                "target_vocab": len(self.target),
                "features": {k: len(v) for k, v in self.feature_vocabs.items()}}


def length_buckets(examples: list[tuple[SourceExample, list[int]]], batch_tokens: int) -> list[list[int]]:
    """Indices of ``examples`` grouped by length so that a batch has <= ``batch_tokens`` padded pieces."""
    order = sorted(range(len(examples)), key=lambda i: (len(examples[i][1]), len(examples[i][0].pieces)))
    batches: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for i in order:
        size = max(len(examples[i][1]) + 1, len(examples[i][0].pieces))
        if current and max(longest, size) * (len(current) + 1) > batch_tokens:
            batches.append(current)
            current, longest = [], 0
        current.append(i)
        longest = max(longest, size)
    if current:
        batches.append(current)
    return batches


class TranslationTrainer:
    """Writes ``OUT/model`` (best dev cross-entropy), ``OUT/checkpoint``, ``OUT/log.jsonl`` and
    ``OUT/translate_config.json``."""

    def __init__(self, config: TranslateConfig, out: str | os.PathLike, *, progress: bool | str = True) -> None:
        from accelerate import Accelerator

        self.config, self.out = config, Path(out)
        self.accelerator = Accelerator()
        self.data = TranslationData(config)
        torch.manual_seed(config.seed)
        model_config = config.model_config(len(self.data.source), len(self.data.target), self.data.feature_vocabs,
                                           self.data.charset)
        self.model = TranslationModel(model_config, self.data.source, self.data.target)
        self.batches = length_buckets(self.data.examples["train"], config.batch_tokens)
        self.dev_batches = length_buckets(self.data.examples["dev"], config.batch_tokens)
        optimizer = torch.optim.Adam(self.model.parameters(), lr=config.lr, betas=(0.9, 0.98), eps=1e-9)
        settings = EngineSettings(
            steps=config.steps, warmup_steps=config.warmup, schedule="inverse_sqrt", grad_clip=config.grad_clip,
            eval_every=config.eval_every, checkpoint_every=config.eval_every, log_every=50,
            config_file=CONFIG_FILE, desc=f"translate {config.architecture}", progress=progress)
        self.averaged: dict[str, float] | None = None  # dev metrics of OUT/model-averaged, once written
        self.engine = Engine(settings, self.out, self.model, optimizer, config=config.run_config(),
                             accelerator=self.accelerator)

    def batch(self, step: int) -> list[int]:
        epoch, at = divmod(step, len(self.batches))
        order = list(range(len(self.batches)))
        random.Random(self.config.seed * 100_003 + epoch).shuffle(order)
        return self.batches[order[at]]

    def loss(self, model: TranslationModel, indices: list[int], split: str = "train",
             smoothing: float | None = None) -> tuple[torch.Tensor, int]:
        """Mean label-smoothed cross-entropy per target piece of ``indices``, and the piece count."""
        examples = [self.data.examples[split][i] for i in indices]
        batch = self.data.reader.batch([e for e, _ in examples])
        target_in, target_out = pad_targets([y for _, y in examples])
        device = model.target_embedding.weight.device
        logits = model(batch.to(device), target_in.to(device))
        gold = target_out.to(device)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), gold.reshape(-1), ignore_index=PAD,
                               label_smoothing=self.config.label_smoothing if smoothing is None else smoothing)
        return loss, int((gold != PAD).sum())

    @torch.no_grad()
    def validate(self, model: TranslationModel | None = None) -> dict[str, float]:
        """Dev cross-entropy of ``model`` (default: the model being trained)."""
        model = model or self.model
        was_training = model.training
        model.eval()
        total, count = 0.0, 0
        for indices in self.dev_batches:
            loss, n = self.loss(model, indices, "dev", smoothing=0.0)
            total, count = total + float(loss) * n, count + n
        model.train(was_training)
        nll = total / max(1, count)
        return {"nll": nll, "ppl": math.exp(min(nll, 50.0)), "score": -nll}

    def train(self, resume: bool = False, stop_after: int | None = None) -> TranslationModel:
        state = self.engine.run(_TranslationTask(self), resume=resume, stop_after=stop_after)
        if self.config.average_last and state.step >= self.config.steps and self.accelerator.is_main_process:
            self.averaged = self.write_averaged()
        return self.model

    def training_info(self, step: int, metrics: dict[str, float]) -> dict[str, Any]:
        return {"step": step, "validation": metrics, "config": asdict(self.config), "data": self.data.describe(),
                "train_batches": len(self.batches)}

    def save_snapshot(self, step: int) -> None:
        """Keep this step's weights for averaging; drop all but the last ``average_last`` (and any
        left by a killed run after this step: they will be written again)."""
        root = self.out / SNAPSHOT_DIR
        self.model.save_pretrained(root / snapshot_name(step), training_info={"step": step})
        kept = [p for p in snapshot_directories(root) if snapshot_step(p) <= step]
        for stale in [p for p in snapshot_directories(root) if p not in kept[-self.config.average_last:]]:
            shutil.rmtree(stale)

    def write_averaged(self) -> dict[str, float]:
        """Write ``OUT/model-averaged``, the mean of the kept snapshots; returns its dev metrics."""
        snapshots = snapshot_directories(self.out / SNAPSHOT_DIR)[-self.config.average_last:]
        model = average_models(snapshots)
        metrics = self.validate(model)
        info = self.training_info(self.engine.state.step, metrics)
        info["averaged_steps"] = [snapshot_step(p) for p in snapshots]
        model.save_pretrained(self.out / AVERAGED_DIR, training_info=info)
        return metrics


class _TranslationTask:
    def __init__(self, trainer: TranslationTrainer) -> None:
        self.trainer = trainer

    def batch(self, step: int) -> list[int]:
        return self.trainer.batch(step)

    def loss(self, model: TranslationModel, shard: list[int]) -> tuple[torch.Tensor, dict[str, float]]:
        loss, pieces = self.trainer.loss(model, list(shard))
        return loss, {"target_pieces": pieces}

    def validate(self) -> dict[str, float]:
        return self.trainer.validate()

    def on_evaluation(self, record: dict[str, Any]) -> None:
        if self.trainer.config.average_last:
            self.trainer.save_snapshot(record["step"])

    def save_best(self, metrics: dict[str, float], state: RunState) -> None:
        t = self.trainer
        t.model.save_pretrained(t.out / MODEL_DIR, training_info=t.training_info(state.step, metrics))
