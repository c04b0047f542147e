"""Character decoders: spell the word a vector in a teacher's space stands for.

Importing this package registers :class:`CharDecoderConfig` / :class:`CharDecoder` with
``transformers.AutoConfig`` / ``AutoModel`` (``model_type = "charwise-decoder"``).
"""

from charwise.decoders.lstm import PRESETS, CharDecoder, CharDecoderConfig, DecoderArch, Spelling, build_decoder

__all__ = ["PRESETS", "CharDecoder", "CharDecoderConfig", "DecoderArch", "Spelling", "build_decoder"]
