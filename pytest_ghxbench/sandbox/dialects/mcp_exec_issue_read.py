"""MCP tools that read issues, in the GitHub MCP server's shapes, and the issue objects they show.

Issues render as the server's minimal issue objects (REST field names in snake_case: ``number``,
``title``, ``state`` in lower case, ``user.login``, label and assignee names, ``html_url``...).
REST issue ids, which the world does not store, are derived from node ids (:func:`database_id`).
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.dialects.mcp_exec_base import (
    ToolCall,
    database_id,
    fetch_all,
    paged,
    user,
)
from pytest_ghxbench.sandbox.dialects.mcp_exec_repo import repo_input
from pytest_ghxbench.sandbox.state import Comment, Issue, World

__all__ = [
    "comment_object",
    "dependency_list",
    "find_issue",
    "issue_comments",
    "issue_get",
    "issue_labels",
    "issue_object",
    "issue_parent",
    "issue_relations",
    "issue_sub_issues",
    "list_issues",
    "related_issues",
    "search_issues",
    "viewed_issue",
]


def issue_object(world: World, issue: Issue) -> dict[str, Any]:
    """An issue as the server's minimal issue object."""
    milestone = world.milestone(issue.milestone) if issue.milestone is not None else None
    return {
        "id": database_id(issue.node_id),
        "node_id": issue.node_id,
        "number": issue.number,
        "title": issue.title,
        "body": issue.body,
        "state": issue.state.lower(),
        "state_reason": issue.state_reason.lower() if issue.state_reason else None,
        "locked": issue.locked,
        "html_url": f"{world.repository.url}/issues/{issue.number}",
        "user": user(issue.author),
        "labels": list(issue.labels),
        "assignees": list(issue.assignees),
        "milestone": milestone.title if milestone else None,
        "type": issue.issue_type,
        "comments": len(issue.comments),
        "created_at": issue.created_at,
        "updated_at": issue.updated_at,
        "closed_at": issue.closed_at,
    }


def comment_object(world: World, number: int, comment: Comment) -> dict[str, Any]:
    """A comment on issue (or pull request) ``number`` as the server's comment object."""
    return {
        "id": comment.id,
        "node_id": comment.node_id,
        "body": comment.body,
        "user": user(comment.author),
        "html_url": f"{world.repository.url}/issues/{number}#issuecomment-{comment.id}",
        "created_at": comment.created_at,
        "updated_at": comment.updated_at or comment.created_at,
    }


def find_issue(call: ToolCall, number: int) -> Issue:
    """Issue ``number`` of the world; the tool fails when there is none."""
    found = call.world.issue(number)
    if found is None:
        raise call.fail(f"issue #{number} not found")
    return found


def viewed_issue(call: ToolCall, args: dict[str, Any]) -> Issue:
    """The tool's ``issue_number``, read through ``issue.view`` as the server would."""
    call.run("issue.view", {**repo_input(args), "issueNumber": int(args["issue_number"])})
    return find_issue(call, int(args["issue_number"]))


def issue_relations(call: ToolCall, args: dict[str, Any]) -> dict[str, Any]:
    """Parent, children and dependencies of the tool's ``issue_number``."""
    data: dict[str, Any] = call.run(
        "issue.relations.get", {**repo_input(args), "issueNumber": int(args["issue_number"])}
    )
    return data


def issue_get(call: ToolCall, args: dict[str, Any]) -> Any:
    issue = viewed_issue(call, args)
    relations = issue_relations(call, args)
    linked = call.run("issue.linked_prs.list", {**repo_input(args), "issueNumber": issue.number})[
        "items"
    ]
    result = issue_object(call.world, issue)
    parent = relations["parent"]
    result["parent"] = {"number": parent["number"], "title": parent["title"]} if parent else None
    children = relations["children"]
    closed = sum(1 for child in children if child["state"] == "CLOSED")
    result["sub_issues_summary"] = {
        "total": len(children),
        "completed": closed,
        "percent_completed": round(100 * closed / len(children)) if children else 0,
    }
    result["closed_by_pull_requests"] = [
        {"number": pr["number"], "title": pr["title"], "state": str(pr["state"]).lower(),
         "html_url": pr["url"]}
        for pr in linked
    ]  # fmt: skip
    return result


def issue_comments(call: ToolCall, args: dict[str, Any]) -> Any:
    number = int(args["issue_number"])
    fetch_all(call, "issue.comments.list", {**repo_input(args), "issueNumber": number})
    issue = find_issue(call, number)
    return paged([comment_object(call.world, number, c) for c in issue.comments], args)


def related_issues(call: ToolCall, refs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The issue objects of the issues ``refs`` name by number (unknown ones left out)."""
    found = (call.world.issue(int(ref["number"])) for ref in refs)
    return [issue_object(call.world, issue) for issue in found if issue is not None]


def issue_sub_issues(call: ToolCall, args: dict[str, Any]) -> Any:
    return paged(related_issues(call, issue_relations(call, args)["children"]), args)


def issue_parent(call: ToolCall, args: dict[str, Any]) -> Any:
    parent = issue_relations(call, args)["parent"]
    if parent is None:
        raise call.fail(f"issue #{args['issue_number']} has no parent issue")
    return related_issues(call, [parent])[0]


def issue_labels(call: ToolCall, args: dict[str, Any]) -> Any:
    issue = viewed_issue(call, args)
    labels = [call.world.label(name) for name in issue.labels]
    return [
        {"name": la.name, "color": la.color, "description": la.description}
        for la in labels
        if la is not None
    ]


def _list_entry(world: World, issue: Issue, fields: list[str] | None) -> dict[str, Any]:
    full = issue_object(world, issue)
    if not fields:
        return full
    return {key: full[key] for key in ("number", *fields) if key in full}


def list_issues(call: ToolCall, args: dict[str, Any]) -> Any:
    state = str(args.get("state") or "OPEN").lower()
    input: dict[str, Any] = {**repo_input(args), "state": state}
    if args.get("labels"):
        input["labels"] = args["labels"]
    entries = fetch_all(call, "issue.list", input)
    issues = [i for i in (call.world.issue(int(e["number"])) for e in entries) if i is not None]
    if args.get("since"):
        issues = [i for i in issues if i.updated_at >= str(args["since"])]
    order = str(args.get("orderBy") or "CREATED_AT")
    key = {"UPDATED_AT": "updated_at", "COMMENTS": "comments"}.get(order, "created_at")
    issues.sort(
        key=lambda i: len(i.comments) if key == "comments" else getattr(i, key),
        reverse=str(args.get("direction") or "DESC") == "DESC",
    )
    size = int(args.get("perPage") or 30)
    start = int(args["after"]) if str(args.get("after") or "").isdigit() else 0
    chunk = issues[start : start + size]
    end = start + len(chunk)
    return {
        "issues": [_list_entry(call.world, i, args.get("fields")) for i in chunk],
        "pageInfo": {"hasNextPage": end < len(issues), "endCursor": str(end) if chunk else None},
        "totalCount": len(issues),
    }


def _matches(issue: Issue, terms: list[str]) -> bool:
    for term in terms:
        qualifier, _, value = term.partition(":")
        if value and qualifier in ("is", "state"):
            if value in ("open", "closed") and issue.state.lower() != value:
                return False
        elif value and qualifier == "label":
            if value.strip('"').casefold() not in {la.casefold() for la in issue.labels}:
                return False
        elif value and qualifier in ("assignee", "author"):
            logins = issue.assignees if qualifier == "assignee" else [issue.author]
            if value not in logins:
                return False
        elif value and qualifier in ("repo", "type", "in", "sort"):
            continue
        elif term.casefold() not in f"{issue.title}\n{issue.body}".casefold():
            return False
    return True


def search_issues(call: ToolCall, args: dict[str, Any]) -> Any:
    input = {"owner": args.get("owner") or call.repo["owner"], "name": args.get("repo")}
    input["name"] = input["name"] or call.repo["name"]
    entries = fetch_all(call, "issue.list", {**input, "state": "all"})
    issues = [i for i in (call.world.issue(int(e["number"])) for e in entries) if i is not None]
    found = [i for i in issues if _matches(i, str(args["query"]).split())]
    if args.get("sort") in ("created", "updated", "comments"):
        sort = str(args["sort"])
        found.sort(
            key=lambda i: len(i.comments) if sort == "comments" else getattr(i, f"{sort}_at"),
            reverse=args.get("order", "desc") == "desc",
        )
    items = [issue_object(call.world, i) for i in found]
    return {"total_count": len(items), "incomplete_results": False, "items": paged(items, args)}


def dependency_list(key: str) -> Any:
    """A handler listing the issues under ``key`` of the relations (``blockedBy``...)."""

    def read(call: ToolCall, args: dict[str, Any]) -> Any:
        return paged(related_issues(call, issue_relations(call, args)[key]), args)

    return read
