"""charwise on many machines: batch functions for Dask (and ``datasets.Dataset.map``) that load
each model once per worker process and send only text.

The engine is **Dask distributed** (``pip install 'charwise[dask]'``). Of the three engines users
already run for corpora (Dask, Ray, Spark), Dask installs from pip alone, runs the same code on a
laptop (``LocalCluster``), on a cluster (``dask-jobqueue``, Kubernetes) and in tests, reads text
and Parquet directly (``dask.bag.read_text``, ``dask.dataframe.read_parquet``), and calls plain
Python functions on plain Python data: no JVM (Spark) and no separate object store or GPU
scheduler to operate (Ray) for work that is CPU-bound Python over text. The functions here are
engine-neutral all the same: they take a batch of texts and return a batch of results, so Ray's
``map_batches`` or a Spark pandas UDF can call them too.

**One load per worker process, text in every task.** A task carries a :class:`ModelSpec` (a
top-level loading function and its arguments: a language, a teacher name, a policy), never the
model. :func:`loaded` keeps what each spec loaded in a per-process dictionary, so the first task
a worker process runs loads the model and every later task reuses it; :func:`load_counts` says
how many times each spec was loaded in the process (tests check that it is once per worker).
:func:`preload` registers a Dask worker plugin that loads a spec on every worker of a ``Client``,
those present and those that join later, before their first batch; two processes of one machine
that both build a missing cache entry wait for each other (:func:`charwise.cache.cache_lock`), so a
fresh node builds each entry once.

The batch functions, each taking a sequence of texts (a list, a pandas Series: a Series comes back
as a Series with the same index):

* :func:`repair_batch`: :func:`charwise.repair`, the corrected texts;
* :func:`correct_batch`: :meth:`Speller.correct_lines <charwise.speller.Speller.correct_lines>`,
  the corrected texts;
* :func:`encode_batch`: :meth:`SentenceEncoder.encode <charwise.SentenceEncoder.encode>`, a float32
  ``(n, dim)`` array.

Example (docs/scaling.md has it over a Parquet dataset)::

    from dask.distributed import Client, LocalCluster
    import dask.bag as db
    from charwise.io.distributed import repair_batch

    client = Client(LocalCluster(n_workers=2, threads_per_worker=1))
    texts = db.read_text("tweets-*.txt").map(str.rstrip)
    texts.map_partitions(repair_batch, language="en").to_textfiles("repaired-*.txt", last_endline=True)

For ``datasets``: ``dataset.map(BatchMap(repair_batch, "text", "repaired"), batched=True, num_proc=4)``.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np


@dataclass(frozen=True)
class ModelSpec:
    """How a worker loads a model: ``factory(*args, **dict(kwargs))``. ``factory`` must be a
    top-level function (it is sent by reference) and the arguments small and hashable (names,
    paths, numbers): the spec is what travels with each task and keys the per-process cache."""

    factory: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()

    def load(self) -> Any:
        return self.factory(*self.args, **dict(self.kwargs))


_MODELS: dict[ModelSpec, Any] = {}
_LOADS: Counter[ModelSpec] = Counter()
_LOCK = threading.Lock()  # a worker with several threads loads a spec once, not once per thread


def loaded(spec: ModelSpec) -> Any:
    """The model of ``spec`` in this process: loaded by the first call, the same object after."""
    with _LOCK:
        model = _MODELS.get(spec)
        if model is None:
            model = _MODELS[spec] = spec.load()
            _LOADS[spec] += 1
        return model


def load_counts() -> dict[str, int]:
    """How many times each spec was loaded in this process, keyed by :func:`describe`."""
    with _LOCK:
        return {describe(spec): n for spec, n in _LOADS.items()}


def describe(spec: ModelSpec) -> str:
    """``module.function(args, key=value)``: a spec in words."""
    arguments = [repr(a) for a in spec.args] + [f"{k}={v!r}" for k, v in spec.kwargs]
    return f"{spec.factory.__module__}.{spec.factory.__qualname__}({', '.join(arguments)})"


def forget_models() -> None:
    """Drop every model this process loaded (the next task loads again)."""
    with _LOCK:
        _MODELS.clear()
        _LOADS.clear()


def preload(client: Any, spec: ModelSpec) -> None:
    """Load ``spec`` on every worker of a ``dask.distributed.Client``: those present now (this
    returns once each has it) and every worker that joins the cluster later (a worker plugin,
    registered under the spec's name, so preloading a spec twice loads it once)."""
    from charwise.io.dask_preload import PreloadPlugin

    client.register_plugin(PreloadPlugin(spec), name=f"charwise-preload-{describe(spec)}")


def _speller(language: str, options: tuple[tuple[str, Any], ...]) -> Any:
    from charwise.speller import Speller

    return Speller.load(language, **dict(options))


def _shared_speller(language: str) -> Any:
    from charwise.speller.repair import shared_speller

    return shared_speller(language)


def _sentence_encoder(teacher: str, policy: str, options: tuple[tuple[str, Any], ...]) -> Any:
    from charwise.hybrid.sentence import SentenceEncoder

    return SentenceEncoder(teacher, policy, **dict(options))


def speller_spec(language: str = "en", **options: Any) -> ModelSpec:
    """:meth:`Speller.load(language, **options) <charwise.speller.Speller.load>` (options such as
    ``word_files``, ``context``: hashable values)."""
    return ModelSpec(_speller, (language, tuple(sorted(options.items()))))


def repair_spec(language: str = "en") -> ModelSpec:
    """The speller :func:`charwise.repair` shares in a process."""
    return ModelSpec(_shared_speller, (language,))


def sentence_encoder_spec(teacher: str = "minilm", policy: str = "repair", **options: Any) -> ModelSpec:
    """``SentenceEncoder(teacher, policy, **options)`` (options such as ``encoder``, ``max_length``)."""
    return ModelSpec(_sentence_encoder, (teacher, policy, tuple(sorted(options.items()))))


def _texts(batch: Any) -> list[str]:
    texts = list(batch)
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"a batch holds texts (str), got {type(text).__name__}")
    return texts


def _like(batch: Any, values: list[Any]) -> Any:
    """``values`` as a pandas Series with ``batch``'s index when ``batch`` is one, else a list."""
    if type(batch).__name__ == "Series" and hasattr(batch, "index"):
        import pandas as pd

        return pd.Series(values, index=batch.index, name=getattr(batch, "name", None), dtype=object)
    return values


def repair_batch(batch: Sequence[str], language: str = "en", *, threshold: float | None = None,
                 spec: ModelSpec | None = None) -> Any:
    """:func:`charwise.repair` of a batch of texts, their repaired texts (a list, or a Series for a
    Series). ``spec``: the speller to use instead of the shared one of ``language``."""
    from charwise.speller.repair import repair

    texts = _texts(batch)
    speller = loaded(spec or repair_spec(language))
    return _like(batch, [t.corrected for t in repair(texts, language, threshold=threshold, speller=speller)])


def correct_batch(batch: Sequence[str], language: str = "en", *, threshold: float | None = None,
                  spec: ModelSpec | None = None) -> Any:
    """:meth:`Speller.correct_lines` of a batch of texts with the shipped speller of ``language``
    (every kind of change, as ``charwise correct``; ``spec``: another speller), their corrected texts."""
    texts = _texts(batch)
    speller = loaded(spec or speller_spec(language))
    return _like(batch, [t.corrected for t in speller.correct_lines(texts, threshold)])


def encode_batch(batch: Sequence[str], teacher: str = "minilm", policy: str = "repair", *, batch_size: int = 32,
                 spec: ModelSpec | None = None) -> np.ndarray:
    """:meth:`SentenceEncoder.encode` of a batch of texts: float32 ``(len(batch), dim)``, unit rows."""
    encoder = loaded(spec or sentence_encoder_spec(teacher, policy))
    return encoder.encode(_texts(batch), batch_size=batch_size).numpy()


@dataclass(frozen=True)
class BatchMap:
    """A ``datasets.Dataset.map(..., batched=True)`` function: ``function`` (one of the batch
    functions above) over column ``source``, its results in column ``target``. Picklable and
    small, so ``num_proc`` worker processes each load the model once.

    Example::

        dataset.map(BatchMap(repair_batch, "text", "repaired"), batched=True, num_proc=2)
    """

    function: Callable[..., Any]
    source: str = "text"
    target: str = "output"
    options: tuple[tuple[str, Any], ...] = ()

    def __call__(self, batch: dict[str, list[Any]]) -> dict[str, Any]:
        result = self.function(batch[self.source], **dict(self.options))
        return {self.target: result.tolist() if isinstance(result, np.ndarray) else list(result)}
