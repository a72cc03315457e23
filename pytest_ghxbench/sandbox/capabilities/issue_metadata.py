"""Issue metadata capabilities: labels, assignees and milestone, addressed by node id
(``issueId``).

Each returns the issue's id and number, the new value and ``updated: true``. Labels must exist
(``NOT_FOUND``), assignees be collaborators (``VALIDATION``), a milestone exist (``NOT_FOUND``;
``null`` clears it).
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.capabilities.issues import (
    NAMES,
    assignable,
    by_id,
    issue_by_id,
    issue_summary,
    known_labels,
    milestone_ref,
    touch,
)
from pytest_ghxbench.sandbox.capabilities.registry import CapabilityError, capability
from pytest_ghxbench.sandbox.state import Issue, World

__all__: list[str] = []


def _set_labels(world: World, issue: Issue, names: list[str]) -> dict[str, Any]:
    issue.labels = known_labels(world, names)
    touch(world, issue)
    return issue_summary(issue, labels=list(issue.labels), updated=True)


@capability(
    "issue.labels.update",
    "Replace an issue's labels with the given set.",
    by_id("labels", labels=NAMES),
    mutates=True,
)
def issue_labels_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    return _set_labels(world, issue_by_id(world, input["issueId"]), input["labels"])


@capability(
    "issue.assignees.update",
    "Replace an issue's assignees with the given logins.",
    by_id("assignees", assignees=NAMES),
    mutates=True,
)
def issue_assignees_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    issue.assignees = assignable(world, input["assignees"])
    touch(world, issue)
    return issue_summary(issue, assignees=list(issue.assignees), updated=True)


@capability(
    "issue.milestone.set",
    "Set an issue's milestone by number (null clears it).",
    by_id("milestoneNumber", milestoneNumber={"type": ["integer", "null"], "minimum": 1}),
    mutates=True,
)
def issue_milestone_set(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    number = input["milestoneNumber"]
    if number is not None and world.milestone(number) is None:
        raise CapabilityError(
            "NOT_FOUND", f"milestone {number} not found in {world.repository.full_name}"
        )
    issue.milestone = number
    touch(world, issue)
    return issue_summary(issue, milestone=milestone_ref(world, number), updated=True)
