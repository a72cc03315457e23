"""MCP tools that write issues: ``issue_write``, ``sub_issue_write``, ``add_issue_comment`` and
``issue_dependency_write``, through the sandbox's ``issue.*`` capabilities."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.dialects.mcp_exec_base import (
    ToolCall,
    database_id,
    issue_by_database_id,
)
from pytest_ghxbench.sandbox.dialects.mcp_exec_issue_pr import pull_request_update
from pytest_ghxbench.sandbox.dialects.mcp_exec_issue_read import (
    comment_object,
    find_issue,
    issue_object,
    viewed_issue,
)
from pytest_ghxbench.sandbox.dialects.mcp_exec_repo import repo_input
from pytest_ghxbench.sandbox.state import Comment, Issue

__all__ = [
    "add_issue_comment",
    "dependency_write",
    "issue_create",
    "issue_update",
    "sub_issue_add",
    "sub_issue_remove",
    "sub_issue_reprioritize",
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
    parent = viewed_issue(call, args)
    child = _sub_issue(call, args)
    if child.parent not in (None, parent.number) and not args.get("replace_parent"):
        raise call.fail(
            f"issue #{child.number} already has a parent (#{child.parent}); "
            "set replace_parent to move it"
        )
    call.run("issue.parent.set", {"issueId": child.node_id, "parentIssueId": parent.node_id})
    return issue_object(call.world, child)


def sub_issue_remove(call: ToolCall, args: dict[str, Any]) -> Any:
    parent = viewed_issue(call, args)
    child = _sub_issue(call, args)
    if child.parent != parent.number:
        raise call.fail(f"issue #{child.number} is not a sub-issue of #{parent.number}")
    call.run("issue.parent.remove", {"issueId": child.node_id})
    return issue_object(call.world, child)


def sub_issue_reprioritize(call: ToolCall, args: dict[str, Any]) -> Any:
    parent = viewed_issue(call, args)
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
    issue = viewed_issue(call, args)
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
        parent = find_issue(call, int(args["parent_issue_number"]))
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


def add_issue_comment(call: ToolCall, args: dict[str, Any]) -> Any:
    number = int(args["issue_number"])
    if not args.get("body"):
        raise call.fail("missing required parameter: body")
    issue = call.world.issue(number)
    if issue is not None or call.world.pull_request(number) is None:
        call.run("issue.view", {**repo_input(args), "issueNumber": number})
        issue = find_issue(call, number)
        call.run("issue.comments.create", {"issueId": issue.node_id, "body": args["body"]})
        return comment_object(call.world, number, issue.comments[-1])
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
    return comment_object(call.world, number, comment)


def dependency_write(capability_id: str) -> Any:
    """A handler adding or removing a blocked-by link through capability ``capability_id``."""

    def write(call: ToolCall, args: dict[str, Any]) -> Any:
        if args.get("related_owner") not in (None, args["owner"]) or args.get(
            "related_repo"
        ) not in (None, args["repo"]):
            raise call.fail("the sandbox has one repository: related issues must be in it")
        subject = viewed_issue(call, args)
        other = find_issue(call, int(args["related_issue_number"]))
        blocked, blocker = (subject, other) if args["type"] == "blocked_by" else (other, subject)
        call.run(capability_id, {"issueId": blocked.node_id, "blockedByIssueId": blocker.node_id})
        return issue_object(call.world, subject)

    return write
