"""Code capabilities that read the repository: a file at a ref, history, one commit, branches
and a comparison of two refs. Writes are in :mod:`.code_writes`.

A ref is a branch, a tag or a commit SHA (full or abbreviated); left out, it is the default
branch. Commits in lists are ``{oid, abbreviatedOid, messageHeadline, authorLogin,
authorName, committedDate, url}`` (``authorLogin`` is the GitHub user the author's email
belongs to, ``None`` when there is none).

- ``repo.file.get`` (``path``, ``ref``) → path, ref, sha (the blob's), size (bytes), isBinary,
  text (``None`` for a binary file)
- ``repo.commits.list`` (``ref``, ``path``: only commits that changed it, ``author``: login,
  email or name; newest first) → items{commit}, pageInfo
- ``repo.commit.get`` (``sha``: a commit SHA, or a branch or tag for its tip) → the list's
  fields plus messageBody, authoredDate, parents (oids), stats{additions, deletions, total},
  files{path, status, additions, deletions, patch}
- ``repo.branches.list`` → items{name, oid, protected}, pageInfo
- ``repo.commits.compare`` (``base``, ``head``) → status (AHEAD, BEHIND, DIVERGED, IDENTICAL),
  aheadBy, behindBy, mergeBaseOid, commits (what ``head`` has that ``base`` lacks, oldest first,
  at most 250), files{path, status, additions, deletions}

Errors: ``NOT_FOUND`` for an unknown repository, a ref that names no commit, and a path with no
file at the ref; ``VALIDATION`` for a path that is a directory.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.ghx.capabilities.issue_support import repo_graphql
from pytest_ghxbench.ghx.capabilities.shapes import login, repo_path, rest_page
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import AFTER, FIRST, CapabilityError, capability, repo_schema

__all__ = ["PATH", "REF", "commit_item", "missing_ref"]

REF: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "description": "Branch, tag or commit SHA (default: the default branch)",
}
PATH: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "description": "File path from the repository's root, e.g. src/app.py",
}
_MAX_COMPARED = 250


def missing_ref(ref: str) -> CapabilityError:
    return CapabilityError("NOT_FOUND", f"No commit found for the ref {ref}")


def commit_item(commit: Mapping[str, Any]) -> dict[str, Any]:
    """A REST ``commit`` as a list shows it."""
    sha = commit["sha"]
    detail = commit.get("commit") or {}
    message = str(detail.get("message") or "")
    return {
        "oid": sha,
        "abbreviatedOid": sha[:7],
        "messageHeadline": message.split("\n", 1)[0],
        "authorLogin": login(commit.get("author")),
        "authorName": (detail.get("author") or {}).get("name"),
        "committedDate": (detail.get("committer") or {}).get("date"),
        "url": commit.get("html_url"),
    }


# ---------------------------------------------------------------- files


_FILE = """
defaultBranchRef { name }
commit: object(expression: $rev) { oid }
file: object(expression: $expression) {
  __typename
  ... on Blob { oid byteSize isBinary text }
}
"""


@capability(
    "repo.file.get",
    "Read one file of the repository at a branch, tag or commit (default: the default branch).",
    repo_schema("path", path=PATH, ref=REF),
    route="graphql",
)
def repo_file_get(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    path = input["path"].strip("/")
    rev = input.get("ref") or "HEAD"
    repository = repo_graphql(
        client,
        input,
        _FILE,
        rev=("String!", rev),
        expression=("String!", f"{rev}:{path}"),
    )
    ref = input.get("ref") or (repository.get("defaultBranchRef") or {}).get("name") or rev
    if repository.get("commit") is None:
        raise missing_ref(ref)
    found = repository.get("file")
    if found is None:
        raise CapabilityError("NOT_FOUND", f"{path} does not exist at {ref}")
    if found.get("__typename") != "Blob":
        raise CapabilityError("VALIDATION", f"{path} is a directory at {ref}, not a file")
    binary = bool(found.get("isBinary"))
    return {
        "path": path,
        "ref": ref,
        "sha": found["oid"],
        "size": found["byteSize"],
        "isBinary": binary,
        "text": None if binary else found.get("text"),
    }


# ---------------------------------------------------------------- history


def _get(client: GitHubClient, path: str, ref: str) -> Any:
    """``GET path``; GitHub's answers for a ref that names no commit are ``NOT_FOUND``."""
    try:
        return client.rest("GET", path)
    except GitHubError as exc:
        if exc.status in (404, 422) and "no commit found" in exc.message.lower():
            raise missing_ref(ref) from None
        raise


@capability(
    "repo.commits.list",
    "List commits reachable from a ref, newest first, optionally only those that changed a "
    "path or are by an author.",
    repo_schema(
        ref=REF,
        path=PATH,
        author={"type": "string", "minLength": 1, "description": "Login, email or name"},
        first=FIRST,
        after=AFTER,
    ),
)
def repo_commits_list(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    params = {
        key: input[name]
        for key, name in (("sha", "ref"), ("path", "path"), ("author", "author"))
        if input.get(name)
    }
    try:
        return rest_page(client, f"{repo_path(input)}/commits", input, commit_item, params=params)
    except GitHubError as exc:
        if exc.status in (404, 409, 422) and input.get("ref"):
            raise missing_ref(str(input["ref"])) from None
        raise


def _file_change(change: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "path": change["filename"],
        "status": change["status"],
        "additions": change.get("additions", 0),
        "deletions": change.get("deletions", 0),
    }


@capability(
    "repo.commit.get",
    "Get one commit (by SHA, or a branch or tag's tip) with its message, stats and changed files.",
    repo_schema("sha", sha={**REF, "description": "Commit SHA, or a branch or tag name"}),
)
def repo_commit_get(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    sha = str(input["sha"])
    commit = _get(client, f"{repo_path(input)}/commits/{urllib.parse.quote(sha, safe='')}", sha)
    detail = commit.get("commit") or {}
    message = str(detail.get("message") or "")
    stats = commit.get("stats") or {}
    return {
        **commit_item(commit),
        "messageBody": message.partition("\n")[2].strip("\n"),
        "authoredDate": (detail.get("author") or {}).get("date"),
        "parents": [parent["sha"] for parent in commit.get("parents") or []],
        "stats": {key: stats.get(key, 0) for key in ("additions", "deletions", "total")},
        "files": [
            {**_file_change(change), "patch": change.get("patch")}
            for change in commit.get("files") or []
        ],
    }


@capability(
    "repo.branches.list",
    "List the repository's branches with their tip commits.",
    repo_schema(first=FIRST, after=AFTER),
)
def repo_branches_list(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return rest_page(
        client,
        f"{repo_path(input)}/branches",
        input,
        lambda branch: {
            "name": branch["name"],
            "oid": branch["commit"]["sha"],
            "protected": bool(branch.get("protected")),
        },
    )


@capability(
    "repo.commits.compare",
    "Compare two refs: the commits and files head has that base lacks (base...head).",
    repo_schema(
        "base",
        "head",
        base={**REF, "description": "Branch, tag or commit SHA to compare from"},
        head={**REF, "description": "Branch, tag or commit SHA to compare to"},
    ),
)
def repo_commits_compare(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    spec = urllib.parse.quote(f"{input['base']}...{input['head']}", safe="")
    path = f"{repo_path(input)}/compare/{spec}"
    first: dict[str, Any] = {}
    commits: list[Any] = []
    for page in range(1, _MAX_COMPARED // 100 + 2):
        try:
            answer = client.rest("GET", path, params={"per_page": 100, "page": page})
        except GitHubError as exc:
            if exc.status != 404:
                raise
            shown = f"{input['base']}...{input['head']}"
            raise CapabilityError("NOT_FOUND", f"No commit found for {shown}") from None
        first = first or answer
        listed = answer.get("commits") or []
        commits.extend(listed)
        if len(listed) < 100 or len(commits) >= first.get("total_commits", 0):
            break
    fork = first.get("merge_base_commit") or {}
    return {
        "status": str(first.get("status", "")).upper(),
        "aheadBy": first.get("ahead_by", 0),
        "behindBy": first.get("behind_by", 0),
        "mergeBaseOid": fork.get("sha"),
        "commits": [commit_item(c) for c in commits[:_MAX_COMPARED]],
        "files": [_file_change(change) for change in first.get("files") or []],
    }
