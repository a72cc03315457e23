"""pytest's cache-based selection (--lf, --ff, --sw) and --deselect with the plugin's items.

The mode and repetition are the item's parameters (``good[ghx-r1]``), so its id round-trips
through ``.pytest_cache`` the way a parametrized test's does.
"""

from __future__ import annotations

import pytest

from tests.plugin.support import atomic, setup_project

BEHAVIOUR = {"tail-001": {"*": {"answer": "no envelope here"}}}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    setup_project(pytester, [atomic("head-001"), atomic("tail-001")], BEHAVIOUR)
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--ghx-mode=ghx", "--reps=2", "-v", *args)


def ran(result: pytest.RunResult) -> list[str]:
    """The items that ran, in order (from ``-v`` lines)."""
    return [
        line.split("::", 1)[1].split(" ", 1)[0]
        for line in result.outlines
        if "::" in line and (" PASSED" in line or " FAILED" in line)
    ]


def test_last_failed_reruns_only_the_failures(project: pytest.Pytester) -> None:
    first = run(project)
    first.assert_outcomes(passed=2, failed=2)
    again = run(project, "--lf")
    assert ran(again) == ["tail-001[ghx-r1]", "tail-001[ghx-r2]"]
    assert "not in selected tests" not in again.stdout.str()
    again.assert_outcomes(failed=2)


def test_failed_first_runs_the_failures_before_the_rest(project: pytest.Pytester) -> None:
    run(project).assert_outcomes(passed=2, failed=2)
    order = ran(run(project, "--ff", "-p", "no:randomly"))
    assert order[:2] == ["tail-001[ghx-r1]", "tail-001[ghx-r2]"] and sorted(order[2:]) == [
        "head-001[ghx-r1]",
        "head-001[ghx-r2]",
    ]


def test_stepwise_resumes_at_the_failure(project: pytest.Pytester) -> None:
    first = run(project, "--sw")
    assert ran(first) == ["head-001[ghx-r1]", "head-001[ghx-r2]", "tail-001[ghx-r1]"]
    second = run(project, "--sw")
    assert ran(second) == ["tail-001[ghx-r1]"]  # resumes at the failure, stops there again


def test_deselect_takes_the_item_id(project: pytest.Pytester) -> None:
    result = run(project, "--deselect", "scenarios/tail-001.json::tail-001[ghx-r1]")
    assert sorted(ran(result)) == ["head-001[ghx-r1]", "head-001[ghx-r2]", "tail-001[ghx-r2]"]
