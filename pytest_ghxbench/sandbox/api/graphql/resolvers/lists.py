"""The lists of ``Repository.issues`` and ``Repository.pullRequests`` (and of a ref's pull
requests): GitHub's filters and orders.

- ``states``; ``labels``, which an item matches by having any of them (GitHub's GraphQL lists
  OR their labels, unlike REST and search);
- ``filterBy`` (``IssueFilters``): ``assignee`` (a login, ``*`` for any, ``none`` for
  nobody), ``createdBy``, ``mentioned`` (``@login`` in the body or a comment), ``milestone``
  (the milestone's database id, as REST gives it, ``*`` or ``none``), ``milestoneNumber``
  (a number, ``*`` or ``none``), ``labels``, ``states``, ``since`` (updated at or after) and
  ``viewerSubscribed`` (issues the viewer watches the repository for, or takes part in:
  author, assignee, commenter, mentioned);
- ``headRefName`` and ``baseRefName`` of pull requests;
- ``orderBy`` ``{field: CREATED_AT | UPDATED_AT | COMMENTS, direction}``; without it, oldest
  first. Ties go by number, in the same direction.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

from pytest_ghxbench.sandbox.state import Issue, PullRequest, World

__all__ = ["MILESTONE_IDS", "ordered", "repo_issues", "repo_pulls"]

A = Mapping[str, Any]
Item = Issue | PullRequest
MILESTONE_IDS = 9_000_000
"""A milestone's database id is this plus its number (the ``id`` the REST API gives it)."""
_KEYS = {"CREATED_AT": "created_at", "UPDATED_AT": "updated_at"}


def repo_issues(world: World, args: A) -> list[Issue]:
    chosen = _listed(world.issues, args.get("states"), args.get("labels"))
    filters = args.get("filterBy")
    if filters:
        tests = _tests(world, filters)
        chosen = [i for i in chosen if all(test(i) for test in tests)]
    return ordered(chosen, args.get("orderBy"))


def repo_pulls(world: World, args: A) -> list[PullRequest]:
    chosen = _listed(world.pull_requests, args.get("states"), args.get("labels"))
    head, base = args.get("headRefName"), args.get("baseRefName")
    chosen = [p for p in chosen if head in (None, p.head_ref) and base in (None, p.base_ref)]
    return ordered(chosen, args.get("orderBy"))


def ordered(items: list[Any], order: A | None) -> list[Any]:
    """``items`` in ``IssueOrder`` (oldest first without one)."""
    order = order or {}
    field = str(order.get("field") or "CREATED_AT")
    descending = str(order.get("direction") or "ASC") == "DESC"
    if field == "COMMENTS":
        return sorted(items, key=lambda i: (len(i.comments), i.number), reverse=descending)
    key = _KEYS.get(field, "created_at")
    return sorted(items, key=lambda i: (getattr(i, key), i.number), reverse=descending)


def _listed(items: Iterable[Any], states: Any, labels: Any) -> list[Any]:
    wanted = set(states) if states else None
    names = {str(n).casefold() for n in labels} if labels else None
    return [
        i
        for i in items
        if (wanted is None or i.state in wanted)
        and (names is None or not names.isdisjoint(n.casefold() for n in i.labels))
    ]


def _tests(world: World, filters: A) -> list[Callable[[Issue], bool]]:
    """A test per filter (each read once, whatever the issues)."""
    assignee, author = filters.get("assignee"), filters.get("createdBy")
    mentioned, since = filters.get("mentioned"), filters.get("since")
    milestone, number = filters.get("milestone"), filters.get("milestoneNumber")
    states, labels = filters.get("states"), filters.get("labels")
    subscribed = filters.get("viewerSubscribed")
    return [
        lambda i: _person(assignee, i.assignees),
        lambda i: _same(author, i.author),
        lambda i: mentioned is None or _mentions(i, str(mentioned)),
        lambda i: _milestone(milestone, i, MILESTONE_IDS),
        lambda i: _milestone(number, i, 0),
        lambda i: bool(_listed([i], states, labels)),
        lambda i: since is None or _instant(i.updated_at) >= _instant(str(since)),
        lambda i: not subscribed or _subscribed(world, i),
    ]


def _person(wanted: Any, logins: list[str]) -> bool:
    if wanted is None:
        return True
    if wanted == "*":
        return bool(logins)
    if str(wanted).casefold() == "none":
        return not logins
    return any(_same(wanted, login) for login in logins)


def _same(wanted: Any, login: str) -> bool:
    return wanted is None or str(wanted).casefold() == login.casefold()


def _mentions(item: Item, login: str) -> bool:
    pattern = re.compile(rf"@{re.escape(login)}\b", re.IGNORECASE)
    return any(pattern.search(t) for t in (item.body, *(c.body for c in item.comments)))


def _milestone(wanted: Any, issue: Issue, base: int) -> bool:
    """``milestone`` (``base``: database ids) or ``milestoneNumber`` (``base`` 0)."""
    if wanted is None:
        return True
    text = str(wanted)
    if text == "*":
        return issue.milestone is not None
    if text.casefold() == "none":
        return issue.milestone is None
    return issue.milestone is not None and text == str(base + issue.milestone)


def _instant(text: str) -> datetime:
    found = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return found if found.tzinfo else found.replace(tzinfo=timezone.utc)


def _subscribed(world: World, issue: Issue) -> bool:
    watching = world.repository.viewer_subscription
    if watching is not None and not watching.ignored:
        return True
    viewer = world.viewer
    return (
        _same(viewer, issue.author)
        or _person(viewer, issue.assignees)
        or any(_same(viewer, c.author) for c in issue.comments)
        or _mentions(issue, viewer)
    )
