"""The character-encoder interface, its registry, and safe (safetensors + JSON) persistence."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, ClassVar

import torch
from safetensors.torch import load_file, save_file
from torch import nn

from charwise.charset import PAD, CharVocab
from charwise.errors import CheckpointError

FORMAT = "charwise-encoder"
FORMAT_VERSION = 1
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"

ENCODERS: dict[str, type["CharEncoder"]] = {}


def register(name: str):
    """Class decorator adding an encoder to the registry under ``name``."""

    def wrap(cls: type["CharEncoder"]) -> type["CharEncoder"]:
        cls.kind = name
        ENCODERS[name] = cls
        return cls

    return wrap


class CharEncoder(nn.Module):
    """Maps character sequences to vectors in a teacher's embedding space.

    Subclasses define ``Config`` (a dataclass with at least ``dim``), ``PRESETS`` and
    :meth:`encode_ids`. Everything else (string handling, batching, saving, loading) lives here.
    """

    kind: ClassVar[str] = ""
    Config: ClassVar[type]
    PRESETS: ClassVar[dict[str, dict[str, Any]]] = {}

    def __init__(self, config: Any, charset: CharVocab, teacher_info: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.config = config
        self.charset = charset
        self.teacher_info = dict(teacher_info or {})
        self._teacher = None

    # --- the part each encoder writes ---------------------------------------------------------
    def encode_ids(self, char_ids: torch.Tensor) -> torch.Tensor:
        """``(n, L)`` character ids (0 = padding) -> ``(n, dim)`` vectors."""
        raise NotImplementedError

    def init_output(self, mean: torch.Tensor, row_norm: float) -> None:
        """Start predictions at the table's mean row with the table's typical norm.

        A fresh LayerNorm or projection otherwise outputs vectors ~sqrt(d) long, far from rows
        of norm ~1, and the first hundreds of steps only shrink them.
        """
        norm = getattr(self, "norm", None)
        if isinstance(norm, nn.LayerNorm):
            with torch.no_grad():
                norm.weight.fill_(row_norm / self.dim**0.5)
                norm.bias.copy_(mean)

    def forward(self, char_ids: torch.Tensor) -> torch.Tensor:
        if char_ids.ndim != 2:
            raise ValueError(f"expected (batch, chars) ids, got shape {tuple(char_ids.shape)}")
        return self.encode_ids(char_ids)

    # --- convenience --------------------------------------------------------------------------
    @property
    def dim(self) -> int:
        return int(self.config.dim)

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    @staticmethod
    def lengths(char_ids: torch.Tensor) -> torch.Tensor:
        return (char_ids != PAD).sum(dim=1)

    def embed(
        self, words: list[str], *, pieces: bool = False, batch_size: int = 1024, grad: bool = False,
        progress: bool = False,
    ) -> torch.Tensor:
        """Vectors for ``words`` in the teacher's space, shape ``(n, dim)``.

        ``pieces=True`` embeds them as continuation pieces (``##ing``) instead of whole words.
        Strings are batched by length so that padding stays small; order is preserved.
        """
        if isinstance(words, str):
            raise TypeError("embed() takes a list of strings, not a single string")
        n = len(words)
        out = torch.empty((n, self.dim), device=self.device)
        if n == 0:
            return out
        order = sorted(range(n), key=lambda i: len(words[i]))
        was_training = self.training
        self.eval()
        ctx = torch.enable_grad() if grad else torch.inference_mode()
        try:
            with ctx:
                starts = range(0, n, batch_size)
                if progress:
                    from tqdm.auto import tqdm

                    starts = tqdm(starts, desc="embed", unit="batch")
                for start in starts:
                    idx = order[start : start + batch_size]
                    ids = self.charset.batch([words[i] for i in idx], not pieces).to(self.device)
                    out[torch.tensor(idx, device=self.device)] = self(ids).float()
        finally:
            self.train(was_training)
        return out

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    @property
    def teacher(self):
        """The teacher this encoder was trained for (loaded on first access)."""
        if self._teacher is None:
            from charwise.teachers import Teacher

            name = self.teacher_info.get("name")
            if not name:
                raise RuntimeError("this encoder does not record its teacher")
            teacher = Teacher.load(name)
            check_teacher(self, teacher)
            self._teacher = teacher
        return self._teacher

    def attach_teacher(self, teacher) -> None:
        check_teacher(self, teacher)
        self._teacher = teacher

    # --- persistence --------------------------------------------------------------------------
    def save_pretrained(self, directory: str | os.PathLike, extra: dict[str, Any] | None = None) -> Path:
        """Write ``config.json`` + ``model.safetensors`` atomically (temp dir, then rename)."""
        directory = Path(directory)
        directory.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
        try:
            meta = {
                "format": FORMAT,
                "format_version": FORMAT_VERSION,
                "encoder": self.kind,
                "config": dataclasses.asdict(self.config),
                "charset": self.charset.to_dict(),
                "teacher": self.teacher_info,
                "parameters": self.num_parameters(),
            }
            if extra:
                meta.update(extra)
            (tmp / CONFIG_FILE).write_text(json.dumps(meta, indent=2, ensure_ascii=False))
            state = {k: v.detach().cpu().contiguous() for k, v in self.state_dict().items()}
            save_file(state, str(tmp / WEIGHTS_FILE), metadata={"format": FORMAT})
            replace_directory(tmp, directory)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return directory

    @classmethod
    def from_pretrained(cls, directory: str | os.PathLike, map_location: str | torch.device = "cpu") -> "CharEncoder":
        """Load an encoder saved by :meth:`save_pretrained`, checking every tensor's shape."""
        directory = Path(directory)
        cfg_path, weights_path = directory / CONFIG_FILE, directory / WEIGHTS_FILE
        if not cfg_path.is_file() or not weights_path.is_file():
            raise CheckpointError(f"'{directory}' is not a charwise encoder (need {CONFIG_FILE} and {WEIGHTS_FILE})")
        try:
            meta = json.loads(cfg_path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise CheckpointError(f"'{cfg_path}' is not valid JSON: {e}") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise CheckpointError(f"'{directory}' is not a charwise encoder (config format is not '{FORMAT}')")
        kind = meta.get("encoder")
        if kind not in ENCODERS:
            raise CheckpointError(f"unknown encoder type {kind!r} in '{cfg_path}' (known: {sorted(ENCODERS)})")
        enc_cls = ENCODERS[kind]
        if cls is not CharEncoder and not issubclass(enc_cls, cls):
            raise CheckpointError(f"'{directory}' holds a {kind} encoder, not a {cls.__name__}")
        try:
            config = enc_cls.Config(**meta["config"])
            charset = CharVocab.from_dict(meta["charset"])
        except (TypeError, KeyError) as e:
            raise CheckpointError(f"bad encoder config in '{cfg_path}': {e}") from None
        if getattr(config, "num_chars", charset.size) != charset.size:
            raise CheckpointError(
                f"'{cfg_path}' is inconsistent: charset has {charset.size} ids but the encoder expects {config.num_chars}"
            )
        model = enc_cls(config, charset, meta.get("teacher"))
        try:
            state = load_file(str(weights_path), device=str(map_location))
        except Exception as e:  # safetensors raises several types for corrupt files
            raise CheckpointError(f"cannot read weights '{weights_path}': {e}") from None
        expected = model.state_dict()
        missing = sorted(set(expected) - set(state))
        unexpected = sorted(set(state) - set(expected))
        if missing or unexpected:
            raise CheckpointError(
                f"weights in '{weights_path}' do not match a {kind} encoder: missing {missing[:5]}, unexpected {unexpected[:5]}"
            )
        for name, tensor in state.items():
            if tuple(tensor.shape) != tuple(expected[name].shape):
                raise CheckpointError(
                    f"shape mismatch for '{name}': checkpoint {tuple(tensor.shape)} vs config {tuple(expected[name].shape)}"
                )
        model.load_state_dict(state)
        model.training_info = meta.get("training", {})
        return model.eval()


def check_teacher(encoder: CharEncoder, teacher) -> None:
    """Refuse a teacher whose dimension or vocabulary differs from the one the encoder learned."""
    if teacher.dim != encoder.dim:
        raise ValueError(f"dimension mismatch: encoder outputs {encoder.dim}, teacher '{teacher.name}' has {teacher.dim}")
    want = encoder.teacher_info.get("vocab_hash")
    if want and want != teacher.vocab_hash:
        raise ValueError(
            f"vocabulary mismatch: encoder was trained for vocab {want}, teacher '{teacher.name}' has {teacher.vocab_hash}"
        )


def replace_directory(src: Path, dst: Path) -> None:
    """Move ``src`` to ``dst`` so that ``dst`` is never half-written (old copy removed last)."""
    dst = Path(dst)
    # mkdtemp creates 0700 directories; outputs are meant to be shared like any saved model.
    os.chmod(src, 0o755)
    for child in Path(src).iterdir():
        if child.is_file():
            os.chmod(child, 0o644)
    old = None
    if dst.exists():
        old = dst.with_name(f".{dst.name}.old-{os.getpid()}")
        os.replace(dst, old)
    os.replace(src, dst)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def build_encoder(
    kind: str, charset: CharVocab, dim: int, preset: str | None = None, teacher_info: dict | None = None, **overrides: Any
) -> CharEncoder:
    """Instantiate a registered encoder from a preset name and keyword overrides."""
    if kind not in ENCODERS:
        raise ValueError(f"unknown encoder '{kind}' (known: {sorted(ENCODERS)})")
    cls = ENCODERS[kind]
    params: dict[str, Any] = {}
    if preset is not None:
        if preset not in cls.PRESETS:
            raise ValueError(f"unknown preset '{preset}' for {kind} (known: {sorted(cls.PRESETS)})")
        params.update(cls.PRESETS[preset])
    params.update(overrides)
    params["dim"] = dim
    params["num_chars"] = charset.size
    return cls(cls.Config(**params), charset, teacher_info)
