"""Many cores: chunks of work on worker processes, results back in input order.

:func:`ordered_results` runs ``work(state, chunk)`` for each chunk of an input and yields the results
in the order of the chunks, each as soon as it and every chunk before it are done, so a caller
writes its output as it goes. ``state`` is what a :class:`Job`'s ``load`` returns (a speller, an
encoder): each worker process calls it once, when it starts, and keeps it for every chunk it is
given; only chunks of text and their results cross between processes, never a model.
:class:`WorkerPool` keeps the processes for many runs (``SentenceEncoder.encode(prepare_workers=...)``
starts its pool once, not once per call).

The processes come from the ``forkserver`` context: a small server process imports the module of the
job's ``load`` once and forks each worker from itself, so the workers share the pages of those
imports (and of the tables the speller memory-maps, which the page cache holds once) instead of
each building its own; nothing is forked from the caller's own process, whose threads, state and
GPU context a fork would copy. Each worker gets its share of the usable cores for its own threads
(set in the worker itself, through threadpoolctl and torch, so a forkserver that an earlier pool
started with other settings passes none of them on), ignores Ctrl-C (the caller's process answers
it and stops the workers), and ends within a second of the process that started its pool, however
that process ends (SIGTERM, SIGKILL, a closed terminal): a killed command leaves no worker, and
with the workers gone the forkserver and the resource tracker end too.

The forkserver is one per process (CPython's design): the first pool to start it decides what it
preloads (the state of that pool's job, shared by every worker forked from it). A later pool of the
same job shares that state; a pool of another job loads its own state in each worker, as it would
without a preload.

With one worker, or an input that fits in one chunk, :func:`ordered_results` runs everything in the
caller's own process (no process is started: a short input answers in the time of one model load).
"""

from __future__ import annotations

import collections
import concurrent.futures
import gc
import importlib
import itertools
import json
import multiprocessing.forkserver
import os
import select
import signal
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from charwise.errors import CharwiseError, ConfigError

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
AHEAD = 2  # chunks queued per worker beyond the one it runs: workers never wait, memory stays bounded
PRELOAD_VARIABLE = "CHARWISE_PRELOAD_JOB"


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, which a container or ``taskset`` may
    narrow), not every core of the machine."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def default_workers() -> int:
    """The worker count for this machine now: the usable cores that are not already busy (the
    one-minute load average taken from them, rounded), at least one. On a quiet machine that is every
    core; where other programs keep cores busy, charwise leaves them their cores and does not pay a
    second worker's memory. Measured on a 2-core machine, ``charwise correct`` of 20,000 tweets
    (``python -m benchmarks.scaling.workers --workers 0 1 2``, and ``--busy 2`` beside two spinning
    processes): quiet, the default ran two workers, 1.60x one worker's lines/s at 1.53x its memory;
    busy, it ran one, where two would have taken 1.45x the lines/s from the other programs' share of
    the cores, at the same 1.53x memory."""
    cores = usable_cores()
    try:
        busy = os.getloadavg()[0]
    except OSError:  # no load average on this platform: every usable core
        busy = 0.0
    return max(1, min(cores, int(cores - busy + 0.5)))


@dataclass(frozen=True)
class Job:
    """What each worker runs: ``load`` and ``work`` are ``"module:function"`` names (so that a
    worker imports only what it runs); ``load(**options)`` is called once per worker and its result
    given to ``work(state, chunk)`` for each chunk."""

    load: str
    work: str
    options: dict[str, Any] = field(default_factory=dict)
    # "module:function" called with the state in the forkserver before any worker is forked: what the
    # state loads on first use (a speller's edit index, normaliser, confusion sets) is then loaded
    # once and shared, not once per worker
    warm: str = ""

    def start(self) -> Any:
        """The state, loaded in this process."""
        return _resolve(self.load)(**self.options)

    def run(self, state: Any, chunk: Any) -> Any:
        return _resolve(self.work)(state, chunk)


def _resolve(name: str) -> Callable[..., Any]:
    module, _, function = name.partition(":")
    loaded: Callable[..., Any] = getattr(importlib.import_module(module), function)
    return loaded


def ordered_results(job: Job, chunks: Iterable[Any], workers: int) -> Iterator[Any]:
    """``job``'s work on each chunk, in the order of ``chunks``, on ``workers`` processes (see the
    module docstring); chunks are read from ``chunks`` only as workers become free, so the input is
    never held whole. An error in a worker is raised here, as it was raised there."""
    chunks = iter(chunks)
    head = list(itertools.islice(chunks, 2))
    if workers <= 1 or len(head) < 2:
        state = job.start()
        for chunk in itertools.chain(head, chunks):
            yield job.run(state, chunk)
        return
    pool = WorkerPool(job, workers)
    finished = False
    try:
        yield from pool.map(itertools.chain(head, chunks))
        finished = True
    finally:
        # an error or an interruption: stop the workers now, not after their queue
        pool.close(terminate=not finished)


DIED = ("a worker process died: out of memory (fewer workers need less), or a script that starts workers outside "
        "`if __name__ == \"__main__\":` (each worker imports it again); --resume continues an --out file after what "
        "was finished")


class WorkerDied(CharwiseError):
    """A worker process died: its pool can run nothing more (close it; a new one starts afresh)."""


def check_workers(value: object, name: str = "workers", minimum: int = 1) -> int:
    """``value`` as a count of worker processes (at least ``minimum``), else a one-line ConfigError."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        wanted = "a positive integer" if minimum == 1 else f"{minimum} or more"
        raise ConfigError(f"{name} must be {wanted}, got {value!r}")
    return value


class WorkerPool:
    """``job`` on ``workers`` processes, started once and kept for every :meth:`map` until
    :meth:`close` (or the end of a ``with`` block). ``threads`` is each worker's share of the cores
    (default: the usable cores divided among the workers)."""

    def __init__(self, job: Job, workers: int, threads: int | None = None) -> None:
        self.job, self.workers = job, check_workers(workers)
        self.threads = threads or max(1, usable_cores() // workers)
        try:
            context = multiprocessing.get_context("forkserver")
        except ValueError:  # Windows has no forkserver
            raise ConfigError("worker processes need the forkserver start method, which this platform lacks "
                              "(Linux and macOS have it); use one worker") from None
        # The server imports the job's module (numpy, maybe torch) once for every worker, so the thread
        # counts that those libraries read at import must be in its environment when it starts.
        # With one thread a worker the server also loads the job's state once, and the workers forked
        # from it share its pages (tables, weights) instead of each loading a copy: no library thread
        # pool has started in the server then, which a fork would leave broken in the child.
        preload = {PRELOAD_VARIABLE: _job_key(job)} if self.threads == 1 else {}
        saved = {variable: os.environ.get(variable) for variable in (*THREAD_VARIABLES, PRELOAD_VARIABLE)}
        try:
            os.environ.update({variable: str(self.threads) for variable in THREAD_VARIABLES}, **preload)
            context.set_forkserver_preload([job.load.partition(":")[0], "charwise.parallel_preload"])  # in this order
            multiprocessing.forkserver.ensure_running()
        finally:
            for variable, value in saved.items():
                if value is None:
                    os.environ.pop(variable, None)
                else:
                    os.environ[variable] = value
        # each worker sends its process id here when it starts: close(terminate=True) stops them by it
        self._started: Any = context.SimpleQueue()
        self._executor: concurrent.futures.ProcessPoolExecutor | None = concurrent.futures.ProcessPoolExecutor(
            workers, mp_context=context, initializer=_start_worker,
            initargs=(job, self.threads, os.getpid(), self._started))

    def map(self, chunks: Iterable[Any]) -> Iterator[Any]:
        """The job's result for each chunk, in order; at most ``AHEAD`` chunks a worker are queued,
        so the input is read as workers become free. A run left early cancels what it queued."""
        if self._executor is None:
            raise CharwiseError("this worker pool is closed")
        executor = self._executor
        pending: collections.deque[concurrent.futures.Future[Any]] = collections.deque()
        try:
            for chunk in chunks:
                try:
                    pending.append(executor.submit(_run_chunk, chunk))
                except concurrent.futures.process.BrokenProcessPool:
                    raise WorkerDied(DIED) from None
                while len(pending) > self.workers * AHEAD or (pending and pending[0].done()):
                    yield _result(pending.popleft())
            while pending:
                yield _result(pending.popleft())
        finally:
            for future in pending:
                future.cancel()

    def close(self, terminate: bool = False) -> None:
        """Stop the workers: after the chunks they run, or at once with ``terminate``."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        if terminate:
            for pid in self._worker_pids():
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:  # ended already
                    pass
        executor.shutdown(wait=True, cancel_futures=True)
        self._started.close()

    def _worker_pids(self) -> list[int]:
        """The process ids of the workers started so far (each sent its own when it started)."""
        pids = []
        while not self._started.empty():
            pids.append(self._started.get())
        return pids

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: Any) -> None:
        self.close(terminate=kind is not None)


def _result(future: concurrent.futures.Future[Any]) -> Any:
    try:
        return future.result()
    except concurrent.futures.process.BrokenProcessPool:
        raise WorkerDied(DIED) from None


# --- in the forkserver and the worker processes ------------------------------------------------
_job: Job | None = None
_state: Any = None
_failure: BaseException | None = None
_preloaded: tuple[str, Any] | None = None  # (the job's key, its state) loaded in the forkserver


def _job_key(job: Job) -> str:
    return json.dumps([job.load, job.options, job.warm], sort_keys=True, default=str)


def preload() -> None:
    """In the forkserver (:mod:`charwise.parallel_preload` calls it there, after the job's module is
    imported), if the caller set :data:`PRELOAD_VARIABLE` while it started the server: load the
    named job's state once (and warm it), for every worker forked from it, then freeze it out of the
    garbage collector's reach. A failure is left to the workers to meet, and report, when they load
    the state themselves."""
    global _preloaded
    key = os.environ.pop(PRELOAD_VARIABLE, "")
    if not key:
        return
    load, options, warm = json.loads(key)
    try:
        state = Job(load, "", options).start()
        if warm:
            _resolve(warm)(state)
    except Exception:
        _preloaded = None
        return
    _preloaded = key, state
    # what is loaded now moves out of the collector's reach: a collection in a worker would touch
    # every object it tracks, and so copy every page of the shared state into that worker
    gc.collect()
    gc.freeze()


def _start_worker(job: Job, threads: int, owner: int, started: Any) -> None:
    """A worker's start: its end tied to the pool's ``owner`` process, its share of the cores, Ctrl-C
    left to the caller, its process id sent to ``started``, then the one load."""
    global _job, _state, _failure
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    _end_with(owner)
    started.put(os.getpid())
    for variable in THREAD_VARIABLES:  # for the libraries the load imports from now on
        os.environ[variable] = str(threads)
    _limit_threads(threads)  # for those the forkserver imported, under whatever settings it started with
    try:
        preloaded = _preloaded is not None and _preloaded[0] == _job_key(job)
        _job, _state = job, (_preloaded[1] if _preloaded is not None and preloaded else job.start())
        _limit_threads(threads)  # and for those the load imported
    except BaseException as e:  # kept, and raised for the first chunk: an initializer's error breaks the pool
        _failure = e


def _limit_threads(threads: int) -> None:
    """At most ``threads`` threads in this process's native thread pools (BLAS, OpenMP, torch's)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(threads)
    if "torch" in sys.modules:
        import torch

        torch.set_num_threads(threads)


def _run_chunk(chunk: Any) -> Any:
    if _failure is not None:
        raise _failure
    assert _job is not None
    return _job.run(_state, chunk)


def _end_with(owner: int) -> None:
    """End this process as soon as process ``owner`` (the one whose pool started it) ends, however it
    ends. A worker's parent is the forkserver, which outlives a killed caller (every worker holds it
    open), so the kernel's parent-death signal alone leaves the workers running; a thread here waits
    on the owner's process file descriptor (Linux 5.3 on; elsewhere it asks once a second)."""
    def watch() -> None:
        try:
            handle = os.pidfd_open(owner)
        except (AttributeError, OSError):
            handle = None
        if handle is not None:
            select.select([handle], [], [])  # readable once the owner has ended
        else:
            while _alive(owner):
                threading.Event().wait(1.0)
        os.kill(os.getpid(), signal.SIGKILL)  # at once: nothing of a dead caller's run is wanted

    threading.Thread(target=watch, name="charwise-end-with-owner", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's: not ours, so the owner is gone
        return False
    return True


def _die_with_parent() -> None:
    """Ask Linux to kill this process when its parent (the forkserver) dies."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the pool's own shutdown has to do
        pass
