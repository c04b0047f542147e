"""Character-aware language models (Kim et al. 2016): :class:`CharAwareLM` and its data."""

from charwise.lm.model import PRESETS, CharAwareLM, CharLMConfig, build_lm

__all__ = ["PRESETS", "CharAwareLM", "CharLMConfig", "build_lm"]
