"""Branches from the world's git repository: the list, one branch with its tip commit and
protection, and renaming one (which, as on GitHub, retargets the pull requests based on it,
closes those from it, and follows it as the default branch)."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.render_git import commit_json
from pytest_ghxbench.sandbox.api.rest.router import Ctx, RestError, missing_field, paged, route
from pytest_ghxbench.sandbox.code import refs_changed

__all__: list[str] = []

_REPO = "/repos/{owner}/{repo}"


def _branch_json(ctx: Ctx, name: str, sha: str) -> dict[str, Any]:
    """A ``short-branch``, as the list shows it."""
    return {
        "name": name,
        "commit": {"sha": sha, "url": ctx.links.api(f"commits/{sha}")},
        "protected": name in ctx.world.repository.protected_branches,
    }


@route("GET", _REPO + "/branches")
def _branches(ctx: Ctx) -> Any:
    branches = list(ctx.world.git.branches().items())
    protected = ctx.param("protected")
    if protected is not None:
        wanted = protected.lower() == "true"
        listed = ctx.world.repository.protected_branches
        branches = [(n, s) for n, s in branches if (n in listed) == wanted]
    return [_branch_json(ctx, name, sha) for name, sha in paged(ctx, branches)]


def _full_branch(ctx: Ctx, name: str) -> dict[str, Any]:
    """A ``branch-with-protection``. The sandbox's protection requires passing checks and an
    approving review before a merge (no named contexts)."""
    git = ctx.world.git
    sha = git.ref(f"refs/heads/{name}")
    commit = git.commit(sha) if sha else None
    if commit is None:
        raise RestError(404, "Branch not found")
    links = ctx.links
    protected = name in ctx.world.repository.protected_branches
    url = links.api(f"branches/{name}")
    level = "non_admins" if protected else "off"
    return {
        "name": name,
        "commit": commit_json(links, commit),
        "_links": {"self": url, "html": links.web(f"tree/{name}")},
        "protected": protected,
        "protection": {
            "enabled": protected,
            "required_status_checks": {"enforcement_level": level, "contexts": [], "checks": []},
        },
        "protection_url": f"{url}/protection",
    }


@route("GET", _REPO + "/branches/{branch}")
def _branch(ctx: Ctx) -> Any:
    return _full_branch(ctx, ctx.args["branch"])


@route("POST", _REPO + "/branches/{branch}/rename")
def _rename(ctx: Ctx) -> Any:
    world = ctx.world
    git = world.git
    old = ctx.args["branch"]
    sha = git.ref(f"refs/heads/{old}")
    if sha is None:
        raise RestError(404, "Branch not found")
    new = str(ctx.body.get("new_name") or "").strip().removeprefix("refs/heads/")
    if not new:
        raise missing_field("Branch", "new_name")
    if git.ref(f"refs/heads/{new}") is not None:
        raise RestError(
            422,
            "Validation Failed",
            [{"resource": "Branch", "code": "already_exists", "field": "new_name"}],
        )
    repo = world.repository
    git.set_ref(f"refs/heads/{new}", sha)
    if repo.default_branch == old:
        repo.default_branch = new
        git.set_default_branch(new)
    git.delete_ref(f"refs/heads/{old}")
    world.tick()
    for pull in world.pull_requests:
        if pull.state == "OPEN" and pull.base_ref == old:
            pull.base_ref = new
    for release in world.releases:
        if release.draft and release.target_commitish == old:
            release.target_commitish = new
    repo.protected_branches = [new if b == old else b for b in repo.protected_branches]
    refs_changed(world)  # closes the open pull requests from the old name
    ctx.mutated = True
    return _full_branch(ctx, new)


@route("GET", _REPO + "/branches/{branch}/protection")
def _protection(ctx: Ctx) -> Any:
    """The branch's protection: in the world, a protected branch requires its checks to pass
    and one approving review (the rule merges follow), and nothing else."""
    name = ctx.args["branch"]
    if ctx.world.git.ref(f"refs/heads/{name}") is None:
        raise RestError(404, "Branch not found")
    if name not in ctx.world.repository.protected_branches:
        raise RestError(404, "Branch not protected")
    url = ctx.links.api(f"branches/{name}/protection")
    checks = f"{url}/required_status_checks"
    off = {"enabled": False}
    return {
        "url": url,
        "required_status_checks": {
            "url": checks,
            "strict": False,
            "contexts": [],
            "contexts_url": f"{checks}/contexts",
            "checks": [],
        },
        "required_pull_request_reviews": {
            "url": f"{url}/required_pull_request_reviews",
            "dismiss_stale_reviews": False,
            "require_code_owner_reviews": False,
            "required_approving_review_count": 1,
            "require_last_push_approval": False,
        },
        "enforce_admins": {"url": f"{url}/enforce_admins", "enabled": False},
        "required_signatures": {"url": f"{url}/required_signatures", "enabled": False},
        "required_linear_history": off,
        "allow_force_pushes": off,
        "allow_deletions": off,
        "block_creations": off,
        "required_conversation_resolution": off,
        "lock_branch": off,
        "allow_fork_syncing": off,
    }
