"""The Dask worker plugin behind :func:`charwise.io.distributed.preload` (a module of its own: it
imports ``distributed``, which only Dask users install)."""

from __future__ import annotations

import asyncio
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from charwise.io.distributed import ModelSpec, loaded


class PreloadPlugin(WorkerPlugin):
    """Loads one :class:`ModelSpec` on each worker it is registered with and on each worker that
    joins later (Dask calls ``setup`` on both). Only the spec travels; the model stays in the
    worker's process, in the per-process dictionary the batch functions read."""

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec

    async def setup(self, worker: Any) -> None:
        # off the worker's event loop: a load of seconds must not stall its heartbeats
        await asyncio.get_running_loop().run_in_executor(None, loaded, self.spec)
