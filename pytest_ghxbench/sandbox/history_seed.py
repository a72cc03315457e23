"""The history a seed implies, derived once when the seed is loaded (``World.events``).

A seed says what its issues and pull requests are now, and a few times (created, closed,
merged, comments, reviews, commits); their events are what GitHub would have recorded to get
there. Where the seed cannot say when or by whom, the closest known time and person stand in
(docs/sandbox.md, "History and timelines"):

- labels, assignees and the milestone an item has, and the reviewers a pull request requests,
  were given by its author when it was opened (``labeled``, ``assigned``, ``milestoned``,
  ``review_requested`` at ``created_at``);
- a closed issue was closed at ``closed_at``: by the merge of a pull request that closes it and
  was merged then (its merger and merge commit), else by its author;
- a merged pull request was merged and closed by ``merged_by`` at ``merged_at``; one closed
  without merging was closed by its author; a closed one whose head branch is gone had it
  deleted then (``head_ref_deleted``);
- text that mentions another issue or pull request (a body, when its item was opened; a
  comment, when it was written) cross-references it, and a commit of the repository whose
  message mentions one references it (``referenced``, by its author at its date) unless it is
  the merge commit of that very pull request.

Event ids follow the order of the events in time, from ``World.last_event_id``.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.history import mentioned, record
from pytest_ghxbench.sandbox.state import Issue, PullRequest, World

__all__ = ["seed_history"]

_Draft = tuple[str, int, str, str, dict[str, Any]]
"""(time, number, event, actor, fields)."""


def seed_history(world: World) -> None:
    """Fill in ``world.events`` from the seed's state, unless the seed lists events itself."""
    if world.events:
        return
    drafts: list[_Draft] = []
    items: list[Issue | PullRequest] = [*world.issues, *world.pull_requests]
    for item in items:
        drafts += _given(world, item)
        drafts += _references(world, item)
        if isinstance(item, Issue):
            drafts += _issue_closed(world, item)
        else:
            drafts += _pull_closed(world, item)
    drafts += _commit_references(world)
    # at the same time, an issue a merge closed is closed after the merge
    drafts.sort(key=lambda draft: (draft[0], "source" in draft[4] and draft[2] == "closed"))
    for at, number, event, actor, fields in drafts:
        record(world, number, event, actor=actor, at=at, **fields)  # type: ignore[arg-type]


def _given(world: World, item: Issue | PullRequest) -> list[_Draft]:
    at, who, number = item.created_at, item.author, item.number
    found: list[_Draft] = []
    for name in item.labels:
        label = world.label(name)
        color = label.color if label is not None else None
        found.append((at, number, "labeled", who, {"label": name, "label_color": color}))
    found += [(at, number, "assigned", who, {"login": login}) for login in item.assignees]
    milestone = world.milestone(item.milestone) if item.milestone is not None else None
    if milestone is not None:
        found.append((at, number, "milestoned", who, {"milestone": milestone.title}))
    if isinstance(item, PullRequest):
        found += [
            (at, number, "review_requested", who, {"login": login})
            for login in item.requested_reviewers
        ]
    return found


def _references(world: World, item: Issue | PullRequest) -> list[_Draft]:
    texts = [(item.created_at, item.author, item.body)]
    texts += [(c.created_at, c.author, c.body) for c in item.comments]
    found: list[_Draft] = []
    seen: set[int] = {item.number}
    for at, who, text in texts:
        for number in mentioned(world, text):
            if number not in seen:
                seen.add(number)
                found.append((at, number, "cross-referenced", who, {"source": item.number}))
    return found


def _issue_closed(world: World, issue: Issue) -> list[_Draft]:
    if issue.state != "CLOSED" or issue.closed_at is None:
        return []
    fields: dict[str, Any] = {"state_reason": issue.state_reason}
    closer = next(
        (
            p
            for p in world.pull_requests
            if p.state == "MERGED"
            and issue.number in p.closing_issues
            and p.merged_at == issue.closed_at
        ),
        None,
    )
    who = issue.author
    if closer is not None:
        fields.update(commit_id=closer.merge_commit_sha, source=closer.number)
        who = closer.merged_by or closer.author
    return [(issue.closed_at, issue.number, "closed", who, fields)]


def _pull_closed(world: World, pull: PullRequest) -> list[_Draft]:
    number, found = pull.number, []
    who = pull.merged_by or pull.author
    if pull.state == "MERGED" and pull.merged_at is not None:
        fields = {"commit_id": pull.merge_commit_sha, "new": pull.base_ref}
        found.append((pull.merged_at, number, "merged", who, fields))
    closed = pull.closed_at or pull.merged_at
    if pull.state != "OPEN" and closed is not None:
        found.append((closed, number, "closed", who, {}))
        if world.git.ref(f"refs/heads/{pull.head_ref}") is None:
            found.append((closed, number, "head_ref_deleted", who, {"new": pull.head_ref}))
    return found


def _commit_references(world: World) -> list[_Draft]:
    git = world.git
    merges = {p.merge_commit_sha: p.number for p in world.pull_requests if p.merge_commit_sha}
    seen: set[str] = set()
    found: list[_Draft] = []
    for tip in git.branches().values():
        for commit in git.log(tip):
            if commit.sha in seen:
                continue
            seen.add(commit.sha)
            who = commit.author.login
            for number in mentioned(world, commit.message):
                if merges.get(commit.sha) != number and who is not None:
                    at = commit.committer.date
                    found.append((at, number, "referenced", who, {"commit_id": commit.sha}))
    return found
