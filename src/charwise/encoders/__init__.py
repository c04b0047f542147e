"""Character encoders: every one maps strings to vectors of the teacher's dimension."""

from charwise.encoders.base import ENCODERS, CharEncoder, CheckpointError, build_encoder, check_teacher
from charwise.encoders.bilstm import BiLSTMConfig, BiLSTMEncoder
from charwise.encoders.cnn import CNNConfig, CNNEncoder
from charwise.encoders.transformer import TransformerConfig, TransformerEncoder

__all__ = [
    "ENCODERS", "CharEncoder", "CheckpointError", "build_encoder", "check_teacher",
    "CNNConfig", "CNNEncoder", "TransformerConfig", "TransformerEncoder", "BiLSTMConfig", "BiLSTMEncoder",
]
