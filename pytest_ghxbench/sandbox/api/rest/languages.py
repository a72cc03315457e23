"""``GET /languages``: bytes of code per language in the default branch's tree, as linguist
counts them (:mod:`~pytest_ghxbench.sandbox.api.linguist`), most first."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.linguist import language_bytes
from pytest_ghxbench.sandbox.api.rest.router import Ctx, route

__all__: list[str] = []


@route("GET", "/repos/{owner}/{repo}/languages")
def _languages(ctx: Ctx) -> Any:
    return language_bytes(ctx.world.git)
