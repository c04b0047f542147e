"""Typo-robust sentence embeddings: all-MiniLM-L6-v2's pooling on top of a hybrid model.

:class:`SentenceEncoder` is a thin layer over :class:`charwise.hybrid.st.CharwiseHybrid`: the same
``preprocess`` and ``forward`` that a ``SentenceTransformer`` runs (:func:`charwise.hybrid.st.sentence_transformer`),
then :func:`mean_pool` and L2 normalisation, without needing sentence-transformers installed.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Sequence

import torch
import torch.nn.functional as F

from charwise.encoders.base import CharEncoder
from charwise.errors import ConfigError
from charwise.hybrid.model import HybridInputs, HybridModel
from charwise.hybrid.policies import Policy
from charwise.hybrid.st import CharwiseHybrid
from charwise.presets import DEFAULT_POLICY


def mean_pool(states: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """Average of the states at real positions (special tokens included, as sentence-transformers does)."""
    mask = attention_mask.unsqueeze(-1).to(states.dtype)
    return (states * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)


class SentenceEncoder:
    """Mean-pooled, L2-normalised sentence vectors, as all-MiniLM-L6-v2 produces them.

    With ``policy="repair"`` (default) words the speller is confident are misspelled are read as
    their correction and every other word keeps the model's pieces, so the vectors of sentences whose
    words are all known are the base model's. ``"none"`` is the base model; ``"oov"`` builds every
    word the tokenizer splits from its characters.

    Args:
        teacher: ``"minilm"`` or a sentence-transformers style BERT directory.
        policy: a policy name or :class:`~charwise.hybrid.policies.Policy` (see :mod:`charwise.hybrid.policies`).
        encoder: a shipped encoder name or a directory; default: the one shipped for ``teacher``.
        max_length: positions per sentence (all-MiniLM-L6-v2 uses 256); longer sentences are
            truncated with a warning.

    Example (run by tests/test_doctests.py)::

        >>> enc = SentenceEncoder("minilm")          # policy "repair"
        >>> vectors = enc.encode(["the acommodation was great", "the accommodation was great"])
        >>> tuple(vectors.shape), [round(norm, 3) for norm in vectors.norm(dim=1).tolist()]
        ((2, 384), [1.0, 1.0])
        >>> round(float(vectors[0] @ vectors[1]), 3)  # "acommodation" is read as "accommodation"
        1.0
    """

    def __init__(
        self, teacher: str = "minilm", policy: str | Policy = DEFAULT_POLICY, encoder: str | CharEncoder | None = None,
        *, max_length: int = 256, device: str | torch.device | None = None,
    ) -> None:
        self.module = CharwiseHybrid(teacher, policy, encoder, max_length=max_length, device=device)
        self.module.eval()

    @property
    def hybrid(self) -> HybridModel:
        return self.module.hybrid

    @property
    def policy(self) -> Policy:
        return self.hybrid.policy

    @property
    def dim(self) -> int:
        return self.hybrid.teacher.dim

    def sentence_transformer(self):
        """A ``SentenceTransformer`` sharing this encoder's weights (needs ``pip install charwise[st]``)."""
        from charwise.hybrid.st import sentence_transformer_from

        return sentence_transformer_from(self.module, device=self.hybrid.model.device)

    def encode(
        self, sentences: Sequence[str], batch_size: int = 32, *, normalize: bool = True, progress: bool = False,
        overlap: bool = False,
    ) -> torch.Tensor:
        """``(len(sentences), dim)`` float32 vectors on the CPU, in input order.

        Sentences are batched longest-first so that padding stays small. An empty or
        whitespace-only sentence gets the vector of the special tokens alone. With ``overlap`` the
        next batch is prepared (policy, speller, pieces, input vectors) on a second thread while the
        model runs on this one. Off by default, on every device: preparation is Python code that
        holds the interpreter lock, so the two threads take turns anyway and the hand-over costs
        time (measured on an H200: 0.77x the sentences per second of batches in turn with policy
        ``none`` in two runs, 0.72x and 1.10x with ``repair``; on a 2-core CPU 0.98x).
        """
        if isinstance(sentences, str):
            raise TypeError("encode() takes a list of sentences, not a single string")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"batch_size must be positive, got {batch_size!r}")
        texts = self.module.checked_texts(sentences)
        out = torch.empty((len(texts), self.dim))
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        batches = [order[start : start + batch_size] for start in range(0, len(order), batch_size)]

        def prepare(idx: list[int]) -> HybridInputs:
            with torch.inference_mode():  # grad mode is per thread
                return self.hybrid.prepare_texts([texts[i] for i in idx])

        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(batches), desc="encode", unit="batch")
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="charwise-prepare") as preparer, \
                torch.inference_mode():

            def prepared(idx: list[int]) -> Future[HybridInputs]:
                """Batch ``idx`` being prepared on the second thread, or prepared here and now."""
                if overlap:
                    return preparer.submit(prepare, idx)
                done: Future[HybridInputs] = Future()
                done.set_result(prepare(idx))
                return done

            pending = prepared(batches[0]) if batches else None
            for n, idx in enumerate(batches):
                assert pending is not None
                inputs = pending.result()
                if n + 1 < len(batches):
                    pending = prepared(batches[n + 1])
                pooled = mean_pool(self.module.states(inputs), inputs.attention_mask)
                if normalize:
                    pooled = F.normalize(pooled, p=2, dim=1)
                out[torch.tensor(idx)] = pooled.float().cpu()
                if bar is not None:
                    bar.update(1)
        if bar is not None:
            bar.close()
        return out
