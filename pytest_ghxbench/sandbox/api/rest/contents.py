"""The contents API, read from and written to the world's git repository: a file or a directory
at a ref (``GET /contents/{path}``, also the root as ``/contents``), the README, and writing or
deleting one file on a branch (a commit each, as on GitHub).

Media types: the default JSON (a file with its base64 ``content``; a directory as a list),
``application/vnd.github.raw`` (the file's bytes) and ``application/vnd.github.object`` (a
directory as one object with ``entries``). Files over 1 MB come without content
(``encoding: "none"``), as GitHub sends them.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
from typing import Any

from pytest_ghxbench.sandbox.api.rest.git import writer
from pytest_ghxbench.sandbox.api.rest.render_code import (
    MAX_CONTENT,
    SUBMODULE,
    SYMLINK,
    base64_lines,
    content_json,
)
from pytest_ghxbench.sandbox.api.rest.render_git import git_commit_json
from pytest_ghxbench.sandbox.api.rest.router import Ctx, RestError, route
from pytest_ghxbench.sandbox.api.types import ApiResponse
from pytest_ghxbench.sandbox.code import refs_changed
from pytest_ghxbench.sandbox.git import GitError, TreeEntry
from pytest_ghxbench.sandbox.git.writes import submodule_url

__all__ = ["at_ref", "wants_raw"]

_REPO = "/repos/{owner}/{repo}"
_README = ("readme", "readme.md", "readme.markdown", "readme.rst", "readme.txt")
"""Names GitHub prefers for a README, in order; any other ``README.*`` comes after them."""


def wants_raw(ctx: Ctx) -> bool:
    accept = ctx.accept.lower()
    return "vnd.github.raw" in accept or "vnd.github.v3.raw" in accept


def at_ref(ctx: Ctx) -> tuple[str, str]:
    """``(ref as the client named it, commit sha)`` of the ``ref`` parameter, default the
    default branch; GitHub's 404 when it names no commit."""
    git = ctx.world.git
    ref = ctx.param("ref") or git.default_branch
    sha = git.resolve(ref)
    if sha is None:
        if not git.branches():
            raise RestError(404, "This repository is empty.")
        raise RestError(404, f"No commit found for the ref {ref}")
    return ref, sha


def _raw(data: bytes) -> ApiResponse:
    return ApiResponse(200, data, {"Content-Type": "text/plain; charset=utf-8"})


def _file(ctx: Ctx, ref: str, entry: TreeEntry, data: bytes) -> dict[str, Any]:
    item = content_json(ctx.links, ref, entry)
    small = len(data) <= MAX_CONTENT
    item["content"] = base64_lines(data) if small else ""
    item["encoding"] = "base64" if small else "none"
    return item


def _symlink(ctx: Ctx, ref: str, commit: str, entry: TreeEntry) -> Any:
    """A link to a file of the repository is answered with that file; any other link with
    itself and its target."""
    git = ctx.world.git
    target = (git.blob(entry.sha) or b"").decode("utf-8", "replace")
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(entry.path), target))
    found = git.entry(commit, resolved) if not resolved.startswith("../") else None
    if found is not None and found.type == "blob" and found.mode != SYMLINK:
        data = git.blob(found.sha) or b""
        return _raw(data) if wants_raw(ctx) else _file(ctx, ref, found, data)
    return {**content_json(ctx.links, ref, entry), "target": target}


def _directory(ctx: Ctx, ref: str, entry: TreeEntry) -> Any:
    git = ctx.world.git
    prefix = f"{entry.path}/" if entry.path else ""
    children = [
        TreeEntry(prefix + e.path, e.name, e.mode, e.type, e.sha, e.size)
        for e in git.tree(entry.sha) or []
    ]
    if "vnd.github.object" in ctx.accept.lower():
        whole = content_json(ctx.links, ref, entry, kind="dir")
        return {**whole, "entries": [content_json(ctx.links, ref, c) for c in children]}
    return [content_json(ctx.links, ref, c, listed=True) for c in children]


@route("GET", _REPO + "/contents/{path}", optional_tail=True)
def _get(ctx: Ctx) -> Any:
    git = ctx.world.git
    ref, commit = at_ref(ctx)
    path = ctx.args["path"].strip("/")
    entry = git.entry(commit, path)
    if entry is None:
        raise RestError(404, "Not Found")
    if entry.type == "tree":
        return _directory(ctx, ref, entry)
    if entry.mode == SUBMODULE:
        url = submodule_url(git, commit, path)
        return {**content_json(ctx.links, ref, entry), "submodule_git_url": url}
    if entry.mode == SYMLINK:
        return _symlink(ctx, ref, commit, entry)
    data = git.blob(entry.sha) or b""
    return _raw(data) if wants_raw(ctx) else _file(ctx, ref, entry, data)


def _readme_in(ctx: Ctx, commit: str, folder: str) -> TreeEntry | None:
    git = ctx.world.git
    found = git.entry(commit, folder)
    if found is None or found.type != "tree":
        return None
    files = {e.name.lower(): e for e in git.tree(found.sha) or [] if e.type == "blob"}
    chosen = next((files[n] for n in _README if n in files), None)
    if chosen is None:
        chosen = next((files[n] for n in sorted(files) if n.startswith("readme.")), None)
    if chosen is None:
        return None
    path = f"{folder}/{chosen.name}" if folder else chosen.name
    return TreeEntry(path, chosen.name, chosen.mode, chosen.type, chosen.sha, chosen.size)


def _readme(ctx: Ctx, folders: tuple[str, ...]) -> Any:
    ref, commit = at_ref(ctx)
    entry = next((e for f in folders if (e := _readme_in(ctx, commit, f)) is not None), None)
    if entry is None:
        raise RestError(404, "Not Found")
    data = ctx.world.git.blob(entry.sha) or b""
    return _raw(data) if wants_raw(ctx) else _file(ctx, ref, entry, data)


@route("GET", _REPO + "/readme")
def _root_readme(ctx: Ctx) -> Any:
    """The repository's README: in the root, else ``.github/``, else ``docs/``."""
    return _readme(ctx, ("", ".github", "docs"))


@route("GET", _REPO + "/readme/{dir}")
def _dir_readme(ctx: Ctx) -> Any:
    return _readme(ctx, (ctx.args["dir"].strip("/"),))


def _invalid(name: str) -> RestError:
    return RestError(422, f'Invalid request.\n\n"{name}" wasn\'t supplied.')


def _branch_tip(ctx: Ctx) -> tuple[str, str | None]:
    """The branch a write names (default: the default branch) and its tip; 404 when it does
    not exist in a repository that has branches."""
    git = ctx.world.git
    branch = str(ctx.body.get("branch") or git.default_branch)
    tip = git.ref(f"refs/heads/{branch.removeprefix('refs/heads/')}")
    if tip is None and git.branches():
        raise RestError(404, f"Branch {branch} not found")
    return branch.removeprefix("refs/heads/"), tip


def _commit(ctx: Ctx, branch: str, tip: str | None, path: str, data: bytes | None) -> str:
    """Commit ``path`` set to ``data`` (None: removed) on ``branch``; the new commit's sha."""
    world, body = ctx.world, ctx.body
    git = world.git
    now = world.tick()
    author = writer(ctx, "author", now)
    committer = writer(ctx, "committer", now) if body.get("committer") else author
    try:
        tree = git.write_tree(tip, {path: data})
        sha = git.write_commit(tree, [tip] if tip else [], str(body["message"]), author, committer)
    except GitError as exc:
        raise RestError(422, str(exc)) from None
    git.set_ref(f"refs/heads/{branch}", sha)
    refs_changed(world)
    ctx.mutated = True
    return sha


def _check_sha(ctx: Ctx, path: str, old: TreeEntry) -> None:
    given = ctx.body.get("sha")
    if not given:
        raise _invalid("sha")
    if given != old.sha:
        raise RestError(409, f"{path} does not match {given}")


@route("PUT", _REPO + "/contents/{path}")
def _write(ctx: Ctx) -> Any:
    """Create a file (201) or replace one whose blob sha the client names (200)."""
    body = ctx.body
    git = ctx.world.git
    path = ctx.args["path"].strip("/")
    for name in ("message", "content"):
        if body.get(name) is None:
            raise _invalid(name)
    try:
        data = base64.b64decode(str(body["content"]), validate=True)
    except (binascii.Error, ValueError):
        raise RestError(422, "content is not valid Base64") from None
    branch, tip = _branch_tip(ctx)
    old = git.entry(tip, path) if tip is not None else None
    if old is not None and old.type == "tree":
        raise RestError(422, f"{path} is a directory")
    if old is not None:
        _check_sha(ctx, path, old)
    sha = _commit(ctx, branch, tip, path, data)
    commit = git.commit(sha)
    entry = git.entry(sha, path)
    assert commit is not None and entry is not None
    answer = {
        "content": content_json(ctx.links, branch, entry),
        "commit": git_commit_json(ctx.links, commit),
    }
    return answer if old is not None else ApiResponse.json(answer, 201)


@route("DELETE", _REPO + "/contents/{path}")
def _delete(ctx: Ctx) -> Any:
    """Remove a file whose blob sha the client names, in a commit on the branch."""
    git = ctx.world.git
    path = ctx.args["path"].strip("/")
    if ctx.body.get("message") is None:
        raise _invalid("message")
    if not ctx.body.get("sha"):
        raise _invalid("sha")
    branch, tip = _branch_tip(ctx)
    old = git.entry(tip, path) if tip is not None and path else None
    if old is None or old.type == "tree":
        raise RestError(404, "Not Found")
    _check_sha(ctx, path, old)
    commit = git.commit(_commit(ctx, branch, tip, path, None))
    assert commit is not None
    return {"content": None, "commit": git_commit_json(ctx.links, commit)}
