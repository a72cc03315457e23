"""Pull requests made from code: opening one from a branch, and commenting on a line of its
diff (which starts a review thread).

- ``pr.create`` (``head``, ``base`` (default: the default branch), ``title``, ``body``,
  ``draft``) → id, number, url, state, isDraft, title, headRefName, baseRefName; a body that
  says ``Fixes #N`` (or closes, resolves) links issue N, which merging into the default branch
  closes
- ``pr.comment.create`` (``prNumber``, ``path``, ``line``, ``side``: RIGHT (the new text,
  default) or LEFT (the old), ``body``) → id, databaseId, path, line, side, body, url, reviewId

Errors: ``NOT_FOUND`` for an unknown repository, pull request or branch; ``VALIDATION`` for a
pull request that already exists between the branches or has no commits, and for a line that
is not part of the pull request's diff (GitHub's 422).
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.ghx.capabilities.code_writes import BRANCH
from pytest_ghxbench.ghx.capabilities.prs import by_number, find_pull, pull_path, pull_state
from pytest_ghxbench.ghx.capabilities.shapes import repo_path
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import CapabilityError, capability, repo_schema

__all__: list[str] = []


def _missing_branch(client: GitHubClient, input: dict[str, Any], base: str) -> str | None:
    for side, branch in (("head", str(input["head"])), ("base", base)):
        name = branch.rpartition(":")[2]
        answer = client.request("GET", f"{repo_path(input)}/branches/{name}", ok_statuses=(404,))
        if answer.status == 404:
            return f"{side} branch {name!r} does not exist"
    return None


@capability(
    "pr.create",
    "Open a pull request from a branch (a body saying 'Fixes #N' links issue N).",
    repo_schema(
        "head",
        "title",
        head={**BRANCH, "description": "Branch with the changes"},
        base={**BRANCH, "description": "Branch to merge into (default: the default branch)"},
        title={"type": "string", "minLength": 1},
        body={"type": "string"},
        draft={"type": "boolean", "default": False},
    ),
    mutates=True,
)
def pr_create(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    base = input.get("base") or client.rest("GET", repo_path(input))["default_branch"]
    body = {
        "head": input["head"],
        "base": base,
        "title": input["title"],
        "body": input.get("body", ""),
        "draft": input["draft"],
    }
    try:
        pull = client.rest("POST", f"{repo_path(input)}/pulls", body=body)
    except GitHubError as exc:
        if exc.status != 422:
            raise
        missing = _missing_branch(client, input, str(base))
        if missing:
            raise CapabilityError("NOT_FOUND", missing) from None
        raise CapabilityError("VALIDATION", exc.message) from None
    return {
        "id": pull["node_id"],
        "number": pull["number"],
        "url": pull["html_url"],
        "state": pull_state(pull),
        "isDraft": bool(pull.get("draft")),
        "title": pull["title"],
        "headRefName": pull["head"]["ref"],
        "baseRefName": pull["base"]["ref"],
    }


@capability(
    "pr.comment.create",
    "Comment on a line of a pull request's diff, starting a review thread.",
    by_number(
        "path",
        "line",
        "body",
        path={"type": "string", "minLength": 1, "description": "File the line is in"},
        line={"type": "integer", "minimum": 1, "description": "Line number in the file"},
        side={
            "type": "string",
            "enum": ["RIGHT", "LEFT"],
            "default": "RIGHT",
            "description": "RIGHT: the line in the new version; LEFT: in the old one",
        },
        body={"type": "string", "minLength": 1},
    ),
    mutates=True,
)
def pr_comment_create(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(client, input)
    request = {
        "body": input["body"],
        "commit_id": pull["head"]["sha"],
        "path": input["path"],
        "line": input["line"],
        "side": input["side"],
    }
    try:
        note = client.rest("POST", f"{pull_path(input)}/comments", body=request)
    except GitHubError as exc:
        if exc.status == 422:
            raise CapabilityError("VALIDATION", exc.message) from None
        raise
    return {
        "id": note["node_id"],
        "databaseId": note["id"],
        "path": note["path"],
        "line": note.get("line"),
        "side": note.get("side"),
        "body": note["body"],
        "url": note["html_url"],
        "reviewId": note.get("pull_request_review_id"),
    }
