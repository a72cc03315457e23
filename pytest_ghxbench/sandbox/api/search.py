"""GitHub's search syntax for issues and pull requests, shared by REST's ``GET /search/issues``
and GraphQL's ``search``; its parser and ranges also serve code and commit search
(:mod:`.search_git`).

Supported: ``repo:``/``user:``/``org:``, ``is:``/``type:`` (issue, pr, open, closed, merged,
unmerged, draft), ``state:``, ``label:`` (quoted, repeated = all of them, ``a,b`` = any),
``-label:`` and any negated qualifier, ``author:``, ``assignee:``, ``mentions:``,
``involves:``, ``commenter:``, ``no:`` (assignee, label, milestone), ``milestone:``,
``head:``, ``base:``, ``review-requested:``, ``reviewed-by:``, ``in:`` (title, body,
comments), ``created:``/``updated:``/``closed:``/``comments:`` ranges (``>=2026-01-01``,
``<5``, ``a..b``), ``sort:`` (matches everything; the caller orders), and free words (in the
title or body unless ``in:`` says otherwise). ``@me`` stands for the viewer. Unknown
qualifiers match nothing, as on GitHub; GitHub's own that the sandbox does not evaluate
(:data:`UNEVALUATED`) match nothing too, and are recorded as ``unsupported`` gaps.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pytest_ghxbench.sandbox.gaps import record_unsupported
from pytest_ghxbench.sandbox.state import Issue, PullRequest, World

__all__ = ["UNEVALUATED", "Item", "in_range", "matches", "parse_query"]

UNEVALUATED = frozenset(
    {
        "draft", "interactions", "language", "linked", "merged", "parent-issue", "project",
        "reactions", "reason", "review", "status", "sub-issue", "team", "team-review-requested",
        "user-review-requested",
    }
)  # fmt: skip
"""Qualifiers of GitHub's issue and pull request search that the sandbox does not evaluate."""
_UNEVALUATED_IS = frozenset({"public", "private", "archived", "queued", "blocked", "blocking"})

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


def in_range(expression: str, actual: str | int) -> bool:
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
    if check is None and value.lower() in _UNEVALUATED_IS:
        record_unsupported(f"search qualifier is:{value.lower()}")
    return check() if check is not None else False


def _pull_qualifier(pull: PullRequest, name: str, login: str, value: str) -> bool:
    if name == "head":
        return pull.head_ref == value
    if name == "base":
        return pull.base_ref == value
    if name == "review-requested":
        return login in {r.casefold() for r in pull.requested_reviewers}
    return login in {r.author.casefold() for r in pull.reviews}


def _qualifier(world: World, item: Item, name: str, value: str, fields: set[str]) -> bool:
    if value == "@me":
        value = world.viewer
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
        return stamp is not None and in_range(value, stamp)
    if name == "comments":
        return in_range(value, len(item.comments))
    if name in ("head", "base", "review-requested", "reviewed-by"):
        return isinstance(item, PullRequest) and _pull_qualifier(item, name, folded, value)
    if name in UNEVALUATED:
        record_unsupported(f"search qualifier {name}:")
    return name in ("sort", "archived")


def matches(world: World, item: Item, query: str) -> bool:
    """Whether ``item`` is found by the search ``query``."""
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
