"""The order of an issue's sub-issues: ``PATCH /issues/{n}/sub_issues/priority`` moves one
before or after a sibling. Sub-issues are listed in the order of the world's issues, so moving
one there is what reorders them."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.links import issue_id
from pytest_ghxbench.sandbox.api.rest.render_issues import issue_json
from pytest_ghxbench.sandbox.api.rest.router import (
    Ctx,
    RestError,
    missing_field,
    or_not_found,
    route,
)
from pytest_ghxbench.sandbox.state import Issue

__all__: list[str] = []


def _child(ctx: Ctx, parent: Issue, key: str) -> Issue | None:
    value = ctx.body.get(key)
    if value is None:
        return None
    found = next(
        (i for i in ctx.world.sub_issues(parent.number) if issue_id(i.number) == value), None
    )
    if found is None:
        raise RestError(
            422, "Validation Failed", [{"resource": "Issue", "code": "invalid", "field": key}]
        )
    return found


@route("PATCH", "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues/priority")
def _reprioritize(ctx: Ctx) -> Any:
    world = ctx.world
    parent = or_not_found(world.issue(ctx.number("issue_number")))
    if ctx.body.get("sub_issue_id") is None:
        raise missing_field("Issue", "sub_issue_id")
    moved = _child(ctx, parent, "sub_issue_id")
    after, before = _child(ctx, parent, "after_id"), _child(ctx, parent, "before_id")
    if (after is None) == (before is None):
        message = "Exactly one of after_id or before_id must be given"
        invalid = {"resource": "Issue", "code": "invalid", "message": message}
        raise RestError(422, "Validation Failed", [invalid])
    anchor = after or before
    assert moved is not None and anchor is not None
    if anchor is not moved:
        world.issues.remove(moved)
        position = world.issues.index(anchor) + (1 if after is not None else 0)
        world.issues.insert(position, moved)
        parent.updated_at = world.tick()
        ctx.mutated = True
    return issue_json(ctx.links, parent)
