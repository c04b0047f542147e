"""Fine-tuning a tagger on the training engine (:mod:`charwise.training.engine`, HF Accelerate):
seeded batches, dev evaluation after every epoch, early stopping, the best tagger saved to
``OUT/tagger``, exact resume from ``OUT/checkpoint``."""

from __future__ import annotations

import math
import os
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import torch

from charwise.corpora import TaggedSentence
from charwise.io import write_json
from charwise.tagging.data import TaskData, TaskSpec, load_task
from charwise.tagging.evaluate import evaluate_tagger, feature_columns
from charwise.tagging.model import BEST_DIR, Tagger, TaggerConfig, build_tagger, tagging_loss
from charwise.tagging.s2w import FeatureVocab
from charwise.training.engine import Engine, EngineSettings, RunState, check_output

CONFIG_FILE = "train_config.json"


def subsample(sentences: Sequence[TaggedSentence], n: int, seed: int, salt: str) -> list[TaggedSentence]:
    """A seeded subsample of ``n`` sentences in their original order (all of them if ``n <= 0``)."""
    if n <= 0 or n >= len(sentences):
        return list(sentences)
    keep = sorted(random.Random(f"{seed}-{salt}").sample(range(len(sentences)), n))
    return [sentences[i] for i in keep]


def epoch_batches(n: int, batch_size: int, lengths: Sequence[int], seed: int, epoch: int) -> list[list[int]]:
    """Seeded batches of one epoch: shuffle, sort chunks of 50 batches by length (less padding),
    shuffle the batches. A pure function of (seed, epoch)."""
    rng = random.Random(f"{seed}-epoch-{epoch}")
    order = list(range(n))
    rng.shuffle(order)
    chunk = batch_size * 50
    batches = []
    for start in range(0, n, chunk):
        part = sorted(order[start : start + chunk], key=lambda i: lengths[i])
        batches += [part[i : i + batch_size] for i in range(0, len(part), batch_size)]
    rng.shuffle(batches)
    return batches


@dataclass
class TrainResult:
    """What :func:`train_tagger` reports (also written to ``OUT/result.json``)."""

    best_dev: float
    best_epoch: int
    epochs_run: int
    steps: int
    train_minutes: float  # wall time of the training epochs (evaluations excluded)
    minutes_per_epoch: float
    cpu_minutes_per_epoch: float  # process CPU time: the cost on an unshared machine, whatever the load
    processes: int = 1  # Accelerate processes that shared each batch
    history: list[dict[str, Any]] = field(default_factory=list)
    protocol: dict[str, Any] = field(default_factory=dict)


def _labels_of(sentences: Sequence[TaggedSentence]) -> list[str]:
    labels = sorted({t for s in sentences for t in s.tags})
    if "O" in labels:  # O first: a readable convention for NER label lists
        labels.remove("O")
        labels.insert(0, "O")
    return labels


def train_tagger(config: TaggerConfig, out: str | os.PathLike, *, data: TaskData | None = None,
                 teacher: Any = None, encoder: Any = None, progress: bool | str = True,
                 log: Callable[[str], None] | None = None, resume: bool = False,
                 stop_after: int | None = None) -> TrainResult:
    """Fine-tune a tagger on ``data`` (default: the built-in task ``config.task``) and save the best
    one (by dev score) to ``OUT/tagger``. ``OUT/log.jsonl`` gets one line per evaluation (after
    every epoch); ``OUT/checkpoint`` holds the last resumable state and ``resume`` continues from it
    (same configuration; a fresh start if there is none). ``stop_after``: stop after that many more
    optimizer steps, as a killed run would (its checkpoint written), to be resumed later."""
    from accelerate import Accelerator

    config.validate()
    out = Path(out)
    check_output(out, resume, CONFIG_FILE)  # before any data or model is loaded
    if data is None:
        data = load_task(config.task, config.data_dir)
    train = subsample(data.train, config.train_sentences, config.seed, "train")
    # The dev subsample does not depend on the seed: every run of a comparison stops on the same set.
    dev = subsample(data.dev, config.dev_sentences, 0, "dev")
    if not train or not dev:
        raise ValueError("training needs non-empty train and dev sets")
    labels = _labels_of(train)
    feature_vocab = None
    if config.feature:
        values = feature_columns(train, config.feature) or []
        feature_vocab = FeatureVocab.build((v for s in values for v in s), config.feature_min_count)

    accelerator = Accelerator()
    tagger = build_tagger(config, labels, feature_vocab, teacher=teacher, encoder=encoder)
    new_ids = {id(p) for m in tagger.own_modules().values() for p in m.parameters()}
    char_ids = {id(p) for p in tagger.hybrid.encoder.parameters()} if tagger.hybrid.encoder is not None else set()
    groups = [{"params": [p for p in tagger.parameters() if id(p) not in new_ids | char_ids], "lr": config.lr},
              {"params": [p for p in tagger.parameters() if id(p) in new_ids], "lr": config.head_lr},
              {"params": [p for p in tagger.parameters() if id(p) in char_ids],
               "lr": config.encoder_lr if config.encoder_lr is not None else config.lr}]
    optimizer = torch.optim.AdamW([g for g in groups if g["params"]], weight_decay=config.weight_decay)
    per_epoch = math.ceil(len(train) / config.batch_size)
    total = per_epoch * config.epochs
    if config.max_steps > 0:
        total = min(total, config.max_steps)
    # Linear warm-up over warmup_ratio of the steps, then linear decay to 0 (the schedule of
    # transformers.get_linear_schedule_with_warmup), one schedule step per optimizer step.
    settings = EngineSettings(steps=total, warmup_steps=math.ceil(config.warmup_ratio * total), schedule="linear",
                              grad_clip=config.grad_clip, epoch_steps=per_epoch, eval_each_epoch=True,
                              patience=config.patience, config_file=CONFIG_FILE, desc="tag train", progress=progress)
    engine = Engine(settings, out, tagger, optimizer, config=asdict(config), accelerator=accelerator)
    task = _TaggingTask(tagger, train, dev, data.spec, config, out, log)
    torch.manual_seed(config.seed)  # dropout; a resumed run restores the RNG from its checkpoint
    state = engine.run(task, resume=resume, stop_after=stop_after)
    epochs = max(state.epoch, 1)
    result = TrainResult(best_dev=state.best if math.isfinite(state.best) else -1.0, best_epoch=state.best_epoch,
                         epochs_run=state.epoch, steps=state.step,
                         train_minutes=round(state.train_seconds / 60, 3),
                         minutes_per_epoch=round(state.train_seconds / 60 / epochs, 3),
                         cpu_minutes_per_epoch=round(state.cpu_seconds / 60 / epochs, 3),
                         processes=accelerator.num_processes, history=state.history,
                         protocol=_data_description(data.spec, train, dev))
    if accelerator.is_main_process:
        write_json(out / "result.json", asdict(result))
    return result


class _TaggingTask:
    """Tagger fine-tuning as an engine task: a batch is sentence indices; each epoch's batches are
    :func:`epoch_batches`, a pure function of (seed, epoch)."""

    def __init__(self, tagger: Tagger, train: Sequence[TaggedSentence], dev: Sequence[TaggedSentence],
                 spec: TaskSpec, config: TaggerConfig, out: Path, log: Callable[[str], None] | None) -> None:
        self.tagger, self.train, self.dev, self.spec, self.config, self.out = tagger, train, dev, spec, config, out
        self.say = log or (lambda message: None)
        self.features = feature_columns(train, config.feature)
        self.train_words = {w for s in train for w in s.words}
        self.lengths = [len(s.words) for s in train]
        self.per_epoch = math.ceil(len(train) / config.batch_size)
        self._epoch, self._batches = -1, list[list[int]]()

    def batch(self, step: int) -> list[int]:
        epoch, index = divmod(step, self.per_epoch)
        if epoch != self._epoch:
            self._epoch = epoch
            self._batches = epoch_batches(len(self.train), self.config.batch_size, self.lengths, self.config.seed,
                                          epoch)
        return self._batches[index]

    def loss(self, model: Tagger, shard: list[int]) -> tuple[torch.Tensor, dict[str, float]]:
        features = [self.features[i] for i in shard] if self.features is not None else None
        logits, mask = model([self.train[i].words for i in shard], features)
        target = self.tagger.targets([self.train[i].tags for i in shard], mask.shape, logits.device)
        return tagging_loss(logits, target), {}

    def validate(self) -> dict[str, Any]:
        return evaluate_tagger(self.tagger, self.dev, metric=self.spec.metric, train_words=self.train_words)

    def on_evaluation(self, record: dict[str, Any]) -> None:
        record["dev"] = record["validation"]["score"]
        record["dev_acc_multi"] = record["validation"].get("acc_multi")
        self.say(f"epoch {record['epoch']}: loss {record.get('train_loss', math.nan):.4f}, dev {record['dev']:.4f}")

    def save_best(self, metrics: dict[str, Any], state: RunState) -> None:
        self.tagger.save_pretrained(self.out / BEST_DIR, extra={
            "dev": metrics, "epoch": state.epoch, "step": state.step,
            "data": _data_description(self.spec, self.train, self.dev)}, train_words=sorted(self.train_words))


def _data_description(spec: TaskSpec, train: Sequence[TaggedSentence], dev: Sequence[TaggedSentence]
                      ) -> dict[str, Any]:
    return {"task": spec.name, "metric": spec.metric, "train_sentences": len(train),
            "train_words": sum(len(s) for s in train), "dev_sentences": len(dev)}
