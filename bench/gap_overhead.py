"""What sandbox gap accounting adds to an item of the shipped suite.

Gap accounting costs, per API request, the request scope every request runs in (a context
variable set and reset, plus a counter update when the request met a gap), and per item, reading
the item's gaps into its row. This script measures:

1. per request: a request's world held with the scope (``Slot.held()``) against the lock alone
   as it was held before (median of rounds of 100,000), and the cost of recording one gap;
2. per item: ``SandboxSession.sandbox_gaps()`` and the row's field;
3. the shipped suite (``--ghx-mode=agent_direct,mcp,ghx --reps=1``, sandbox + oracle, in a fresh
   subprocess): how many API requests each item makes and how long each item takes (pytest's
   time from the JUnit XML);

and prints the accounting's cost per item as a share of the median item's time.

    python bench/gap_overhead.py [--rounds 7] [--no-suite]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from xml.etree import ElementTree

from pytest_ghxbench.sandbox.api.registry import Slot
from pytest_ghxbench.sandbox.gaps import UNMODELLED_FIELD, record
from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, fresh_world

ROOT = Path(__file__).resolve().parents[1]
LOOPS = 100_000

PROBE = """
import os
from pytest_ghxbench.sandbox.backend import SandboxSession

_close = SandboxSession.close


def close(self):
    with open(os.environ["GHXBENCH_GAP_PROBE"], "a") as out:
        out.write(f"{self.item_id}\\t{len(self.api_requests)}\\n")
    _close(self)


SandboxSession.close = close
"""


def per_request_ns(rounds: int) -> tuple[float, float, float]:
    """(held as before gaps were accounted, held with the scope, held with the scope recording
    one gap) in ns."""
    slot = Slot(fresh_world(DEFAULT_SEED), "bench")
    lock = threading.RLock()

    @contextmanager
    def held_before() -> Iterator[None]:
        with lock:
            yield

    def bare() -> None:
        with held_before():
            pass

    def held() -> None:
        with slot.held():
            pass

    def gap() -> None:
        with slot.held():
            record(UNMODELLED_FIELD, "PullRequest.potentialMergeCommit")

    results = []
    for step in (bare, held, gap):
        times = []
        for _ in range(rounds):
            started = time.perf_counter_ns()
            for _ in range(LOOPS):
                step()
            times.append((time.perf_counter_ns() - started) / LOOPS)
        results.append(statistics.median(times))
    return results[0], results[1], results[2]


def per_item_ns(rounds: int) -> float:
    """Reading three gaps of an item into row data, as JSON."""
    slot = Slot(fresh_world(DEFAULT_SEED), "bench")
    with slot.held():
        record(UNMODELLED_FIELD, "a.b")
        record("unserved_route", "GET /x")
        record("unsupported", "y")
    times = []
    for _ in range(rounds):
        started = time.perf_counter_ns()
        for _ in range(LOOPS // 10):
            json.dumps({"sandbox_gaps": slot.gaps.entries()})
        times.append((time.perf_counter_ns() - started) / (LOOPS // 10))
    return statistics.median(times)


def suite(work: Path) -> tuple[list[float], list[int], str]:
    """Per-item seconds (JUnit) and API requests of one run of the shipped suite."""
    (work / "gap_probe.py").write_text(PROBE)
    probe = work / "requests.tsv"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(work), os.environ.get("PYTHONPATH")])),
        "GHXBENCH_GAP_PROBE": str(probe),
    }
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "gap_probe",
        "-p",
        "no:cacheprovider",
        "-q",
        "--ghx-mode=agent_direct,mcp,ghx",
        "--reps=1",
        f"--junitxml={work / 'junit.xml'}",
        f"--ghx-results={work / 'results'}",
    ]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    cases = ElementTree.parse(work / "junit.xml").getroot().iter("testcase")
    seconds = [
        float(case.get("time", "0"))
        for case in cases
        if (case.get("classname"), case.get("name")) != ("ghxbench", "gate")
    ]
    requests = [int(line.split("\t")[1]) for line in probe.read_text().splitlines()]
    tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]
    return seconds, requests, tail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--no-suite", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{platform.python_implementation()} {platform.python_version()}, load {load:.1f}")
    bare, held, gap = per_request_ns(args.rounds)
    scope = held - bare
    print(f"per request: held as before {bare:.0f} ns, held with the gap scope {held:.0f} ns")
    print(f"  the scope adds {scope:.0f} ns; a request that records a gap {gap - bare:.0f} ns")
    item = per_item_ns(args.rounds)
    print(f"per item: reading 3 gaps into the row's JSON {item / 1000:.1f} us")
    if args.no_suite:
        return
    with tempfile.TemporaryDirectory(prefix="ghxbench-gap-bench-") as temp:
        seconds, requests, tail = suite(Path(temp))
    print(f"suite: {tail}")
    median_item = statistics.median(seconds)
    mean_requests = statistics.mean(requests)
    cost_ns = max(requests) * (gap - bare) + item
    print(
        f"  {len(seconds)} items, median {median_item * 1000:.0f} ms per item; API requests per "
        f"item: mean {mean_requests:.1f}, max {max(requests)}"
    )
    print(
        f"  accounting, at the most requests every one recording a gap: {cost_ns / 1000:.1f} us "
        f"per item = {100 * cost_ns / 1e9 / median_item:.4f}% of the median item"
    )


if __name__ == "__main__":
    main()
