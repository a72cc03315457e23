"""Raw files, as ``raw.githubusercontent.com/OWNER/REPO/REF/PATH`` (and an Enterprise Server's
``/raw/OWNER/REPO/REF/PATH``) serve them: the bytes of a file at a branch, tag, full ref or
sha, ``text/plain`` (``application/octet-stream`` for binary files), else ``404: Not Found``.
GitHub's MCP server reads files this way; ``download_url`` points here."""

from __future__ import annotations

from urllib.parse import unquote

from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiResponse
from pytest_ghxbench.sandbox.state import World

__all__ = ["not_found", "raw_file"]


def not_found() -> ApiResponse:
    return ApiResponse(404, b"404: Not Found", {"Content-Type": "text/plain; charset=utf-8"})


def raw_file(world: World, request: ApiRequest) -> ApiResponse:
    """The file ``request.path`` (``/OWNER/REPO/REF/PATH``) names; a ref may hold slashes, so
    the longest prefix that names a commit holding the rest as a file wins."""
    parts = [unquote(p) for p in request.path.strip("/").split("/")]
    repo = world.repository
    if len(parts) < 4 or f"{parts[0]}/{parts[1]}".casefold() != repo.full_name.casefold():
        return not_found()
    git = world.git
    rest = parts[2:]
    for cut in range(len(rest) - 1, 0, -1):
        commit = git.resolve("/".join(rest[:cut]))
        if commit is None:
            continue
        data = git.read(commit, "/".join(rest[cut:]))
        if data is not None:
            kind = "application/octet-stream" if b"\0" in data else "text/plain; charset=utf-8"
            return ApiResponse(200, data, {"Content-Type": kind})
    return not_found()
