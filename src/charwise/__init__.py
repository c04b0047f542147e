"""charwise: open-vocabulary, typo-robust word vectors for pretrained subword models, from characters."""

from charwise.encoders import CharEncoder, build_encoder
from charwise.encoders.shipped import load
from charwise.hybrid.model import HybridInputs, HybridModel, HybridOutput, ModelAdapter
from charwise.hybrid.policies import Policy, get_policy
from charwise.hybrid.sentence import SentenceEncoder
from charwise.teachers import Teacher, TeacherNotFoundError
from charwise.words import split_words

__all__ = [
    "CharEncoder", "HybridInputs", "HybridModel", "HybridOutput", "ModelAdapter", "Policy", "SentenceEncoder",
    "Teacher", "TeacherNotFoundError", "build_encoder", "get_policy", "load", "split_words",
]
__version__ = "0.2.0"
