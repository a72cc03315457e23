"""Recording the history of issues and pull requests (``World.events``) as agents act.

Every write of an issue's or pull request's title, state, labels, assignees, milestone, draft
state, base branch or requested reviewers runs inside :func:`tracked`, which compares the item
before and after and appends GitHub's events for the difference (``renamed``, ``labeled``,
``unassigned``, ``closed``, ``ready_for_review``, ``review_requested``...), by the viewer, at
the world's time. New text that mentions another issue or pull request (``#5``, a URL) adds a
``cross-referenced`` event to that one. What no difference shows is recorded where it happens:
``merged`` and the ``closed`` events of the issues a merge closes (:func:`merged`), a head branch
deleted or restored (:func:`head_ref_synced`).

The seed's history is derived once, when a seed is loaded (:mod:`.history_seed`); timelines
read events together with comments, reviews and commits (:mod:`.timeline`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from pytest_ghxbench.sandbox.state import Issue, IssueEvent, PullRequest, World
from pytest_ghxbench.sandbox.state_events import EventName

__all__ = [
    "PREFIXES",
    "closed_by_merge",
    "cross_reference",
    "forget",
    "head_ref_synced",
    "mentioned",
    "merged",
    "opened",
    "record",
    "tracked",
]

Item = Issue | PullRequest

PREFIXES: dict[str, str] = {
    "labeled": "LE",
    "unlabeled": "UNLE",
    "assigned": "AE",
    "unassigned": "UNAE",
    "milestoned": "MIE",
    "demilestoned": "DEME",
    "renamed": "RTE",
    "closed": "CE",
    "reopened": "REE",
    "merged": "ME",
    "referenced": "REFE",
    "cross-referenced": "CRE",
    "head_ref_deleted": "HRDE",
    "head_ref_restored": "HRRE",
    "base_ref_changed": "BRCE",
    "review_requested": "RRE",
    "review_request_removed": "RRRE",
    "ready_for_review": "RFRE",
    "convert_to_draft": "CTDE",
}
"""The node id prefix of each event's GraphQL type, as GitHub's (``LE_kwDO...``)."""


def record(
    world: World,
    number: int,
    event: EventName,
    *,
    actor: str | None = None,
    at: str | None = None,
    **fields: Any,
) -> IssueEvent:
    """Append event ``event`` of issue or pull request ``number``: by ``actor`` (the viewer)
    at ``at`` (the world's time, which a write has just moved on)."""
    event_id = world.next_event_id()
    found = IssueEvent(
        id=event_id,
        node_id=world.node(PREFIXES[event], event_id),
        number=number,
        event=event,
        actor=actor or world.viewer,
        created_at=at or world.clock,
        **fields,
    )
    world.events.append(found)
    return found


def forget(world: World, number: int) -> None:
    """Drop the history of a deleted issue, and the cross-references its text made."""
    world.events = [
        e
        for e in world.events
        if e.number != number and not (e.event == "cross-referenced" and e.source == number)
    ]


# ---------------------------------------------------------------- what a write changed


@dataclass(frozen=True)
class _Facts:
    title: str
    body: str
    state: str
    labels: tuple[str, ...]
    assignees: tuple[str, ...]
    milestone: int | None
    draft: bool
    base: str
    reviewers: tuple[str, ...]
    comments: tuple[int, ...]


def _facts(item: Item) -> _Facts:
    pull = item if isinstance(item, PullRequest) else None
    return _Facts(
        item.title,
        item.body,
        item.state,
        tuple(item.labels),
        tuple(item.assignees),
        item.milestone,
        pull.is_draft if pull else False,
        pull.base_ref if pull else "",
        tuple(pull.requested_reviewers) if pull else (),
        tuple(c.id for c in item.comments),
    )


@contextmanager
def tracked(world: World, item: Item) -> Iterator[None]:
    """Record the events for what the body of the ``with`` changes on ``item`` (nothing when it
    fails)."""
    before = _facts(item)
    yield
    _changed(world, item, before)


def opened(world: World, item: Item) -> None:
    """``item`` was opened just now: the labels, assignees, milestone and requested reviewers
    it was opened with, and what its body mentions."""
    blank = replace(
        _facts(item), body="", labels=(), assignees=(), milestone=None, reviewers=(), comments=()
    )
    _changed(world, item, blank)


def _added(old: tuple[str, ...], new: tuple[str, ...]) -> list[str]:
    return [x for x in new if x not in old]


def _changed(world: World, item: Item, before: _Facts) -> None:
    after = _facts(item)
    if after == before:
        return
    number = item.number
    if after.title != before.title:
        record(world, number, "renamed", old=before.title, new=after.title)
    for name in _added(after.labels, before.labels):
        record(world, number, "unlabeled", label=name, label_color=_color(world, name))
    for name in _added(before.labels, after.labels):
        record(world, number, "labeled", label=name, label_color=_color(world, name))
    for login in _added(after.assignees, before.assignees):
        record(world, number, "unassigned", login=login)
    for login in _added(before.assignees, after.assignees):
        record(world, number, "assigned", login=login)
    if after.milestone != before.milestone:
        old, new = (world.milestone(n) if n else None for n in (before.milestone, after.milestone))
        if old is not None:
            record(world, number, "demilestoned", milestone=old.title)
        if new is not None:
            record(world, number, "milestoned", milestone=new.title)
    if after.base != before.base:
        record(world, number, "base_ref_changed", old=before.base, new=after.base)
    if after.draft != before.draft:
        record(world, number, "convert_to_draft" if after.draft else "ready_for_review")
    for login in _added(after.reviewers, before.reviewers):
        record(world, number, "review_request_removed", login=login)
    for login in _added(before.reviewers, after.reviewers):
        record(world, number, "review_requested", login=login)
    if after.state != before.state and "MERGED" not in (before.state, after.state):
        reason = item.state_reason if isinstance(item, Issue) else None
        kind: EventName = "closed" if after.state == "CLOSED" else "reopened"
        record(world, number, kind, state_reason=reason)
    if after.body != before.body:
        cross_reference(world, item, item.body)
    for comment in item.comments:
        if comment.id not in before.comments:
            cross_reference(world, item, comment.body, comment.author, comment.created_at)


def _color(world: World, name: str) -> str | None:
    label = world.label(name)
    return label.color if label is not None else None


# ---------------------------------------------------------------- what no difference shows


def merged(world: World, pull: PullRequest, commit: str) -> None:
    """``pull`` was merged just now in ``commit``: ``merged`` and ``closed`` on it, and
    ``closed`` (by the pull request, in that commit) on each issue the merge closed."""
    record(world, pull.number, "merged", commit_id=commit, new=pull.base_ref)
    record(world, pull.number, "closed")


def closed_by_merge(world: World, issue: Issue, pull: PullRequest, commit: str) -> None:
    """``issue`` was closed just now by merging ``pull`` in ``commit``."""
    record(
        world,
        issue.number,
        "closed",
        commit_id=commit,
        source=pull.number,
        state_reason="COMPLETED",
    )


def head_ref_synced(world: World, pull: PullRequest, head: str | None) -> None:
    """After refs moved, ``pull``'s head branch at ``head`` (``None``: there is none):
    ``head_ref_deleted`` when it is gone now, ``head_ref_restored`` when it is back at the pull
    request's head, as GitHub's "Restore branch" brings it back."""
    last = next(
        (
            e.event
            for e in reversed(world.events)
            if e.number == pull.number and e.event in ("head_ref_deleted", "head_ref_restored")
        ),
        "head_ref_restored",
    )
    if head is not None and head == pull.head_sha and last == "head_ref_deleted":
        record(world, pull.number, "head_ref_restored", new=pull.head_ref)
    elif head is None and last != "head_ref_deleted":
        record(world, pull.number, "head_ref_deleted", new=pull.head_ref)


# ---------------------------------------------------------------- cross-references

_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
_SHORT = re.compile(r"(?<![\w/#&])(?:([\w.-]+/[\w.-]+))?#(\d+)\b")
_URL = re.compile(r"https?://[^/\s]+/([\w.-]+/[\w.-]+)/(?:issues|pull)/(\d+)\b")


def mentioned(world: World, text: str) -> list[int]:
    """The issues and pull requests of the world ``text`` mentions (``#3``,
    ``acme-labs/tinykv#3``, a link to one), outside code, in order."""
    plain = _CODE.sub(" ", text or "")
    own = world.repository.full_name.casefold()
    found: list[int] = []
    for pattern in (_SHORT, _URL):
        for repo, digits in pattern.findall(plain):
            number = int(digits)
            if (not repo or repo.casefold() == own) and number not in found:
                found.append(number)
    return [n for n in found if world.issue(n) is not None or world.pull_request(n) is not None]


def cross_reference(
    world: World, source: Item, text: str, actor: str | None = None, at: str | None = None
) -> None:
    """``cross-referenced`` on each issue or pull request ``text`` (of ``source``) mentions,
    once per source."""
    for number in mentioned(world, text):
        known = any(
            e.event == "cross-referenced" and e.number == number and e.source == source.number
            for e in world.events
        )
        if number != source.number and not known:
            record(world, number, "cross-referenced", actor=actor, at=at, source=source.number)
