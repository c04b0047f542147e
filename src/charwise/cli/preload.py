"""Imported by the forkserver of :mod:`charwise.cli.workers` after the job's own module, and by
nothing else: the job's state is loaded there once, and shared by the workers forked from it
(:func:`charwise.cli.workers.preload`)."""

from charwise.cli.workers import preload

preload()
