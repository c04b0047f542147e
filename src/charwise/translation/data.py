"""Translation data: the verse-aligned Bible as (Spanish, English) pairs, two splits, subword vocabularies.

The corpus is ``data/bible_es_en/bible.es-en.tsv`` (Reina-Valera 1909 and the King James Version,
one verse a row, public domain). Verses with an empty side are dropped (18 on the Spanish side,
which RV1909 joins to a neighbour). Two splits serve every system (:func:`split_pairs`):

* ``"verses"``: a seeded shuffle of the verses; ``dev`` and ``test`` verses (1,000 each by
  default) are held out and no verse is in two splits;
* ``"books"``: by book, the language models' split (:mod:`charwise.lm.data`): dev = Daniel and
  Hebrews, test = Zechariah, Malachi, Jude and Revelation, books never seen in training.

Source words come from :func:`charwise.words.split_words` (punctuation separate, case kept): the
unit of the subword-to-word merge and of the word features. Subwords are byte-level BPE
(:class:`Subwords`, HF ``tokenizers``), separate vocabularies for Spanish and English trained on
the training split only: byte-level so that no character is ever unknown (digits, names, odd
Unicode) and the English output detokenises exactly. The source is encoded from its words
(``is_pretokenized``), which gives each piece its word; the target from its raw text.
"""

from __future__ import annotations

import csv
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

from charwise.errors import ConfigError, InputError
from charwise.io import bible_path
from charwise.lm.data import TEST_BOOKS, VALIDATION_BOOKS, book_of
from charwise.presets import TRANSLATION_SPLITS
from charwise.words import split_words

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["PAD", "UNK", "BOS", "EOS", "SPLITS", "Pair", "Subwords", "read_pairs", "split_pairs", "source_words"]

SPLITS = TRANSLATION_SPLITS
PAD, UNK, BOS, EOS = 0, 1, 2, 3
SPECIALS = ["<pad>", "<unk>", "<s>", "</s>"]
MAX_SOURCE_WORDS = 200  # the longest verse has about 90 words; longer inputs are cut (with a warning)


@dataclass(frozen=True)
class Pair:
    ref: str  # "Genesis 1:1"
    source: str  # Spanish
    target: str  # English


def source_words(text: str, max_words: int = MAX_SOURCE_WORDS) -> list[str]:
    """The words of a source sentence (punctuation separate), at most ``max_words``."""
    return split_words(text, max_words=max_words, max_word_chars=64).words


def read_pairs(path: str | os.PathLike | None = None) -> list[Pair]:
    """Every verse with both sides non-empty, in corpus order, from a TSV with columns ref, es, en."""
    source = Path(path) if path is not None else bible_path()
    pairs: list[Pair] = []
    try:
        with open(source, encoding="utf-8-sig", newline="") as handle:  # a byte-order mark is allowed
            reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            if reader.fieldnames is None or not {"ref", "es", "en"} <= set(reader.fieldnames):
                raise InputError(f"{source}: not a verse-aligned corpus (need a header with ref, es and en)")
            for row in reader:
                es, en = (row.get("es") or "").strip(), (row.get("en") or "").strip()
                if es and en:
                    pairs.append(Pair(row["ref"], es, en))
    except FileNotFoundError:
        raise InputError(f"{source}: no such file") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{source}: not UTF-8 text ({e.reason})") from None
    if not pairs:
        raise InputError(f"{source}: no verse pair with both sides")
    return pairs


def split_pairs(pairs: Sequence[Pair], split: str = "verses", *, dev: int = 1000, test: int = 1000,
                seed: int = 0) -> dict[str, list[Pair]]:
    """``{"train", "dev", "test"}`` (see the module docstring); every pair lands in exactly one."""
    if split not in SPLITS:
        raise ConfigError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    out: dict[str, list[Pair]] = {"train": [], "dev": [], "test": []}
    if split == "books":
        for p in pairs:
            book = book_of(p.ref)
            out["test" if book in TEST_BOOKS else "dev" if book in VALIDATION_BOOKS else "train"].append(p)
    else:
        if dev < 1 or test < 1 or dev + test >= len(pairs):
            raise ConfigError(f"dev and test must be >= 1 and leave training verses ({len(pairs)} pairs, "
                              f"dev {dev}, test {test})")
        order = list(range(len(pairs)))
        random.Random(seed).shuffle(order)
        held = {i: "dev" for i in order[:dev]} | {i: "test" for i in order[dev:dev + test]}
        for i, p in enumerate(pairs):  # corpus order within each split
            out[held.get(i, "train")].append(p)
    if not all(out.values()):
        raise InputError("a split is empty; the corpus must hold whole books (or enough verses)")
    return out


class Subwords:
    """A byte-level BPE vocabulary (HF ``tokenizers``) with ids 0-3 = ``<pad> <unk> <s> </s>``."""

    def __init__(self, tokenizer: "Tokenizer") -> None:
        self.tokenizer = tokenizer

    @classmethod
    def train(cls, texts: Iterable[str], vocab_size: int) -> "Subwords":
        from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

        if vocab_size < 300:
            raise ConfigError(f"a byte-level vocabulary needs at least 300 entries, got {vocab_size}")
        tok = Tokenizer(models.BPE())
        tok.normalizer = normalizers.NFC()
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
        tok.train_from_iterator(texts, trainer)
        return cls(tok)

    @classmethod
    def from_str(cls, data: str) -> "Subwords":
        from tokenizers import Tokenizer

        tok = Tokenizer.from_str(data)
        if [tok.id_to_token(i) for i in range(len(SPECIALS))] != SPECIALS:
            raise ConfigError("not a charwise translation vocabulary (ids 0-3 must be <pad> <unk> <s> </s>)")
        return cls(tok)

    def to_str(self) -> str:
        return str(self.tokenizer.to_str())

    def __len__(self) -> int:
        return int(self.tokenizer.get_vocab_size())

    def encode_words(self, words: Sequence[str]) -> tuple[list[int], list[int]]:
        """Piece ids of a word list and, for each piece, the index of its word."""
        if not words:
            return [], []
        enc = self.tokenizer.encode(list(words), is_pretokenized=True)
        return list(enc.ids), [int(w) if w is not None else -1 for w in enc.word_ids]

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text).ids)

    def decode(self, ids: Sequence[int]) -> str:
        return str(self.tokenizer.decode([i for i in ids if i > EOS])).strip()
