"""Time of rendering ``report.html`` for a large real run.

Without ``--results`` it first makes the run: the whole shipped suite with the oracle on the
sandbox, in all three modes, ``--reps`` times (4 by default: 648 items for 54 scenarios, about
20 MB of transcripts), in a temporary directory. Then it times, in this process: importing the
report package (matplotlib and jinja2 included), reading the run's files, the first render (the
template is compiled, matplotlib's fonts are loaded), further renders, each phase of one render
(items and transcripts, the forest plot's bootstrap intervals, each plot, the page) and
``write_report``.

    python bench/report_html.py [--results DIR] [--reps 4] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def read_run(results: Path) -> tuple[dict[str, Any], list[dict[str, Any]], list[Any], int]:
    """Summary, rows and transcript records of the latest run in ``results``, and the
    transcripts' size in bytes."""
    from pytest_ghxbench.records.reading import read_items, read_transcripts
    from pytest_ghxbench.records.store import LATEST, resolve_run

    run = resolve_run(results, LATEST)
    summary = run.read_summary()
    assert summary is not None, f"{run.path} has no summary.json"
    size = sum(path.stat().st_size for path in run.transcript_files())
    return summary.to_json_dict(), read_items(run), read_transcripts(run), size


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
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", type=Path, help="an existing results directory (.ghxbench)")
    parser.add_argument("--reps", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ghxbench-html-bench-") as tmp:
        results = args.results or make_run(Path(tmp), args.reps)
        bench(results, args.rounds, Path(tmp))


def bench(results: Path, rounds: int, tmp: Path) -> None:
    import_time, _ = timed(lambda: __import__("pytest_ghxbench.htmlreport"))
    from pytest_ghxbench.htmlreport import plots, render_report, write_report
    from pytest_ghxbench.htmlreport.intervals import forest_data
    from pytest_ghxbench.htmlreport.items import build_items, mode_order
    from pytest_ghxbench.htmlreport.page import page_context, render_context

    read_time, (summary, items, transcripts, size) = timed(lambda: read_run(results))

    def render() -> str:
        return render_report(summary, items, transcripts)

    first, html = timed(render)
    warm = [timed(render)[0] for _ in range(rounds)]
    modes = list(summary.get("modes", {}))
    views, _ = build_items(items, transcripts, modes)
    item_modes = mode_order({view.mode for view in views}, modes)
    data = forest_data(summary, views)
    context = page_context(summary, items, transcripts)
    phases: dict[str, Callable[[], Any]] = {
        "items + transcripts": lambda: build_items(items, transcripts, modes),
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
    write_time, path = timed(lambda: write_report(tmp / "report.html", summary, items, transcripts))
    scenarios = len({item.get("scenario_id") for item in items})

    print(f"command: python bench/report_html.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"machine: {machine()}, load average {os.getloadavg()[0]:.1f}")
    print(
        f"run: {len(items)} items ({scenarios} scenarios x {len(modes)} modes), "
        f"{len(transcripts)} transcript records, {size / 1e6:.1f} MB of transcripts"
    )
    print(f"import pytest_ghxbench.htmlreport (matplotlib, jinja2): {import_time:.2f} s")
    print(f"read summary, rows and transcripts (json): {read_time:.2f} s")
    print(f"render_report: first {first:.2f} s (template compile, font cache)")
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
