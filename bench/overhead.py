"""Per-item overhead of the plugin against bare pytest.

Runs, alternately, each in a fresh subprocess in a temporary project:

- plugin: ``pytest --ghx-mode=ghx`` over N items with a zero-work adapter and backend;
- equivalent: bare pytest over a test parametrized N times that does by hand what a minimal
  benchmark needs per item without the plugin: call the same zero-work adapter with a prompt,
  parse its JSON answer and assert on the envelope (no rows, no transcripts, no gate);
- empty: bare pytest over a test parametrized N times with an empty body.

Prints the medians, the per-item cost of each, and the ratios plugin/equivalent (the target)
and plugin/empty (the strictest comparison).

    python bench/overhead.py [--items 2000] [--rounds 5]
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
from pathlib import Path

SCENARIOS = 20
CONFTEST = """
import pytest_ghxbench as gb

ANSWER = '{"ok": true, "data": {"id": 1}, "error": null, "meta": {"route_used": "cli"}}'


class NullSession:
    env = {}

    def run_task(self, task, input):
        return {"ok": True, "data": [], "error": None, "meta": {}}

    def close(self):
        pass


class NullBackend:
    name = "null"

    def manifest(self):
        return None

    def open_session(self, item_id, workdir):
        return NullSession()


class ZeroWorkAdapter:
    name = "zero"
    modes = ("ghx",)

    def run(self, request):
        return gb.RunResult(final_text=ANSWER, tokens=gb.Tokens(input=10, output=2),
                            tool_calls=[gb.ToolCall(name="bash")])


def pytest_ghxbench_adapters(config):
    return [ZeroWorkAdapter()]


def pytest_ghxbench_backends(config):
    return [NullBackend()]
"""
EMPTY_TEST = """
import pytest


@pytest.mark.parametrize("i", range({n}))
def test_item(i):
    pass
"""
EQUIVALENT_TEST = """
import json

import pytest

import pytest_ghxbench as gb

ANSWER = '{"ok": true, "data": {"id": 1}, "error": null, "meta": {"route_used": "cli"}}'


def zero_work_agent(prompt):
    return gb.RunResult(final_text=ANSWER, tokens=gb.Tokens(input=10, output=2),
                        tool_calls=[gb.ToolCall(name="bash")])


@pytest.mark.parametrize("i", range({n}))
def test_item(i):
    prompt = "Run repo.view with " + json.dumps({"owner": "o", "name": "n"})
    result = zero_work_agent(prompt)
    envelope = json.loads(result.final_text)
    assert envelope["ok"] is True and envelope["error"] is None
    assert "id" in envelope["data"] and envelope["meta"]["route_used"] == "cli"
    assert len(result.tool_calls) >= 1
"""


def make_projects(root: Path, items: int) -> tuple[Path, Path, Path]:
    plugin_dir = root / "plugin"
    scenarios = plugin_dir / "scenarios"
    scenarios.mkdir(parents=True)
    (plugin_dir / "conftest.py").write_text(CONFTEST)
    (plugin_dir / "pytest.ini").write_text(
        f"[pytest]\nghx_adapter = zero\nghx_backend = null\nghx_reps = {items // SCENARIOS}\n"
    )
    for i in range(SCENARIOS):
        scenario = {
            "id": f"bench-item-{i:03d}",
            "name": "zero work",
            "task": "repo.view",
            "input": {"owner": "o", "name": "n"},
            "prompt_template": "Run {{task}} with {{input_json}}.",
            "timeout_ms": 60000,
            "allowed_retries": 0,
            "assertions": {
                "expected_outcome": "success",
                "required_data_fields": ["id"],
                "required_meta_fields": ["route_used"],
                "expected_route_used": "cli",
                "require_tool_calls": True,
            },
            "tags": ["bench"],
        }
        (scenarios / f"bench-item-{i:03d}.json").write_text(json.dumps(scenario))
    bare_dirs = []
    for name, body in (("equivalent", EQUIVALENT_TEST), ("empty", EMPTY_TEST)):
        bare_dir = root / name
        bare_dir.mkdir()
        (bare_dir / "pytest.ini").write_text("[pytest]\n")
        (bare_dir / "test_bare.py").write_text(body.replace("{n}", str(items)))
        bare_dirs.append(bare_dir)
    return plugin_dir, bare_dirs[0], bare_dirs[1]


# Bytecode caches must be written during the warm-up run, as they are on a normal install
# (PYTHONDONTWRITEBYTECODE would make every run recompile whatever it imports from source).
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(cwd: Path, args: list[str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system of the child) of one pytest run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env=CHILD_ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"pytest failed in {cwd}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ghxbench-bench-") as tmp:
        plugin_dir, equivalent_dir, empty_dir = make_projects(Path(tmp), args.items)
        runs = {
            "plugin": (plugin_dir, ["--ghx-mode=ghx"]),
            "equivalent": (equivalent_dir, []),
            "empty": (empty_dir, []),
        }
        for cwd, extra in runs.values():  # warm caches (bytecode, filesystem)
            run(cwd, extra)
        times: dict[str, list[float]] = {name: [] for name in runs}
        cpus: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, (cwd, extra) in runs.items():
                wall, cpu = run(cwd, extra)
                times[name].append(wall)
                cpus[name].append(cpu)
    medians = {name: statistics.median(values) for name, values in times.items()}
    cpu_medians = {name: statistics.median(values) for name, values in cpus.items()}
    print(
        f"machine: {platform.machine()} {platform.processor() or ''} "
        f"python {platform.python_version()}"
    )
    print(f"items: {args.items}, rounds: {args.rounds} (alternating)")
    for name, values in times.items():
        print(
            f"{name:10s} wall median {medians[name]:.2f} s = "
            f"{1000 * medians[name] / args.items:.3f} ms/item, "
            f"cpu median {cpu_medians[name]:.2f} s; wall runs {[round(t, 2) for t in values]}"
        )
    for label, table in (("wall", medians), ("cpu", cpu_medians)):
        print(
            f"{label:4s} ratio plugin/equivalent: {table['plugin'] / table['equivalent']:.2f} "
            f"(target <= 1.25), plugin/empty: {table['plugin'] / table['empty']:.2f}"
        )


if __name__ == "__main__":
    main()
