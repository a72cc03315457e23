"""pytest-html shows the benchmark's verdict: a failed gate is a failed ``ghxbench::gate`` entry."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.plugin.support import atomic, setup_project, summary

pytest.importorskip("pytest_html")

SCENARIOS = [atomic("repo-view-001"), atomic("repo-view-002")]


def _entries(report: Path) -> dict[str, list[dict[str, Any]]]:
    """pytest-html 4 keeps its results as JSON in the page's ``data-jsonblob`` attribute."""
    match = re.search(r'data-jsonblob="([^"]*)"', report.read_text(encoding="utf-8"))
    assert match is not None, "no data-jsonblob in the pytest-html report"
    blob = json.loads(html.unescape(match.group(1)))
    tests: dict[str, list[dict[str, Any]]] = blob["tests"]
    return tests


def test_a_failed_gate_is_a_failed_entry_in_pytest_html(pytester: pytest.Pytester) -> None:
    same = {"*": {"*": {"tokens": {"input": 5000, "output": 100}, "tool_calls": 3, "cost": 0.02}}}
    setup_project(pytester, SCENARIOS, behaviour=same)
    result = pytester.runpytest(
        "--ghx-mode=agent_direct,ghx", "--reps=3", "--html=out.html", "--self-contained-html"
    )
    assert result.ret == 1
    tests = _entries(pytester.path / "out.html")
    assert "ghxbench::gate" in tests
    gate = tests["ghxbench::gate"]
    assert {entry["result"] for entry in gate} == {"Failed"}
    verdict = summary(pytester)["run"]["verdict"]
    assert "FAILED" in verdict
    logs = " ".join(str(entry.get("log", "")) for entry in gate)
    assert html.escape(verdict) in logs or verdict in logs
    assert "efficiency_tokens_active_reduction" in logs
    items = [nodeid for nodeid in tests if nodeid != "ghxbench::gate"]
    assert len(items) == 12
    assert all({e["result"] for e in tests[nodeid]} == {"Passed"} for nodeid in items)


def test_a_passing_run_has_a_passed_gate_entry(pytester: pytest.Pytester) -> None:
    fixed = {"*": {"*": {"cost": 0.01, "tokens": {"input": 1000, "output": 100}}}}
    setup_project(pytester, SCENARIOS[:1], behaviour=fixed)
    result = pytester.runpytest("--ghx-mode=ghx", "--html=out.html", "--self-contained-html")
    assert result.ret == 0
    gate = _entries(pytester.path / "out.html")["ghxbench::gate"]
    assert {entry["result"] for entry in gate} == {"Passed"}
