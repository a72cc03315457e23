"""A row counts the reruns its item had, also when xdist reran it after its worker crashed."""

from __future__ import annotations

import pytest

from tests.plugin.support import atomic, read_rows, setup_project

pytest.importorskip("xdist")


def test_an_item_whose_worker_crashed_on_every_attempt_counts_its_reruns(
    pytester: pytest.Pytester,
) -> None:
    scenarios = [atomic(f"repo-view-00{i}") for i in range(1, 4)]
    setup_project(pytester, scenarios, behaviour={"repo-view-002": {"ghx": {"exit": 3}}})
    result = pytester.runpytest_subprocess("--ghx-mode=ghx", "-p", "xdist", "-n", "2")
    outcomes = result.parseoutcomes()
    reruns = outcomes.get("rerun", 0)
    assert reruns >= 1 and outcomes.get("failed") == 1, result.stdout.str()
    crashed = [r for r in read_rows(pytester) if r["scenario_id"] == "repo-view-002"]
    assert len(crashed) == 1
    assert "crashed" in crashed[0]["error"]["message"]
    assert crashed[0]["external_retry_count"] == reruns
    # every attempt's crash is in the log: at least one line per rerun and the final failure
    # (the item's failure lines repeat it, so the exact count depends on the report options)
    assert result.stdout.str().count("crashed while running") >= reruns + 1
