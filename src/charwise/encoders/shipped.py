"""Encoders shipped inside the package, trained with ``charwise train`` (see benchmarks/results),
and the one function that turns "a name, a directory or an encoder" into an encoder."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from charwise.encoders.arrays import CONFIG_FILE, CharCNNArrays
from charwise.errors import CheckpointError, ConfigError, MissingInputError

if TYPE_CHECKING:
    from charwise.encoders.base import CharEncoder

SHIPPED_DIR = Path(__file__).resolve().parent.parent / "pretrained"
MODEL_ENCODER_DIR = "charwise-encoder"  # inside a model directory: the encoder it was trained to read


def available() -> list[str]:
    """Names of the encoders shipped with this installation."""
    if not SHIPPED_DIR.is_dir():
        return []
    return sorted(p.name for p in SHIPPED_DIR.iterdir() if (p / CONFIG_FILE).exists())


def shipped_decoder(name: str | os.PathLike) -> Path | None:
    """The character decoder shipped for the shipped encoder ``name`` (a directory), or None."""
    path = SHIPPED_DIR / "decoders" / str(name)
    return path if str(name) in available() and (path / CONFIG_FILE).is_file() else None


def load(name_or_path: str | os.PathLike = "minilm") -> CharEncoder:
    """A shipped encoder by teacher name (``"minilm"``) or any encoder directory by path."""
    from charwise.encoders.base import CharEncoder

    path, shipped = _encoder_directory(name_or_path)
    encoder = CharEncoder.from_pretrained(path)
    if not shipped:
        _check_teacher_label(encoder, path)
    return encoder


def load_for_inference(name_or_path: str | os.PathLike = "minilm") -> CharEncoder | CharCNNArrays:
    """:func:`load`, but a CNN encoder is read into numpy (:class:`~charwise.encoders.arrays.CharCNNArrays`:
    no torch import, the same raw vectors); any other kind is a torch encoder."""
    path, shipped = _encoder_directory(name_or_path)
    try:
        kind = json.loads((path / CONFIG_FILE).read_text(encoding="utf-8")).get("encoder_type", "cnn")
    except (OSError, ValueError, AttributeError):
        kind = None  # torch's loader says what is wrong with the directory
    if kind != "cnn":
        return load(path)
    encoder = CharCNNArrays.from_pretrained(path)
    if not shipped:
        _check_teacher_label(encoder, path)
    return encoder


def _encoder_directory(name_or_path: str | os.PathLike) -> tuple[Path, bool]:
    """(the directory, whether it is a shipped encoder) of a shipped name or an encoder directory."""
    name = str(name_or_path)
    if name in available():
        return SHIPPED_DIR / name, True
    path = Path(name).expanduser()
    if path.is_dir():
        return path, False
    raise MissingInputError(
        f"no encoder '{name}': shipped encoders are {available() or 'none'}; or pass a directory"
    )


def _check_teacher_label(encoder: CharEncoder | CharCNNArrays, path: Path) -> None:
    """An encoder that names a built-in teacher must have that teacher's dimension and vocabulary
    (known from the shipped encoder's config, without loading the teacher)."""
    info = encoder.teacher_info
    name = info.get("name")
    if name not in available():
        return
    try:
        shipped = json.loads((SHIPPED_DIR / str(name) / CONFIG_FILE).read_text(encoding="utf-8")).get("teacher") or {}
    except (OSError, ValueError):
        return
    for key in ("dim", "vocab_hash"):
        if shipped.get(key) is not None and info.get(key) is not None and info[key] != shipped[key]:
            raise CheckpointError(
                f"the encoder in '{path}' names teacher '{name}' but was trained for another one ({key} "
                f"{info[key]}, while '{name}' has {shipped[key]}): fix its config.json or use it with its own teacher")


def _model_encoder(teacher: Any) -> Path | None:
    """The encoder stored inside a model directory by second pre-training (the one that model
    learned to read), or None."""
    source = getattr(teacher, "source", "")
    path = Path(source) / MODEL_ENCODER_DIR if source else None
    return path if path is not None and (path / CONFIG_FILE).is_file() else None


def resolve_encoder(
    name_or_path: str | os.PathLike | CharEncoder | None, teacher: Any, *, required: bool = True,
    needed_by: str = "this", option: str = "encoder=DIR",
) -> CharEncoder | None:
    """The character encoder to use with ``teacher``, checked against it and attached to it.

    ``name_or_path`` is an encoder (used as is), a shipped name or a directory (loaded), or None:
    the encoder inside the teacher's model directory (``charwise-encoder/``, written by second
    pre-training), else the one shipped for ``teacher.name``. A teacher without one raises
    :class:`~charwise.errors.ConfigError` saying what needs it (``needed_by``, e.g. ``"policy
    'oov'"``) and how to pass one (``option``, e.g. ``"--char-encoder DIR"``), or returns None when
    ``required`` is false. An encoder trained for another vocabulary or dimension raises ValueError.
    """
    from charwise.encoders.base import CharEncoder, check_teacher

    if isinstance(name_or_path, CharEncoder):
        encoder = name_or_path
    else:
        own = _model_encoder(teacher)
        if name_or_path is None and own is not None:
            name_or_path = own
        elif name_or_path is None:
            if teacher.name not in available():
                if not required:
                    return None
                raise ConfigError(
                    f"{needed_by} needs a character encoder and teacher '{teacher.name}' has no shipped one "
                    f"(shipped: {', '.join(available()) or 'none'}): pass {option} "
                    f"(train one with `charwise train --teacher {teacher.name}`)")
            name_or_path = str(teacher.name)
        encoder = load(name_or_path)
    check_teacher(encoder, teacher)
    encoder.attach_teacher(teacher)
    return encoder
