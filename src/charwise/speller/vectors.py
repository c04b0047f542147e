"""The encoder's view of a lexicon: :class:`LexiconVectors`.

What the speller's encoder features and encoder-neighbour candidates read, computed once per
(lexicon, encoder):

* the unit-length encoder vector of every lexicon word (float16, ``(len(lexicon), dim)``), cached
  on disk under ``$CHARWISE_CACHE/speller`` keyed by a hash of the lexicon's words and of the
  encoder's weights (:func:`encoder_key`), so a speller loads them instead of embedding 160k words;
* the teacher's whole-word rows that are lexicon words (:meth:`~charwise.teachers.Teacher.whole_word_rows`,
  lower-cased), unit length: the rows a written word's nearest neighbours are searched among, and
  the ``cos_row`` feature of a candidate that has one.

:meth:`LexiconVectors.embed` gives the written words' raw and projected vectors in one encoder pass,
in numpy (:func:`~charwise.encoders.manifold.project_array`). The encoder is a torch
:class:`~charwise.encoders.base.CharEncoder` or, what :meth:`Speller.load <charwise.speller.Speller.load>`
uses, the same CNN run in numpy (:class:`~charwise.encoders.arrays.CharCNNArrays`): the speller then
never imports torch. The teacher's rows it projects onto (:class:`TeacherRows`) are cached beside
the vectors, so the teacher is loaded once, not on every start.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from charwise.cache import (
    DAMAGED_ENTRY,
    array_text,
    building,
    cache_lock,
    cache_root,
    map_table,
    mark_used,
    save_tables,
    text_array,
)
from charwise.encoders.arrays import CharCNNArrays, weights_key
from charwise.encoders.manifold import hub_scores_array, project_array
from charwise.errors import CheckpointError

if TYPE_CHECKING:
    from charwise.encoders.base import CharEncoder
    from charwise.speller.lexicon import Lexicon

#: What the speller embeds with: a torch encoder, or a CNN run in numpy (no torch import)
WordEncoder = Union["CharEncoder", CharCNNArrays]
ROWS_FORMAT = 1  # bump when the teacher-rows cache changes


def encoder_key(encoder: WordEncoder) -> str:
    """A short hash of the encoder's weights (every tensor of its state dict, by name)."""
    if isinstance(encoder, CharCNNArrays):
        return encoder.key
    return weights_key({name: t.detach().cpu().float().numpy() for name, t in encoder.state_dict().items()})


def raw_vectors(encoder: WordEncoder, words: list[str], batch_size: int = 1024) -> np.ndarray:
    """The encoder's raw (unprojected) vectors of ``words``, float32 ``(n, dim)``."""
    if isinstance(encoder, CharCNNArrays):
        return encoder.embed(words, batch_size=batch_size)
    return encoder.embed(words, manifold=False, batch_size=batch_size).detach().cpu().float().numpy()


def unit_rows(vectors: Any) -> np.ndarray:
    """``(n, d)`` vectors (a tensor or an array) as float32 numpy rows of length one (a zero row stays zero)."""
    array = vectors.detach().cpu().float().numpy() if hasattr(vectors, "detach") else np.asarray(vectors, np.float32)
    return array / np.maximum(np.linalg.norm(array, axis=1, keepdims=True), 1e-8)


@dataclass
class TeacherRows:
    """The teacher's rows a whole word's vector is projected onto and searched among: its
    ``normal`` word-start rows, in row order, as unit rows and their lengths (a row is
    ``unit * norm``). ``surfaces``: each row's string."""

    surfaces: list[str]
    unit: np.ndarray  # (V, d) float32
    norms: np.ndarray  # (V,) float32

    @classmethod
    def of(cls, encoder: WordEncoder) -> "TeacherRows":
        """The rows of the encoder's teacher: a torch encoder's own teacher; a numpy one's from
        the cache under ``$CHARWISE_CACHE/speller`` (built once, by loading the teacher)."""
        if not isinstance(encoder, CharCNNArrays):
            return cls.from_teacher(encoder.teacher)
        info = encoder.teacher_info
        name = info.get("name")
        if not name:
            raise CheckpointError("this encoder does not record its teacher")
        # keyed by the teacher's identity (a name may be a directory path: hashed, not spelled out)
        key = hashlib.sha256(json.dumps([ROWS_FORMAT, str(name), info.get("vocab_hash"), encoder.dim]).encode())
        path = cache_root() / "speller" / f"rows-{key.hexdigest()[:16]}.safetensors"
        with cache_lock(path):
            if path.is_file():
                try:
                    # memory-mapped: only the unit rows are large, and every batch reads them all
                    unit, norms = map_table(path, "unit"), np.array(map_table(path, "norms"))
                    surfaces = array_text(map_table(path, "surfaces"))
                    if unit.shape == (len(surfaces), encoder.dim) and norms.shape == (len(surfaces),):
                        mark_used(path)
                        return cls(surfaces, unit, norms)
                except DAMAGED_ENTRY:  # a damaged cache is rebuilt
                    pass
            from charwise.teachers import Teacher

            what = f"the rows of teacher {Path(str(name)).name!r} the speller projects onto"
            with building(what, path):
                teacher = Teacher.load(name)
                if teacher.dim != encoder.dim or info.get("vocab_hash") not in (None, teacher.vocab_hash):
                    raise CheckpointError(f"the encoder was trained for another '{name}' teacher "
                                          "(its dimension or vocabulary differs)")
                rows = cls.from_teacher(teacher)
                try:
                    save_tables({"surfaces": text_array(rows.surfaces), "unit": rows.unit, "norms": rows.norms}, path,
                                what)
                except OSError:
                    pass  # a read-only cache directory costs a rebuild next time, nothing else
            return rows

    @classmethod
    def from_teacher(cls, teacher: Any) -> "TeacherRows":
        ids = (teacher.normal_mask & teacher.word_start_mask).nonzero().squeeze(1)
        rows = teacher.embeddings[ids].detach().float().cpu().numpy()
        norms = np.linalg.norm(rows, axis=1)
        unit = rows / np.maximum(norms, 1e-12)[:, None]  # torch's F.normalize
        return cls([teacher.vocab.surfaces[i] for i in ids.tolist()], unit.astype(np.float32), norms.astype(np.float32))

    def whole_words(self) -> dict[str, int]:
        """Lower-cased surface -> position of its row (:meth:`Teacher.whole_word_rows`: a surface
        that several rows share keeps its first; lower-cased, the last such surface wins)."""
        first: dict[str, int] = {}
        for position, surface in enumerate(self.surfaces):
            first.setdefault(surface, position)
        return {surface.lower(): position for surface, position in first.items()}


def _language_prefix(lexicon: Lexicon) -> int:
    """How many of the lexicon's first words come from its language's own sources (dictionaries,
    the teacher): :meth:`Lexicon.build` adds them before any user word, so they are the plain
    lexicon's words in its order (the cache key, a hash of those words, checks that they are)."""
    from charwise.speller.lexicon import DICTIONARY, TEACHER

    shared = 0
    for entry in lexicon.entries.values():
        if not entry.sources & (DICTIONARY | TEACHER):
            break
        shared += 1
    return shared


class LexiconVectors:
    """Encoder vectors of a lexicon's words and the teacher rows among them (see the module docstring).

    Attributes:
        words: the lexicon's words, in its order (``position[word]`` is a word's index).
        vectors: ``(len(words), dim)`` float16, unit length.
        row_words: the lexicon words that are whole-word rows of the teacher, in row order.
        row_array: their rows, unit length, float32 ``(len(row_words), dim)``.
        row_of: ``(len(words),)`` int64: a word's index in ``row_words``, -1 when it has no row.
        projection_rows: ``(unit, norms)`` of :class:`TeacherRows`, what the raw vectors are projected onto.
    """

    def __init__(self, lexicon: Lexicon, encoder: WordEncoder) -> None:
        self.lexicon = lexicon
        self.encoder = encoder
        self.words = lexicon.words()
        self.position = {w: i for i, w in enumerate(self.words)}
        self.key = encoder_key(encoder)
        self.vectors = self._load_or_embed()
        teacher_rows = TeacherRows.of(encoder)  # its surfaces are not kept: 150k strings for e5
        self.projection_rows = (teacher_rows.unit, teacher_rows.norms)
        rows = {w: r for w, r in teacher_rows.whole_words().items() if w in self.position}
        self.row_words = list(rows)
        self.row_array = np.ascontiguousarray(teacher_rows.unit[list(rows.values())], dtype=np.float32)
        self.row_of = np.full(len(self.words), -1, dtype=np.int64)
        self.row_of[[self.position[w] for w in self.row_words]] = np.arange(len(self.row_words))
        self._hub: np.ndarray | None = None

    def _vectors_path(self, words: list[str]) -> Path:
        key = hashlib.sha256("\n".join(words).encode("utf-8", "surrogatepass"))
        key.update(self.key.encode())
        return cache_root() / "speller" / f"vectors-{self.lexicon.language}-{key.hexdigest()[:16]}.safetensors"

    def _load_or_embed(self) -> np.ndarray:
        """The lexicon's vectors, from the cache or embedded (and cached). A lexicon with user words
        (``--lexicon``) starts with its language's own words, in the same order: their vectors are
        read from (or first saved as) the plain lexicon's entry, and only the user words are
        embedded, so a new word list costs seconds instead of embedding the whole lexicon again."""
        with cache_lock(self._vectors_path(self.words)):
            stored = self._cached(self._vectors_path(self.words), len(self.words))
            if stored is not None:
                return stored
            shared = _language_prefix(self.lexicon)
            what = f"the speller's encoder vectors of {len(self.words):,} words"
            with building(what, self._vectors_path(self.words)):
                if 0 < shared < len(self.words):
                    base = self._cached(self._vectors_path(self.words[:shared]), shared)
                    if base is None:
                        base = self._embed_and_save(self.words[:shared],
                                                    f"the speller's encoder vectors of {shared:,} words")
                    vectors = np.concatenate([base, self._embed(self.words[shared:])])
                    self._save(vectors, self._vectors_path(self.words), what)
                    return vectors
                return self._embed_and_save(self.words, what)

    def _cached(self, path: Path, rows: int) -> np.ndarray | None:
        if path.is_file():
            try:
                # memory-mapped: a batch reads the rows of its candidates, not the whole table
                stored = map_table(path, "vectors")
                if stored.shape == (rows, self.encoder.dim) and stored.dtype == np.float16:
                    mark_used(path)
                    return stored
            except DAMAGED_ENTRY:  # a damaged cache is recomputed
                pass
        return None

    def _embed(self, words: list[str]) -> np.ndarray:
        return unit_rows(raw_vectors(self.encoder, words, batch_size=2048)).astype(np.float16)

    def _embed_and_save(self, words: list[str], what: str) -> np.ndarray:
        vectors = self._embed(words)
        self._save(vectors, self._vectors_path(words), what)
        return vectors

    @staticmethod
    def _save(vectors: np.ndarray, path: Path, what: str) -> None:
        try:
            save_tables({"vectors": vectors}, path, what)
        except OSError:
            pass  # a read-only cache directory costs a recomputation next time, nothing else

    def embed(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(raw, projected)``: unit float32 vectors ``(len(words), dim)`` of the written words, the
        encoder's own and their projection onto the teacher's rows (the raw ones again when the
        encoder has no projection), from one encoder pass."""
        vectors = raw_vectors(self.encoder, words)
        raw = unit_rows(vectors)
        manifold = self.encoder.manifold
        if manifold is None:
            return raw, raw
        unit, norms = self.projection_rows
        if manifold.metric == "csls" and self._hub is None:
            self._hub = hub_scores_array(unit)
        return raw, unit_rows(project_array(vectors, unit, norms, manifold, self._hub))
