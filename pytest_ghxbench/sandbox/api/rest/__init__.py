"""GitHub's REST API over a sandbox world (:func:`handle`)."""

from __future__ import annotations

from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiResponse
from pytest_ghxbench.sandbox.state import World

__all__ = ["handle"]


def handle(world: World, request: ApiRequest) -> ApiResponse:
    """The response to one REST request on ``world`` (which it may change)."""
    from pytest_ghxbench.sandbox.dialects.gh_context import GhContext
    from pytest_ghxbench.sandbox.dialects.gh_rest import RawText, RestError, RestRequest, dispatch

    try:
        body = request.json_body() if request.method not in ("GET", "HEAD") else None
    except ValueError:
        return ApiResponse.error(400, "Problems parsing JSON")
    params = {key: values[-1] for key, values in request.query.items()}
    rest = RestRequest(
        ctx=GhContext(world),
        method=request.method,
        groups=(),
        params=params,
        body=body if isinstance(body, dict) else {},
        headers=dict(request.headers),
    )
    try:
        value = dispatch(request.path.lstrip("/"), rest)
    except RestError as error:
        extra = {"errors": error.errors} if error.errors else {}
        return ApiResponse.error(error.status, error.message, **extra)
    if isinstance(value, RawText):
        return ApiResponse(200, value.text.encode(), {"Content-Type": "text/plain; charset=utf-8"})
    status = 201 if request.method == "POST" else 200
    return ApiResponse.json(value, status)
