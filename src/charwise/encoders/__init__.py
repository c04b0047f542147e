"""Character encoders: every one maps strings to vectors of the teacher's dimension.

Importing this package registers :class:`CharEncoderConfig` / :class:`CharEncoder` with
``transformers.AutoConfig`` / ``AutoModel`` (``model_type = "charwise-encoder"``).
"""

from charwise.encoders.base import (
    ENCODERS,
    CharEncoder,
    CharEncoderConfig,
    CheckpointError,
    build_encoder,
    check_teacher,
)
from charwise.encoders.bilstm import BiLSTMConfig, BiLSTMEncoder
from charwise.encoders.cnn import CNNConfig, CNNEncoder
from charwise.encoders.shipped import resolve_encoder
from charwise.encoders.transformer import TransformerConfig, TransformerEncoder

__all__ = [
    "ENCODERS", "CharEncoder", "CharEncoderConfig", "CheckpointError", "build_encoder", "check_teacher",
    "resolve_encoder", "CNNConfig", "CNNEncoder", "TransformerConfig", "TransformerEncoder", "BiLSTMConfig",
    "BiLSTMEncoder",
]
