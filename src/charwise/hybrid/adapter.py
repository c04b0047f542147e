"""What a hybrid model needs to know about its HF model beyond the embedding table.

Read from the tokenizer by default (:meth:`ModelAdapter.from_tokenizer`); pass your own for models
whose tokenizer does not describe them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from charwise.errors import ConfigError

# Above this, HF tokenizers report "no limit"; the model config then decides.
_NO_LIMIT = 1_000_000


@dataclass
class ModelAdapter:
    """What a hybrid model needs to know about its model beyond the embedding table.

    ``prefix_ids`` / ``suffix_ids`` surround the words (``[CLS]`` / ``[SEP]`` for BERT, nothing for
    SmolLM2). ``start_ids`` is what a causal LM conditions the first word on when scoring text.
    ``space_prefix``: words after whitespace are tokenised as ``" " + word`` (byte-BPE, SentencePiece).
    """

    prefix_ids: list[int]
    suffix_ids: list[int]
    pad_id: int
    unk_id: int | None
    max_length: int
    space_prefix: bool
    start_ids: list[int] = field(default_factory=list)

    @classmethod
    def from_tokenizer(cls, tokenizer: Any, family: str, model_config: Any = None) -> "ModelAdapter":
        probe = tokenizer("a", add_special_tokens=False)["input_ids"]
        full = tokenizer("a")["input_ids"]
        at = next((i for i in range(len(full) - len(probe) + 1) if full[i : i + len(probe)] == probe), None)
        if at is None:
            raise ConfigError("cannot locate the words among the tokenizer's special tokens; pass a ModelAdapter")
        prefix, suffix = list(full[:at]), list(full[at + len(probe) :])
        limit = int(getattr(tokenizer, "model_max_length", _NO_LIMIT) or _NO_LIMIT)
        if limit >= _NO_LIMIT:
            limit = int(getattr(model_config, "max_position_embeddings", 0) or 2048)
        pad = tokenizer.pad_token_id
        if pad is None:
            pad = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else 0
        vocab = tokenizer.get_vocab()
        # Causal LMs without a BOS in their template were trained on documents separated by
        # <|endoftext|>; that is the natural context for a text's first word.
        start = prefix or ([vocab["<|endoftext|>"]] if "<|endoftext|>" in vocab else
                           [tokenizer.bos_token_id] if tokenizer.bos_token_id is not None else [])
        return cls(prefix_ids=prefix, suffix_ids=suffix, pad_id=int(pad), unk_id=tokenizer.unk_token_id,
                   max_length=limit, space_prefix=family != "wordpiece", start_ids=list(start))
