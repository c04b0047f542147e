"""Where things are: the repository, the result files, the spelling data kept beside the checkout."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
RESULTS = BENCHMARKS / "results"
DOCS = ROOT / "docs"
# the downloaded spelling test sets live outside the repository (licences)
SPELLING_DATA = Path(os.environ.get("CHARWISE_SPELLING_BENCHMARKS",
                                    ROOT.parent / "shared" / "data" / "spelling_benchmarks"))
