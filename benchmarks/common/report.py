"""What a benchmark does last: its JSON written atomically, its figure beside it (``NAME.png``).

    from benchmarks.common.report import pyplot, write_result
    return write_result(args.out, result, plot)
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, Sequence


def pyplot() -> Any:
    """``matplotlib.pyplot`` drawing to files (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: Path) -> None:
    """Lay ``fig`` out, write it to ``path`` and close it (pyplot keeps every figure open until then)."""
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    pyplot().close(fig)


def plot_right_wrong(sweeps: dict[str, dict[str, dict[str, int]]], marked: float | None, marked_label: str,
                     xlabel: str, ylabel: str, path: Path) -> None:
    """Right and wrong changes against the threshold, one pair of lines per sweep (``{name: {threshold:
    {"right": n, "wrong": n}}}``; a name of ``""`` for a single sweep), the threshold ``marked`` as a line."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.2))
    for (name, rows), style in zip(sweeps.items(), ("-", ":", "--")):
        ts = [float(t) for t in rows]
        suffix = f" ({name})" if name else ""
        ax.plot(ts, [rows[t]["right"] for t in rows], "o" + style, color="tab:green", label="right" + suffix)
        ax.plot(ts, [rows[t]["wrong"] for t in rows], "o" + style, color="tab:red", label="wrong" + suffix)
    if marked is not None:
        ax.axvline(marked, color="grey", linestyle="--", label=marked_label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7)
    save_figure(fig, path)


def plot_labels(rows: dict[str, dict[str, int]], xlabel: str, path: Path) -> None:
    """One bar per row (``{name: {"right": n, "wrong": n, "not labelled": n}}``), its changes stacked by label."""
    plt = pyplot()
    names = list(rows)
    fig, ax = plt.subplots(figsize=(8, 3.5))
    bottom = [0] * len(names)
    for label, colour in (("right", "tab:green"), ("wrong", "tab:red"), ("not labelled", "tab:gray")):
        values = [rows[n][label] for n in names]
        ax.barh(names, values, left=bottom, color=colour, label=label)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xlabel(xlabel)
    ax.legend(loc="lower right")
    save_figure(fig, path)


def invocation(module: str, argv: Sequence[str] | None) -> str:
    """The command that ran benchmark ``module`` with ``argv`` (None: this process's own arguments),
    as its JSON records it: ``python -m MODULE ARGS``."""
    return " ".join(["python -m " + module, *(sys.argv[1:] if argv is None else argv)])


def write_result(path: Path, result: Any, plot: Callable[[Any, Path], object]) -> int:
    """Write ``result`` to ``path`` (atomically, :func:`charwise.io.write_json`), draw ``plot`` to
    ``path`` with ``.png``, say where; the exit status of a benchmark's ``main``."""
    from charwise.io import write_json

    write_json(path, result)
    plot(result, path.with_suffix(".png"))
    print(f"wrote {path}")
    return 0
