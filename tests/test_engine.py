"""The training engine: schedules, early stopping, refusals, exact resume (in process, after a
SIGKILL, for the tagger and hybrid tuning) and a real 2-process tagger run."""

from __future__ import annotations

import json
import math
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from torch import nn

from charwise.corpora import TaggedSentence
from charwise.errors import ConfigError, OutputExistsError
from charwise.tagging import Tagger, TaggerConfig, train_tagger
from charwise.tagging.data import TaskData, TaskSpec
from charwise.training.approximation import lr_factor as approximation_lr_factor
from charwise.training.engine import CHECKPOINT_DIR, LOG_FILE, Engine, EngineSettings, RunState, lr_factor


# --- a toy task ------------------------------------------------------------------------------------
class ToyTask:
    """Regression on seeded random points; ``scores`` scripts the validation scores."""

    def __init__(self, scores: list[float] | None = None, seed: int = 0, crash_at: int | None = None) -> None:
        self.scores, self.seed, self.crash_at = scores, seed, crash_at
        self.saved: list[int] = []
        self.lrs: list[list[float]] = []
        self.engine: Engine | None = None
        self.validation = self.batch(-1)

    def batch(self, step: int) -> list[tuple[list[float], float]]:
        rng = random.Random(f"{self.seed}-{step}")
        points = [[rng.uniform(-1, 1) for _ in range(4)] for _ in range(8)]
        return [(x, math.sin(sum(x))) for x in points]

    def loss(self, model: nn.Module, shard: list[tuple[list[float], float]]) -> tuple[torch.Tensor, dict]:
        if self.engine is not None:
            self.lrs.append([g["lr"] for g in self.engine.optimizer.param_groups])
            if self.crash_at is not None and self.engine.state.step == self.crash_at:
                raise RuntimeError("killed")
        mse = self.mse(model, shard)
        return mse, {"mse": mse.detach()}

    @staticmethod
    def mse(model: nn.Module, examples: list[tuple[list[float], float]]) -> torch.Tensor:
        x = torch.tensor([p for p, _ in examples])
        y = torch.tensor([t for _, t in examples])
        return ((model(x).squeeze(-1) - y) ** 2).mean()

    def validate(self) -> dict[str, float]:
        if self.scores is not None:
            return {"score": self.scores.pop(0)}
        assert self.engine is not None
        self.engine.model.eval()
        with torch.no_grad():
            return {"score": -float(self.mse(self.engine.model, self.validation))}

    def save_best(self, metrics: dict, state: RunState) -> None:
        self.saved.append(state.step)


def toy_model(seed: int = 0) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.3), nn.Tanh(), nn.Linear(8, 1))


def toy_engine(out: Path, task: ToyTask, config: dict | None = None, **settings) -> Engine:
    model = toy_model()
    optimizer = torch.optim.AdamW([{"params": model[0].parameters(), "lr": 1e-2},
                                   {"params": model[3].parameters(), "lr": 1e-3}], weight_decay=0.01)
    params = dict(steps=10, warmup_steps=2, eval_every=5, checkpoint_every=3, progress=False)
    params.update(settings)
    engine = Engine(EngineSettings(**params), out, model, optimizer, config=config or {"lr": 1})
    task.engine = engine
    return engine


def log_of(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / LOG_FILE).read_text().splitlines()]


def without_times(records: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "elapsed_s"} for r in records]


# --- schedules -----------------------------------------------------------------------------------
def test_cosine_schedule_at_known_steps():
    s = EngineSettings(steps=110, warmup_steps=10, min_lr_ratio=0.1)
    assert lr_factor(0, s) == pytest.approx(0.1)  # (step + 1) / warmup
    assert lr_factor(4, s) == pytest.approx(0.5)
    assert lr_factor(9, s) == pytest.approx(1.0)
    assert lr_factor(10, s) == pytest.approx(1.0)  # decay starts
    assert lr_factor(60, s) == pytest.approx(0.1 + 0.9 * 0.5)  # half-way: cos(pi / 2) = 0
    assert lr_factor(110, s) == pytest.approx(0.1)
    assert lr_factor(500, s) == pytest.approx(0.1)  # never below the floor
    # The approximation trainer's public lr_factor is the same function.
    cfg = type("Cfg", (), {"steps": 110, "warmup_steps": 10, "min_lr_ratio": 0.1})
    assert all(approximation_lr_factor(k, cfg) == lr_factor(k, s) for k in range(120))


def test_inverse_sqrt_schedule_at_known_steps():
    s = EngineSettings(steps=1000, warmup_steps=100, schedule="inverse_sqrt")
    assert lr_factor(0, s) == pytest.approx(0.01)  # linear warm-up
    assert lr_factor(99, s) == pytest.approx(1.0)  # the peak
    assert lr_factor(399, s) == pytest.approx(0.5)  # sqrt(100 / 400)
    assert lr_factor(9999, s) == pytest.approx(0.1)
    assert all(lr_factor(k + 1, s) < lr_factor(k, s) for k in range(100, 900))


def test_linear_schedule_is_the_transformers_one_step_for_step():
    from transformers import get_linear_schedule_with_warmup

    total, warmup = 37, math.ceil(0.1 * 37)
    s = EngineSettings(steps=total, warmup_steps=warmup, schedule="linear")
    assert [lr_factor(k, s) for k in (0, 2, 4, 37)] == [0.0, 0.5, 1.0, 0.0]
    assert lr_factor(20, s) == pytest.approx((37 - 20) / (37 - 4))
    base = 3e-4
    optimizer = torch.optim.AdamW([nn.Parameter(torch.zeros(1))], lr=base)
    scheduler = get_linear_schedule_with_warmup(optimizer, warmup, total)
    for step in range(total + 3):
        assert optimizer.param_groups[0]["lr"] == base * lr_factor(step, s), step  # bit for bit
        optimizer.step()
        scheduler.step()


def test_engine_applies_the_schedule_to_every_group(tmp_path):
    task = ToyTask()
    engine = toy_engine(tmp_path, task, steps=6, warmup_steps=2)
    engine.run(task)
    expected = [[1e-2 * lr_factor(k, engine.settings), 1e-3 * lr_factor(k, engine.settings)] for k in range(6)]
    assert task.lrs == expected


def test_every_parameter_gets_a_gradient(tmp_path):
    task = ToyTask()
    engine = toy_engine(tmp_path, task, steps=1)
    engine.run(task)
    for name, p in engine.model.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all() and p.grad.abs().sum() > 0, name


def test_every_encoder_parameter_gets_a_gradient_through_the_hybrid_model(tiny_bert_dir, make_encoder, tmp_path):
    """Hybrid tuning reaches its encoder only through the hybrid model (never its forward)."""
    from charwise.teachers import Teacher
    from charwise.training.tuning import HybridTuner, TuneConfig

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(f"the weather was beautiful number{i}\nplease remember the reservation\n"
                              for i in range(20)), encoding="utf-8")
    teacher = Teacher.load(str(tiny_bert_dir))
    config = TuneConfig(corpora=[str(corpus)], teacher=teacher.name, steps=1, batch_size=8, warmup_steps=1,
                        eval_every=10, validation_sentences=4, typo_rate=1.0, clean_share=0.0)
    encoder = make_encoder("cnn", info=teacher.describe(), dim=teacher.dim)
    tuner = HybridTuner(config, tmp_path / "run", teacher=teacher, encoder=encoder, progress=False)
    tuner.tune()
    for name, p in encoder.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name


# --- early stopping, refusals, resume --------------------------------------------------------------
def test_early_stopping_after_patience_evaluations(tmp_path):
    task = ToyTask(scores=[0.1, 0.3, 0.2, 0.25, 0.9])
    state = toy_engine(tmp_path, task, steps=10, eval_every=1, patience=2).run(task)
    assert state.stopped and state.step == 4  # 0.2 and 0.25 do not beat 0.3
    assert (state.best, state.best_step, state.bad_evals) == (0.3, 2, 2)
    assert task.saved == [1, 2]
    records = log_of(tmp_path)
    assert [r["validation"]["score"] for r in records] == [0.1, 0.3, 0.2, 0.25] and records == state.history
    saved = json.loads((tmp_path / CHECKPOINT_DIR / "state.json").read_text())
    assert saved["step"] == 4 and saved["stopped"] and saved["best"] == 0.3
    # Resuming a stopped run does not train further.
    again = ToyTask(scores=[1.0])
    assert toy_engine(tmp_path, again, steps=10, eval_every=1, patience=2).run(again, resume=True).step == 4


def test_refuses_an_existing_run_and_a_changed_configuration(tmp_path):
    (tmp_path / "notes.txt").write_text("not a run")  # other files do not make a run
    task = ToyTask()
    toy_engine(tmp_path, task).run(task, stop_after=3)
    with pytest.raises(OutputExistsError, match="already holds a run") as info:
        toy_engine(tmp_path, ToyTask()).run(ToyTask())
    assert isinstance(info.value, FileExistsError) and "--" not in str(info.value)
    with pytest.raises(ConfigError, match="different configuration"):
        toy_engine(tmp_path, ToyTask(), config={"lr": 2}).run(ToyTask(), resume=True)
    resumed = ToyTask()
    assert toy_engine(tmp_path, resumed).run(resumed, resume=True).step == 10


def test_resume_after_a_crash_matches_an_uninterrupted_run(tmp_path):
    """Dropout (RNG), two learning rates, the schedule, the log: all as if nothing had happened."""
    full_task = ToyTask()
    full = toy_engine(tmp_path / "full", full_task, log_every=1)
    full.run(full_task)

    crashing = ToyTask(crash_at=4)  # the last checkpoint is at step 3; step 4 was logged
    with pytest.raises(RuntimeError, match="killed"):
        toy_engine(tmp_path / "cut", crashing, log_every=1).run(crashing)
    assert json.loads((tmp_path / "cut" / CHECKPOINT_DIR / "state.json").read_text())["step"] == 3
    assert max(r["step"] for r in log_of(tmp_path / "cut")) == 4
    task = ToyTask()
    resumed = toy_engine(tmp_path / "cut", task, log_every=1)
    state = resumed.run(task, resume=True)
    assert state.step == 10
    for (name, a), b in zip(full.model.state_dict().items(), resumed.model.state_dict().values()):
        assert torch.equal(a, b), name
    assert without_times(log_of(tmp_path / "cut")) == without_times(log_of(tmp_path / "full"))
    assert without_times(state.history) == without_times(full.state.history)


# --- the tagger ----------------------------------------------------------------------------------
def toy_sentences(n: int, seed: int) -> list[TaggedSentence]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words, tags = [], []
        for _ in range(rng.randint(1, 3)):
            words += [rng.choice(["the", "a"]), rng.choice(["cat", "dog", "tokenization"]),
                      rng.choice(["runs", "eats"])]
            tags += ["DET", "NOUN", "VERB"]
        out.append(TaggedSentence(words, tags, {}))
    return out


TOY = TaskData(TaskSpec("toy", {}, "conll", "accuracy"), toy_sentences(32, 0), toy_sentences(8, 1),
               toy_sentences(8, 2))


def test_tagger_resume_gives_the_weights_of_an_uninterrupted_run(tmp_path, tiny_bert_dir):
    # Default dropout: the RNG state must come back with the checkpoint.
    config = TaggerConfig(task="toy", teacher=str(tiny_bert_dir), policy="none", epochs=3, batch_size=8, lr=3e-3,
                          head_lr=2e-2, patience=5)
    full = train_tagger(config, tmp_path / "full", data=TOY, progress=False)

    def killed_in_epoch_2(message: str) -> None:
        if message.startswith("epoch 2"):
            raise RuntimeError("killed")

    with pytest.raises(RuntimeError, match="killed"):
        train_tagger(config, tmp_path / "cut", data=TOY, progress=False, log=killed_in_epoch_2)
    assert json.loads((tmp_path / "cut" / CHECKPOINT_DIR / "state.json").read_text())["step"] == 4
    with pytest.raises(OutputExistsError):
        train_tagger(config, tmp_path / "cut", data=TOY, progress=False)
    with pytest.raises(ConfigError):
        train_tagger(replace(config, lr=1e-3), tmp_path / "cut", data=TOY, progress=False, resume=True)
    resumed = train_tagger(config, tmp_path / "cut", data=TOY, progress=False, resume=True)

    assert (resumed.steps, resumed.epochs_run, resumed.best_epoch) == (full.steps, full.epochs_run, full.best_epoch)
    assert resumed.best_dev == full.best_dev
    assert without_times(resumed.history) == without_times(full.history)
    for name in ("checkpoint/model.safetensors", "tagger/tagger.safetensors"):
        a, b = load_file(str(tmp_path / "full" / name)), load_file(str(tmp_path / "cut" / name))
        assert a.keys() == b.keys()
        for key in a:
            assert torch.equal(a[key], b[key]), (name, key)
    log = log_of(tmp_path / "cut")
    assert [r["epoch"] for r in log] == [1, 2, 3] and all("dev" in r and "train_loss" in r for r in log)


@pytest.mark.parametrize("layout", [dict(pool="gru"), dict(pool="gru", s2w_layers=1), dict(head="bilstm")])
def test_tagger_with_cudnn_flat_rnn_weights_checkpoints_resumes_saves_and_loads(tmp_path, tiny_bert_dir, layout,
                                                                               cudnn_flat_rnn_weights):
    # The GRU merge and the BiLSTM head in cuDNN's layout (every weight a view of one buffer, as on
    # a GPU; emulated on the CPU): checkpoints, resume, the saved tagger and loading it back.
    config = TaggerConfig(task="toy", teacher=str(tiny_bert_dir), policy="none", epochs=2, batch_size=8, lr=3e-3,
                          head_lr=2e-2, patience=5, **layout)

    def killed_in_epoch_2(message: str) -> None:
        if message.startswith("epoch 2"):
            raise RuntimeError("killed")

    with pytest.raises(RuntimeError, match="killed"):
        train_tagger(config, tmp_path / "cut", data=TOY, progress=False, log=killed_in_epoch_2)
    result = train_tagger(config, tmp_path / "cut", data=TOY, progress=False, resume=True)
    assert result.epochs_run == 2
    loaded = Tagger.from_pretrained(tmp_path / "cut")
    assert cudnn_flat_rnn_weights(loaded)
    saved = load_file(str(tmp_path / "cut" / "tagger" / "tagger.safetensors"))
    own = {f"{prefix}.{k}": v for prefix, module in loaded.own_modules().items()
           for k, v in module.state_dict().items()}
    assert saved.keys() == own.keys() and any("weight_hh" in k for k in own)
    for key, tensor in saved.items():
        assert torch.equal(tensor, own[key]), key


# --- killed processes ----------------------------------------------------------------------------
def kill_then_resume(command, tmp_path: Path, kill_at: int, total: int) -> None:
    """Run ``command(out)`` to the end and, beside it, a second copy that is SIGKILLed once its
    checkpoint reaches ``kill_at`` steps, then resumed: both must end with the same weights and log."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    full = subprocess.Popen(command(tmp_path / "full"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    victim = subprocess.Popen(command(tmp_path / "killed"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=env)
    try:
        state = tmp_path / "killed" / CHECKPOINT_DIR / "state.json"
        deadline = time.time() + 240
        while time.time() < deadline and not (state.exists() and json.loads(state.read_text())["step"] >= kill_at):
            time.sleep(0.02)
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        assert json.loads(state.read_text())["step"] < total, "the run finished before it could be killed"
        subprocess.run(command(tmp_path / "killed") + ["--resume"], check=True, capture_output=True, timeout=300,
                       env=env)
        assert full.wait(timeout=300) == 0, full.stderr.read().decode()[-2000:] if full.stderr else ""
    finally:
        for proc in (full, victim):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert json.loads(state.read_text())["step"] == total
    weights = [load_file(str(tmp_path / run / CHECKPOINT_DIR / "model.safetensors")) for run in ("full", "killed")]
    assert weights[0].keys() == weights[1].keys()
    for name, tensor in weights[0].items():
        torch.testing.assert_close(weights[1][name], tensor, rtol=0, atol=0, msg=name)
    logs = [without_times(log_of(tmp_path / run)) for run in ("full", "killed")]
    assert logs[0] == logs[1]


@pytest.mark.slow
def test_hybrid_tuning_survives_a_kill(tmp_path, tiny_bert_dir, make_encoder):
    from charwise.teachers import Teacher

    teacher = Teacher.load(str(tiny_bert_dir))
    make_encoder("cnn", info=teacher.describe(), dim=teacher.dim).save_pretrained(tmp_path / "enc")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(f"our accommodation looked wonderful number{i}\nan unexpected announcement\n"
                              for i in range(30)), encoding="utf-8")

    def command(out: Path) -> list[str]:
        return [sys.executable, "-m", "charwise.cli", "tune", str(corpus), "--out", str(out), "--teacher",
                str(tiny_bert_dir), "--encoder", str(tmp_path / "enc"), "--steps", "40", "--batch-size", "8",
                "--eval-every", "5", "--quiet"]

    kill_then_resume(command, tmp_path, kill_at=10, total=40)


@pytest.mark.slow
def test_tagger_survives_a_kill(tmp_path, tiny_bert_dir):
    def command(out: Path) -> list[str]:
        return [sys.executable, "-m", "charwise.cli", "tag", "train", "--task", "wnut17", "--teacher",
                str(tiny_bert_dir), "--train-sentences", "32", "--dev-sentences", "8", "--batch-size", "8",
                "--epochs", "20", "--patience", "100", "--out", str(out), "--quiet", "--no-test"]

    kill_then_resume(command, tmp_path, kill_at=8, total=20 * 4)


@pytest.mark.slow
def test_two_process_tagger(tmp_path, tiny_bert_dir, two_cpu_processes):
    """`charwise tag train` on 2 processes (gloo): both stay in step (equal weight checksums in
    every checkpoint), and the finished run resumes as a no-op on 2 processes."""
    out = tmp_path / "run"
    args = ["charwise.cli", "tag", "train", "--task", "wnut17", "--teacher", str(tiny_bert_dir),
            "--train-sentences", "32", "--dev-sentences", "8", "--epochs", "2", "--lr", "1e-3",
            "--out", str(out), "--quiet", "--no-test"]
    result = two_cpu_processes(args)
    assert result.returncode == 0, result.stderr[-2000:]
    done = json.loads((out / "result.json").read_text())
    assert done["processes"] == 2 and done["steps"] == 2 * math.ceil(32 / 16)
    log = log_of(out)
    assert [r["processes"] for r in log] == [2, 2] and [r["step"] for r in log] == [2, 4]
    state = json.loads((out / CHECKPOINT_DIR / "state.json").read_text())
    assert state["processes"] == 2 and len(state["checksums"]) == 2
    assert state["checksums"][0] == state["checksums"][1], "the processes' weights drifted apart"
    weights = (out / CHECKPOINT_DIR / "model.safetensors").read_bytes()
    result = two_cpu_processes([*args, "--resume"])
    assert result.returncode == 0, result.stderr[-2000:]
    assert log_of(out) == log and (out / CHECKPOINT_DIR / "model.safetensors").read_bytes() == weights
