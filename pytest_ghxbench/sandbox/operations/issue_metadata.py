"""World operations on an issue's labels, assignees and milestone, by node id (``issueId``)."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox import history
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
