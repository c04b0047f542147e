"""Imported by the forkserver of :mod:`charwise.parallel` after the job's own module, and by
nothing else: the job's state is loaded there once, and shared by the workers forked from it
(:func:`charwise.parallel.preload`)."""

from charwise.parallel import preload

preload()
