"""Where a model runs: ``device=`` arguments and ``--device`` options, checked in one place.

Every constructor and loader that builds a model takes ``device=None`` (leave the model where it
is: CPU after loading) or a device torch knows (``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``...).
:func:`check_device` turns it into a :class:`torch.device`, or refuses it in one line: an unknown
name, or a CUDA device when torch sees none. Nothing in charwise moves a model to a GPU on its own.
"""

from __future__ import annotations

import torch

from charwise.errors import ConfigError


def check_device(device: str | torch.device) -> torch.device:
    """``device`` as a :class:`torch.device` that torch can use, else a one-line ConfigError."""
    try:
        found = torch.device(device)
    except (RuntimeError, TypeError):
        raise ConfigError(f"unknown device {device!r} (cpu, cuda, cuda:1, mps...)") from None
    if found.type == "cuda" and not torch.cuda.is_available():
        raise ConfigError(f"device {str(found)!r} was asked for, but torch sees no CUDA device")
    return found


#: ``precision=`` names of a model that only reads (inference): ``auto`` picks bfloat16 where the
#: device computes it natively, float32 elsewhere
PRECISIONS = ("auto", "float32", "bfloat16")
_NATIVE_BF16_FLAGS = ("avx512_bf16", "amx_bf16")  # x86 instructions that multiply bfloat16 in hardware


def cpu_has_native_bf16(cpuinfo: str = "/proc/cpuinfo") -> bool:
    """Whether this CPU multiplies bfloat16 in hardware (AVX512-BF16 or AMX; read from Linux's
    ``/proc/cpuinfo``: False where it cannot be read). Elsewhere bfloat16 is emulated and slower
    than float32."""
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return any(flag in line.split() for flag in _NATIVE_BF16_FLAGS)
    except OSError:
        pass
    return False


def check_precision(precision: str) -> str:
    """``precision`` if it is one of :data:`PRECISIONS`, else a one-line ConfigError."""
    if precision not in PRECISIONS:
        raise ConfigError(f"unknown precision {precision!r}; known: {', '.join(PRECISIONS)}")
    return precision


def inference_dtype(precision: str, device: torch.device) -> torch.dtype:
    """The dtype a reading-only model runs in on ``device`` for ``precision`` (:data:`PRECISIONS`):
    ``auto`` is bfloat16 on a CUDA GPU that supports it and on a CPU with native bfloat16
    (:func:`cpu_has_native_bf16`), else float32. A one-line ConfigError for another name."""
    if check_precision(precision) != "auto":
        return getattr(torch, precision)
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float32
    return torch.bfloat16 if device.type == "cpu" and cpu_has_native_bf16() else torch.float32
