"""Many cores: ``charwise correct`` and ``charwise encode`` with ``--workers 1`` against ``--workers 2``
(or more): lines per second, and the memory of every process the command runs.

    python -m benchmarks.scaling.workers     # writes benchmarks/results/workers.json + .png

Input: the first ``--lines`` WNUT17 tweets as written (``src/charwise/data/wnut17/raw_text/``, the
four files one after the other) for ``correct``, the first ``--encode-lines`` of them for
``encode`` (policy ``repair``: the speller and MiniLM). ``words`` is ``charwise correct`` on
``--words`` distinct misspelled words, one per line (realistic typos of wordfreq's most frequent
English words, seeded; no word repeats, so every one is scored anew): the speller's misspelled
words per second. Each command runs as a user runs it, a
fresh ``charwise`` process writing ``--out`` (``--progress none``), so the time includes starting
the workers and loading the models in them. Each run is repeated ``--repeats`` times and the
fastest kept: the machine may be shared, and the fastest run is the one least disturbed.

Memory is the proportional set size (PSS: each shared page divided among the processes that map
it), summed over the command's process and all its descendants (the forkserver and the workers),
sampled every 0.2 s; the peak of the sum is reported, and the peak of the descendants' sum alone
("workers"). Resident size would count the memory-mapped speller tables and the shared libraries
once per process, PSS counts them once in all. With one worker the command's own process is the
worker. The outputs of the different worker counts are compared byte for byte. Each command is also
run with one worker held to one thread (``OMP_NUM_THREADS=1`` and the like: torch's and the BLAS
library's pools), what one core does; ``speedup_over_one_thread`` compares every row with it.

``--busy K`` keeps K other processes spinning on the CPU during every run (a shared machine), and a
worker count of 0 in ``--workers`` runs the command without ``--workers``: its default
(``charwise.parallel.default_workers``, which reads the load average), so a run with
``--workers 0 1 2`` on a quiet and on a busy machine shows whether the default pays.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common.markdown import render_generic as render  # noqa: F401  (make_results reads it)
from benchmarks.common.paths import RESULTS, ROOT
from benchmarks.common.report import invocation, pyplot, write_result
from charwise.parallel import THREAD_VARIABLES

WRITES = ("workers", "workers_default", "workers_busy")
BUSY_WARM_UP = 75.0  # seconds: the load average's one-minute window, and a margin
PAGE = "scaling.md"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
RAW = ROOT / "src" / "charwise" / "data" / "wnut17" / "raw_text"


def tweets(count: int) -> list[str]:
    lines: list[str] = []
    for path in sorted(RAW.iterdir()):
        lines.extend(path.read_text(encoding="utf-8").splitlines())
    if len(lines) < count:
        raise SystemExit(f"only {len(lines)} tweets in {RAW}")
    return lines[:count]


def misspellings(count: int, seed: int = 0) -> list[str]:
    """``count`` distinct lower-case misspellings of frequent English words (none of them a word)."""
    import random

    from wordfreq import top_n_list

    from charwise.typos.realistic import MisspellConfig, RealisticNoiser

    frequent = [w for w in top_n_list("en", 60_000) if w.isalpha() and len(w) >= 5]
    known, noiser, rng = set(top_n_list("en", 200_000)), RealisticNoiser(MisspellConfig()), random.Random(seed)
    found: dict[str, None] = {}
    for word in frequent * 4:
        noisy = noiser.corrupt(word, rng)[0].lower()
        if noisy.isalpha() and noisy not in known:
            found[noisy] = None
            if len(found) == count:
                return list(found)
    raise SystemExit(f"only {len(found)} distinct misspellings made")


def pss(pid: int) -> int:
    """The PSS of one process in bytes (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return 0


def descendants(pid: int) -> list[int]:
    import psutil

    try:
        return [child.pid for child in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def run_charwise(argv: list[str], threads: int | None = None) -> dict[str, Any]:
    """Run ``charwise ARGV`` (with ``threads`` for its libraries' thread pools, if given); wall time,
    peak PSS of it all and of its descendants, processes seen."""
    env = dict(os.environ, **{v: str(threads) for v in THREAD_VARIABLES}) if threads else None
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "charwise.cli", *argv], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env)
    peak_all = peak_workers = 0
    seen: set[int] = set()
    while proc.poll() is None:
        children = descendants(proc.pid)
        seen.update(children)
        workers = sum(pss(pid) for pid in children)
        peak_workers = max(peak_workers, workers)
        peak_all = max(peak_all, workers + pss(proc.pid))
        time.sleep(0.2)
    wall = time.perf_counter() - started
    err = proc.stderr.read() if proc.stderr is not None else ""
    if proc.returncode != 0:
        raise SystemExit(f"charwise {' '.join(argv)} failed: {err}")
    return {"seconds": round(wall, 2), "peak_pss_mb": round(peak_all / 2**20, 1),
            "peak_pss_descendants_mb": round(peak_workers / 2**20, 1), "processes": 1 + len(seen),
            "load_before": round(os.getloadavg()[0], 2)}


def measure(command: list[str], lines: int, workers: list[int], repeats: int, tmp: Path) -> dict[str, Any]:
    """The fastest of ``repeats`` runs at each worker count, then one worker held to one thread (its
    torch and BLAS pools too): what one core does, beside what one worker does with every core."""
    rows, digests = [], {}
    for n, threads in [(n, None) for n in workers] + [(1, 1)]:
        best = None
        for _ in range(repeats):
            out = tmp / f"out-{n}-{threads}"
            out.unlink(missing_ok=True)
            chosen = ["--workers", str(n)] if n else []  # 0: the command's default
            result = run_charwise([*command, "--out", str(out), *chosen, "--progress", "none"], threads)
            digests[(n, threads)] = hashlib.sha256(out.read_bytes()).hexdigest()
            if best is None or result["seconds"] < best["seconds"]:
                best = result
        assert best is not None
        best.update(workers=n, lines_per_second=round(lines / best["seconds"], 1))
        if threads is None:
            rows.append(best)
        print(f"  {n or 'default'} workers{' (one thread)' if threads else ''}: {best['seconds']} s, "
              f"{best['lines_per_second']} lines/s, peak PSS {best['peak_pss_mb']} MB", flush=True)
    one_thread = best
    base = next((row for row in rows if row["workers"] == 1), rows[0])
    for row in rows:
        row["speedup"] = round(row["lines_per_second"] / base["lines_per_second"], 2)
        row["memory_ratio"] = round(row["peak_pss_mb"] / base["peak_pss_mb"], 2)
        row["speedup_over_one_thread"] = round(row["lines_per_second"] / one_thread["lines_per_second"], 2)
    return {"lines": lines, "rows": rows, "one_worker_one_thread": one_thread,
            "identical_outputs": len(set(digests.values())) == 1}


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    names = list(result["commands"])
    for ax, key, label in ((axes[0], "speedup", "lines/s against 1 worker"),
                           (axes[1], "memory_ratio", "peak PSS against 1 worker")):
        for i, name in enumerate(names):
            rows = result["commands"][name]["rows"]
            ax.bar([r["workers"] + 0.35 * i for r in rows], [r[key] for r in rows], width=0.35, label=name)
        ax.set_xlabel("--workers")
        ax.set_title(label)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lines", type=int, default=20_000, help="tweets for correct")
    p.add_argument("--encode-lines", type=int, default=2_000, help="tweets for encode (policy repair)")
    p.add_argument("--words", type=int, default=20_000, help="misspelled words for words")
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--busy", type=int, default=0, help="processes kept spinning on the CPU during the runs")
    p.add_argument("--commands", nargs="+", default=["correct", "encode"], choices=["correct", "encode", "words"])
    p.add_argument("--out", type=Path, default=RESULTS / "workers.json")
    args = p.parse_args(argv)
    return write_result(args.out, {"command": invocation("benchmarks.scaling.workers", argv), **run(args)}, plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Each command of ``--commands`` at each ``--workers`` count, on tweets written to a temporary folder."""
    result: dict[str, Any] = {"machine": {"cpu": platform.processor() or platform.machine(),
                                          "usable_cores": len(os.sched_getaffinity(0))},
                              "repeats": args.repeats, "busy": args.busy, "commands": {}}
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    if spinners:  # the one-minute load average the default reads takes a minute to see them
        time.sleep(BUSY_WARM_UP)
        result["load_before_runs"] = round(os.getloadavg()[0], 2)
    try:
        return _run(args, result)
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def _run(args: argparse.Namespace, result: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for name in args.commands:
            lines = {"correct": args.lines, "encode": args.encode_lines, "words": args.words}[name]
            text = tmp / f"{name}.txt"
            inputs = misspellings(lines) if name == "words" else tweets(lines)
            text.write_text("\n".join(inputs) + "\n", encoding="utf-8")
            command = (["correct" if name == "words" else name, str(text)]
                       + (["--policy", "repair"] if name == "encode" else []))
            print(f"charwise {command[0]} on {lines:,} {'misspelled words' if name == 'words' else 'tweets'}",
                  flush=True)
            result["commands"][name] = measure(command, lines, args.workers, args.repeats, tmp)
    return result


if __name__ == "__main__":
    sys.exit(main())
