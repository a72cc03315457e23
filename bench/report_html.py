"""What ``report.html`` costs: its size and its share of a session's CPU, and its render time.

With ``--items N`` (repeatable) it runs the zero-work session of ``bench/overhead.py`` over N
items (20 scenarios, one mode) and reports, for the code of this checkout and, with
``--before DIR`` (an unpacked older commit, e.g. ``git archive main | tar -x -C DIR``), for
that code too, side by side: the session's CPU time (user + system, median of ``--rounds``
sessions), the CPU time of writing the run's report.html in a fresh process that has loaded
what a session has (``render.html.run_report.write_run_report``: reading the rows, rendering,
writing; median of ``--rounds``), that share of the session's CPU, and the page's size.

    python bench/report_html.py --items 2000 --items 10000 --before /tmp/old [--rounds 3]

Without ``--items`` it times rendering a real run: without ``--results`` it first makes one,
the whole shipped suite with the oracle on the sandbox in all three modes, ``--reps`` times (4
by default: 648 items for 54 scenarios), in a temporary directory. Then it times, in this
process: importing the report package, reading the run's files, the first render (the template
is compiled), further renders, each phase of one render (the items, the forest plot's bootstrap
intervals, each plot, the page) and ``write_report``.

    python bench/report_html.py [--results DIR] [--reps 4] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_ghxbench.records.models import RunSummary

REPO = Path(__file__).resolve().parents[1]


def read_run(results: Path) -> tuple[RunSummary, list[dict[str, Any]], int]:
    """Summary and rows of the latest run in ``results``, and its transcripts' size in bytes
    (the report links to them; it does not read them)."""
    from pytest_ghxbench.records.reading import read_items
    from pytest_ghxbench.records.store import LATEST, resolve_run

    run = resolve_run(results, LATEST)
    summary = run.read_summary()
    assert summary is not None, f"{run.path} has no summary.json"
    size = sum(path.stat().st_size for path in run.transcript_files())
    return summary, read_items(run), size


def make_run(directory: Path, reps: int) -> Path:
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "--ghx-mode=agent_direct,mcp,ghx",
        f"--reps={reps}",
        f"--ghx-scenarios={REPO / 'scenarios'}",
    ]
    print(f"making the run: {' '.join(command[1:])}", flush=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "GHXBENCH_"))}
    started = time.perf_counter()
    subprocess.run(
        command,
        cwd=directory,
        env={**env, "HYPOTHESIS_NO_PLUGINS": "1"},
        capture_output=True,
        check=False,
    )
    print(f"  ({time.perf_counter() - started:.1f} s)")
    return directory / ".ghxbench"


def timed(function: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = function()
    return time.perf_counter() - started, result


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{cpu}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
        f"python {platform.python_version()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--results", type=Path, help="an existing results directory (.ghxbench)")
    parser.add_argument("--reps", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--items", type=int, action="append", help="zero-work sessions of this many items"
    )
    parser.add_argument("--before", type=Path, help="an unpacked older tree to compare with")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ghxbench-html-bench-") as tmp:
        if args.items:
            bench_sessions(args.items, args.before, args.rounds, Path(tmp))
            return
        results = args.results or make_run(Path(tmp), args.reps)
        bench(results, args.rounds, Path(tmp))


# Run in a fresh process by each code tree: what writing the report costs at a session's end.
MEASURE_REPORT = """
import json, sys, time
from pathlib import Path
import importlib
import pytest_ghxbench

def first(*names):  # this tree's module, whichever layout it has (issue 24 moved them)
    for name in names:
        try:
            return importlib.import_module(name)
        except ImportError:
            pass
    raise ImportError(names)

first("pytest_ghxbench.hooks.session_plugin", "pytest_ghxbench.run.session_plugin")
write_run_report = first(
    "pytest_ghxbench.render.html.run_report", "pytest_ghxbench.htmlreport.run_report",
    "pytest_ghxbench.runlog.reading",
).write_run_report
store = first("pytest_ghxbench.records.store", "pytest_ghxbench.runlog.store")
LATEST, resolve_run = store.LATEST, store.resolve_run

run = resolve_run(Path(sys.argv[1]), LATEST)
cpu = time.process_time()
path = write_run_report(run)
print(json.dumps({"cpu": time.process_time() - cpu, "bytes": path.stat().st_size,
                  "package": str(Path(pytest_ghxbench.__file__).parent)}))
"""


def child_cpu(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    """CPU time (user + system) and stdout of a child process that must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(
            f"{command} failed in {cwd}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, done.stdout


def bench_sessions(counts: list[int], before: Path | None, rounds: int, tmp: Path) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    from overhead import CHILD_ENV, make_projects

    trees = {"after": REPO}
    if before is not None:
        trees = {"before": before.resolve(), **trees}
    print(f"command: python bench/report_html.py {' '.join(sys.argv[1:])}")
    print(f"machine: {machine()}, load average {os.getloadavg()[0]:.1f}")
    print(f"trees: {', '.join(f'{label} {path}' for label, path in trees.items())}")
    print("items | code | session CPU (median) | report.html CPU (median) | share | size")
    for count in counts:
        plugin_dir, _, _ = make_projects(tmp / f"items-{count}", count)
        for label, tree in trees.items():
            env = {**CHILD_ENV, "PYTHONPATH": str(tree), "HYPOTHESIS_NO_PLUGINS": "1"}
            session = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
            session += ["--ghx-mode=ghx"]
            child_cpu(session, plugin_dir, env)  # warm-up: bytecode and file caches
            sessions = [child_cpu(session, plugin_dir, env)[0] for _ in range(rounds)]
            results = plugin_dir / ".ghxbench"
            reports = []
            for _ in range(rounds):
                measure = [sys.executable, "-c", MEASURE_REPORT, str(results)]
                reports.append(json.loads(child_cpu(measure, plugin_dir, env)[1]))
            assert all(Path(r["package"]).parent == tree for r in reports), reports[0]["package"]
            session_cpu = statistics.median(sessions)
            report_cpu = statistics.median(r["cpu"] for r in reports)
            print(
                f"{count:,} | {label} | {session_cpu:.2f} s {[round(t, 2) for t in sessions]} | "
                f"{report_cpu:.2f} s {[round(r['cpu'], 2) for r in reports]} | "
                f"{100 * report_cpu / session_cpu:.0f} % | {reports[-1]['bytes'] / 1e6:.2f} MB",
                flush=True,
            )


def bench(results: Path, rounds: int, tmp: Path) -> None:
    import_time, _ = timed(lambda: __import__("pytest_ghxbench.render.html"))
    from pytest_ghxbench.render.html import plots, render_report, write_report
    from pytest_ghxbench.render.html.intervals import forest_data
    from pytest_ghxbench.render.html.items import build_items, mode_order
    from pytest_ghxbench.render.html.page import page_context, render_context

    read_time, (summary, items, size) = timed(lambda: read_run(results))

    def render() -> str:
        return render_report(summary, items)

    first, html = timed(render)
    warm = [timed(render)[0] for _ in range(rounds)]
    modes = list(summary.modes)
    views = build_items(items, modes)
    item_modes = mode_order({view.mode for view in views}, modes)
    data = forest_data(summary, views)
    context = page_context(summary, items)
    phases: dict[str, Callable[[], Any]] = {
        "items": lambda: build_items(items, modes),
        "forest intervals (bootstrap)": lambda: forest_data(summary, views),
        "forest plot": lambda: plots.forest_plot(data),
        "distributions plot": lambda: plots.distributions_plot(views, item_modes),
        "success plot": lambda: plots.success_plot(views, item_modes),
        "page (template)": lambda: render_context(context),
    }
    phase_times = {
        name: statistics.median(timed(function)[0] for _ in range(rounds))
        for name, function in phases.items()
    }
    write_time, path = timed(lambda: write_report(tmp / "report.html", summary, items))
    scenarios = len({item.get("scenario_id") for item in items})

    print(f"command: python bench/report_html.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"machine: {machine()}, load average {os.getloadavg()[0]:.1f}")
    print(
        f"run: {len(items)} items ({scenarios} scenarios x {len(modes)} modes), "
        f"{size / 1e6:.1f} MB of transcripts (linked, not read)"
    )
    print(f"import pytest_ghxbench.render.html (jinja2): {import_time:.2f} s")
    print(f"read summary and rows (json): {read_time:.2f} s")
    print(f"render_report: first {first:.2f} s (template compile)")
    print(
        f"render_report: median {statistics.median(warm):.2f} s over {rounds} more "
        f"{[round(t, 2) for t in warm]}"
    )
    for name, seconds in phase_times.items():
        print(f"  {name}: {seconds:.2f} s (median of {rounds})")
    print(f"write_report: {write_time:.2f} s -> {path.stat().st_size / 1e6:.2f} MB HTML")
    print(f"page: {len(html.encode('utf-8')) / 1e6:.2f} MB, {html.count('<svg')} inline SVG plots")


if __name__ == "__main__":
    main()
