"""GitHub's GraphQL API over a sandbox world (:func:`execute`)."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiResponse
from pytest_ghxbench.sandbox.state import World

__all__ = ["execute"]


def execute(world: World, request: ApiRequest) -> ApiResponse:
    """The response to one ``POST /graphql`` on ``world`` (mutations change it)."""
    from pytest_ghxbench.sandbox.dialects.gh_context import GhContext
    from pytest_ghxbench.sandbox.dialects.gh_graphql import execute as run

    try:
        document = request.json_body()
    except ValueError:
        return ApiResponse.error(400, "Problems parsing JSON")
    if not isinstance(document, Mapping) or not isinstance(document.get("query"), str):
        return ApiResponse.error(400, "A query attribute must be specified and must be a string.")
    variables = document.get("variables") or {}
    operation = document.get("operationName")
    return ApiResponse.json(run(GhContext(world), document["query"], variables, operation))
