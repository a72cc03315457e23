"""Harness time of the embedded default: the shipped suite x 3 modes x 4 reps, sandbox + oracle.

Runs ``pytest --ghx-mode=agent_direct,mcp,ghx --reps=4`` on the repository's ``scenarios/``
(in a fresh subprocess, serially and with ``-n 2``), and reports the wall time of the whole run
and the median harness time per item: the time pytest measured for each item (setup, call and
teardown, from the JUnit XML report), which covers binding, the sandbox copy, the oracle's
dialect calls and token counting, judging and the row.

    python bench/suite_speed.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parents[1]


def run(extra: list[str], results: Path) -> tuple[float, list[float], str]:
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
    per_item = [float(case.get("time", "0")) for case in cases]
    tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-500:]
    return wall, per_item, tail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {platform.machine()} python {platform.python_version()}")
    with tempfile.TemporaryDirectory(prefix="ghxbench-suite-") as tmp:
        for label, extra in (("serial", []), ("-n 2", ["-p", "xdist", "-n", "2"])):
            walls, medians, items, tail = [], [], 0, ""
            for i in range(args.rounds):
                wall, per_item, tail = run(extra, Path(tmp) / f"{label}-{i}")
                walls.append(wall)
                if per_item:
                    medians.append(statistics.median(per_item))
                    items = len(per_item)
            print(
                f"{label:7s} wall median {statistics.median(walls):.2f} s "
                f"runs {[round(w, 2) for w in walls]}; items {items}; "
                f"median per-item time {1000 * statistics.median(medians):.2f} ms "
                f"(targets: suite <= 60 s, item <= 20 ms)"
            )
            print(f"        last outcome: {tail}")


if __name__ == "__main__":
    main()
