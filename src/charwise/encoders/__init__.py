"""Character encoders: every one maps strings to vectors of the teacher's dimension.

The names below are loaded on first use (PEP 562), so that the torch-free parts of this package
(:mod:`charwise.encoders.arrays`, the numpy side of :mod:`charwise.encoders.manifold`) import
without torch. Importing :mod:`charwise.encoders.base` registers :class:`CharEncoderConfig` /
:class:`CharEncoder` with ``transformers.AutoConfig`` / ``AutoModel`` (``model_type =
"charwise-encoder"``); the first look-up in :data:`ENCODERS` (:mod:`charwise.encoders.registry`)
imports every built-in encoder kind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from charwise.lazy import lazy_names

if TYPE_CHECKING:
    from charwise.encoders.base import (
        CharEncoder,
        CharEncoderConfig,
        CheckpointError,
        build_encoder,
        check_teacher,
    )
    from charwise.encoders.bilstm import BiLSTMConfig, BiLSTMEncoder
    from charwise.encoders.cnn import CNNConfig, CNNEncoder
    from charwise.encoders.registry import ENCODERS
    from charwise.encoders.shipped import resolve_encoder
    from charwise.encoders.transformer import TransformerConfig, TransformerEncoder

#: public name -> the module it is loaded from on first use
_LAZY = {
    **dict.fromkeys(("CharEncoder", "CharEncoderConfig", "CheckpointError", "build_encoder", "check_teacher"),
                    "charwise.encoders.base"),
    "ENCODERS": "charwise.encoders.registry",
    "BiLSTMConfig": "charwise.encoders.bilstm", "BiLSTMEncoder": "charwise.encoders.bilstm",
    "CNNConfig": "charwise.encoders.cnn", "CNNEncoder": "charwise.encoders.cnn",
    "resolve_encoder": "charwise.encoders.shipped",
    "TransformerConfig": "charwise.encoders.transformer", "TransformerEncoder": "charwise.encoders.transformer",
}

__all__ = [
    "ENCODERS", "CharEncoder", "CharEncoderConfig", "CheckpointError", "build_encoder", "check_teacher",
    "resolve_encoder", "CNNConfig", "CNNEncoder", "TransformerConfig", "TransformerEncoder", "BiLSTMConfig",
    "BiLSTMEncoder",
]


__getattr__, __dir__ = lazy_names(__name__, globals(), _LAZY)
