"""Verification tasks of the ``github`` backend: what workflow checkpoints run on real GitHub.

A task has the id of a sandbox capability (``pr.comments.list``...), takes the same input keys
and answers the same result envelope, ``{"ok", "data", "error", "meta"}``, whose ``data`` has
the sandbox capability's field names, shapes and value conventions (camelCase; ``OPEN`` /
``CLOSED`` states for issues and pull requests; lists as ``{"items", "pageInfo"}`` paged with
``first`` / ``after``), so one checkpoint judges both backends alike. Input keys a task does not
know are ignored: checkpoint inputs overlay a scenario's whole bound input. ``release.get``
takes ``tagName`` (as the sandbox) or ``releaseId``.

Failures are envelopes too, never exceptions, with one of :data:`ERROR_CODES`; ``meta`` has
``capability_id``, ``route_used`` (``rest`` or ``graphql``), ``attempts`` and
``timings.total_ms``. Paging is described in :mod:`pytest_ghxbench.github.task_runner`; review
threads are fetched whole over GraphQL, filtered (``unresolvedOnly``, ``includeOutdated``) and
paged here, since GitHub cannot filter them.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.github.client import GitHubClient, GitHubError
from pytest_ghxbench.github.task_runner import (
    AFTER,
    ERROR_CODES,
    FIRST,
    NUMBER,
    STRING,
    Data,
    Field,
    TaskError,
    TaskTable,
    label_names,
    login,
    repo_path,
    rest_page,
    upper,
)

__all__ = ["ERROR_CODES", "VERIFICATION_TASKS", "run_task"]

_MAX_THREADS = 1000
_MAX_RELEASES = 500
_TASKS = TaskTable()
_task = _TASKS.register


# ---------------------------------------------------------------- issues


def _issue(client: GitHubClient, values: Data) -> Data:
    number = values["issueNumber"]
    issue: Data = client.rest("GET", f"{repo_path(values)}/issues/{number}")
    if "pull_request" in issue:
        raise TaskError(
            "NOT_FOUND",
            f"Could not resolve to an issue with the number of {number} "
            f"(#{number} is a pull request).",
        )
    return issue


@_task("issue.view", "rest", issueNumber=NUMBER)
def _issue_view(client: GitHubClient, values: Data) -> Data:
    issue = _issue(client, values)
    milestone = issue.get("milestone")
    return {
        "id": issue["node_id"],
        "number": issue["number"],
        "title": issue["title"],
        "state": upper(issue["state"]),
        "stateReason": upper(issue.get("state_reason")),
        "body": issue.get("body") or "",
        "url": issue["html_url"],
        "author": login(issue.get("user")),
        "labels": label_names(issue.get("labels")),
        "assignees": [login(user) for user in issue.get("assignees") or []],
        "milestone": (
            {"number": milestone["number"], "title": milestone["title"], "id": milestone["node_id"]}
            if isinstance(milestone, dict)
            else None
        ),
        "issueType": (issue.get("type") or {}).get("name"),
        "commentsCount": issue.get("comments", 0),
        "createdAt": issue["created_at"],
        "updatedAt": issue.get("updated_at"),
        "closedAt": issue.get("closed_at"),
    }


def _issue_entry(issue: Data) -> Data:
    return {
        "id": issue["node_id"],
        "number": issue["number"],
        "title": issue["title"],
        "state": upper(issue["state"]),
        "labels": label_names(issue.get("labels")),
        "assignees": [login(user) for user in issue.get("assignees") or []],
        "url": issue["html_url"],
        "createdAt": issue["created_at"],
        "updatedAt": issue.get("updated_at"),
    }


@_task(
    "issue.list",
    "rest",
    state=Field("string", default="open", choices=("open", "closed", "all")),
    labels=Field("strings"),
    assignee=STRING,
    first=FIRST,
    after=AFTER,
)
def _issue_list(client: GitHubClient, values: Data) -> Data:
    """Pull requests are left out (GitHub lists them as issues), so a page can be short."""
    params = {
        "state": values["state"],
        "labels": ",".join(values["labels"]) if values.get("labels") else None,
        "assignee": values.get("assignee"),
    }
    return rest_page(
        client,
        f"{repo_path(values)}/issues",
        values,
        _issue_entry,
        params=params,
        keep=lambda issue: "pull_request" not in issue,
    )


@_task("issue.comments.list", "rest", issueNumber=NUMBER, first=FIRST, after=AFTER)
def _issue_comments_list(client: GitHubClient, values: Data) -> Data:
    _issue(client, values)  # NOT_FOUND for a missing issue or a pull request, as the sandbox
    return rest_page(
        client,
        f"{repo_path(values)}/issues/{values['issueNumber']}/comments",
        values,
        lambda comment: {
            "id": comment["node_id"],
            "body": comment.get("body") or "",
            "authorLogin": login(comment.get("user")),
            "url": comment["html_url"],
            "createdAt": comment["created_at"],
        },
    )


# ---------------------------------------------------------------- pull requests


@_task("pr.view", "rest", prNumber=NUMBER, exclude=Field("strings", choices=("body",)))
def _pr_view(client: GitHubClient, values: Data) -> Data:
    pull = client.rest("GET", f"{repo_path(values)}/pulls/{values['prNumber']}")
    data = {
        "id": pull["node_id"],
        "number": pull["number"],
        "title": pull["title"],
        "state": "MERGED" if pull.get("merged") or pull.get("merged_at") else upper(pull["state"]),
        "url": pull["html_url"],
        "body": pull.get("body") or "",
        "labels": label_names(pull.get("labels")),
        "isDraft": bool(pull.get("draft")),
        "author": login(pull.get("user")),
        "headRefName": pull["head"]["ref"],
        "baseRefName": pull["base"]["ref"],
    }
    if "body" in values.get("exclude", []):
        del data["body"]
    return data


@_task("pr.reviews.list", "rest", prNumber=NUMBER, first=FIRST, after=AFTER)
def _pr_reviews_list(client: GitHubClient, values: Data) -> Data:
    return rest_page(
        client,
        f"{repo_path(values)}/pulls/{values['prNumber']}/reviews",
        values,
        lambda review: {
            "id": review["node_id"],
            "authorLogin": login(review.get("user")),
            "body": review.get("body") or "",
            "state": review["state"],
            "submittedAt": review.get("submitted_at"),
            "url": review["html_url"],
            "commitOid": review.get("commit_id") or None,
        },
    )


_THREADS_QUERY = """
query PullRequestReviewThreads(
  $owner: String!, $name: String!, $number: Int!, $first: Int!, $after: String
) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: $first, after: $after) {
        nodes {
          id isResolved isOutdated path line startLine diffSide subjectType
          viewerCanReply viewerCanResolve viewerCanUnresolve
          resolvedBy { login }
          comments(first: 100) { nodes { id body author { login } createdAt url } }
        }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
}
"""


def _review_threads(client: GitHubClient, values: Data) -> list[Data]:
    threads: list[Data] = []
    variables = {"owner": values["owner"], "name": values["name"], "number": values["prNumber"]}
    after = None
    while len(threads) < _MAX_THREADS:
        data = client.graphql(_THREADS_QUERY, {**variables, "first": 100, "after": after})
        connection = data["repository"]["pullRequest"]["reviewThreads"]
        threads.extend(connection["nodes"])
        after = connection["pageInfo"]["endCursor"]
        if not connection["pageInfo"]["hasNextPage"] or after is None:
            break
    return threads


def _thread_item(thread: Data) -> Data:
    return {
        "id": thread["id"],
        "path": thread.get("path"),
        "line": thread.get("line"),
        "startLine": thread.get("startLine"),
        "diffSide": thread.get("diffSide"),
        "subjectType": thread.get("subjectType"),
        "isResolved": bool(thread["isResolved"]),
        "isOutdated": bool(thread["isOutdated"]),
        "viewerCanReply": bool(thread.get("viewerCanReply")),
        "viewerCanResolve": bool(thread.get("viewerCanResolve")),
        "viewerCanUnresolve": bool(thread.get("viewerCanUnresolve")),
        "resolvedByLogin": login(thread.get("resolvedBy")),
        "comments": [
            {
                "id": note["id"],
                "authorLogin": login(note.get("author")),
                "body": note.get("body") or "",
                "createdAt": note.get("createdAt"),
                "url": note.get("url"),
            }
            for note in (thread.get("comments") or {}).get("nodes") or []
        ],
    }


@_task(
    "pr.comments.list",
    "graphql",
    prNumber=NUMBER,
    unresolvedOnly=Field("boolean", default=True),
    includeOutdated=Field("boolean", default=False),
    first=FIRST,
    after=AFTER,
)
def _pr_comments_list(client: GitHubClient, values: Data) -> Data:
    unresolved_only, outdated = values["unresolvedOnly"], values["includeOutdated"]
    kept = [
        thread
        for thread in _review_threads(client, values)
        if not (unresolved_only and thread["isResolved"]) and (outdated or not thread["isOutdated"])
    ]
    start = int(values.get("after") or 0)
    chunk = kept[start : start + values["first"]]
    end = start + len(chunk)
    return {
        "items": [_thread_item(thread) for thread in chunk],
        "pageInfo": {"hasNextPage": end < len(kept), "endCursor": str(end) if chunk else None},
        "filterApplied": {"unresolvedOnly": unresolved_only, "includeOutdated": outdated},
    }


# ---------------------------------------------------------------- releases, runs, repository


def _release_by_tag(client: GitHubClient, values: Data) -> Data:
    """The published release with the tag, else the newest draft with it (as the sandbox and
    ``gh release view`` find drafts, which GitHub's by-tag lookup does not)."""
    tag = values["tagName"]
    try:
        found: Data = client.rest(
            "GET", f"{repo_path(values)}/releases/tags/{urllib.parse.quote(tag, safe='/')}"
        )
        return found
    except GitHubError as exc:
        if exc.status != 404:
            raise
    releases = client.paginate(f"{repo_path(values)}/releases", limit=_MAX_RELEASES)
    draft = next((r for r in releases if r.get("tag_name") == tag), None)
    if draft is None:
        raise TaskError("NOT_FOUND", f"release not found: no release has the tag {tag}")
    return dict(draft)


@_task(
    "release.get",
    "rest",
    one_of=("tagName", "releaseId"),
    tagName=STRING,
    releaseId=Field("integer"),
)
def _release_get(client: GitHubClient, values: Data) -> Data:
    if "releaseId" in values:
        release = client.rest("GET", f"{repo_path(values)}/releases/{values['releaseId']}")
    else:
        release = _release_by_tag(client, values)
    return {
        "id": release["id"],
        "tagName": release["tag_name"],
        "name": release.get("name") or None,
        "isDraft": bool(release.get("draft")),
        "isPrerelease": bool(release.get("prerelease")),
        "url": release["html_url"],
        "targetCommitish": release.get("target_commitish"),
        "createdAt": release.get("created_at"),
        "publishedAt": release.get("published_at"),
        "body": release.get("body") or "",
        "author": login(release.get("author")),
        "assets": [
            {
                "name": asset["name"],
                "size": asset.get("size"),
                "downloadCount": asset.get("download_count"),
                "contentType": asset.get("content_type"),
            }
            for asset in release.get("assets") or []
        ],
    }


_RUN_ID = Field("integer", required=True)


@_task("workflow_run.get", "rest", runId=_RUN_ID)
def _workflow_run_get(client: GitHubClient, values: Data) -> Data:
    run = client.rest("GET", f"{repo_path(values)}/actions/runs/{values['runId']}")
    return {
        "id": run["id"],
        "workflowName": run.get("name"),
        "displayTitle": run.get("display_title") or run.get("name"),
        "status": run["status"],
        "conclusion": run.get("conclusion"),
        "event": run.get("event"),
        "headBranch": run.get("head_branch"),
        "createdAt": run.get("created_at"),
        "url": run["html_url"],
        "headSha": run.get("head_sha"),
        "runNumber": run.get("run_number"),
        "runAttempt": run.get("run_attempt"),
        "updatedAt": run.get("updated_at"),
        "startedAt": run.get("run_started_at"),
    }


@_task("workflow_run.jobs.list", "rest", runId=_RUN_ID, first=FIRST, after=AFTER)
def _workflow_run_jobs_list(client: GitHubClient, values: Data) -> Data:
    return rest_page(
        client,
        f"{repo_path(values)}/actions/runs/{values['runId']}/jobs",
        values,
        lambda job: {
            "id": job["id"],
            "name": job["name"],
            "status": job["status"],
            "conclusion": job.get("conclusion"),
            "startedAt": job.get("started_at"),
            "completedAt": job.get("completed_at"),
            "url": job.get("html_url"),
        },
        wrapped="jobs",
    )


@_task("repo.view", "rest")
def _repo_view(client: GitHubClient, values: Data) -> Data:
    repo = client.rest("GET", repo_path(values))
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


VERIFICATION_TASKS: tuple[str, ...] = _TASKS.ids
"""The ids of the tasks :func:`run_task` supports (a subset of the sandbox's capabilities)."""


def run_task(client: GitHubClient, task: str, input: Mapping[str, Any]) -> dict[str, Any]:
    """Run verification task ``task`` on GitHub through ``client``: its result envelope, also
    when GitHub fails (``ok: false``, never an exception); an unknown task is
    ``UNSUPPORTED``, a missing or malformed input key ``VALIDATION`` naming the key."""
    return _TASKS.run(client, task, input)
