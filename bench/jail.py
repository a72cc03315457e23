"""What the jail costs: its start per item, and the shipped suite jailed and unjailed.

1. **Jail start**, per item of each mode, in one process: a fresh sandbox item, then its jail
   as an adapter gets it (the item's gate on the API server, its mounts) and a
   :class:`~pytest_ghxbench.isolation.shell.JailShell` in it that has answered its first
   command (bubblewrap's namespaces and mounts, the socat bridge listening, the shell up). Beside
   it, the same jail without GitHub's names led to its bridge (``github_names=False``: no
   listener on port 443, and no user namespace of the agent's own when not run as root),
   bubblewrap alone with the same mounts running ``true``, and the item's world and environment
   without a jail, for scale. Medians over ``--items`` items.
2. **The shipped suite** (``pytest --ghx-mode=agent_direct,mcp,ghx --reps=4`` on
   ``scenarios/``, as ``bench/suite_speed.py`` runs it) with ``--ghx-isolation=none`` and
   ``--ghx-isolation=jail``, alternating, ``--rounds`` times each: wall time, median per item
   (setup, call and teardown, from the JUnit XML report), per mode, and the rows' median
   ``startup_ms`` per mode (where a jail's start is counted).

    python bench/jail.py [--items 30] [--rounds 3] [--only start|suite]
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from suite_speed import run as run_suite

from pytest_ghxbench.isolation.probe import probe
from pytest_ghxbench.isolation.shell import JailShell
from pytest_ghxbench.sandbox.api.policy import HostPolicy
from pytest_ghxbench.sandbox.backend import SandboxBackend

MODES = ("agent_direct", "mcp", "ghx")
TARGET_START_MS = 50.0
TARGET_SUITE_RATIO = 1.10


def machine() -> str:
    """``nproc`` cores, the CPU's model, python, bubblewrap, the date and the load."""
    cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()
    model = next((line.split(":", 1)[1].strip() for line in lscpu if "Model name" in line), "?")
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    today = datetime.date.today().isoformat()
    return (
        f"{cores} cores ({model}), python {platform.python_version()}, {probe().detail}, "
        f"{today}, load average {load}"
    )


def _median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:6.1f} ms" if samples else "     -"


def jail_start(items: int) -> None:
    """Print the median start of an item's jail per mode, and what it is made of."""
    isolation = probe()
    if not isolation.jailed:
        sys.exit(f"no jail on this machine: {isolation.detail}")
    backend = SandboxBackend()
    backend.isolate(isolation, HostPolicy())
    base = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PATH": os.environ.get("PATH", "")}
    samples: dict[str, dict[str, list[float]]] = {
        mode: {"item": [], "jail": [], "unmapped": [], "bwrap": []} for mode in MODES
    }
    with tempfile.TemporaryDirectory(prefix="ghxbench-jail-") as scratch:
        for index in range(items + 1):  # the first round warms up (page caches, /etc's copy)
            for mode in MODES:
                started = time.perf_counter()
                item = backend.open_session(
                    f"bench-{index}[{mode}]", Path(scratch) / f"{mode}-{index}", mode
                )
                env = {**base, **item.env}
                cwd = item.working_directory()
                made = time.perf_counter()
                jail = item.jail()
                assert jail is not None
                opened = time.perf_counter() - made
                # with and without GitHub's names, in turn first (a warm cache favours the second)
                shells: dict[bool, float] = {}
                for mapped in (True, False) if index % 2 else (False, True):
                    before = time.perf_counter()
                    JailShell(dataclasses.replace(jail, github_names=mapped), env, cwd).close()
                    shells[mapped] = opened + time.perf_counter() - before
                alone = jail.command(["true"], cwd=cwd)
                bare = [*alone[: alone.index("--") + 1], "/bin/true"]
                before = time.perf_counter()
                subprocess.run(bare, env=env, cwd=cwd, check=True)
                after = time.perf_counter()
                item.close()
                if index:
                    samples[mode]["item"].append(made - started)
                    samples[mode]["jail"].append(shells[True])
                    samples[mode]["unmapped"].append(shells[False])
                    samples[mode]["bwrap"].append(after - before)
    backend.close()
    print(f"jail start, median of {items} items per mode (target <= {TARGET_START_MS:.0f} ms):")
    print(
        "  mode          world + env   jail (gate, bwrap, bridge, shell)"
        "   without GitHub's names   bwrap alone"
    )
    for mode, kinds in samples.items():
        print(
            f"  {mode:12s}  {_median_ms(kinds['item'])}     {_median_ms(kinds['jail'])}"
            f"                       {_median_ms(kinds['unmapped'])}"
            f"                {_median_ms(kinds['bwrap'])}"
        )
    every = [value for kinds in samples.values() for value in kinds["jail"]]
    plain = [value for kinds in samples.values() for value in kinds["unmapped"]]
    print(
        f"  all modes: jail start median {_median_ms(every).strip()}"
        f" ({_median_ms(plain).strip()} without GitHub's names)"
    )


def _startup_ms(results: Path) -> dict[str, list[float]]:
    rows = (results / "runs" / "latest" / "rows.jsonl").read_text().splitlines()
    found: dict[str, list[float]] = {}
    for row in map(json.loads, rows):
        found.setdefault(row["mode"], []).append(float(row["startup_ms"] or 0.0))
    return found


def suite(rounds: int) -> None:
    """Print the shipped suite's times with --ghx-isolation=none and =jail side by side."""
    kinds = ("none", "jail")
    walls: dict[str, list[float]] = {kind: [] for kind in kinds}
    times: dict[str, dict[str, list[float]]] = {kind: {} for kind in kinds}
    startups: dict[str, dict[str, list[float]]] = {kind: {} for kind in kinds}
    tails: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="ghxbench-jail-suite-") as tmp:
        for index in range(rounds):
            for kind in kinds if index % 2 == 0 else reversed(kinds):
                results = Path(tmp) / f"{kind}-{index}"
                wall, per_item, tails[kind] = run_suite([f"--ghx-isolation={kind}"], results)
                walls[kind].append(wall)
                for mode, seconds in per_item:
                    times[kind].setdefault(mode, []).append(seconds)
                for mode, values in _startup_ms(results).items():
                    startups[kind].setdefault(mode, []).extend(values)
    print(f"the shipped suite x 3 modes x 4 reps, serial, {rounds} round(s) each, alternating:")
    medians: dict[str, float] = {}
    for kind in kinds:
        every = [t for ts in times[kind].values() for t in ts]
        medians[kind] = statistics.median(every)
        per_mode = ", ".join(
            f"{mode} {1000 * statistics.median(ts):.0f} ms"
            for mode, ts in sorted(times[kind].items())
        )
        startup = ", ".join(
            f"{mode} {statistics.median(values):.0f} ms"
            for mode, values in sorted(startups[kind].items())
        )
        print(
            f"  --ghx-isolation={kind:4s} wall median {statistics.median(walls[kind]):.1f} s "
            f"(runs {[round(w, 1) for w in walls[kind]]}); items {len(every) // rounds}; "
            f"median per item {1000 * medians[kind]:.0f} ms ({per_mode}); "
            f"median startup_ms: {startup}"
        )
        print(f"       last outcome: {tails[kind]}")
    ratio = medians["jail"] / medians["none"]
    print(
        f"  per item, jail / none: {ratio:.2f} (target <= {TARGET_SUITE_RATIO:.2f}, "
        f"+{1000 * (medians['jail'] - medians['none']):.0f} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=("start", "suite"))
    options = parser.parse_args()
    print(f"machine: {machine()}")
    if options.only != "suite":
        jail_start(options.items)
    if options.only != "start":
        suite(options.rounds)
    print(f"done: load average {', '.join(f'{v:.1f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
