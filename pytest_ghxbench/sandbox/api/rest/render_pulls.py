"""Pull requests, their reviews and review comments in GitHub's REST shapes (their commits and
files are git's: :mod:`.render_git`)."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.links import Links, pull_id
from pytest_ghxbench.sandbox.api.rest.render_core import (
    association,
    full_repository,
    labels_json,
    milestone_json,
    reactions,
    user_json,
)
from pytest_ghxbench.sandbox.code import pull_commits, pull_files
from pytest_ghxbench.sandbox.state import PullRequest, Review, ReviewComment

__all__ = [
    "pull_json",
    "review_comment_json",
    "review_json",
]

A = dict[str, Any]


def _branch(links: Links, ref: str, sha: str) -> A:
    owner = links.world.repository.owner
    return {
        "label": f"{owner}:{ref}",
        "ref": ref,
        "sha": sha,
        "user": user_json(links, owner),
        "repo": full_repository(links),
    }


def _href(url: str) -> A:
    return {"href": url}


def pull_json(links: Links, pull: PullRequest, *, full: bool = True) -> A:
    """A ``pull-request`` (``full``) or a ``pull-request-simple`` (lists)."""
    world = links.world
    url = links.api(f"pulls/{pull.number}")
    issue_url = links.api(f"issues/{pull.number}")
    html = links.web(f"pull/{pull.number}")
    statuses = links.api(f"statuses/{pull.head_sha}")
    milestone = world.milestone(pull.milestone) if pull.milestone else None
    data: A = {
        "url": url,
        "id": pull_id(pull.number),
        "node_id": pull.node_id,
        "html_url": html,
        "diff_url": f"{html}.diff",
        "patch_url": f"{html}.patch",
        "issue_url": issue_url,
        "commits_url": f"{url}/commits",
        "review_comments_url": f"{url}/comments",
        "review_comment_url": links.api("pulls/comments{/number}"),
        "comments_url": f"{issue_url}/comments",
        "statuses_url": statuses,
        "number": pull.number,
        "state": "open" if pull.state == "OPEN" else "closed",
        "locked": False,
        "title": pull.title,
        "user": user_json(links, pull.author),
        "body": pull.body or None,
        "created_at": pull.created_at,
        "updated_at": pull.updated_at,
        "closed_at": pull.closed_at,
        "merged_at": pull.merged_at,
        "merge_commit_sha": pull.merge_commit_sha,
        "assignee": user_json(links, pull.assignees[0]) if pull.assignees else None,
        "assignees": [user_json(links, login) for login in pull.assignees],
        "requested_reviewers": [user_json(links, login) for login in pull.requested_reviewers],
        "requested_teams": [],
        "labels": labels_json(links, pull.labels),
        "milestone": milestone_json(links, milestone) if milestone else None,
        "draft": pull.is_draft,
        "head": _branch(links, pull.head_ref, pull.head_sha),
        "base": _branch(links, pull.base_ref, pull.base_sha),
        "_links": {
            "self": _href(url),
            "html": _href(html),
            "issue": _href(issue_url),
            "comments": _href(f"{issue_url}/comments"),
            "review_comments": _href(f"{url}/comments"),
            "review_comment": _href(links.api("pulls/comments{/number}")),
            "commits": _href(f"{url}/commits"),
            "statuses": _href(statuses),
        },
        "author_association": association(links, pull.author),
        "auto_merge": None,
        "active_lock_reason": None,
    }
    if full:
        files = pull_files(world, pull)
        data.update(
            {
                "merged": pull.state == "MERGED",
                "mergeable": {"MERGEABLE": True, "CONFLICTING": False}.get(pull.mergeable),
                "rebaseable": pull.mergeable == "MERGEABLE",
                "mergeable_state": pull.merge_state_status.lower(),
                "merged_by": user_json(links, pull.merged_by),
                "comments": len(pull.comments),
                "review_comments": sum(len(t.comments) for t in pull.review_threads),
                "maintainer_can_modify": False,
                "commits": len(pull_commits(world, pull)),
                "additions": sum(f.additions for f in files),
                "deletions": sum(f.deletions for f in files),
                "changed_files": len(files),
            }
        )
    return data


def review_json(links: Links, pull: PullRequest, review: Review) -> A:
    """A ``pull-request-review`` (a pending one has no ``submitted_at``)."""
    html = links.web(f"pull/{pull.number}#pullrequestreview-{review.id}")
    url = links.api(f"pulls/{pull.number}")
    data: A = {
        "id": review.id,
        "node_id": review.node_id,
        "user": user_json(links, review.author),
        "body": review.body,
        "state": review.state,
        "html_url": html,
        "pull_request_url": url,
        "_links": {"html": _href(html), "pull_request": _href(url)},
        "author_association": association(links, review.author),
        "submitted_at": review.submitted_at,
        "commit_id": review.commit_id or pull.head_sha,
    }
    if review.submitted_at is None:
        del data["submitted_at"]
    return data


def review_comment_json(links: Links, pull: PullRequest, note: ReviewComment) -> A:
    """A ``pull-request-review-comment``."""
    url = links.api(f"pulls/comments/{note.id}")
    html = links.web(f"pull/{pull.number}#discussion_r{note.id}")
    pull_url = links.api(f"pulls/{pull.number}")
    thread = next((t for t in pull.review_threads if note in t.comments), None)
    data: A = {
        "url": url,
        "pull_request_review_id": note.review_id,
        "id": note.id,
        "node_id": note.node_id,
        "diff_hunk": note.diff_hunk,
        "path": note.path,
        "commit_id": pull.head_sha,
        "original_commit_id": pull.head_sha,
        "user": user_json(links, note.author),
        "body": note.body,
        "created_at": note.created_at,
        "updated_at": note.created_at,
        "html_url": html,
        "pull_request_url": pull_url,
        "author_association": association(links, note.author),
        "_links": {"self": _href(url), "html": _href(html), "pull_request": _href(pull_url)},
        "line": note.line,
        "original_line": note.line,
        "side": thread.diff_side if thread is not None else "RIGHT",
        "subject_type": "line" if note.line is not None else "file",
        "reactions": reactions(url),
    }
    if note.in_reply_to is not None:
        data["in_reply_to_id"] = note.in_reply_to
    start = thread.start_line if thread is not None else None
    data.update(start_line=start, original_start_line=start, start_side=None)
    if thread is not None and start is not None:
        data["start_side"] = thread.start_side or thread.diff_side
    return data
