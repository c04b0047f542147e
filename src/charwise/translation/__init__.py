"""Spanish -> English translation: a Transformer and the Subword-to-Word Transformer, with word features."""

from charwise.translation.model import TranslationConfig, TranslationModel

__all__ = ["TranslationConfig", "TranslationModel"]
