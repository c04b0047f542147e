"""The reports ``charwise decoder train`` writes (no benchmark script): spelling words back from vectors."""

from __future__ import annotations

from benchmarks.correction.render import render_decoder as render

WRITES = ("decoder",)
PAGE = "decoder.md"

__all__ = ["render"]
