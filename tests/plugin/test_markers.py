"""Scenario tags are markers; ``-m`` with an unknown name says so; reruns and timeouts are
marked only when their plugins are loaded."""

from __future__ import annotations

import pytest

from pytest_ghxbench.attempt.retry import RERUN_PATTERN
from tests.plugin.support import atomic, setup_project


@pytest.fixture
def tagged(pytester: pytest.Pytester) -> pytest.Pytester:
    setup_project(
        pytester,
        [
            atomic("repo-view-001", tags=["repo", "mutation"], allowed_retries=1),
            atomic("repo-view-002", tags=["repo", "smoke"]),
        ],
    )
    return pytester


def test_scenario_tags_are_listed_by_markers(tagged: pytest.Pytester) -> None:
    result = tagged.runpytest("--ghx-mode=ghx", "--markers")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "@pytest.mark.mutation: ghxbench scenario tag 'mutation'",
            "@pytest.mark.repo: ghxbench scenario tag 'repo'",
            "@pytest.mark.smoke: ghxbench scenario tag 'smoke'",
        ],
        consecutive=False,
    )


def test_known_tags_select_under_strict_markers(tagged: pytest.Pytester) -> None:
    result = tagged.runpytest("--ghx-mode=ghx", "--strict-markers", "-m", "mutation and ghx")
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.no_fnmatch_line("*unknown marker*")


def test_an_unknown_tag_in_m_is_a_warning_naming_the_tags(tagged: pytest.Pytester) -> None:
    result = tagged.runpytest("--ghx-mode=ghx", "-m", "mutaton or smoke")
    result.assert_outcomes(passed=1, deselected=1, warnings=1)
    result.stdout.fnmatch_lines(
        [
            "*PytestUnknownMarkWarning: ghxbench: -m 'mutaton or smoke' names unknown marker(s) "
            "'mutaton'; scenario tags: mutation, repo, smoke*"
        ]
    )


def test_an_unknown_tag_in_m_is_a_usage_error_under_strict_markers(
    tagged: pytest.Pytester,
) -> None:
    result = tagged.runpytest("--ghx-mode=ghx", "--strict-markers", "-m", "mutaton")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*names unknown marker(s) 'mutaton'; scenario tags: mutation*"])


def test_marker_keyword_arguments_are_not_names(tagged: pytest.Pytester) -> None:
    result = tagged.runpytest("--ghx-mode=ghx", "--strict-markers", "-m", "smoke(level=1) or repo")
    assert result.ret == 0


@pytest.mark.parametrize("plugin", ["rerunfailures", "timeout"])
def test_no_unknown_mark_warning_without_the_plugin(tagged: pytest.Pytester, plugin: str) -> None:
    result = tagged.runpytest(
        "--ghx-mode=ghx", "-p", f"no:{plugin}", "-W", "error::pytest.PytestUnknownMarkWarning"
    )
    result.assert_outcomes(passed=2)
    result.stdout.no_fnmatch_line("*Unknown pytest.mark*")


def test_the_rerun_mark_is_restricted_to_transient_failures(tagged: pytest.Pytester) -> None:
    items, _ = tagged.inline_genitems("--ghx-mode=ghx")
    marks = {item.name: item.get_closest_marker("flaky") for item in items}
    first = marks["repo-view-001[ghx-r1]"]
    assert first is not None
    # allowed_retries=1 is below the default budget for rate limits, 5xx and connections (2)
    assert first.kwargs == {"reruns": 2, "only_rerun": [RERUN_PATTERN]}
