"""``GET /search/issues``: issues and pull requests by GitHub's search qualifiers (see
:mod:`pytest_ghxbench.sandbox.api.search` for the syntax), ordered by ``sort:``
(``created-desc``...) or the ``sort``/``order`` parameters.

``GET /search/repositories``: the world's repository, by GitHub's repository qualifiers
(:mod:`pytest_ghxbench.sandbox.api.search_repos`). ``GET /search/users``: its users and
organizations (:mod:`pytest_ghxbench.sandbox.api.search_users`), paged like the others.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.issues import sort_items
from pytest_ghxbench.sandbox.api.rest.links import Links
from pytest_ghxbench.sandbox.api.rest.render_core import full_repository, user_json
from pytest_ghxbench.sandbox.api.rest.render_issues import issue_json
from pytest_ghxbench.sandbox.api.rest.router import Ctx, RestError, paged, route
from pytest_ghxbench.sandbox.api.search import Item, matches, parse_query
from pytest_ghxbench.sandbox.api.search_repos import repository_matches
from pytest_ghxbench.sandbox.api.search_users import found_users

__all__: list[str] = []


def _query(ctx: Ctx) -> str:
    query = (ctx.param("q") or "").strip()
    if not query:
        raise RestError(
            422, "Validation Failed", [{"resource": "Search", "field": "q", "code": "missing"}]
        )
    return query


def _order(ctx: Ctx, query: str) -> tuple[str | None, str]:
    qualifiers, _ = parse_query(query)
    sort = next((v for neg, n, v in qualifiers if n == "sort" and not neg), None)
    if sort:
        key, _, direction = sort.partition("-")
        return key, direction or "desc"
    return ctx.param("sort"), ctx.param("order") or "desc"


@route("GET", "/search/issues")
def _search_issues(ctx: Ctx) -> Any:
    query = _query(ctx)
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
    """The world's one repository when the query finds it (:mod:`..search_repos`)."""
    found = repository_matches(ctx.world, _query(ctx))
    items = [{**full_repository(ctx.links), "score": 1.0}] if found else []
    return {"total_count": len(items), "incomplete_results": False, "items": paged(ctx, items)}


@route("GET", "/search/users")
def _search_users(ctx: Ctx) -> Any:
    """The world's users and organizations the query finds (:mod:`..search_users`)."""
    query = _query(ctx)
    sort, order = ctx.param("sort"), ctx.param("order") or "desc"
    logins = found_users(ctx.world, query, sort, order)
    links = ctx.links
    items = [{**(user_json(links, login) or {}), "score": 1.0} for login in paged(ctx, logins)]
    return {"total_count": len(logins), "incomplete_results": False, "items": items}
