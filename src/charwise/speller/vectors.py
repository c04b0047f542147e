"""The encoder's view of a lexicon: :class:`LexiconVectors`.

What the speller's encoder features and encoder-neighbour candidates read, computed once per
(lexicon, encoder):

* the unit-length encoder vector of every lexicon word (float16, ``(len(lexicon), dim)``), cached
  on disk under ``$CHARWISE_CACHE/speller`` keyed by a hash of the lexicon's words and of the
  encoder's weights (:func:`encoder_key`), so a speller loads them instead of embedding 160k words;
* the teacher's whole-word rows that are lexicon words (:meth:`~charwise.teachers.Teacher.whole_word_rows`,
  lower-cased), unit length: the rows a written word's nearest neighbours are searched among, and
  the ``cos_row`` feature of a candidate that has one.

:meth:`LexiconVectors.embed` gives the written words' raw and projected vectors in one encoder pass.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import numpy as np

from charwise.cache import cache_root, map_table
from charwise.io import atomic_file

if TYPE_CHECKING:
    from charwise.encoders.base import CharEncoder
    from charwise.speller.lexicon import Lexicon


def encoder_key(encoder: CharEncoder) -> str:
    """A short hash of the encoder's weights (every tensor of its state dict, by name)."""
    h = hashlib.sha256()
    for name, tensor in sorted(encoder.state_dict().items()):
        h.update(name.encode())
        h.update(tensor.detach().cpu().float().numpy().tobytes())
    return h.hexdigest()[:16]


def unit_rows(vectors: Any) -> np.ndarray:
    """A ``(n, d)`` tensor as float32 numpy rows of length one (a zero row stays zero)."""
    array = vectors.detach().cpu().float().numpy()
    return array / np.maximum(np.linalg.norm(array, axis=1, keepdims=True), 1e-8)


class LexiconVectors:
    """Encoder vectors of a lexicon's words and the teacher rows among them (see the module docstring).

    Attributes:
        words: the lexicon's words, in its order (``position[word]`` is a word's index).
        vectors: ``(len(words), dim)`` float16, unit length.
        row_words: the lexicon words that are whole-word rows of the teacher, in row order.
        row_matrix: their rows, unit length, a float32 tensor ``(len(row_words), dim)``.
        row_of: ``(len(words),)`` int64: a word's index in ``row_words``, -1 when it has no row.
    """

    def __init__(self, lexicon: Lexicon, encoder: CharEncoder) -> None:
        import torch

        self.lexicon = lexicon
        self.encoder = encoder
        self.words = lexicon.words()
        self.position = {w: i for i, w in enumerate(self.words)}
        self.vectors = self._load_or_embed()
        teacher = encoder.teacher
        rows = {w.lower(): r for w, r in teacher.whole_word_rows().items() if w.lower() in self.position}
        self.row_words = list(rows)
        table = teacher.embeddings[list(rows.values())].float() if rows else torch.zeros(0, teacher.dim)
        self.row_matrix = torch.nn.functional.normalize(table, dim=-1)
        self.row_array = self.row_matrix.numpy()
        self.row_of = np.full(len(self.words), -1, dtype=np.int64)
        self.row_of[[self.position[w] for w in self.row_words]] = np.arange(len(self.row_words))

    def _load_or_embed(self) -> np.ndarray:
        from safetensors.numpy import save

        key = hashlib.sha256("\n".join(self.words).encode("utf-8", "surrogatepass"))
        key.update(encoder_key(self.encoder).encode())
        path = cache_root() / "speller" / f"vectors-{self.lexicon.language}-{key.hexdigest()[:16]}.safetensors"
        if path.is_file():
            try:
                # memory-mapped: a batch reads the rows of its candidates, not the whole table
                stored = map_table(path, "vectors")
                if stored.shape == (len(self.words), self.encoder.dim) and stored.dtype == np.float16:
                    return stored
            except Exception:  # noqa: BLE001 - a damaged cache is recomputed
                pass
        vectors = unit_rows(self.encoder.embed(self.words, manifold=False, batch_size=2048)).astype(np.float16)
        try:
            with atomic_file(path, "wb") as f:
                f.write(save({"vectors": vectors}))
        except OSError:
            pass  # a read-only cache directory costs a recomputation next time, nothing else
        return vectors

    def embed(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(raw, projected)``: unit float32 vectors ``(len(words), dim)`` of the written words, the
        encoder's own and their projection onto the teacher's rows (the raw ones again when the
        encoder has no projection), from one encoder pass."""
        import torch

        vectors = self.encoder.embed(words, manifold=False)
        raw = unit_rows(vectors)
        if self.encoder.manifold is None:
            return raw, raw
        from charwise.encoders.manifold import project

        with torch.inference_mode():
            projected = unit_rows(project(vectors, self.encoder.row_index(False), self.encoder.manifold))
        return raw, projected
