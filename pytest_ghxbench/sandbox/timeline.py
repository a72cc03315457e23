"""An issue's or pull request's timeline: its events (``World.events``) with its comments and,
for a pull request, its submitted reviews and its commits, oldest first. The REST timeline
(``GET /issues/{n}/timeline``) and GraphQL ``timelineItems`` both read it.

A commit is placed at its committer's date, a review at its submission; at the same time
commits come first, then comments, reviews and events (a comment saying "fixed" before the
close it announces).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pytest_ghxbench.sandbox.code import pull_commits
from pytest_ghxbench.sandbox.git import CommitInfo
from pytest_ghxbench.sandbox.state import Comment, Issue, IssueEvent, PullRequest, Review, World

__all__ = ["TIMELINE_ONLY", "Entry", "events_of", "timeline"]

TIMELINE_ONLY = frozenset({"cross-referenced"})
"""Events the issue events API leaves out (only timelines show them)."""


@dataclass(frozen=True)
class Entry:
    kind: Literal["commit", "comment", "review", "event"]
    at: str
    value: CommitInfo | Comment | Review | IssueEvent


def events_of(world: World, number: int) -> list[IssueEvent]:
    """The events of issue or pull request ``number``, oldest first."""
    return [e for e in world.events if e.number == number]


def timeline(world: World, item: Issue | PullRequest) -> list[Entry]:
    entries: list[Entry] = []
    if isinstance(item, PullRequest):
        entries += [Entry("commit", c.committer.date, c) for c in pull_commits(world, item)]
    entries += [Entry("comment", c.created_at, c) for c in item.comments]
    if isinstance(item, PullRequest):
        entries += [
            Entry("review", r.submitted_at, r) for r in item.reviews if r.submitted_at is not None
        ]
    entries += [Entry("event", e.created_at, e) for e in events_of(world, item.number)]
    return sorted(entries, key=lambda entry: entry.at)
