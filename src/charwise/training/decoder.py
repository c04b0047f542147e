"""Training the character decoder, with XRayEmb's cycle loops (Pinter et al. 2021, sections 2.1 and 4).

Every step draws a batch of the teacher's training rows (whole words and pieces; the encoder's
held-out words are never drawn) and, for each, its clean spelling or a noisy copy. The losses,
each with its weight (0 switches it off):

* ``rows``: the decoder spells the teacher's row ``E[i]`` (character cross-entropy);
* ``cycle_ed`` (E -> D loop): string -> encoder -> decoder -> the *clean* string, so the decoder
  learns to spell what the encoder makes of noisy input (a corrector), and, when the encoder is
  trained, the encoder learns to keep what spelling needs;
* ``cycle_de`` (D -> E loop): a vector (a row, or a random point near the sphere of the table's
  row norm) -> decoder, greedy -> encoder -> the same vector (Euclidean distance). The spelling is
  discrete, so this loss reaches the encoder only (XRayEmb: "only backpropagated as far as
  XR-ENC"); it needs ``train_encoder``;
* ``approx``: with ``train_encoder``, the encoder's own approximation loss on the batch
  (:class:`~charwise.training.losses.ApproximationLoss`), which keeps it on the teacher's table.

The encoder is frozen by default (the decoder learns to read the shipped encoder as it is);
``train_encoder`` trains it too, at ``encoder_lr``, and saves it beside the decoder. Batches are
a pure function of ``(seed, step)``, so a resumed run ends with the weights of an uninterrupted
one. Validation (held-in words only): greedy exact match of the rows' spellings and of the clean
spelling from noisy strings; their mean is the score.
"""

from __future__ import annotations

import os
import random
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch
from torch import nn

from charwise.decoders.lstm import CharDecoder, build_decoder
from charwise.encoders.base import CharEncoder
from charwise.errors import ConfigError
from charwise.presets import DECODER_BEAM
from charwise.teachers import Teacher
from charwise.training.approximation import noisers_for, noisy_word
from charwise.training.config import SpellingConfig  # noqa: F401 (re-exported)
from charwise.training.engine import Engine, EngineSettings, RunState
from charwise.training.losses import ApproximationLoss, LossWeights
from charwise.training.targets import TargetSplit, split_for_encoder
from charwise.typos.distance import osa_distance
from charwise.typos.single import NoiseNotApplicable

DECODER_DIR = "decoder"
ENCODER_DIR = "encoder"
CONFIG_FILE = "spelling_config.json"
LENGTH_BINS = ((1, 4), (5, 8), (9, 12), (13, 10**6))


class SpellingModel(nn.Module):
    """The encoder and the decoder as one module, the engine's model (one checkpoint for both)."""

    def __init__(self, encoder: CharEncoder, decoder: CharDecoder) -> None:
        super().__init__()
        self.encoder, self.decoder = encoder, decoder


def spelling_scores(predicted: list[str], gold: list[str]) -> dict[str, Any]:
    """Exact match and character error rate (edits / gold characters; an adjacent transposition is
    one edit), overall and by the gold spelling's length."""
    if len(predicted) != len(gold):
        raise ValueError("predicted and gold differ in length")

    def scores(pairs: list[tuple[str, str]]) -> dict[str, Any]:
        if not pairs:
            return {"n": 0, "exact": float("nan"), "cer": float("nan")}
        edits = sum(osa_distance(p, g) for p, g in pairs)
        return {"n": len(pairs), "exact": sum(p == g for p, g in pairs) / len(pairs),
                "cer": edits / max(1, sum(len(g) for _, g in pairs))}

    pairs = list(zip(predicted, gold))
    out = scores(pairs)
    out["by_length"] = {f"{lo}-{hi}" if hi < 10**6 else f"{lo}+": scores([(p, g) for p, g in pairs
                                                                            if lo <= len(g) <= hi])
                        for lo, hi in LENGTH_BINS}
    return out


class SpellingTrainer:
    """Trains a decoder for an encoder on the training engine; writes ``OUT/decoder`` (best),
    ``OUT/encoder`` (with ``train_encoder``), ``OUT/checkpoint``, ``OUT/log.jsonl`` and
    ``OUT/spelling_config.json``."""

    def __init__(self, config: SpellingConfig, out: str | os.PathLike, *, encoder: CharEncoder | None = None,
                 teacher: Teacher | None = None, progress: bool | str = True) -> None:
        from accelerate import Accelerator

        from charwise.encoders.shipped import load

        self.config, self.out = config, Path(out)
        self.accelerator = Accelerator()
        self.encoder = encoder if encoder is not None else load(config.encoder)
        self.teacher = teacher or self.encoder.teacher
        self.encoder.attach_teacher(self.teacher)
        self.split: TargetSplit = split_for_encoder(self.teacher, self.encoder.training_info)
        rows = self.split.train.tolist()
        if config.train_rows_limit > 0 and config.train_rows_limit < len(rows):
            rows = sorted(random.Random(f"{config.seed}-limit").sample(rows, config.train_rows_limit))
        self.rows = rows
        kept = set(rows)
        self.heldin = [i for i in self.split.heldin_words.tolist() if i in kept]
        torch.manual_seed(config.seed)
        self.decoder = (self._initial_decoder(config.init_decoder) if config.init_decoder else
                        build_decoder(self.encoder.charset, self.teacher.dim, config.preset,
                                      self.encoder.teacher_info, **config.decoder_overrides))
        self.encoder.requires_grad_(config.train_encoder)
        self.model = SpellingModel(self.encoder, self.decoder)
        groups = [{"params": list(self.decoder.parameters()), "lr": config.lr}]
        if config.train_encoder:
            groups.append({"params": list(self.encoder.parameters()), "lr": config.encoder_lr})
        optimizer = torch.optim.AdamW(groups, lr=config.lr, weight_decay=config.weight_decay)
        device = self.accelerator.device
        self.table = self.teacher.embeddings.float().to(device)
        self.row_norm = float(self.table[self.teacher.normal_mask.to(device)].norm(dim=1).mean())
        self.approx = (ApproximationLoss(self.teacher.embeddings, LossWeights(), self.teacher.normal_mask,
                                         torch.tensor(rows)).to(device)
                       if config.train_encoder and config.approx > 0 else None)
        self.noisers = noisers_for(self.teacher, config.noise, single_layouts=("us", "uk", "de", "fr", "es"))
        self.per_epoch = max(1, len(rows) // config.batch_size)
        self._order: tuple[int, list[int]] = (-1, [])
        settings = EngineSettings(
            steps=config.steps, warmup_steps=config.warmup_steps, schedule="cosine", min_lr_ratio=config.min_lr_ratio,
            grad_clip=config.grad_clip, eval_every=config.eval_every, checkpoint_every=config.checkpoint_every,
            log_every=50, config_file=CONFIG_FILE, desc="spell", progress=progress)
        self.engine = Engine(settings, self.out, self.model, optimizer, config=asdict(config),
                             accelerator=self.accelerator)
        self._validation = self._validation_set()

    def _initial_decoder(self, directory: str) -> CharDecoder:
        decoder = CharDecoder.from_pretrained(directory)
        if decoder.config.charset != self.encoder.charset.to_dict() or decoder.dim != self.teacher.dim:
            raise ConfigError(f"the decoder in '{directory}' was not built for this encoder (alphabet or "
                              "dimension differ); train one from scratch without init_decoder")
        return decoder.train()

    # --- data ---------------------------------------------------------------------------------
    def noisy(self, word: str, rng: random.Random) -> str:
        """``word`` with one of the configured noise models applied (unchanged if none applies)."""
        return noisy_word(word, self.noisers, rng)

    def batch(self, step: int) -> list[tuple[int, str]]:
        """(row id, input string) pairs of ``step``: each row's clean spelling or a noisy copy."""
        epoch, index = divmod(step, self.per_epoch)
        if self._order[0] != epoch:
            order = list(self.rows)
            random.Random(f"{self.config.seed}-epoch-{epoch}").shuffle(order)
            self._order = (epoch, order)
        ids = self._order[1][index * self.config.batch_size : (index + 1) * self.config.batch_size]
        rng = random.Random(f"{self.config.seed}-step-{step}")
        surfaces = self.teacher.vocab.surfaces
        return [(i, self.noisy(surfaces[i], rng) if rng.random() < self.config.noise_ratio else surfaces[i])
                for i in ids]

    def _validation_set(self) -> dict[str, Any]:
        rng = random.Random(f"{self.config.seed}-validation")
        ids = sorted(rng.sample(self.heldin, min(self.config.eval_words, len(self.heldin))))
        surfaces = [self.teacher.vocab.surfaces[i] for i in ids]
        gold = [self.encoder.charset.normalise(s) for s in surfaces]
        noisy = [(self.noisy(s, rng), g) for s, g in zip(surfaces, gold)]
        noisy = [(n, g) for n, g in noisy if n != g]
        return {"ids": ids, "gold": gold, "noisy": [n for n, _ in noisy], "noisy_gold": [g for _, g in noisy]}

    # --- losses -------------------------------------------------------------------------------
    def loss(self, model: SpellingModel, shard: list[tuple[int, str]]) -> tuple[torch.Tensor, dict[str, float]]:
        """The weighted losses of a shard. With both decoder losses on, the first half of the
        shard is spelled from the teacher's rows and the second half from the encoder's vectors
        (each example is spelled once: the decoder's cost per step stays that of one batch); the
        encoder's own losses see the whole shard."""
        c, device = self.config, self.accelerator.device
        ids = torch.tensor([i for i, _ in shard], dtype=torch.long, device=device)
        texts = [t for _, t in shard]
        starts = [self.teacher.vocab.word_start[i] for i, _ in shard]
        charset = model.encoder.charset
        if not c.train_encoder:
            model.encoder.eval()  # frozen: exactly the vectors it gives at inference (no dropout)
        target = charset.batch([self.teacher.vocab.surfaces[i] for i, _ in shard], starts).to(device)
        half = len(shard) // 2 if c.rows > 0 and c.cycle_ed > 0 and len(shard) > 1 else (
            len(shard) if c.rows > 0 else 0)
        parts: dict[str, torch.Tensor] = {}
        if half > 0:
            parts["rows"] = model.decoder.loss(self.table[ids[:half]], target[:half])
        if c.cycle_ed > 0 or self.approx is not None:
            # only the examples a loss reads: the E -> D half, or all of them for the encoder's losses
            first = 0 if self.approx is not None else half
            chars = charset.batch(texts[first:], starts[first:]).to(device)
            with torch.set_grad_enabled(c.train_encoder):
                encoded = model.encoder(chars)
            if c.cycle_ed > 0:
                parts["cycle_ed"] = model.decoder.loss(encoded[half - first :], target[half:])
            if self.approx is not None:
                parts["approx"], _ = self.approx(encoded, ids[first:])
        if c.cycle_de > 0:
            parts["cycle_de"] = self._cycle_de(model, ids, device)
        weights = {"rows": c.rows, "cycle_ed": c.cycle_ed, "cycle_de": c.cycle_de, "approx": c.approx}
        total = sum(weights[name] * value for name, value in parts.items())
        assert isinstance(total, torch.Tensor)
        return total, {name: float(value.detach()) for name, value in parts.items()}

    def _cycle_de(self, model: SpellingModel, ids: torch.Tensor, device: torch.device) -> torch.Tensor:
        """D -> E: spell rows (and random points at the table's row norm) greedily, read the
        spellings back with the encoder, and pull its vectors to the starting points."""
        # Seeded by the batch itself: batches are a pure function of (seed, step), so are these points.
        step_rng = torch.Generator().manual_seed((int(ids.sum()) * 1_000_003 + len(ids) + self.config.seed) % 2**31)
        start = self.table[ids].clone()
        random_rows = torch.rand(len(ids), generator=step_rng) < self.config.random_vectors
        if bool(random_rows.any()):
            points = torch.randn(int(random_rows.sum()), start.shape[1], generator=step_rng)
            start[random_rows.to(device)] = (points / start.shape[1] ** 0.5 * self.row_norm).to(device)
        chars = model.encoder.charset.batch(model.decoder.spell(start), True).to(device)
        return (model.encoder(chars) - start).norm(dim=-1).mean()

    # --- validation and reports --------------------------------------------------------------
    def validate(self) -> dict[str, float]:
        v = self._validation
        rows = self.decoder.spell(self.table[torch.tensor(v["ids"])])
        from_noisy = self.decoder.spell(self.encoder.embed(v["noisy"], manifold=False))
        rows_exact = spelling_scores(rows, v["gold"])["exact"]
        noisy_exact = spelling_scores(from_noisy, v["noisy_gold"])["exact"]
        return {"rows_exact": rows_exact, "noisy_exact": noisy_exact, "score": (rows_exact + noisy_exact) / 2}

    def train(self, resume: bool = False, stop_after: int | None = None) -> CharDecoder:
        """Train to ``config.steps`` (or ``stop_after`` more steps); ``resume`` continues the run in OUT."""
        self.engine.run(_SpellingTask(self), resume=resume, stop_after=stop_after)
        return self.decoder


def spelling_report(decoder: CharDecoder, encoder: CharEncoder, teacher: Teacher, *, heldin_words: int = 2000,
                    beam: int = DECODER_BEAM, seed: int = 0, noise: str = "mixed") -> dict[str, Any]:
    """The decoder's spelling of held-in and held-out whole words (the encoder's split), from the
    teacher's rows, from the encoder's vectors of the clean words and from those of noisy copies
    (greedy, and beam ``beam``: its best spelling and whether the gold one is among its
    ``beam``); exact match and CER, by length."""
    split = split_for_encoder(teacher, encoder.training_info)
    rng = random.Random(f"{seed}-report")
    heldin = split.heldin_words.tolist()
    groups = {"heldin": sorted(rng.sample(heldin, min(heldin_words, len(heldin)))),
              "heldout": split.heldout_words.tolist()}
    noisers = noisers_for(teacher, noise)
    table = teacher.embeddings.float()
    report: dict[str, Any] = {"beam": beam, "noise": noise}
    for name, ids in groups.items():
        surfaces = [teacher.vocab.surfaces[i] for i in ids]
        gold = [encoder.charset.normalise(s) for s in surfaces]
        noisy_pairs = []
        for s, g in zip(surfaces, gold):
            noiser = rng.choice(noisers)
            if noiser.eligible(s):
                try:
                    noisy_pairs.append((noiser.corrupt(s, rng)[0], g))
                except NoiseNotApplicable:
                    pass
        sources = {"rows": (table[torch.tensor(ids)], gold),
                   "encoder_clean": (encoder.embed(surfaces, manifold=False), gold),
                   "encoder_noisy": (encoder.embed([n for n, _ in noisy_pairs], manifold=False),
                                     [g for _, g in noisy_pairs])}
        report[name] = {}
        for source, (vectors, want) in sources.items():
            greedy = decoder.spell(vectors)
            beams = decoder.spellings(vectors, beam=beam) if beam > 1 else [[] for _ in want]
            best = [b[0].text if b else "" for b in beams]
            entry = {"greedy": spelling_scores(greedy, want)}
            if beam > 1:
                entry[f"beam{beam}"] = spelling_scores(best, want)
                entry[f"beam{beam}"][f"in_top{beam}"] = (
                    sum(any(s.text == g for s in b) for b, g in zip(beams, want)) / max(1, len(want)))
            report[name][source] = entry
    return report


class _SpellingTask:
    """The decoder's training as an engine task."""

    def __init__(self, trainer: SpellingTrainer) -> None:
        self.trainer = trainer

    def batch(self, step: int) -> list[tuple[int, str]]:
        return self.trainer.batch(step)

    def loss(self, model: SpellingModel, shard: list[tuple[int, str]]) -> tuple[torch.Tensor, dict[str, float]]:
        return self.trainer.loss(model, shard)

    def validate(self) -> dict[str, float]:
        return self.trainer.validate()

    def save_best(self, metrics: dict[str, float], state: RunState) -> None:
        t = self.trainer
        info = {"step": state.step, "validation": metrics, "config": asdict(t.config),
                "heldout_words": t.split.heldout_words.tolist()}
        t.decoder.save_pretrained(t.out / DECODER_DIR, training_info=info)
        if t.config.train_encoder:
            t.encoder.save_pretrained(t.out / ENCODER_DIR, training_info={**t.encoder.training_info,
                                                                          "spelling": info})
