"""Long runs: budgets stop new items, a live status line, the benchmark in junitxml."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.plugin.support import atomic, setup_project, summary

SCENARIOS = [atomic(f"repo-view-00{i}") for i in range(1, 5)]
FIXED = {"*": {"*": {"cost": 0.01, "tokens": {"input": 1000, "output": 100, "cache_read": 5000}}}}


def _testcases(path: Path) -> dict[str, ET.Element]:
    suite = ET.parse(path).getroot().find("testsuite")
    assert suite is not None
    return {f"{c.get('classname')}.{c.get('name')}": c for c in suite.iter("testcase")}


def _properties(case: ET.Element) -> dict[str, str]:
    return {p.get("name", ""): p.get("value", "") for p in case.iter("property")}


def test_junitxml_has_item_metrics_and_a_failing_gate_testcase(pytester: pytest.Pytester) -> None:
    same = {"*": {"*": {"tokens": {"input": 5000, "output": 100}, "tool_calls": 3, "cost": 0.02}}}
    setup_project(pytester, SCENARIOS[:2], behaviour=same)
    result = pytester.runpytest("--ghx-mode=agent_direct,ghx", "--reps=3", "--junitxml=out.xml")
    result.assert_outcomes(passed=12)  # the gate's testcase is not counted as a test
    assert result.ret == 1
    cases = _testcases(pytester.path / "out.xml")
    assert len(cases) == 13
    gate = cases.pop("ghxbench.gate")
    failure = gate.find("failure")
    assert failure is not None
    verdict = summary(pytester)["run"]["verdict"]
    assert failure.get("message") == verdict and "FAILED" in verdict
    assert "FAIL" in (failure.text or "") and "efficiency_tokens_active_reduction" in failure.text
    assert _properties(gate)["exit_status"] == "1"
    item = cases.popitem()[1]
    assert _properties(item) == {
        "success": "true",
        "output_valid": "true",
        "latency_ms_wall": _properties(item)["latency_ms_wall"],
        "startup_ms": _properties(item)["startup_ms"],
        "tokens_active": "5100",
        "tokens_total": "5100",
        "cost": "0.02",
        "tool_calls": "3",
        "api_calls": "0",
    }
    suite = ET.parse(pytester.path / "out.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1" and suite.get("tests") == "13"

    # the gate's testcase is no test to rerun: --lf has nothing recorded for it
    lastfailed = pytester.path / ".pytest_cache" / "v" / "cache" / "lastfailed"
    assert not lastfailed.exists() or "ghxbench::gate" not in lastfailed.read_text()


def test_junitxml_of_a_passing_gate_has_a_passing_gate_testcase(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS[:1], behaviour={"*": {"*": {"raise": "agent down"}}})
    # not evaluated (one mode), advisory: pytest's own status (an item failed) decides
    failing = pytester.runpytest("--ghx-mode=ghx", "--junitxml=fail.xml")
    assert failing.ret == 1
    gate = _testcases(pytester.path / "fail.xml")["ghxbench.gate"]
    assert gate.find("failure") is not None
    item = _testcases(pytester.path / "fail.xml")[
        "scenarios.repo-view-001.json.repo-view-001[ghx-r1]"
    ]
    assert _properties(item)["error_type"] == "runner_error"

    (pytester.path / "behaviour.json").write_text(json.dumps(FIXED))
    passing = pytester.runpytest("--ghx-mode=ghx", "--junitxml=pass.xml")
    assert passing.ret == 0
    gate = _testcases(pytester.path / "pass.xml")["ghxbench.gate"]
    assert list(gate.iter("failure")) == [] and list(gate.iter("error")) == []
    assert "NOT EVALUATED" in _properties(gate)["verdict"]
    assert _properties(gate)["exit_status"] == "0"
