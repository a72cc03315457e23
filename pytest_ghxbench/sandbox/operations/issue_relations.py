"""World operations on issue relations: setting and removing a parent (sub-issues) and
blocked-by links. Setting a parent replaces the current one and refuses cycles.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.errors import NotFound, Unprocessable
from pytest_ghxbench.sandbox.operations.issues import (
    issue_by_id,
    touch,
)
from pytest_ghxbench.sandbox.operations.registry import operation
from pytest_ghxbench.sandbox.state import Issue, World


def _descendants(world: World, number: int) -> set[int]:
    found: set[int] = set()
    todo = [number]
    while todo:
        for child in world.sub_issues(todo.pop()):
            if child.number not in found:
                found.add(child.number)
                todo.append(child.number)
    return found


@operation("addSubIssue")
def issue_parent_set(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    parent = issue_by_id(world, input["parentIssueId"], "parentIssueId")
    if parent.number == issue.number or parent.number in _descendants(world, issue.number):
        raise Unprocessable(
            f"#{parent.number} cannot be the parent of #{issue.number}: that would make a cycle",
        )
    issue.parent = parent.number
    touch(world, issue)
    return {"issueId": issue.node_id, "parentIssueId": parent.node_id, "updated": True}


@operation("removeSubIssue")
def issue_parent_remove(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    parent = world.issue(issue.parent) if issue.parent is not None else None
    if parent is None:
        raise NotFound(f"issue #{issue.number} has no parent issue")
    issue.parent = None
    touch(world, issue)
    return {"issueId": issue.node_id, "parentIssueId": parent.node_id, "removed": True}


def _issue_and_blocker(world: World, input: dict[str, Any]) -> tuple[Issue, Issue]:
    issue = issue_by_id(world, input["issueId"])
    return issue, issue_by_id(world, input["blockedByIssueId"], "blockedByIssueId")


@operation("addBlockedBy")
def issue_blocked_by_add(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue, blocker = _issue_and_blocker(world, input)
    if blocker.number == issue.number:
        raise Unprocessable("an issue cannot be blocked by itself")
    if blocker.number not in issue.blocked_by:
        issue.blocked_by.append(blocker.number)
        touch(world, issue)
    return {"issueId": issue.node_id, "blockedByIssueId": blocker.node_id, "added": True}


@operation("removeBlockedBy")
def issue_blocked_by_remove(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue, blocker = _issue_and_blocker(world, input)
    if blocker.number not in issue.blocked_by:
        raise NotFound(f"issue #{issue.number} is not blocked by #{blocker.number}")
    issue.blocked_by.remove(blocker.number)
    touch(world, issue)
    return {"issueId": issue.node_id, "blockedByIssueId": blocker.node_id, "removed": True}
