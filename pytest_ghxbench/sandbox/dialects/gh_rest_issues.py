"""REST routes for issues: listing, reading, creating and editing issues, their comments,
labels, assignees, sub-issues and blocked-by dependencies.

Issue ids in ``sub_issue_id`` / ``issue_id`` are the database ids the sandbox derives from
issue numbers (:func:`~.gh_render.issue_database_id`), the same ones issues show as ``id``.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.dialects.gh_render import ISSUE_DATABASE_BASE
from pytest_ghxbench.sandbox.dialects.gh_rest import (
    RestError,
    RestRequest,
    call,
    or_not_found,
    paged,
    repo_input,
    route,
)
from pytest_ghxbench.sandbox.dialects.gh_rest_render import comment_rest, issue_rest, label_rest
from pytest_ghxbench.sandbox.state import Comment, Issue, PullRequest

__all__: list[str] = []


def _item(request: RestRequest, index: int = 0) -> Issue | PullRequest:
    world = request.ctx.world
    number = request.number(index)
    found = world.issue(number) or world.pull_request(number)
    if found is None:
        raise RestError(404, "Not Found")
    return found


def _issue(request: RestRequest) -> Issue:
    found = _item(request)
    if not isinstance(found, Issue):
        raise RestError(404, "Not Found")
    return found


def _by_database_id(request: RestRequest, value: Any) -> Issue:
    try:
        number = int(value) - ISSUE_DATABASE_BASE
    except (TypeError, ValueError):
        raise RestError(
            422, "Validation Failed", [{"message": f"{value!r} is not an issue id"}]
        ) from None
    return or_not_found(request.ctx.world.issue(number))


@route("GET", "issues")
def _list(request: RestRequest) -> Any:
    world = request.ctx.world
    params = request.params
    state = str(params.get("state", "open")).upper()
    labels = {n.strip().casefold() for n in str(params.get("labels", "")).split(",") if n.strip()}
    items: list[Issue | PullRequest] = [*world.issues, *world.pull_requests]
    chosen = [
        i
        for i in items
        if (state == "ALL" or (i.state == "OPEN") == (state == "OPEN"))
        and labels <= {n.casefold() for n in i.labels}
        and params.get("assignee") in (None, "*", *i.assignees)
        and params.get("creator") in (None, i.author)
        and (params.get("milestone") in (None, "*") or str(i.milestone) == str(params["milestone"]))
    ]
    key = "updated_at" if params.get("sort") == "updated" else "created_at"
    descending = params.get("direction", "desc") != "asc"
    chosen.sort(key=lambda i: (getattr(i, key), i.number), reverse=descending)
    return paged(request, [issue_rest(world, i) for i in chosen])


@route("POST", "issues")
def _create(request: RestRequest) -> Any:
    body = request.body
    if not body.get("title"):
        raise RestError(
            422,
            "Validation Failed",
            [{"resource": "Issue", "code": "missing_field", "field": "title"}],
        )
    payload: dict[str, Any] = {**repo_input(request), "title": str(body["title"])}
    if body.get("body") is not None:
        payload["body"] = str(body["body"])
    for key in ("labels", "assignees"):
        if body.get(key):
            payload[key] = [str(x) for x in body[key]]
    if body.get("milestone") is not None:
        payload["milestoneNumber"] = int(body["milestone"])
    if body.get("type"):
        payload["issueType"] = str(body["type"])
    created = call(request, "issue.create", payload)
    issue = request.ctx.world.issue(created["number"])
    assert issue is not None
    return issue_rest(request.ctx.world, issue)


@route("GET", r"issues/(\d+)")
def _get(request: RestRequest) -> Any:
    return issue_rest(request.ctx.world, _item(request))


@route("PATCH", r"issues/(\d+)")
def _update(request: RestRequest) -> Any:
    issue = _issue(request)
    body, node = request.body, issue.node_id
    if "title" in body or "body" in body:
        change = {k: body[k] for k in ("title", "body") if k in body and body[k] is not None}
        if change:
            call(request, "issue.update", {"issueId": node, **change})
    if "labels" in body:
        names = [x["name"] if isinstance(x, dict) else str(x) for x in body["labels"] or []]
        call(request, "issue.labels.update", {"issueId": node, "labels": names})
    if "assignees" in body:
        call(
            request,
            "issue.assignees.update",
            {"issueId": node, "assignees": list(body["assignees"] or [])},
        )
    if "milestone" in body:
        milestone = body["milestone"]
        call(
            request,
            "issue.milestone.set",
            {"issueId": node, "milestoneNumber": None if milestone is None else int(milestone)},
        )
    if body.get("state") == "closed":
        reason = str(body.get("state_reason") or "completed")
        call(request, "issue.close", {"issueId": node, "reason": reason})
    elif body.get("state") == "open":
        call(request, "issue.reopen", {"issueId": node})
    return issue_rest(request.ctx.world, issue)


@route("GET", r"issues/(\d+)/comments")
def _comments(request: RestRequest) -> Any:
    item = _item(request)
    return paged(request, [comment_rest(request.ctx.world, item, c) for c in item.comments])


@route("POST", r"issues/(\d+)/comments")
def _comment(request: RestRequest) -> Any:
    item = _item(request)
    text = str(request.body.get("body") or "")
    if not text.strip():
        raise RestError(
            422,
            "Validation Failed",
            [{"resource": "IssueComment", "code": "missing_field", "field": "body"}],
        )
    if isinstance(item, Issue):
        call(request, "issue.comments.create", {"issueId": item.node_id, "body": text})
    else:
        from pytest_ghxbench.sandbox.dialects.gh_pr_write import add_conversation_comment

        request.ctx.mutated = True
        add_conversation_comment(request.ctx.world, item, text)
    return comment_rest(request.ctx.world, item, item.comments[-1])


def _find_comment(request: RestRequest) -> tuple[Issue | PullRequest, Comment]:
    wanted = request.number()
    world = request.ctx.world
    items: list[Issue | PullRequest] = [*world.issues, *world.pull_requests]
    for item in items:
        for comment in item.comments:
            if comment.id == wanted:
                return item, comment
    raise RestError(404, "Not Found")


@route("GET", r"issues/comments/(\d+)")
def _get_comment(request: RestRequest) -> Any:
    item, comment = _find_comment(request)
    return comment_rest(request.ctx.world, item, comment)


@route("PATCH", r"issues/comments/(\d+)")
def _edit_comment(request: RestRequest) -> Any:
    item, comment = _find_comment(request)
    if comment.author != request.ctx.world.viewer:
        raise RestError(403, "Must have admin rights to Repository.")
    request.ctx.mutated = True
    comment.body = str(request.body.get("body") or comment.body)
    comment.updated_at = request.ctx.world.tick()
    return comment_rest(request.ctx.world, item, comment)


@route("GET", r"issues/(\d+)/labels")
def _labels(request: RestRequest) -> Any:
    item = _item(request)
    world = request.ctx.world
    return [label_rest(world, lab) for lab in (world.label(n) for n in item.labels) if lab]


def _names(request: RestRequest) -> list[str]:
    raw = request.body.get("labels", request.body.get("names", []))
    return [x["name"] if isinstance(x, dict) else str(x) for x in raw or []]


def _set_labels(request: RestRequest, names: list[str]) -> Any:
    issue = _issue(request)
    call(request, "issue.labels.update", {"issueId": issue.node_id, "labels": names})
    return _labels(request)


@route("POST", r"issues/(\d+)/labels")
def _add_labels(request: RestRequest) -> Any:
    return _set_labels(request, [*_issue(request).labels, *_names(request)])


@route("PUT", r"issues/(\d+)/labels")
def _replace_labels(request: RestRequest) -> Any:
    return _set_labels(request, _names(request))


@route("DELETE", r"issues/(\d+)/labels/(.+)")
def _remove_label(request: RestRequest) -> Any:
    issue = _issue(request)
    name = request.groups[1].replace("%20", " ").casefold()
    if name not in {n.casefold() for n in issue.labels}:
        raise RestError(404, "Label does not exist")
    return _set_labels(request, [n for n in issue.labels if n.casefold() != name])


def _assign(request: RestRequest, adding: bool) -> Any:
    issue = _issue(request)
    logins = [str(x) for x in request.body.get("assignees") or []]
    people = (
        [*issue.assignees, *logins] if adding else [a for a in issue.assignees if a not in logins]
    )
    call(
        request,
        "issue.assignees.update",
        {"issueId": issue.node_id, "assignees": list(dict.fromkeys(people))},
    )
    return issue_rest(request.ctx.world, issue)


@route("POST", r"issues/(\d+)/assignees")
def _add_assignees(request: RestRequest) -> Any:
    return _assign(request, True)


@route("DELETE", r"issues/(\d+)/assignees")
def _remove_assignees(request: RestRequest) -> Any:
    return _assign(request, False)


@route("GET", r"issues/(\d+)/sub_issues")
def _sub_issues(request: RestRequest) -> Any:
    world = request.ctx.world
    return paged(request, [issue_rest(world, i) for i in world.sub_issues(_issue(request).number)])


@route("GET", r"issues/(\d+)/parent")
def _parent(request: RestRequest) -> Any:
    issue = _issue(request)
    parent = or_not_found(request.ctx.world.issue(issue.parent) if issue.parent else None)
    return issue_rest(request.ctx.world, parent)


@route("POST", r"issues/(\d+)/sub_issues")
def _add_sub_issue(request: RestRequest) -> Any:
    parent = _issue(request)
    child = _by_database_id(request, request.body.get("sub_issue_id"))
    if (
        child.parent is not None
        and child.parent != parent.number
        and not request.body.get("replace_parent")
    ):
        raise RestError(
            422,
            "Validation Failed",
            [
                {
                    "message": "Issue may not contain duplicate sub-issues and the sub-issue "
                    "already has a parent"
                }
            ],
        )
    call(request, "issue.parent.set", {"issueId": child.node_id, "parentIssueId": parent.node_id})
    return issue_rest(request.ctx.world, parent)


@route("DELETE", r"issues/(\d+)/sub_issue")
def _remove_sub_issue(request: RestRequest) -> Any:
    parent = _issue(request)
    child = _by_database_id(request, request.body.get("sub_issue_id"))
    if child.parent != parent.number:
        raise RestError(404, "Not Found")
    call(request, "issue.parent.remove", {"issueId": child.node_id})
    return issue_rest(request.ctx.world, child)


@route("GET", r"issues/(\d+)/dependencies/blocked_by")
def _blocked_by(request: RestRequest) -> Any:
    world = request.ctx.world
    blockers = [world.issue(n) for n in _issue(request).blocked_by]
    return paged(request, [issue_rest(world, i) for i in blockers if i is not None])


@route("GET", r"issues/(\d+)/dependencies/blocking")
def _blocking(request: RestRequest) -> Any:
    world = request.ctx.world
    number = _issue(request).number
    return paged(request, [issue_rest(world, i) for i in world.issues if number in i.blocked_by])


@route("POST", r"issues/(\d+)/dependencies/blocked_by")
def _add_blocker(request: RestRequest) -> Any:
    issue = _issue(request)
    blocker = _by_database_id(request, request.body.get("issue_id"))
    call(
        request,
        "issue.blocked_by.add",
        {"issueId": issue.node_id, "blockedByIssueId": blocker.node_id},
    )
    return issue_rest(request.ctx.world, blocker)


@route("DELETE", r"issues/(\d+)/dependencies/blocked_by/(\d+)")
def _remove_blocker(request: RestRequest) -> Any:
    issue = _issue(request)
    blocker = _by_database_id(request, request.groups[1])
    call(
        request,
        "issue.blocked_by.remove",
        {"issueId": issue.node_id, "blockedByIssueId": blocker.node_id},
    )
    return issue_rest(request.ctx.world, blocker)
