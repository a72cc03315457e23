"""Pull request capabilities: reading pull requests, their files and mergeability, and the
lookups the other ``pr*`` modules share.

Changes are in :mod:`.pr_writes`, checks in :mod:`.pr_checks`, review threads and reviews in
:mod:`.pr_reviews`. A pull request is addressed by ``owner``, ``name`` and ``prNumber``; lists
take ``first`` / ``after`` and return ``{items, pageInfo}``.

- ``pr.view`` (``exclude: ["body"]``) → id, number, title, state (OPEN, CLOSED, MERGED), url,
  body, labels, isDraft, author, headRefName, baseRefName
- ``pr.list`` (no ``prNumber``; ``state``: open (default), closed (includes merged), merged,
  all; newest first) → items{id, number, title, state, isDraft, url}
- ``pr.diff.list_files`` → items{path, additions, deletions, changeType}
- ``pr.mergeability.view`` → mergeable, mergeStateStatus, reviewDecision, isDraft, state

Errors: ``NOT_FOUND`` for an unknown repository or pull request.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.ghx.capabilities.issue_support import offset_page
from pytest_ghxbench.ghx.capabilities.shapes import (
    connection_page,
    label_names,
    login,
    repo_path,
    upper,
)
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import AFTER, FIRST, CapabilityError, capability, repo_schema

__all__ = [
    "BY_NUMBER",
    "LOGINS",
    "MAX_ASSIGNEES",
    "by_number",
    "find_pull",
    "pull_graphql",
    "pull_path",
    "pull_state",
    "require_open",
]

PR_NUMBER: dict[str, Any] = {"type": "integer", "minimum": 1, "description": "Pull request number"}
LOGINS: dict[str, Any] = {"type": "array", "items": {"type": "string", "minLength": 1}}
MAX_ASSIGNEES = 10
_MAX_LISTED = 1000


def by_number(*required: str, **extra: dict[str, Any]) -> dict[str, Any]:
    """The input schema of a pull request addressed by number, with more properties."""
    return repo_schema("prNumber", *required, prNumber=PR_NUMBER, **extra)


BY_NUMBER = by_number()


# ---------------------------------------------------------------- shared lookups


def pull_path(input: Mapping[str, Any]) -> str:
    return f"{repo_path(input)}/pulls/{input['prNumber']}"


def find_pull(client: GitHubClient, input: Mapping[str, Any]) -> dict[str, Any]:
    """The REST pull request ``input`` names, or ``NOT_FOUND`` (saying when it is an issue)."""
    number = input["prNumber"]
    try:
        found: dict[str, Any] = client.rest("GET", pull_path(input))
        return found
    except GitHubError as exc:
        if exc.status != 404:
            raise
    hint = ""
    try:
        issue = client.rest("GET", f"{repo_path(input)}/issues/{number}")
        if isinstance(issue, dict) and "pull_request" not in issue:
            hint = f" (#{number} is an issue)"
    except GitHubError as exc:
        if exc.status != 404:
            raise
    raise CapabilityError(
        "NOT_FOUND", f"Could not resolve to a PullRequest with the number of {number}{hint}."
    )


def pull_state(pull: Mapping[str, Any]) -> str:
    """OPEN, CLOSED or MERGED of a REST pull request."""
    return "MERGED" if pull.get("merged") or pull.get("merged_at") else str(upper(pull["state"]))


def require_open(state: str, number: int, action: str) -> None:
    """``CONFLICT`` unless the pull request is open."""
    if state != "OPEN":
        raise CapabilityError(
            "CONFLICT", f"cannot {action} pull request #{number}: it is {state.lower()}"
        )


_PULL_QUERY = """
query PullRequest($owner: String!, $name: String!, $number: Int!%s) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) { %s }
  }
}
"""


def pull_graphql(
    client: GitHubClient,
    input: Mapping[str, Any],
    selection: str,
    **variables: tuple[str, Any],
) -> dict[str, Any]:
    """The ``pullRequest`` object of a GraphQL query selecting ``selection``; ``variables``
    maps each extra variable's name to its GraphQL type and value."""
    declared = "".join(f", ${key}: {kind}" for key, (kind, _) in variables.items())
    values = {key: value for key, (_, value) in variables.items()}
    data = client.graphql(
        _PULL_QUERY % (declared, selection),
        {"owner": input["owner"], "name": input["name"], "number": input["prNumber"], **values},
    )
    pull = ((data or {}).get("repository") or {}).get("pullRequest")
    if not isinstance(pull, dict):
        number = input["prNumber"]
        raise CapabilityError(
            "NOT_FOUND", f"Could not resolve to a PullRequest with the number of {number}."
        )
    return pull


# ---------------------------------------------------------------- reads


@capability(
    "pr.view",
    "Fetch one pull request by number.",
    by_number(exclude={"type": "array", "items": {"type": "string", "enum": ["body"]}}),
)
def pr_view(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(client, input)
    data = {
        "id": pull["node_id"],
        "number": pull["number"],
        "title": pull["title"],
        "state": pull_state(pull),
        "url": pull["html_url"],
        "body": pull.get("body") or "",
        "labels": label_names(pull.get("labels")),
        "isDraft": bool(pull.get("draft")),
        "author": login(pull.get("user")),
        "headRefName": pull["head"]["ref"],
        "baseRefName": pull["base"]["ref"],
    }
    if "body" in input.get("exclude", []):
        del data["body"]
    return data


_LIST_STATES = {"open": ["OPEN"], "closed": ["CLOSED", "MERGED"], "merged": ["MERGED"]}
_LIST_QUERY = """
query PullRequests($owner: String!, $name: String!, $states: [PullRequestState!], $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequests(states: $states, first: 100, after: $after,
                 orderBy: {field: CREATED_AT, direction: DESC}) {
      nodes { id number title state isDraft url }
      pageInfo { hasNextPage endCursor }
    }
  }
}
"""


@capability(
    "pr.list",
    "List pull requests, newest first (state: open, closed (includes merged), merged, all).",
    repo_schema(
        state={"type": "string", "enum": ["open", "closed", "merged", "all"], "default": "open"},
        first=FIRST,
        after=AFTER,
    ),
)
def pr_list(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    # Newest means the highest number; GitHub orders by dates only, so sort here.
    variables: dict[str, Any] = {
        "owner": input["owner"],
        "name": input["name"],
        "states": _LIST_STATES.get(input["state"]),
    }
    pulls: list[dict[str, Any]] = []
    after = None
    while len(pulls) < _MAX_LISTED:
        data = client.graphql(_LIST_QUERY, {**variables, "after": after})
        connection = data["repository"]["pullRequests"]
        pulls.extend(connection["nodes"] or [])
        after = connection["pageInfo"]["endCursor"]
        if not connection["pageInfo"]["hasNextPage"] or after is None:
            break
    pulls.sort(key=lambda p: -int(p["number"]))
    return offset_page(
        pulls,
        input,
        lambda p: {
            "id": p["id"],
            "number": p["number"],
            "title": p["title"],
            "state": p["state"],
            "isDraft": bool(p["isDraft"]),
            "url": p["url"],
        },
    )


@capability(
    "pr.diff.list_files",
    "List the files a pull request changes, with line counts.",
    by_number(first=FIRST, after=AFTER),
    route="graphql",
)
def pr_diff_list_files(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    pull = pull_graphql(
        client,
        input,
        "files(first: $first, after: $after) {"
        " nodes { path additions deletions changeType } pageInfo { hasNextPage endCursor } }",
        first=("Int!", input["first"]),
        after=("String", input.get("after")),
    )
    return connection_page(
        pull["files"],
        lambda f: {
            "path": f["path"],
            "additions": f["additions"],
            "deletions": f["deletions"],
            "changeType": f["changeType"],
        },
    )


@capability(
    "pr.mergeability.view",
    "View whether a pull request can be merged: mergeable, merge state, review decision.",
    BY_NUMBER,
)
def pr_mergeability_view(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    pull = pull_graphql(client, input, "mergeable mergeStateStatus reviewDecision isDraft state")
    return {
        "mergeable": pull["mergeable"],
        "mergeStateStatus": pull["mergeStateStatus"],
        "reviewDecision": pull["reviewDecision"],
        "isDraft": pull["isDraft"],
        "state": pull["state"],
    }
