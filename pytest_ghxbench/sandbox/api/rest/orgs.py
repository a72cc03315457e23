"""REST route for an organization: the world's accounts of type ``Organization``, as anyone who
is not one of its members sees them."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.render_core import user_json
from pytest_ghxbench.sandbox.api.rest.router import Ctx, or_not_found, route

__all__: list[str] = []


@route("GET", "/orgs/{org}")
def _org(ctx: Ctx) -> Any:
    world, links = ctx.world, ctx.links
    wanted = ctx.args["org"].casefold()
    org = or_not_found(
        next(
            (u for u in world.users if u.type == "Organization" and u.login.casefold() == wanted),
            None,
        )
    )
    user = user_json(links, org.login) or {}
    url = f"{links.urls.api}/orgs/{org.login}"
    owns = org.login == world.repository.owner
    created = world.repository.created_at
    return {
        "login": org.login,
        "id": user["id"],
        "node_id": user["node_id"],
        "url": url,
        "repos_url": f"{url}/repos",
        "events_url": f"{url}/events",
        "hooks_url": f"{url}/hooks",
        "issues_url": f"{url}/issues",
        "members_url": f"{url}/members{{/member}}",
        "public_members_url": f"{url}/public_members{{/member}}",
        "avatar_url": user["avatar_url"],
        "description": None,
        # the description types name, company, location and email as strings: unset, they
        # are left out rather than null
        **({"name": org.name} if org.name else {}),
        "blog": "",
        "twitter_username": None,
        "is_verified": False,
        "has_organization_projects": True,
        "has_repository_projects": True,
        "public_repos": int(owns and not world.repository.is_private),
        "public_gists": 0,
        "followers": 0,
        "following": 0,
        "html_url": user["html_url"],
        "created_at": created,
        "updated_at": created,
        "archived_at": None,
        "type": "Organization",
    }
