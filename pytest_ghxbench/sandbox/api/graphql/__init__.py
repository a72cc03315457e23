"""GitHub's GraphQL API over a sandbox world (:func:`execute`): graphql-core on a schema
generated from GitHub's published one (``schema.graphql``), with the sandbox's resolvers."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiResponse
from pytest_ghxbench.sandbox.state import World

__all__ = ["execute"]


def execute(world: World, request: ApiRequest) -> ApiResponse:
    """The response to one ``POST /graphql`` on ``world`` (mutations change it)."""
    from pytest_ghxbench.sandbox.api.graphql.executor import run_query
    from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
    from pytest_ghxbench.sandbox.operations.run_progress import advance

    advance(world)

    try:
        document = request.json_body()
    except ValueError:
        return ApiResponse.error(400, "Problems parsing JSON")
    if not isinstance(document, Mapping) or not isinstance(document.get("query"), str):
        return ApiResponse.error(400, "A query attribute must be specified and must be a string.")
    variables = document.get("variables")
    if variables is not None and not isinstance(variables, Mapping):
        return ApiResponse.error(400, "Variables must be a JSON object.")
    operation = document.get("operationName")
    ctx = Context(world, web=request.urls.web)
    name = operation if isinstance(operation, str) else None
    return ApiResponse.json(run_query(ctx, document["query"], variables, name))
