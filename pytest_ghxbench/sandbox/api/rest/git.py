"""REST routes that move refs: the git data API's references (read, create, move, delete). The
other writers of refs (the contents API, the git data API's objects, merges) end the same way,
with :func:`refs_changed`.

Every change goes to the world's git repository, then :func:`~pytest_ghxbench.sandbox.code.
sync_pulls` brings pull requests in step: a pull request on a branch that moved gets the new
head; one whose head branch was deleted is closed. As on GitHub, deleting a published release's
tag turns the release back into a draft.
"""

from __future__ import annotations

import json
from typing import Any

from pytest_ghxbench.sandbox.api.rest.links import Links
from pytest_ghxbench.sandbox.api.rest.router import Ctx, RestError, missing_field, route
from pytest_ghxbench.sandbox.code import person, refs_changed
from pytest_ghxbench.sandbox.git import Person

__all__ = ["ref_json", "writer"]

_REPO = "/repos/{owner}/{repo}"
_REF_GONE = "Reference does not exist"


def ref_json(links: Links, ref: str, sha: str) -> dict[str, Any]:
    """A ``git-ref``; ``ref`` without its ``refs/`` prefix."""
    kind = links.world.git.object_type(sha) or "commit"
    return {
        "ref": f"refs/{ref}",
        "node_id": links.world.node("REF", ref),
        "url": links.api(f"git/refs/{ref}"),
        "object": {"type": kind, "sha": sha, "url": links.api(f"git/{kind}s/{sha}")},
    }


@route("GET", _REPO + "/git/ref/{ref}")
def _get_ref(ctx: Ctx) -> Any:
    ref = ctx.args["ref"]
    sha = ctx.world.git.ref(f"refs/{ref}")
    if sha is None:
        raise RestError(404, "Not Found")
    return ref_json(ctx.links, ref, sha)


@route("GET", _REPO + "/git/matching-refs/{ref}")
def _matching_refs(ctx: Ctx) -> Any:
    prefix = f"refs/{ctx.args['ref']}"
    refs = ctx.world.git.refs()
    return [
        ref_json(ctx.links, name.removeprefix("refs/"), sha)
        for name, sha in sorted(refs.items())
        if name.startswith(prefix) and not name.startswith("refs/pull/")
    ]


@route("POST", _REPO + "/git/refs", status=201)
def _create_ref(ctx: Ctx) -> Any:
    world = ctx.world
    full, sha = ctx.body.get("ref"), ctx.body.get("sha")
    if not full:
        raise missing_field("Reference", "ref")
    if not sha:
        raise missing_field("Reference", "sha")
    full, sha = str(full), str(sha)
    if not full.startswith("refs/") or full.count("/") < 2 or full.endswith("/"):
        raise RestError(422, "Reference name is invalid")
    if world.git.ref(full) is not None:
        raise RestError(422, "Reference already exists")
    if world.git.object_type(sha) is None:
        raise RestError(422, "Object does not exist")
    world.git.set_ref(full, sha)
    world.tick()
    refs_changed(world)
    ctx.mutated = True
    name = full.removeprefix("refs/")
    ctx.headers["Location"] = ctx.links.api(f"git/refs/{name}")
    return ref_json(ctx.links, name, sha)


@route("PATCH", _REPO + "/git/refs/{ref}")
def _update_ref(ctx: Ctx) -> Any:
    world = ctx.world
    git = world.git
    ref = ctx.args["ref"]
    current = git.ref(f"refs/{ref}")
    if current is None:
        raise RestError(422, _REF_GONE)
    sha = ctx.body.get("sha")
    if not sha:
        raise missing_field("Reference", "sha")
    sha = str(sha)
    if git.object_type(sha) is None:
        raise RestError(422, "Object does not exist")
    force = ctx.body.get("force", False)
    if not isinstance(force, bool):
        shown = json.dumps(force)
        raise RestError(
            422, f"Invalid request.\n\nFor 'properties/force', {shown} is not a boolean."
        )
    moves_branch = ref.startswith("heads/") and git.commit(sha) is not None
    if moves_branch and not force and not git.is_ancestor(current, sha):
        raise RestError(422, "Update is not a fast forward")
    git.set_ref(f"refs/{ref}", sha)
    world.tick()
    refs_changed(world)
    ctx.mutated = True
    return ref_json(ctx.links, ref, sha)


@route("DELETE", _REPO + "/git/refs/{ref}", status=204)
def _delete_ref(ctx: Ctx) -> Any:
    world = ctx.world
    ref = ctx.args["ref"]
    kind, _, name = ref.partition("/")
    if world.git.ref(f"refs/{ref}") is None:
        raise RestError(422, _REF_GONE)
    if kind == "heads" and name == world.repository.default_branch:
        raise RestError(422, "Cannot delete the default branch")
    world.git.delete_ref(f"refs/{ref}")
    world.tick()
    refs_changed(world)  # a published release on a deleted tag turns into a draft
    ctx.mutated = True
    return None


def writer(ctx: Ctx, key: str, now: str) -> Person:
    """The ``author`` or ``committer`` a write names (name and email), else the viewer."""
    given = ctx.body.get(key)
    if isinstance(given, dict) and given.get("name") and given.get("email"):
        return Person(str(given["name"]), str(given["email"]), str(given.get("date") or now))
    return person(ctx.world, ctx.world.viewer, now)
