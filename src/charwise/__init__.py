"""charwise: open-vocabulary, typo-robust word vectors for pretrained subword models, from characters.

The public names are loaded on first use (PEP 562): ``import charwise`` does not import torch or
transformers, so the command line and tools that only need a part of charwise start at once.

It does make transformers' ``AutoConfig`` / ``AutoModel`` know every charwise model type
(``"charwise-encoder"``, ``"charwise-decoder"``, ...), whichever of the two is imported first: see
:mod:`charwise.auto` (the module that defines a type is imported when transformers first looks it up).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from charwise import auto as _auto
from charwise.lazy import lazy_names

if TYPE_CHECKING:
    from charwise.encoders import CharEncoder, build_encoder
    from charwise.encoders.shipped import load
    from charwise.hybrid.model import HybridInputs, HybridModel, HybridOutput, ModelAdapter
    from charwise.hybrid.policies import Policy, get_policy
    from charwise.hybrid.sentence import SentenceEncoder
    from charwise.speller import Speller
    from charwise.speller.repair import repair
    from charwise.teachers import Teacher, TeacherNotFoundError
    from charwise.words import split_words

#: public name -> the module it is loaded from on first use
_LAZY = {
    "CharEncoder": "charwise.encoders",
    "build_encoder": "charwise.encoders",
    "load": "charwise.encoders.shipped",
    "HybridInputs": "charwise.hybrid.model",
    "HybridModel": "charwise.hybrid.model",
    "HybridOutput": "charwise.hybrid.model",
    "ModelAdapter": "charwise.hybrid.model",
    "Policy": "charwise.hybrid.policies",
    "get_policy": "charwise.hybrid.policies",
    "SentenceEncoder": "charwise.hybrid.sentence",
    "Speller": "charwise.speller",
    "repair": "charwise.speller.repair",
    "Teacher": "charwise.teachers",
    "TeacherNotFoundError": "charwise.teachers",
    "split_words": "charwise.words",
}

__all__ = [
    "CharEncoder", "HybridInputs", "HybridModel", "HybridOutput", "ModelAdapter", "Policy", "SentenceEncoder",
    "Speller", "Teacher", "TeacherNotFoundError", "build_encoder", "get_policy", "load", "repair",
    "split_words",
]
__version__ = "0.2.0"


__getattr__, __dir__ = lazy_names(__name__, globals(), _LAZY)


_auto.install()  # transformers' Auto classes learn charwise's model types (charwise.auto)
