"""Fine-tuning a tagger under HF Accelerate: seeded batches, dev evaluation after every epoch,
early stopping, the best tagger saved to ``OUT/tagger``."""

from __future__ import annotations

import json
import math
import os
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import torch

from charwise.corpora import TaggedSentence
from charwise.tagging.data import TaskData, TaskSpec, load_task
from charwise.tagging.evaluate import evaluate_tagger, feature_columns
from charwise.tagging.model import BEST_DIR, TaggerConfig, build_tagger, tagging_loss
from charwise.tagging.s2w import FeatureVocab


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
                 teacher: Any = None, encoder: Any = None, progress: bool = True,
                 log: Callable[[str], None] | None = None) -> TrainResult:
    """Fine-tune a tagger on ``data`` (default: the built-in task ``config.task``) and save the best
    one (by dev score) to ``OUT/tagger``. ``OUT/log.jsonl`` gets one line per evaluation."""
    from accelerate import Accelerator, DistributedDataParallelKwargs
    from accelerate.utils import broadcast_object_list
    from transformers import get_linear_schedule_with_warmup

    config.validate()
    out = Path(out)
    if (out / BEST_DIR).exists():
        raise FileExistsError(f"'{out}' already holds a trained tagger; choose another --out")
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
        values = feature_columns(train, config.feature)
        feature_vocab = FeatureVocab.build((v for s in values for v in s), config.feature_min_count)
    train_features = feature_columns(train, config.feature)
    train_words = {w for s in train for w in s.words}

    # find_unused_parameters: a batch in which the policy picks no word leaves the encoder unused.
    # Every process takes a shard of the same global batch, so all run the same number of steps and
    # the schedule must advance once per step (Accelerate's default steps it once per process).
    accelerator = Accelerator(kwargs_handlers=[DistributedDataParallelKwargs(find_unused_parameters=True)],
                              step_scheduler_with_optimizer=False)
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
    scheduler = get_linear_schedule_with_warmup(optimizer, math.ceil(config.warmup_ratio * total), total)
    model, optimizer, scheduler = accelerator.prepare(tagger, optimizer, scheduler)
    metric = data.spec.metric
    say = log or (lambda msg: None)

    def evaluate_dev() -> dict[str, Any]:
        inner = accelerator.unwrap_model(model)
        return evaluate_tagger(inner, dev, metric=metric, train_words=train_words)

    lengths = [len(s.words) for s in train]
    out.mkdir(parents=True, exist_ok=True)
    if accelerator.is_main_process:
        (out / "train_config.json").write_text(json.dumps(asdict(config), indent=2), encoding="utf-8")
    history: list[dict[str, Any]] = []
    best, best_epoch, bad, step = -1.0, 0, 0, 0
    started = time.time()
    train_seconds = cpu_seconds = 0.0
    epoch = 0
    torch.manual_seed(config.seed)
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc="tag train", disable=not (progress and accelerator.is_main_process),
               dynamic_ncols=True)
    stop = False
    while epoch < config.epochs and not stop:
        model.train()
        t0, c0 = time.time(), time.process_time()
        running, seen = 0.0, 0
        for batch in epoch_batches(len(train), config.batch_size, lengths, config.seed, epoch):
            shard = batch[accelerator.process_index :: accelerator.num_processes] or batch[:1]
            words = [train[i].words for i in shard]
            tags = [train[i].tags for i in shard]
            feats = [train_features[i] for i in shard] if train_features is not None else None
            # Through the (possibly DDP-wrapped) model's forward, so that gradients are synchronised.
            logits, mask = model(words, feats)
            loss = tagging_loss(logits, tagger.targets(tags, mask.shape, logits.device))
            optimizer.zero_grad(set_to_none=True)
            accelerator.backward(loss)
            if config.grad_clip > 0:
                accelerator.clip_grad_norm_(model.parameters(), config.grad_clip)
            optimizer.step()
            scheduler.step()
            step += 1
            running += loss.item()
            seen += 1
            bar.update(1)
            bar.set_postfix(loss=f"{running / seen:.3f}")
            if config.max_steps > 0 and step >= config.max_steps:
                stop = True
                break
        train_seconds += time.time() - t0
        cpu_seconds += time.process_time() - c0
        epoch += 1
        scores = evaluate_dev() if accelerator.is_main_process else {"score": -1.0}
        record = {"epoch": epoch, "step": step, "train_loss": running / max(seen, 1), "dev": scores["score"],
                  "dev_acc_multi": scores.get("acc_multi"), "lr": scheduler.get_last_lr()[0],
                  "elapsed_s": round(time.time() - started, 1)}
        history.append(record)
        say(f"epoch {epoch}: loss {record['train_loss']:.4f}, dev {scores['score']:.4f}")
        if accelerator.is_main_process:
            with open(out / "log.jsonl", "a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")
            if scores["score"] > best:
                best, best_epoch, bad = scores["score"], epoch, 0
                accelerator.unwrap_model(model).save(out / BEST_DIR, extra={
                    "dev": scores, "epoch": epoch, "step": step, "data": _data_description(data.spec, train, dev)},
                    train_words=train_words)
            else:
                bad += 1
                if bad >= config.patience:
                    stop = True
        # Only the main process evaluates: it tells the others whether to stop (else they would
        # wait forever for it in the next epoch's gradient synchronisation).
        stop = bool(broadcast_object_list([stop], from_process=0)[0])
        accelerator.wait_for_everyone()
    bar.close()
    result = TrainResult(best_dev=best, best_epoch=best_epoch, epochs_run=epoch, steps=step,
                         train_minutes=round(train_seconds / 60, 3),
                         minutes_per_epoch=round(train_seconds / 60 / max(epoch, 1), 3),
                         cpu_minutes_per_epoch=round(cpu_seconds / 60 / max(epoch, 1), 3),
                         processes=accelerator.num_processes, history=history,
                         protocol=_data_description(data.spec, train, dev))
    if accelerator.is_main_process:
        (out / "result.json").write_text(json.dumps(asdict(result), indent=2), encoding="utf-8")
    return result


def _data_description(spec: TaskSpec, train: Sequence[TaggedSentence], dev: Sequence[TaggedSentence]
                      ) -> dict[str, Any]:
    return {"task": spec.name, "metric": spec.metric, "train_sentences": len(train),
            "train_words": sum(len(s) for s in train), "dev_sentences": len(dev)}
