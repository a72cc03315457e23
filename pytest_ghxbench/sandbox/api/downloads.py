"""Release assets at their ``browser_download_url`` (``<web>/OWNER/REPO/releases/download/TAG/
NAME``), where browsers, curl and ``gh release download --pattern`` scripts fetch them.

GitHub answers a published release's asset there without a token (the repository is public)
with a ``302`` to a short-lived link. The sandbox does the same. A request with an item's token
acts on that item's world (and counts the download). A request without one cannot name a
world, so it is answered from any served world that holds the asset as seeded: a seeded
asset's bytes depend only on its seeded name, size and type, so they are the same in every
world of that seed and tell nothing of any item's changes. An uploaded asset needs the token.
"""

from __future__ import annotations

from urllib.parse import unquote

from pytest_ghxbench.sandbox.api.registry import Slot, WorldRegistry
from pytest_ghxbench.sandbox.api.types import ApiResponse, BlobStore
from pytest_ghxbench.sandbox.state import ReleaseAsset, World

__all__ = ["release_download"]

_NOT_FOUND = ApiResponse(404, b"Not Found", {"Content-Type": "text/plain; charset=utf-8"})


def _find(world: World, path: str) -> ReleaseAsset | None:
    owner, repo, _releases, _download, tag, name = (unquote(p) for p in path.strip("/").split("/"))
    if (owner.casefold(), repo.casefold()) != (
        world.repository.owner.casefold(),
        world.repository.name.casefold(),
    ):
        return None
    for release in world.releases:
        if release.tag_name == tag and not release.draft:
            return next((a for a in release.assets if a.name == name), None)
    return None


def _redirect(asset: ReleaseAsset, blobs: BlobStore) -> ApiResponse:
    from pytest_ghxbench.sandbox.api.rest.releases import asset_bytes

    url = blobs.put(asset_bytes(asset), asset.content_type, asset.name)
    return ApiResponse(302, b"", {"Location": url})


def release_download(
    registry: WorldRegistry, slot: Slot | None, path: str, url: str, blobs: BlobStore
) -> ApiResponse:
    """The answer to ``GET url`` (``path`` on the web host): ``302`` to the asset's bytes, or
    404."""
    if slot is not None:
        with slot.held() as world:
            asset = _find(world, path)
            if asset is None:
                response = _NOT_FOUND
            else:
                asset.download_count += 1
                response = _redirect(asset, blobs)
        slot.requests.append(("GET", url, response.status))
        return response
    for other in registry.slots():
        with other.held() as world:
            asset = _find(world, path)
            if asset is not None and asset.data is None:
                return _redirect(asset, blobs)
    return _NOT_FOUND
