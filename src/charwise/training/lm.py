"""Training a character-aware (or word-level) language model (Kim et al. 2016, section 4).

The training split is read as ``batch_size`` contiguous streams side by side; step ``s`` is the
segment ``s mod segments`` of every stream (truncated backpropagation through time over ``bptt``
words). The LSTM state is carried from one segment to the next and *detached* between them, and
reset at the start of each epoch; the engine saves it with every checkpoint (one per process), so a
resumed run continues with the state an uninterrupted run would have had.

Optimiser as in the paper: SGD from lr 1.0, the gradient norm clipped at 5, the rate halved after
an epoch whose validation perplexity did not improve by more than 1 (the engine's ``"plateau"``
schedule, evaluated once per epoch), dropout 0.5, uniform init in [-0.05, 0.05]. Validation
(the score is minus the perplexity) and test perplexity run over whole splits with the state
carried, batch 1 by default as in the paper's evaluation, or ``eval_batch_size`` streams.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from charwise.charset import CharVocab
from charwise.encoders.base import CharEncoder
from charwise.lm.data import SPLITS, Stream, WordVocab, batchify, make_stream, oov_rates, read_bible
from charwise.lm.model import CharAwareLM, State, build_lm
from charwise.training.config import LMConfig
from charwise.training.engine import Engine, EngineSettings, RunState

MODEL_DIR = "model"
CONFIG_FILE = "lm_config.json"


class LMData:
    """The three splits of a language as streams, the output vocabulary and the alphabet."""

    def __init__(self, config: LMConfig) -> None:
        verses = read_bible(config.language, config.corpus or None)
        self.vocab = WordVocab.build(verses["train"], config.min_count)
        self.train_words = {w for v in verses["train"] for w in v}
        self.charset = CharVocab.build(sorted(self.train_words), lowercase=False, hash_buckets=16, max_chars=32)
        self.streams: dict[str, Stream] = {name: make_stream(verses[name], self.vocab) for name in SPLITS}
        if config.max_train_tokens:
            s = self.streams["train"]
            n = min(config.max_train_tokens, s.tokens)
            self.streams["train"] = Stream(s.types[:n], s.targets[:n], s.type_words)

    def describe(self) -> dict[str, Any]:
        return {"vocabulary": len(self.vocab), "characters": len(self.charset.config.chars),
                **{f"{name}_tokens": s.tokens for name, s in self.streams.items()},
                **{f"{name}_oov": oov_rates(self.streams[name], self.vocab, self.train_words)
                   for name in ("validation", "test")}}


def detach(state: State | None) -> State | None:
    return None if state is None else (state[0].detach(), state[1].detach())


def step_inputs(model: CharAwareLM, types: torch.Tensor, targets: torch.Tensor,
                type_words: list[str]) -> tuple[torch.Tensor, torch.Tensor | None]:
    """What :meth:`CharAwareLM.forward` reads for the words ``types`` (whose vocabulary ids are
    ``targets``): those ids for word input, or rows of the character ids of the batch's distinct
    words for character and encoder input."""
    device = model.output.weight.device
    if model.config.input == "words":
        return targets.to(device), None
    unique, inverse = torch.unique(types, return_inverse=True)
    return inverse.to(device), model.char_ids([type_words[int(t)] for t in unique])


@torch.no_grad()
def perplexity(model: CharAwareLM, stream: Stream, batch_size: int = 1, bptt: int = 35) -> dict[str, float]:
    """Perplexity over a whole stream (state carried), and the share of ``<unk>`` targets it scored."""
    was_training = model.training
    model.eval()
    types, targets = batchify(stream, batch_size) if batch_size > 1 else (stream.types[None], stream.targets[None])
    state: State | None = None
    total, count = 0.0, 0
    for at in range(0, types.shape[1] - 1, bptt):
        end = min(at + bptt, types.shape[1] - 1)
        inputs, chars = step_inputs(model, types[:, at:end], targets[:, at:end], stream.type_words)
        logits, state = model(inputs, state, chars)
        gold = targets[:, at + 1 : end + 1].to(logits.device)
        total += float(F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), gold.reshape(-1), reduction="sum"))
        count += gold.numel()
    model.train(was_training)
    return {"ppl": math.exp(total / max(1, count)), "nll": total / max(1, count), "tokens": count}


class LMTrainer:
    """Writes ``OUT/model`` (best validation perplexity), ``OUT/checkpoint``, ``OUT/log.jsonl`` and
    ``OUT/lm_config.json``."""

    def __init__(self, config: LMConfig, out: str | os.PathLike, *, encoder: CharEncoder | None = None,
                 progress: bool | str = True) -> None:
        from accelerate import Accelerator

        from charwise.encoders.shipped import load

        self.config, self.out = config, Path(out)
        self.accelerator = Accelerator()
        self.data = LMData(config)
        torch.manual_seed(config.seed)
        if encoder is None and config.encoder:
            encoder = load(config.encoder)
        self.model = build_lm(config.preset, self.data.vocab.words, self.data.charset, encoder,
                              freeze_encoder=config.freeze_encoder, **config.model_overrides)
        self.train_types, self.train_targets = batchify(self.data.streams["train"], config.batch_size)
        self.segments = math.ceil((self.train_types.shape[1] - 1) / config.bptt)
        optimizer = torch.optim.SGD([p for p in self.model.parameters() if p.requires_grad], lr=config.lr)
        settings = EngineSettings(
            steps=config.epochs * self.segments, schedule="plateau", plateau_factor=config.decay,
            plateau_threshold=config.decay_threshold, grad_clip=config.grad_clip, epoch_steps=self.segments,
            eval_each_epoch=True, checkpoint_every=max(1, self.segments // 4), log_every=50,
            config_file=CONFIG_FILE, desc=f"lm {config.language}", progress=progress)
        self.engine = Engine(settings, self.out, self.model, optimizer, config=asdict(config),
                             accelerator=self.accelerator)
        self.state: State | None = None

    def loss(self, model: CharAwareLM, streams: list[int], segment: int) -> tuple[torch.Tensor, torch.Tensor]:
        """The segment's loss (summed over time steps) and its mean per-word negative log-likelihood."""
        if segment == 0:
            self.state = None  # a new epoch starts every stream from the beginning
        at = segment * self.config.bptt
        end = min(at + self.config.bptt, self.train_types.shape[1] - 1)
        rows = torch.tensor(streams)
        inputs, chars = step_inputs(model, self.train_types[rows, at:end], self.train_targets[rows, at:end],
                                    self.data.streams["train"].type_words)
        logits, state = model(inputs, self.state, chars)
        self.state = detach(state)  # truncated BPTT: no gradient crosses a segment boundary
        gold = self.train_targets[rows, at + 1 : end + 1].to(logits.device)
        nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), gold.reshape(-1))
        # Summed over the segment's time steps, averaged over the streams (Zaremba et al.'s and Kim
        # et al.'s criterion): the scale that SGD at lr 1.0 assumes.
        return nll * (end - at), nll.detach()

    def validate(self) -> dict[str, float]:
        result = perplexity(self.model, self.data.streams["validation"], self.config.eval_batch_size,
                            self.config.bptt)
        return {"ppl": result["ppl"], "score": -result["ppl"]}

    def train(self, resume: bool = False, stop_after: int | None = None) -> CharAwareLM:
        self.engine.run(_LMTask(self), resume=resume, stop_after=stop_after)
        return self.model


class _LMTask:
    """Language modelling as an engine task: a batch is the streams of one segment."""

    def __init__(self, trainer: LMTrainer) -> None:
        self.trainer = trainer

    def batch(self, step: int) -> list[tuple[int, int]]:
        segment = step % self.trainer.segments
        return [(b, segment) for b in range(self.trainer.config.batch_size)]

    def loss(self, model: CharAwareLM, shard: list[tuple[int, int]]) -> tuple[torch.Tensor, dict[str, float]]:
        loss, nll = self.trainer.loss(model, [b for b, _ in shard], shard[0][1])
        return loss, {"nll": float(nll)}

    def validate(self) -> dict[str, float]:
        return self.trainer.validate()

    def save_best(self, metrics: dict[str, float], state: RunState) -> None:
        t = self.trainer
        t.model.save_pretrained(t.out / MODEL_DIR, training_info={
            "step": state.step, "epoch": state.epoch, "validation": metrics, "config": asdict(t.config),
            "data": t.data.describe()})

    def state_dict(self) -> dict[str, Any]:
        state = self.trainer.state
        return {"h": state[0].cpu(), "c": state[1].cpu()} if state is not None else {}

    def load_state_dict(self, saved: dict[str, Any]) -> None:
        device = self.trainer.model.output.weight.device
        self.trainer.state = (saved["h"].to(device), saved["c"].to(device)) if saved else None
