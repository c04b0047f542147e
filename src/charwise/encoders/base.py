"""The character-encoder interface and its HF-native files (the kinds by name: :mod:`charwise.encoders.registry`).

A :class:`CharEncoder` is a ``transformers.PreTrainedModel`` whose config is a
:class:`CharEncoderConfig` (``model_type = "charwise-encoder"``): the encoder type, its architecture
dataclass as a dict, the charset and the teacher's identity. Both are registered with ``AutoConfig``
/ ``AutoModel`` when this module is imported, so after ``import charwise``::

    transformers.AutoModel.from_pretrained("path/to/encoder")   # a charwise encoder, no remote code

A saved encoder is a directory of three files:

* ``config.json``: the :class:`CharEncoderConfig` (what is needed to rebuild the module, nothing else);
* ``model.safetensors``: the weights (safetensors only, never pickle);
* ``training.json`` (optional): the training record (held-out word ids, settings, metrics, step),
  available as ``encoder.training_info`` after loading.

Each encoder module keeps its architecture ``@dataclass`` at its top (``encoder.arch`` at run time;
``encoder.config`` is the HF config). Directories written by charwise 0.1 (one ``config.json`` with
``"format": "charwise-encoder"`` and the training record inside) still load.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any, ClassVar

import torch
from torch import nn
from transformers import AutoConfig, AutoModel, PretrainedConfig, PreTrainedModel

from charwise.charset import PAD, CharVocab
from charwise.encoders.manifold import ManifoldConfig, RowIndex, project
from charwise.encoders.registry import ENCODERS
from charwise.errors import CheckpointError, ConfigError
from charwise.model_files import (  # noqa: F401 (CONFIG_FILE ... re-exported)
    CONFIG_FILE,
    TRAINING_FILE,
    WEIGHTS_FILE,
    load_checked_weights,
    read_json_file,
    save_model_directory,
)

MODEL_TYPE = "charwise-encoder"
FORMAT = MODEL_TYPE  # the ``"format"`` of a charwise 0.1 config.json


class CharEncoderConfig(PretrainedConfig):
    """The HF config of a character encoder.

    Args:
        encoder_type: the registered encoder (``cnn``, ``transformer``, ``bilstm``).
        arch: that encoder's architecture dataclass as a dict (``dataclasses.asdict``).
        charset: the character vocabulary (``CharVocab.to_dict()``).
        teacher: the teacher's identity (``Teacher.describe()``: name, vocab_hash, dim, family).
        manifold: the projection onto the teacher's rows applied by ``embed``
            (``ManifoldConfig.to_dict()``, :mod:`charwise.encoders.manifold`), or None for raw vectors.
    """

    model_type = MODEL_TYPE

    def __init__(self, encoder_type: str = "cnn", arch: dict[str, Any] | None = None,
                 charset: dict[str, Any] | None = None, teacher: dict[str, Any] | None = None,
                 manifold: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self.encoder_type = encoder_type
        self.arch = dict(arch or {})
        self.charset = dict(charset or {})
        self.teacher = dict(teacher or {})
        self.manifold = dict(manifold) if manifold else None
        super().__init__(**kwargs)


class CharEncoder(PreTrainedModel):
    """Maps character sequences to vectors in a teacher's embedding space.

    Subclasses define ``Config`` (the architecture dataclass, with at least ``dim`` and
    ``num_chars``), ``PRESETS`` and :meth:`encode_ids`, build their modules from ``self.arch`` and
    end ``__init__`` with ``self.post_init()``. Everything else (string handling, batching, saving,
    loading) lives here. Build one with :func:`build_encoder`, load one with :meth:`from_pretrained`.
    """

    config_class = CharEncoderConfig
    main_input_name = "char_ids"
    kind: ClassVar[str] = ""
    Config: ClassVar[type]
    PRESETS: ClassVar[dict[str, dict[str, Any]]] = {}

    def __init__(self, config: CharEncoderConfig) -> None:
        if not self.kind:
            raise TypeError("CharEncoder is abstract: use build_encoder(), ENCODERS[kind](config) or from_pretrained()")
        super().__init__(config)
        if config.encoder_type != self.kind:
            raise ConfigError(f"a {self.kind} encoder cannot be built from a config for {config.encoder_type!r}")
        self.arch = self.Config(**config.arch)  # the architecture dataclass of the encoder's module
        config.arch = dataclasses.asdict(self.arch)  # complete, with the defaults filled in
        self.charset = CharVocab.from_dict(config.charset)
        if self.arch.num_chars != self.charset.size:
            raise ValueError(f"the charset has {self.charset.size} ids but the encoder expects {self.arch.num_chars}")
        self.training_info: dict[str, Any] = {}
        self._teacher = None
        self.manifold = ManifoldConfig.from_dict(config.manifold) if config.manifold else None
        self._row_indexes: dict[bool, RowIndex] = {}  # pieces -> candidate rows of the attached teacher

    def _init_weights(self, module: nn.Module) -> None:
        """No HF re-initialisation: PyTorch's defaults and each encoder's own choices (the highway
        gate bias, :meth:`init_output`) are the initialisation."""

    @classmethod
    def _from_config(cls, config: CharEncoderConfig, **kwargs: Any) -> "CharEncoder":
        # AutoModel.from_config(config) reaches the base class: build the registered encoder.
        if cls is CharEncoder:
            return _encoder_class(config.encoder_type, "config")._from_config(config, **kwargs)
        return super()._from_config(config, **kwargs)

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
        return int(self.arch.dim)

    @property
    def teacher_info(self) -> dict[str, Any]:
        """The teacher's identity recorded in the config (name, vocab_hash, dim, family)."""
        return self.config.teacher

    @teacher_info.setter
    def teacher_info(self, info: dict[str, Any]) -> None:
        self.config.teacher = dict(info or {})

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    @staticmethod
    def lengths(char_ids: torch.Tensor) -> torch.Tensor:
        return (char_ids != PAD).sum(dim=1)

    def set_manifold(self, manifold: ManifoldConfig | None) -> None:
        """Turn the projection onto the teacher's rows on (with these parameters) or off (None);
        saved with the encoder."""
        self.manifold = manifold
        self.config.manifold = manifold.to_dict() if manifold is not None else None

    def row_index(self, pieces: bool = False) -> RowIndex:
        """The teacher's candidate rows for whole words (or ``pieces``): its ``normal`` rows of that kind."""
        # Built as ordinary tensors even when first asked for in inference mode: the cached index
        # is used by training too (projected vectors are differentiable).
        with torch.inference_mode(False):
            if pieces not in self._row_indexes:
                teacher = self.teacher
                kind = teacher.word_start_mask if not pieces else ~teacher.word_start_mask
                self._row_indexes[pieces] = RowIndex(teacher.embeddings, teacher.normal_mask & kind)
            return self._row_indexes[pieces].to(self.device)

    def embed(
        self, words: list[str], *, pieces: bool = False, batch_size: int = 1024, grad: bool = False,
        progress: bool = False, manifold: bool | None = None,
    ) -> torch.Tensor:
        """Vectors for ``words`` in the teacher's space, shape ``(n, dim)``.

        ``pieces=True`` embeds them as continuation pieces (``##ing``) instead of whole words.
        ``manifold``: project onto the teacher's rows (:mod:`charwise.encoders.manifold`); by
        default when the encoder has a tuned projection (``self.manifold``); ``False`` gives the raw
        character vectors (the module's ``forward``).
        Without ``grad`` the vectors are computed in eval mode and inference mode (the module's mode
        is restored after). With ``grad`` they are differentiable and the module keeps its mode: a
        caller training the encoder gets its dropout, and cuDNN's RNN kernels (on CUDA) can only run
        the backward pass of a forward made in training mode.
        Strings are batched by length so that padding stays small; order is preserved.
        """
        if isinstance(words, str):
            raise TypeError("embed() takes a list of strings, not a single string")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"batch_size must be a positive integer, got {batch_size!r}")
        settings = self.manifold if manifold is not False else None
        if manifold and settings is None:
            raise ConfigError("this encoder has no manifold projection: tune one with charwise.training.manifold")
        index = (self.row_index(pieces), settings) if settings is not None else None
        n = len(words)
        out = torch.empty((n, self.dim), device=self.device)
        if n == 0:
            return out
        order = sorted(range(n), key=lambda i: len(words[i]))
        was_training = self.training
        if not grad:
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
                    vectors = self(ids).float()
                    if index is not None:
                        vectors = project(vectors, *index)
                    out[torch.tensor(idx, device=self.device)] = vectors
        finally:
            self.train(was_training)
        return out

    def num_parameters(self, only_trainable: bool = False, exclude_embeddings: bool = False) -> int:
        """Number of parameters (``only_trainable``: those that require a gradient)."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad or not only_trainable)

    @property
    def teacher(self):
        """The teacher this encoder was trained for (loaded on first access)."""
        if self._teacher is None:
            from charwise.teachers import Teacher

            name = self.teacher_info.get("name")
            if not name:
                raise ConfigError("this encoder does not record its teacher")
            teacher = Teacher.load(name)
            check_teacher(self, teacher)
            self._teacher = teacher
        return self._teacher

    def attach_teacher(self, teacher) -> None:
        check_teacher(self, teacher)
        if teacher is not self._teacher:
            self._row_indexes.clear()
        self._teacher = teacher

    # --- persistence --------------------------------------------------------------------------
    # charwise's own public signature (a directory and the training record), narrower than transformers'.
    def save_pretrained(  # type: ignore[override]
        self, directory: str | os.PathLike, training_info: dict[str, Any] | None = None, *,
        safe_serialization: bool = True,
    ) -> Path:
        """Write ``config.json``, ``model.safetensors`` and ``training.json`` to ``directory`` atomically.

        ``training_info`` is the training record (held-out word ids, settings, metrics, step); by
        default the one this encoder was loaded with (``self.training_info``); ``{}`` writes none.
        Weights are safetensors only (``safe_serialization=False`` is refused).
        """
        if not safe_serialization:
            raise ValueError("charwise encoders are saved as safetensors only (safe_serialization=False)")
        return save_model_directory(self, directory, self.training_info if training_info is None else training_info)

    # charwise's own public signature (a local directory and a map_location), narrower than transformers'.
    @classmethod
    def from_pretrained(  # type: ignore[override]
        cls, directory: str | os.PathLike, map_location: str | torch.device = "cpu", **kwargs: Any
    ) -> "CharEncoder":
        """Load an encoder saved by :meth:`save_pretrained` (or by charwise 0.1).

        Every tensor's name and shape is checked against the config; anything that is not a
        charwise encoder directory raises a one-line :class:`~charwise.errors.CheckpointError`.
        ``transformers.AutoModel.from_pretrained(directory)`` comes here too (its bookkeeping
        arguments are ignored; ``dtype`` casts the loaded weights).
        """
        path = Path(directory)
        if kwargs.get("subfolder"):
            path = path / kwargs["subfolder"]
        torch_dtype = kwargs.pop("torch_dtype", None)  # transformers' older name for dtype
        dtype = kwargs.pop("dtype", None) or torch_dtype
        dtype = None if dtype == "auto" else dtype  # "auto": the stored dtype
        unknown = sorted(set(kwargs) - _HF_LOADING_ARGS)
        if unknown:
            raise TypeError(f"from_pretrained() got unexpected arguments {unknown}")
        config, training = _read_config(path)
        kind = config.encoder_type
        enc_cls = _encoder_class(kind, str(path / CONFIG_FILE))
        if cls is not CharEncoder and not issubclass(enc_cls, cls):
            raise CheckpointError(f"'{path}' holds a {kind} encoder, not a {cls.__name__}")
        cfg_path = path / CONFIG_FILE
        try:
            arch = enc_cls.Config(**config.arch)
            charset = CharVocab.from_dict(config.charset)
        except (TypeError, ValueError) as e:
            raise CheckpointError(f"bad encoder config in '{cfg_path}': {e}") from None
        # Values of the wrong JSON type ("dim": "384") would fail much later, deep inside torch.
        for section, values, reference in (("arch", arch, enc_cls.Config()), ("charset", charset.config,
                                                                              type(charset.config)())):
            for f in dataclasses.fields(reference):
                value, want = getattr(values, f.name), getattr(reference, f.name)
                ok = (isinstance(value, bool) if isinstance(want, bool)
                      else isinstance(value, (int, float)) and not isinstance(value, bool) if isinstance(want, float)
                      else isinstance(value, int) and not isinstance(value, bool) if isinstance(want, int)
                      else isinstance(value, type(want)) if want is not None else True)
                if ok and isinstance(want, list) and want:
                    ok = all(isinstance(v, type(want[0])) and not isinstance(v, bool) for v in value)
                if not ok:
                    raise CheckpointError(f"bad encoder config in '{cfg_path}': {section}.{f.name} is "
                                          f"{value!r} ({type(value).__name__}), expected {type(want).__name__}")
        if arch.num_chars != charset.size:
            raise CheckpointError(
                f"'{cfg_path}' is inconsistent: charset has {charset.size} ids but the encoder expects {arch.num_chars}"
            )
        try:
            model = enc_cls(config)
        except (TypeError, ValueError) as e:
            raise CheckpointError(f"bad encoder config in '{cfg_path}': {e}") from None
        state = load_checked_weights(model, path / WEIGHTS_FILE, f"a {kind} encoder", map_location)
        teacher_dim = config.teacher.get("dim")
        if teacher_dim is not None and teacher_dim != arch.dim:
            raise CheckpointError(f"'{cfg_path}' is inconsistent: the encoder outputs {arch.dim} dimensions but "
                                  f"its teacher '{config.teacher.get('name')}' has {teacher_dim}")
        model.load_state_dict(state)
        model.to(map_location)  # type: ignore[arg-type]  # transformers' @wraps(nn.Module.to) hides the bound self
        if dtype is not None:
            model.to(getattr(torch, dtype) if isinstance(dtype, str) else dtype)
        model.training_info = training
        return model.eval()


# Arguments AutoModel.from_pretrained passes on (hub and remote-code bookkeeping): nothing to do
# for a local charwise directory.
_HF_LOADING_ARGS = {
    "config", "_from_auto", "trust_remote_code", "adapter_kwargs", "revision", "cache_dir", "force_download",
    "local_files_only", "proxies", "subfolder", "token", "code_revision", "_commit_hash",
}


def _encoder_class(kind: Any, source: str) -> type[CharEncoder]:
    if kind not in ENCODERS:
        raise CheckpointError(f"unknown encoder type {kind!r} in '{source}' (known: {sorted(ENCODERS)})")
    return ENCODERS[kind]


def _read_config(directory: Path) -> tuple[CharEncoderConfig, dict[str, Any]]:
    """The config and the training record of an encoder directory, in either file format."""
    cfg_path, weights_path = directory / CONFIG_FILE, directory / WEIGHTS_FILE
    if not cfg_path.is_file() or not weights_path.is_file():
        raise CheckpointError(f"'{directory}' is not a charwise encoder (need {CONFIG_FILE} and {WEIGHTS_FILE})")
    meta = read_json_file(cfg_path)
    if not isinstance(meta, dict):
        raise CheckpointError(f"'{directory}' is not a charwise encoder ({CONFIG_FILE} is not a JSON object)")
    training: Any = {}
    if meta.get("model_type") == MODEL_TYPE:
        fields = dict(meta)
        fields.pop("model_type")
        try:
            config = CharEncoderConfig.from_dict(fields)
        except (TypeError, ValueError) as e:
            raise CheckpointError(f"bad encoder config in '{cfg_path}': {e}") from None
    elif "model_type" not in meta and meta.get("format") == FORMAT:  # charwise 0.1
        kind = meta.get("encoder")
        if not isinstance(kind, str):
            raise CheckpointError(f"unknown encoder type {kind!r} in '{cfg_path}' (known: {sorted(ENCODERS)})")
        config = CharEncoderConfig(encoder_type=kind, arch=meta.get("config"),
                                   charset=meta.get("charset"), teacher=meta.get("teacher"))
        training = meta.get("training") or {}
    else:
        found = (f"model_type {meta['model_type']!r}" if "model_type" in meta
                 else f"format {meta['format']!r}" if "format" in meta else "no model_type")
        raise CheckpointError(f"'{directory}' is not a charwise encoder ({CONFIG_FILE} has {found}, "
                              f"not model_type '{MODEL_TYPE}')")
    if not all(isinstance(getattr(config, key), dict) for key in ("arch", "charset", "teacher")):
        raise CheckpointError(f"bad encoder config in '{cfg_path}': arch, charset and teacher must be JSON objects")
    if config.manifold is not None:
        try:
            ManifoldConfig.from_dict(config.manifold)
        except (ConfigError, TypeError) as e:
            raise CheckpointError(f"bad manifold settings in '{cfg_path}': {e}") from None
    if (directory / TRAINING_FILE).is_file():
        training = read_json_file(directory / TRAINING_FILE)
    if not isinstance(training, dict):
        raise CheckpointError(f"'{directory / TRAINING_FILE}' is not a JSON object")
    config.name_or_path = str(directory)
    return config, training


def check_teacher(encoder: CharEncoder, teacher) -> None:
    """Refuse a teacher whose dimension or vocabulary differs from the one the encoder learned."""
    if teacher.dim != encoder.dim:
        raise CheckpointError(
            f"dimension mismatch: encoder outputs {encoder.dim}, teacher '{teacher.name}' has {teacher.dim}")
    want = encoder.teacher_info.get("vocab_hash")
    if want and want != teacher.vocab_hash:
        raise CheckpointError(
            f"vocabulary mismatch: encoder was trained for vocab {want}, "
            f"teacher '{teacher.name}' has {teacher.vocab_hash}"
        )


def build_encoder(
    kind: str,
    charset: CharVocab,
    dim: int,
    preset: str | None = None,
    teacher_info: dict | None = None,
    **overrides: Any,
) -> CharEncoder:
    """Instantiate a registered encoder from a preset name and keyword overrides."""
    if kind not in ENCODERS:
        raise ConfigError(f"unknown encoder '{kind}' (known: {sorted(ENCODERS)})")
    cls = ENCODERS[kind]
    params: dict[str, Any] = {}
    if preset is not None:
        if preset not in cls.PRESETS:
            raise ConfigError(f"unknown preset '{preset}' for {kind} (known: {sorted(cls.PRESETS)})")
        params.update(cls.PRESETS[preset])
    params.update(overrides)
    params["dim"] = dim
    params["num_chars"] = charset.size
    arch = cls.Config(**params)  # validates the architecture before any module is built
    config = CharEncoderConfig(encoder_type=kind, arch=dataclasses.asdict(arch), charset=charset.to_dict(),
                               teacher=teacher_info)
    return cls(config)


# After `import charwise` (or this module), transformers' Auto classes know charwise
# encoders: AutoModel.from_pretrained(DIR) loads one without trust_remote_code.
AutoConfig.register(MODEL_TYPE, CharEncoderConfig, exist_ok=True)
AutoModel.register(CharEncoderConfig, CharEncoder, exist_ok=True)
