"""The shape of the code: no import circles between the modules of ``src/charwise``, no
module over :data:`MAX_LINES` lines there or in ``benchmarks/``, no ``sys.path`` edits in ``benchmarks/``,
and every benchmark script's ``run(args)`` and ``render(result)``.

The import graph is read from the source with :mod:`ast` (nothing is imported). What counts:

* **module-level imports only**: statements that run when the module is imported (at the top, in
  top-level ``if`` / ``try`` blocks and class bodies). An import inside a function runs when the
  function is called, after every module has loaded, so it cannot make an import fail; it still
  ties the two modules together, but a circle is to be fixed by turning a dependency around, not
  by moving an import into a function, and this test cannot tell the two apart;
* **not ``if TYPE_CHECKING:`` blocks** (their ``else`` counts): they never run, and annotations
  naming a class of a module that imports this one are how a dependency is turned around without
  losing the types (``charwise.speller.context_model`` names ``WordCorrection`` this way);
* ``import charwise.a.b`` and ``from charwise.a import b`` (absolute or relative) give an edge to
  ``charwise.a.b`` and, for ``from``, to ``charwise.a`` too (its ``__init__`` runs first and the
  name is looked up there); the implicit import of a module's own parent packages is left out,
  as in ``grimp``: every package whose ``__init__`` imports its submodules would be a circle.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "charwise"
MAX_LINES = 500  # beyond this a module does several things: split it by what it does


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name, for ``__init__``)."""
    found = {}
    for path in sorted((SOURCE / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SOURCE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def module_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The import statements of ``tree`` that run when the module is imported (see the module docstring)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.append(node)
            elif isinstance(node, ast.If):
                if not _is_type_checking(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)
            elif isinstance(node, (ast.With, ast.ClassDef)):
                visit(node.body)

    visit(tree.body)
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports at module level."""
    known = modules()
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in module_level_imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
                continue
            if node.level:  # relative: level 1 is this module's package
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            targets.add(base)
            targets.update(f"{base}.{alias.name}" for alias in node.names)
        graph[name] = {t for t in targets if t in known and t != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of ``graph`` as ``[a, b, ..., a]``, or None (depth-first search, sorted for a
    stable report)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            cycle = visit(start)
            if cycle:
                return cycle
    return None


def test_the_graph_reader_sees_what_runs():
    tree = ast.parse("from __future__ import annotations\n"
                     "import charwise.a\n"
                     "from typing import TYPE_CHECKING\n"
                     "if TYPE_CHECKING:\n    from charwise import b\nelse:\n    from charwise import c\n"
                     "try:\n    from charwise.d import e\nexcept ImportError:\n    pass\n"
                     "def f():\n    from charwise import g\n"
                     "class H:\n    from charwise import i\n")
    seen = [n.module if isinstance(n, ast.ImportFrom) else n.names[0].name for n in module_level_imports(tree)]
    assert seen == ["__future__", "charwise.a", "typing", "charwise", "charwise.d", "charwise"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_graph_holds_every_module_and_known_edges():
    graph = import_graph()
    assert len(graph) > 100
    assert "charwise.encoders.base" in graph["charwise.encoders.cnn"]
    assert "charwise.hybrid.packing" in graph["charwise.speller.neural"]  # one scorer, two users
    assert "charwise.translation.inputs" in graph["charwise.translation.search"]


def test_no_import_circles():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_no_module_is_too_long():
    long = {name: n for name, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


BENCHMARKS = SOURCE.parent / "benchmarks"


def test_no_benchmark_module_is_too_long():
    long = {str(path.relative_to(BENCHMARKS)): n for path in sorted(BENCHMARKS.rglob("*.py"))
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"benchmark modules over {MAX_LINES} lines: {long}"


def test_benchmarks_import_each_other_as_a_package():
    """``from benchmarks.AREA.NAME import ...``, run with ``python -m``: no edits of ``sys.path``."""
    found = []
    for path in sorted(BENCHMARKS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Attribute) and node.attr == "path" and getattr(node.value, "id", None) == "sys":
                found.append(f"{path.relative_to(BENCHMARKS)}:{node.lineno}")
    assert not found, f"sys.path used in benchmarks: {found}"


def test_every_benchmark_script_exposes_run_and_render():
    """A script that writes results (declares ``WRITES`` and has a ``main``) measures in ``run(args)``,
    which returns the result, and shows a result with ``render(result)`` (``benchmarks/__init__.py``).
    The modules that only declare results other commands write (``charwise eval``) have no ``run``."""
    from benchmarks.common.discovery import discover

    scripts = [m.name for m in discover() if m.script]
    assert len(scripts) > 30
    for name in scripts:
        module = importlib.import_module(name)  # the real module: what a caller of run gets
        assert callable(getattr(module, "run", None)), f"{name} has no run(args)"
        assert callable(getattr(module, "render", None)), f"{name} has no render(result)"
        assert len(inspect.signature(module.run).parameters) == 1, f"{name}.run must take exactly one parameter (args)"
