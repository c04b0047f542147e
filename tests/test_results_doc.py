"""docs/results.md is generated from benchmarks/results/*.json: the committed page must be current,
and ``python -m benchmarks.make_results --check`` must find nothing amiss.

If this fails after a benchmark JSON changed, run ``python -m benchmarks.make_results`` and commit
docs/results.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks import make_results

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "results.md"


def test_results_doc_is_up_to_date(tmp_path):
    out = make_results.write(tmp_path / "results.md")
    assert out.read_text(encoding="utf-8") == DOC.read_text(
        encoding="utf-8"
    ), "docs/results.md is stale: run `python -m benchmarks.make_results` and commit it"


def test_results_doc_is_the_same_whatever_the_process():
    # rendered again in processes of other hash seeds: an order taken from a set or a dict of hashed keys
    # would show there (in one process it is the same every time)
    code = "import sys, benchmarks.make_results as m; sys.stdout.write(m.render())"
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    texts = {subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, encoding="utf-8", check=True,
                            env={**env, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    assert texts == {make_results.render()}


def test_results_doc_covers_every_result():
    text = make_results.render()
    for path in sorted((ROOT / "benchmarks" / "results").glob("*.json")):
        assert f"\n## {path.stem}\n" in text
        if path.with_suffix(".png").exists():
            assert f"(../benchmarks/results/{path.stem}.png)" in text
    assert "```bash\n```" not in text  # every section has a regeneration command


def test_check_finds_nothing_amiss_in_the_repository():
    assert make_results.problems() == []


def test_check_names_each_problem(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (results / "speller_dev.json").write_text(json.dumps({"n": 1}))  # no command recorded
    (results / "mystery.json").write_text(json.dumps({"command": "true"}))  # no module writes it
    found = make_results.problems(tmp_path / "results.md", results)
    assert "speller_dev.json: no command (none recorded in the JSON, none in its module's COMMANDS)" in found
    assert "mystery.json: no benchmark module declares it in WRITES" in found
    assert any("links to a result that does not exist" in line for line in found)  # the docs link to the real ones
    assert found[-1].endswith("is out of date: run python -m benchmarks.make_results")


def test_check_exits_1_with_one_line_per_problem(tmp_path):
    run = subprocess.run([sys.executable, "-m", "benchmarks.make_results", "--check", "--out", str(tmp_path / "x.md")],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 1
    stale = f"{tmp_path / 'x.md'} is out of date: run python -m benchmarks.make_results"
    assert run.stderr.strip().splitlines() == [stale]


def test_make_results_imports_neither_torch_nor_charwise():
    code = ("import sys, benchmarks.make_results as m; m.render(); "
            "print(sorted(n for n in sys.modules if n.split('.')[0] in ('torch', 'charwise', 'numpy')))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"
