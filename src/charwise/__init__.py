"""charwise: open-vocabulary, typo-robust word vectors for pretrained subword models, from characters."""

from .encoders import CharEncoder, build_encoder
from .teachers import Teacher, TeacherNotFoundError
from .pretrained import load

__all__ = ["CharEncoder", "Teacher", "TeacherNotFoundError", "build_encoder", "load"]
__version__ = "0.1.0"
