"""Issue comment capabilities: ``issue.comments.list`` (oldest first) and
``issue.comments.create``.

Listing addresses the issue by repository and number, commenting by node id (``issueId``).
Both return comments as {id, body, authorLogin, url, createdAt}. A locked issue takes comments
from collaborators only (GitHub refuses the others).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.ghx.capabilities.issue_support import BODY, by_id, issue_node, repo_graphql
from pytest_ghxbench.ghx.capabilities.shapes import connection_page, login, repo_path
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import (
    AFTER,
    FIRST,
    ISSUE_NUMBER,
    CapabilityError,
    capability,
    error_code,
    repo_schema,
)

__all__: list[str] = []


def _comment(comment: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": comment["id"],
        "body": comment.get("body") or "",
        "authorLogin": login(comment.get("author")),
        "url": comment["url"],
        "createdAt": comment["createdAt"],
    }


@capability(
    "issue.comments.list",
    "List the comments of one issue, oldest first.",
    repo_schema(
        "issueNumber",
        issueNumber=ISSUE_NUMBER,
        first=FIRST,
        after=AFTER,
    ),
    route="graphql",
)
def issue_comments_list(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    number = input["issueNumber"]
    selection = (
        "issue(number: $number) { comments(first: $first, after: $after) { "
        "nodes { id body url createdAt author { login } } "
        "pageInfo { hasNextPage endCursor } } }"
    )
    try:
        repository = repo_graphql(
            client,
            input,
            selection,
            number=("Int!", number),
            first=("Int!", input["first"]),
            after=("String", input.get("after")),
        )
    except GitHubError as exc:
        if error_code(exc) == "NOT_FOUND" and "Repository" not in exc.message:
            raise CapabilityError(
                "NOT_FOUND", f"Could not resolve to an issue with the number of {number}."
            ) from None
        raise
    issue = repository.get("issue")
    if issue is None:
        raise CapabilityError(
            "NOT_FOUND", f"Could not resolve to an issue with the number of {number}."
        )
    return connection_page(issue["comments"], _comment)


@capability(
    "issue.comments.create",
    "Add a comment to an issue.",
    by_id("body", body=BODY),
    mutates=True,
)
def issue_comments_create(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_node(client, input["issueId"])
    path = f"{repo_path(issue.repo)}/issues/{issue['number']}/comments"
    created = client.rest("POST", path, body={"body": input["body"]})
    return {
        "id": created["node_id"],
        "body": created.get("body") or "",
        "authorLogin": login(created.get("user")),
        "url": created["html_url"],
        "createdAt": created["created_at"],
    }
