"""Issue capabilities: reading, writing, comments and relations (parent, blocked-by, PRs).

Reads address an issue by repository and number (``owner``, ``name``, ``issueNumber``);
mutations by node id (``issueId``), as GitHub's GraphQL mutations do. Behaviour follows
GitHub's: closing a closed issue or reopening an open one succeeds without change; labels,
assignees and milestones must exist; adding a blocked-by relation that exists is a no-op;
removing a relation that does not exist is ``NOT_FOUND``.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.capabilities.registry import (
    AFTER,
    FIRST,
    ISSUE_NUMBER,
    NAME,
    OWNER,
    CapabilityError,
    capability,
    input_schema,
    page,
    require_repo,
)
from pytest_ghxbench.sandbox.state import Comment, Issue, PullRequest, World

NODE_ID: dict[str, Any] = {"type": "string", "minLength": 1, "description": "Issue node id (I_...)"}
NAMES: dict[str, Any] = {"type": "array", "items": {"type": "string", "minLength": 1}}
BODY: dict[str, Any] = {"type": "string", "minLength": 1}
BY_NUMBER = input_schema(
    ["owner", "name", "issueNumber"], owner=OWNER, name=NAME, issueNumber=ISSUE_NUMBER
)


# ---------------------------------------------------------------- lookups and renderings


def issue_by_number(world: World, input: dict[str, Any]) -> Issue:
    require_repo(world, input)
    issue = world.issue(input["issueNumber"])
    if issue is None:
        number = input["issueNumber"]
        kind = "a pull request" if world.pull_request(number) else "an issue"
        raise CapabilityError(
            "NOT_FOUND",
            f"Could not resolve to an issue with the number of {number}"
            + (f" (#{number} is {kind})." if world.pull_request(number) else "."),
        )
    return issue


def issue_by_id(world: World, node: str, field: str = "issueId") -> Issue:
    issue = world.issue_by_node_id(node)
    if issue is None:
        raise CapabilityError(
            "NOT_FOUND",
            f"input.{field}: Could not resolve to an Issue with the global id of '{node}'.",
        )
    return issue


def issue_url(world: World, number: int) -> str:
    return f"{world.repository.url}/issues/{number}"


def issue_ref(world: World, issue: Issue) -> dict[str, Any]:
    """The short form used inside other objects."""
    return {
        "id": issue.node_id,
        "number": issue.number,
        "title": issue.title,
        "state": issue.state,
        "url": issue_url(world, issue.number),
    }


def milestone_ref(world: World, number: int | None) -> dict[str, Any] | None:
    milestone = world.milestone(number) if number is not None else None
    if milestone is None:
        return None
    return {"number": milestone.number, "title": milestone.title, "id": milestone.node_id}


def issue_data(world: World, issue: Issue) -> dict[str, Any]:
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


def comment_data(world: World, issue: Issue, comment: Comment) -> dict[str, Any]:
    return {
        "id": comment.node_id,
        "body": comment.body,
        "authorLogin": comment.author,
        "url": f"{issue_url(world, issue.number)}#issuecomment-{comment.id}",
        "createdAt": comment.created_at,
    }


def pull_ref(world: World, pull: PullRequest) -> dict[str, Any]:
    return {
        "id": pull.node_id,
        "number": pull.number,
        "title": pull.title,
        "state": pull.state,
        "isDraft": pull.is_draft,
        "url": f"{world.repository.url}/pull/{pull.number}",
    }


def _known_labels(world: World, names: list[str]) -> list[str]:
    """The labels' canonical names; every one must exist."""
    found = []
    for name in names:
        label = world.label(name)
        if label is None:
            raise CapabilityError(
                "NOT_FOUND", f"label '{name}' not found in {world.repository.full_name}"
            )
        if label.name not in found:
            found.append(label.name)
    return found


def _assignable(world: World, logins: list[str]) -> list[str]:
    for login in logins:
        if login not in world.collaborators:
            raise CapabilityError(
                "VALIDATION",
                f"'{login}' cannot be assigned: not a collaborator of {world.repository.full_name}",
            )
    return list(dict.fromkeys(logins))


def _touch(world: World, issue: Issue) -> None:
    issue.updated_at = world.tick()


# ---------------------------------------------------------------- reads


@capability("issue.view", "Fetch one issue by number.", BY_NUMBER)
def issue_view(world: World, input: dict[str, Any]) -> dict[str, Any]:
    return issue_data(world, issue_by_number(world, input))


@capability(
    "issue.list",
    "List issues (newest first), filtered by state, labels and assignee.",
    input_schema(
        ["owner", "name"],
        owner=OWNER,
        name=NAME,
        state={"enum": ["open", "closed", "all"], "default": "open"},
        labels=NAMES,
        assignee={"type": "string", "minLength": 1},
        first=FIRST,
        after=AFTER,
    ),
)
def issue_list(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    state = input["state"].upper()
    wanted = {name.casefold() for name in input.get("labels", [])}
    chosen = [
        issue
        for issue in sorted(world.issues, key=lambda i: -i.number)
        if state in ("ALL", issue.state)
        and wanted <= {name.casefold() for name in issue.labels}
        and input.get("assignee") in (None, *issue.assignees)
    ]
    return page(chosen, input, lambda issue: _list_entry(world, issue))


def _list_entry(world: World, issue: Issue) -> dict[str, Any]:
    return {
        "id": issue.node_id,
        "number": issue.number,
        "title": issue.title,
        "state": issue.state,
        "labels": list(issue.labels),
        "assignees": list(issue.assignees),
        "url": issue_url(world, issue.number),
        "createdAt": issue.created_at,
        "updatedAt": issue.updated_at,
    }


@capability(
    "issue.comments.list",
    "List the comments of one issue, oldest first.",
    input_schema(
        ["owner", "name", "issueNumber"],
        owner=OWNER,
        name=NAME,
        issueNumber=ISSUE_NUMBER,
        first=FIRST,
        after=AFTER,
    ),
    route="graphql",
)
def issue_comments_list(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_number(world, input)
    return page(issue.comments, input, lambda c: comment_data(world, issue, c))


@capability("issue.linked_prs.list", "List the pull requests that will close an issue.", BY_NUMBER)
def issue_linked_prs_list(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_number(world, input)
    linked = world.linked_pull_requests(issue.number)
    return page(linked, {"first": 100}, lambda p: pull_ref(world, p))


# ---------------------------------------------------------------- writes


@capability(
    "issue.create",
    "Create an issue.",
    input_schema(
        ["owner", "name", "title"],
        owner=OWNER,
        name=NAME,
        title=BODY,
        body={"type": "string"},
        labels=NAMES,
        assignees=NAMES,
        milestoneNumber={"type": "integer", "minimum": 1},
        issueType={"type": "string", "minLength": 1},
    ),
    mutates=True,
)
def issue_create(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    labels = _known_labels(world, input.get("labels", []))
    assignees = _assignable(world, input.get("assignees", []))
    milestone = input.get("milestoneNumber")
    if milestone is not None and world.milestone(milestone) is None:
        raise CapabilityError("NOT_FOUND", f"milestone {milestone} not found")
    kind = input.get("issueType")
    if kind is not None and kind.casefold() not in {t.name.casefold() for t in world.issue_types}:
        raise CapabilityError("NOT_FOUND", f"issue type '{kind}' not found")
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
    return issue_data(world, issue)


@capability(
    "issue.update",
    "Change an issue's title and/or body.",
    {
        **input_schema(["issueId"], issueId=NODE_ID, title=BODY, body={"type": "string"}),
        "anyOf": [{"required": ["title"]}, {"required": ["body"]}],
    },
    mutates=True,
)
def issue_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    issue.title = input.get("title", issue.title)
    issue.body = input.get("body", issue.body)
    _touch(world, issue)
    return issue_data(world, issue)


@capability(
    "issue.close",
    "Close an issue (reason: completed, not_planned or duplicate).",
    input_schema(
        ["issueId"],
        issueId=NODE_ID,
        reason={"enum": ["completed", "not_planned", "duplicate"], "default": "completed"},
    ),
    mutates=True,
)
def issue_close(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    if issue.state == "OPEN":
        issue.state = "CLOSED"
        issue.state_reason = input["reason"].upper()
        _touch(world, issue)
        issue.closed_at = issue.updated_at
    return {
        "id": issue.node_id,
        "number": issue.number,
        "state": issue.state,
        "stateReason": issue.state_reason,
        "closed": True,
    }


@capability(
    "issue.reopen",
    "Reopen a closed issue.",
    input_schema(["issueId"], issueId=NODE_ID),
    mutates=True,
)
def issue_reopen(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    if issue.state == "CLOSED":
        issue.state, issue.state_reason, issue.closed_at = "OPEN", "REOPENED", None
        _touch(world, issue)
    return {"id": issue.node_id, "number": issue.number, "state": issue.state, "reopened": True}


@capability(
    "issue.delete",
    "Delete an issue permanently (with its relations and project items).",
    input_schema(["issueId"], issueId=NODE_ID),
    mutates=True,
)
def issue_delete(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    number = issue.number
    world.issues.remove(issue)
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
    return {"id": issue.node_id, "number": number, "deleted": True}


@capability(
    "issue.labels.update",
    "Replace an issue's labels with the given set.",
    input_schema(["issueId", "labels"], issueId=NODE_ID, labels=NAMES),
    mutates=True,
)
def issue_labels_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    issue.labels = _known_labels(world, input["labels"])
    _touch(world, issue)
    return {
        "id": issue.node_id,
        "number": issue.number,
        "labels": list(issue.labels),
        "updated": True,
    }


@capability(
    "issue.labels.add",
    "Add labels to an issue, keeping the ones it has.",
    input_schema(["issueId", "labels"], issueId=NODE_ID, labels={**NAMES, "minItems": 1}),
    mutates=True,
)
def issue_labels_add(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    issue.labels = _known_labels(world, [*issue.labels, *input["labels"]])
    _touch(world, issue)
    return {
        "id": issue.node_id,
        "number": issue.number,
        "labels": list(issue.labels),
        "updated": True,
    }


@capability(
    "issue.assignees.update",
    "Replace an issue's assignees with the given logins.",
    input_schema(["issueId", "assignees"], issueId=NODE_ID, assignees=NAMES),
    mutates=True,
)
def issue_assignees_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    issue.assignees = _assignable(world, input["assignees"])
    _touch(world, issue)
    return {
        "id": issue.node_id,
        "number": issue.number,
        "assignees": list(issue.assignees),
        "updated": True,
    }


@capability(
    "issue.milestone.set",
    "Set an issue's milestone by number (null clears it).",
    input_schema(
        ["issueId", "milestoneNumber"],
        issueId=NODE_ID,
        milestoneNumber={"type": ["integer", "null"], "minimum": 1},
    ),
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
    _touch(world, issue)
    return {
        "id": issue.node_id,
        "number": issue.number,
        "milestone": milestone_ref(world, number),
        "updated": True,
    }


@capability(
    "issue.comments.create",
    "Add a comment to an issue.",
    input_schema(["issueId", "body"], issueId=NODE_ID, body=BODY),
    mutates=True,
)
def issue_comments_create(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    if issue.locked and world.viewer not in world.collaborators:
        raise CapabilityError("CONFLICT", f"issue #{issue.number} is locked")
    comment_id = world.next_id()
    comment = Comment(
        id=comment_id,
        node_id=world.node("IC", comment_id),
        author=world.viewer,
        body=input["body"],
        created_at=world.tick(),
    )
    issue.comments.append(comment)
    issue.updated_at = comment.created_at
    return comment_data(world, issue, comment)
