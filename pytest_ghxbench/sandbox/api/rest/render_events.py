"""Issue events and timeline items in GitHub's REST shapes: ``issue-event`` (with its issue, for
the repository's list and one event), ``issue-event-for-issue`` and ``timeline-issue-events``
(``commented``, ``committed``, ``reviewed``, ``cross-referenced`` and the issue events)."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.links import Links
from pytest_ghxbench.sandbox.api.rest.render_core import full_repository, user_json
from pytest_ghxbench.sandbox.api.rest.render_git import git_commit_json
from pytest_ghxbench.sandbox.api.rest.render_issues import comment_json, issue_json
from pytest_ghxbench.sandbox.api.rest.render_pulls import review_json
from pytest_ghxbench.sandbox.git import CommitInfo
from pytest_ghxbench.sandbox.state import Comment, Issue, IssueEvent, PullRequest, Review
from pytest_ghxbench.sandbox.timeline import Entry

__all__ = ["event_json", "timeline_json"]

A = dict[str, Any]


def _item(links: Links, number: int) -> Issue | PullRequest | None:
    world = links.world
    return world.issue(number) or world.pull_request(number)


def event_json(links: Links, event: IssueEvent, *, with_issue: bool = False) -> A:
    """An ``issue-event``: with ``with_issue`` the issue (or pull request) it happened to."""
    sha = event.commit_id
    data: A = {
        "id": event.id,
        "node_id": event.node_id,
        "url": links.api(f"issues/events/{event.id}"),
        "actor": user_json(links, event.actor),
        "event": event.event,
        "commit_id": sha,
        "commit_url": links.api(f"commits/{sha}") if sha else None,
        "created_at": event.created_at,
        "performed_via_github_app": None,
    }
    kind = event.event
    if kind in ("labeled", "unlabeled"):
        data["label"] = {"name": event.label, "color": event.label_color}
    elif kind in ("assigned", "unassigned"):
        data["assignee"] = user_json(links, event.login)
        data["assigner"] = user_json(links, event.actor)
    elif kind in ("milestoned", "demilestoned"):
        data["milestone"] = {"title": event.milestone}
    elif kind == "renamed":
        data["rename"] = {"from": event.old, "to": event.new}
    elif kind in ("review_requested", "review_request_removed"):
        data["review_requester"] = user_json(links, event.actor)
        data["requested_reviewer"] = user_json(links, event.login)
    elif kind in ("closed", "reopened"):
        data["state_reason"] = event.state_reason.lower() if event.state_reason else None
    if with_issue:
        item = _item(links, event.number)
        data["issue"] = issue_json(links, item) if item is not None else None
    return data


def _cross_reference(links: Links, event: IssueEvent) -> A | None:
    source = _item(links, event.source) if event.source is not None else None
    if source is None:
        return None
    return {
        "event": "cross-referenced",
        "actor": user_json(links, event.actor),
        "created_at": event.created_at,
        "updated_at": event.created_at,
        "source": {
            "type": "issue",
            "issue": {**issue_json(links, source), "repository": full_repository(links)},
        },
    }


def timeline_json(links: Links, item: Issue | PullRequest, entry: Entry) -> A | None:
    """One item of ``GET /issues/{n}/timeline`` (``None``: nothing to show any more, such as a
    cross-reference from a deleted issue)."""
    value = entry.value
    if isinstance(value, Comment):
        return {
            **comment_json(links, item, value),
            "event": "commented",
            "actor": user_json(links, value.author),
        }
    if isinstance(value, CommitInfo):
        return {**git_commit_json(links, value), "event": "committed"}
    if isinstance(value, Review):
        assert isinstance(item, PullRequest)
        review = review_json(links, item, value)
        return {**review, "event": "reviewed", "state": value.state.lower()}
    if value.event == "cross-referenced":
        return _cross_reference(links, value)
    return event_json(links, value)
