"""Character encoders: every one maps strings to vectors of the teacher's dimension."""

from .base import ENCODERS, CharEncoder, CheckpointError, build_encoder, check_teacher
from .bilstm import BiLSTMConfig, BiLSTMEncoder
from .cnn import CNNConfig, CNNEncoder
from .transformer import TransformerConfig, TransformerEncoder

__all__ = [
    "ENCODERS", "CharEncoder", "CheckpointError", "build_encoder", "check_teacher",
    "CNNConfig", "CNNEncoder", "TransformerConfig", "TransformerEncoder", "BiLSTMConfig", "BiLSTMEncoder",
]
