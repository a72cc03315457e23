"""``GET /languages``: bytes of code per language in the default branch's tree, as linguist
counts them (:mod:`~pytest_ghxbench.sandbox.api.linguist`), most first."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.linguist import counted_language
from pytest_ghxbench.sandbox.api.rest.router import Ctx, route

__all__: list[str] = []


@route("GET", "/repos/{owner}/{repo}/languages")
def _languages(ctx: Ctx) -> Any:
    git = ctx.world.git
    head = git.resolve(git.default_branch)
    entries = (git.tree(head, recursive=True) if head else None) or []
    totals: dict[str, int] = {}
    for entry in entries:
        if entry.type != "blob" or entry.mode == "120000":
            continue
        language = counted_language(entry.path)
        if language is not None:
            totals[language] = totals.get(language, 0) + (entry.size or 0)
    return dict(sorted(totals.items(), key=lambda item: (-item[1], item[0])))
