"""Time of the embedded default: the shipped suite x 3 modes x 4 reps, sandbox + oracle.

Runs ``pytest --ghx-mode=agent_direct,mcp,ghx --reps=4`` on the repository's ``scenarios/``
(in a fresh subprocess, serially and with ``-n 2``), and reports the wall time of the whole run
and the median time per item, overall and per mode: the time pytest measured for each item
(setup, call and teardown, from the JUnit XML report). That covers binding, the item's fresh
world and its registration with the session's API server, the oracle's real client calls (gh
processes, the MCP server's start and tool calls, ghx over HTTP), the expected answer over the
API, token counting, judging and the row.

    python bench/suite_speed.py [--rounds 3] [--modes serial,-n2]
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
from pathlib import Path
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parents[1]


def run(extra: list[str], results: Path) -> tuple[float, list[tuple[str, float]], str]:
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--ghx-mode=agent_direct,mcp,ghx",
        "--reps=4",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--junitxml={results / 'junit.xml'}",
        f"--ghx-results={results}",
        *extra,
    ]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    cases = ElementTree.parse(results / "junit.xml").getroot().iter("testcase")
    per_item = [
        (_mode(case.get("name", "")), float(case.get("time", "0")))
        for case in cases
        if (case.get("classname"), case.get("name")) != ("ghxbench", "gate")  # the verdict's
    ]
    tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-500:]
    return wall, per_item, tail


def _mode(name: str) -> str:
    """``agent_direct`` of an item named ``pr-view-001[agent_direct-r1]``."""
    inside = name.rpartition("[")[2].rstrip("]")
    return inside.rpartition("-r")[0] or "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--modes", default="serial,-n2", help="serial and/or -n2")
    args = parser.parse_args()
    cores = os.cpu_count()
    print(f"machine: {platform.machine()} {cores} cores, python {platform.python_version()}")
    runs: dict[str, list[str]] = {"serial": [], "-n2": ["-p", "xdist", "-n", "2"]}
    with tempfile.TemporaryDirectory(prefix="ghxbench-suite-") as tmp:
        for label in args.modes.split(","):
            extra = runs[label]
            walls: list[float] = []
            times: dict[str, list[float]] = {}
            tail = ""
            for i in range(args.rounds):
                wall, per_item, tail = run(extra, Path(tmp) / f"{label}-{i}")
                walls.append(wall)
                for mode, seconds in per_item:
                    times.setdefault(mode, []).append(seconds)
            every = [t for ts in times.values() for t in ts]
            per_mode = ", ".join(
                f"{mode} {1000 * statistics.median(ts):.0f} ms"
                for mode, ts in sorted(times.items())
            )
            print(
                f"{label:6s} wall median {statistics.median(walls):.1f} s "
                f"runs {[round(w, 1) for w in walls]}; items {len(every) // args.rounds}; "
                f"median per item {1000 * statistics.median(every):.0f} ms ({per_mode}) "
                "(targets: suite <= 120 s, item <= 150 ms)"
            )
            print(f"       last outcome: {tail}")


if __name__ == "__main__":
    main()
