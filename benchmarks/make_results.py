"""Write ``docs/results.md`` from every ``benchmarks/results/*.json``.

    python -m benchmarks.make_results            # rewrites docs/results.md (atomically)
    python -m benchmarks.make_results --check    # exit status 1, one line per problem, if anything is amiss

One section per JSON file, in file-name order: what the benchmark measures (the first sentence of
its module's docstring), the command that regenerates it, a table of its key figures and links to
the JSON, its PNG and its docs page. The output depends only on the JSON files and the modules'
declarations (no dates, no machine names), so it is reproducible.

Which module a result belongs to is read from the modules themselves (see ``benchmarks/__init__.py``):
their ``WRITES``, ``PAGE``, ``COMMANDS`` and ``BEFORE`` are read with :mod:`ast`, without importing
them, and only the standard-library modules their ``render`` (and ``commands``, ``describe``) are
imported from get imported. So no torch, no charwise: this runs in a fraction of a second.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from benchmarks.common.markdown import packaged_paths, render_generic, write_page
from benchmarks.common.paths import BENCHMARKS, DOCS, RESULTS, ROOT

DOC = DOCS / "results.md"
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


def module_paths(text: str, modules: list[Module]) -> str:
    """``python benchmarks/NAME.py`` (recorded before the package layout) -> ``python -m benchmarks.AREA.NAME``."""
    by_stem = {m.path.stem: m.name for m in modules}
    return re.sub(r"\bpython3? benchmarks/(\w+)\.py\b",
                  lambda g: f"python -m {by_stem[g.group(1)]}" if g.group(1) in by_stem else g.group(0), text)


def command_lines(stem: str, data: Any, module: Module | None, modules: list[Module]) -> list[str]:
    """How to regenerate ``stem``; empty when neither the JSON nor its module says."""
    declared = module.declared if module else {}
    hook = module.hook("commands") if module else None
    lines: list[str] = []
    if stem in declared.get("COMMANDS", {}):
        lines = list(declared["COMMANDS"][stem])
    elif hook:
        lines = hook(stem, data)
    elif isinstance(data, dict):
        recorded = data.get("command") or (data.get("protocol") or {}).get("command")
        lines = [recorded.strip()] if recorded else []
    if not lines:
        return []
    return [packaged_paths(module_paths(line, modules)) for line in declared.get("BEFORE", {}).get(stem, []) + lines]


def section(path: Path, modules: list[Module]) -> list[str]:
    stem, data = path.stem, json.loads(path.read_text(encoding="utf-8"))
    module = owner(stem, modules)
    describe = module.hook("describe") if module else None
    what = (describe and describe(stem, data)) or (summary(module.path) if module and module.script else None)
    lines = [f"## {stem}", ""] + ([what if what.endswith((".", "?")) else what + ".", ""] if what else [])
    links = [f"[`{stem}.json`](../benchmarks/results/{stem}.json)"]
    if path.with_suffix(".png").exists():
        links.append(f"figure: [`{stem}.png`](../benchmarks/results/{stem}.png)")
    if module and module.script:
        where = module.path.relative_to(ROOT).as_posix()
        links.append(f"script: [`{where}`](../{where})")
    page = module.page(stem) if module else None
    if page:
        links.append(f"discussed in [{page}]({page})")
    commands = command_lines(stem, data, module, modules)
    lines += ["Data: " + "; ".join(links) + ".", "", "Regenerate:", "", "```bash", *commands, "```", ""]
    render = (module.hook("render") if module else None) or render_generic
    return lines + render(data) + [""]


def render(results_dir: Path = RESULTS, modules: list[Module] | None = None) -> str:
    """The whole page as a string: a deterministic function of the JSON files in ``results_dir``."""
    modules = discover() if modules is None else modules
    files = sorted(Path(results_dir).glob("*.json"), key=lambda p: p.name)
    lines = [
        "<!-- Generated by benchmarks/make_results.py from benchmarks/results/*.json: do not edit by hand. -->",
        "",
        "# Benchmark results",
        "",
        "Every figure charwise publishes, one section per result file in `benchmarks/results/`, with the",
        "command that regenerates it (run from the repository root after `make install`, with",
        "`HF_HUB_OFFLINE=1`). Percentages are x 100 and rounded as in the user guide; the JSON files hold",
        "the unrounded values and the exact protocol. Regenerate this page with",
        "`python -m benchmarks.make_results`.",
        "",
        "| result | page |",
        "| --- | --- |",
    ]
    for path in files:
        module = owner(path.stem, modules)
        page = module.page(path.stem) if module else None
        lines.append(f"| [{path.stem}](#{path.stem}) | {f'[{page}]({page})' if page else '-'} |")
    lines.append("")
    for path in files:
        lines += section(path, modules)
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(line.rstrip() for line in lines) + "\n"


def problems(doc: Path = DOC, results_dir: Path = RESULTS, modules: list[Module] | None = None) -> list[str]:
    """Everything ``--check`` refuses, one line each: results no module owns or with no command, pages
    naming a result or page that is not there, and a stale ``doc``."""
    modules = discover() if modules is None else modules
    found = []
    for path in sorted(Path(results_dir).glob("*.json")):
        module = owner(path.stem, modules)
        if module is None:
            found.append(f"{path.name}: no benchmark module declares it in WRITES")
        if not command_lines(path.stem, json.loads(path.read_text(encoding="utf-8")), module, modules):
            found.append(f"{path.name}: no command (none recorded in the JSON, none in its module's COMMANDS)")
    for module in modules:
        page = module.declared.get("PAGE")
        for name in page.values() if isinstance(page, dict) else [page] if page else []:
            if not (DOCS / name).is_file():
                found.append(f"{module.name}: PAGE names docs/{name}, which does not exist")
    results = Path(results_dir)
    for page in sorted(DOCS.glob("*.md")) + [ROOT / "README.md"]:
        text = page.read_text(encoding="utf-8")
        linked = re.findall(r"\]\([./]*benchmarks/results/([a-z0-9_]+\.(?:json|png))\)", text)
        linked += [f"{stem}.json" for stem in re.findall(r"\]\((?:[./]*docs/)?results\.md#([a-z0-9_]+)\)", text)]
        for name in sorted(set(linked)):
            if not (results / name).is_file():
                found.append(f"{page.relative_to(ROOT)}: links to a result that does not exist: {name}")
    current = doc.read_text(encoding="utf-8") if doc.exists() else None
    if current != render(results_dir, modules):
        found.append(f"{doc.relative_to(ROOT) if doc.is_relative_to(ROOT) else doc} is out of date: "
                     "run python -m benchmarks.make_results")
    return found


def write(path: Path = DOC, results_dir: Path = RESULTS) -> Path:
    """Write the page to ``path`` atomically."""
    return write_page(Path(path), render(results_dir))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=str(DOC), help="output file (default docs/results.md)")
    p.add_argument("--results", default=str(RESULTS), help="directory of the result JSON files")
    p.add_argument("--check", action="store_true", help="only check (exit 1, one line per problem)")
    args = p.parse_args(argv)
    if args.check:
        found = problems(Path(args.out).resolve(), Path(args.results))
        for line in found:
            print(line, file=sys.stderr)
        return 1 if found else 0
    print(f"wrote {write(Path(args.out), Path(args.results))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
