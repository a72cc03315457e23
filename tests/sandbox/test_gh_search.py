"""Search syntax in ``gh pr list -S``, ``gh issue list -S`` and ``gh search``."""

from __future__ import annotations

import json

import pytest

from pytest_ghxbench.sandbox.dialects.gh_cli import run_gh
from pytest_ghxbench.sandbox.state import World


def numbers(world: World, *argv: str) -> list[int]:
    result = run_gh(world, [*argv, "--json", "number"])
    assert result.exit_code == 0, result.stderr
    return [item["number"] for item in json.loads(result.stdout)]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("review-requested:lee-k", [7]),
        ("is:merged", [9]),
        ("is:draft", [8]),
        ("author:lee-k is:open", [8]),
        ("label:documentation", [9]),
        ("-label:bug", [9, 8]),
        ("head:fix/compaction-lock", [7]),
        ("compaction", [7]),
    ],
)
def test_pr_list_search(world: World, query: str, expected: list[int]) -> None:
    assert numbers(world, "pr", "list", "--search", query) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("is:closed", [2]),
        ("label:bug label:performance", [5, 3]),
        ("assignee:mona", [3, 1]),
        ("no:assignee is:open", [6, 4]),
        ("milestone:v0.4.0 is:open", [5, 4, 3, 1]),
        ('"snapshot writer"', [5]),
        ("lock", [5]),
    ],
)
def test_issue_list_search(world: World, query: str, expected: list[int]) -> None:
    assert numbers(world, "issue", "list", "-S", query) == expected


def test_search_issues_command(world: World) -> None:
    result = run_gh(world, ["search", "issues", "windows", "--repo", "acme-labs/tinykv"])
    assert result.exit_code == 0
    assert result.stdout.startswith("acme-labs/tinykv\t6\topen\tIs Windows supported?\t")
    assert numbers(world, "search", "prs", "--state", "closed") == [9]
