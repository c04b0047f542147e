"""Print pip constraints that pin packages to the lower bounds pyproject.toml gives them.

``make test-oldest`` installs the project with these constraints, so the lower bounds in
pyproject.toml (``torch>=X`` in ``dependencies``, ``sentence-transformers>=Y`` in an extra) are the
one place the oldest tested versions are written down: raise a bound there and the release check
follows. Usage::

    python tools/oldest_constraints.py torch transformers tokenizers > oldest.txt

Every named package must have a ``>=`` bound in ``[project] dependencies`` or in an extra of
``[project.optional-dependencies]``; the script fails otherwise, so a bound cannot silently go
untested. Standard library only (it runs before any virtual environment exists).
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"

# "name[extras] >= 1.2, <3 ; marker": the name and the version of its ">=" clause
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*([^;]*)")
_LOWER = re.compile(r">=\s*([0-9][A-Za-z0-9.+!-]*)")


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lower_bounds(pyproject: Path = PYPROJECT) -> dict[str, tuple[str, str]]:
    """``{normalized name: (name as written, lower bound)}`` over dependencies and all extras."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    requirements = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        requirements.extend(extra)
    bounds: dict[str, tuple[str, str]] = {}
    for requirement in requirements:
        match = _REQUIREMENT.match(requirement)
        if match is None:
            continue
        lower = _LOWER.search(match.group(2))
        if lower is not None:
            bounds[_normalize(match.group(1))] = (match.group(1), lower.group(1))
    return bounds


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    bounds = lower_bounds()
    missing = [name for name in argv if _normalize(name) not in bounds]
    if missing:
        print(f"no '>=' bound in {PYPROJECT.name} for: {', '.join(missing)}", file=sys.stderr)
        return 1
    for name in argv:
        written, version = bounds[_normalize(name)]
        print(f"{written}=={version}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
