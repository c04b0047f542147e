"""docs/results.md is generated from benchmarks/results/*.json: the committed page must be current.

If this fails after a benchmark JSON changed, run ``python benchmarks/make_results.py`` and commit
docs/results.md.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "make_results.py"
DOC = ROOT / "docs" / "results.md"


def _make_results():
    spec = importlib.util.spec_from_file_location("make_results", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_results_doc_is_up_to_date(tmp_path):
    make_results = _make_results()
    out = make_results.write(tmp_path / "results.md")
    assert out.read_text(encoding="utf-8") == DOC.read_text(
        encoding="utf-8"
    ), "docs/results.md is stale: run `python benchmarks/make_results.py` and commit it"


def test_results_doc_covers_every_result_and_is_deterministic():
    make_results = _make_results()
    text = make_results.render()
    assert text == make_results.render()
    for path in sorted((ROOT / "benchmarks" / "results").glob("*.json")):
        assert f"\n## {path.stem}\n" in text
        if path.with_suffix(".png").exists():
            assert f"(../benchmarks/results/{path.stem}.png)" in text
    assert "```bash\n```" not in text  # every section has a regeneration command
