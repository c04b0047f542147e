"""charwise: open-vocabulary, typo-robust word vectors for pretrained subword models, from characters."""

from .encoders import CharEncoder, build_encoder
from .hybrid import HybridInputs, HybridModel, HybridOutput, ModelAdapter
from .policies import Policy, get_policy
from .pretrained import load
from .sentence import SentenceEncoder
from .teachers import Teacher, TeacherNotFoundError
from .words import split_words

__all__ = [
    "CharEncoder", "HybridInputs", "HybridModel", "HybridOutput", "ModelAdapter", "Policy", "SentenceEncoder",
    "Teacher", "TeacherNotFoundError", "build_encoder", "get_policy", "load", "split_words",
]
__version__ = "0.1.0"
