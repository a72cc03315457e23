"""REST routes for the conversation of an issue or a pull request: its comments (listing,
adding, editing and deleting them) and whether it is locked."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox import history
from pytest_ghxbench.sandbox.api.rest.issues import find_issue, find_item
from pytest_ghxbench.sandbox.api.rest.render_issues import comment_json
from pytest_ghxbench.sandbox.api.rest.router import (
    Ctx,
    RestError,
    call,
    missing_field,
    paged,
    route,
)
from pytest_ghxbench.sandbox.state import Comment, Issue, PullRequest

__all__: list[str] = []

_ISSUE = "/repos/{owner}/{repo}/issues/{issue_number}"


@route("PUT", _ISSUE + "/lock", status=204)
def _lock(ctx: Ctx) -> Any:
    payload = {"lockableId": find_issue(ctx).node_id, "lockReason": ctx.body.get("lock_reason")}
    call(ctx, "lockLockable", payload)
    return None


@route("DELETE", _ISSUE + "/lock", status=204)
def _unlock(ctx: Ctx) -> Any:
    call(ctx, "unlockLockable", {"lockableId": find_issue(ctx).node_id})
    return None


@route("GET", _ISSUE + "/comments")
def _comments(ctx: Ctx) -> Any:
    item = find_item(ctx)
    since = ctx.param("since") or ""
    chosen = [c for c in item.comments if (c.updated_at or c.created_at) >= since]
    links = ctx.links
    return [comment_json(links, item, c) for c in paged(ctx, chosen)]


@route("POST", _ISSUE + "/comments")
def _comment(ctx: Ctx) -> Any:
    item = find_item(ctx)
    text = str(ctx.body.get("body") or "")
    if not text.strip():
        raise missing_field("IssueComment", "body")
    if isinstance(item, Issue):
        call(ctx, "addComment", {"issueId": item.node_id, "body": text})
    else:
        with history.tracked(ctx.world, item):
            ctx.world.add_comment(item, text)
        ctx.mutated = True
    return comment_json(ctx.links, item, item.comments[-1])


def _find_comment(ctx: Ctx) -> tuple[Issue | PullRequest, Comment]:
    wanted = ctx.number("comment_id")
    items: list[Issue | PullRequest] = [*ctx.world.issues, *ctx.world.pull_requests]
    for item in items:
        for comment in item.comments:
            if comment.id == wanted:
                return item, comment
    raise RestError(404, "Not Found")


_COMMENT = "/repos/{owner}/{repo}/issues/comments/{comment_id}"


@route("GET", _COMMENT)
def _get_comment(ctx: Ctx) -> Any:
    item, comment = _find_comment(ctx)
    return comment_json(ctx.links, item, comment)


@route("PATCH", _COMMENT)
def _edit_comment(ctx: Ctx) -> Any:
    item, comment = _find_comment(ctx)
    if not str(ctx.body.get("body") or "").strip():
        raise missing_field("IssueComment", "body")
    call(ctx, "updateIssueComment", {"id": comment.node_id, "body": str(ctx.body["body"])})
    return comment_json(ctx.links, item, comment)


@route("DELETE", _COMMENT, status=204)
def _delete_comment(ctx: Ctx) -> Any:
    _, comment = _find_comment(ctx)
    call(ctx, "deleteIssueComment", {"id": comment.node_id})
    return None
