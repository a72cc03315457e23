"""REST routes for GitHub Actions caches. The seed has no caches, and the sandbox's runs save
none, so the repository has none: the lists are empty and a delete finds nothing, as GitHub
answers for a repository whose workflows never used ``actions/cache``."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.router import Ctx, RestError, route

__all__: list[str] = []

_CACHES = "/repos/{owner}/{repo}/actions/caches"


@route("GET", _CACHES)
def _list(ctx: Ctx) -> Any:
    return {"total_count": 0, "actions_caches": []}


@route("DELETE", _CACHES, status=200)
def _delete_by_key(ctx: Ctx) -> Any:
    if not ctx.param("key"):
        raise RestError(422, "Invalid request.\n\nNo key provided.")
    raise RestError(404, "Not Found")


@route("DELETE", _CACHES + "/{cache_id}", status=204)
def _delete_by_id(ctx: Ctx) -> Any:
    raise RestError(404, "Not Found")


@route("GET", "/repos/{owner}/{repo}/actions/cache/usage")
def _usage(ctx: Ctx) -> Any:
    return {
        "full_name": ctx.world.repository.full_name,
        "active_caches_size_in_bytes": 0,
        "active_caches_count": 0,
    }
