"""Language-model data: the verse-aligned Bible, split by book, as word streams.

The corpus is ``data/bible_es_en/bible.es-en.tsv`` (Reina-Valera 1909 and the King James Version,
one verse a row, public domain); ``language`` picks a side. One split serves every model and
language, by book, so that no test verse shares a chapter with a training verse:

* validation: Daniel and Hebrews;
* test: the last two books of each testament: Zechariah, Malachi, Jude and Revelation;
* train: everything else.

Words come from :func:`charwise.words.split_words` (punctuation separate, case kept); each verse
ends with :data:`EOS`. Empty verses (18 on the Spanish side, joined to a neighbour by RV1909) are
dropped. The output vocabulary (:class:`WordVocab`) holds the training words seen at least
``min_count`` times; rarer and unseen words become :data:`UNK` *as targets only*: a character
model still reads their characters.
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import torch

from charwise.errors import ConfigError, InputError
from charwise.io import bible_path
from charwise.languages import check_language
from charwise.presets import LM_LANGUAGES
from charwise.words import split_words

UNK, EOS = "<unk>", "</s>"
LANGUAGES = LM_LANGUAGES
VALIDATION_BOOKS = ("Daniel", "Hebrews")
TEST_BOOKS = ("Zechariah", "Malachi", "Jude", "Revelation of John")
SPLITS = ("train", "validation", "test")


def book_of(ref: str) -> str:
    """``"Song of Solomon 2:3"`` -> ``"Song of Solomon"``."""
    return ref.rsplit(" ", 1)[0]


def read_bible(language: str, path: str | Path | None = None) -> dict[str, list[list[str]]]:
    """The verses of each split as word lists (without :data:`EOS`)."""
    check_language(language, LANGUAGES, "language model data")
    source = Path(path) if path is not None else bible_path()
    splits: dict[str, list[list[str]]] = {name: [] for name in SPLITS}
    try:
        with open(source, encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            if reader.fieldnames is None or not {"ref", language} <= set(reader.fieldnames):
                raise InputError(f"{source}: not the verse-aligned Bible (need a header with ref and {language})")
            for row in reader:
                words = split_words(row[language] or "").words
                if not words:
                    continue
                book = book_of(row["ref"])
                split = "test" if book in TEST_BOOKS else "validation" if book in VALIDATION_BOOKS else "train"
                splits[split].append(words)
    except UnicodeDecodeError as e:
        raise InputError(f"{source}: not UTF-8 text ({e.reason})") from None
    if not all(splits.values()):
        raise InputError(f"{source}: a split is empty; the file must hold whole books")
    return splits


@dataclass
class WordVocab:
    """The output words: ``words[0]`` is :data:`UNK`, ``words[1]`` is :data:`EOS`."""

    words: list[str]

    def __post_init__(self) -> None:
        self.index = {w: i for i, w in enumerate(self.words)}

    @classmethod
    def build(cls, verses: list[list[str]], min_count: int = 2) -> "WordVocab":
        counts = Counter(w for verse in verses for w in verse)
        kept = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
        return cls([UNK, EOS, *kept])

    def __len__(self) -> int:
        return len(self.words)

    def id(self, word: str) -> int:
        return self.index.get(word, 0)


@dataclass
class Stream:
    """One split as a word stream: ``types`` index ``type_words`` (every distinct word, for the
    character input) and ``targets`` are output-vocabulary ids (rare words -> UNK)."""

    types: torch.Tensor  # (N,) long
    targets: torch.Tensor  # (N,) long
    type_words: list[str]

    @property
    def tokens(self) -> int:
        return len(self.types)


def make_stream(verses: list[list[str]], vocab: WordVocab) -> Stream:
    """Verses joined into one stream, each followed by :data:`EOS`."""
    type_index: dict[str, int] = {}
    types, targets = [], []
    for verse in verses:
        for word in [*verse, EOS]:
            types.append(type_index.setdefault(word, len(type_index)))
            targets.append(vocab.id(word))
    return Stream(torch.tensor(types, dtype=torch.long), torch.tensor(targets, dtype=torch.long), list(type_index))


def oov_rates(stream: Stream, vocab: WordVocab, train_words: set[str]) -> dict[str, float]:
    """Share of tokens that are UNK targets, and of tokens and types never seen in training."""
    counts = Counter(stream.type_words[int(t)] for t in stream.types)
    counts.pop(EOS, None)  # the verse end is not a word
    unseen = [w for w in counts if w not in train_words]
    return {"unk_tokens": float((stream.targets == 0).float().mean()),  # over every target, </s> included
            "unseen_tokens": sum(counts[w] for w in unseen) / max(1, sum(counts.values())),
            "unseen_types": len(unseen) / len(counts)}


def batchify(stream: Stream, batch_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``(batch_size, N // batch_size)`` type and target matrices: ``batch_size`` contiguous
    streams read side by side (Zaremba et al.; Kim et al.), the tail dropped."""
    width = stream.tokens // batch_size
    if width < 2:
        raise ConfigError(f"{stream.tokens} tokens cannot fill {batch_size} streams; lower the batch size")
    cut = width * batch_size
    return stream.types[:cut].view(batch_size, width), stream.targets[:cut].view(batch_size, width)
