"""REST routes for the viewer's gists: listing, creating, reading, editing and deleting them.
The seed has none, so lists start empty; another user's gists are an empty list too."""

from __future__ import annotations

import hashlib
from typing import Any

from pytest_ghxbench.sandbox.api.rest.render_core import user_json
from pytest_ghxbench.sandbox.api.rest.router import Ctx, RestError, missing_field, paged, route
from pytest_ghxbench.sandbox.state import Gist, GistFile

__all__: list[str] = []

A = dict[str, Any]
_GIST = "/gists/{gist_id}"
_KINDS = {
    ".md": ("Markdown", "text/markdown"),
    ".py": ("Python", "application/x-python"),
    ".json": ("JSON", "application/json"),
    ".yml": ("YAML", "application/x-yaml"),
    ".yaml": ("YAML", "application/x-yaml"),
    ".sh": ("Shell", "application/x-sh"),
}
"""Linguist's language and the type GitHub gives a gist file, by extension (else Text)."""


def _file_json(ctx: Ctx, gist: Gist, item: GistFile, full: bool) -> A:
    raw = f"https://gist.githubusercontent.com/{gist.owner}/{gist.id}/raw/{item.filename}"
    suffix = "." + item.filename.rsplit(".", 1)[-1].lower() if "." in item.filename else ""
    language, kind = _KINDS.get(suffix, ("Text", "text/plain"))
    data: A = {
        "filename": item.filename,
        "type": kind,
        "language": language,
        "raw_url": raw,
        "size": len(item.content.encode()),
    }
    if full:
        data.update(truncated=False, content=item.content, encoding="utf-8")
    return data


def _gist_json(ctx: Ctx, gist: Gist, *, full: bool = True) -> A:
    url = f"{ctx.urls.api}/gists/{gist.id}"
    owner = user_json(ctx.links, gist.owner)
    data: A = {
        "url": url,
        "forks_url": f"{url}/forks",
        "commits_url": f"{url}/commits",
        "id": gist.id,
        "node_id": f"G_kwDO{gist.id[:14]}",
        "git_pull_url": f"https://gist.github.com/{gist.id}.git",
        "git_push_url": f"https://gist.github.com/{gist.id}.git",
        "html_url": f"https://gist.github.com/{gist.owner}/{gist.id}",
        "files": {f.filename: _file_json(ctx, gist, f, full) for f in gist.files},
        "public": gist.public,
        "created_at": gist.created_at,
        "updated_at": gist.updated_at,
        "description": gist.description,
        "comments": 0,
        "comments_enabled": True,
        "user": None,
        "comments_url": f"{url}/comments",
        "owner": owner,
        "truncated": False,
    }
    if full:
        data.update(forks=[], history=[])
    return data


def _find(ctx: Ctx) -> Gist:
    wanted = ctx.args["gist_id"]
    found = next((g for g in ctx.world.gists if g.id == wanted), None)
    if found is None:
        raise RestError(404, "Not Found")
    return found


def _files(body: A, *, creating: bool) -> dict[str, Any]:
    files = body.get("files")
    if not isinstance(files, dict) or (creating and not files):
        raise missing_field("Gist", "files")
    return files


@route("GET", "/gists")
def _list(ctx: Ctx) -> Any:
    newest = sorted(ctx.world.gists, key=lambda g: g.created_at, reverse=True)
    return [_gist_json(ctx, g, full=False) for g in paged(ctx, newest)]


@route("GET", "/users/{username}/gists")
def _of_user(ctx: Ctx) -> Any:
    login = ctx.args["username"].casefold()
    shown = [g for g in ctx.world.gists if g.owner.casefold() == login and g.public]
    newest = sorted(shown, key=lambda g: g.created_at, reverse=True)
    return [_gist_json(ctx, g, full=False) for g in paged(ctx, newest)]


@route("POST", "/gists")
def _create(ctx: Ctx) -> Any:
    files = _files(ctx.body, creating=True)
    contents = []
    for name, spec in files.items():
        content = spec.get("content") if isinstance(spec, dict) else None
        if not isinstance(content, str) or not content:
            raise RestError(
                422,
                "Validation Failed",
                [{"resource": "Gist", "code": "missing_field", "field": "files"}],
            )
        contents.append(GistFile(filename=str(name), content=content))
    world = ctx.world
    number = world.next_id()
    now = world.tick()
    gist = Gist(
        id=hashlib.sha1(f"gist:{world.repository.full_name}:{number}".encode()).hexdigest()[:32],
        owner=world.viewer,
        description=ctx.body.get("description"),
        public=bool(ctx.body.get("public")),
        files=contents,
        created_at=now,
        updated_at=now,
    )
    world.gists.append(gist)
    ctx.mutated = True
    ctx.headers["Location"] = f"{ctx.urls.api}/gists/{gist.id}"
    return _gist_json(ctx, gist)


@route("GET", _GIST)
def _get(ctx: Ctx) -> Any:
    return _gist_json(ctx, _find(ctx))


@route("PATCH", _GIST)
def _edit(ctx: Ctx) -> Any:
    gist = _find(ctx)
    if gist.owner != ctx.world.viewer:
        raise RestError(404, "Not Found")
    if "description" in ctx.body:
        gist.description = ctx.body["description"]
    for name, spec in _files(ctx.body, creating=False).items() if "files" in ctx.body else ():
        existing = next((f for f in gist.files if f.filename == name), None)
        if spec is None:
            gist.files = [f for f in gist.files if f.filename != name]
            continue
        content = spec.get("content") if isinstance(spec, dict) else None
        renamed = spec.get("filename") if isinstance(spec, dict) else None
        if existing is None:
            if content:
                gist.files.append(GistFile(filename=str(renamed or name), content=str(content)))
            continue
        existing.content = str(content) if content is not None else existing.content
        existing.filename = str(renamed or existing.filename)
    gist.updated_at = ctx.world.tick()
    ctx.mutated = True
    return _gist_json(ctx, gist)


@route("DELETE", _GIST, status=204)
def _delete(ctx: Ctx) -> Any:
    gist = _find(ctx)
    if gist.owner != ctx.world.viewer:
        raise RestError(404, "Not Found")
    ctx.world.gists.remove(gist)
    ctx.mutated = True
    return None
