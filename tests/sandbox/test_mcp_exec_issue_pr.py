"""``issue_write`` ``update`` on a pull request's number, as GitHub's issues API allows."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_ghxbench.sandbox.dialects.mcp_exec import call_tool
from pytest_ghxbench.sandbox.state import PullRequest, World
from tests.sandbox.conftest import NAME, OWNER

UPDATE = {"method": "update", "owner": OWNER, "repo": NAME}


def _pull(world: World, number: int) -> PullRequest:
    found = world.pull_request(number)
    assert found is not None
    return found


def test_assignees_of_a_pull_request_are_replaced(world: World) -> None:
    outcome = call_tool(world, "issue_write", {**UPDATE, "issue_number": 7,
                                               "assignees": ["aryeko"]})  # fmt: skip
    assert not outcome.is_error, outcome.text
    assert outcome.mutated and "pr.assignees.update" in outcome.capability_ids
    assert _pull(world, 7).assignees == ["aryeko"]
    assert json.loads(outcome.text)["url"] == "https://github.com/acme-labs/tinykv/pull/7"


def test_labels_milestone_title_of_a_pull_request_change(world: World) -> None:
    outcome = call_tool(world, "issue_write", {**UPDATE, "issue_number": 8, "labels": ["Bug"],
                                               "milestone": 2, "title": "WAL fsync"})  # fmt: skip
    assert not outcome.is_error, outcome.text
    pull = _pull(world, 8)
    assert (pull.labels, pull.milestone, pull.title) == (["bug"], 2, "WAL fsync")


def test_same_assignees_change_nothing(world: World) -> None:
    outcome = call_tool(world, "issue_write", {**UPDATE, "issue_number": 7,
                                               "assignees": ["mona"]})  # fmt: skip
    assert not outcome.is_error and not outcome.mutated


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({"type": "Bug"}, "#7 is a pull request: a pull request has no issue type"),
        ({"parent_issue_number": 1}, "#7 is a pull request: a pull request cannot be a sub-issue"),
        ({"state": "closed"}, "#7 is a pull request: change a pull request's state with"),
        ({"labels": ["nope"]}, "label 'nope' not found"),
        ({"milestone": 9}, "milestone 9 not found"),
        ({"assignees": ["stranger"]}, "'stranger' cannot be assigned"),
    ],
)
def test_what_github_refuses_fails_without_changes(
    world: World, extra: dict[str, Any], expected: str
) -> None:
    before = _pull(world, 7).model_dump()
    outcome = call_tool(world, "issue_write", {**UPDATE, "issue_number": 7, **extra})
    assert outcome.is_error and outcome.text.startswith("failed to update issue: ")
    assert expected in outcome.text, outcome.text
    assert _pull(world, 7).model_dump() == before


def test_unknown_number_is_still_an_issue_error(world: World) -> None:
    outcome = call_tool(world, "issue_write", {**UPDATE, "issue_number": 99, "title": "x"})
    assert outcome.is_error and "99" in outcome.text
