"""What the issue capabilities share: input schemas and the lookups of repositories, issues
(by node id), labels and assignees, and paging of lists ordered on this side."""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_ghxbench.ghx.capabilities.shapes import repo_path
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import (
    ISSUE_NUMBER,
    CapabilityError,
    error_code,
    input_schema,
    repo_schema,
)

__all__ = [
    "BODY",
    "BY_NUMBER",
    "NAMES",
    "NODE_ID",
    "IssueNode",
    "assignable",
    "by_id",
    "issue_node",
    "known_labels",
    "offset_page",
    "repo_graphql",
]

NODE_ID: dict[str, Any] = {"type": "string", "minLength": 1, "description": "Issue node id (I_...)"}
NAMES: dict[str, Any] = {"type": "array", "items": {"type": "string", "minLength": 1}}
BODY: dict[str, Any] = {"type": "string", "minLength": 1}
BY_NUMBER = repo_schema("issueNumber", issueNumber=ISSUE_NUMBER)


def by_id(*required: str, **extra: dict[str, Any]) -> dict[str, Any]:
    """The input schema of a mutation addressing an issue by node id, with more properties."""
    return input_schema(["issueId", *required], issueId=NODE_ID, **extra)


def repo_graphql(
    client: GitHubClient, input: Mapping[str, Any], selection: str, **variables: Any
) -> dict[str, Any]:
    """``repository(owner, name) { selection }`` with more ``$variables`` (name → GraphQL type
    and value); a missing repository is ``NOT_FOUND``."""
    declared = "".join(f", ${key}: {kind}" for key, (kind, _) in variables.items())
    query = (
        f"query($owner: String!, $name: String!{declared}) "
        f"{{ repository(owner: $owner, name: $name) {{ {selection} }} }}"
    )
    values = {key: value for key, (_, value) in variables.items()}
    data = client.graphql(query, {"owner": input["owner"], "name": input["name"], **values})
    repo = (data or {}).get("repository")
    if repo is None:
        raise CapabilityError(
            "NOT_FOUND",
            f"Could not resolve to a Repository with the name '{input['owner']}/{input['name']}'.",
        )
    found: dict[str, Any] = repo
    return found


class IssueNode(dict[str, Any]):
    """An issue found by node id: its GraphQL fields, plus the input of its repository."""

    @property
    def repo(self) -> dict[str, str]:
        repository = self["repository"]
        return {"owner": repository["owner"]["login"], "name": repository["name"]}

    @property
    def full_name(self) -> str:
        repo = self.repo
        return f"{repo['owner']}/{repo['name']}"


def issue_node(
    client: GitHubClient, node: str, field: str = "issueId", fields: str = ""
) -> IssueNode:
    """The issue with node id ``node`` (named by input ``field``): id, number, state,
    stateReason, repository and ``fields``; ``NOT_FOUND`` when it is not an issue."""
    query = (
        "query($id: ID!) { node(id: $id) { __typename ... on Issue { "
        f"id number state stateReason repository {{ name owner {{ login }} }} {fields} }} }} }}"
    )
    missing = CapabilityError(
        "NOT_FOUND", f"input.{field}: Could not resolve to an Issue with the global id of '{node}'."
    )
    try:
        data = client.graphql(query, {"id": node})
    except GitHubError as exc:
        if error_code(exc) == "NOT_FOUND":
            raise missing from None
        raise
    found = (data or {}).get("node")
    if not isinstance(found, dict) or found.get("__typename") != "Issue":
        raise missing
    return IssueNode(found)


def known_labels(
    client: GitHubClient, repo: Mapping[str, Any], names: Sequence[str]
) -> list[dict[str, str]]:
    """The labels named (``{"id", "name"}``, canonical names, no repeats); every one must
    exist (``NOT_FOUND``)."""
    if not names:
        return []
    selection = " ".join(f"l{i}: label(name: $l{i}) {{ id name }}" for i in range(len(names)))
    variables = {f"l{i}": ("String!", name) for i, name in enumerate(names)}
    repository = repo_graphql(client, repo, selection, **variables)
    found: list[dict[str, str]] = []
    for i, name in enumerate(names):
        label = repository.get(f"l{i}")
        if label is None:
            raise CapabilityError(
                "NOT_FOUND", f"label '{name}' not found in {repo['owner']}/{repo['name']}"
            )
        if label["name"] not in [f["name"] for f in found]:
            found.append(label)
    return found


def assignable(client: GitHubClient, repo: Mapping[str, Any], logins: Sequence[str]) -> list[str]:
    """The logins without repeats; every one must be assignable in the repository
    (``VALIDATION`` naming the first that is not)."""
    for person in dict.fromkeys(logins):
        answer = client.request(
            "GET",
            f"{repo_path(repo)}/assignees/{urllib.parse.quote(person, safe='')}",
            ok_statuses=(404,),
        )
        if answer.status == 404:
            raise CapabilityError(
                "VALIDATION",
                f"'{person}' cannot be assigned: not a collaborator of "
                f"{repo['owner']}/{repo['name']}",
            )
    return list(dict.fromkeys(logins))


def offset_page(items: Sequence[Any], input: Mapping[str, Any], render: Any) -> dict[str, Any]:
    """A page of a list ordered or filtered here: the cursor is the offset of the next item."""
    after = input.get("after")
    try:
        start = int(after) if after else 0
    except ValueError:
        raise CapabilityError(
            "VALIDATION", f"input.after: {after!r} is not a valid cursor"
        ) from None
    chunk = items[start : start + int(input.get("first") or 30)]
    end = start + len(chunk)
    return {
        "items": [render(item) for item in chunk],
        "pageInfo": {"hasNextPage": end < len(items), "endCursor": str(end) if chunk else None},
    }
