"""Code capabilities that write the repository: a new branch, and one file committed to a
branch.

- ``repo.branch.create`` (``branch``; ``from``: a branch, tag or commit SHA, default the
  default branch) → name, oid, from
- ``repo.file.put`` (``branch``, ``path``, ``content``: the file's whole new text, ``message``)
  → path, branch, sha (the new blob's), commitOid, created (whether the file is new)

Errors: ``NOT_FOUND`` for an unknown repository, a ``from`` that names no commit and a branch
that does not exist; ``VALIDATION`` for a branch that already exists (or a name git refuses)
and a path that is a directory.
"""

from __future__ import annotations

import base64
import urllib.parse
from typing import Any

from pytest_ghxbench.ghx.capabilities.code import PATH, REF, missing_ref
from pytest_ghxbench.ghx.capabilities.shapes import repo_path
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import CapabilityError, capability, repo_schema

__all__ = ["BRANCH"]

BRANCH: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "description": "Branch name, e.g. fix/typo",
}


def _quoted(value: str) -> str:
    return urllib.parse.quote(value, safe="/")


@capability(
    "repo.branch.create",
    "Create a branch at the tip of another branch, a tag or a commit (default: the default "
    "branch).",
    repo_schema("branch", branch=BRANCH, **{"from": REF}),
    mutates=True,
)
def repo_branch_create(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    source = input.get("from")
    if not source:
        source = client.rest("GET", repo_path(input))["default_branch"]
    try:
        commit = client.rest("GET", f"{repo_path(input)}/commits/{_quoted(str(source))}")
    except GitHubError as exc:
        if exc.status in (404, 422):
            raise missing_ref(str(source)) from None
        raise
    name = str(input["branch"]).removeprefix("refs/heads/")
    try:
        client.rest(
            "POST",
            f"{repo_path(input)}/git/refs",
            body={"ref": f"refs/heads/{name}", "sha": commit["sha"]},
        )
    except GitHubError as exc:
        if exc.status == 422:
            message = f"cannot create branch {name}: {exc.message}"
            raise CapabilityError("VALIDATION", message) from None
        raise
    return {"name": name, "oid": commit["sha"], "from": source}


def _branch_exists(client: GitHubClient, input: dict[str, Any], branch: str) -> bool:
    answer = client.request(
        "GET", f"{repo_path(input)}/branches/{_quoted(branch)}", ok_statuses=(404,)
    )
    return answer.status == 200


@capability(
    "repo.file.put",
    "Create or replace one file on a branch, in a commit with the given message.",
    repo_schema(
        "branch",
        "path",
        "content",
        "message",
        branch=BRANCH,
        path=PATH,
        content={"type": "string", "description": "The file's whole new text"},
        message={"type": "string", "minLength": 1, "description": "Commit message"},
    ),
    mutates=True,
)
def repo_file_put(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    branch = str(input["branch"]).removeprefix("refs/heads/")
    path = str(input["path"]).strip("/")
    if not _branch_exists(client, input, branch):
        raise CapabilityError("NOT_FOUND", f"Branch {branch} not found")
    where = f"{repo_path(input)}/contents/{_quoted(path)}"
    current = client.request("GET", where, params={"ref": branch}, ok_statuses=(404,))
    body: dict[str, Any] = {
        "message": input["message"],
        "content": base64.b64encode(str(input["content"]).encode()).decode("ascii"),
        "branch": branch,
    }
    if current.status == 200:
        if not isinstance(current.data, dict) or current.data.get("type") != "file":
            raise CapabilityError("VALIDATION", f"{path} is a directory on {branch}, not a file")
        body["sha"] = current.data["sha"]
    written = client.rest("PUT", where, body=body)
    return {
        "path": path,
        "branch": branch,
        "sha": written["content"]["sha"],
        "commitOid": written["commit"]["sha"],
        "created": current.status != 200,
    }
