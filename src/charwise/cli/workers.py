"""``--workers``, ``--progress`` and ``--resume``: the command-line options of the commands that run
their chunks of lines on many processes (the engine is :mod:`charwise.parallel`). A GPU ``--device``
runs in the command's own process.
"""

from __future__ import annotations

import argparse

from charwise.errors import ConfigError
from charwise.parallel import default_workers


def add_worker_options(parser: argparse.ArgumentParser, resume: bool = True) -> None:
    """``--workers`` and ``--progress`` (and ``--resume`` for commands whose ``--out`` is resumable)."""
    from charwise.cli.progress import PROGRESS_MODES

    parser.add_argument("--workers", type=int, default=None,
                        help="processes that share the work, each with the model loaded once (default: the "
                             "usable cores not already busy, by the load average, at least 1; 1 with a GPU "
                             "--device); 1 runs in this process")
    parser.add_argument("--progress", default="auto", choices=PROGRESS_MODES,
                        help="auto: a bar on a terminal, else a log line every few seconds on standard error "
                             "(lines done, total, rate, time left); bar, log or none")
    if resume:
        parser.add_argument("--resume", action="store_true",
                            help="continue the output of an interrupted run (kept as OUT.partial) after the "
                                 "lines it finished")


def check_worker_options(args: argparse.Namespace, input_path: str | None = None) -> None:
    """``--workers`` set (None: :func:`~charwise.parallel.default_workers`) and >= 1; ``--resume``
    needs ``--out`` and an input file (standard input cannot be read again from where a run
    stopped). A GPU ``--device`` runs in the command's own process: worker processes started after
    it was set up could not use it, and its batches already fill it."""
    from charwise.cli.common import check_int_min

    device = getattr(args, "device", None)
    gpu = device is not None and device.partition(":")[0].strip().lower() != "cpu"
    if args.workers is None:
        args.workers = 1 if gpu else default_workers()
    check_int_min("--workers", args.workers, 1)
    if gpu and args.workers > 1:
        raise ConfigError(f"--device {device} runs in one process: give --workers 1 (or leave it out)")
    if getattr(args, "resume", False):
        if not getattr(args, "out", None):
            raise ConfigError("--resume continues an interrupted --out FILE: give --out")
        if input_path is None or input_path == "-":
            raise ConfigError("--resume needs an input file: standard input cannot be read again from where a run "
                              "stopped")
