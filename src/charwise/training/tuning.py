"""Hybrid tuning: adapt a character encoder to the frozen model that reads its vectors.

The approximation phase (:mod:`charwise.training.approximation`) teaches the encoder to land on table rows. A
hybrid model, though, feeds it words that have *no* row (every multi-piece word) and typo'd
words, and the transformer above was never trained on such inputs. Char2Subword's second phase
(Aguilar et al., 2021, section 3.2) therefore trains the character module with the transformer
frozen, and XRayEmb does a second pre-training (Pinter et al., 2021, section 3). Both use a
masked-LM head, which all-MiniLM-L6-v2 does not ship (:mod:`charwise.training.pretraining` builds
one and runs both); hybrid tuning needs no head and works for any model, by distillation:

* teacher: the unchanged model on the clean sentence (policy ``none``);
* student: the same frozen model on the sentence with typos, built by the hybrid policy;
* loss: ``word`` (1 - cosine between each word's output state, the mean of its pieces' states for
  the teacher) + ``sentence`` (1 - cosine of the mean-pooled sentence vectors) + ``anchor``
  (1 - cosine between the encoder's vector and the table row for single-token words, so the
  encoder stays in the table's space for everything else charwise does with it).

For causal LMs ``objective="lm"`` is closer to Char2Subword's phase: the loss is the negative
log-likelihood of every clean word given the hybrid prefix with typos
(:meth:`~charwise.hybrid.HybridModel.word_log_likelihoods`, per word), plus the anchor.

Only the encoder is trained. Batches are a pure function of ``(seed, step)``; training runs on
:mod:`charwise.training.engine` (HF Accelerate, atomic checkpoints, ``resume=True`` continues a
killed run with the weights an uninterrupted run would have).
"""

from __future__ import annotations

import random
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from charwise.corpora import read_sentences
from charwise.encoders.base import CharEncoder
from charwise.evaluation import noise_config_for
from charwise.hybrid.model import HybridInputs, HybridModel, input_table
from charwise.hybrid.pooling import ReducePooling, word_layout
from charwise.hybrid.sentence import mean_pool
from charwise.teachers import Teacher
from charwise.training.config import TuneConfig
from charwise.training.engine import CHECKPOINT_DIR, Engine, EngineSettings, RunState  # noqa: F401 (re-exported)
from charwise.typos.single import add_typos

BEST_DIR = "encoder"


def word_means(states: torch.Tensor, inputs: HybridInputs) -> tuple[torch.Tensor, torch.Tensor]:
    """``(B, W, H)`` mean state of each word's positions and a ``(B, W)`` mask of words present."""
    layout = word_layout(inputs.word_index, [len(s) for s in inputs.word_spans])
    means = ReducePooling("mean").pool(states, layout)
    return means, (layout.counts > 0).view(layout.batch, layout.num_words)


def anchor_loss(hybrid: HybridModel, sentences: list[list[str]], weight: float = 1.0) -> torch.Tensor:
    """1 - cosine between the encoder's vector and the table row, over the one-token words of
    ``sentences``: it keeps the encoder in the table's space while another loss trains it (zero,
    without running the encoder, when ``weight`` is 0)."""
    device = input_table(hybrid.model).weight.device
    words = sorted({w for s in sentences for w in s})
    pieces = hybrid.word_pieces(words, [True] * len(words))
    kinds = hybrid.teacher.vocab.kinds
    singles = [(w, p[0]) for w, p in zip(words, pieces) if len(p) == 1 and kinds[p[0]] == "normal"]
    if not singles or weight <= 0:
        return torch.zeros((), device=device)
    rows = hybrid.teacher.embeddings[torch.tensor([i for _, i in singles])].to(device)
    vectors = hybrid.char_vectors([w for w, _ in singles])
    return (1 - F.cosine_similarity(vectors, rows, dim=-1)).mean()


class SentenceSource:
    """Training and validation sentences, and seeded noisy batches."""

    # ``config``: a TuneConfig or any config with the same data fields (corpora, max_words,
    # batch_size, validation_sentences, clean_share, typo_rate, seed), as second pre-training's.
    def __init__(self, config: Any, teacher: Teacher) -> None:
        if not config.corpora:
            raise ValueError("hybrid tuning needs at least one corpus (plain text, CoNLL or CoNLL-U)")
        sentences = [s[: config.max_words] for path in config.corpora for s in read_sentences(path) if s]
        if len(sentences) < 2 * config.batch_size:
            raise ValueError(f"only {len(sentences)} sentences in {config.corpora}; "
                             f"need at least {2 * config.batch_size}")
        order = list(range(len(sentences)))
        random.Random(f"{config.seed}-split").shuffle(order)
        n_val = min(config.validation_sentences, len(sentences) // 5)
        self.validation = [sentences[i] for i in order[:n_val]]
        self.train = [sentences[i] for i in order[n_val:]]
        self.config = config
        self.noise = noise_config_for(teacher)

    def noisy(self, sentence: list[str], key: str) -> list[str]:
        rng = random.Random(key)
        if rng.random() < self.config.clean_share:
            return list(sentence)
        return add_typos(sentence, self.config.typo_rate, rng.randrange(2**31), self.noise)[0]

    def clean_batch(self, step: int) -> list[list[str]]:
        """The training sentences of ``step`` (a seeded shuffle per epoch)."""
        size, n = self.config.batch_size, len(self.train)
        per_epoch = n // size
        epoch, at = divmod(step, per_epoch)
        order = list(range(n))
        random.Random(f"{self.config.seed}-epoch-{epoch}").shuffle(order)
        return [self.train[i] for i in order[at * size : (at + 1) * size]]

    def batch(self, step: int) -> tuple[list[list[str]], list[list[str]]]:
        """The sentences of ``step`` and their noisy copies."""
        clean = self.clean_batch(step)
        noisy = [self.noisy(s, f"{self.config.seed}-{step}-{k}") for k, s in enumerate(clean)]
        return clean, noisy


class HybridTuner:
    """Runs hybrid tuning and writes ``OUT/encoder`` (best on validation), ``OUT/checkpoint``,
    ``OUT/log.jsonl`` and ``OUT/tune_config.json``."""

    def __init__(self, config: TuneConfig, out: str | Path, *, teacher: Teacher | None = None,
                 encoder: CharEncoder | None = None, progress: bool | str = True) -> None:
        from accelerate import Accelerator

        from charwise.encoders.shipped import load

        self.config, self.out = config, Path(out)
        self.accelerator = Accelerator()
        self.teacher = teacher or Teacher.load(config.teacher)
        encoder = encoder or load(config.encoder)
        self.start_info = dict(getattr(encoder, "training_info", {}) or {})
        model = self.teacher.model.eval()
        for p in model.parameters():  # frozen: gradients only flow through it to the inputs
            p.requires_grad_(False)
        self.student = HybridModel(model, self.teacher, encoder, config.policy, seed=config.seed)
        self.base = HybridModel(model, self.teacher, None, "none")
        self.source = SentenceSource(config, self.teacher)
        if config.objective not in ("distill", "lm"):
            raise ValueError(f"unknown tuning objective '{config.objective}' (distill or lm)")
        self.student.to(self.accelerator.device)
        optimizer = torch.optim.AdamW(encoder.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        settings = EngineSettings(
            steps=config.steps, warmup_steps=config.warmup_steps, schedule="cosine", min_lr_ratio=config.min_lr_ratio,
            grad_clip=config.grad_clip, eval_every=config.eval_every, eval_at_start=True,
            checkpoint_every=config.checkpoint_every, log_every=10, config_file="tune_config.json", desc="tune",
            progress=progress)
        self.engine = Engine(settings, self.out, encoder, optimizer, config=asdict(config),
                             accelerator=self.accelerator)
        self.encoder, self.optimizer = encoder, self.engine.optimizer
        self._val_noisy = [self.source.noisy(s, f"{config.seed}-val-{k}") for k, s in enumerate(self.source.validation)]
        self._train_mode()

    @property
    def step(self) -> int:
        return self.engine.state.step

    @property
    def best(self) -> float:
        """The best validation score so far (``-inf`` before the first evaluation)."""
        return self.engine.state.best

    def losses(self, clean: list[list[str]], noisy: list[list[str]]) -> dict[str, torch.Tensor]:
        """The loss terms on one batch (see the module docstring)."""
        if self.config.objective == "lm":
            lls = self.student.word_log_likelihoods(noisy, clean)
            values = torch.cat([ll[~torch.isnan(ll)] for ll in lls])
            lm = -values.mean()
            anchor = anchor_loss(self.student, clean, self.config.anchor_weight)
            return {"loss": lm + self.config.anchor_weight * anchor, "lm": lm, "anchor": anchor}
        with torch.no_grad():
            base = self.base(clean)
            target_states = base.outputs.last_hidden_state
            target_words, present = word_means(target_states, base.inputs)
            target_sentence = mean_pool(target_states, base.inputs.attention_mask)
        out = self.student(noisy)
        states = out.outputs.last_hidden_state
        words, present_student = word_means(states, out.inputs)
        both = present & present_student
        word_loss = (1 - F.cosine_similarity(words[both], target_words[both], dim=-1)).mean()
        sentence = mean_pool(states, out.inputs.attention_mask)
        sentence_loss = (1 - F.cosine_similarity(sentence, target_sentence, dim=-1)).mean()
        anchor = anchor_loss(self.student, clean, self.config.anchor_weight)
        total = (self.config.word_weight * word_loss + self.config.sentence_weight * sentence_loss
                 + self.config.anchor_weight * anchor)
        return {"loss": total, "word": word_loss, "sentence": sentence_loss, "anchor": anchor}

    @torch.no_grad()
    def validate(self) -> dict[str, float]:
        """``score`` to maximise, with the base model's value beside it.

        distill: mean sentence cosine between the noisy input (hybrid; base) and the clean base
        vector. lm: mean log-likelihood per clean word given the noisy prefix (hybrid; base).
        """
        self.student.eval()
        val, noisy = self.source.validation, self._val_noisy
        if self.config.objective == "lm":
            def mean_ll(model: HybridModel) -> float:
                lls = [ll for k in range(0, len(val), 16)
                       for ll in model.word_log_likelihoods(noisy[k : k + 16], val[k : k + 16])]
                values = torch.cat([ll[~torch.isnan(ll)] for ll in lls])
                return float(values.mean())

            metrics = {"hybrid_ll": mean_ll(self.student), "base_ll": mean_ll(self.base)}
            metrics["score"] = metrics["hybrid_ll"]
        else:
            sims_h: list[torch.Tensor] = []
            sims_b: list[torch.Tensor] = []
            for k in range(0, len(val), 64):
                ref = self.base(val[k : k + 64])
                ref_vec = mean_pool(ref.outputs.last_hidden_state, ref.inputs.attention_mask)
                for model, sims in ((self.student, sims_h), (self.base, sims_b)):
                    o = model(noisy[k : k + 64])
                    vec = mean_pool(o.outputs.last_hidden_state, o.inputs.attention_mask)
                    sims.append(F.cosine_similarity(vec, ref_vec, dim=-1))
            metrics = {"hybrid_cos": float(torch.cat(sims_h).mean()), "base_cos": float(torch.cat(sims_b).mean())}
            metrics["score"] = metrics["hybrid_cos"]
        self._train_mode()
        return metrics

    def _train_mode(self) -> None:
        # The encoder trains; the frozen model stays in eval mode (no dropout on the distilled states).
        self.student.train()
        self.student.model.eval()

    def tune(self, resume: bool = False, stop_after: int | None = None) -> CharEncoder:
        """Train to ``config.steps`` (or ``stop_after`` more steps); returns the encoder. ``resume``
        continues the run in ``OUT`` from its last checkpoint."""
        self.engine.run(_TuningTask(self), resume=resume, stop_after=stop_after)
        return self.encoder


class _TuningTask:
    """Hybrid tuning as an engine task: a batch is (clean sentence, noisy sentence) pairs."""

    def __init__(self, tuner: HybridTuner) -> None:
        self.tuner = tuner

    def batch(self, step: int) -> list[tuple[list[str], list[str]]]:
        clean, noisy = self.tuner.source.batch(step)
        return list(zip(clean, noisy))

    def loss(self, model: CharEncoder, shard: list[tuple[list[str], list[str]]]
             ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        # ``model`` is the tuner's encoder: the losses reach it through the hybrid student.
        parts = self.tuner.losses([c for c, _ in shard], [n for _, n in shard])
        total = parts.pop("loss")
        return total, {k: v.detach() for k, v in parts.items()}

    def validate(self) -> dict[str, float]:
        return self.tuner.validate()

    def save_best(self, metrics: dict[str, float], state: RunState) -> None:
        t = self.tuner
        info = dict(t.start_info)
        info["hybrid_tuning"] = {"step": state.step, "validation": metrics, "config": asdict(t.config)}
        t.encoder.save_pretrained(t.out / BEST_DIR, training_info=info)
