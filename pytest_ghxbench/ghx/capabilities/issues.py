"""Issue capabilities: reading, listing, creating, editing, closing, reopening and deleting
issues, and the pull requests linked to one.

Comments are in :mod:`.issue_comments`, labels, assignees and milestone in
:mod:`.issue_metadata`, relations (parent, blocked-by) in :mod:`.issue_relations`; they share
the lookups of :mod:`.issue_support`.

Reads address an issue by repository and number (``owner``, ``name``, ``issueNumber``);
mutations by node id (``issueId``), as GitHub's GraphQL mutations do. Closing a closed issue or
reopening an open one succeeds without change; labels and milestones must exist
(``NOT_FOUND``), assignees be assignable (``VALIDATION``).

- ``issue.view`` → id, number, title, state, stateReason, body, url, author, labels, assignees,
  milestone{number, title, id}, issueType, commentsCount, createdAt, updatedAt, closedAt
- ``issue.list`` (``state``, ``labels``: all of them, ``assignee``; newest first) →
  items{id, number, title, state, labels, assignees, url, createdAt, updatedAt}
- ``issue.linked_prs.list`` → items{id, number, title, state, isDraft, url}
- ``issue.create`` / ``issue.update`` → the issue as ``issue.view`` shows it
- ``issue.close`` → id, number, state, stateReason, closed; ``issue.reopen`` → id, number,
  state, reopened; ``issue.delete`` → id, number, deleted
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.ghx.capabilities.issue_support import (
    BODY,
    BY_NUMBER,
    NAMES,
    assignable,
    by_id,
    issue_node,
    known_labels,
    offset_page,
    repo_graphql,
)
from pytest_ghxbench.ghx.capabilities.shapes import connection_page, label_names, login, repo_path
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import (
    AFTER,
    FIRST,
    CapabilityError,
    capability,
    error_code,
    repo_schema,
)

__all__ = ["ISSUE_FIELDS", "issue_data"]

_MAX_LISTED = 1000

ISSUE_FIELDS = """
  id number title state stateReason body url createdAt updatedAt closedAt
  author { login }
  labels(first: 100) { nodes { name } }
  assignees(first: 100) { nodes { login } }
  milestone { number title id }
  issueType { name }
  comments { totalCount }
"""


def issue_data(issue: Mapping[str, Any]) -> dict[str, Any]:
    """The full issue (GraphQL selection :data:`ISSUE_FIELDS`) as ``issue.view`` returns it."""
    milestone = issue.get("milestone")
    return {
        "id": issue["id"],
        "number": issue["number"],
        "title": issue["title"],
        "state": issue["state"],
        "stateReason": issue.get("stateReason"),
        "body": issue.get("body") or "",
        "url": issue["url"],
        "author": login(issue.get("author")),
        "labels": label_names((issue.get("labels") or {}).get("nodes")),
        "assignees": [login(u) for u in (issue.get("assignees") or {}).get("nodes") or []],
        "milestone": (
            {"number": milestone["number"], "title": milestone["title"], "id": milestone["id"]}
            if isinstance(milestone, dict)
            else None
        ),
        "issueType": (issue.get("issueType") or {}).get("name"),
        "commentsCount": (issue.get("comments") or {}).get("totalCount", 0),
        "createdAt": issue["createdAt"],
        "updatedAt": issue.get("updatedAt"),
        "closedAt": issue.get("closedAt"),
    }


# ---------------------------------------------------------------- reads


def _issue_by_number(
    client: GitHubClient, input: Mapping[str, Any], selection: str
) -> dict[str, Any]:
    """``selection`` of the issue ``input`` names; ``NOT_FOUND`` (saying so when the number is
    a pull request's) when there is none."""
    number = input["issueNumber"]
    missing = f"Could not resolve to an issue with the number of {number}"
    try:
        repository = repo_graphql(
            client,
            input,
            f"issueOrPullRequest(number: $number) {{ __typename ... on Issue {{ {selection} }} }}",
            number=("Int!", number),
        )
    except GitHubError as exc:
        if error_code(exc) == "NOT_FOUND" and "Repository" not in exc.message:
            raise CapabilityError("NOT_FOUND", missing + ".") from None
        raise
    found = repository.get("issueOrPullRequest")
    if not isinstance(found, dict):
        raise CapabilityError("NOT_FOUND", missing + ".")
    if found.get("__typename") != "Issue":
        raise CapabilityError("NOT_FOUND", f"{missing} (#{number} is a pull request).")
    return found


@capability("issue.view", "Fetch one issue by number.", BY_NUMBER)
def issue_view(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return issue_data(_issue_by_number(client, input, ISSUE_FIELDS))


def _list_entry(issue: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": issue["node_id"],
        "number": issue["number"],
        "title": issue["title"],
        "state": str(issue["state"]).upper(),
        "labels": label_names(issue.get("labels")),
        "assignees": [login(user) for user in issue.get("assignees") or []],
        "url": issue["html_url"],
        "createdAt": issue["created_at"],
        "updatedAt": issue.get("updated_at"),
    }


@capability(
    "issue.list",
    "List issues (newest first), filtered by state, labels and assignee.",
    repo_schema(
        state={"enum": ["open", "closed", "all"], "default": "open"},
        labels=NAMES,
        assignee={"type": "string", "minLength": 1},
        first=FIRST,
        after=AFTER,
    ),
)
def issue_list(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    """GitHub lists pull requests as issues too: the matching issues are fetched (at most
    1000, filtered by GitHub), the pull requests dropped and the rest paged here, newest
    (highest number) first, so every page is full."""
    params = {
        "state": input["state"],
        "labels": ",".join(input["labels"]) if input.get("labels") else None,
        "assignee": input.get("assignee"),
        "sort": "created",
        "direction": "desc",
    }
    listed = client.paginate(f"{repo_path(input)}/issues", params, limit=_MAX_LISTED)
    issues = sorted(
        (item for item in listed if "pull_request" not in item), key=lambda i: -int(i["number"])
    )
    return offset_page(issues, input, _list_entry)


def _pull_ref(pull: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": pull["id"],
        "number": pull["number"],
        "title": pull["title"],
        "state": pull["state"],
        "isDraft": bool(pull.get("isDraft")),
        "url": pull["url"],
    }


@capability("issue.linked_prs.list", "List the pull requests that will close an issue.", BY_NUMBER)
def issue_linked_prs_list(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    issue = _issue_by_number(
        client,
        input,
        "closedByPullRequestsReferences(first: 100, includeClosedPrs: true) { "
        "nodes { id number title state isDraft url } pageInfo { hasNextPage endCursor } }",
    )
    return connection_page(issue["closedByPullRequestsReferences"], _pull_ref)


# ---------------------------------------------------------------- writes


def _issue_type(client: GitHubClient, input: Mapping[str, Any], kind: str) -> str:
    """The canonical name of issue type ``kind`` (any case), or ``NOT_FOUND``."""
    selection = "issueTypes(first: 100) { nodes { name } }"
    types = repo_graphql(client, input, selection)["issueTypes"]["nodes"] or []
    found = next((t["name"] for t in types if t["name"].casefold() == kind.casefold()), None)
    if found is None:
        raise CapabilityError("NOT_FOUND", f"issue type '{kind}' not found")
    return str(found)


@capability(
    "issue.create",
    "Create an issue.",
    repo_schema(
        "title",
        title=BODY,
        body={"type": "string"},
        labels=NAMES,
        assignees=NAMES,
        milestoneNumber={"type": "integer", "minimum": 1},
        issueType={"type": "string", "minLength": 1},
    ),
    mutates=True,
)
def issue_create(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    """Labels, assignees, milestone and type are checked first: GitHub's REST endpoint would
    create missing labels and drop assignees it cannot assign."""
    repo_graphql(client, input, "id")
    labels = [label["name"] for label in known_labels(client, input, input.get("labels", []))]
    assignees = assignable(client, input, input.get("assignees", []))
    body: dict[str, Any] = {"title": input["title"], "body": input.get("body", "")}
    milestone = input.get("milestoneNumber")
    if milestone is not None:
        answer = client.request(
            "GET", f"{repo_path(input)}/milestones/{milestone}", ok_statuses=(404,)
        )
        if answer.status == 404:
            raise CapabilityError("NOT_FOUND", f"milestone {milestone} not found")
        body["milestone"] = milestone
    if input.get("issueType") is not None:
        body["type"] = _issue_type(client, input, input["issueType"])
    if labels:
        body["labels"] = labels
    if assignees:
        body["assignees"] = assignees
    created = client.rest("POST", f"{repo_path(input)}/issues", body=body)
    return issue_view(client, {**input, "issueNumber": created["number"]})


_UPDATE = (
    "mutation($input: UpdateIssueInput!) { updateIssue(input: $input) { issue { "
    + ISSUE_FIELDS
    + " } } }"
)


@capability(
    "issue.update",
    "Change an issue's title and/or body.",
    {
        **by_id(title=BODY, body={"type": "string"}),
        "anyOf": [{"required": ["title"]}, {"required": ["body"]}],
    },
    mutates=True,
)
def issue_update(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_node(client, input["issueId"])
    change = {key: input[key] for key in ("title", "body") if key in input}
    data = client.graphql(_UPDATE, {"input": {"id": issue["id"], **change}})
    return issue_data(data["updateIssue"]["issue"])


def _summary(issue: Mapping[str, Any], **fields: Any) -> dict[str, Any]:
    return {"id": issue["id"], "number": issue["number"], **fields}


@capability(
    "issue.close",
    "Close an issue (reason: completed, not_planned or duplicate).",
    by_id(
        reason={"enum": ["completed", "not_planned", "duplicate"], "default": "completed"},
    ),
    mutates=True,
)
def issue_close(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    issue: Mapping[str, Any] = issue_node(client, input["issueId"])
    if issue["state"] == "OPEN":
        data = client.graphql(
            "mutation($id: ID!, $reason: IssueClosedStateReason) { closeIssue(input: "
            "{issueId: $id, stateReason: $reason}) { issue { id number state stateReason } } }",
            {"id": issue["id"], "reason": input["reason"].upper()},
        )
        issue = data["closeIssue"]["issue"]
    return _summary(issue, state=issue["state"], stateReason=issue["stateReason"], closed=True)


@capability("issue.reopen", "Reopen a closed issue.", by_id(), mutates=True)
def issue_reopen(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    issue: Mapping[str, Any] = issue_node(client, input["issueId"])
    if issue["state"] == "CLOSED":
        data = client.graphql(
            "mutation($id: ID!) { reopenIssue(input: {issueId: $id}) { "
            "issue { id number state } } }",
            {"id": issue["id"]},
        )
        issue = data["reopenIssue"]["issue"]
    return _summary(issue, state=issue["state"], reopened=True)


@capability(
    "issue.delete",
    "Delete an issue permanently (with its relations and project items).",
    by_id(),
    mutates=True,
)
def issue_delete(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_node(client, input["issueId"])
    client.graphql(
        "mutation($id: ID!) { deleteIssue(input: {issueId: $id}) { clientMutationId } }",
        {"id": issue["id"]},
    )
    return _summary(issue, deleted=True)
