"""REST routes for a repository's smaller lists: its topics, Actions variables and secrets,
contributors (from the git history), reactions to issue comments, stargazers, and the legacy
``GET /git/refs/{ref}`` (a ref, or the refs a prefix names). Reactions to issues are in
:mod:`.reactions`.

The seed holds no Actions variables or secrets, and the world keeps no reactions to comments,
so those lists are empty, as GitHub's are for such a repository. It counts stargazers but does
not say who they are: the list is answered empty and the answer recorded as unsupported (no
user is invented).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pytest_ghxbench.sandbox.api.rest.git import ref_json
from pytest_ghxbench.sandbox.api.rest.render_core import user_json
from pytest_ghxbench.sandbox.api.rest.router import Ctx, RestError, or_not_found, paged, route
from pytest_ghxbench.sandbox.code import commit_login
from pytest_ghxbench.sandbox.gaps import record_unsupported
from pytest_ghxbench.sandbox.state import Issue, PullRequest

__all__: list[str] = []

_REPO = "/repos/{owner}/{repo}"


@route("GET", _REPO + "/topics")
def _topics(ctx: Ctx) -> Any:
    return {"names": list(ctx.world.repository.topics)}


def _none(key: str) -> Any:
    def answer(ctx: Ctx) -> Any:
        paged(ctx, [])
        return {"total_count": 0, key: []}

    return answer


_no_variables = route("GET", _REPO + "/actions/variables")(_none("variables"))
route("GET", _REPO + "/actions/organization-variables")(_no_variables)
_no_secrets = route("GET", _REPO + "/actions/secrets")(_none("secrets"))
route("GET", _REPO + "/actions/organization-secrets")(_no_secrets)


@route("GET", _REPO + "/contributors")
def _contributors(ctx: Ctx) -> Any:
    """Authors of the default branch's commits, most commits first; with ``anon``, authors
    who are no user of the world too (by email)."""
    world = ctx.world
    tip = world.git.ref(f"refs/heads/{world.git.default_branch}")
    if tip is None:
        return None  # GitHub answers an empty repository with 204
    anon = (ctx.param("anon") or "").casefold() in ("1", "true")
    users: Counter[str] = Counter()
    others: Counter[tuple[str, str]] = Counter()
    for commit in world.git.log(tip):
        login = commit_login(world, commit.author)
        if login is not None:
            users[login] += 1
        elif anon:
            others[(commit.author.email.casefold(), commit.author.name)] += 1
    links = ctx.links
    found: list[tuple[int, str, dict[str, Any]]] = [
        (count, login, {**(user_json(links, login) or {}), "contributions": count})
        for login, count in users.items()
    ]
    found += [
        (count, email, {"email": email, "name": name, "type": "Anonymous", "contributions": count})
        for (email, name), count in others.items()
    ]
    found.sort(key=lambda entry: (-entry[0], entry[1]))
    return paged(ctx, [entry[2] for entry in found])


@route("GET", _REPO + "/issues/comments/{comment_id}/reactions")
def _comment_reactions(ctx: Ctx) -> Any:
    wanted = ctx.number("comment_id")
    world = ctx.world
    items: list[Issue | PullRequest] = [*world.issues, *world.pull_requests]
    if not any(c.id == wanted for item in items for c in item.comments):
        raise RestError(404, "Not Found")
    return paged(ctx, [])  # the world keeps no reactions


@route("GET", _REPO + "/stargazers")
def _stargazers(ctx: Ctx) -> Any:
    if ctx.world.repository.stargazer_count:
        record_unsupported("who starred the repository (the seed counts stargazers only)")
    return paged(ctx, [])


@route("GET", _REPO + "/git/refs/{ref}", optional_tail=True, documented=False)
def _refs(ctx: Ctx) -> Any:
    """GitHub's legacy read of refs: an exact ref is one object; otherwise the refs whose names
    start with it (all of them for ``/git/refs``) are a list, and none is ``404``."""
    ref = ctx.args["ref"].strip("/")
    refs = ctx.world.git.refs()
    if ref and f"refs/{ref}" in refs:
        return ref_json(ctx.links, ref, refs[f"refs/{ref}"])
    prefix = f"refs/{ref}"
    found = [
        ref_json(ctx.links, name.removeprefix("refs/"), sha)
        for name, sha in sorted(refs.items())
        if name.startswith(prefix) and not name.startswith("refs/pull/")
    ]
    return paged(ctx, or_not_found(found or None))
