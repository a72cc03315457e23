"""REST routes for the repository, its labels, people, tags and commit statuses, and for users
and the rate limit (milestones are in :mod:`.milestones`)."""

from __future__ import annotations

import re
from typing import Any

from pytest_ghxbench.sandbox.api.rest.render_core import (
    full_repository,
    issue_type_json,
    label_json,
    minimal_repository,
    public_user,
    user_json,
)
from pytest_ghxbench.sandbox.api.rest.router import (
    Ctx,
    RestError,
    missing_field,
    or_not_found,
    paged,
    route,
)
from pytest_ghxbench.sandbox.state import Issue, Label, PullRequest

__all__ = ["resolve_ref"]


@route("GET", "/repos/{owner}/{repo}")
def _repo(ctx: Ctx) -> Any:
    return full_repository(ctx.links)


@route("GET", "/repos/{owner}/{repo}/labels")
def _labels(ctx: Ctx) -> Any:
    links = ctx.links
    return [label_json(links, lab) for lab in paged(ctx, list(ctx.world.labels))]


@route("GET", "/repos/{owner}/{repo}/labels/{name}")
def _label(ctx: Ctx) -> Any:
    return label_json(ctx.links, or_not_found(ctx.world.label(ctx.args["name"])))


_COLOR = re.compile(r"^[0-9a-fA-F]{6}$")


def _color(ctx: Ctx, default: str) -> str:
    color = str(ctx.body.get("color") or default).removeprefix("#")
    if not _COLOR.match(color):
        raise RestError(
            422,
            "Validation Failed",
            [{"resource": "Label", "code": "invalid", "field": "color"}],
        )
    return color.lower()


@route("POST", "/repos/{owner}/{repo}/labels")
def _create_label(ctx: Ctx) -> Any:
    world = ctx.world
    name = str(ctx.body.get("name") or "").strip()
    if not name:
        raise missing_field("Label", "name")
    if world.label(name) is not None:
        raise RestError(
            422,
            "Validation Failed",
            [{"resource": "Label", "code": "already_exists", "field": "name"}],
        )
    label = Label(
        name=name,
        color=_color(ctx, "ededed"),
        description=str(ctx.body.get("description") or ""),
        node_id=world.node("LA", name),
    )
    world.labels.append(label)
    ctx.mutated = True
    return label_json(ctx.links, label)


@route("PATCH", "/repos/{owner}/{repo}/labels/{name}")
def _edit_label(ctx: Ctx) -> Any:
    world = ctx.world
    label = or_not_found(world.label(ctx.args["name"]))
    new_name = str(ctx.body.get("new_name") or "").strip()
    if new_name and new_name.casefold() != label.name.casefold() and world.label(new_name):
        raise RestError(
            422,
            "Validation Failed",
            [{"resource": "Label", "code": "already_exists", "field": "name"}],
        )
    label.color = _color(ctx, label.color)
    if ctx.body.get("description") is not None:
        label.description = str(ctx.body["description"])
    if new_name:
        items: list[Issue | PullRequest] = [*world.issues, *world.pull_requests]
        for item in items:
            item.labels = [new_name if n == label.name else n for n in item.labels]
        label.name = new_name
    ctx.mutated = True
    return label_json(ctx.links, label)


@route("DELETE", "/repos/{owner}/{repo}/labels/{name}", status=204)
def _delete_label(ctx: Ctx) -> Any:
    world = ctx.world
    label = or_not_found(world.label(ctx.args["name"]))
    world.labels.remove(label)
    items: list[Issue | PullRequest] = [*world.issues, *world.pull_requests]
    for item in items:
        item.labels = [n for n in item.labels if n != label.name]
    ctx.mutated = True
    return None


@route("GET", "/repos/{owner}/{repo}/assignees")
def _assignees(ctx: Ctx) -> Any:
    links = ctx.links
    return [user_json(links, login) for login in paged(ctx, list(ctx.world.collaborators))]


@route("GET", "/repos/{owner}/{repo}/collaborators")
def _collaborators(ctx: Ctx) -> Any:
    links = ctx.links
    owner = ctx.world.repository.owner
    people = []
    for login in paged(ctx, list(ctx.world.collaborators)):
        admin = login == owner
        rights = {"pull": True, "triage": True, "push": True, "maintain": admin, "admin": admin}
        role = "admin" if admin else "write"
        people.append({**(user_json(links, login) or {}), "permissions": rights, "role_name": role})
    return people


@route("GET", "/repos/{owner}/{repo}/collaborators/{username}", status=204)
def _is_collaborator(ctx: Ctx) -> Any:
    if ctx.args["username"].casefold() not in {c.casefold() for c in ctx.world.collaborators}:
        raise RestError(404, "Not Found")
    return None


@route("GET", "/repos/{owner}/{repo}/assignees/{assignee}", status=204)
def _can_assign(ctx: Ctx) -> Any:
    if ctx.args["assignee"] not in ctx.world.collaborators:
        raise RestError(404, "Not Found")
    return None


@route("GET", "/orgs/{org}/issue-types")
def _issue_types(ctx: Ctx) -> Any:
    repo = ctx.world.repository
    if ctx.args["org"].casefold() != repo.owner.casefold():
        raise RestError(404, "Not Found")
    return [issue_type_json(ctx.links, kind) for kind in ctx.world.issue_types]


@route("GET", "/user")
def _viewer(ctx: Ctx) -> Any:
    return public_user(ctx.links, ctx.world.viewer, private=True)


@route("GET", "/users/{username}")
def _user(ctx: Ctx) -> Any:
    login = ctx.args["username"].removesuffix("[bot]")
    if login not in {u.login for u in ctx.world.users}:
        raise RestError(404, "Not Found")
    return public_user(ctx.links, login)


@route("GET", "/")
def _root(ctx: Ctx) -> Any:
    """The API root: its hypermedia links (``gh auth status`` reads its ``X-OAuth-Scopes``)."""
    api, web = ctx.request.urls.api, ctx.request.urls.web
    applications = f"{web}/settings/connections/applications{{/client_id}}"
    return {
        "current_user_url": f"{api}/user",
        "current_user_authorizations_html_url": applications,
        "authorizations_url": f"{api}/authorizations",
        "code_search_url": f"{api}/search/code?q={{query}}{{&page,per_page,sort,order}}",
        "commit_search_url": f"{api}/search/commits?q={{query}}{{&page,per_page,sort,order}}",
        "emails_url": f"{api}/user/emails",
        "emojis_url": f"{api}/emojis",
        "events_url": f"{api}/events",
        "feeds_url": f"{api}/feeds",
        "followers_url": f"{api}/user/followers",
        "following_url": f"{api}/user/following{{/target}}",
        "gists_url": f"{api}/gists{{/gist_id}}",
        "hub_url": f"{api}/hub",
        "issue_search_url": f"{api}/search/issues?q={{query}}{{&page,per_page,sort,order}}",
        "issues_url": f"{api}/issues",
        "keys_url": f"{api}/user/keys",
        "label_search_url": f"{api}/search/labels?q={{query}}&repository_id={{repository_id}}"
        "{&page,per_page}",
        "notifications_url": f"{api}/notifications",
        "organization_url": f"{api}/orgs/{{org}}",
        "organization_repositories_url": f"{api}/orgs/{{org}}/repos{{?type,page,per_page,sort}}",
        "organization_teams_url": f"{api}/orgs/{{org}}/teams",
        "public_gists_url": f"{api}/gists/public",
        "rate_limit_url": f"{api}/rate_limit",
        "repository_url": f"{api}/repos/{{owner}}/{{repo}}",
        "repository_search_url": f"{api}/search/repositories?q={{query}}"
        "{&page,per_page,sort,order}",
        "current_user_repositories_url": f"{api}/user/repos{{?type,page,per_page,sort}}",
        "starred_url": f"{api}/user/starred{{/owner}}{{/repo}}",
        "starred_gists_url": f"{api}/gists/starred",
        "topic_search_url": f"{api}/search/topics?q={{query}}{{&page,per_page}}",
        "user_url": f"{api}/users/{{user}}",
        "user_organizations_url": f"{api}/user/orgs",
        "user_repositories_url": f"{api}/users/{{user}}/repos{{?type,page,per_page,sort}}",
        "user_search_url": f"{api}/search/users?q={{query}}{{&page,per_page,sort,order}}",
    }


@route("GET", "/rate_limit")
def _rate_limit(ctx: Ctx) -> Any:
    core = {"limit": 5000, "used": 1, "remaining": 4999, "reset": 1772366400}
    return {
        "resources": {"core": core, "graphql": core, "search": {**core, "limit": 30}},
        "rate": core,
    }


def resolve_ref(ctx: Ctx, ref: str) -> str:
    """The commit a branch, tag, full ref or (abbreviated) sha names; ``ref`` itself when it
    names none (answers then say nothing is there)."""
    for prefix in ("refs/heads/", "heads/"):
        if ref.startswith(prefix):
            ref = ref.removeprefix(prefix)
    return ctx.world.git.resolve(ref) or ref


@route("GET", "/repos/{owner}/{repo}/tags")
def _tags(ctx: Ctx) -> Any:
    links = ctx.links
    git = ctx.world.git
    tags = [(name, git.peel(sha) or sha) for name, sha in git.tags().items()]
    tags.sort(key=lambda pair: pair[0], reverse=True)
    return [
        {
            "name": tag,
            "node_id": ctx.world.node("REF", f"tags/{tag}"),
            "commit": {"sha": sha, "url": links.api(f"commits/{sha}")},
            "zipball_url": links.api(f"zipball/refs/tags/{tag}"),
            "tarball_url": links.api(f"tarball/refs/tags/{tag}"),
        }
        for tag, sha in paged(ctx, tags)
    ]


@route("GET", "/repos/{owner}/{repo}/commits/{ref}/status")
def _combined_status(ctx: Ctx) -> Any:
    """The combined commit status of the legacy statuses API. The sandbox's CI reports check
    runs only, which GitHub leaves out of it: like a repository whose CI is all Actions, the
    state is ``pending`` with no statuses."""
    links = ctx.links
    sha = resolve_ref(ctx, ctx.args["ref"])
    return {
        "state": "pending",
        "sha": sha,
        "total_count": 0,
        "statuses": [],
        "repository": minimal_repository(links),
        "commit_url": links.api(f"commits/{sha}"),
        "url": links.api(f"commits/{sha}/status"),
    }
