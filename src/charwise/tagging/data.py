"""Built-in tagging tasks: ``wnut17`` (emerging-entity NER, BIO tags) and ``ewt-upos`` (UD English
EWT, universal POS tags, lemmas kept as a feature column)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from charwise.corpora import TaggedSentence, read_tagged
from charwise.errors import ConfigError
from charwise.io import data_root


@dataclass(frozen=True)
class TaskSpec:
    """Where a built-in task's splits live and how to score it."""

    name: str
    files: dict[str, str]  # split -> path relative to charwise.io.data_root()
    format: str
    metric: str  # "entity_f1" (seqeval conventions) or "accuracy"


TASKS: dict[str, TaskSpec] = {
    "wnut17": TaskSpec("wnut17", {"train": "wnut17/wnut17train.conll", "dev": "wnut17/emerging.dev.conll",
                                  "test": "wnut17/emerging.test.annotated"}, "conll", "entity_f1"),
    "ewt-upos": TaskSpec("ewt-upos", {"train": "ud_en_ewt/en_ewt-ud-train.conllu",
                                      "dev": "ud_en_ewt/en_ewt-ud-dev.conllu",
                                      "test": "ud_en_ewt/en_ewt-ud-test.conllu"}, "conllu", "accuracy"),
}


@dataclass
class TaskData:
    """The three splits of a task, read."""

    spec: TaskSpec
    train: list[TaggedSentence]
    dev: list[TaggedSentence]
    test: list[TaggedSentence]


def load_task(name: str, data_dir: str | Path | None = None, splits: Iterable[str] = ("train", "dev", "test")
              ) -> TaskData:
    """Read a built-in task from ``data_dir`` (default: :func:`charwise.io.data_root`)."""
    if name not in TASKS:
        raise ConfigError(f"unknown task {name!r} (known: {', '.join(TASKS)})")
    spec = TASKS[name]
    root = Path(data_dir) if data_dir is not None else data_root()
    read = {s: read_tagged(root / spec.files[s], spec.format) if s in set(splits) else [] for s in spec.files}
    return TaskData(spec, read["train"], read["dev"], read["test"])
