"""Issue relations: parent / sub-issues and blocked-by, read with ``issue.relations.get``.

Setting a parent replaces the current one (GitHub's ``replaceParent``) and refuses cycles;
adding a blocked-by relation that exists is a no-op; removing a relation that does not exist
(or the parent of an issue without one) is ``NOT_FOUND``.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.capabilities.issues import (
    NODE_ID,
    by_id,
    issue_by_id,
    touch,
)
from pytest_ghxbench.sandbox.capabilities.registry import CapabilityError, capability
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


@capability(
    "issue.parent.set",
    "Make an issue a sub-issue of another (replacing any current parent).",
    by_id("parentIssueId", parentIssueId=NODE_ID),
    mutates=True,
)
def issue_parent_set(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    parent = issue_by_id(world, input["parentIssueId"], "parentIssueId")
    if parent.number == issue.number or parent.number in _descendants(world, issue.number):
        raise CapabilityError(
            "VALIDATION",
            f"#{parent.number} cannot be the parent of #{issue.number}: that would make a cycle",
        )
    issue.parent = parent.number
    touch(world, issue)
    return {"issueId": issue.node_id, "parentIssueId": parent.node_id, "updated": True}


@capability(
    "issue.parent.remove",
    "Detach an issue from its parent issue.",
    by_id(),
    mutates=True,
)
def issue_parent_remove(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    parent = world.issue(issue.parent) if issue.parent is not None else None
    if parent is None:
        raise CapabilityError("NOT_FOUND", f"issue #{issue.number} has no parent issue")
    issue.parent = None
    touch(world, issue)
    return {"issueId": issue.node_id, "parentIssueId": parent.node_id, "removed": True}


BLOCKED_BY_INPUT = by_id("blockedByIssueId", blockedByIssueId=NODE_ID)


def _issue_and_blocker(world: World, input: dict[str, Any]) -> tuple[Issue, Issue]:
    issue = issue_by_id(world, input["issueId"])
    return issue, issue_by_id(world, input["blockedByIssueId"], "blockedByIssueId")


@capability(
    "issue.blocked_by.add",
    "Mark an issue as blocked by another issue.",
    BLOCKED_BY_INPUT,
    mutates=True,
)
def issue_blocked_by_add(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue, blocker = _issue_and_blocker(world, input)
    if blocker.number == issue.number:
        raise CapabilityError("VALIDATION", "an issue cannot be blocked by itself")
    if blocker.number not in issue.blocked_by:
        issue.blocked_by.append(blocker.number)
        touch(world, issue)
    return {"issueId": issue.node_id, "blockedByIssueId": blocker.node_id, "added": True}


@capability(
    "issue.blocked_by.remove",
    "Remove a blocked-by relation between two issues.",
    BLOCKED_BY_INPUT,
    mutates=True,
)
def issue_blocked_by_remove(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue, blocker = _issue_and_blocker(world, input)
    if blocker.number not in issue.blocked_by:
        raise CapabilityError(
            "NOT_FOUND", f"issue #{issue.number} is not blocked by #{blocker.number}"
        )
    issue.blocked_by.remove(blocker.number)
    touch(world, issue)
    return {"issueId": issue.node_id, "blockedByIssueId": blocker.node_id, "removed": True}
