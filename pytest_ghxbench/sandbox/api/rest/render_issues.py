"""Issues (and pull requests seen as issues) and their comments in GitHub's REST shapes."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.links import Links, issue_id, pull_id
from pytest_ghxbench.sandbox.api.rest.render_core import (
    association,
    issue_type_json,
    labels_json,
    milestone_json,
    reactions,
    user_json,
)
from pytest_ghxbench.sandbox.state import Comment, Issue, Milestone, PullRequest
from pytest_ghxbench.sandbox.state_issues import Reaction

__all__ = ["comment_json", "issue_json", "milestone_rest", "reaction_json", "reaction_rollup"]

A = dict[str, Any]


def issue_json(links: Links, item: Issue | PullRequest) -> A:
    """An ``issue``: a pull request seen through the issues API carries ``pull_request``."""
    world = links.world
    url = links.api(f"issues/{item.number}")
    is_pull = isinstance(item, PullRequest)
    milestone = world.milestone(item.milestone) if item.milestone else None
    data: A = {
        "url": url,
        "repository_url": links.repo_api,
        "labels_url": f"{url}/labels{{/name}}",
        "comments_url": f"{url}/comments",
        "events_url": f"{url}/events",
        "html_url": links.web(f"{'pull' if is_pull else 'issues'}/{item.number}"),
        "id": pull_id(item.number) if is_pull else issue_id(item.number),
        "node_id": item.node_id,
        "number": item.number,
        "title": item.title,
        "user": user_json(links, item.author),
        "labels": labels_json(links, item.labels),
        "state": "open" if item.state == "OPEN" else "closed",
        "locked": getattr(item, "locked", False),
        "assignee": user_json(links, item.assignees[0]) if item.assignees else None,
        "assignees": [user_json(links, login) for login in item.assignees],
        "milestone": milestone_rest(links, milestone) if milestone else None,
        "comments": len(item.comments),
        "created_at": item.created_at,
        "updated_at": item.updated_at,
        "closed_at": item.closed_at,
        "author_association": association(links, item.author),
        "active_lock_reason": getattr(item, "active_lock_reason", None),
        "body": item.body or None,
        "closed_by": None,
        "reactions": reaction_rollup(url, item.reactions),
        "timeline_url": f"{url}/timeline",
        "performed_via_github_app": None,
        "state_reason": None,
    }
    if isinstance(item, Issue):
        subs = world.sub_issues(item.number)
        done = sum(s.state == "CLOSED" for s in subs)
        kind = next((t for t in world.issue_types if t.name == item.issue_type), None)
        data["state_reason"] = item.state_reason.lower() if item.state_reason else None
        data["type"] = issue_type_json(links, kind) if kind else None
        data["sub_issues_summary"] = {
            "total": len(subs),
            "completed": done,
            "percent_completed": round(100 * done / len(subs)) if subs else 0,
        }
    else:
        data["draft"] = item.is_draft
        data["pull_request"] = {
            "url": links.api(f"pulls/{item.number}"),
            "html_url": links.web(f"pull/{item.number}"),
            "diff_url": links.web(f"pull/{item.number}.diff"),
            "patch_url": links.web(f"pull/{item.number}.patch"),
            "merged_at": item.merged_at,
        }
    return data


def comment_json(links: Links, item: Issue | PullRequest, comment: Comment) -> A:
    """An ``issue-comment``."""
    kind = "pull" if isinstance(item, PullRequest) else "issues"
    url = links.api(f"issues/comments/{comment.id}")
    return {
        "url": url,
        "html_url": links.web(f"{kind}/{item.number}#issuecomment-{comment.id}"),
        "issue_url": links.api(f"issues/{item.number}"),
        "id": comment.id,
        "node_id": comment.node_id,
        "user": user_json(links, comment.author),
        "created_at": comment.created_at,
        "updated_at": comment.updated_at or comment.created_at,
        "author_association": association(links, comment.author),
        "body": comment.body,
        "reactions": reactions(url),
        "performed_via_github_app": None,
    }


def milestone_rest(links: Links, milestone: Milestone) -> A:
    """A ``milestone``, with the times of one made, edited or closed in the sandbox (a seeded
    one was made with the repository)."""
    data = milestone_json(links, milestone)
    if milestone.created_at is not None:
        data["created_at"] = milestone.created_at
    data["updated_at"] = milestone.updated_at or data["created_at"]
    data["closed_at"] = milestone.closed_at
    return data


def reaction_rollup(url: str, given: list[Reaction]) -> A:
    """A ``reaction-rollup``: how many reactions of each content."""
    data = reactions(url)
    for reaction in given:
        data[reaction.content] += 1
    data["total_count"] = len(given)
    return data


def reaction_json(links: Links, reaction: Reaction) -> A:
    return {
        "id": reaction.id,
        "node_id": reaction.node_id,
        "user": user_json(links, reaction.user),
        "content": reaction.content,
        "created_at": reaction.created_at,
    }
