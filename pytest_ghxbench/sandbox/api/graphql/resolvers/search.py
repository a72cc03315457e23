"""GraphQL ``search``: issues and pull requests (type ``ISSUE``, :mod:`...search`), the world's
repository (``REPOSITORY``, :mod:`...search_repos`) and its users and organizations (``USER``,
:mod:`...search_users`), with the same qualifiers and orders (``sort:``; best match without
one) as the REST search routes. Each count of the connection counts its own kind
(``issueCount`` for ``ISSUE``...), the others are 0. A query GitHub refuses (a ``repo:`` that
does not exist, too long...) is an error with GitHub's words and no data. The world has no
discussions: type ``DISCUSSION`` finds nothing and is recorded as a gap."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import (
    GraphQLError,
    Page,
    Typed,
    abstract,
    connection,
    obj,
)
from pytest_ghxbench.sandbox.api.graphql.resolvers.types import actor
from pytest_ghxbench.sandbox.api.search import found_items
from pytest_ghxbench.sandbox.api.search_repos import repository_found
from pytest_ghxbench.sandbox.api.search_syntax import SearchRefused
from pytest_ghxbench.sandbox.api.search_users import found_users
from pytest_ghxbench.sandbox.gaps import record_unsupported
from pytest_ghxbench.sandbox.state import PullRequest, World

__all__: list[str] = []


def _found(world: World, args: dict[str, Any]) -> list[Typed]:
    try:
        return _kind(world, args.get("type"), str(args.get("query") or ""))
    except SearchRefused as refused:
        raise GraphQLError(refused.message) from None


def _kind(world: World, kind: Any, query: str) -> list[Typed]:
    if kind == "REPOSITORY":
        return [Typed("Repository", world)] if repository_found(world, query) else []
    if kind == "USER":
        return [t for t in (actor(world, login) for login in found_users(world, query)) if t]
    if kind != "ISSUE":
        # gap: the world has no discussions, so a discussion search finds none
        record_unsupported(f"GraphQL search of type {kind}")
        return []
    return [
        Typed("PullRequest" if isinstance(i, PullRequest) else "Issue", i)
        for i in found_items(world, query)
    ]


@dataclass
class _SearchPage(Page):
    kind: str = "ISSUE"


abstract("SearchResultItem", ("Issue", "PullRequest", "Repository", "User", "Organization"))
_NAME, _page = connection("SearchResultItem", lambda w, a, c: _found(w, a))


def _search(world: World, args: dict[str, Any], ctx: Any) -> _SearchPage:
    return _SearchPage(**vars(_page(world, args, ctx)), kind=str(args.get("type")))


def _count(kind: str) -> tuple[str, Any]:
    return ("Int", lambda page, a, c: page.total if page.kind == kind else 0)


_results = obj(
    "SearchResultItemConnection",
    issueCount=_count("ISSUE"),
    repositoryCount=_count("REPOSITORY"),
    userCount=_count("USER"),
    discussionCount=("Int", lambda page, a, c: 0),
)
# search results count by kind instead; pop, since the module may run again over the same
# registry (pytester's in-process runs drop the modules they first imported)
_results.fields.pop("totalCount", None)
obj("Query", search=(_NAME, _search))
