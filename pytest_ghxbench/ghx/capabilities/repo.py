"""Repository capabilities: ``repo.view``, ``repo.labels.list``, ``repo.issue_types.list``,
``repo.milestones.list``.

- ``repo.view`` → id, name, nameWithOwner, owner, description, isPrivate, visibility,
  isArchived, url, homepageUrl, defaultBranch, stargazerCount, forkCount, watcherCount,
  primaryLanguage, licenseInfo (SPDX id), topics, hasIssuesEnabled, createdAt, pushedAt
- ``repo.labels.list`` → items{id, name, color, description, isDefault}
- ``repo.issue_types.list`` → items{id, name, description, color, isEnabled}
- ``repo.milestones.list`` (``state``: open (default), closed, all) → items{id, number, title,
  description, state, dueOn, openIssues, closedIssues, url}; the counts are of issues only
  (GitHub's REST counts include pull requests)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.ghx.capabilities.issue_support import repo_graphql
from pytest_ghxbench.ghx.capabilities.shapes import (
    connection_page,
    login,
    repo_path,
    rest_page,
    upper,
)
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import AFTER, FIRST, CapabilityError, capability, repo_schema

__all__: list[str] = []

REPO_INPUT = repo_schema()
REPO_PAGE_INPUT = repo_schema(first=FIRST, after=AFTER)


@capability("repo.view", "Fetch repository metadata.", REPO_INPUT)
def repo_view(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    try:
        repo = client.rest("GET", repo_path(input))
    except GitHubError as exc:
        if exc.status != 404:
            raise
        raise CapabilityError(
            "NOT_FOUND",
            f"Could not resolve to a Repository with the name '{input['owner']}/{input['name']}'.",
        ) from None
    license_info = repo.get("license")
    return {
        "id": repo["node_id"],
        "name": repo["name"],
        "nameWithOwner": repo["full_name"],
        "owner": login(repo.get("owner")),
        "description": repo.get("description") or "",
        "isPrivate": bool(repo.get("private")),
        "visibility": upper(
            repo.get("visibility") or ("private" if repo.get("private") else "public")
        ),
        "isArchived": bool(repo.get("archived")),
        "url": repo["html_url"],
        "homepageUrl": repo.get("homepage") or "",
        "defaultBranch": repo["default_branch"],
        "stargazerCount": repo.get("stargazers_count", 0),
        "forkCount": repo.get("forks_count", 0),
        "watcherCount": repo.get("subscribers_count", 0),
        "primaryLanguage": repo.get("language"),
        "licenseInfo": license_info.get("spdx_id") if isinstance(license_info, dict) else None,
        "topics": list(repo.get("topics") or []),
        "hasIssuesEnabled": bool(repo.get("has_issues", True)),
        "createdAt": repo.get("created_at"),
        "pushedAt": repo.get("pushed_at"),
    }


def _label(label: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": label["node_id"],
        "name": label["name"],
        "color": label["color"],
        "description": label.get("description") or "",
        "isDefault": bool(label.get("default")),
    }


@capability("repo.labels.list", "List the repository's labels.", REPO_PAGE_INPUT)
def repo_labels_list(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return rest_page(client, f"{repo_path(input)}/labels", input, _label)


def _page_variables(input: Mapping[str, Any]) -> dict[str, tuple[str, Any]]:
    return {"first": ("Int!", input["first"]), "after": ("String", input.get("after"))}


@capability(
    "repo.issue_types.list", "List the issue types available in the repository.", REPO_PAGE_INPUT
)
def repo_issue_types_list(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    selection = (
        "issueTypes(first: $first, after: $after) { nodes { id name description color "
        "isEnabled } pageInfo { hasNextPage endCursor } }"
    )
    repository = repo_graphql(client, input, selection, **_page_variables(input))
    return connection_page(
        repository["issueTypes"],
        lambda kind: {
            "id": kind["id"],
            "name": kind["name"],
            "description": kind.get("description") or "",
            "color": kind["color"],
            "isEnabled": bool(kind["isEnabled"]),
        },
    )


_STATES = {"open": ["OPEN"], "closed": ["CLOSED"], "all": ["OPEN", "CLOSED"]}


def _issue_counts(
    client: GitHubClient, input: Mapping[str, Any], numbers: list[int]
) -> dict[str, int]:
    """Open and closed issues (not pull requests) of each milestone: ``{"o1": 4, "c1": 0}``."""
    if not numbers:
        return {}
    selection = " ".join(
        f'{kind}{n}: issues(states: [{state}], filterBy: {{milestoneNumber: "{n}"}}) '
        "{ totalCount }"
        for n in numbers
        for kind, state in (("o", "OPEN"), ("c", "CLOSED"))
    )
    repository = repo_graphql(client, input, selection)
    return {key: value["totalCount"] for key, value in repository.items()}


@capability(
    "repo.milestones.list",
    "List the repository's milestones (open ones unless state says otherwise).",
    repo_schema(
        state={"enum": ["open", "closed", "all"], "default": "open"},
        first=FIRST,
        after=AFTER,
    ),
)
def repo_milestones_list(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    selection = (
        "milestones(first: $first, after: $after, states: $states, "
        "orderBy: {field: NUMBER, direction: ASC}) { nodes { id number title description "
        "state dueOn url } pageInfo { hasNextPage endCursor } }"
    )
    repository = repo_graphql(
        client,
        input,
        selection,
        states=("[MilestoneState!]", _STATES[input["state"]]),
        **_page_variables(input),
    )
    milestones = repository["milestones"]
    counts = _issue_counts(client, input, [m["number"] for m in milestones["nodes"] or []])
    return connection_page(
        milestones,
        lambda m: {
            "id": m["id"],
            "number": m["number"],
            "title": m["title"],
            "description": m.get("description") or "",
            "state": m["state"],
            "dueOn": m.get("dueOn"),
            "openIssues": counts[f"o{m['number']}"],
            "closedIssues": counts[f"c{m['number']}"],
            "url": m["url"],
        },
    )
