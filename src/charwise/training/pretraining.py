"""Second pre-training: teach a masked LM to read character vectors (Char2Subword / XRayEmb 2PT).

A hybrid model hands MiniLM one character-built vector for every word the policy picks; the
transformer has never seen such inputs. Both source methods fix that with a masked-LM phase in
which the character encoder sits in the model's input:

* ``mode="frozen"`` (Char2Subword, Aguilar et al. 2021, section 3.2): the transformer is frozen;
  the character encoder (and the MLM head's transform) learn to give it vectors it can use;
* ``mode="full"`` (XRayEmb's 2PT, Pinter et al. 2021, section 2.1): the whole transformer trains
  too, at ``model_lr``, so it learns to read the vectors.

all-MiniLM-L6-v2 ships without an MLM head, so one is built as BERT's is (``BertForMaskedLM``):
a dense layer, GELU and LayerNorm (trained from scratch) in front of the frozen embedding table
used as a tied output layer. The table stays frozen in both modes: it is the space the character
encoder is trained to reproduce.

Each step reads sentences of the corpora, gives a share of them realistic typos (the noise models
of ``charwise train``), masks ``mask_rate`` of their words (whole words: one ``[MASK]`` per piece
of the clean word) and builds the rest with the hybrid policy (``oov``: every word that is not one
piece reaches the model as one character vector). Losses: cross-entropy of the clean pieces at the
masked positions, plus ``anchor_weight`` x the anchor of hybrid tuning (the encoder's vector of a
one-piece word against its table row: XRayEmb's embedding loss).

The best model (masked-piece accuracy on noisy validation sentences, hybrid input) is written as
``OUT/model``: a plain HF checkpoint (``BertForMaskedLM``; ``AutoModel`` reads its encoder part)
with the tokenizer, and the trained character encoder in ``OUT/model/charwise-encoder``, which
charwise picks up whenever that directory is the teacher (``charwise tag train --teacher
OUT/model``, ``SentenceEncoder("OUT/model")``, ``HybridModel.from_teacher``). Training runs on
:mod:`charwise.training.engine` (Accelerate, resume to the same weights).

Example::

    config = PretrainConfig(corpora=["train.conllu", "tweets.txt"], mode="full", steps=2000)
    Pretrainer(config, "runs/2pt").train()
"""

from __future__ import annotations

import random
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from charwise.encoders.base import CharEncoder
from charwise.encoders.shipped import MODEL_ENCODER_DIR, resolve_encoder
from charwise.errors import ConfigError
from charwise.hybrid.model import HybridModel
from charwise.io import atomic_directory, write_json
from charwise.model_files import no_progress_bars
from charwise.teachers import PRETRAINING_RECORD, Teacher
from charwise.training.approximation import noisers_for, noisy_word
from charwise.training.config import NOISE_MODELS, PRETRAIN_MODES, PretrainConfig  # noqa: F401 (re-exported)
from charwise.training.engine import Engine, EngineSettings, RunState
from charwise.training.tuning import SentenceSource, anchor_loss

MODES = PRETRAIN_MODES
MODEL_DIR = "model"
CONFIG_FILE = "pretrain_config.json"


class PretrainingModel(nn.Module):
    """The masked LM and the character encoder as one module (the engine's model, one checkpoint)."""

    def __init__(self, mlm: Any, encoder: CharEncoder) -> None:
        super().__init__()
        self.mlm, self.encoder = mlm, encoder


def masked_lm_for(teacher: Teacher) -> Any:
    """``BertForMaskedLM`` holding the teacher's transformer, with a fresh head transform tied to the
    frozen embedding table. Refuses teachers that are not BERT-family masked LMs."""
    from transformers import BertForMaskedLM, BertModel

    base = teacher.model
    if not isinstance(base, BertModel) or teacher.tokenizer.mask_token_id is None:
        raise ConfigError(f"second pre-training needs a BERT-family masked LM with a [MASK] token; teacher "
                          f"'{teacher.name}' is {type(base).__name__} (causal LMs: `charwise tune --objective lm`)")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)  # the head transform's initialisation, without touching the caller's RNG
        mlm = BertForMaskedLM(base.config)
    state = {k: v for k, v in base.state_dict().items() if not k.startswith("pooler.")}
    missing, unexpected = mlm.bert.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise ConfigError(f"teacher '{teacher.name}' does not fit BertForMaskedLM: missing {missing[:3]}, "
                          f"unexpected {unexpected[:3]}")
    mlm.tie_weights()
    return mlm


class Pretrainer:
    """Runs the second pre-training; writes ``OUT/model`` (best, with its encoder),
    ``OUT/checkpoint``, ``OUT/log.jsonl`` and ``OUT/pretrain_config.json``."""

    def __init__(self, config: PretrainConfig, out: str | Path, *, teacher: Teacher | None = None,
                 encoder: CharEncoder | None = None, progress: bool | str = True) -> None:
        from accelerate import Accelerator

        self.config, self.out = config, Path(out)
        self.accelerator = Accelerator()
        self.teacher = teacher or Teacher.load(config.teacher)
        encoder = resolve_encoder(encoder if encoder is not None else config.encoder, self.teacher)
        assert encoder is not None
        self.encoder = encoder
        self.start_info = dict(encoder.training_info or {})
        self.mlm = masked_lm_for(self.teacher)
        self.mask_id = int(self.teacher.tokenizer.mask_token_id)
        full = config.mode == "full"
        for name, p in self.mlm.named_parameters():
            p.requires_grad_(name.startswith("cls.") or (full and name.startswith("bert.")))
        table = self.mlm.get_input_embeddings().weight  # tied to the output layer: frozen in both modes
        table.requires_grad_(False)
        self.hybrid = HybridModel(self.mlm.bert, self.teacher, encoder, config.policy, seed=config.seed)
        self.base = HybridModel(self.mlm.bert, self.teacher, None, "none")
        self.source = SentenceSource(config, self.teacher)
        self.noisers = noisers_for(self.teacher, config.noise)
        head = [p for n, p in self.mlm.named_parameters() if n.startswith("cls.") and p.requires_grad]
        groups = [{"params": list(encoder.parameters()), "lr": config.lr}, {"params": head, "lr": config.head_lr}]
        if full:
            groups.append({"params": [p for n, p in self.mlm.named_parameters()
                                      if n.startswith("bert.") and p.requires_grad], "lr": config.model_lr})
        optimizer = torch.optim.AdamW(groups, lr=config.lr, weight_decay=config.weight_decay)
        settings = EngineSettings(
            steps=config.steps, warmup_steps=config.warmup_steps, schedule="cosine", min_lr_ratio=config.min_lr_ratio,
            grad_clip=config.grad_clip, eval_every=config.eval_every, eval_at_start=True,
            checkpoint_every=config.checkpoint_every, log_every=10, config_file=CONFIG_FILE, desc="2pt",
            progress=progress)
        self.model = PretrainingModel(self.mlm, encoder)
        self.engine = Engine(settings, self.out, self.model, optimizer, config=asdict(config),
                             accelerator=self.accelerator)
        self._validation = [self.example(s, f"{config.seed}-val-{k}") for k, s in enumerate(self.source.validation)]
        self._train_mode()

    # --- data ---------------------------------------------------------------------------------
    def example(self, clean: list[str], key: str) -> tuple[list[str], list[str], list[bool]]:
        """(clean words, words as read, masked flags) for one sentence, a pure function of ``key``."""
        rng = random.Random(key)
        read = list(clean)
        if rng.random() >= self.config.clean_share:
            read = [noisy_word(w, self.noisers, rng) if rng.random() < self.config.typo_rate else w for w in clean]
        count = max(1, round(self.config.mask_rate * len(clean)))
        chosen = set(rng.sample(range(len(clean)), min(count, len(clean))))
        return list(clean), read, [i in chosen for i in range(len(clean))]

    def batch(self, step: int) -> list[tuple[list[str], list[str], list[bool]]]:
        return [self.example(s, f"{self.config.seed}-{step}-{k}") for k, s in enumerate(self.source.clean_batch(step))]

    # --- losses -------------------------------------------------------------------------------
    def masked_logits(self, hybrid: HybridModel, examples: list[tuple[list[str], list[str], list[bool]]],
                      clean_input: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits over the vocabulary at every masked position and the clean pieces they should be."""
        fixed, targets = [], []
        for clean, _, masked in examples:
            pieces = hybrid.word_pieces(clean, [i > 0 for i in range(len(clean))])
            fixed.append([[self.mask_id] * len(p) if m and p else None for p, m in zip(pieces, masked)])
            targets.append(pieces)
        inputs = hybrid.prepare([c if clean_input else r for c, r, _ in examples], fixed_pieces=fixed)
        states = hybrid(inputs=inputs).outputs.last_hidden_state
        rows, cols, ids = [], [], []
        for b, (_, _, masked) in enumerate(examples):
            for i, m in enumerate(masked):
                start, end = inputs.word_spans[b][i]
                if m and start >= 0:
                    rows += [b] * (end - start)
                    cols += list(range(start, end))
                    ids += targets[b][i][: end - start]
        device = states.device
        picked = states[torch.tensor(rows, dtype=torch.long, device=device),
                        torch.tensor(cols, dtype=torch.long, device=device)]
        return self.mlm.cls(picked), torch.tensor(ids, dtype=torch.long, device=device)

    def losses(self, examples: list[tuple[list[str], list[str], list[bool]]]) -> dict[str, torch.Tensor]:
        logits, ids = self.masked_logits(self.hybrid, examples)
        mlm = F.cross_entropy(logits.float(), ids) if len(ids) else logits.sum() * 0
        anchor = anchor_loss(self.hybrid, [c for c, _, _ in examples], self.config.anchor_weight)
        return {"loss": mlm + self.config.anchor_weight * anchor, "mlm": mlm, "anchor": anchor}

    # --- validation and outputs ---------------------------------------------------------------
    @torch.no_grad()
    def validate(self) -> dict[str, float]:
        """Masked-piece accuracy and loss on the validation sentences: read with typos through the
        hybrid policy (``score``), the same text as plain pieces, and the clean text (hybrid)."""
        self.mlm.eval()
        self.encoder.eval()
        metrics: dict[str, float] = {}
        for name, hybrid, clean in (("hybrid", self.hybrid, False), ("pieces", self.base, False),
                                    ("hybrid_clean", self.hybrid, True)):
            correct, loss, count = 0, 0.0, 0
            for k in range(0, len(self._validation), 64):
                logits, ids = self.masked_logits(hybrid, self._validation[k : k + 64], clean_input=clean)
                correct += int((logits.argmax(-1) == ids).sum())
                loss += float(F.cross_entropy(logits.float(), ids, reduction="sum"))
                count += len(ids)
            metrics[f"{name}_acc"], metrics[f"{name}_loss"] = correct / max(1, count), loss / max(1, count)
        metrics["score"] = metrics["hybrid_acc"]
        self._train_mode()
        return metrics

    def _train_mode(self) -> None:
        self.hybrid.train()
        # Frozen: the transformer gives exactly its inference states (no dropout); full: it trains.
        self.mlm.train(self.config.mode == "full")

    def save(self, directory: Path, info: dict[str, Any]) -> None:
        """The HF checkpoint, its tokenizer and the encoder, as one atomic directory."""
        with atomic_directory(directory) as tmp, no_progress_bars():
            self.mlm.save_pretrained(tmp, safe_serialization=True)
            self.teacher.tokenizer.save_pretrained(tmp)
            self.encoder.save_pretrained(tmp / MODEL_ENCODER_DIR,
                                         training_info={**self.start_info, "pretraining": info})
            write_json(tmp / PRETRAINING_RECORD, info)

    def train(self, resume: bool = False, stop_after: int | None = None) -> Path:
        """Train to ``config.steps`` (or ``stop_after`` more steps); returns ``OUT/model``."""
        self.engine.run(_PretrainingTask(self), resume=resume, stop_after=stop_after)
        return self.out / MODEL_DIR


class _PretrainingTask:
    """Second pre-training as an engine task: a batch is (clean, read, masked) sentences."""

    def __init__(self, trainer: Pretrainer) -> None:
        self.trainer = trainer

    def batch(self, step: int) -> list[tuple[list[str], list[str], list[bool]]]:
        return self.trainer.batch(step)

    def loss(self, model: PretrainingModel, shard: list[tuple[list[str], list[str], list[bool]]]
             ) -> tuple[torch.Tensor, dict[str, float]]:
        parts = self.trainer.losses(shard)
        total = parts.pop("loss")
        return total, {k: float(v.detach()) for k, v in parts.items()}

    def validate(self) -> dict[str, float]:
        return self.trainer.validate()

    def save_best(self, metrics: dict[str, float], state: RunState) -> None:
        t = self.trainer
        t.save(t.out / MODEL_DIR, {"step": state.step, "validation": metrics, "config": asdict(t.config),
                                   "teacher": t.teacher.describe()})
