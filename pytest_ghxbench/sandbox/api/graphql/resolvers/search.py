"""GraphQL ``search``: issues and pull requests (type ``ISSUE``, :mod:`...search`), the world's
repository (``REPOSITORY``, :mod:`...search_repos`) and its users and organizations (``USER``,
:mod:`...search_users`), with the same qualifiers as the REST search routes. Each count of the
connection counts its own kind (``issueCount`` for ``ISSUE``...), the others are 0. The world
has no discussions: type ``DISCUSSION`` finds nothing and is recorded as a gap."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import (
    Page,
    Typed,
    abstract,
    connection,
    obj,
)
from pytest_ghxbench.sandbox.api.graphql.resolvers.types import actor
from pytest_ghxbench.sandbox.api.search import matches
from pytest_ghxbench.sandbox.api.search_repos import repository_matches
from pytest_ghxbench.sandbox.api.search_users import found_users
from pytest_ghxbench.sandbox.gaps import record_unsupported
from pytest_ghxbench.sandbox.state import Issue, PullRequest, World

__all__: list[str] = []


def _found(world: World, args: dict[str, Any]) -> list[Typed]:
    kind, query = args.get("type"), str(args.get("query") or "")
    if kind == "REPOSITORY":
        return [Typed("Repository", world)] if repository_matches(world, query) else []
    if kind == "USER":
        return [t for t in (actor(world, login) for login in found_users(world, query)) if t]
    if kind != "ISSUE":
        record_unsupported(f"GraphQL search of type {kind}")
        return []
    items: list[Issue | PullRequest] = sorted(
        [*world.issues, *world.pull_requests], key=lambda i: i.created_at, reverse=True
    )
    return [
        Typed("PullRequest" if isinstance(i, PullRequest) else "Issue", i)
        for i in items
        if matches(world, i, query)
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
