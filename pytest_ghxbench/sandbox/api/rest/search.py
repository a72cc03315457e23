"""``GET /search/issues``: issues and pull requests by GitHub's search qualifiers.

Supported: ``repo:``/``user:``/``org:``, ``is:``/``type:`` (issue, pr, open, closed, merged,
unmerged, draft), ``state:``, ``label:`` (quoted, repeated = all of them, ``a,b`` = any),
``-label:`` and any negated qualifier, ``author:``, ``assignee:``, ``mentions:``,
``involves:``, ``commenter:``, ``no:`` (assignee, label, milestone), ``milestone:``,
``in:`` (title, body, comments), ``created:``/``updated:``/``closed:``/``comments:`` ranges
(``>=2026-01-01``, ``<5``, ``a..b``), ``sort:`` (``created-desc``...), and free words (in the
title or body unless ``in:`` says otherwise). Unknown qualifiers match nothing, as on GitHub.

``GET /search/repositories``: the world's repository, by ``repo:``, ``user:``/``org:`` and
words of its name or description.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pytest_ghxbench.sandbox.api.rest.issues import sort_items
from pytest_ghxbench.sandbox.api.rest.links import Links
from pytest_ghxbench.sandbox.api.rest.render_core import full_repository
from pytest_ghxbench.sandbox.api.rest.render_issues import issue_json
from pytest_ghxbench.sandbox.api.rest.router import Ctx, RestError, paged, route
from pytest_ghxbench.sandbox.state import Issue, PullRequest, World

__all__ = ["matches", "parse_query"]

Item = Issue | PullRequest
_TOKEN = re.compile(r'(-?)([\w-]+):("[^"]*"|\S+)|"([^"]*)"|(\S+)')


def parse_query(text: str) -> tuple[list[tuple[bool, str, str]], list[str]]:
    """``([(negated, qualifier, value)], [free words])`` of a search query."""
    qualifiers: list[tuple[bool, str, str]] = []
    words: list[str] = []
    for match in _TOKEN.finditer(text):
        negated, name, value, phrase, word = match.groups()
        if name:
            qualifiers.append((bool(negated), name.lower(), value.strip('"')))
        elif phrase is not None:
            words.append(phrase)
        elif word.strip("()") and word.upper() not in ("AND", "OR", "NOT"):
            words.append(word.strip("()"))
    return qualifiers, words


def _compare(expression: str, actual: str | int) -> bool:
    """Whether ``actual`` satisfies ``>=x``, ``<x``, ``a..b``, ``a..*`` or ``x``; dates compare
    as text (``2026-02-01`` < ``2026-02-01T10:00:00Z`` < ``2026-02-02``)."""

    def cast(value: str) -> str | int:
        return int(value) if isinstance(actual, int) else value

    if ".." in expression:
        low, high = expression.split("..", 1)
        return (low == "*" or actual >= cast(low)) and (  # type: ignore[operator]
            high == "*" or _at_most(actual, cast(high))
        )
    for op in (">=", "<=", ">", "<"):
        if expression.startswith(op):
            bound = cast(expression[len(op) :])
            if op == ">=":
                return actual >= bound  # type: ignore[operator]
            if op == "<=":
                return _at_most(actual, bound)
            if op == ">":
                return actual > bound and not _same_day(actual, bound)  # type: ignore[operator]
            return actual < bound  # type: ignore[operator]
    bound = cast(expression)
    return actual == bound or _same_day(actual, bound)


def _same_day(actual: str | int, bound: str | int) -> bool:
    return isinstance(actual, str) and isinstance(bound, str) and actual.startswith(bound)


def _at_most(actual: str | int, bound: str | int) -> bool:
    return actual <= bound or _same_day(actual, bound)  # type: ignore[operator]


def _mentions(item: Item, login: str) -> bool:
    texts = [item.body, *(c.body for c in item.comments)]
    return any(re.search(rf"@{re.escape(login)}\b", t, re.IGNORECASE) for t in texts)


def _labels(item: Item) -> set[str]:
    return {n.casefold() for n in item.labels}


def _is(world: World, item: Item, value: str) -> bool:
    pull = isinstance(item, PullRequest)
    checks: dict[str, Callable[[], bool]] = {
        "issue": lambda: not pull,
        "pr": lambda: pull,
        "pull-request": lambda: pull,
        "open": lambda: item.state == "OPEN",
        "closed": lambda: item.state != "OPEN",
        "merged": lambda: item.state == "MERGED",
        "unmerged": lambda: pull and item.state == "CLOSED",
        "draft": lambda: isinstance(item, PullRequest) and item.is_draft,
        "locked": lambda: bool(getattr(item, "locked", False)),
        "unlocked": lambda: not getattr(item, "locked", False),
    }
    check = checks.get(value.lower())
    return check() if check is not None else False


def _qualifier(world: World, item: Item, name: str, value: str, fields: set[str]) -> bool:
    folded = value.casefold()
    repo = world.repository
    milestone = world.milestone(item.milestone) if item.milestone else None
    if name == "repo":
        return folded == repo.full_name.casefold()
    if name in ("user", "org", "owner"):
        return folded == repo.owner.casefold()
    if name in ("is", "type"):
        return _is(world, item, value)
    if name == "state":
        return _is(world, item, value)
    if name == "label":
        return any(option.strip().casefold() in _labels(item) for option in value.split(","))
    if name == "author":
        return folded == item.author.casefold()
    if name == "assignee":
        return folded in {a.casefold() for a in item.assignees}
    if name == "mentions":
        return _mentions(item, value)
    if name == "commenter":
        return folded in {c.author.casefold() for c in item.comments}
    if name == "involves":
        people = {item.author, *item.assignees, *(c.author for c in item.comments)}
        return folded in {p.casefold() for p in people} or _mentions(item, value)
    if name == "no":
        empty = {
            "assignee": not item.assignees,
            "label": not item.labels,
            "milestone": item.milestone is None,
        }
        return empty.get(folded, False)
    if name == "milestone":
        return milestone is not None and milestone.title.casefold() == folded
    if name == "in":
        fields.update(part.strip().lower() for part in value.split(","))
        return True
    if name in ("created", "updated", "closed"):
        stamp = getattr(item, f"{name}_at")
        return stamp is not None and _compare(value, stamp)
    if name == "comments":
        return _compare(value, len(item.comments))
    return name in ("sort", "archived")


def matches(world: World, item: Item, query: str) -> bool:
    qualifiers, words = parse_query(query)
    fields: set[str] = set()
    for negated, name, value in qualifiers:
        if _qualifier(world, item, name, value, fields) == negated:
            return False
    texts = []
    for field in fields or {"title", "body"}:
        if field == "comments":
            texts += [c.body for c in item.comments]
        elif field in ("title", "body"):
            texts.append(str(getattr(item, field)))
    haystack = "\n".join(texts).casefold()
    return all(word.casefold() in haystack for word in words)


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
