"""REST routes for git data: branch and tag references, and writing a file on a branch
(``PUT /contents/{path}``), which makes a commit.

The sandbox keeps no object database: a commit is a sha on a branch, and a branch knows only
the files written on it through this API (``Branch.files``). Tags are those created as refs
plus the tags of published releases, which point at ``fake_sha("tag", name)`` as elsewhere.
As on GitHub, deleting a published release's tag turns the release back into a draft, and
deleting a pull request's head branch closes the pull request.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import Any

from pytest_ghxbench.sandbox.api.rest.links import Links, fake_sha
from pytest_ghxbench.sandbox.api.rest.router import Ctx, RestError, missing_field, route
from pytest_ghxbench.sandbox.api.types import ApiResponse
from pytest_ghxbench.sandbox.state import Branch, PullRequestFile, World
from pytest_ghxbench.sandbox.state_repo import Tag

__all__ = ["branch", "changed_files", "known_commits"]

_REPO = "/repos/{owner}/{repo}"
_REF_GONE = "Reference does not exist"


def branch(world: World, name: str) -> Branch | None:
    return next((b for b in world.repository.branches if b.name == name), None)


def _release_tags(world: World) -> dict[str, str]:
    return {r.tag_name: fake_sha("tag", r.tag_name) for r in world.releases if not r.draft}


def _tags(world: World) -> dict[str, str]:
    return {**_release_tags(world), **{t.name: t.sha for t in world.repository.tags}}


def known_commits(world: World) -> set[str]:
    """Every commit sha the world names (a new ref must point at one of them)."""
    shas = {b.sha for b in world.repository.branches} | set(_tags(world).values())
    for pull in world.pull_requests:
        shas |= {pull.head_sha, pull.base_sha, pull.merge_commit_sha or ""}
    shas |= {r.head_sha for r in world.workflow_runs}
    shas |= {c.head_sha for c in world.check_runs}
    return shas - {""}


def _resolve(world: World, ref: str) -> str | None:
    """The sha of ``heads/<branch>`` or ``tags/<tag>``."""
    kind, _, name = ref.partition("/")
    if kind == "heads":
        found = branch(world, name)
        return found.sha if found else None
    if kind == "tags":
        return _tags(world).get(name)
    return None


def _ref_json(links: Links, ref: str, sha: str) -> dict[str, Any]:
    """A ``git-ref``; ``ref`` without its ``refs/`` prefix."""
    return {
        "ref": f"refs/{ref}",
        "node_id": links.world.node("REF", ref),
        "url": links.api(f"git/refs/{ref}"),
        "object": {"type": "commit", "sha": sha, "url": links.api(f"git/commits/{sha}")},
    }


@route("GET", _REPO + "/git/ref/{ref}")
def _get_ref(ctx: Ctx) -> Any:
    ref = ctx.args["ref"]
    sha = _resolve(ctx.world, ref)
    if sha is None:
        raise RestError(404, "Not Found")
    return _ref_json(ctx.links, ref, sha)


@route("POST", _REPO + "/git/refs")
def _create_ref(ctx: Ctx) -> Any:
    world = ctx.world
    full, sha = ctx.body.get("ref"), ctx.body.get("sha")
    if not full:
        raise missing_field("Reference", "ref")
    if not sha:
        raise missing_field("Reference", "sha")
    full, sha = str(full), str(sha)
    kind, _, name = full.removeprefix("refs/").partition("/")
    if not full.startswith("refs/") or not name or kind not in ("heads", "tags"):
        raise RestError(422, "Reference name is invalid")
    if _resolve(world, f"{kind}/{name}") is not None:
        raise RestError(422, "Reference already exists")
    if sha not in known_commits(world):
        raise RestError(422, "Object does not exist")
    if kind == "heads":
        source = next((b for b in world.repository.branches if b.sha == sha), None)
        files = dict(source.files) if source else {}
        world.repository.branches.append(Branch(name=name, sha=sha, files=files))
    else:
        world.repository.tags.append(Tag(name=name, sha=sha))
    world.repository.pushed_at = world.tick()
    ctx.mutated = True
    ctx.headers["Location"] = ctx.links.api(f"git/refs/{kind}/{name}")
    return _ref_json(ctx.links, f"{kind}/{name}", sha)


@route("DELETE", _REPO + "/git/refs/{ref}", status=204)
def _delete_ref(ctx: Ctx) -> Any:
    world = ctx.world
    kind, _, name = ctx.args["ref"].partition("/")
    if _resolve(world, f"{kind}/{name}") is None:
        raise RestError(422, _REF_GONE)
    repo = world.repository
    if kind == "heads":
        if name == repo.default_branch:
            raise RestError(422, "Cannot delete the default branch")
        repo.branches = [b for b in repo.branches if b.name != name]
        now = world.tick()
        for pull in world.pull_requests:
            if pull.head_ref == name and pull.state == "OPEN":
                pull.state, pull.closed_at, pull.updated_at = "CLOSED", now, now
    else:
        repo.tags = [t for t in repo.tags if t.name != name]
        for release in world.releases:
            if release.tag_name == name and not release.draft:
                release.draft, release.published_at = True, None
        world.tick()
    ctx.mutated = True
    return None


def _blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _patch(old: str | None, new: str | None) -> tuple[str, int, int]:
    """A one-hunk patch replacing ``old``'s lines by ``new``'s: ``(patch, additions,
    deletions)``. The sandbox does not diff line by line: a rewritten file is all new."""
    before = old.splitlines() if old else []
    after = new.splitlines() if new else []
    start_old = 1 if before else 0
    start_new = 1 if after else 0
    head = f"@@ -{start_old},{len(before)} +{start_new},{len(after)} @@"
    lines = [head, *(f"-{line}" for line in before), *(f"+{line}" for line in after)]
    return "\n".join(lines), len(after), len(before)


def changed_files(base: Branch, head: Branch) -> list[PullRequestFile]:
    """The files ``head`` changed relative to ``base`` (only files written through the API
    are known on either side)."""
    changes = []
    for path in sorted(set(base.files) | set(head.files)):
        old, new = base.files.get(path), head.files.get(path)
        if old == new:
            continue
        status = "added" if old is None else "removed" if new is None else "modified"
        patch, additions, deletions = _patch(old, new)
        changes.append(
            PullRequestFile(
                path=path, status=status, additions=additions, deletions=deletions, patch=patch
            )
        )
    return changes


def _follow(world: World, written: Branch, before: str, now: str) -> None:
    """Open pull requests from ``written`` get its new head commit and files."""
    for pull in world.pull_requests:
        if pull.head_ref != written.name or pull.state != "OPEN" or pull.head_sha != before:
            continue
        base = branch(world, pull.base_ref)
        pull.head_sha = written.sha
        pull.commits += 1
        pull.updated_at = now
        if base is not None:
            pull.files = changed_files(base, written)


def _contents_json(links: Links, target: Branch, path: str, data: bytes) -> dict[str, Any]:
    sha = _blob_sha(data)
    url = links.api(f"contents/{path}?ref={target.name}")
    html = links.web(f"blob/{target.name}/{path}")
    git = links.api(f"git/blobs/{sha}")
    return {
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "sha": sha,
        "size": len(data),
        "url": url,
        "html_url": html,
        "git_url": git,
        "download_url": links.web(f"raw/{target.name}/{path}"),
        "type": "file",
        "_links": {"self": url, "git": git, "html": html},
    }


def _commit_json(
    links: Links, sha: str, parent: str, message: str, date: str, login: str
) -> dict[str, Any]:
    person = {"name": login, "email": f"{login}@users.noreply.github.com", "date": date}
    tree = fake_sha(sha, "tree")
    return {
        "sha": sha,
        "node_id": f"C_{sha[:20]}",
        "url": links.api(f"git/commits/{sha}"),
        "html_url": links.web(f"commit/{sha}"),
        "author": person,
        "committer": person,
        "message": message,
        "tree": {"url": links.api(f"git/trees/{tree}"), "sha": tree},
        "parents": [
            {
                "url": links.api(f"git/commits/{parent}"),
                "html_url": links.web(f"commit/{parent}"),
                "sha": parent,
            }
        ],
        "verification": {
            "verified": False,
            "reason": "unsigned",
            "signature": None,
            "payload": None,
            "verified_at": None,
        },
    }


@route("PUT", _REPO + "/contents/{path}")
def _write_file(ctx: Ctx) -> Any:
    world, body = ctx.world, ctx.body
    path = ctx.args["path"].strip("/")
    for name in ("message", "content"):
        if body.get(name) is None:
            raise missing_field("Content", name)
    try:
        data = base64.b64decode(str(body["content"]), validate=True)
    except (binascii.Error, ValueError):
        raise RestError(422, "content is not valid Base64") from None
    name = str(body.get("branch") or world.repository.default_branch)
    target = branch(world, name)
    if target is None:
        raise RestError(404, f"Branch {name} not found")
    old = target.files.get(path)
    if old is not None:
        given = body.get("sha")
        if not given:
            raise RestError(422, 'Invalid request.\n\n"sha" wasn\'t supplied.')
        if given != _blob_sha(old.encode()):
            raise RestError(409, f"{path} does not match {given}")
    now, before, message = world.tick(), target.sha, str(body["message"])
    target.files[path] = data.decode("utf-8", "replace")
    target.sha = fake_sha("commit", before, path, _blob_sha(data), message, now)
    world.repository.pushed_at = now
    _follow(world, target, before, now)
    ctx.mutated = True
    answer = {
        "content": _contents_json(ctx.links, target, path, data),
        "commit": _commit_json(ctx.links, target.sha, before, message, now, world.viewer),
    }
    return answer if old is not None else ApiResponse.json(answer, 201)
