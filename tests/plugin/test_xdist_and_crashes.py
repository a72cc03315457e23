"""Rows under xdist match a serial run; crashed workers and killed sessions lose nothing written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

import pytest

from tests.plugin.support import atomic, read_rows, setup_project, summary

pytest.importorskip("xdist")

SCENARIOS = [atomic(f"repo-view-00{i}") for i in range(1, 5)]
BEHAVIOUR = {
    "*": {
        "agent_direct": {
            "tokens": {"input": 9000, "output": 400},
            "tool_calls": 5,
            "latency_ms": 15000,
            "cost": 0.04,
        },
        "ghx": {
            "tokens": {"input": 3000, "output": 200},
            "tool_calls": 2,
            "latency_ms": 6000,
            "cost": 0.01,
        },
    }
}
_VOLATILE = {"timestamp", "run_id", "latency_ms_wall", "transcript"}  # main.jsonl vs gw0.jsonl


def comparable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(
        ({k: v for k, v in r.items() if k not in _VOLATILE} for r in rows),
        key=lambda r: r["item_id"],
    )


def test_rows_summary_and_exit_status_match_between_serial_and_xdist(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, SCENARIOS, behaviour=BEHAVIOUR)
    args = ["--ghx-mode=agent_direct,ghx", "--reps=3", "--gate-profile=verify_pr"]
    serial = pytester.runpytest_subprocess(*args, "--ghx-results=serial")
    parallel = pytester.runpytest_subprocess(
        *args, "-p", "xdist", "-n", "2", "--ghx-results=parallel"
    )
    assert serial.ret == parallel.ret == 0

    def rows(folder: str) -> list[dict[str, Any]]:
        found = []
        for path in (pytester.path / folder / "runs").glob("run_*/rows.jsonl"):
            found += [json.loads(line) for line in path.read_text().splitlines()]
        return found

    assert len(rows("serial")) == 24
    assert comparable(rows("serial")) == comparable(rows("parallel"))

    def gate(folder: str) -> dict[str, Any]:
        latest = pytester.path / folder / "runs" / "latest"
        data: dict[str, Any] = json.loads((latest / "summary.json").read_text())
        return data["gate"]

    assert gate("serial")["checks"] == gate("parallel")["checks"]
    # transcripts from both workers land in the controller's run folder
    files = list((pytester.path / "parallel" / "runs").glob("run_*/transcripts/*.jsonl"))
    assert {p.name for p in files} == {"gw0.jsonl", "gw1.jsonl"}
    assert len({p.parent.parent.name for p in files}) == 1
    records = [json.loads(line) for p in files for line in p.read_text().splitlines()]
    assert sorted(r["item_id"] for r in records) == sorted(r["item_id"] for r in rows("serial"))


def test_crashed_worker_item_becomes_a_runner_error_row(pytester: pytest.Pytester) -> None:
    behaviour = {"repo-view-002": {"ghx": {"exit": 3}}}
    setup_project(pytester, SCENARIOS, behaviour=behaviour)
    result = pytester.runpytest_subprocess("--ghx-mode=ghx", "-p", "xdist", "-n", "2")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed") == 1 and outcomes.get("passed") == 3
    rows = {r["scenario_id"]: r for r in read_rows(pytester)}
    assert len(rows) == 4
    crashed = rows["repo-view-002"]
    assert crashed["error"]["type"] == "runner_error"
    assert "crashed" in crashed["error"]["message"]
    assert summary(pytester)["modes"]["ghx"]["runner_failure_rate"] == 25.0


def test_sigkill_mid_run_leaves_only_complete_row_lines(pytester: pytest.Pytester) -> None:
    # Eight quick items, then one that hangs until the session is killed: the kill always
    # lands mid-run, however slowly the machine gets there.
    scenarios = [atomic(f"repo-view-{i:03d}") for i in range(1, 41)]
    behaviour = {f"repo-view-{i:03d}": {"*": {"sleep": 0.05}} for i in range(1, 9)}
    behaviour["*"] = {"*": {"sleep": 3600}}
    setup_project(pytester, scenarios, behaviour=behaviour)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "--ghx-mode=ghx", "-p", "no:cacheprovider"],
        cwd=pytester.path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    runs_dir = pytester.path / ".ghxbench" / "runs"
    deadline = time.monotonic() + 600  # a hang guard, not a speed limit
    while proc.poll() is None and time.monotonic() < deadline:
        files = list(runs_dir.glob("run_*/rows.jsonl")) if runs_dir.exists() else []
        if files and len(files[0].read_text().splitlines()) >= 5:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the session ended before it was killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=300)
    (path,) = list(runs_dir.glob("run_*/rows.jsonl"))
    data = path.read_bytes()
    assert data.endswith(b"\n")
    lines = data.decode().splitlines()
    assert 5 <= len(lines) <= 8
    for line in lines:
        assert json.loads(line)["scenario_id"].startswith("repo-view-")
