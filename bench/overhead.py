"""Per-item overhead of the plugin against bare pytest.

Runs, alternately, (a) ``pytest --ghx-mode=ghx`` over N items with a zero-work adapter and
backend, and (b) bare pytest over an equivalent parametrized test of N cases that does nothing,
each in a fresh subprocess in a temporary project. Prints the medians, the per-item cost of
each, and the ratio (a)/(b).

    python bench/overhead.py [--items 2000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import platform
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
BARE_TEST = """
import pytest


@pytest.mark.parametrize("i", range({n}))
def test_item(i):
    pass
"""


def make_projects(root: Path, items: int) -> tuple[Path, Path]:
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
    bare_dir = root / "bare"
    bare_dir.mkdir()
    (bare_dir / "pytest.ini").write_text("[pytest]\n")
    (bare_dir / "test_bare.py").write_text(BARE_TEST.replace("{n}", str(items)))
    return plugin_dir, bare_dir


def run(cwd: Path, args: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"pytest failed in {cwd}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ghxbench-bench-") as tmp:
        plugin_dir, bare_dir = make_projects(Path(tmp), args.items)
        run(plugin_dir, ["--ghx-mode=ghx"])  # warm caches (bytecode, filesystem)
        run(bare_dir, [])
        plugin_times, bare_times = [], []
        for _ in range(args.rounds):
            plugin_times.append(run(plugin_dir, ["--ghx-mode=ghx"]))
            bare_times.append(run(bare_dir, []))
    plugin_s, bare_s = statistics.median(plugin_times), statistics.median(bare_times)
    print(
        f"machine: {platform.machine()} {platform.processor() or ''} "
        f"python {platform.python_version()}"
    )
    print(f"items: {args.items}, rounds: {args.rounds} (alternating)")
    print(
        f"plugin (zero-work adapter): median {plugin_s:.2f} s  "
        f"= {1000 * plugin_s / args.items:.3f} ms/item  runs {[round(t, 2) for t in plugin_times]}"
    )
    print(
        f"bare pytest (parametrized): median {bare_s:.2f} s  "
        f"= {1000 * bare_s / args.items:.3f} ms/item  runs {[round(t, 2) for t in bare_times]}"
    )
    print(f"ratio: {plugin_s / bare_s:.2f} (target <= 1.25)")


if __name__ == "__main__":
    main()
