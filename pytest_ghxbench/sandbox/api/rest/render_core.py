"""Users, the repository, labels and milestones in GitHub's REST shapes."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.links import (
    REPO_ID,
    Links,
    user_node_id,
    user_numeric_id,
)
from pytest_ghxbench.sandbox.state import Issue, IssueType, Label, Milestone, PullRequest

__all__ = [
    "association",
    "full_repository",
    "issue_type_json",
    "label_json",
    "labels_json",
    "milestone_json",
    "minimal_repository",
    "public_user",
    "reactions",
    "user_json",
]

A = dict[str, Any]


def user_json(links: Links, login: str | None) -> A | None:
    """A ``simple-user`` (``None`` for no one)."""
    if not login:
        return None
    world = links.world
    user = next((u for u in world.users if u.login == login), None)
    kind = user.type if user is not None else "User"
    shown = f"{login}[bot]" if kind == "Bot" else login
    url = f"{links.urls.api}/users/{shown}"
    return {
        "login": shown,
        "id": user_numeric_id(login),
        "node_id": user_node_id(login),
        "avatar_url": f"{links.urls.web}/avatars/{login}",
        "gravatar_id": "",
        "url": url,
        "html_url": f"{links.urls.web}/{shown}",
        "followers_url": f"{url}/followers",
        "following_url": f"{url}/following{{/other_user}}",
        "gists_url": f"{url}/gists{{/gist_id}}",
        "starred_url": f"{url}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{url}/subscriptions",
        "organizations_url": f"{url}/orgs",
        "repos_url": f"{url}/repos",
        "events_url": f"{url}/events{{/privacy}}",
        "received_events_url": f"{url}/received_events",
        "type": kind,
        "user_view_type": "public",
        "site_admin": False,
    }


def public_user(links: Links, login: str, *, private: bool = False) -> A:
    """A ``public-user`` (``GET /users/{username}``) or, for the viewer, a ``private-user``."""
    base = user_json(links, login) or {}
    name = next((u.name for u in links.world.users if u.login == login), "")
    created = links.world.repository.created_at
    data: A = {
        **base,
        "name": name or None,
        "company": None,
        "blog": "",
        "location": None,
        "email": None,
        "hireable": None,
        "bio": None,
        "public_repos": 1 if login == links.world.repository.owner else 0,
        "public_gists": 0,
        "followers": 0,
        "following": 0,
        "created_at": created,
        "updated_at": created,
    }
    if private:
        data.update(
            {
                "private_gists": 0,
                "total_private_repos": 0,
                "owned_private_repos": 0,
                "disk_usage": 0,
                "collaborators": 0,
                "two_factor_authentication": True,
            }
        )
    return data


def association(links: Links, login: str) -> str:
    world = links.world
    if login == world.repository.owner:
        return "OWNER"
    return "MEMBER" if login in world.collaborators else "NONE"


_REPO_LINKS = {
    "archive_url": "/{archive_format}{/ref}",
    "assignees_url": "/assignees{/user}",
    "blobs_url": "/git/blobs{/sha}",
    "branches_url": "/branches{/branch}",
    "collaborators_url": "/collaborators{/collaborator}",
    "comments_url": "/comments{/number}",
    "commits_url": "/commits{/sha}",
    "compare_url": "/compare/{base}...{head}",
    "contents_url": "/contents/{+path}",
    "contributors_url": "/contributors",
    "deployments_url": "/deployments",
    "downloads_url": "/downloads",
    "events_url": "/events",
    "forks_url": "/forks",
    "git_commits_url": "/git/commits{/sha}",
    "git_refs_url": "/git/refs{/sha}",
    "git_tags_url": "/git/tags{/sha}",
    "hooks_url": "/hooks",
    "issue_comment_url": "/issues/comments{/number}",
    "issue_events_url": "/issues/events{/number}",
    "issues_url": "/issues{/number}",
    "keys_url": "/keys{/key_id}",
    "labels_url": "/labels{/name}",
    "languages_url": "/languages",
    "merges_url": "/merges",
    "milestones_url": "/milestones{/number}",
    "notifications_url": "/notifications{?since,all,participating}",
    "pulls_url": "/pulls{/number}",
    "releases_url": "/releases{/id}",
    "stargazers_url": "/stargazers",
    "statuses_url": "/statuses/{sha}",
    "subscribers_url": "/subscribers",
    "subscription_url": "/subscription",
    "tags_url": "/tags",
    "teams_url": "/teams",
    "trees_url": "/git/trees{/sha}",
}


def minimal_repository(links: Links) -> A:
    repo = links.world.repository
    data: A = {
        "id": REPO_ID,
        "node_id": repo.node_id,
        "name": repo.name,
        "full_name": repo.full_name,
        "private": repo.is_private,
        "owner": user_json(links, repo.owner),
        "html_url": links.repo_web,
        "description": repo.description or None,
        "fork": False,
        "url": links.repo_api,
    }
    data.update({key: links.repo_api + tail for key, tail in _REPO_LINKS.items()})
    return data


def full_repository(links: Links) -> A:
    """A ``full-repository`` (also every field a ``repository`` requires)."""
    world = links.world
    repo = world.repository
    host = links.urls.web.split("://", 1)[-1]
    open_count = sum(i.state == "OPEN" for i in world.issues) + sum(
        p.state == "OPEN" for p in world.pull_requests
    )
    license_ = (
        {
            "key": repo.license.lower(),
            "name": repo.license,
            "spdx_id": repo.license,
            "url": f"{links.urls.api}/licenses/{repo.license.lower()}",
            "node_id": f"MDc6TGljZW5zZ{len(repo.license)}",
        }
        if repo.license
        else None
    )
    return {
        **minimal_repository(links),
        "clone_url": f"{links.repo_web}.git",
        "git_url": f"git://{host}/{repo.full_name}.git",
        "ssh_url": f"git@{host}:{repo.full_name}.git",
        "svn_url": links.repo_web,
        "mirror_url": None,
        "homepage": repo.homepage_url or None,
        "language": repo.primary_language,
        "forks": repo.fork_count,
        "forks_count": repo.fork_count,
        "stargazers_count": repo.stargazer_count,
        "watchers": repo.stargazer_count,
        "watchers_count": repo.stargazer_count,
        "subscribers_count": repo.watcher_count,
        "network_count": repo.fork_count,
        "size": 1024,
        "default_branch": repo.default_branch,
        "open_issues": open_count,
        "open_issues_count": open_count,
        "topics": list(repo.topics),
        "visibility": repo.visibility.lower(),
        "is_template": False,
        "has_issues": repo.has_issues_enabled,
        "has_projects": True,
        "has_wiki": False,
        "has_pages": False,
        "has_downloads": True,
        "has_discussions": False,
        "archived": repo.is_archived,
        "disabled": False,
        "license": license_,
        "pushed_at": repo.pushed_at,
        "created_at": repo.created_at,
        "updated_at": repo.pushed_at,
        "allow_forking": True,
        "web_commit_signoff_required": False,
        "permissions": {
            "admin": True,
            "maintain": True,
            "push": True,
            "triage": True,
            "pull": True,
        },
    }


def label_json(links: Links, label: Label) -> A:
    return {
        "id": 5_000_000_000 + sum(map(ord, label.name)),
        "node_id": label.node_id,
        "url": links.api(f"labels/{label.name.replace(' ', '%20')}"),
        "name": label.name,
        "color": label.color,
        "default": label.is_default,
        "description": label.description or None,
    }


def labels_json(links: Links, names: list[str]) -> list[A]:
    found = (links.world.label(name) for name in names)
    return [label_json(links, label) for label in found if label is not None]


def issue_type_json(links: Links, kind: IssueType) -> A:
    """An ``issue-type``: the same on an issue as in the organization's list. Its id is its
    place among the organization's types (from ``1000001``)."""
    world = links.world
    created = world.repository.created_at
    return {
        "id": 1_000_001 + world.issue_types.index(kind),
        "node_id": kind.node_id or world.node("IT", kind.name),
        "name": kind.name,
        "description": kind.description or None,
        "color": kind.color.lower(),
        "created_at": created,
        "updated_at": created,
        "is_enabled": kind.is_enabled,
    }


def milestone_json(links: Links, milestone: Milestone) -> A:
    world = links.world
    items: list[Issue | PullRequest] = [*world.issues, *world.pull_requests]
    mine = [i for i in items if i.milestone == milestone.number]
    url = links.api(f"milestones/{milestone.number}")
    created = world.repository.created_at
    return {
        "url": url,
        "html_url": links.web(f"milestone/{milestone.number}"),
        "labels_url": f"{url}/labels",
        "id": 9_000_000 + milestone.number,
        "node_id": milestone.node_id,
        "number": milestone.number,
        "title": milestone.title,
        "description": milestone.description or None,
        "creator": user_json(links, world.maintainer),
        "state": milestone.state.lower(),
        "open_issues": sum(i.state == "OPEN" for i in mine),
        "closed_issues": sum(i.state != "OPEN" for i in mine),
        "created_at": created,
        "updated_at": created,
        "closed_at": None,
        "due_on": milestone.due_on,
    }


def reactions(url: str) -> A:
    """A ``reaction-rollup``; the sandbox keeps no reactions."""
    counts = dict.fromkeys(
        ("+1", "-1", "laugh", "confused", "heart", "hooray", "eyes", "rocket"), 0
    )
    return {"url": f"{url}/reactions", "total_count": 0, **counts}
