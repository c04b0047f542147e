"""The one training engine: approximation, hybrid tuning and taggers all train through :class:`Engine`.

A model plugs in as a small *task* (:class:`Task`): what the global batch of a step is, the loss
of one process's shard of it, how to validate, how to save the best model. The engine owns the
rest, in one loop (:meth:`Engine.run`):

* processes (HF Accelerate): each process takes ``batch[rank::world]`` of every global batch; the
  gradients are then averaged over the processes explicitly, so a task may reach its model through
  any method, not only ``forward`` (the tuner goes through the hybrid model, which DDP never sees);
* the learning rate (:func:`lr_factor`): linear warm-up, then cosine decay to ``min_lr_ratio``
  (``"cosine"``), linear decay to 0 (``"linear"``: exactly
  ``transformers.get_linear_schedule_with_warmup`` stepped once per optimizer step), or
  ``"plateau"``: constant, multiplied by ``plateau_factor`` after every evaluation that beats the
  best score by no more than ``plateau_threshold`` (Kim et al. 2016 halve SGD's rate when
  validation perplexity stops improving); ``"inverse_sqrt"``: warm-up, then the rate falls as
  ``1 / sqrt(step)`` (the Transformer's schedule);
* gradient clipping; evaluation every ``eval_every`` steps, at the end of every epoch and at the
  end; early stopping (``patience``) decided by the main process and broadcast to every process;
* outputs: ``OUT/log.jsonl`` (:func:`charwise.io.append_jsonl`), the run's configuration
  (``settings.config_file``, :func:`charwise.io.write_json`), progress on the main process
  (:class:`charwise.cli.progress.Progress`: a bar, or a log line every few seconds with steps/s, the
  time left and the loss; ``settings.progress``),
  the best model (the task's ``save_best``) and ``OUT/checkpoint``, the last resumable state
  (:mod:`charwise.training.checkpoints`, atomic);
* exact resume: weights, optimizer, schedule position, every process's RNG, step, best score,
  early-stopping counter and history. With batches a pure function of (seed, step), a resumed run
  ends with exactly the weights of an uninterrupted one;
* one refusal of an output directory that already holds a run (:class:`OutputExistsError`) unless
  resuming, of a resume under another configuration (:class:`ConfigError`) and of a resume with
  nothing to resume (:class:`CheckpointError`). A run stopped before its first checkpoint left its
  configuration and no checkpoint: resuming it starts it over from step 0 (same configuration);
* one process at a time per output directory (:func:`charwise.io.lock_directory`: a second run
  into the same directory is refused while the first runs); temporary files and directories that a
  killed run left there are removed when the next run starts.

Log records: every ``log_every`` steps ``{"step", "loss", <loss parts>, "lr", "elapsed_s"}``; after
every evaluation ``{"step", ["epoch",] "validation", "processes", "lr", "train_loss", "elapsed_s"}``
plus what the task adds. ``lr`` is the rate of the next step (of the optimizer's first group) and
``train_loss`` the mean loss of this process's shards since the previous evaluation.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Protocol, Sequence

import torch
from torch import nn

from charwise.errors import CheckpointError, ConfigError, OutputExistsError
from charwise.io import append_jsonl, lock_directory, remove_orphans, write_json, write_text
from charwise.training.checkpoints import (
    capture_rng,
    load_training_state,
    read_training_state,
    restore_rng,
    save_training_state,
)
from charwise.training.config import without_later_defaults  # noqa: F401 (re-exported)

CHECKPOINT_DIR = "checkpoint"
LOG_FILE = "log.jsonl"
SCHEDULES = ("cosine", "linear", "plateau", "inverse_sqrt")


@dataclass
class EngineSettings:
    """How the engine runs a task (the task's own configuration is stored beside it)."""

    steps: int  # optimizer steps of the whole run
    warmup_steps: int = 0
    schedule: str = "cosine"  # "cosine": decay to min_lr_ratio; "linear": decay to 0; "plateau": see below
    plateau_factor: float = 0.5  # "plateau": the rate is multiplied by this after an evaluation whose
    plateau_threshold: float = 0.0  # score beat the best so far by no more than this
    min_lr_ratio: float = 0.0
    grad_clip: float = 1.0  # max gradient norm (0: no clipping)
    epoch_steps: int = 0  # steps per epoch (0: the run does not count epochs)
    eval_every: int = 0  # evaluate every N steps (0: not by count); always at the last step
    eval_each_epoch: bool = False  # evaluate at the end of every epoch
    eval_at_start: bool = False  # a baseline evaluation at step 0: logged, never the best
    patience: int = 0  # stop after this many evaluations without improvement (0: never)
    checkpoint_every: int = 0  # also after every evaluation and at the end of every run
    log_every: int = 0  # a training-loss record every N steps (0: none)
    config_file: str = "train_config.json"
    desc: str = "train"  # progress label
    progress: bool | str = True  # a --progress mode (auto, bar, log, none); True: auto, False: none

    def __post_init__(self) -> None:
        if self.schedule not in SCHEDULES:
            raise ConfigError(f"unknown learning-rate schedule {self.schedule!r} (known: {', '.join(SCHEDULES)})")
        if self.steps < 0 or self.warmup_steps < 0:
            raise ConfigError("steps and warmup_steps must be >= 0")


def lr_factor(step: int, settings: EngineSettings) -> float:
    """The learning-rate multiplier of optimizer step ``step`` (0-based)."""
    warmup, total = settings.warmup_steps, settings.steps
    if settings.schedule == "linear":  # transformers.get_linear_schedule_with_warmup, step for step
        if step < warmup:
            return float(step) / float(max(1, warmup))
        return max(0.0, float(total - step) / float(max(1, total - warmup)))
    if step < warmup:
        return (step + 1) / warmup
    if settings.schedule == "plateau":  # the decays are in RunState.lr_scale
        return 1.0
    if settings.schedule == "inverse_sqrt":  # Vaswani et al.: the peak at the end of warm-up
        return math.sqrt(max(1, warmup) / (step + 1))
    progress = (step - warmup) / max(1, total - warmup)
    return settings.min_lr_ratio + (1 - settings.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))


@dataclass
class RunState:
    """Where a run stands; all of it goes into the checkpoint."""

    step: int = 0
    epoch: int = 0  # epochs begun (ceil(step / epoch_steps)); 0 when epochs are not counted
    best: float = -math.inf
    best_step: int = 0
    best_epoch: int = 0
    bad_evals: int = 0  # evaluations since the last improvement
    lr_scale: float = 1.0  # schedule "plateau": the product of the decays so far
    stopped: bool = False  # early stopping ended the run
    loss_sum: float = 0.0  # this process's training loss since the last evaluation
    loss_count: int = 0
    train_seconds: float = 0.0  # wall time of the training steps (evaluations and checkpoints excluded)
    cpu_seconds: float = 0.0  # process CPU time of the same
    history: list[dict[str, Any]] = field(default_factory=list)  # every evaluation record

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["best"] = None if math.isinf(self.best) else self.best  # JSON has no infinity
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RunState":
        known = {f.name for f in fields(cls)}
        state = cls(**{k: v for k, v in data.items() if k in known})
        best = data.get("best", data.get("best_score"))  # best_score: checkpoints from before the engine
        state.best = -math.inf if best is None else float(best)
        return state


class Task(Protocol):
    """What a model supplies to the engine. ``validate`` and ``save_best`` run on the main process
    only. Optional: ``on_evaluation(record)``, called there with each evaluation record before it
    is logged (it may add fields); ``state_dict()`` / ``load_state_dict(state)``: what the task
    carries from step to step (a language model's recurrent state), saved with every checkpoint,
    one per process, and restored on resume."""

    def batch(self, step: int) -> Sequence[Any]:
        """The global batch of ``step``: a sequence of examples, a pure function of (seed, step)."""

    def loss(self, model: Any, shard: Any) -> tuple[torch.Tensor, dict[str, Any]]:
        """The loss of ``model`` (the engine's) on ``shard`` (this process's examples of the batch),
        and named parts of it (numbers) for the log."""

    def validate(self) -> dict[str, Any]:
        """Metrics, with ``score``: higher is better."""

    def save_best(self, metrics: dict[str, Any], state: RunState) -> None:
        """Save the model, which has just reached its best ``score``."""


def check_output(out: str | Path, resume: bool, config_file: str) -> None:
    """Refuse an output directory that already holds a run, unless the run is to be resumed."""
    out = Path(out)
    if not resume and any((out / name).exists() for name in (CHECKPOINT_DIR, LOG_FILE, config_file)):
        raise OutputExistsError(f"'{out}' already holds a run; resume it or choose another output directory")


def _plain(config: dict[str, Any]) -> Any:
    """``config`` as it reads back from JSON (tuples become lists), for comparisons."""
    return json.loads(json.dumps(config))


class Engine:
    """Trains ``model`` with ``optimizer`` on a task; writes to ``out`` (see the module docstring).

    ``config`` is the task's full configuration: written to ``settings.config_file`` and compared
    on resume. The model is moved to the accelerator's device and the optimizer prepared; the
    rates of its parameter groups at construction are the schedule's base rates.
    """

    def __init__(self, settings: EngineSettings, out: str | Path, model: nn.Module,
                 optimizer: torch.optim.Optimizer, *, config: dict[str, Any], accelerator: Any = None) -> None:
        from accelerate import Accelerator

        self.settings, self.out, self.config = settings, Path(out), _plain(config)
        self.accelerator = accelerator or Accelerator()
        self.model = model.to(self.accelerator.device)
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.base_lrs = [group["lr"] for group in optimizer.param_groups]
        self.optimizer = self.accelerator.prepare(optimizer)
        self.state = RunState()
        self._started = time.time()

    def lr(self) -> float:
        """The learning rate of the next step (first parameter group)."""
        return self.base_lrs[0] * lr_factor(self.state.step, self.settings) * self.state.lr_scale

    # --- the loop -------------------------------------------------------------------------------
    def run(self, task: Task, *, resume: bool = False, stop_after: int | None = None) -> RunState:
        """Train to ``settings.steps`` (or ``stop_after`` more steps) unless early stopping ends
        the run first; ``resume`` continues from ``OUT/checkpoint`` (refused if there is none)."""
        lock = lock_directory(self.out) if self.accelerator.is_main_process else None
        try:
            return self._run(task, resume, stop_after)
        finally:
            if lock is not None:
                lock.release()

    def _run(self, task: Task, resume: bool, stop_after: int | None) -> RunState:
        from charwise.cli.progress import Progress, mode_of

        s, acc = self.settings, self.accelerator
        self._begin(resume, task)
        st = self.state
        end = s.steps if stop_after is None else min(s.steps, st.step + stop_after)
        # the one progress of every charwise command: steps done, steps/s, the time left, the loss
        progress = Progress(s.desc, "steps", s.steps, mode_of(s.progress) if acc.is_main_process else "none",
                            done=st.step)
        self._started = time.time()
        if s.eval_at_start and st.step == 0:
            self._evaluate(task, baseline=True)
        self.model.train()
        while st.step < end and not st.stopped:
            t0, c0 = time.time(), time.process_time()
            batch = task.batch(st.step)
            shard = list(batch[acc.process_index :: acc.num_processes]) or list(batch[:1])
            factor = lr_factor(st.step, s) * st.lr_scale
            for group, base in zip(self.optimizer.param_groups, self.base_lrs):
                group["lr"] = base * factor
            with acc.autocast():
                loss, parts = task.loss(self.model, shard)
            self.optimizer.zero_grad(set_to_none=True)
            acc.backward(loss)
            self._average_gradients()
            if s.grad_clip > 0:
                acc.clip_grad_norm_(self.params, s.grad_clip)
            self.optimizer.step()
            value = loss.item()
            st.step += 1
            st.epoch = -(-st.step // s.epoch_steps) if s.epoch_steps else 0
            st.loss_sum, st.loss_count = st.loss_sum + value, st.loss_count + 1
            st.train_seconds += time.time() - t0
            st.cpu_seconds += time.process_time() - c0
            progress.update(1, note=f"loss {value:.4f}")
            if s.log_every and st.step % s.log_every == 0:
                self._log({"step": st.step, "loss": value, **{k: float(v) for k, v in parts.items()},
                           "lr": self.lr(), "elapsed_s": round(time.time() - self._started, 1)})
            evaluate = (st.step == s.steps or (s.eval_every > 0 and st.step % s.eval_every == 0)
                        or (s.eval_each_epoch and s.epoch_steps > 0 and st.step % s.epoch_steps == 0))
            if evaluate:
                self._evaluate(task)
            if (evaluate or st.stopped or st.step == end
                    or (s.checkpoint_every > 0 and st.step % s.checkpoint_every == 0)):
                self._checkpoint(task)
        progress.close()
        acc.wait_for_everyone()
        return st

    # --- pieces of the loop ---------------------------------------------------------------------
    def _begin(self, resume: bool, task: Task) -> None:
        """Refuse or restore, then write the configuration (and drop log lines after the checkpoint)."""
        acc, ckpt = self.accelerator, self.out / CHECKPOINT_DIR
        check_output(self.out, resume, self.settings.config_file)
        saved = read_training_state(ckpt) if resume else None
        if resume and saved is None and not self._started_without_checkpoint():
            raise CheckpointError(f"nothing to resume: '{self.out}' has no checkpoint ({ckpt}); start the run "
                                  "without resuming" + (" in a new directory" if self.out.exists() and any(
                                      (self.out / n).exists() for n in (LOG_FILE, self.settings.config_file))
                                      else ""))
        if resume and saved is None and acc.is_main_process:
            print(f"charwise: '{self.out}' has no checkpoint yet (the run stopped before its first one): starting "
                  "it over from step 0", file=sys.stderr)
        if acc.is_main_process:
            remove_orphans(self.out)  # what a killed run left half-written (the lock keeps other runs out)
        self.state = RunState()
        if saved is not None:
            if _plain(saved.get("config") or {}) != self.config:
                raise ConfigError(f"'{ckpt}' was written by a run with a different configuration; resume it "
                                  "with its own configuration or choose another output directory")
            rng, task_states = load_training_state(ckpt, self.model, self.optimizer)
            restore_rng(rng[acc.process_index] if acc.process_index < len(rng) else rng[0])
            if hasattr(task, "load_state_dict"):
                if len(task_states) != acc.num_processes:
                    raise CheckpointError(f"'{ckpt}' was written by {len(task_states)} processes and its task "
                                          f"carries state per process; resume it with {len(task_states)}")
                task.load_state_dict(task_states[acc.process_index])
            self.state = RunState.from_dict(saved)
        acc.wait_for_everyone()  # every process has looked at OUT before the main one writes to it
        if acc.is_main_process:
            self.out.mkdir(parents=True, exist_ok=True)
            write_json(self.out / self.settings.config_file, self.config)
            if resume:
                self._trim_log(self.state.step if saved is not None else -1)
        acc.wait_for_everyone()

    def _started_without_checkpoint(self) -> bool:
        """Whether ``OUT`` holds a run of this configuration that stopped before its first
        checkpoint: resuming it is starting it over (a run of another configuration is refused)."""
        path = self.out / self.settings.config_file
        if not path.is_file():
            return False
        try:
            written = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            return False
        if _plain(written) != self.config:
            raise ConfigError(f"'{self.out}' holds a run with a different configuration and no checkpoint; resume "
                              "it with its own configuration or choose another output directory")
        return True

    def _trim_log(self, step: int) -> None:
        """Keep the log records up to ``step``: the steps after it will run again."""
        path = self.out / LOG_FILE
        if not path.exists():
            return
        keep = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                if json.loads(line).get("step", 0) <= step:
                    keep.append(line + "\n")
            except (json.JSONDecodeError, AttributeError):
                pass  # a line cut short by a kill
        write_text(path, "".join(keep))

    def _average_gradients(self) -> None:
        """Average the gradients over the processes; one that no process produced stays None."""
        acc = self.accelerator
        if acc.num_processes == 1 or not self.params:
            return
        grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in self.params]
        used = torch.tensor([float(p.grad is not None) for p in self.params], device=grads[0].device)
        flat = acc.reduce(torch.cat([g.reshape(-1).float() for g in grads] + [used]), reduction="sum")
        offset, used = 0, flat[-len(self.params):] > 0
        for p, was_used in zip(self.params, used.tolist()):
            n = p.numel()
            p.grad = (flat[offset : offset + n] / acc.num_processes).view_as(p).to(p.dtype) if was_used else None
            offset += n

    def _evaluate(self, task: Task, baseline: bool = False) -> None:
        """Validate on the main process, keep the best, decide early stopping; broadcast the outcome."""
        from accelerate.utils import broadcast_object_list

        s, st, acc = self.settings, self.state, self.accelerator
        outcome: dict[str, Any] | None = None
        if acc.is_main_process:
            metrics = task.validate()
            record: dict[str, Any] = {"step": st.step, **({"epoch": st.epoch} if s.epoch_steps else {}),
                                      "validation": metrics, "processes": acc.num_processes, "lr": self.lr()}
            if st.loss_count:
                record["train_loss"] = st.loss_sum / st.loss_count
            record["elapsed_s"] = round(time.time() - self._started, 1)
            if hasattr(task, "on_evaluation"):
                task.on_evaluation(record)
            outcome = {k: getattr(st, k) for k in ("best", "best_step", "best_epoch", "bad_evals", "stopped",
                                                   "lr_scale")}
            if not baseline:
                if s.schedule == "plateau" and metrics["score"] - st.best <= s.plateau_threshold:
                    outcome["lr_scale"] *= s.plateau_factor
                if metrics["score"] > st.best:
                    outcome.update(best=float(metrics["score"]), best_step=st.step, best_epoch=st.epoch, bad_evals=0)
                    task.save_best(metrics, st)
                else:
                    outcome["bad_evals"] += 1
                    outcome["stopped"] = s.patience > 0 and outcome["bad_evals"] >= s.patience
            record["lr"] = self.base_lrs[0] * lr_factor(st.step, s) * outcome["lr_scale"]  # after a plateau decay
            outcome["record"] = record
            append_jsonl(self.out / LOG_FILE, record)
        # Only the main process validated: the others learn the outcome (else, told nothing about
        # a stop, they would wait forever for it in the next step's gradient exchange).
        shared: dict[str, Any] = broadcast_object_list([outcome], from_process=0)[0]
        st.history.append(shared.pop("record"))
        for key, value in shared.items():
            setattr(st, key, value)
        if not baseline:
            st.loss_sum, st.loss_count = 0.0, 0
        self.model.train()

    def _checkpoint(self, task: Task) -> None:
        """Write ``OUT/checkpoint`` (main process) with every process's RNG state, what its task
        carries between steps (``task.state_dict()``, if the task has one) and a checksum of its
        weights (equal on every process while they stay in step)."""
        from accelerate.utils import gather_object

        acc = self.accelerator
        with torch.no_grad():
            checksum = float(torch.stack([p.double().sum() for p in self.params]).sum()) if self.params else 0.0
        carried = task.state_dict() if hasattr(task, "state_dict") else None
        mine = gather_object([{"rng": capture_rng(), "checksum": checksum, "task": carried}])
        if acc.is_main_process:
            state = {**self.state.to_dict(), "config": self.config, "processes": acc.num_processes,
                     "checksums": [m["checksum"] for m in mine]}
            save_training_state(self.out / CHECKPOINT_DIR, self.model, self.optimizer, state,
                                [m["rng"] for m in mine],
                                [m["task"] for m in mine] if carried is not None else None)

    def _log(self, record: dict[str, Any]) -> None:
        if self.accelerator.is_main_process:
            append_jsonl(self.out / LOG_FILE, record)
