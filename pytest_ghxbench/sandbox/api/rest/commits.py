"""REST routes for history: listing commits, one commit with its files and its pull
requests, and comparing two commits (``base...head``), all read from the world's git
repository."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from pytest_ghxbench.sandbox.api.rest.render_git import commit_json, file_json
from pytest_ghxbench.sandbox.api.rest.render_pulls import pull_json
from pytest_ghxbench.sandbox.api.rest.router import Ctx, RestError, paged, route
from pytest_ghxbench.sandbox.api.types import ApiResponse
from pytest_ghxbench.sandbox.git import CommitInfo
from pytest_ghxbench.sandbox.git.commands import format_patch
from pytest_ghxbench.sandbox.git.diff import changed_files, compare, diff_text
from pytest_ghxbench.sandbox.operations.merged_pulls import pulls_with_commit

__all__: list[str] = []

_REPO = "/repos/{owner}/{repo}"
_MAX_COMPARE_COMMITS = 250
"""GitHub lists at most this many commits in a comparison."""


def _commit_or_error(ctx: Ctx, ref: str) -> str:
    sha = ctx.world.git.resolve(ref)
    if sha is None:
        raise RestError(422, f"No commit found for SHA: {ref}")
    return sha


def _matches(commit: CommitInfo, ctx: Ctx) -> bool:
    author = ctx.param("author")
    if author:
        who = commit.author
        if author not in (who.login, who.email, who.name):
            return False
    since, until = ctx.param("since"), ctx.param("until")
    date = commit.committer.date
    return not (since and date < since) and not (until and date > until)


@route("GET", _REPO + "/commits")
def _list(ctx: Ctx) -> Any:
    git = ctx.world.git
    start = ctx.param("sha") or git.default_branch
    head = git.resolve(start)
    if head is None:
        if not git.branches():
            raise RestError(409, "Git Repository is empty.")
        raise RestError(404, f"No commit found for SHA: {start}")
    path = ctx.param("path")
    commits = [c for c in git.log(head, path=path or None) if _matches(c, ctx)]
    links = ctx.links
    return [commit_json(links, c) for c in paged(ctx, commits)]


@route("GET", _REPO + "/commits/{commit_sha}/pulls")
def _pulls(ctx: Ctx) -> Any:
    """The pull requests of a commit (or of a branch's tip), before ``/commits/{ref}`` takes
    the path as a ref."""
    if not ctx.world.git.branches():
        raise RestError(409, "Git Repository is empty.")
    sha = _commit_or_error(ctx, ctx.args["commit_sha"])
    links = ctx.links
    found = pulls_with_commit(ctx.world, sha)
    return [pull_json(links, p, full=False) for p in paged(ctx, found)]


@route("GET", _REPO + "/commits/{ref}")
def _get(ctx: Ctx) -> Any:
    git = ctx.world.git
    sha = _commit_or_error(ctx, ctx.args["ref"])
    commit = git.commit(sha)
    assert commit is not None
    parent = commit.parents[0] if commit.parents else None
    accept = ctx.accept
    if accept.endswith((".diff", ".patch")):
        text = diff_text(git, parent, sha)
        if accept.endswith(".patch"):
            text = format_patch(git, parent, sha)
        kind = "patch" if accept.endswith(".patch") else "diff"
        return ApiResponse(200, text.encode(), {"Content-Type": f"text/x-{kind}; charset=utf-8"})
    if accept.endswith(".sha"):
        return ApiResponse(200, sha.encode(), {"Content-Type": "text/plain; charset=utf-8"})
    return commit_json(ctx.links, commit, changed_files(git, parent, sha))


@route("GET", _REPO + "/compare/{basehead}")
def _compare(ctx: Ctx) -> Any:
    world = ctx.world
    git = world.git
    spec = unquote(ctx.args["basehead"])
    base_ref, dots, head_ref = spec.partition("...")
    if not dots:
        base_ref, dots, head_ref = spec.partition("..")
    if not dots or not base_ref or not head_ref:
        raise RestError(404, "Not Found")
    owner = world.repository.owner
    base_ref, head_ref = base_ref.removeprefix(f"{owner}:"), head_ref.removeprefix(f"{owner}:")
    base, head = git.resolve(base_ref), git.resolve(head_ref)
    if base is None or head is None:
        raise RestError(404, f"Not Found: no commit for {base_ref if base is None else head_ref}")
    found = compare(git, base, head)
    links = ctx.links
    commits = found.ahead[:_MAX_COMPARE_COMMITS]
    fork = found.merge_base
    files = changed_files(git, fork, head)
    accept = ctx.accept
    if accept.endswith(".diff"):
        text = diff_text(git, fork, head).encode()
        return ApiResponse(200, text, {"Content-Type": "text/x-diff; charset=utf-8"})
    base_commit = git.commit(base)
    fork_commit = git.commit(fork) if fork else None
    assert base_commit is not None
    return {
        "url": links.api(f"compare/{spec}"),
        "html_url": links.web(f"compare/{spec}"),
        "permalink_url": links.web(f"compare/{owner}:{base[:7]}...{owner}:{head[:7]}"),
        "diff_url": links.web(f"compare/{spec}.diff"),
        "patch_url": links.web(f"compare/{spec}.patch"),
        "base_commit": commit_json(links, base_commit),
        "merge_base_commit": commit_json(links, fork_commit or base_commit),
        "status": found.status,
        "ahead_by": len(found.ahead),
        "behind_by": found.behind,
        "total_commits": len(found.ahead),
        "commits": [commit_json(links, c) for c in paged(ctx, commits)],
        "files": [file_json(links, f, head) for f in files[:300]],
    }
