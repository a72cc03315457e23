"""MCP tools about the viewer and the repository, in the GitHub MCP server's shapes: the
authenticated user, the repository, its labels and its issue types.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.dialects.mcp_exec_base import ToolCall, database_id, fetch_all, user

__all__ = ["get_me", "get_repository", "list_issue_types", "list_label", "repo_input"]


def repo_input(args: dict[str, Any]) -> dict[str, Any]:
    """The capability ``owner``/``name`` for the tool's ``owner``/``repo``."""
    return {"owner": args["owner"], "name": args["repo"]}


def get_me(call: ToolCall, args: dict[str, Any]) -> Any:
    login = call.world.viewer
    known = next((u for u in call.world.users if u.login == login), None)
    return {
        "login": login,
        "name": known.name if known else "",
        "type": known.type if known else "User",
        "html_url": f"https://github.com/{login}",
    }


def get_repository(call: ToolCall, args: dict[str, Any]) -> Any:
    if args.get("url"):
        parts = str(args["url"]).removeprefix("https://github.com/").strip("/").split("/")
        if len(parts) < 2:
            raise call.fail(f"not a repository URL: {args['url']}")
        args = {**args, "owner": parts[0], "repo": parts[1]}
    if not args.get("owner") or not args.get("repo"):
        raise call.fail("owner and repo (or url) are required")
    data = call.run("repo.view", repo_input(args))
    return {
        "node_id": data["id"],
        "name": data["name"],
        "full_name": data["nameWithOwner"],
        "owner": user(data["owner"]),
        "description": data["description"],
        "private": data["isPrivate"],
        "visibility": str(data["visibility"]).lower(),
        "archived": data["isArchived"],
        "html_url": data["url"],
        "homepage": data["homepageUrl"],
        "default_branch": data["defaultBranch"],
        "stargazers_count": data["stargazerCount"],
        "forks_count": data["forkCount"],
        "watchers_count": data["watcherCount"],
        "language": data["primaryLanguage"],
        "license": {"spdx_id": data["licenseInfo"]} if data["licenseInfo"] else None,
        "topics": data["topics"],
        "has_issues": data["hasIssuesEnabled"],
        "created_at": data["createdAt"],
        "pushed_at": data["pushedAt"],
    }


def list_label(call: ToolCall, args: dict[str, Any]) -> Any:
    labels = fetch_all(call, "repo.labels.list", repo_input(args))
    shown = [
        {"id": la["id"], "name": la["name"], "color": la["color"], "description": la["description"]}
        for la in labels
    ]
    return {"labels": shown, "totalCount": len(shown)}


def list_issue_types(call: ToolCall, args: dict[str, Any]) -> Any:
    # Issue types belong to the organization; the world's repository stands in for it.
    types = fetch_all(
        call, "repo.issue_types.list", {"owner": args["owner"], "name": call.repo["name"]}
    )
    return [
        {"id": database_id(t["id"]), "node_id": t["id"], "name": t["name"],
         "description": t["description"], "color": str(t["color"]).lower()}
        for t in types
        if t["isEnabled"]
    ]  # fmt: skip
