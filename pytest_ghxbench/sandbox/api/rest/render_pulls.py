"""Pull requests, their files, commits, reviews and review comments in GitHub's REST shapes,
and the unified diff of a pull request."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.links import Links, fake_sha, pull_id
from pytest_ghxbench.sandbox.api.rest.render_core import (
    association,
    full_repository,
    labels_json,
    milestone_json,
    reactions,
    user_json,
)
from pytest_ghxbench.sandbox.state import PullRequest, PullRequestFile, Review, ReviewComment

__all__ = [
    "commit_json",
    "diff_text",
    "file_json",
    "pull_commits",
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
                "commits": pull.commits,
                "additions": sum(f.additions for f in pull.files),
                "deletions": sum(f.deletions for f in pull.files),
                "changed_files": len(pull.files),
            }
        )
    return data


def file_json(links: Links, pull: PullRequest, change: PullRequestFile) -> A:
    """A ``diff-entry``."""
    data: A = {
        "sha": fake_sha(pull.head_sha, change.path),
        "filename": change.path,
        "status": change.status,
        "additions": change.additions,
        "deletions": change.deletions,
        "changes": change.additions + change.deletions,
        "blob_url": links.web(f"blob/{pull.head_sha}/{change.path}"),
        "raw_url": links.web(f"raw/{pull.head_sha}/{change.path}"),
        "contents_url": links.api(f"contents/{change.path}?ref={pull.head_sha}"),
        "patch": change.patch,
    }
    if change.previous_path:
        data["previous_filename"] = change.previous_path
    return data


def diff_text(pull: PullRequest) -> str:
    """The pull request's unified diff, as ``Accept: application/vnd.github.diff`` returns."""
    parts = []
    head_short, base_short = pull.head_sha[:7] or "0000000", pull.base_sha[:7] or "0000000"
    for change in pull.files:
        old = change.previous_path or change.path
        head = [f"diff --git a/{old} b/{change.path}"]
        if change.status == "added":
            head += ["new file mode 100644", f"index 0000000..{head_short}", "--- /dev/null"]
        elif change.status == "removed":
            head += ["deleted file mode 100644", f"index {head_short}..0000000", f"--- a/{old}"]
        else:
            if change.previous_path:
                head += [f"rename from {old}", f"rename to {change.path}"]
            head += [f"index {base_short}..{head_short} 100644", f"--- a/{old}"]
        head.append("+++ /dev/null" if change.status == "removed" else f"+++ b/{change.path}")
        patch = change.patch.rstrip("\n")
        parts.append("\n".join(head + ([patch] if patch else [])) + "\n")
    return "".join(parts)


def pull_commits(pull: PullRequest) -> list[tuple[str, str, str]]:
    """``(sha, message, date)`` of each commit; the seed spells out only the head commit."""
    commits = []
    for index in range(1, pull.commits + 1):
        last = index == pull.commits
        commits.append(
            (
                pull.head_sha if last else fake_sha(pull.head_sha, index),
                pull.title if last else f"{pull.title} (part {index})",
                pull.updated_at if last else pull.created_at,
            )
        )
    return commits


def commit_json(links: Links, sha: str, message: str, date: str, login: str, parent: str) -> A:
    """A ``commit``."""
    url = links.api(f"commits/{sha}")
    person = {"name": login, "email": f"{login}@users.noreply.github.com", "date": date}
    return {
        "url": url,
        "sha": sha,
        "node_id": f"C_{sha[:20]}",
        "html_url": links.web(f"commit/{sha}"),
        "comments_url": f"{url}/comments",
        "commit": {
            "url": links.api(f"git/commits/{sha}"),
            "author": person,
            "committer": person,
            "message": message,
            "comment_count": 0,
            "tree": {
                "sha": fake_sha(sha, "tree"),
                "url": links.api(f"git/trees/{fake_sha(sha, 'tree')}"),
            },
        },
        "author": user_json(links, login),
        "committer": user_json(links, login),
        "parents": [
            {"sha": parent, "url": links.api(f"commits/{parent}"), "html_url": links.web(parent)}
        ]
        if parent
        else [],
    }


def review_json(links: Links, pull: PullRequest, review: Review) -> A:
    """A ``pull-request-review``."""
    html = links.web(f"pull/{pull.number}#pullrequestreview-{review.id}")
    url = links.api(f"pulls/{pull.number}")
    return {
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


def review_comment_json(links: Links, pull: PullRequest, note: ReviewComment) -> A:
    """A ``pull-request-review-comment``."""
    url = links.api(f"pulls/comments/{note.id}")
    html = links.web(f"pull/{pull.number}#discussion_r{note.id}")
    pull_url = links.api(f"pulls/{pull.number}")
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
        "side": "RIGHT",
        "subject_type": "line" if note.line is not None else "file",
        "reactions": reactions(url),
    }
    if note.in_reply_to is not None:
        data["in_reply_to_id"] = note.in_reply_to
    return data
