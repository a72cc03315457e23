"""GitHub's REST API over a sandbox world (:func:`handle`), shaped as GitHub's published
OpenAPI description: the routes are in the modules of this package, one per concept."""

from __future__ import annotations

from pytest_ghxbench.sandbox.api.rest.router import RestError, RestRouter, dispatch, respond
from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiResponse
from pytest_ghxbench.sandbox.operations.run_progress import advance
from pytest_ghxbench.sandbox.state import World

__all__ = ["RestRouter", "handle"]


def handle(router: RestRouter, world: World, request: ApiRequest) -> ApiResponse:
    """The response to one REST request on ``world`` (which it may change), as of the
    world's clock (workflow runs in flight move on first)."""
    advance(world)
    try:
        ctx, value, status = dispatch(router, world, request)
    except RestError as error:
        extra = {"errors": error.errors} if error.errors else {}
        return ApiResponse.error(error.status, error.message, **extra)
    return respond(ctx, value, status)
