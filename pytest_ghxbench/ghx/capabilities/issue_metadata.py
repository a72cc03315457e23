"""Issue metadata capabilities: labels, assignees and milestone, addressed by node id
(``issueId``).

Each returns the issue's id and number, the new value and ``updated: true``. Labels must exist
(``NOT_FOUND``), assignees be assignable (``VALIDATION``), a milestone exist (``NOT_FOUND``;
``null`` clears it).
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.ghx.capabilities.issue_support import (
    NAMES,
    assignable,
    by_id,
    issue_node,
    known_labels,
)
from pytest_ghxbench.ghx.capabilities.shapes import label_names, login, repo_path
from pytest_ghxbench.ghx.client import GitHubClient
from pytest_ghxbench.ghx.registry import CapabilityError, capability

__all__: list[str] = []

_LABELS = "labels(first: 100) { nodes { name } }"


def _labels_result(issue: dict[str, Any], labelled: dict[str, Any]) -> dict[str, Any]:
    names = label_names(labelled["labels"]["nodes"])
    return {"id": issue["id"], "number": issue["number"], "labels": names, "updated": True}


@capability(
    "issue.labels.update",
    "Replace an issue's labels with the given set.",
    by_id("labels", labels=NAMES),
    mutates=True,
)
def issue_labels_update(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_node(client, input["issueId"])
    labels = known_labels(client, issue.repo, input["labels"])
    data = client.graphql(
        "mutation($id: ID!, $labels: [ID!]) { updateIssue(input: {id: $id, labelIds: $labels})"
        f" {{ issue {{ {_LABELS} }} }} }}",
        {"id": issue["id"], "labels": [label["id"] for label in labels]},
    )
    return _labels_result(issue, data["updateIssue"]["issue"])


@capability(
    "issue.labels.add",
    "Add labels to an issue, keeping the ones it has.",
    by_id("labels", labels={**NAMES, "minItems": 1}),
    mutates=True,
)
def issue_labels_add(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_node(client, input["issueId"])
    labels = known_labels(client, issue.repo, input["labels"])
    data = client.graphql(
        "mutation($id: ID!, $labels: [ID!]!) { addLabelsToLabelable(input: "
        "{labelableId: $id, labelIds: $labels}) { labelable { ... on Issue { "
        f"{_LABELS} }} }} }} }}",
        {"id": issue["id"], "labels": [label["id"] for label in labels]},
    )
    return _labels_result(issue, data["addLabelsToLabelable"]["labelable"])


@capability(
    "issue.assignees.update",
    "Replace an issue's assignees with the given logins.",
    by_id("assignees", assignees=NAMES),
    mutates=True,
)
def issue_assignees_update(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_node(client, input["issueId"])
    people = assignable(client, issue.repo, input["assignees"])
    path = f"{repo_path(issue.repo)}/issues/{issue['number']}"
    edited = client.rest("PATCH", path, body={"assignees": people})
    assignees = [login(user) for user in edited.get("assignees") or []]
    return {"id": issue["id"], "number": issue["number"], "assignees": assignees, "updated": True}


@capability(
    "issue.milestone.set",
    "Set an issue's milestone by number (null clears it).",
    by_id("milestoneNumber", milestoneNumber={"type": ["integer", "null"], "minimum": 1}),
    mutates=True,
)
def issue_milestone_set(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_node(client, input["issueId"])
    number = input["milestoneNumber"]
    path = repo_path(issue.repo)
    if number is not None:
        answer = client.request("GET", f"{path}/milestones/{number}", ok_statuses=(404,))
        if answer.status == 404:
            raise CapabilityError("NOT_FOUND", f"milestone {number} not found in {issue.full_name}")
    edited = client.rest("PATCH", f"{path}/issues/{issue['number']}", body={"milestone": number})
    milestone = edited.get("milestone")
    return {
        "id": issue["id"],
        "number": issue["number"],
        "milestone": (
            {"number": milestone["number"], "title": milestone["title"], "id": milestone["node_id"]}
            if isinstance(milestone, dict)
            else None
        ),
        "updated": True,
    }
