"""Issue relations: parent / sub-issues and blocked-by, read with ``issue.relations.get``
(→ issue, parent, children, blockedBy, blocking: each {id, number, title, state, url}).

Setting a parent replaces the current one and refuses cycles (``VALIDATION``); adding a
blocked-by relation that exists is a no-op; removing a relation that does not exist (or the
parent of an issue without one) is ``NOT_FOUND``. Mutations address issues by node id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.ghx.capabilities.issue_support import (
    BY_NUMBER,
    NODE_ID,
    IssueNode,
    by_id,
    issue_node,
    repo_graphql,
)
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import CapabilityError, capability, error_code

__all__: list[str] = []

_REF = "id number title state url"
_RELATED = "(first: 100) { nodes { " + _REF + " } }"


def _ref(issue: Mapping[str, Any]) -> dict[str, Any]:
    return {key: issue[key] for key in ("id", "number", "title", "state", "url")}


def _refs(connection: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [_ref(node) for node in connection.get("nodes") or []]


@capability(
    "issue.relations.get",
    "Get an issue's parent, sub-issues, and blocked-by / blocking issues.",
    BY_NUMBER,
)
def issue_relations_get(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    number = input["issueNumber"]
    selection = (
        f"issue(number: $number) {{ {_REF} parent {{ {_REF} }} subIssues{_RELATED} "
        f"blockedBy{_RELATED} blocking{_RELATED} }}"
    )
    missing = CapabilityError(
        "NOT_FOUND", f"Could not resolve to an issue with the number of {number}."
    )
    try:
        issue = repo_graphql(client, input, selection, number=("Int!", number)).get("issue")
    except GitHubError as exc:
        if error_code(exc) == "NOT_FOUND" and "Repository" not in exc.message:
            raise missing from None
        raise
    if issue is None:
        raise missing
    parent = issue.get("parent")
    return {
        "issue": _ref(issue),
        "parent": _ref(parent) if parent else None,
        "children": _refs(issue["subIssues"]),
        "blockedBy": _refs(issue["blockedBy"]),
        "blocking": _refs(issue["blocking"]),
    }


@capability(
    "issue.parent.set",
    "Make an issue a sub-issue of another (replacing any current parent).",
    by_id("parentIssueId", parentIssueId=NODE_ID),
    mutates=True,
)
def issue_parent_set(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_node(client, input["issueId"])
    parent = issue_node(client, input["parentIssueId"], "parentIssueId")
    if parent["id"] == issue["id"]:
        raise CapabilityError(
            "VALIDATION",
            f"#{parent['number']} cannot be the parent of #{issue['number']}: that would make a "
            "cycle",
        )
    client.graphql(
        "mutation($parent: ID!, $child: ID!) { addSubIssue(input: {issueId: $parent, "
        "subIssueId: $child, replaceParent: true}) { clientMutationId } }",
        {"parent": parent["id"], "child": issue["id"]},
    )
    return {"issueId": issue["id"], "parentIssueId": parent["id"], "updated": True}


@capability(
    "issue.parent.remove",
    "Detach an issue from its parent issue.",
    by_id(),
    mutates=True,
)
def issue_parent_remove(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_node(client, input["issueId"], fields="parent { id }")
    parent = issue.get("parent")
    if not parent:
        raise CapabilityError("NOT_FOUND", f"issue #{issue['number']} has no parent issue")
    client.graphql(
        "mutation($parent: ID!, $child: ID!) { removeSubIssue(input: {issueId: $parent, "
        "subIssueId: $child}) { clientMutationId } }",
        {"parent": parent["id"], "child": issue["id"]},
    )
    return {"issueId": issue["id"], "parentIssueId": parent["id"], "removed": True}


BLOCKED_BY_INPUT = by_id("blockedByIssueId", blockedByIssueId=NODE_ID)


def _issue_and_blocker(
    client: GitHubClient, input: Mapping[str, Any]
) -> tuple[IssueNode, IssueNode, bool]:
    """Both issues, and whether the first is blocked by the second."""
    issue = issue_node(client, input["issueId"], fields="blockedBy(first: 100) { nodes { id } }")
    blocker = issue_node(client, input["blockedByIssueId"], "blockedByIssueId")
    blocked = any(node["id"] == blocker["id"] for node in issue["blockedBy"]["nodes"] or [])
    return issue, blocker, blocked


@capability(
    "issue.blocked_by.add",
    "Mark an issue as blocked by another issue.",
    BLOCKED_BY_INPUT,
    mutates=True,
)
def issue_blocked_by_add(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    issue, blocker, blocked = _issue_and_blocker(client, input)
    if blocker["id"] == issue["id"]:
        raise CapabilityError("VALIDATION", "an issue cannot be blocked by itself")
    if not blocked:
        client.graphql(
            "mutation($id: ID!, $blocker: ID!) { addBlockedBy(input: {issueId: $id, "
            "blockingIssueId: $blocker}) { clientMutationId } }",
            {"id": issue["id"], "blocker": blocker["id"]},
        )
    return {"issueId": issue["id"], "blockedByIssueId": blocker["id"], "added": True}


@capability(
    "issue.blocked_by.remove",
    "Remove a blocked-by relation between two issues.",
    BLOCKED_BY_INPUT,
    mutates=True,
)
def issue_blocked_by_remove(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    issue, blocker, blocked = _issue_and_blocker(client, input)
    if not blocked:
        raise CapabilityError(
            "NOT_FOUND", f"issue #{issue['number']} is not blocked by #{blocker['number']}"
        )
    client.graphql(
        "mutation($id: ID!, $blocker: ID!) { removeBlockedBy(input: {issueId: $id, "
        "blockingIssueId: $blocker}) { clientMutationId } }",
        {"id": issue["id"], "blocker": blocker["id"]},
    )
    return {"issueId": issue["id"], "blockedByIssueId": blocker["id"], "removed": True}
