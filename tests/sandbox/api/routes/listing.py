"""Routes for the router's tests: real operations of GitHub's description, served by handlers
that evaluate only some of their parameters (or fail), so each test can say what it expects."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.router import Ctx, paged, route


@route("GET", "/repos/{owner}/{repo}/issues")
def _issues_by_state(ctx: Ctx) -> Any:
    state = ctx.param("state") or "open"
    return paged(ctx, [i.number for i in ctx.world.issues if i.state.lower() == state])


@route("GET", "/repos/{owner}/{repo}/issues/{issue_number}")
def _one_issue(ctx: Ctx) -> Any:
    return {"number": ctx.number("issue_number")}


@route("GET", "/repos/{owner}/{repo}/issues/events")
def _events(ctx: Ctx) -> Any:
    return "events"


@route("PATCH", "/repos/{owner}/{repo}/issues/{issue_number}")
def _edit_title_only(ctx: Ctx) -> Any:
    return {"title": ctx.body.get("title")}


@route("GET", "/repos/{owner}/{repo}/labels")
def _broken(ctx: Ctx) -> Any:
    return {}["labels"]
