"""A route module that claims an operation GitHub's description does not have."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.router import Ctx, route


@route("GET", "/repos/{owner}/{repo}/rainbows")
def _rainbows(ctx: Ctx) -> Any:
    return []
