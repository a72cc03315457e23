"""World objects in GitHub's REST shapes (snake_case fields, ``*_url`` links), as
``gh api repos/...`` prints them. Only the fields agents use are filled in; the rest of
GitHub's payload is left out rather than invented."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.dialects.gh_render import (
    fake_oid,
    issue_database_id,
    pr_database_id,
    user_id,
)
from pytest_ghxbench.sandbox.state import (
    Comment,
    Issue,
    Label,
    Milestone,
    PullRequest,
    PullRequestFile,
    Release,
    Review,
    ReviewComment,
    World,
)

__all__ = [
    "api_base",
    "comment_rest",
    "file_rest",
    "issue_rest",
    "label_rest",
    "milestone_rest",
    "pull_rest",
    "release_rest",
    "repo_rest",
    "review_comment_rest",
    "review_rest",
    "user_rest",
]

A = dict[str, Any]
API = "https://api.github.com"


def api_base(world: World) -> str:
    return f"{API}/repos/{world.repository.full_name}"


def user_rest(world: World, login: str | None) -> A | None:
    if not login:
        return None
    user = next((u for u in world.users if u.login == login), None)
    kind = user.type if user is not None else "User"
    shown = f"{login}[bot]" if kind == "Bot" else login
    return {
        "login": shown,
        "id": 100_000 + sum(map(ord, login)),
        "node_id": user_id(login),
        "avatar_url": f"https://avatars.githubusercontent.com/{login}",
        "url": f"{API}/users/{shown}",
        "html_url": f"https://github.com/{shown}",
        "type": kind,
        "site_admin": False,
    }


def _association(world: World, login: str) -> str:
    if login == world.repository.owner:
        return "OWNER"
    return "MEMBER" if login in world.collaborators else "NONE"


def label_rest(world: World, label: Label) -> A:
    return {
        "id": 5_000_000_000 + sum(map(ord, label.name)),
        "node_id": label.node_id,
        "url": f"{api_base(world)}/labels/{label.name.replace(' ', '%20')}",
        "name": label.name,
        "color": label.color,
        "default": label.is_default,
        "description": label.description or None,
    }


def milestone_rest(world: World, milestone: Milestone) -> A:
    items: list[Issue | PullRequest] = [*world.issues, *world.pull_requests]
    mine = [i for i in items if i.milestone == milestone.number]
    return {
        "url": f"{api_base(world)}/milestones/{milestone.number}",
        "html_url": f"{world.repository.url}/milestone/{milestone.number}",
        "id": 9_000_000 + milestone.number,
        "node_id": milestone.node_id,
        "number": milestone.number,
        "title": milestone.title,
        "description": milestone.description or None,
        "state": milestone.state.lower(),
        "open_issues": sum(i.state == "OPEN" for i in mine),
        "closed_issues": sum(i.state != "OPEN" for i in mine),
        "due_on": milestone.due_on,
    }


def _labels(world: World, names: list[str]) -> list[A]:
    return [label_rest(world, lab) for lab in (world.label(n) for n in names) if lab is not None]


def issue_rest(world: World, item: Issue | PullRequest) -> A:
    """An issue, or a pull request seen through the issues API (with ``pull_request``)."""
    base = api_base(world)
    is_pull = isinstance(item, PullRequest)
    milestone = world.milestone(item.milestone) if item.milestone else None
    data: A = {
        "url": f"{base}/issues/{item.number}",
        "repository_url": base,
        "comments_url": f"{base}/issues/{item.number}/comments",
        "html_url": f"{world.repository.url}/{'pull' if is_pull else 'issues'}/{item.number}",
        "id": pr_database_id(item.number) if is_pull else issue_database_id(item.number),
        "node_id": item.node_id,
        "number": item.number,
        "title": item.title,
        "user": user_rest(world, item.author),
        "labels": _labels(world, item.labels),
        "state": "open" if item.state == "OPEN" else "closed",
        "locked": False,
        "assignee": user_rest(world, item.assignees[0]) if item.assignees else None,
        "assignees": [user_rest(world, login) for login in item.assignees],
        "milestone": milestone_rest(world, milestone) if milestone else None,
        "comments": len(item.comments),
        "created_at": item.created_at,
        "updated_at": item.updated_at,
        "closed_at": item.closed_at,
        "author_association": _association(world, item.author),
        "body": item.body or None,
    }
    if isinstance(item, Issue):
        subs = world.sub_issues(item.number)
        done = sum(s.state == "CLOSED" for s in subs)
        kind = next((t for t in world.issue_types if t.name == item.issue_type), None)
        data["state_reason"] = item.state_reason.lower() if item.state_reason else None
        data["type"] = (
            {
                "id": 6_000 + len(kind.name),
                "node_id": kind.node_id,
                "name": kind.name,
                "color": kind.color.lower(),
            }
            if kind
            else None
        )
        data["sub_issues_summary"] = {
            "total": len(subs),
            "completed": done,
            "percent_completed": round(100 * done / len(subs)) if subs else 0,
        }
    else:
        data["draft"] = item.is_draft
        data["pull_request"] = {
            "url": f"{base}/pulls/{item.number}",
            "html_url": f"{world.repository.url}/pull/{item.number}",
            "diff_url": f"{world.repository.url}/pull/{item.number}.diff",
            "patch_url": f"{world.repository.url}/pull/{item.number}.patch",
            "merged_at": item.merged_at,
        }
    return data


def comment_rest(world: World, item: Issue | PullRequest, comment: Comment) -> A:
    base = api_base(world)
    kind = "pull" if isinstance(item, PullRequest) else "issues"
    return {
        "url": f"{base}/issues/comments/{comment.id}",
        "html_url": f"{world.repository.url}/{kind}/{item.number}#issuecomment-{comment.id}",
        "issue_url": f"{base}/issues/{item.number}",
        "id": comment.id,
        "node_id": comment.node_id,
        "user": user_rest(world, comment.author),
        "created_at": comment.created_at,
        "updated_at": comment.updated_at or comment.created_at,
        "author_association": _association(world, comment.author),
        "body": comment.body,
    }


def _branch(world: World, ref: str, sha: str) -> A:
    repo = world.repository
    return {
        "label": f"{repo.owner}:{ref}",
        "ref": ref,
        "sha": sha,
        "user": user_rest(world, repo.owner),
        "repo": {
            "id": 700_000_001,
            "node_id": repo.node_id,
            "name": repo.name,
            "full_name": repo.full_name,
        },
    }


def pull_rest(world: World, pull: PullRequest, *, full: bool = True) -> A:
    base = api_base(world)
    milestone = world.milestone(pull.milestone) if pull.milestone else None
    data: A = {
        "url": f"{base}/pulls/{pull.number}",
        "id": pr_database_id(pull.number),
        "node_id": pull.node_id,
        "html_url": f"{world.repository.url}/pull/{pull.number}",
        "diff_url": f"{world.repository.url}/pull/{pull.number}.diff",
        "number": pull.number,
        "state": "open" if pull.state == "OPEN" else "closed",
        "locked": False,
        "title": pull.title,
        "user": user_rest(world, pull.author),
        "body": pull.body or None,
        "created_at": pull.created_at,
        "updated_at": pull.updated_at,
        "closed_at": pull.closed_at,
        "merged_at": pull.merged_at,
        "merge_commit_sha": pull.merge_commit_sha,
        "assignee": user_rest(world, pull.assignees[0]) if pull.assignees else None,
        "assignees": [user_rest(world, login) for login in pull.assignees],
        "requested_reviewers": [user_rest(world, login) for login in pull.requested_reviewers],
        "requested_teams": [],
        "labels": _labels(world, pull.labels),
        "milestone": milestone_rest(world, milestone) if milestone else None,
        "draft": pull.is_draft,
        "head": _branch(world, pull.head_ref, pull.head_sha),
        "base": _branch(world, pull.base_ref, pull.base_sha),
        "author_association": _association(world, pull.author),
        "auto_merge": None,
    }
    if full:
        data.update(
            {
                "merged": pull.state == "MERGED",
                "mergeable": {"MERGEABLE": True, "CONFLICTING": False}.get(pull.mergeable),
                "mergeable_state": pull.merge_state_status.lower(),
                "merged_by": user_rest(world, pull.merged_by),
                "comments": len(pull.comments),
                "review_comments": sum(len(t.comments) for t in pull.review_threads),
                "commits": pull.commits,
                "additions": sum(f.additions for f in pull.files),
                "deletions": sum(f.deletions for f in pull.files),
                "changed_files": len(pull.files),
            }
        )
    return data


def file_rest(world: World, pull: PullRequest, change: PullRequestFile) -> A:
    blob = f"{world.repository.url}/blob/{pull.head_sha}/{change.path}"
    data: A = {
        "sha": fake_oid(pull.head_sha, change.path),
        "filename": change.path,
        "status": change.status,
        "additions": change.additions,
        "deletions": change.deletions,
        "changes": change.additions + change.deletions,
        "blob_url": blob,
        "raw_url": blob.replace("/blob/", "/raw/"),
        "patch": change.patch,
    }
    if change.previous_path:
        data["previous_filename"] = change.previous_path
    return data


def review_rest(world: World, pull: PullRequest, review: Review) -> A:
    return {
        "id": review.id,
        "node_id": review.node_id,
        "user": user_rest(world, review.author),
        "body": review.body,
        "state": review.state,
        "html_url": f"{world.repository.url}/pull/{pull.number}#pullrequestreview-{review.id}",
        "pull_request_url": f"{api_base(world)}/pulls/{pull.number}",
        "author_association": _association(world, review.author),
        "submitted_at": review.submitted_at,
        "commit_id": review.commit_id or pull.head_sha,
    }


def review_comment_rest(world: World, pull: PullRequest, note: ReviewComment) -> A:
    data: A = {
        "url": f"{api_base(world)}/pulls/comments/{note.id}",
        "pull_request_review_id": note.review_id,
        "id": note.id,
        "node_id": note.node_id,
        "diff_hunk": note.diff_hunk,
        "path": note.path,
        "commit_id": pull.head_sha,
        "original_commit_id": pull.head_sha,
        "user": user_rest(world, note.author),
        "body": note.body,
        "created_at": note.created_at,
        "updated_at": note.created_at,
        "html_url": f"{world.repository.url}/pull/{pull.number}#discussion_r{note.id}",
        "pull_request_url": f"{api_base(world)}/pulls/{pull.number}",
        "author_association": _association(world, note.author),
        "line": note.line,
        "original_line": note.line,
        "side": "RIGHT",
        "subject_type": "line" if note.line is not None else "file",
    }
    if note.in_reply_to is not None:
        data["in_reply_to_id"] = note.in_reply_to
    return data


def release_rest(world: World, release: Release) -> A:
    from pytest_ghxbench.sandbox.dialects.gh_release import release_url

    url = f"{api_base(world)}/releases/{release.id}"
    return {
        "url": url,
        "html_url": release_url(world, release),
        "assets_url": f"{url}/assets",
        "upload_url": f"https://uploads.github.com/repos/{world.repository.full_name}/releases/{release.id}/assets{{?name,label}}",
        "tarball_url": None if release.draft else f"{api_base(world)}/tarball/{release.tag_name}",
        "zipball_url": None if release.draft else f"{api_base(world)}/zipball/{release.tag_name}",
        "id": release.id,
        "node_id": release.node_id,
        "tag_name": release.tag_name,
        "target_commitish": release.target_commitish,
        "name": release.name or None,
        "draft": release.draft,
        "prerelease": release.prerelease,
        "created_at": release.created_at,
        "published_at": release.published_at,
        "author": user_rest(world, release.author),
        "assets": [
            {
                "id": a.id,
                "name": a.name,
                "content_type": a.content_type,
                "size": a.size,
                "download_count": a.download_count,
                "state": "uploaded",
                "browser_download_url": (
                    f"{world.repository.url}/releases/download/{release.tag_name}/{a.name}"
                ),
            }
            for a in release.assets
        ],
        "body": release.body or None,
    }


def repo_rest(world: World) -> A:
    repo = world.repository
    return {
        "id": 700_000_001,
        "node_id": repo.node_id,
        "name": repo.name,
        "full_name": repo.full_name,
        "private": repo.is_private,
        "owner": user_rest(world, repo.owner),
        "html_url": repo.url,
        "description": repo.description or None,
        "fork": False,
        "url": api_base(world),
        "homepage": repo.homepage_url or None,
        "language": repo.primary_language,
        "stargazers_count": repo.stargazer_count,
        "watchers_count": repo.stargazer_count,
        "subscribers_count": repo.watcher_count,
        "forks_count": repo.fork_count,
        "open_issues_count": sum(i.state == "OPEN" for i in world.issues)
        + sum(p.state == "OPEN" for p in world.pull_requests),
        "topics": list(repo.topics),
        "visibility": repo.visibility.lower(),
        "default_branch": repo.default_branch,
        "has_issues": repo.has_issues_enabled,
        "archived": repo.is_archived,
        "license": {"key": repo.license.lower(), "name": repo.license, "spdx_id": repo.license}
        if repo.license
        else None,
        "created_at": repo.created_at,
        "updated_at": repo.pushed_at,
        "pushed_at": repo.pushed_at,
    }
