"""``GET /search/issues``: issues and pull requests by GitHub's search qualifiers (see
:mod:`pytest_ghxbench.sandbox.api.search` for the syntax), ordered by ``sort:``
(``created-desc``...) or the ``sort``/``order`` parameters.

``GET /search/repositories``: the world's repository, by ``repo:``, ``user:``/``org:`` and
words of its name or description.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.issues import sort_items
from pytest_ghxbench.sandbox.api.rest.links import Links
from pytest_ghxbench.sandbox.api.rest.render_core import full_repository
from pytest_ghxbench.sandbox.api.rest.render_issues import issue_json
from pytest_ghxbench.sandbox.api.rest.router import Ctx, RestError, paged, route
from pytest_ghxbench.sandbox.api.search import Item, matches, parse_query

__all__: list[str] = []


def _order(ctx: Ctx, query: str) -> tuple[str | None, str]:
    qualifiers, _ = parse_query(query)
    sort = next((v for neg, n, v in qualifiers if n == "sort" and not neg), None)
    if sort:
        key, _, direction = sort.partition("-")
        return key, direction or "desc"
    return ctx.param("sort"), ctx.param("order") or "desc"


@route("GET", "/search/issues")
def _search_issues(ctx: Ctx) -> Any:
    query = (ctx.param("q") or "").strip()
    if not query:
        raise RestError(
            422, "Validation Failed", [{"resource": "Search", "field": "q", "code": "missing"}]
        )
    world = ctx.world
    items: list[Item] = [*world.issues, *world.pull_requests]
    found = [i for i in items if matches(world, i, query)]
    sort, direction = _order(ctx, query)
    if sort in ("created", "updated", "comments"):
        sort_items(found, sort, direction)
    else:
        found.sort(key=lambda i: i.number, reverse=True)
    links = Links(world, ctx.urls)
    page = paged(ctx, found)
    return {
        "total_count": len(found),
        "incomplete_results": False,
        "search_type": "lexical",
        "items": [{**issue_json(links, i), "score": 1.0} for i in page],
    }


@route("GET", "/search/repositories")
def _search_repositories(ctx: Ctx) -> Any:
    """The world's one repository when every qualifier (``repo:``, ``user:``/``org:``) holds
    and every free word is in its name or description; unknown qualifiers match nothing."""
    query = (ctx.param("q") or "").strip()
    if not query:
        raise RestError(
            422, "Validation Failed", [{"resource": "Search", "field": "q", "code": "missing"}]
        )
    repo = ctx.world.repository
    qualifiers, words = parse_query(query)
    wanted = {"repo": repo.full_name, "user": repo.owner, "org": repo.owner}
    text = f"{repo.full_name} {repo.description}".casefold()
    found = all(
        (name in wanted and value.casefold() == wanted[name].casefold()) != negated
        for negated, name, value in qualifiers
    ) and all(word.casefold() in text for word in words)
    items = [{**full_repository(ctx.links), "score": 1.0}] if found else []
    return {"total_count": len(items), "incomplete_results": False, "items": items}
