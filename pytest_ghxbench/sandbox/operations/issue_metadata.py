"""World operations on an issue's labels, assignees and milestone, by node id (``issueId``),
and on whether its conversation is locked (``lockableId``)."""

from __future__ import annotations

from typing import Any, cast

from pytest_ghxbench.sandbox import history
from pytest_ghxbench.sandbox.errors import GitHubError
from pytest_ghxbench.sandbox.operations.issues import (
    assignable,
    issue_by_id,
    issue_summary,
    known_labels,
    milestone_ref,
    require_milestone,
    touch,
)
from pytest_ghxbench.sandbox.operations.registry import operation
from pytest_ghxbench.sandbox.state import Issue, World
from pytest_ghxbench.sandbox.state_issues import LockReason

_LOCK_REASONS: dict[str, LockReason] = {
    "OFF_TOPIC": "off-topic",
    "TOO_HEATED": "too heated",
    "RESOLVED": "resolved",
    "SPAM": "spam",
}

__all__: list[str] = []


def _set_labels(world: World, issue: Issue, names: list[str]) -> dict[str, Any]:
    labels = known_labels(world, names)
    with history.tracked(world, issue):
        issue.labels = labels
        touch(world, issue)
    return issue_summary(issue, labels=list(issue.labels), updated=True)


@operation("updateIssue(labelIds:)")
def issue_labels_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    return _set_labels(world, issue_by_id(world, input["issueId"]), input["labels"])


@operation("replaceActorsForAssignable")
def issue_assignees_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    assignees = assignable(world, input["assignees"])
    with history.tracked(world, issue):
        issue.assignees = assignees
        touch(world, issue)
    return issue_summary(issue, assignees=list(issue.assignees), updated=True)


@operation("updateIssue(milestoneId:)")
def issue_milestone_set(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    number = input["milestoneNumber"]
    require_milestone(world, number)
    with history.tracked(world, issue):
        issue.milestone = number
        touch(world, issue)
    return issue_summary(issue, milestone=milestone_ref(world, number), updated=True)


def _lock_reason(value: Any) -> LockReason | None:
    if value is None:
        return None
    if value in _LOCK_REASONS.values():
        return cast(LockReason, value)
    if value in _LOCK_REASONS:
        return _LOCK_REASONS[value]
    raise GitHubError.validation("Issue", "lock_reason", "invalid", value=value)


@operation("lockLockable")
def issue_lock(world: World, input: dict[str, Any]) -> dict[str, Any]:
    """``lockableId``, and ``lockReason`` (``off-topic`` or ``OFF_TOPIC``...) or none."""
    issue = issue_by_id(world, input["lockableId"], "lockableId")
    reason = _lock_reason(input.get("lockReason"))
    issue.locked = True
    issue.active_lock_reason = reason
    touch(world, issue)
    return issue_summary(issue, locked=True, activeLockReason=reason)


@operation("unlockLockable")
def issue_unlock(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["lockableId"], "lockableId")
    if issue.locked:
        issue.locked = False
        issue.active_lock_reason = None
        touch(world, issue)
    return issue_summary(issue, locked=False, activeLockReason=None)
