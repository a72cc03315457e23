"""GraphQL ``timelineItems`` of issues and pull requests, and the event types in them.

The items are :func:`pytest_ghxbench.sandbox.timeline.timeline`'s: comments (``IssueComment``),
a pull request's commits (``PullRequestCommit``) and reviews (``PullRequestReview``), and the
world's events as GitHub's event types (``LabeledEvent``, ``ClosedEvent``, ``MergedEvent``...).
``itemTypes`` and ``since`` choose among them (``totalCount`` counts what they leave),
``after``/``before`` window them (``filteredCount``), ``skip`` and ``first``/``last`` slice the
window (``pageCount``); ``updatedAt`` is the time of the latest item.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import (
    GraphQLError,
    Page,
    Typed,
    _offset,
    connection,
    obj,
)
from pytest_ghxbench.sandbox.api.graphql.resolvers.types import actor
from pytest_ghxbench.sandbox.git import CommitInfo
from pytest_ghxbench.sandbox.state import Issue, IssueEvent, Label, PullRequest, World
from pytest_ghxbench.sandbox.timeline import Entry, timeline

__all__ = ["find_event_node"]

A = dict[str, Any]
C = Context
Item = Issue | PullRequest
Pair = tuple[Item, IssueEvent]

TYPES: dict[str, str] = {
    "labeled": "LabeledEvent",
    "unlabeled": "UnlabeledEvent",
    "assigned": "AssignedEvent",
    "unassigned": "UnassignedEvent",
    "milestoned": "MilestonedEvent",
    "demilestoned": "DemilestonedEvent",
    "renamed": "RenamedTitleEvent",
    "closed": "ClosedEvent",
    "reopened": "ReopenedEvent",
    "merged": "MergedEvent",
    "referenced": "ReferencedEvent",
    "cross-referenced": "CrossReferencedEvent",
    "head_ref_deleted": "HeadRefDeletedEvent",
    "head_ref_restored": "HeadRefRestoredEvent",
    "base_ref_changed": "BaseRefChangedEvent",
    "review_requested": "ReviewRequestedEvent",
    "review_request_removed": "ReviewRequestRemovedEvent",
    "ready_for_review": "ReadyForReviewEvent",
    "convert_to_draft": "ConvertToDraftEvent",
}
"""Each event's GraphQL type."""
_ENTRY_TYPES = {"comment": "IssueComment", "review": "PullRequestReview"}


def _typed_item(item: Item) -> Typed:
    return Typed("PullRequest" if isinstance(item, PullRequest) else "Issue", item)


def _item(world: World, number: int | None) -> Item | None:
    if number is None:
        return None
    return world.issue(number) or world.pull_request(number)


def _node(item: Item, entry: Entry) -> Typed:
    value = entry.value
    if isinstance(value, IssueEvent):
        return Typed(TYPES[value.event], (item, value))
    if isinstance(value, CommitInfo):
        return Typed("PullRequestCommit", (item, value.sha))
    return Typed(_ENTRY_TYPES[entry.kind], (item, value))


def find_event_node(world: World, node: str) -> Typed | None:
    """The event whose node id is ``node``."""
    event = next((e for e in world.events if e.node_id == node), None)
    item = _item(world, event.number) if event is not None else None
    if event is None or item is None:
        return None
    return Typed(TYPES[event.event], (item, event))


# ---------------------------------------------------------------- the connection


@dataclass
class TimelinePage(Page):
    filtered: int = 0
    updated: str = ""


def _enum_name(typename: str) -> str:
    """``LabeledEvent`` -> ``LABELED_EVENT`` (the ``itemTypes`` value of a type)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", typename).upper()


def _timeline_page(item: Item, args: A, ctx: C) -> TimelinePage:
    entries = timeline(ctx.world, item)
    updated = max((e.at for e in entries), default=item.created_at)
    nodes = [_node(item, e) for e in entries]
    wanted = {str(t) for t in args.get("itemTypes") or []}
    since = str(args.get("since") or "")
    chosen = [
        node
        for node, entry in zip(nodes, entries, strict=True)
        if (not wanted or _enum_name(node.typename) in wanted) and entry.at >= since
    ]
    first, last, skip = args.get("first"), args.get("last"), int(args.get("skip") or 0)
    for key, value in (("first", first), ("last", last)):
        if value is not None and not 0 <= int(value) <= 100:
            raise GraphQLError(
                f"Requesting {value} records on the `timelineItems` connection exceeds the "
                f"`{key}` limit of 100 records.",
                type="EXCESSIVE_PAGINATION",
            )
    start = _offset(args["after"], "timelineItems") + 1 if args.get("after") is not None else 0
    end = len(chosen)
    if args.get("before") is not None:
        end = min(end, _offset(args["before"], "timelineItems"))
    filtered = max(end - start, 0)
    start = min(start + max(skip, 0), max(end, start))
    if first is not None:
        end = min(end, start + int(first))
    if last is not None:
        start = max(start, end - int(last))
    return TimelinePage(
        chosen[start:end], start, len(chosen), end < len(chosen), start > 0, filtered, updated
    )


def _timeline_field(union: str) -> tuple[str, Any]:
    name, _ = connection(union, lambda parent, a, c: [])
    obj(
        name,
        filteredCount=("Int", lambda page, a, c: page.filtered),
        pageCount=("Int", lambda page, a, c: len(page.items)),
        updatedAt=("DateTime", lambda page, a, c: page.updated),
    )
    return name, _timeline_page


obj("Issue", timelineItems=_timeline_field("IssueTimelineItems"))
obj("PullRequest", timelineItems=_timeline_field("PullRequestTimelineItems"))


# ---------------------------------------------------------------- the events


def _url(c: C, item: Item, suffix: str) -> str:
    kind = "pull" if isinstance(item, PullRequest) else "issues"
    return f"{c.world.repository.url}/{kind}/{item.number}{suffix}"


def _path(c: C, item: Item, suffix: str) -> str:
    kind = "pull" if isinstance(item, PullRequest) else "issues"
    return f"/{c.full_name}/{kind}/{item.number}{suffix}"


def _label(world: World, event: IssueEvent) -> Label:
    """The label (as it was, when it has been deleted since)."""
    name = event.label or ""
    found = world.label(name)
    return found or Label(name=name, color=event.label_color or "", node_id=world.node("LA", name))


def _branch(world: World, name: str | None) -> str | None:
    full = f"refs/heads/{name}"
    return full if name and world.git.ref(full) is not None else None


def _base(**fields: tuple[str, Any]) -> dict[str, tuple[str, Any]]:
    return {
        "id": ("ID", lambda p, a, c: p[1].node_id),
        "actor": ("Actor", lambda p, a, c: actor(c.world, p[1].actor)),
        "createdAt": ("DateTime", lambda p, a, c: p[1].created_at),
        **fields,
    }


def _located(**fields: tuple[str, Any]) -> dict[str, tuple[str, Any]]:
    return _base(
        url=("URI", lambda p, a, c: _url(c, p[0], f"#event-{p[1].id}")),
        resourcePath=("URI", lambda p, a, c: _path(c, p[0], f"#event-{p[1].id}")),
        **fields,
    )


_ON_PULL = {"pullRequest": ("PullRequest", lambda p, a, c: p[0])}


def _subject(pair: Pair, _: A, __: C) -> Typed:
    return _typed_item(pair[0])


for _kind in ("LabeledEvent", "UnlabeledEvent"):
    obj(
        _kind,
        **_base(
            label=("Label", lambda p, a, c: _label(c.world, p[1])),
            labelable=("Labelable", _subject),
        ),
    )
for _kind in ("AssignedEvent", "UnassignedEvent"):
    obj(
        _kind,
        **_base(
            assignable=("Assignable", _subject),
            assignee=("Assignee", lambda p, a, c: actor(c.world, p[1].login)),
            user=("User", lambda p, a, c: p[1].login),
        ),
    )
for _kind in ("MilestonedEvent", "DemilestonedEvent"):
    obj(
        _kind,
        **_base(
            milestoneTitle=("String", lambda p, a, c: p[1].milestone),
            subject=("MilestoneItem", _subject),
        ),
    )
obj(
    "RenamedTitleEvent",
    **_base(
        previousTitle=("String", lambda p, a, c: p[1].old),
        currentTitle=("String", lambda p, a, c: p[1].new),
        subject=("RenamedTitleSubject", _subject),
    ),
)


def _closer(world: World, event: IssueEvent) -> Typed | None:
    pull = world.pull_request(event.source) if event.source is not None else None
    if pull is not None:
        return Typed("PullRequest", pull)
    return Typed("Commit", event.commit_id) if event.commit_id else None


obj(
    "ClosedEvent",
    **_located(
        closable=("Closable", _subject),
        closer=("Closer", lambda p, a, c: _closer(c.world, p[1])),
        stateReason=("IssueStateReason", lambda p, a, c: p[1].state_reason),
    ),
)
obj(
    "ReopenedEvent",
    **_base(
        closable=("Closable", _subject),
        stateReason=("IssueStateReason", lambda p, a, c: p[1].state_reason),
    ),
)


def _source(world: World, event: IssueEvent) -> Typed | None:
    source = _item(world, event.source)
    return _typed_item(source) if source is not None else None


def _will_close(world: World, item: Item, event: IssueEvent) -> bool:
    source = world.pull_request(event.source) if event.source is not None else None
    return source is not None and source.state != "CLOSED" and item.number in source.closing_issues


obj(
    "CrossReferencedEvent",
    **_located(
        isCrossRepository=("Boolean", lambda p, a, c: False),
        referencedAt=("DateTime", lambda p, a, c: p[1].created_at),
        source=("ReferencedSubject", lambda p, a, c: _source(c.world, p[1])),
        target=("ReferencedSubject", _subject),
        willCloseTarget=("Boolean", lambda p, a, c: _will_close(c.world, p[0], p[1])),
    ),
)
obj(
    "ReferencedEvent",
    **_base(
        commit=("Commit", lambda p, a, c: p[1].commit_id),
        commitRepository=("Repository", lambda p, a, c: c.world),
        isCrossRepository=("Boolean", lambda p, a, c: False),
        isDirectReference=("Boolean", lambda p, a, c: True),
        subject=("ReferencedSubject", _subject),
    ),
)
obj(
    "MergedEvent",
    **_located(
        commit=("Commit", lambda p, a, c: p[1].commit_id),
        mergeRef=("Ref", lambda p, a, c: _branch(c.world, p[1].new)),
        mergeRefName=("String", lambda p, a, c: p[1].new or ""),
        **_ON_PULL,
    ),
)
obj(
    "HeadRefDeletedEvent",
    **_base(
        headRef=("Ref", lambda p, a, c: _branch(c.world, p[1].new)),
        headRefName=("String", lambda p, a, c: p[1].new or ""),
        **_ON_PULL,
    ),
)
obj("HeadRefRestoredEvent", **_base(**_ON_PULL))
obj(
    "BaseRefChangedEvent",
    **_base(
        previousRefName=("String", lambda p, a, c: p[1].old or ""),
        currentRefName=("String", lambda p, a, c: p[1].new or ""),
        databaseId=("Int", lambda p, a, c: p[1].id),
        **_ON_PULL,
    ),
)
for _kind in ("ReviewRequestedEvent", "ReviewRequestRemovedEvent"):
    obj(
        _kind,
        **_base(
            requestedReviewer=("RequestedReviewer", lambda p, a, c: actor(c.world, p[1].login)),
            **_ON_PULL,
        ),
    )
for _kind in ("ReadyForReviewEvent", "ConvertToDraftEvent"):
    obj(_kind, **_located(**_ON_PULL))
