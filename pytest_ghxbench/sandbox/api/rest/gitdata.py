"""The git data API's objects, read from and written to the world's git repository: trees,
blobs, commits and annotated tags. Writing objects moves no ref (the client then creates or
moves one through ``/git/refs``), so nothing here changes a pull request."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from pytest_ghxbench.sandbox.api.rest.contents import wants_raw
from pytest_ghxbench.sandbox.api.rest.git import writer
from pytest_ghxbench.sandbox.api.rest.render_code import blob_json, tag_json, tree_json
from pytest_ghxbench.sandbox.api.rest.render_git import git_commit_json
from pytest_ghxbench.sandbox.api.rest.router import Ctx, RestError, route
from pytest_ghxbench.sandbox.api.types import ApiResponse
from pytest_ghxbench.sandbox.git import GitError, GitRepo
from pytest_ghxbench.sandbox.git.writes import TreeChange, build_tree, write_tag

__all__: list[str] = []

_REPO = "/repos/{owner}/{repo}"
_SHA = re.compile(r"^[0-9a-f]{40}$")
_MODES = {
    "100644": "blob",
    "100755": "blob",
    "120000": "blob",
    "040000": "tree",
    "160000": "commit",
}
_NEITHER = (
    "Must supply either tree.sha or tree.content. Request will be rejected if both are present."
)


def _invalid(name: str) -> RestError:
    return RestError(422, f'Invalid request.\n\n"{name}" wasn\'t supplied.')


def _created(ctx: Ctx, kind: str, sha: str, body: dict[str, Any]) -> ApiResponse:
    return ApiResponse.json(body, 201, {"Location": ctx.links.api(f"git/{kind}/{sha}")})


def _not_empty(git: GitRepo) -> None:
    if not git.refs():
        raise RestError(409, "Git Repository is empty.")


def _object(git: GitRepo, sha: str, kind: str) -> str | None:
    """``sha`` when it is a full sha of an object of ``kind``."""
    return sha if _SHA.match(sha) and git.object_type(sha) == kind else None


# ---------------------------------------------------------------------------------- trees


@route("GET", _REPO + "/git/trees/{tree_sha}")
def _get_tree(ctx: Ctx) -> Any:
    """A tree by its sha, or the tree of a commit, branch or tag; ``recursive`` with any value
    lists every entry below it."""
    git = ctx.world.git
    wanted = ctx.args["tree_sha"]
    sha = _object(git, wanted.lower(), "tree")
    if sha is None:
        commit = git.resolve(wanted.removeprefix("refs/heads/").removeprefix("heads/"))
        info = git.commit(commit) if commit else None
        if info is None:
            raise RestError(404, "Not Found")
        sha = info.tree
    entries = git.tree(sha, recursive=ctx.param("recursive") is not None) or []
    return tree_json(ctx.links, sha, entries)


def _change(git: GitRepo, item: Any) -> TreeChange:
    if not isinstance(item, dict):
        raise RestError(422, "Invalid request.\n\nFor 'items', is not an object.")
    path, mode = item.get("path"), str(item.get("mode") or "")
    if not path:
        raise _invalid("path")
    if mode not in _MODES:
        raise RestError(422, f'Invalid request.\n\n"{mode}" is not a valid tree entry mode.')
    content = item.get("content")
    if ("sha" in item) == (content is not None):
        raise RestError(422, _NEITHER)
    if content is not None:
        return TreeChange(str(path), mode, data=str(content).encode("utf-8"))
    sha = item["sha"]
    if sha is None:
        return TreeChange(str(path), mode)
    kind = str(item.get("type") or _MODES[mode])
    # a submodule's commit lives in another repository
    if kind != "commit" and _object(git, str(sha), kind) is None:
        raise RestError(422, f"tree.sha {sha} is not a valid {kind}")
    return TreeChange(str(path), mode, sha=str(sha))


@route("POST", _REPO + "/git/trees")
def _create_tree(ctx: Ctx) -> Any:
    """A new tree: ``base_tree``'s with the ``tree`` entries set (by ``sha`` or ``content``)
    or removed (``sha: null``); without ``base_tree``, only the entries."""
    git = ctx.world.git
    items = ctx.body.get("tree")
    if not isinstance(items, list):
        raise _invalid("tree")
    _not_empty(git)
    base = ctx.body.get("base_tree")
    if base is not None and not any(_object(git, str(base), k) for k in ("tree", "commit")):
        raise RestError(422, "base_tree is not a valid tree oid")
    changes = [_change(git, item) for item in items]
    try:
        sha = build_tree(git, str(base) if base else None, changes)
    except GitError:
        raise RestError(422, "GitRPC::BadObjectState") from None
    ctx.mutated = True
    return _created(ctx, "trees", sha, tree_json(ctx.links, sha, git.tree(sha) or []))


# ---------------------------------------------------------------------------------- blobs


@route("GET", _REPO + "/git/blobs/{file_sha}")
def _get_blob(ctx: Ctx) -> Any:
    git = ctx.world.git
    sha = _object(git, ctx.args["file_sha"].lower(), "blob")
    data = git.blob(sha) if sha else None
    if sha is None or data is None:
        raise RestError(404, "Not Found")
    if wants_raw(ctx):
        return ApiResponse(200, data, {"Content-Type": "application/octet-stream"})
    return blob_json(ctx.links, sha, data)


@route("POST", _REPO + "/git/blobs")
def _create_blob(ctx: Ctx) -> Any:
    """A new blob of ``content``, text (``encoding`` ``utf-8``, the default) or ``base64``."""
    git = ctx.world.git
    content = ctx.body.get("content")
    if content is None:
        raise _invalid("content")
    encoding = str(ctx.body.get("encoding") or "utf-8").lower()
    if encoding in ("utf-8", "utf8"):
        data = str(content).encode("utf-8")
    elif encoding == "base64":
        try:
            data = base64.b64decode(str(content))
        except (binascii.Error, ValueError):
            raise RestError(422, "content is not valid Base64") from None
    else:
        raise RestError(
            422,
            "Validation Failed",
            [{"resource": "Blob", "field": "encoding", "code": "invalid"}],
        )
    _not_empty(git)
    sha = git.write_blob(data)
    ctx.mutated = True
    return _created(ctx, "blobs", sha, {"url": ctx.links.api(f"git/blobs/{sha}"), "sha": sha})


# ---------------------------------------------------------------------------------- commits


@route("GET", _REPO + "/git/commits/{commit_sha}")
def _get_commit(ctx: Ctx) -> Any:
    git = ctx.world.git
    sha = _object(git, ctx.args["commit_sha"].lower(), "commit")
    commit = git.commit(sha) if sha else None
    if commit is None:
        raise RestError(404, "Not Found")
    return git_commit_json(ctx.links, commit)


@route("POST", _REPO + "/git/commits")
def _create_commit(ctx: Ctx) -> Any:
    """A new commit of ``tree`` on ``parents`` (none: a root commit) with ``message``; the
    ``author`` and ``committer`` default to the viewer, now."""
    world, body = ctx.world, ctx.body
    git = world.git
    for name in ("message", "tree"):
        if body.get(name) is None:
            raise _invalid(name)
    parents = body.get("parents") or []
    if not isinstance(parents, list):
        raise RestError(422, "Invalid request.\n\nFor 'properties/parents', is not an array.")
    for parent in parents:
        if not isinstance(parent, str) or not _SHA.match(parent):
            raise RestError(
                422,
                "Each SHA in the 'parents' parameter must be exactly 40 characters and "
                "contain only [0-9a-f].",
            )
        if git.commit(parent) is None:
            raise RestError(422, "Parent SHA does not exist or is not a commit object")
    tree = _object(git, str(body["tree"]), "tree")
    if tree is None:
        raise RestError(422, "Tree SHA does not exist")
    now = world.tick()
    author = writer(ctx, "author", now)
    committer = writer(ctx, "committer", now) if body.get("committer") else author
    sha = git.write_commit(tree, list(parents), str(body["message"]), author, committer)
    ctx.mutated = True
    commit = git.commit(sha)
    assert commit is not None
    return _created(ctx, "commits", sha, git_commit_json(ctx.links, commit))


# ---------------------------------------------------------------------------------- tags


@route("GET", _REPO + "/git/tags/{tag_sha}")
def _get_tag(ctx: Ctx) -> Any:
    git = ctx.world.git
    sha = ctx.args["tag_sha"].lower()
    tag = git.tag_object(sha) if _SHA.match(sha) else None
    if tag is None:
        raise RestError(404, "Not Found")
    return tag_json(ctx.links, tag)


@route("POST", _REPO + "/git/tags")
def _create_tag(ctx: Ctx) -> Any:
    """An annotated tag object named ``tag`` for ``object`` (of ``type``); the ref
    ``refs/tags/<tag>`` is the client's to create, as on GitHub."""
    world, body = ctx.world, ctx.body
    git = world.git
    for name in ("tag", "message", "object", "type"):
        if body.get(name) is None:
            raise _invalid(name)
    target, kind = str(body["object"]), str(body["type"])
    if kind not in ("commit", "tree", "blob"):
        raise RestError(422, f'Invalid request.\n\n"{kind}" is not a valid object type.')
    if _object(git, target, kind) is None:
        raise RestError(422, "Object does not exist")
    now = world.tick()
    tagger = writer(ctx, "tagger", now)
    message = str(body["message"])
    sha = write_tag(git, str(body["tag"]), target, message, tagger)
    ctx.mutated = True
    tag = git.tag_object(sha)
    assert tag is not None
    return _created(ctx, "tags", sha, tag_json(ctx.links, tag))
