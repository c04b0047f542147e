"""Typo-robust sentence embeddings: all-MiniLM-L6-v2's pooling on top of a hybrid model.

:class:`SentenceEncoder` is a thin layer over :class:`charwise.hybrid.st.CharwiseHybrid`: the same
``preprocess`` and ``forward`` that a ``SentenceTransformer`` runs (:func:`charwise.hybrid.st.sentence_transformer`),
then :func:`mean_pool` and L2 normalisation, without needing sentence-transformers installed.
"""

from __future__ import annotations

import collections
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Iterable, Iterator, Literal, Sequence, TypeVar, cast

import torch
import torch.nn.functional as F

from charwise.encoders.base import CharEncoder
from charwise.errors import ConfigError
from charwise.hybrid.model import HybridInputs, HybridModel
from charwise.hybrid.policies import Policy, RepairPolicy
from charwise.hybrid.st import CharwiseHybrid
from charwise.parallel import Job, WorkerDied, WorkerPool, check_workers, usable_cores
from charwise.presets import DEFAULT_POLICY

T = TypeVar("T")
_END = object()  # what next() gives for an exhausted iterator in _one_ahead


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
        prepare_workers: with a ``repair`` policy, processes that run its speller on the batches ahead
            of the model (0: the speller runs in this process, between the model's batches). For a
            GPU, whose batches take less time than the speller's pass over them; on a CPU the
            model's own threads want the cores (``charwise encode --workers`` splits whole pipelines
            instead). ``"auto"`` (the default): on a GPU, with the shipped speller of a ``repair``
            policy, every usable core but the one this process feeds the GPU from; otherwise 0. The
            processes start on the first :meth:`encode` and serve every later one, until
            :meth:`close` or the end of a ``with`` block. The vectors are the same bytes: the
            workers make the same decisions (their probabilities agree to float32 rounding).

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
        prepare_workers: int | Literal["auto"] = "auto",
    ) -> None:
        if prepare_workers != "auto":
            check_workers(prepare_workers, "prepare_workers", minimum=0)
        self.module = CharwiseHybrid(teacher, policy, encoder, max_length=max_length, device=device)
        self.module.eval()
        if prepare_workers == "auto":
            prepare_workers = self._sized_to_machine()
        self.prepare_workers = prepare_workers
        self._pool: WorkerPool | None = None
        self._pool_lock = threading.Lock()
        if prepare_workers:
            chosen = self.policy
            if not isinstance(chosen, RepairPolicy):
                raise ConfigError(f"prepare_workers runs a repair policy's speller in other processes; policy "
                                  f"'{chosen.name}' has no speller (leave prepare_workers at 0)")
            if chosen.speller_given:
                raise ConfigError("prepare_workers loads the shipped speller of the policy's language in each "
                                  "process; a Speller given to RepairPolicy lives in this process only "
                                  "(leave prepare_workers at 0)")

    def _sized_to_machine(self) -> int:
        """``prepare_workers="auto"``: on a GPU, with the shipped speller of a repair policy, every
        usable core but this process's; else 0 (on a CPU the model's own threads want the cores)."""
        chosen = self.policy
        on_gpu = any(p.device.type == "cuda" for p in self.module.parameters())
        if not on_gpu or not isinstance(chosen, RepairPolicy) or chosen.speller_given:
            return 0
        return max(0, usable_cores() - 1)

    @property
    def hybrid(self) -> HybridModel:
        return self.module.hybrid

    @property
    def policy(self) -> Policy:
        return self.hybrid.policy

    @property
    def dim(self) -> int:
        return self.hybrid.teacher.dim

    def _repair_pool(self) -> WorkerPool:
        """The processes of ``prepare_workers``, started on first use."""
        with self._pool_lock:
            if self._pool is None:
                policy = self.policy
                assert isinstance(policy, RepairPolicy)
                job = Job("charwise.hybrid.policies:load_repair_policy", "charwise.hybrid.policies:repairs_of",
                          {"language": policy.language, "threshold": policy.threshold},
                          warm="charwise.hybrid.policies:warm_repair_policy")
                # one thread each: the speller is Python; the model's process keeps the other cores
                self._pool = WorkerPool(job, self.prepare_workers, threads=1)
                self._closer = weakref.finalize(self, self._pool.close)
            return self._pool

    def close(self) -> None:
        """Stop the ``prepare_workers`` processes (a later :meth:`encode` starts them again)."""
        with self._pool_lock:
            if self._pool is not None:
                self._closer.detach()
                self._pool.close()
                self._pool = None

    def __enter__(self) -> "SentenceEncoder":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

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
        ``none`` in two runs, 0.72x and 1.10x with ``repair``; on a 2-core CPU 0.98x). Processes
        do not share the lock: ``prepare_workers`` (see the class) runs the speller in them.
        """
        if isinstance(sentences, str):
            raise TypeError("encode() takes a list of sentences, not a single string")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"batch_size must be positive, got {batch_size!r}")
        texts = self.module.checked_texts(sentences)
        out = torch.empty((len(texts), self.dim))
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        batches = [order[start : start + batch_size] for start in range(0, len(order), batch_size)]
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(batches), desc="encode", unit="batch")
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="charwise-prepare") as preparer, \
                torch.inference_mode():
            prepared = self._prepared([[texts[i] for i in idx] for idx in batches])
            for idx, inputs in zip(batches, _one_ahead(prepared, preparer) if overlap else prepared):
                pooled = mean_pool(self.module.states(inputs), inputs.attention_mask)
                if normalize:
                    pooled = F.normalize(pooled, p=2, dim=1)
                out[torch.tensor(idx)] = pooled.float().cpu()
                if bar is not None:
                    bar.update(1)
        if bar is not None:
            bar.close()
        return out

    def _prepared(self, batches: Iterable[list[str]]) -> Iterator[HybridInputs]:
        """The model inputs of each batch of texts, in order; with ``prepare_workers`` the policy's
        repairs come from the worker processes, which read the batches ahead."""
        if not self.prepare_workers:
            for batch in batches:
                with torch.inference_mode():  # grad mode is per thread
                    inputs = self.hybrid.prepare_texts(batch)
                yield inputs
            return
        split: collections.deque[tuple[list[list[str]], list[list[bool]]]] = collections.deque()

        def requests() -> Iterator[tuple[list[list[str]], list[list[bool]] | None]]:
            for batch in batches:  # read by the pool as its workers become free
                split.append(self.hybrid.split_texts(batch))
                yield self.hybrid.repair_request(*split[-1])

        try:
            for repairs in self._repair_pool().map(requests()):
                with torch.inference_mode():
                    inputs = self.hybrid.prepare(*split.popleft(), repairs=repairs)
                yield inputs
        except WorkerDied:
            self.close()  # a pool with a dead worker runs nothing more: the next call starts new processes
            raise


def _one_ahead(items: Iterator[T], thread: ThreadPoolExecutor) -> Iterator[T]:
    """``items``, each next one produced on ``thread`` while the caller works on this one."""
    pending = thread.submit(next, items, _END)
    while True:
        item = pending.result()
        if item is _END:
            return
        pending = thread.submit(next, items, _END)
        yield cast(T, item)
