"""World operations on issues: creating, editing, closing, reopening and deleting them, and the
lookups and renderings the other issue operations share.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox import history
from pytest_ghxbench.sandbox.errors import GitHubError, NotFound
from pytest_ghxbench.sandbox.operations.registry import (
    operation,
    require_collaborators,
    require_repo,
)
from pytest_ghxbench.sandbox.state import Issue, Label, World

__all__ = [
    "assignable",
    "can_push",
    "issue_by_id",
    "issue_data",
    "issue_summary",
    "issue_url",
    "known_labels",
    "labels_made",
    "milestone_ref",
    "require_milestone",
    "touch",
]

# ---------------------------------------------------------------- lookups and renderings


def issue_by_id(world: World, node: str, field: str = "issueId") -> Issue:
    """The issue with node id ``node`` (named by input ``field``), or ``NOT_FOUND``."""
    issue = world.issue_by_node_id(node)
    if issue is None:
        raise NotFound(
            f"Could not resolve to an Issue with the global id of '{node}'.",
        )
    return issue


def issue_url(world: World, number: int) -> str:
    """The issue's page on GitHub."""
    return f"{world.repository.url}/issues/{number}"


def milestone_ref(world: World, number: int | None) -> dict[str, Any] | None:
    """The milestone's short form, or ``None`` when there is none."""
    milestone = world.milestone(number) if number is not None else None
    if milestone is None:
        return None
    return {"number": milestone.number, "title": milestone.title, "id": milestone.node_id}


def issue_data(world: World, issue: Issue) -> dict[str, Any]:
    """The full issue ``issue.view`` returns (and mutations that return the issue)."""
    return {
        "id": issue.node_id,
        "number": issue.number,
        "title": issue.title,
        "state": issue.state,
        "stateReason": issue.state_reason,
        "body": issue.body,
        "url": issue_url(world, issue.number),
        "author": issue.author,
        "labels": list(issue.labels),
        "assignees": list(issue.assignees),
        "milestone": milestone_ref(world, issue.milestone),
        "issueType": issue.issue_type,
        "commentsCount": len(issue.comments),
        "createdAt": issue.created_at,
        "updatedAt": issue.updated_at,
        "closedAt": issue.closed_at,
    }


def issue_summary(issue: Issue, **fields: Any) -> dict[str, Any]:
    """What a mutation returns: the issue's id and number, then ``fields``."""
    return {"id": issue.node_id, "number": issue.number, **fields}


def known_labels(world: World, names: list[str]) -> list[str]:
    """The labels' canonical names; every one must exist."""
    found = []
    for name in names:
        label = world.label(name)
        if label is None:
            raise NotFound(f"label '{name}' not found in {world.repository.full_name}")
        if label.name not in found:
            found.append(label.name)
    return found


def assignable(world: World, logins: list[str]) -> list[str]:
    """The logins without repeats; every one must be a collaborator."""
    require_collaborators(world, logins)
    return list(dict.fromkeys(logins))


def can_push(world: World, login: str) -> bool:
    """Whether ``login`` has write access to the repository: its owner or a collaborator (the
    world models no read-only collaborators)."""
    return login == world.repository.owner or login in world.collaborators


def touch(world: World, issue: Issue) -> None:
    """Record a change: a new ``updated_at``."""
    issue.updated_at = world.tick()


# ---------------------------------------------------------------- reads


# ---------------------------------------------------------------- writes


def labels_made(world: World, names: list[str]) -> list[str]:
    """The labels' canonical names; a name no label has becomes a new label (GitHub's
    default color, no description), as GitHub does for the labels of a new issue."""
    for name in names:
        if world.label(name) is None:
            world.labels.append(Label(name=name, node_id=world.node("LA", name)))
    return known_labels(world, names)


def require_milestone(world: World, number: int | None) -> None:
    """GitHub's 422 for an issue's milestone number that no milestone has."""
    if number is not None and world.milestone(number) is None:
        raise GitHubError.validation("Issue", "milestone", "invalid", value=number)


@operation("createIssue")
def issue_create(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    for login in input.get("assignees", []):
        if login not in world.collaborators:
            raise GitHubError.validation("Issue", "assignees", "invalid", value=login)
    assignees = assignable(world, input.get("assignees", []))
    milestone = input.get("milestoneNumber")
    require_milestone(world, milestone)
    kind = input.get("issueType")
    if kind is not None and kind.casefold() not in {t.name.casefold() for t in world.issue_types}:
        raise NotFound(f"issue type '{kind}' not found")
    labels = labels_made(world, input.get("labels", []))
    number = world.next_issue_number()
    now = world.tick()
    issue = Issue(
        number=number,
        node_id=world.node("I", number),
        title=input["title"],
        body=input.get("body", ""),
        author=world.viewer,
        labels=labels,
        assignees=assignees,
        milestone=milestone,
        issue_type=next(
            (t.name for t in world.issue_types if kind and t.name.casefold() == kind.casefold()),
            None,
        ),
        created_at=now,
        updated_at=now,
    )
    world.issues.append(issue)
    history.opened(world, issue)
    return issue_data(world, issue)


@operation("updateIssue")
def issue_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    with history.tracked(world, issue):
        issue.title = input.get("title", issue.title)
        issue.body = input.get("body", issue.body)
        touch(world, issue)
    return issue_data(world, issue)


@operation("closeIssue")
def issue_close(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    if issue.state == "OPEN":
        with history.tracked(world, issue):
            issue.state = "CLOSED"
            issue.state_reason = str(input.get("reason") or "completed").upper()  # type: ignore[assignment]
            touch(world, issue)
            issue.closed_at = issue.updated_at
    return issue_summary(issue, state=issue.state, stateReason=issue.state_reason, closed=True)


@operation("reopenIssue")
def issue_reopen(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    if issue.state == "CLOSED":
        with history.tracked(world, issue):
            issue.state, issue.state_reason, issue.closed_at = "OPEN", "REOPENED", None
            touch(world, issue)
    return issue_summary(issue, state=issue.state, reopened=True)


@operation("deleteIssue")
def issue_delete(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    number = issue.number
    world.issues.remove(issue)
    history.forget(world, number)
    for other in world.issues:
        if other.parent == number:
            other.parent = None
        if number in other.blocked_by:
            other.blocked_by.remove(number)
    for pull in world.pull_requests:
        if number in pull.closing_issues:
            pull.closing_issues.remove(number)
    for project in world.projects:
        project.items = [
            item
            for item in project.items
            if not (item.content_type == "Issue" and item.content_number == number)
        ]
    world.tick()
    return issue_summary(issue, deleted=True)
