"""charwise's benchmarks: one folder per area, each module run as ``python -m benchmarks.AREA.NAME``
from the repository root (they import each other as package modules, never through ``sys.path``).

* ``common/``: what several use: ``paths`` (the repository, ``results/``, the spelling data),
  ``report`` (a result's JSON and figure), ``markdown`` (rounding and tables for result pages),
  ``discovery`` (the benchmark modules and their declarations, read without importing them),
  ``retrieval`` (the UD EWT test sentences, rank metrics) and ``misspelling`` (misspelled copies of
  sentences, real or synthetic).
* ``AREA/NAME.py``: a benchmark. Its ``main`` parses the arguments, calls ``run(args)``, which
  measures and returns the result, and writes ``results/NAME*.json`` (a run that resumes rewrites
  its JSON as it goes, from ``run``). It declares, as literals at module level, ``WRITES`` (the
  result names it writes: a file stem, or a prefix before ``_``), ``PAGE`` (the docs page discussing
  them; a dict by result name when they differ) and, for results whose JSON records no command,
  ``COMMANDS`` (and ``BEFORE``: steps that must run first). It exposes ``render(result) -> list[str]``
  (and optionally ``commands``, ``describe``) by importing it from ``AREA/render.py``.
* ``AREA/render.py``: the area's renderers, standard library only.

``make_results`` reads the declarations with :mod:`ast` without importing the benchmark (most
import torch and charwise at module level) and imports only the render modules, so writing and
checking ``docs/results.md`` stays a fraction-of-a-second, standard-library job.
"""
