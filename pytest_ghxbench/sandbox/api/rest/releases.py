"""REST routes for releases and their assets (uploads arrive on the uploads host; an asset's
bytes are a ``302`` to a pre-signed link, as on GitHub)."""

from __future__ import annotations

import base64
from typing import Any

from pytest_ghxbench.sandbox.api.rest.links import Links, release_path
from pytest_ghxbench.sandbox.api.rest.render_core import user_json
from pytest_ghxbench.sandbox.api.rest.router import (
    Ctx,
    RestError,
    call,
    missing_field,
    or_not_found,
    paged,
    repo_input,
    route,
)
from pytest_ghxbench.sandbox.api.types import ApiResponse
from pytest_ghxbench.sandbox.gaps import record_unsupported
from pytest_ghxbench.sandbox.operations.merged_pulls import release_notes
from pytest_ghxbench.sandbox.placeholders import placeholder_bytes
from pytest_ghxbench.sandbox.state import Release, ReleaseAsset

__all__ = ["asset_bytes", "release_json"]

A = dict[str, Any]


def _asset_json(links: Links, release: Release, asset: ReleaseAsset) -> A:
    when = release.published_at or release.created_at
    return {
        "url": links.api(f"releases/assets/{asset.id}"),
        "browser_download_url": links.web(f"releases/download/{release.tag_name}/{asset.name}"),
        "id": asset.id,
        "node_id": f"RA_{asset.id}",
        "name": asset.name,
        "label": None,
        "state": "uploaded",
        "content_type": asset.content_type,
        "size": asset.size,
        "digest": None,
        "download_count": asset.download_count,
        "created_at": when,
        "updated_at": when,
        "uploader": user_json(links, release.author),
    }


def release_json(links: Links, release: Release) -> A:
    """A ``release``; drafts have an ``untagged-...`` page, as on GitHub."""
    full = links.world.repository.full_name
    url = links.api(f"releases/{release.id}")
    published = not release.draft
    return {
        "url": url,
        "html_url": links.web(release_path(release)),
        "assets_url": f"{url}/assets",
        "upload_url": (
            f"{links.urls.uploads}/repos/{full}/releases/{release.id}/assets{{?name,label}}"
        ),
        "tarball_url": links.api(f"tarball/{release.tag_name}") if published else None,
        "zipball_url": links.api(f"zipball/{release.tag_name}") if published else None,
        "id": release.id,
        "node_id": release.node_id,
        "tag_name": release.tag_name,
        "target_commitish": release.target_commitish,
        "name": release.name or None,
        "body": release.body or None,
        "draft": release.draft,
        "prerelease": release.prerelease,
        "immutable": False,
        "created_at": release.created_at,
        "published_at": release.published_at,
        "updated_at": release.published_at or release.created_at,
        "author": user_json(links, release.author),
        "assets": [_asset_json(links, release, a) for a in release.assets],
    }


def _release(ctx: Ctx) -> Release:
    return or_not_found(ctx.world.release(ctx.number("release_id")))


@route("GET", "/repos/{owner}/{repo}/releases")
def _list(ctx: Ctx) -> Any:
    newest = sorted(ctx.world.releases, key=lambda r: (r.created_at, r.id), reverse=True)
    links = ctx.links
    return [release_json(links, r) for r in paged(ctx, newest)]


@route("GET", "/repos/{owner}/{repo}/releases/latest")
def _latest(ctx: Ctx) -> Any:
    published = [r for r in ctx.world.releases if not r.draft and not r.prerelease]
    if not published:
        raise RestError(404, "Not Found")
    return release_json(ctx.links, max(published, key=lambda r: r.published_at or ""))


@route("GET", "/repos/{owner}/{repo}/releases/tags/{tag}")
def _by_tag(ctx: Ctx) -> Any:
    tag = ctx.args["tag"]
    found = next((r for r in ctx.world.releases if r.tag_name == tag and not r.draft), None)
    return release_json(ctx.links, or_not_found(found))


@route("GET", "/repos/{owner}/{repo}/releases/{release_id}")
def _get(ctx: Ctx) -> Any:
    return release_json(ctx.links, _release(ctx))


_FIELDS = (
    ("name", "title"),
    ("body", "notes"),
    ("tag_name", "tagName"),
    ("target_commitish", "targetCommitish"),
    ("prerelease", "prerelease"),
)


@route("POST", "/repos/{owner}/{repo}/releases")
def _create(ctx: Ctx) -> Any:
    body = ctx.body
    if not body.get("tag_name"):
        raise missing_field("Release", "tag_name")
    payload: dict[str, Any] = {**repo_input(ctx)}
    for key, name in _FIELDS:
        if body.get(key) is not None:
            payload[name] = body[key]
    created = call(ctx, "repos/create-release", payload)
    if not body.get("draft"):
        created = call(
            ctx,
            "repos/update-release(draft: false)",
            {**repo_input(ctx), "releaseId": created["id"]},
        )
    return release_json(ctx.links, or_not_found(ctx.world.release(created["id"])))


@route("POST", "/repos/{owner}/{repo}/releases/generate-notes", status=200)
def _generate_notes(ctx: Ctx) -> Any:
    body = ctx.body
    if not body.get("tag_name"):
        raise missing_field("Release", "tag_name")
    target, previous = body.get("target_commitish"), body.get("previous_tag_name")
    return release_notes(
        ctx.world,
        ctx.links.web(""),
        str(body["tag_name"]),
        str(target) if target else None,
        str(previous) if previous else None,
    )


@route("PATCH", "/repos/{owner}/{repo}/releases/{release_id}")
def _edit(ctx: Ctx) -> Any:
    release = _release(ctx)
    body = ctx.body
    base = {**repo_input(ctx), "releaseId": release.id}
    changes = {name: body[key] for key, name in _FIELDS if body.get(key) is not None}
    if body.get("draft") is False and release.draft:
        keep = {k: changes.pop(k) for k in ("title", "notes", "prerelease") if k in changes}
        if changes:
            call(ctx, "repos/update-release", {**base, **changes})
        call(ctx, "repos/update-release(draft: false)", {**base, **keep})
    elif changes or body.get("draft") is True:
        extra = {"draft": True} if body.get("draft") else {}
        call(ctx, "repos/update-release", {**base, **changes, **extra})
    return release_json(ctx.links, release)


@route("DELETE", "/repos/{owner}/{repo}/releases/{release_id}", status=204)
def _delete(ctx: Ctx) -> Any:
    ctx.world.releases.remove(_release(ctx))
    ctx.mutated = True
    return None


@route("GET", "/repos/{owner}/{repo}/releases/{release_id}/assets")
def _assets(ctx: Ctx) -> Any:
    release = _release(ctx)
    links = ctx.links
    return [_asset_json(links, release, a) for a in paged(ctx, list(release.assets))]


@route("POST", "/repos/{owner}/{repo}/releases/{release_id}/assets", raw=True)
def _upload(ctx: Ctx) -> Any:
    """An upload (on the uploads host): the body is the file, ``name`` names it."""
    release = _release(ctx)
    name = (ctx.param("name") or "").strip()
    if not name:
        raise missing_field("ReleaseAsset", "name")
    if any(a.name == name for a in release.assets):
        raise RestError(
            422,
            "Validation Failed",
            [{"resource": "ReleaseAsset", "code": "already_exists", "field": "name"}],
        )
    kind = ctx.request.headers.get("content-type") or "application/octet-stream"
    data = ctx.request.body
    asset = ReleaseAsset(
        id=ctx.world.next_id(),
        name=name,
        size=len(data),
        content_type=kind,
        data=base64.b64encode(data),
    )
    release.assets.append(asset)
    ctx.mutated = True
    return _asset_json(ctx.links, release, asset)


def _find_asset(ctx: Ctx) -> tuple[Release, ReleaseAsset]:
    wanted = ctx.number("asset_id")
    for release in ctx.world.releases:
        for asset in release.assets:
            if asset.id == wanted:
                return release, asset
    raise RestError(404, "Not Found")


def asset_bytes(asset: ReleaseAsset) -> bytes:
    """What a download of ``asset`` gives: the uploaded bytes, or a seeded asset's placeholder
    of its declared size."""
    if asset.data is not None:
        return asset.data
    # gap: the seed gives an asset a size and a type, not its content
    record_unsupported("release asset contents (placeholder bytes)")
    return placeholder_bytes(asset.name, asset.size, asset.content_type)


def download(ctx: Ctx, asset: ReleaseAsset) -> ApiResponse:
    """GitHub's answer to a download: ``302`` to a short-lived link that serves the bytes (and
    the download is counted)."""
    asset.download_count += 1
    ctx.mutated = True
    url = ctx.request.blobs.put(asset_bytes(asset), asset.content_type, asset.name)
    return ApiResponse(302, b"", {"Location": url})


@route("GET", "/repos/{owner}/{repo}/releases/assets/{asset_id}")
def _asset(ctx: Ctx) -> Any:
    release, asset = _find_asset(ctx)
    if "application/octet-stream" in ctx.accept:
        return download(ctx, asset)
    return _asset_json(ctx.links, release, asset)


@route("DELETE", "/repos/{owner}/{repo}/releases/assets/{asset_id}", status=204)
def _delete_asset(ctx: Ctx) -> Any:
    release, asset = _find_asset(ctx)
    release.assets.remove(asset)
    ctx.mutated = True
    return None
