"""REST routes for issues: listing, reading, creating and editing them, their labels,
assignees, sub-issues and blocked-by dependencies (their conversation is in
:mod:`.issue_comments`).

``sub_issue_id`` and ``issue_id`` are issue database ids (:func:`.links.issue_id`), the ones
issues show as ``id``.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox import history
from pytest_ghxbench.sandbox.api.rest.links import ISSUE_ID_BASE
from pytest_ghxbench.sandbox.api.rest.render_core import labels_json
from pytest_ghxbench.sandbox.api.rest.render_issues import issue_json
from pytest_ghxbench.sandbox.api.rest.router import (
    Ctx,
    RestError,
    call,
    missing_field,
    or_not_found,
    paged,
    repo_input,
    route,
)
from pytest_ghxbench.sandbox.state import Issue, PullRequest

__all__ = ["find_issue", "find_item"]

_ISSUE = "/repos/{owner}/{repo}/issues/{issue_number}"


def find_item(ctx: Ctx) -> Issue | PullRequest:
    number = ctx.number("issue_number")
    issue = ctx.world.issue(number)
    if issue is not None:
        return issue
    return or_not_found(ctx.world.pull_request(number))


def find_issue(ctx: Ctx) -> Issue:
    found = find_item(ctx)
    if not isinstance(found, Issue):
        raise RestError(404, "Not Found")
    return found


def _by_database_id(ctx: Ctx, value: Any) -> Issue:
    try:
        number = int(value) - ISSUE_ID_BASE
    except (TypeError, ValueError):
        raise RestError(
            422, "Validation Failed", [{"message": f"{value!r} is not an issue id"}]
        ) from None
    return or_not_found(ctx.world.issue(number))


def sort_items(items: list[Any], sort: str, direction: str) -> None:
    """Order by ``sort`` (created, updated, comments) and ``direction`` (asc, desc)."""
    descending = direction != "asc"
    if sort == "comments":
        items.sort(key=lambda i: (len(i.comments), i.number), reverse=descending)
    else:
        key = "updated_at" if sort == "updated" else "created_at"
        items.sort(key=lambda i: (getattr(i, key), i.number), reverse=descending)


def _any_none_or(wanted: str | None, value: str | None) -> bool:
    """GitHub's filter on one value: absent (everything), ``*`` (any), ``none`` (no value),
    else that value (case-insensitive)."""
    if wanted is None:
        return True
    if wanted == "*":
        return value is not None
    if wanted.casefold() == "none":
        return value is None
    return value is not None and value.casefold() == wanted.casefold()


def _type_of(item: Issue | PullRequest) -> str | None:
    return item.issue_type if isinstance(item, Issue) else None


@route("GET", "/repos/{owner}/{repo}/issues")
def _list(ctx: Ctx) -> Any:
    world = ctx.world
    state = (ctx.param("state") or "open").lower()
    labels = {n.strip().casefold() for n in (ctx.param("labels") or "").split(",") if n.strip()}
    assignee, creator = ctx.param("assignee"), ctx.param("creator")
    milestone, since = ctx.param("milestone"), ctx.param("since") or ""
    kind = ctx.param("type")
    items: list[Issue | PullRequest] = [*world.issues, *world.pull_requests]
    chosen = [
        i
        for i in items
        if (state == "all" or (i.state == "OPEN") == (state == "open"))
        and labels <= {n.casefold() for n in i.labels}
        and (
            (assignee is None or (assignee == "*" and bool(i.assignees)))
            or (assignee == "none" and not i.assignees)
            or assignee in i.assignees
        )
        and creator in (None, i.author)
        and _any_none_or(milestone, None if i.milestone is None else str(i.milestone))
        and _any_none_or(kind, _type_of(i))
        and i.updated_at >= since
    ]
    sort_items(chosen, ctx.param("sort") or "created", ctx.param("direction") or "desc")
    links = ctx.links
    return [issue_json(links, i) for i in paged(ctx, chosen)]


@route("POST", "/repos/{owner}/{repo}/issues")
def _create(ctx: Ctx) -> Any:
    body = ctx.body
    if not body.get("title"):
        raise missing_field("Issue", "title")
    payload: dict[str, Any] = {**repo_input(ctx), "title": str(body["title"])}
    if body.get("body") is not None:
        payload["body"] = str(body["body"])
    for key in ("labels", "assignees"):
        if body.get(key):
            payload[key] = [x["name"] if isinstance(x, dict) else str(x) for x in body[key]]
    if body.get("assignee"):
        payload.setdefault("assignees", []).append(str(body["assignee"]))
    if body.get("milestone") is not None:
        payload["milestoneNumber"] = int(body["milestone"])
    if body.get("type"):
        payload["issueType"] = str(body["type"])
    created = call(ctx, "createIssue", payload)
    return issue_json(ctx.links, or_not_found(ctx.world.issue(created["number"])))


@route("GET", _ISSUE)
def _get(ctx: Ctx) -> Any:
    return issue_json(ctx.links, find_item(ctx))


def _update_pull(ctx: Ctx, pull: PullRequest) -> Any:
    """``PATCH`` of a pull request's number: pull requests are issues (title, body, labels and
    assignees, as GitHub's issues endpoint edits them)."""
    body = ctx.body
    for key in ("title", "body"):
        if body.get(key) is not None:
            with history.tracked(ctx.world, pull):
                setattr(pull, key, str(body[key]))
                pull.updated_at = ctx.world.tick()
            ctx.mutated = True
    if "labels" in body:
        _set_labels(ctx, _names(ctx))
    if "assignees" in body or "assignee" in body:
        people = [
            *(body.get("assignees") or []),
            *([body["assignee"]] if body.get("assignee") else []),
        ]
        add = [str(p) for p in people if p not in pull.assignees]
        remove = [a for a in pull.assignees if a not in people]
        payload = {**repo_input(ctx), "prNumber": pull.number, "add": add, "remove": remove}
        call(ctx, "updatePullRequest(assigneeIds:)", payload)
    return issue_json(ctx.links, pull)


@route("PATCH", _ISSUE)
def _update(ctx: Ctx) -> Any:
    item = find_item(ctx)
    if isinstance(item, PullRequest):
        return _update_pull(ctx, item)
    issue = find_issue(ctx)
    body, node = ctx.body, issue.node_id
    change = {k: body[k] for k in ("title", "body") if body.get(k) is not None}
    if change:
        call(ctx, "updateIssue", {"issueId": node, **change})
    if "labels" in body:
        names = [x["name"] if isinstance(x, dict) else str(x) for x in body["labels"] or []]
        call(ctx, "updateIssue(labelIds:)", {"issueId": node, "labels": names})
    if "assignees" in body or "assignee" in body:
        people = list(body.get("assignees") or [])
        if body.get("assignee"):
            people.append(str(body["assignee"]))
        call(ctx, "replaceActorsForAssignable", {"issueId": node, "assignees": people})
    if "milestone" in body:
        milestone = body["milestone"]
        number = None if milestone is None else int(milestone)
        call(ctx, "updateIssue(milestoneId:)", {"issueId": node, "milestoneNumber": number})
    if "type" in body:
        kind = body["type"]
        known = next((t.name for t in ctx.world.issue_types if t.name == kind), None)
        if kind is not None and known is None:
            raise RestError(422, "Validation Failed", [{"message": f"no issue type {kind!r}"}])
        issue.issue_type = known
        ctx.mutated = True
    if body.get("state") == "closed" and issue.state != "CLOSED":
        reason = str(body.get("state_reason") or "completed")
        call(ctx, "closeIssue", {"issueId": node, "reason": reason})
    elif body.get("state") == "open" and issue.state != "OPEN":
        call(ctx, "reopenIssue", {"issueId": node})
    return issue_json(ctx.links, issue)


@route("GET", _ISSUE + "/labels")
def _labels(ctx: Ctx) -> Any:
    return labels_json(ctx.links, find_item(ctx).labels)


def _names(ctx: Ctx) -> list[str]:
    raw = ctx.body.get("labels", ctx.body.get("names", []))
    return [x["name"] if isinstance(x, dict) else str(x) for x in raw or []]


def _set_labels(ctx: Ctx, names: list[str]) -> Any:
    item = find_item(ctx)
    if isinstance(item, Issue):
        call(ctx, "updateIssue(labelIds:)", {"issueId": item.node_id, "labels": names})
    else:
        found = [ctx.world.label(n) for n in names]
        known = [label.name for label in found if label is not None]
        if len(known) != len(names):
            raise RestError(422, "Validation Failed", [{"message": "a label does not exist"}])
        with history.tracked(ctx.world, item):
            item.labels = list(dict.fromkeys(known))
            item.updated_at = ctx.world.tick()
        ctx.mutated = True
    return labels_json(ctx.links, item.labels)


@route("POST", _ISSUE + "/labels", status=200)
def _add_labels(ctx: Ctx) -> Any:
    return _set_labels(ctx, [*find_item(ctx).labels, *_names(ctx)])


@route("PUT", _ISSUE + "/labels")
def _replace_labels(ctx: Ctx) -> Any:
    return _set_labels(ctx, _names(ctx))


@route("DELETE", _ISSUE + "/labels/{name}")
def _remove_label(ctx: Ctx) -> Any:
    item = find_item(ctx)
    name = ctx.args["name"].casefold()
    if name not in {n.casefold() for n in item.labels}:
        raise RestError(404, "Label does not exist")
    return _set_labels(ctx, [n for n in item.labels if n.casefold() != name])


def _assign(ctx: Ctx, adding: bool) -> Any:
    issue = find_issue(ctx)
    logins = [str(x) for x in ctx.body.get("assignees") or []]
    kept = [a for a in issue.assignees if a not in logins]
    people = [*issue.assignees, *logins] if adding else kept
    payload = {"issueId": issue.node_id, "assignees": list(dict.fromkeys(people))}
    call(ctx, "replaceActorsForAssignable", payload)
    return issue_json(ctx.links, issue)


@route("POST", _ISSUE + "/assignees")
def _add_assignees(ctx: Ctx) -> Any:
    return _assign(ctx, True)


@route("DELETE", _ISSUE + "/assignees")
def _remove_assignees(ctx: Ctx) -> Any:
    return _assign(ctx, False)


@route("GET", _ISSUE + "/sub_issues")
def _sub_issues(ctx: Ctx) -> Any:
    links = ctx.links
    children = ctx.world.sub_issues(find_issue(ctx).number)
    return [issue_json(links, i) for i in paged(ctx, children)]


@route("GET", _ISSUE + "/parent")
def _parent(ctx: Ctx) -> Any:
    issue = find_issue(ctx)
    parent = or_not_found(ctx.world.issue(issue.parent) if issue.parent else None)
    return issue_json(ctx.links, parent)


@route("POST", _ISSUE + "/sub_issues")
def _add_sub_issue(ctx: Ctx) -> Any:
    parent = find_issue(ctx)
    child = _by_database_id(ctx, ctx.body.get("sub_issue_id"))
    if (
        child.parent is not None
        and child.parent != parent.number
        and not ctx.body.get("replace_parent")
    ):
        message = (
            "Issue may not contain duplicate sub-issues and the sub-issue already has a parent"
        )
        raise RestError(422, "Validation Failed", [{"message": message}])
    call(ctx, "addSubIssue", {"issueId": child.node_id, "parentIssueId": parent.node_id})
    return issue_json(ctx.links, parent)


@route("DELETE", _ISSUE + "/sub_issue")
def _remove_sub_issue(ctx: Ctx) -> Any:
    parent = find_issue(ctx)
    child = _by_database_id(ctx, ctx.body.get("sub_issue_id"))
    if child.parent != parent.number:
        raise RestError(404, "Not Found")
    call(ctx, "removeSubIssue", {"issueId": child.node_id})
    return issue_json(ctx.links, child)


@route("GET", _ISSUE + "/dependencies/blocked_by")
def _blocked_by(ctx: Ctx) -> Any:
    world = ctx.world
    blockers = [i for i in (world.issue(n) for n in find_issue(ctx).blocked_by) if i is not None]
    links = ctx.links
    return [issue_json(links, i) for i in paged(ctx, blockers)]


@route("GET", _ISSUE + "/dependencies/blocking")
def _blocking(ctx: Ctx) -> Any:
    number = find_issue(ctx).number
    links = ctx.links
    blocked = [i for i in ctx.world.issues if number in i.blocked_by]
    return [issue_json(links, i) for i in paged(ctx, blocked)]


@route("POST", _ISSUE + "/dependencies/blocked_by")
def _add_blocker(ctx: Ctx) -> Any:
    issue = find_issue(ctx)
    blocker = _by_database_id(ctx, ctx.body.get("issue_id"))
    payload = {"issueId": issue.node_id, "blockedByIssueId": blocker.node_id}
    call(ctx, "addBlockedBy", payload)
    return issue_json(ctx.links, blocker)


@route("DELETE", _ISSUE + "/dependencies/blocked_by/{issue_id}")
def _remove_blocker(ctx: Ctx) -> Any:
    issue = find_issue(ctx)
    blocker = _by_database_id(ctx, ctx.args["issue_id"])
    payload = {"issueId": issue.node_id, "blockedByIssueId": blocker.node_id}
    call(ctx, "removeBlockedBy", payload)
    return issue_json(ctx.links, blocker)
