"""REST routes for the reactions to issues (and pull requests, seen as issues): listing them,
adding one and deleting one."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.render_issues import reaction_json
from pytest_ghxbench.sandbox.api.rest.router import (
    Ctx,
    call,
    missing_field,
    or_not_found,
    paged,
    route,
)
from pytest_ghxbench.sandbox.api.types import ApiResponse
from pytest_ghxbench.sandbox.state import Issue, PullRequest

__all__: list[str] = []

_REACTIONS = "/repos/{owner}/{repo}/issues/{issue_number}/reactions"


def _item(ctx: Ctx) -> Issue | PullRequest:
    number = ctx.number("issue_number")
    issue = ctx.world.issue(number)
    return issue if issue is not None else or_not_found(ctx.world.pull_request(number))


@route("GET", _REACTIONS)
def _list(ctx: Ctx) -> Any:
    item = _item(ctx)
    content = ctx.param("content")
    chosen = [r for r in item.reactions if content in (None, r.content)]
    links = ctx.links
    return [reaction_json(links, r) for r in paged(ctx, chosen)]


@route("POST", _REACTIONS)
def _add(ctx: Ctx) -> Any:
    item = _item(ctx)
    content = ctx.body.get("content")
    if not content:
        raise missing_field("Reaction", "content")
    added = call(ctx, "addReaction", {"subjectId": item.node_id, "content": str(content)})
    reaction = next(r for r in item.reactions if r.id == added["id"])
    if added["created"]:
        return reaction_json(ctx.links, reaction)
    # the viewer had already reacted so: GitHub answers that reaction, 200
    return ApiResponse.json(reaction_json(ctx.links, reaction), 200)


@route("DELETE", _REACTIONS + "/{reaction_id}", status=204)
def _delete(ctx: Ctx) -> Any:
    item = _item(ctx)
    payload = {"subjectId": item.node_id, "reactionId": ctx.number("reaction_id")}
    call(ctx, "reactions/delete-for-issue", payload)
    return None
