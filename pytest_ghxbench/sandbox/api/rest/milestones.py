"""REST routes for a repository's milestones: listing, reading, creating, editing and deleting
them."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.render_issues import milestone_rest
from pytest_ghxbench.sandbox.api.rest.router import (
    Ctx,
    call,
    missing_field,
    or_not_found,
    paged,
    repo_input,
    route,
)
from pytest_ghxbench.sandbox.state import Issue, Milestone, PullRequest, World

__all__: list[str] = []

_MILESTONES = "/repos/{owner}/{repo}/milestones"
_MILESTONE = _MILESTONES + "/{milestone_number}"


def _completeness(world: World, milestone: Milestone) -> float:
    items: list[Issue | PullRequest] = [*world.issues, *world.pull_requests]
    mine = [i for i in items if i.milestone == milestone.number]
    return sum(i.state != "OPEN" for i in mine) / len(mine) if mine else 0.0


@route("GET", _MILESTONES)
def _list(ctx: Ctx) -> Any:
    world = ctx.world
    state = (ctx.param("state") or "open").upper()
    chosen = [m for m in world.milestones if state in ("ALL", m.state)]
    descending = (ctx.param("direction") or "asc") == "desc"
    if ctx.param("sort") == "completeness":
        chosen.sort(key=lambda m: (_completeness(world, m), m.number), reverse=descending)
    else:
        # by due date, those without one after the dated ones
        chosen.sort(key=lambda m: (m.due_on is None, m.due_on or "", m.number), reverse=descending)
    links = ctx.links
    return [milestone_rest(links, m) for m in paged(ctx, chosen)]


@route("GET", _MILESTONE)
def _get(ctx: Ctx) -> Any:
    found = ctx.world.milestone(ctx.number("milestone_number"))
    return milestone_rest(ctx.links, or_not_found(found))


def _fields(ctx: Ctx) -> dict[str, Any]:
    body = ctx.body
    fields: dict[str, Any] = {}
    for key in ("title", "state", "description"):
        if body.get(key) is not None:
            fields[key] = str(body[key])
    if "due_on" in body:
        fields["dueOn"] = body["due_on"]
    return fields


@route("POST", _MILESTONES)
def _create(ctx: Ctx) -> Any:
    if not str(ctx.body.get("title") or "").strip():
        raise missing_field("Milestone", "title")
    made = call(ctx, "issues/create-milestone", {**repo_input(ctx), **_fields(ctx)})
    return milestone_rest(ctx.links, or_not_found(ctx.world.milestone(made["number"])))


@route("PATCH", _MILESTONE)
def _update(ctx: Ctx) -> Any:
    number = ctx.number("milestone_number")
    or_not_found(ctx.world.milestone(number))
    call(ctx, "issues/update-milestone", {**repo_input(ctx), "number": number, **_fields(ctx)})
    return milestone_rest(ctx.links, or_not_found(ctx.world.milestone(number)))


@route("DELETE", _MILESTONE, status=204)
def _delete(ctx: Ctx) -> Any:
    number = ctx.number("milestone_number")
    or_not_found(ctx.world.milestone(number))
    call(ctx, "issues/delete-milestone", {**repo_input(ctx), "number": number})
    return None
