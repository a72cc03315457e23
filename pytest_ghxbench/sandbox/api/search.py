"""GitHub's search for issues and pull requests, shared by REST's ``GET /search/issues`` and
GraphQL's ``search(type: ISSUE)``: :func:`found_items` (the syntax is :mod:`.search_syntax`'s:
``AND``, ``OR``, ``NOT``, parentheses; its parser and ranges also serve the other searches).

Evaluated: ``repo:``/``user:``/``org:``/``owner:`` (several: any of them), ``is:``/``type:``
(issue, pr, open, closed, merged, unmerged, draft, locked, unlocked, blocked, blocking, public,
private, archived; ``type:`` also an issue type, ``type:Bug``), ``state:``, ``reason:``,
``label:`` (quoted, repeated = all of them, ``a,b`` = any), a negated qualifier (``-label:``),
``author:``, ``assignee:``, ``mentions:``, ``involves:``, ``commenter:``, ``no:`` (assignee,
label, milestone, project, type), ``milestone:``, ``project:`` (``owner/number``), ``linked:``,
``parent-issue:``/``sub-issue:`` (``owner/repo#n``), ``head:``, ``base:``, ``draft:``,
``review:``, ``review-requested:``/``user-review-requested:``, ``reviewed-by:``,
``status:`` (the rollup of a pull request's head commit checks), ``language:``, ``archived:``,
``in:`` (title, body, comments), ``created:``/``updated:``/``closed:``/``merged:``/
``comments:``/``reactions:``/``interactions:`` ranges (the world keeps no reactions: every item
has none), and free words (in the title, body or comments unless ``in:`` says otherwise).
``@me`` stands for the viewer.

Order: ``sort:`` (:data:`SORTS`, ``-asc``/``-desc``), else the REST ``sort``/``order``
parameters, else best match: the items with the words in their title first, then the newest.

Not evaluated, and so recorded (:meth:`~.search_syntax.Query.account`): :data:`UNEVALUATED`
(teams) and ``is:queued``; they match nothing. A ``repo:``, ``user:`` or
``org:`` naming nothing that exists, or a person qualifier naming no account, is refused with
GitHub's words (:class:`~.search_syntax.SearchRefused`).
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
from pytest_ghxbench.sandbox.api.search_syntax import (
    PASS,
    Check,
    Pass,
    SearchRefused,
    Term,
    in_range,
    in_scope,
    normalized,
    parse_query,
    text_has,
)
from pytest_ghxbench.sandbox.state import Issue, PullRequest, World

__all__ = ["QUALIFIERS", "SORTS", "UNEVALUATED", "Item", "found_items"]

Item = Issue | PullRequest

_PEOPLE = (
    "author", "assignee", "mentions", "commenter", "involves", "reviewed-by",
    "review-requested", "user-review-requested",
)  # fmt: skip
UNEVALUATED = frozenset({"team", "team-review-requested"})
"""Qualifiers of GitHub's issue search that the sandbox does not evaluate."""
_UNEVALUATED_IS = frozenset({"queued"})
QUALIFIERS = frozenset(
    {"repo", "user", "org", "owner", "is", "type", "state", "reason", "label", "no", "in",
     "milestone", "project", "created", "updated", "closed", "comments", "reactions",
     "interactions", "language", "archived", "sort", "linked", "parent-issue", "sub-issue",
     *_PEOPLE, *PULL_QUALIFIERS, *RELATIONS, *UNEVALUATED}
)  # fmt: skip
"""Every qualifier of GitHub's issue and pull request search; any other is free text."""
_REACTIONS = ("+1", "-1", "smile", "thinking_face", "heart", "tada")


def _none(item: Item) -> int:
    return 0  # the world keeps no reactions


SORTS: dict[str, Callable[[Item], str | int]] = {
    "created": lambda item: item.created_at,
    "updated": lambda item: item.updated_at,
    "comments": lambda item: len(item.comments),
    "interactions": lambda item: len(item.comments) + _none(item),
    "reactions": _none,
    **{f"reactions-{reaction}": _none for reaction in _REACTIONS},
}
"""The orders of ``sort:`` and the REST ``sort`` parameter (and ``relevance``: best match)."""
UNSEARCHABLE_USERS = (
    "The listed users cannot be searched either because the users do not exist or you do not "
    "have permission to view the users."
)


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
    if check is None and kind and value.lower() not in ("pr", "issue", "pull-request"):
        return isinstance(item, Issue) and (item.issue_type or "").casefold() == value.casefold()
    return check() if check is not None else False


def _qualifier(world: World, item: Item, name: str, value: str) -> bool:
    if value == "@me":
        value = world.viewer
    folded = value.casefold()
    milestone = world.milestone(item.milestone) if item.milestone else None
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
    if name in ("created", "updated", "closed"):
        stamp = getattr(item, f"{name}_at")
        return stamp is not None and in_range(value, stamp)
    if name in ("comments", "reactions", "interactions"):
        return in_range(value, int(SORTS[name](item)))
    if name in PULL_QUALIFIERS:
        return isinstance(item, PullRequest) and pull_qualifier(world, item, name, value)
    return relation(world, item, name, value)


def _check(world: World, term: Term) -> Check[Item] | Pass | None:
    name, value = term.name, term.value
    if name in ("in", "sort", "repo", "user", "org", "owner"):
        return PASS  # where the words are, the order and the scope: evaluated apart
    if name in UNEVALUATED or (name == "is" and value.lower() in _UNEVALUATED_IS):
        return None
    return lambda item: _qualifier(world, item, name, value)


def _refuse_unknown_people(world: World, terms: list[Term]) -> None:
    accounts = {u.login.casefold() for u in world.users}
    for term in terms:
        login = term.value.removesuffix("[bot]").casefold()
        if term.value != "@me" and "/" not in login and login not in accounts:
            raise SearchRefused(UNSEARCHABLE_USERS)


def _fields(terms: list[Term]) -> set[str]:
    for term in terms:
        term.evaluated = True
    return {part.strip().lower() for t in terms for part in t.value.split(",")}


def _text(item: Item, fields: set[str]) -> str:
    texts = []
    for field in fields or {"title", "body", "comments"}:
        if field == "comments":
            texts += [c.body for c in item.comments]
        elif field in ("title", "body"):
            texts.append(str(getattr(item, field)))
    return normalized("\n".join(texts))


def _best_match(found: list[Item], words: list[Term]) -> None:
    """Items with the words in their title first (then in more places), then the newest."""
    wanted = [w.value for w in words if not w.negated]
    found.sort(key=lambda item: item.created_at, reverse=True)
    if wanted:
        found.sort(
            key=lambda item: sum(
                2 * text_has(normalized(item.title), w) + text_has(normalized(item.body), w)
                for w in wanted
            ),
            reverse=True,
        )


def found_items(
    world: World, text: str, sort: str | None = None, order: str | None = None
) -> list[Item]:
    """The issues and pull requests the query ``text`` finds, in GitHub's order: its
    ``sort:``, else ``sort`` and ``order`` (REST's parameters), else best match."""
    query = parse_query(text, QUALIFIERS)
    query.refusal()
    scoped = in_scope(world, query)
    _refuse_unknown_people(world, query.qualifiers(*_PEOPLE))
    fields = _fields(query.qualifiers("in"))

    def word(term: Term) -> Check[Item]:
        return lambda item: text_has(_text(item, fields), term.value)

    check = query.compile(lambda term: _check(world, term), word)
    items: list[Item] = [*world.issues, *world.pull_requests] if scoped else []
    found = [item for item in items if check(item)]
    _best_match(found, query.words())
    chosen = query.sort([*SORTS, "relevance"])
    key, descending = chosen or (sort, order != "asc")
    if key in SORTS:
        found.sort(key=SORTS[key], reverse=descending)
    query.account("issues")
    return found
