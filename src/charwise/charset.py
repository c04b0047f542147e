"""Characters in, integer ids out: the one place where charwise turns strings into encoder input.

Every string becomes ``[MARK] c_1 ... c_n [END]`` where ``MARK`` is ``[WORD]`` for a whole word
(a vocabulary entry that starts a word, or a user's word) and ``[PIECE]`` for a continuation
piece (WordPiece ``##ing``, a byte-BPE piece without ``Ġ``). Char2Subword marks whole words by
prepending ``##``; a dedicated marker id does the same job without colliding with real text.

Normalisation (applied identically in training and at inference):

1. Drop format and control characters (zero-width spaces and joiners, bidi marks, soft
   hyphens): they are invisible and never change which word was meant. Then Unicode NFC.
2. Strip surrounding whitespace.
3. For lower-casing teachers (BERT uncased): lower-case and strip accents, as the tokenizer does.
4. Truncate strings longer than ``max_chars`` to their first ``max_chars - tail_chars`` and last
   ``tail_chars`` characters, so the stem and the inflection both survive.

Characters seen in the teacher's vocabulary have their own id; any other code point (emoji,
private use, rare scripts) falls into one of ``hash_buckets`` ids chosen from its code point, so
every Unicode string maps to a finite, deterministic input.
"""

from __future__ import annotations

import unicodedata
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from charwise.errors import ConfigError
from charwise.words import MAX_WORD_CHARS, shorten_word

if TYPE_CHECKING:
    import torch

PAD, WORD, PIECE, END = 0, 1, 2, 3
NUM_RESERVED = 4


@dataclass
class CharsetConfig:
    """Serialisable description of a :class:`CharVocab`."""

    chars: list[str] = field(default_factory=list)
    lowercase: bool = False
    hash_buckets: int = 64
    max_chars: int = 32
    tail_chars: int = 8


def normalise(text: str, lowercase: bool, max_chars: int, tail_chars: int) -> str:
    """Apply charwise's string normalisation (see the module docstring).

    A string of more than :data:`~charwise.words.MAX_WORD_CHARS` (or ``8 * max_chars``) characters
    is first shortened to its first and last halves of that many, so that its cost does not grow
    with its length; what step 4 keeps of it is the same unless it is mostly invisible characters.
    """
    text = shorten_word(text, max(MAX_WORD_CHARS, 8 * max_chars))
    # Invisible characters go first, so that NFC can compose what they separated.
    text = "".join(c for c in text if unicodedata.category(c) not in ("Cf", "Cc"))
    text = unicodedata.normalize("NFC", text)
    text = text.strip()
    if lowercase:
        text = text.lower()
        decomposed = unicodedata.normalize("NFD", text)
        text = unicodedata.normalize("NFC", "".join(c for c in decomposed if unicodedata.category(c) != "Mn"))
    if len(text) > max_chars:
        head = max_chars - tail_chars
        text = text[:head] + text[len(text) - tail_chars :]
    return text


class CharVocab:
    """Maps strings to padded character-id tensors (``0`` is padding)."""

    def __init__(self, config: CharsetConfig) -> None:
        if config.max_chars <= config.tail_chars:
            raise ConfigError(f"max_chars must exceed tail_chars, got {config.max_chars} <= {config.tail_chars}")
        self.config = config
        self._index = {c: NUM_RESERVED + config.hash_buckets + i for i, c in enumerate(config.chars)}

    @classmethod
    def build(
        cls,
        surfaces: Iterable[str],
        *,
        lowercase: bool,
        hash_buckets: int = 64,
        max_chars: int = 32,
        tail_chars: int = 8,
    ) -> "CharVocab":
        """Collect every character of ``surfaces`` (after normalisation) into a vocabulary."""
        seen: set[str] = set()
        for s in surfaces:
            seen.update(normalise(s, lowercase, 10**9, 0))
        config = CharsetConfig(sorted(seen), lowercase, hash_buckets, max_chars, tail_chars)
        return cls(config)

    @property
    def size(self) -> int:
        return NUM_RESERVED + self.config.hash_buckets + len(self.config.chars)

    def normalise(self, text: str) -> str:
        c = self.config
        return normalise(text, c.lowercase, c.max_chars, c.tail_chars)

    def char_id(self, char: str) -> int:
        idx = self._index.get(char)
        if idx is not None:
            return idx
        # Knuth multiplicative hash of the code point: stable across processes, unlike hash().
        return NUM_RESERVED + (ord(char) * 2654435761 % 2**32) % self.config.hash_buckets

    def encode(self, text: str, word_start: bool = True) -> list[int]:
        """``[WORD|PIECE] chars... [END]`` for one string."""
        ids = [WORD if word_start else PIECE]
        ids.extend(self.char_id(c) for c in self.normalise(text))
        ids.append(END)
        return ids

    def decode(self, ids: Iterable[int]) -> str:
        """The characters of ``ids`` up to the first ``END`` (the inverse of :meth:`encode`).

        Markers and padding are skipped; a hash-bucket id stands for many code points and is
        written as U+FFFD."""
        out = []
        first = NUM_RESERVED + self.config.hash_buckets
        for i in ids:
            if i == END:
                break
            if i >= first:
                out.append(self.config.chars[i - first])
            elif i >= NUM_RESERVED:
                out.append("\ufffd")
        return "".join(out)

    def batch(self, texts: Sequence[str], word_start: Sequence[bool] | bool = True) -> torch.Tensor:
        """Padded ``(n, L)`` LongTensor for a list of strings (``L`` >= 2 even for empty strings)."""
        import torch

        return torch.from_numpy(self.batch_array(texts, word_start))

    def batch_array(self, texts: Sequence[str], word_start: Sequence[bool] | bool = True) -> np.ndarray:
        """:meth:`batch` as an int64 numpy array (torch-free: the speller's encoder runs in numpy)."""
        if isinstance(word_start, bool):
            word_start = [word_start] * len(texts)
        if len(word_start) != len(texts):
            raise ValueError("texts and word_start differ in length")
        rows = [self.encode(t, s) for t, s in zip(texts, word_start)]
        width = max((len(r) for r in rows), default=2)
        out = np.zeros((len(rows), width), dtype=np.int64)
        for i, r in enumerate(rows):
            out[i, : len(r)] = r
        return out

    def to_dict(self) -> dict:
        return asdict(self.config)

    @classmethod
    def from_dict(cls, data: dict) -> "CharVocab":
        return cls(CharsetConfig(**data))
