"""Training the word head of a :class:`~charwise.hybrid.generation.WordGenerator` (XRayEmb's
generation loss, Pinter et al. 2021, section 2.1).

The causal LM, its encoder and the character decoder stay frozen; only the head learns. Each step
reads a batch of sentences through the hybrid LM (typos in ``1 - clean_share`` of them, at
``typo_rate`` per eligible word, so the head also learns from states built on noisy context), takes
the state before every word (:func:`~charwise.hybrid.generation.boundary_states`), maps it with the
head and scores the decoder's spelling of the *clean* word: the mean character cross-entropy. The
decoder is the one trained for the teacher by ``charwise decoder train``; the head learns to put
the next word where the decoder can read it.

Validation (held-out sentences, clean context): greedy exact match of the next word (the score)
and the mean per-word negative log-likelihood of the clean spelling. Runs on the shared engine
(Accelerate, resume to identical weights, JSONL log).
"""

from __future__ import annotations

import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch

from charwise.decoders.lstm import CharDecoder
from charwise.encoders.base import CharEncoder
from charwise.errors import ConfigError
from charwise.hybrid.generation import DECODER_DIR, WordGenerator, WordHead, WordHeadConfig, boundary_states
from charwise.hybrid.model import HybridModel
from charwise.io import atomic_directory
from charwise.teachers import Teacher
from charwise.training.config import GeneratorConfig
from charwise.training.engine import Engine, EngineSettings, RunState
from charwise.training.tuning import SentenceSource

GENERATOR_DIR = "generator"
CONFIG_FILE = "generator_config.json"


class GeneratorTrainer:
    """Trains the head; writes ``OUT/generator`` (best: head + ``decoder/``), ``OUT/checkpoint``,
    ``OUT/log.jsonl`` and ``OUT/generator_config.json``."""

    def __init__(self, config: GeneratorConfig, out: str | Path, *, teacher: Teacher | None = None,
                 encoder: CharEncoder | None = None, progress: bool | str = True) -> None:
        from accelerate import Accelerator

        self.config, self.out = config, Path(out)
        self.accelerator = Accelerator()
        self.teacher = teacher or Teacher.load(config.teacher)
        self.hybrid = HybridModel.from_teacher(self.teacher, policy=config.policy,
                                                encoder=encoder if encoder is not None else config.encoder or None)
        self.hybrid.requires_grad_(False)
        self.hybrid.eval()
        self.decoder = CharDecoder.from_pretrained(config.decoder).requires_grad_(False)
        # The frozen parts run where the engine puts the head (a GPU when there is one).
        self.hybrid.to(self.accelerator.device)
        self.decoder.to(self.accelerator.device)
        if self.hybrid.encoder is not None and self.decoder.charset.to_dict() != self.hybrid.encoder.charset.to_dict():
            raise ConfigError(f"the decoder in '{config.decoder}' writes another alphabet than this encoder reads; "
                              "use the decoder trained for this encoder")
        torch.manual_seed(config.seed)
        self.head = WordHead(WordHeadConfig(hidden_size=int(self.hybrid.model.config.hidden_size),
                                            dim=self.teacher.dim, inner=config.inner))
        self.generator = WordGenerator(self.hybrid, self.head, self.decoder)
        self.source = SentenceSource(config, self.teacher)
        optimizer = torch.optim.AdamW(self.head.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        settings = EngineSettings(
            steps=config.steps, warmup_steps=config.warmup_steps, schedule="cosine", min_lr_ratio=config.min_lr_ratio,
            grad_clip=config.grad_clip, eval_every=config.eval_every, checkpoint_every=config.checkpoint_every,
            log_every=10, config_file=CONFIG_FILE, desc="generator", progress=progress)
        self.engine = Engine(settings, self.out, self.head, optimizer, config=asdict(config),
                             accelerator=self.accelerator)

    def spelling_targets(self, sentences: list[list[str]], owners: list[tuple[int, int]]) -> torch.Tensor:
        """The clean words at ``owners`` as the decoder's character ids (whole words)."""
        words = [sentences[b][i] for b, i in owners]
        return self.decoder.charset.batch(words, [True] * len(words)).to(self.accelerator.device)

    def loss(self, head: WordHead, clean: list[list[str]], read: list[list[str]]) -> torch.Tensor:
        with torch.no_grad():
            found = boundary_states(self.hybrid, read)
        # Train mode: a cuDNN LSTM runs backward only in it (the decoder's weights stay frozen).
        self.decoder.train()
        return self.decoder.loss(head(found.states), self.spelling_targets(clean, found.owners))

    @torch.no_grad()
    def validate(self) -> dict[str, float]:
        self.head.eval()
        self.decoder.eval()
        correct, total, nll = 0, 0, 0.0
        sentences = self.source.validation
        for k in range(0, len(sentences), 32):
            batch = sentences[k : k + 32]
            found = boundary_states(self.hybrid, batch)
            vectors = self.head(found.states)
            gold = [self.decoder.charset.normalise(batch[b][i]) for b, i in found.owners]
            spelled = self.decoder.spell(vectors)
            correct += sum(s == g for s, g in zip(spelled, gold))
            lp = self.decoder.log_probs(vectors, self.spelling_targets(batch, found.owners))
            nll -= float(lp.sum())
            total += len(gold)
        self.head.train()
        return {"word_acc": correct / max(1, total), "word_nll": nll / max(1, total),
                "score": correct / max(1, total)}

    def save(self, directory: Path, info: dict[str, Any]) -> None:
        """The head and a copy of its decoder, as one atomic directory."""
        with atomic_directory(directory) as tmp:
            self.head.save_pretrained(tmp, training_info=info)
            shutil.copytree(self.config.decoder, tmp / DECODER_DIR)

    def train(self, resume: bool = False, stop_after: int | None = None) -> Path:
        """Train to ``config.steps`` (or ``stop_after`` more steps); returns ``OUT/generator``."""
        self.head.train()
        self.engine.run(_GeneratorTask(self), resume=resume, stop_after=stop_after)
        return self.out / GENERATOR_DIR


class _GeneratorTask:
    """Word-head training as an engine task: a batch is (clean, read) sentence pairs."""

    def __init__(self, trainer: GeneratorTrainer) -> None:
        self.trainer = trainer

    def batch(self, step: int) -> list[tuple[list[str], list[str]]]:
        clean, noisy = self.trainer.source.batch(step)
        return list(zip(clean, noisy))

    def loss(self, model: WordHead, shard: list[tuple[list[str], list[str]]]) -> tuple[torch.Tensor, dict[str, float]]:
        loss = self.trainer.loss(model, [c for c, _ in shard], [r for _, r in shard])
        return loss, {}

    def validate(self) -> dict[str, float]:
        return self.trainer.validate()

    def save_best(self, metrics: dict[str, float], state: RunState) -> None:
        t = self.trainer
        encoder = t.config.encoder or None
        t.save(t.out / GENERATOR_DIR, {"step": state.step, "validation": metrics, "config": asdict(t.config),
                                       "teacher": t.config.teacher, "encoder": encoder, "policy": t.config.policy})
