"""GitHub's search syntax for issues and pull requests, shared by REST's ``GET /search/issues``
and GraphQL's ``search``; its parser and ranges also serve code and commit search
(:mod:`.search_git`).

Supported: ``repo:``/``user:``/``org:``, ``is:``/``type:`` (issue, pr, open, closed, merged,
unmerged, draft, locked, blocked, blocking, public, private, archived; ``type:`` also an issue
type, ``type:Bug``), ``state:``, ``reason:``, ``label:`` (quoted, repeated = all of them,
``a,b`` = any), ``-label:`` and any negated qualifier, ``author:``, ``assignee:``,
``mentions:``, ``involves:``, ``commenter:``, ``no:`` (assignee, label, milestone, project,
type), ``milestone:``, ``project:`` (``owner/number``), ``linked:`` (pr, issue),
``parent-issue:``/``sub-issue:`` (``owner/repo#n``), ``head:``, ``base:``, ``draft:``,
``review:`` (none, required, approved, changes_requested), ``review-requested:`` and
``user-review-requested:``, ``reviewed-by:``, ``language:`` (the repository's), ``archived:``,
``in:`` (title, body, comments), ``created:``/``updated:``/``closed:``/``merged:``/``comments:``
ranges (``>=2026-01-01``, ``<5``, ``a..b``), ``sort:`` (matches everything; the caller orders),
and free words (in the title or body unless ``in:`` says otherwise). ``@me`` stands for the
viewer. Unknown qualifiers match nothing, as on GitHub; GitHub's own that the sandbox does not
evaluate (:data:`UNEVALUATED`: reactions, commit status, teams) match nothing too, and are
recorded as ``unsupported`` gaps.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pytest_ghxbench.sandbox.api.search_relations import (
    PULL_QUALIFIERS,
    RELATIONS,
    in_projects,
    pull_qualifier,
    relation,
)
from pytest_ghxbench.sandbox.api.search_syntax import in_range, parse_query
from pytest_ghxbench.sandbox.gaps import record_unsupported
from pytest_ghxbench.sandbox.state import Issue, PullRequest, World

__all__ = ["UNEVALUATED", "Item", "in_range", "matches", "parse_query"]

UNEVALUATED = frozenset({"interactions", "reactions", "status", "team", "team-review-requested"})
"""Qualifiers of GitHub's issue and pull request search that the sandbox does not evaluate."""
_UNEVALUATED_IS = frozenset({"queued"})

Item = Issue | PullRequest


def _mentions(item: Item, login: str) -> bool:
    texts = [item.body, *(c.body for c in item.comments)]
    return any(re.search(rf"@{re.escape(login)}\b", t, re.IGNORECASE) for t in texts)


def _labels(item: Item) -> set[str]:
    return {n.casefold() for n in item.labels}


def _is(world: World, item: Item, value: str, kind: bool = False) -> bool:
    """``is:``/``state:`` (and ``type:``, ``kind``: an issue type's name too)."""
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
        "blocked": lambda: isinstance(item, Issue) and bool(item.blocked_by),
        "blocking": lambda: any(item.number in i.blocked_by for i in world.issues),
        "public": lambda: not world.repository.is_private,
        "private": lambda: world.repository.is_private,
        "archived": lambda: world.repository.is_archived,
    }
    check = checks.get(value.lower())
    if check is None and value.lower() in _UNEVALUATED_IS:
        record_unsupported(f"search qualifier is:{value.lower()}")
    if check is None and kind and value.lower() not in ("pr", "issue", "pull-request"):
        return isinstance(item, Issue) and (item.issue_type or "").casefold() == value.casefold()
    return check() if check is not None else False


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
        return _is(world, item, value, kind=name == "type")
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
            "project": not in_projects(world, item),
            "type": isinstance(item, Issue) and item.issue_type is None,
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
    if name in PULL_QUALIFIERS:
        return isinstance(item, PullRequest) and pull_qualifier(world, item, name, value)
    if name in RELATIONS:
        return relation(world, item, name, value)
    if name in UNEVALUATED:
        record_unsupported(f"search qualifier {name}:")
    return name == "sort"


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
