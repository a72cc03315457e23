"""The oracle's MCP plans on code: files, history, branches, commits pushed through the API,
pull requests opened from a branch and comments on a line of their diff, with the pinned
server's tools (get_file_contents, list_commits, get_commit, list_branches, create_branch,
push_files, create_pull_request and the pending-review tools).

Its history tool cannot filter by path and it has no comparison: where a capability needs them,
the plan lists commits and reads the ones that matter, as an agent would.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pytest_ghxbench.adapters.oracle.mcp_base import (
    McpPlan,
    Planner,
    args_of,
    repo_of,
    shown,
)
from pytest_ghxbench.sandbox.state import World

__all__ = ["CODE_PLANS", "CODE_REFUSED", "CODE_UNSERVED_INPUTS"]

_MAX_PAGE = 100


def _is_branch(world: World, ref: Any) -> bool:
    return ref is not None and str(ref) in world.git.branches()


def _at(world: World, ref: Any) -> dict[str, Any]:
    """get_file_contents' way of naming a ref: ``refs/heads/...`` for a branch,
    ``refs/tags/...`` for a tag, ``sha`` for a commit; nothing for the default branch."""
    if not ref:
        return {}
    if _is_branch(world, ref):
        return {"ref": f"refs/heads/{ref}"}
    if str(ref) in world.git.tags():
        return {"ref": f"refs/tags/{ref}"}
    return {"sha": str(ref)}


def _file_get(input: Mapping[str, Any], world: World) -> McpPlan:
    path = str(input["path"]).strip("/")
    at = _at(world, input.get("ref"))
    yield "get_file_contents", {**repo_of(input, world), "path": path, **at}


def _page(input: Mapping[str, Any]) -> dict[str, Any]:
    """``perPage`` and ``page`` of a REST-paged capability (its cursor is the page number)."""
    after = str(input.get("after") or "")
    page = {"page": int(after) + 1} if after.isdigit() else {}
    return {**args_of(input, {"perPage": "=first"}), **page}


def _commits_list(input: Mapping[str, Any], world: World) -> McpPlan:
    """``list_commits``. For a path, which it cannot filter by: every page of the history,
    then ``get_commit`` (which shows the files) of the listed commits that changed the path,
    as far as the page asked for reaches."""
    repo = repo_of(input, world)
    filters = args_of(input, {"sha": "=ref", "author": "=author"})
    path = input.get("path")
    if not path:
        yield "list_commits", {**repo, **filters, **_page(input)}
        return
    listed: list[Any] = []
    for page in range(1, 11):
        arguments = {**repo, **filters, "perPage": _MAX_PAGE, "page": page}
        found = shown((yield "list_commits", arguments), "commits")
        listed += found if isinstance(found, list) else []
        if not isinstance(found, list) or len(found) < _MAX_PAGE:
            break
    start = world.git.resolve(str(input.get("ref") or world.git.default_branch))
    touched = {c.sha for c in world.git.log(start, path=str(path))} if start else set()
    shas = [c.get("sha") for c in listed if isinstance(c, dict) and c.get("sha") in touched]
    first = int(input.get("first") or 30)
    after = str(input.get("after") or "")
    skip = int(after) * first if after.isdigit() else 0
    for sha in shas[skip : skip + first]:
        yield "get_commit", {**repo, "sha": sha}


def _compare(input: Mapping[str, Any], world: World) -> McpPlan:
    """No tool compares two refs: the history of each, whose difference is the comparison."""
    repo = repo_of(input, world)
    for ref in (input["base"], input["head"]):
        yield "list_commits", {**repo, "sha": str(ref), "perPage": _MAX_PAGE}


def _branch_create(input: Mapping[str, Any], world: World) -> McpPlan:
    arguments = {"branch": str(input["branch"]).removeprefix("refs/heads/")}
    if input.get("from"):
        arguments["from_branch"] = str(input["from"])
    yield "create_branch", {**repo_of(input, world), **arguments}


def _file_put(input: Mapping[str, Any], world: World) -> McpPlan:
    """``push_files`` with one file: it creates or replaces the file without its blob SHA,
    which ``create_or_update_file`` would need read first."""
    arguments = {
        "branch": str(input["branch"]).removeprefix("refs/heads/"),
        "files": [{"path": str(input["path"]).strip("/"), "content": str(input["content"])}],
        "message": str(input["message"]),
    }
    yield "push_files", {**repo_of(input, world), **arguments}


def _pr_create(input: Mapping[str, Any], world: World) -> McpPlan:
    arguments = args_of(input, {"head": "=head", "title": "=title", "body": "=body"})
    arguments["base"] = str(input.get("base") or world.repository.default_branch)
    if input.get("draft"):
        arguments["draft"] = True
    yield "create_pull_request", {**repo_of(input, world), **arguments}


def _comment_create(input: Mapping[str, Any], world: World) -> McpPlan:
    """A pending review, the comment added to it, the review submitted: the server's only way
    to comment on a line."""
    target = {**repo_of(input, world), "pullNumber": input["prNumber"]}
    yield "create_pending_pull_request_review", target
    comment = {
        "path": str(input["path"]),
        "line": int(input["line"]),
        "side": str(input.get("side") or "RIGHT"),
        "body": str(input["body"]),
        "subjectType": "LINE",
    }
    yield "add_comment_to_pending_review", {**target, **comment}
    yield "submit_pending_pull_request_review", {**target, "event": "COMMENT"}


def _branches(input: Mapping[str, Any], world: World) -> McpPlan:
    yield "list_branches", {**repo_of(input, world), **_page(input)}


def _plain(tool: str, **fixed: Any) -> Planner:
    def plan(input: Mapping[str, Any], world: World) -> McpPlan:
        yield tool, {**repo_of(input, world), **args_of(input, fixed)}

    return plan


CODE_PLANS: Mapping[str, Planner] = {
    "repo.file.get": _file_get,
    "repo.commits.list": _commits_list,
    "repo.commit.get": _plain("get_commit", sha="=sha"),
    "repo.commits.compare": _compare,
    "repo.branches.list": _branches,
    "repo.branch.create": _branch_create,
    "repo.file.put": _file_put,
    "pr.create": _pr_create,
    "pr.comment.create": _comment_create,
}


CODE_UNSERVED_INPUTS: Mapping[str, str] = {
    "repo.branch.create": "has no tool that creates a branch from a tag or a commit "
    "(create_branch takes a source branch)",
}
"""Capability id -> what the server cannot do for some of its inputs."""

CODE_REFUSED: Mapping[str, Callable[[Mapping[str, Any], World], bool]] = {
    "repo.branch.create": lambda input, world: (
        bool(input.get("from")) and not _is_branch(world, input["from"])
    ),
}
"""Capability id -> whether the server cannot perform it with this input."""
