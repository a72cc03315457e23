"""``GET /search/issues``: issues and pull requests by GitHub's search qualifiers (see
:mod:`pytest_ghxbench.sandbox.api.search` for the syntax and the orders), ordered by ``sort:``
or the ``sort``/``order`` parameters, else best match.

``GET /search/repositories``: the world's repository, by GitHub's repository qualifiers
(:mod:`pytest_ghxbench.sandbox.api.search_repos`). ``GET /search/users``: its users and
organizations (:mod:`pytest_ghxbench.sandbox.api.search_users`), paged like the others.

A query GitHub refuses (none given, too long, too many operators, a ``repo:`` that does not
exist...) is answered with GitHub's 422 (:func:`searching`). The ``search_type`` parameter
(semantic or hybrid issue search) is not evaluated: the router records it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_ghxbench.sandbox.api.rest.render_core import full_repository, user_json
from pytest_ghxbench.sandbox.api.rest.render_issues import issue_json
from pytest_ghxbench.sandbox.api.rest.router import Ctx, paged, route
from pytest_ghxbench.sandbox.api.search import found_items
from pytest_ghxbench.sandbox.api.search_repos import repository_found
from pytest_ghxbench.sandbox.api.search_syntax import SearchRefused
from pytest_ghxbench.sandbox.api.search_users import found_users
from pytest_ghxbench.sandbox.api.types import ApiResponse

__all__ = ["searching"]

DOCS = "https://docs.github.com/v3/search/"
"""Where GitHub's refusals of a search point."""


def _refused(ctx: Ctx, error: dict[str, str]) -> ApiResponse:
    # a refusal answers the same whatever the other parameters say: none is left unevaluated
    for name in ctx.request.query:
        ctx.param(name)
    return ApiResponse.error(422, "Validation Failed", errors=[error], documentation_url=DOCS)


def searching(ctx: Ctx, answer: Callable[[str], Any]) -> Any:
    """``answer`` to the request's ``q``, or GitHub's 422 for a query it refuses."""
    query = (ctx.param("q") or "").strip()
    if not query:
        return _refused(ctx, {"resource": "Search", "field": "q", "code": "missing"})
    try:
        return answer(query)
    except SearchRefused as refused:
        error = {"message": refused.message, "resource": "Search", "field": "q"}
        return _refused(ctx, {**error, "code": "invalid"})


@route("GET", "/search/issues")
def _search_issues(ctx: Ctx) -> Any:
    def answer(query: str) -> Any:
        ctx.param("advanced_search")  # GitHub has one issue search syntax now, the advanced
        found = found_items(ctx.world, query, ctx.param("sort"), ctx.param("order"))
        links = ctx.links
        return {
            "total_count": len(found),
            "incomplete_results": False,
            "search_type": "lexical",
            "items": [{**issue_json(links, i), "score": 1.0} for i in paged(ctx, found)],
        }

    return searching(ctx, answer)


@route("GET", "/search/repositories")
def _search_repositories(ctx: Ctx) -> Any:
    """The world's one repository when the query finds it (:mod:`..search_repos`)."""

    def answer(query: str) -> Any:
        found = repository_found(ctx.world, query)
        ctx.param("sort"), ctx.param("order")  # one repository is in every order
        items = [{**full_repository(ctx.links), "score": 1.0}] if found else []
        return {"total_count": len(items), "incomplete_results": False, "items": paged(ctx, items)}

    return searching(ctx, answer)


@route("GET", "/search/users")
def _search_users(ctx: Ctx) -> Any:
    """The world's users and organizations the query finds (:mod:`..search_users`)."""

    def answer(query: str) -> Any:
        logins = found_users(ctx.world, query, ctx.param("sort"), ctx.param("order"))
        links = ctx.links
        items = [{**(user_json(links, name) or {}), "score": 1.0} for name in paged(ctx, logins)]
        return {"total_count": len(logins), "incomplete_results": False, "items": items}

    return searching(ctx, answer)
