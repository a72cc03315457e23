"""REST routes for the history of issues and pull requests: an issue's timeline and events, the
repository's issue events (newest first) and one of them, and the repository's issue comments.

Imported before :mod:`.issues`, whose ``/issues/{issue_number}`` would otherwise take
``/issues/events`` and ``/issues/comments`` for an issue numbered ``events`` or ``comments``.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.render_events import event_json, timeline_json
from pytest_ghxbench.sandbox.api.rest.render_issues import comment_json
from pytest_ghxbench.sandbox.api.rest.router import Ctx, RestError, or_not_found, paged, route
from pytest_ghxbench.sandbox.state import Comment, Issue, PullRequest
from pytest_ghxbench.sandbox.timeline import TIMELINE_ONLY, events_of, timeline

__all__: list[str] = []

_ISSUE = "/repos/{owner}/{repo}/issues/{issue_number}"
_EVENTS = "/repos/{owner}/{repo}/issues/events"


def _item(ctx: Ctx) -> Issue | PullRequest:
    number = ctx.number("issue_number")
    issue = ctx.world.issue(number)
    return issue if issue is not None else or_not_found(ctx.world.pull_request(number))


@route("GET", _ISSUE + "/timeline")
def _timeline(ctx: Ctx) -> Any:
    item = _item(ctx)
    links = ctx.links
    excluded = {n.strip() for n in (ctx.param("exclude") or "").split(",") if n.strip()}
    shown = [timeline_json(links, item, entry) for entry in timeline(ctx.world, item)]
    return paged(ctx, [s for s in shown if s is not None and s["event"] not in excluded])


@route("GET", _ISSUE + "/events")
def _issue_events(ctx: Ctx) -> Any:
    item = _item(ctx)
    links = ctx.links
    events = [e for e in events_of(ctx.world, item.number) if e.event not in TIMELINE_ONLY]
    return [event_json(links, e) for e in paged(ctx, events)]


@route("GET", _EVENTS)
def _events(ctx: Ctx) -> Any:
    links = ctx.links
    events = [e for e in reversed(ctx.world.events) if e.event not in TIMELINE_ONLY]
    return [event_json(links, e, with_issue=True) for e in paged(ctx, events)]


@route("GET", _EVENTS + "/{event_id}")
def _event(ctx: Ctx) -> Any:
    wanted = ctx.number("event_id")
    found = next(
        (e for e in ctx.world.events if e.id == wanted and e.event not in TIMELINE_ONLY), None
    )
    return event_json(ctx.links, or_not_found(found), with_issue=True)


@route("GET", "/repos/{owner}/{repo}/issues/comments")
def _comments(ctx: Ctx) -> Any:
    """Every issue's and pull request's comments: by ascending id, or by ``sort`` (created,
    updated) in ``direction`` (asc unless desc); ``since``: updated at or after."""
    world = ctx.world
    since = ctx.param("since") or ""
    items: list[Issue | PullRequest] = [*world.issues, *world.pull_requests]
    found = [
        (item, comment)
        for item in items
        for comment in item.comments
        if (comment.updated_at or comment.created_at) >= since
    ]
    sort = ctx.param("sort")
    if sort not in (None, "created", "updated"):
        raise RestError(422, "Validation Failed", [{"message": f"sort: {sort!r} is not valid"}])

    def key(pair: tuple[Issue | PullRequest, Comment]) -> tuple[str, int]:
        comment = pair[1]
        if sort == "updated":
            return (comment.updated_at or comment.created_at, comment.id)
        return (comment.created_at if sort else "", comment.id)

    found.sort(key=key, reverse=sort is not None and ctx.param("direction") == "desc")
    links = ctx.links
    return [comment_json(links, item, comment) for item, comment in paged(ctx, found)]
