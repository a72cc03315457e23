"""MCP tools about the viewer, the repository and its issues, in the GitHub MCP server's shapes.

Issues render as the server's minimal issue objects (REST field names in snake_case: ``number``,
``title``, ``state`` in lower case, ``user.login``, label and assignee names, ``html_url``...).
REST issue ids, which the world does not store, are derived from node ids (:func:`database_id`).
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.dialects.mcp_exec_base import (
    Routes,
    ToolCall,
    database_id,
    fetch_all,
    issue_by_database_id,
    paged,
    user,
)
from pytest_ghxbench.sandbox.dialects.mcp_exec_issue_pr import pull_request_update
from pytest_ghxbench.sandbox.state import Comment, Issue, World

__all__ = ["ISSUE_ROUTES", "issue_object", "repo_input"]


def repo_input(args: dict[str, Any]) -> dict[str, Any]:
    """The capability ``owner``/``name`` for the tool's ``owner``/``repo``."""
    return {"owner": args["owner"], "name": args["repo"]}


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


def _comment(world: World, number: int, comment: Comment) -> dict[str, Any]:
    return {
        "id": comment.id,
        "node_id": comment.node_id,
        "body": comment.body,
        "user": user(comment.author),
        "html_url": f"{world.repository.url}/issues/{number}#issuecomment-{comment.id}",
        "created_at": comment.created_at,
        "updated_at": comment.updated_at or comment.created_at,
    }


def _issue(call: ToolCall, number: int) -> Issue:
    found = call.world.issue(number)
    if found is None:
        raise call.fail(f"issue #{number} not found")
    return found


def _viewed(call: ToolCall, args: dict[str, Any]) -> Issue:
    call.run("issue.view", {**repo_input(args), "issueNumber": int(args["issue_number"])})
    return _issue(call, int(args["issue_number"]))


def _relations(call: ToolCall, args: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = call.run(
        "issue.relations.get", {**repo_input(args), "issueNumber": int(args["issue_number"])}
    )
    return data


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


def issue_get(call: ToolCall, args: dict[str, Any]) -> Any:
    issue = _viewed(call, args)
    relations = _relations(call, args)
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
    issue = _issue(call, number)
    return paged([_comment(call.world, number, c) for c in issue.comments], args)


def _related_issues(call: ToolCall, refs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = (call.world.issue(int(ref["number"])) for ref in refs)
    return [issue_object(call.world, issue) for issue in found if issue is not None]


def issue_sub_issues(call: ToolCall, args: dict[str, Any]) -> Any:
    return paged(_related_issues(call, _relations(call, args)["children"]), args)


def issue_parent(call: ToolCall, args: dict[str, Any]) -> Any:
    parent = _relations(call, args)["parent"]
    if parent is None:
        raise call.fail(f"issue #{args['issue_number']} has no parent issue")
    return _related_issues(call, [parent])[0]


def issue_labels(call: ToolCall, args: dict[str, Any]) -> Any:
    issue = _viewed(call, args)
    labels = [call.world.label(name) for name in issue.labels]
    return [
        {"name": la.name, "color": la.color, "description": la.description}
        for la in labels
        if la is not None
    ]


def _sub_issue(call: ToolCall, args: dict[str, Any]) -> Issue:
    found = issue_by_database_id(call.world, int(args["sub_issue_id"]))
    if found is None:
        raise call.fail(
            f"no issue has the ID {args['sub_issue_id']} (sub_issue_id is the issue's id from "
            "issue_read get, not its number)"
        )
    return found


def sub_issue_add(call: ToolCall, args: dict[str, Any]) -> Any:
    parent = _viewed(call, args)
    child = _sub_issue(call, args)
    if child.parent not in (None, parent.number) and not args.get("replace_parent"):
        raise call.fail(
            f"issue #{child.number} already has a parent (#{child.parent}); "
            "set replace_parent to move it"
        )
    call.run("issue.parent.set", {"issueId": child.node_id, "parentIssueId": parent.node_id})
    return issue_object(call.world, child)


def sub_issue_remove(call: ToolCall, args: dict[str, Any]) -> Any:
    parent = _viewed(call, args)
    child = _sub_issue(call, args)
    if child.parent != parent.number:
        raise call.fail(f"issue #{child.number} is not a sub-issue of #{parent.number}")
    call.run("issue.parent.remove", {"issueId": child.node_id})
    return issue_object(call.world, child)


def sub_issue_reprioritize(call: ToolCall, args: dict[str, Any]) -> Any:
    parent = _viewed(call, args)
    child = _sub_issue(call, args)
    anchors = [args.get("after_id"), args.get("before_id")]
    if child.parent != parent.number or sum(a is not None for a in anchors) != 1:
        raise call.fail("give the sub-issue of this parent and exactly one of after_id, before_id")
    anchor = issue_by_database_id(call.world, int(next(a for a in anchors if a is not None)))
    if anchor is None or anchor.parent != parent.number or anchor is child:
        raise call.fail("after_id/before_id must be the ID of another sub-issue of this parent")
    # Sub-issues are listed in the order of the world's issue list: move the child there.
    issues = call.world.issues
    issues.remove(child)
    position = issues.index(anchor) + (1 if args.get("after_id") is not None else 0)
    issues.insert(position, child)
    call.touched()
    return issue_object(call.world, child)


def issue_create(call: ToolCall, args: dict[str, Any]) -> Any:
    if not args.get("title"):
        raise call.fail("missing required parameter: title")
    input: dict[str, Any] = {**repo_input(args), "title": args["title"]}
    for source, target in (("body", "body"), ("labels", "labels"), ("assignees", "assignees")):
        if args.get(source) is not None:
            input[target] = args[source]
    if args.get("milestone") is not None:
        input["milestoneNumber"] = int(args["milestone"])
    if args.get("type"):
        input["issueType"] = args["type"]
    data = call.run("issue.create", input)
    return {"id": str(database_id(data["id"])), "url": data["url"]}


def issue_update(call: ToolCall, args: dict[str, Any]) -> Any:
    if args.get("issue_number") is None:
        raise call.fail("missing required parameter: issue_number")
    number = int(args["issue_number"])
    pull = call.world.pull_request(number) if call.world.issue(number) is None else None
    if pull is not None:
        call.run("pr.view", {**repo_input(args), "prNumber": number})
        return pull_request_update(call, args, pull)
    issue = _viewed(call, args)
    node = issue.node_id
    edits = {key: args[key] for key in ("title", "body") if args.get(key) is not None}
    if edits:
        call.run("issue.update", {"issueId": node, **edits})
    if args.get("labels") is not None:
        call.run("issue.labels.update", {"issueId": node, "labels": args["labels"]})
    if args.get("assignees") is not None:
        call.run("issue.assignees.update", {"issueId": node, "assignees": args["assignees"]})
    if "milestone" in args:
        milestone = None if args["milestone"] is None else int(args["milestone"])
        call.run("issue.milestone.set", {"issueId": node, "milestoneNumber": milestone})
    if args.get("type") is not None:
        names = {t.name.casefold(): t.name for t in call.world.issue_types if t.is_enabled}
        if str(args["type"]).casefold() not in names:
            raise call.fail(f"issue type '{args['type']}' not found")
        issue.issue_type = names[str(args["type"]).casefold()]
        call.touched()
    if args.get("parent_issue_number") is not None:
        parent = _issue(call, int(args["parent_issue_number"]))
        call.run("issue.parent.set", {"issueId": node, "parentIssueId": parent.node_id})
    state, reason = args.get("state"), args.get("state_reason")
    if state == "closed" and issue.state != "CLOSED":
        call.run("issue.close", {"issueId": node, "reason": reason or "completed"})
    elif state == "open" and issue.state != "OPEN":
        call.run("issue.reopen", {"issueId": node})
    return {
        "id": str(database_id(node)),
        "url": f"{call.world.repository.url}/issues/{issue.number}",
    }


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


def add_issue_comment(call: ToolCall, args: dict[str, Any]) -> Any:
    number = int(args["issue_number"])
    if not args.get("body"):
        raise call.fail("missing required parameter: body")
    issue = call.world.issue(number)
    if issue is not None or call.world.pull_request(number) is None:
        call.run("issue.view", {**repo_input(args), "issueNumber": number})
        issue = _issue(call, number)
        call.run("issue.comments.create", {"issueId": issue.node_id, "body": args["body"]})
        return _comment(call.world, number, issue.comments[-1])
    # Pull requests take issue comments too; no capability covers that, so add it here.
    call.run("pr.view", {**repo_input(args), "prNumber": number})
    pull = call.world.pull_request(number)
    assert pull is not None
    comment_id = call.world.next_id()
    comment = Comment(
        id=comment_id,
        node_id=call.world.node("IC", comment_id),
        author=call.world.viewer,
        body=str(args["body"]),
        created_at=call.world.tick(),
    )
    pull.comments.append(comment)
    call.touched()
    return _comment(call.world, number, comment)


def _dependency_list(key: str) -> Any:
    def read(call: ToolCall, args: dict[str, Any]) -> Any:
        return paged(_related_issues(call, _relations(call, args)[key]), args)

    return read


def _dependency_write(capability_id: str) -> Any:
    def write(call: ToolCall, args: dict[str, Any]) -> Any:
        if args.get("related_owner") not in (None, args["owner"]) or args.get(
            "related_repo"
        ) not in (None, args["repo"]):
            raise call.fail("the sandbox has one repository: related issues must be in it")
        subject = _viewed(call, args)
        other = _issue(call, int(args["related_issue_number"]))
        blocked, blocker = (subject, other) if args["type"] == "blocked_by" else (other, subject)
        call.run(capability_id, {"issueId": blocked.node_id, "blockedByIssueId": blocker.node_id})
        return issue_object(call.world, subject)

    return write


ISSUE_ROUTES: Routes = {
    ("get_me", None): ("get the authenticated user", get_me),
    ("get_repository", None): ("get repository", get_repository),
    ("list_label", None): ("list labels", list_label),
    ("list_issue_types", None): ("list issue types", list_issue_types),
    ("issue_read", "get"): ("get issue", issue_get),
    ("issue_read", "get_comments"): ("get issue comments", issue_comments),
    ("issue_read", "get_sub_issues"): ("list sub-issues", issue_sub_issues),
    ("issue_read", "get_parent"): ("get parent issue", issue_parent),
    ("issue_read", "get_labels"): ("get issue labels", issue_labels),
    ("sub_issue_write", "add"): ("add sub-issue", sub_issue_add),
    ("sub_issue_write", "remove"): ("remove sub-issue", sub_issue_remove),
    ("sub_issue_write", "reprioritize"): ("reprioritize sub-issue", sub_issue_reprioritize),
    ("issue_write", "create"): ("create issue", issue_create),
    ("issue_write", "update"): ("update issue", issue_update),
    ("list_issues", None): ("list issues", list_issues),
    ("search_issues", None): ("search issues", search_issues),
    ("add_issue_comment", None): ("create comment", add_issue_comment),
    ("issue_dependency_read", "get_blocked_by"): (
        "list blocking issues",
        _dependency_list("blockedBy"),
    ),
    ("issue_dependency_read", "get_blocking"): (
        "list blocked issues",
        _dependency_list("blocking"),
    ),
    ("issue_dependency_write", "add"): (
        "add issue dependency",
        _dependency_write("issue.blocked_by.add"),
    ),
    ("issue_dependency_write", "remove"): (
        "remove issue dependency",
        _dependency_write("issue.blocked_by.remove"),
    ),
}
