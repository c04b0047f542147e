"""The benchmark modules and what they declare, read with :mod:`ast` (nothing is imported: most
benchmarks import torch and charwise at module level, and ``make_results`` must stay a
standard-library job).

A module under ``benchmarks/AREA/`` declares, as literals at module level, ``WRITES``, ``PAGE``,
``COMMANDS`` and ``BEFORE`` (see ``benchmarks/__init__.py``), and imports its ``render`` (and
``commands``, ``describe``) from its area's ``render.py``; only those hooks are imported, on demand.
"""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from benchmarks.common.paths import BENCHMARKS, ROOT

DECLARED = ("WRITES", "PAGE", "COMMANDS", "BEFORE")
HOOKS = ("render", "commands", "describe")


@dataclass
class Module:
    """What a benchmark module declares about the results it writes."""

    name: str  # dotted, e.g. benchmarks.correction.lexnorm
    path: Path
    script: bool  # has a main(): a docstring to quote, a file to link
    declared: dict[str, Any] = field(default_factory=dict)
    hooks: dict[str, tuple[str, str]] = field(default_factory=dict)  # hook -> (module, attribute)

    def hook(self, name: str) -> Callable[..., Any] | None:
        if name not in self.hooks:
            return None
        module, attribute = self.hooks[name]
        return getattr(importlib.import_module(module), attribute)

    def page(self, stem: str) -> str | None:
        page = self.declared.get("PAGE")
        if isinstance(page, dict):
            return page[max((k for k in page if stem == k or stem.startswith(k + "_")), key=len)]
        return page


def read_module(path: Path) -> Module:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    module = Module(name, path, any(isinstance(n, ast.FunctionDef) and n.name == "main" for n in tree.body))
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if isinstance(target, ast.Name) and target.id in DECLARED and node.value is not None:
            module.declared[target.id] = ast.literal_eval(node.value)
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if (alias.asname or alias.name) in HOOKS:
                    module.hooks[alias.asname or alias.name] = (node.module, alias.name)
    return module


def discover(root: Path = BENCHMARKS) -> list[Module]:
    """Every module under ``benchmarks/AREA/`` that declares ``WRITES``."""
    found = [read_module(p) for p in sorted(root.glob("*/*.py")) if p.name != "__init__.py"]
    return [m for m in found if "WRITES" in m.declared]


def owner(stem: str, modules: list[Module]) -> Module | None:
    """The module that writes ``stem``.json: the one declaring the longest matching name."""
    hits = [(len(w), m) for m in modules for w in m.declared["WRITES"] if stem == w or stem.startswith(w + "_")]
    return max(hits, key=lambda h: h[0])[1] if hits else None


def summary(script: Path) -> str:
    """The first sentence of a module's docstring, on one line (read without importing it)."""
    doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or ""
    paragraph = " ".join(doc.split("\n\n")[0].split())
    match = re.match(r"(.+?[.?])(\s|$)", paragraph)
    return (match.group(1) if match else paragraph).replace("``", "`")
