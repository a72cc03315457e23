"""REST routes for check runs: a commit's check runs, one check run, its annotations."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.links import Links
from pytest_ghxbench.sandbox.api.rest.render_actions import annotation_json, check_run_json
from pytest_ghxbench.sandbox.api.rest.repo import resolve_ref
from pytest_ghxbench.sandbox.api.rest.router import Ctx, or_not_found, paged, route
from pytest_ghxbench.sandbox.operations.actions import latest_checks
from pytest_ghxbench.sandbox.state import CheckRun

__all__: list[str] = []


def _check(ctx: Ctx) -> CheckRun:
    return or_not_found(ctx.world.check_run(ctx.number("check_run_id")))


@route("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs")
def _commit_checks(ctx: Ctx) -> Any:
    world = ctx.world
    sha = resolve_ref(ctx, ctx.args["ref"])
    if ctx.param("filter") == "all":
        checks = [c for c in world.check_runs if c.head_sha == sha]
    else:
        checks = latest_checks(world, sha)
    name, status = ctx.param("check_name"), ctx.param("status")
    chosen = [c for c in checks if name in (None, c.name) and status in (None, c.status)]
    links = Links(world, ctx.urls)
    return {
        "total_count": len(chosen),
        "check_runs": [check_run_json(links, c) for c in paged(ctx, chosen)],
    }


@route("GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}")
def _check_run(ctx: Ctx) -> Any:
    return check_run_json(Links(ctx.world, ctx.urls), _check(ctx))


@route("GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations")
def _annotations(ctx: Ctx) -> Any:
    check = _check(ctx)
    links = Links(ctx.world, ctx.urls)
    return [annotation_json(links, check, n) for n in paged(ctx, list(check.annotations))]
