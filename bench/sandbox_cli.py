"""Per-call cost of the sandbox's ``gh``/``ghx`` shims (what an agent pays for each command).

Writes a fresh state and the shims into a temporary directory, then times, alternately, each in
a fresh process:

- read: ``ghx run repo.view`` (process start, imports, lock, load; no save);
- write: ``ghx run issue.comments.create`` (the same plus an atomic save);
- list: ``ghx capabilities list``;
- python: ``python -c pass`` (the floor: interpreter start alone).

Then breaks one call down in-process: imports of the dialect, loading the world, running the
capability, saving the world. Prints medians in milliseconds.

    python bench/sandbox_cli.py [--calls 20]
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
import time
from pathlib import Path


def _median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


def _time(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _in_process(state: Path, issue_id: str) -> dict[str, float]:
    """One mutating call's stages, timed in this process (imports are timed in a child)."""
    from pytest_ghxbench.sandbox.dialects.ghx_cli import run_ghx
    from pytest_ghxbench.sandbox.statefile import load_world, locked_state, save_world

    argv = [
        "run",
        "issue.comments.create",
        "--input",
        json.dumps({"issueId": issue_id, "body": "b"}),
    ]
    stages: dict[str, list[float]] = {"load world": [], "run (comment)": [], "save world": []}
    for _ in range(20):
        with locked_state(state):
            t0 = time.perf_counter()
            world = load_world(state)
            t1 = time.perf_counter()
            run_ghx(world, argv)
            t2 = time.perf_counter()
            save_world(state, world)
            t3 = time.perf_counter()
        for name, seconds in zip(stages, (t1 - t0, t2 - t1, t3 - t2), strict=True):
            stages[name].append(seconds)
    return {name: _median_ms(samples) for name, samples in stages.items()}


def _import_ms(python: str, env: dict[str, str]) -> dict[str, float]:
    code = (
        "import time;t=time.perf_counter();"
        "import pytest_ghxbench.sandbox.state;a=time.perf_counter();"
        "from pytest_ghxbench.sandbox.capabilities import all_capabilities;"
        "import pytest_ghxbench.sandbox.statefile;b=time.perf_counter();"
        "all_capabilities();c=time.perf_counter();"
        "print(a-t,b-a,c-b)"
    )
    samples: list[list[float]] = [[], [], []]
    for _ in range(5):
        out = subprocess.run(
            [python, "-c", code], env=env, check=True, capture_output=True, text=True
        ).stdout
        for index, value in enumerate(out.split()):
            samples[index].append(float(value))
    names = ("import state models", "import registry+statefile", "register capabilities")
    return {name: _median_ms(s) for name, s in zip(names, samples, strict=True)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20, help="calls per command (default 20)")
    calls = parser.parse_args().calls

    from pytest_ghxbench.sandbox.manifest import seeded
    from pytest_ghxbench.sandbox.shims import write_shims
    from pytest_ghxbench.sandbox.statefile import init_state

    manifest = seeded().manifest
    repo = manifest["repo"]
    issue_id = manifest["resources"]["issue"]["id"]
    with tempfile.TemporaryDirectory() as scratch:
        state = Path(scratch) / "state.json"
        init_state(state)
        env = {**os.environ, **write_shims(Path(scratch) / "bin", state)}
        commands = {
            "read: ghx run repo.view": [
                "ghx", "run", "repo.view", "--input",
                json.dumps({"owner": repo["owner"], "name": repo["name"]}),
            ],
            "write: ghx run issue.comments.create": [
                "ghx", "run", "issue.comments.create", "--input",
                json.dumps({"issueId": issue_id, "body": "bench"}),
            ],
            "list: ghx capabilities list": ["ghx", "capabilities", "list"],
            "python -c pass": [sys.executable, "-c", "pass"],
        }  # fmt: skip
        samples: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(calls):
            for name, command in commands.items():
                samples[name].append(_time(command, env))
        load = os.getloadavg()[0]
        print(
            f"{platform.python_implementation()} {platform.python_version()}, "
            f"{os.cpu_count()} CPUs, load {load:.2f}, {calls} calls each"
        )
        print("per call, median ms (fresh process each):")
        for name, values in samples.items():
            print(f"  {name:40} {_median_ms(values):8.1f}")
        print("stages (median ms):")
        stages = {**_import_ms(sys.executable, env), **_in_process(state, issue_id)}
        for name, value in stages.items():
            print(f"  {name:40} {value:8.1f}")
        print(f"state file: {state.stat().st_size} bytes after {calls + 20} comments")


if __name__ == "__main__":
    main()
