"""Source archives: ``GET /tarball/{ref}`` and ``/zipball/{ref}`` (no ref: the default branch)
answer ``302 Found`` with a short-lived download link, as GitHub answers with a codeload link.
The bytes are ``git archive`` of the commit, every path under ``OWNER-REPO-SHORTSHA/``, named
as GitHub names the "legacy" archives (``OWNER-REPO-SHORTSHA``, for a tag
``OWNER-REPO-TAG-0-gSHORTSHA``).

The link's path ends in ``legacy.<format>/<full ref>``, as codeload's does: gh, downloading a
release's source archive, rewrites that to ``<format>/<full ref>`` to get the archive the web
offers instead (``REPO-VERSION/``, named ``REPO-VERSION``); for a tag the link also carries
that one (``alt``), so gh saves what it saves from GitHub.
"""

from __future__ import annotations

import re
from typing import Any

from pytest_ghxbench.sandbox.api.rest.router import Ctx, RestError, route
from pytest_ghxbench.sandbox.api.types import ApiResponse
from pytest_ghxbench.sandbox.git.commands import archive

__all__: list[str] = []

_REPO = "/repos/{owner}/{repo}"
_TYPES = {"tar.gz": "application/x-gzip", "zip": "application/zip"}


def _full_ref(ctx: Ctx, ref: str) -> tuple[str, str] | None:
    """``(full ref or sha, commit)`` that ``ref`` names (empty: the default branch)."""
    git = ctx.world.git
    ref = ref or git.default_branch
    for name in (ref, f"refs/{ref}", f"refs/heads/{ref}", f"refs/tags/{ref}"):
        if name.startswith("refs/") and git.ref(name) is not None:
            commit = git.resolve(name)
            return (name, commit) if commit else None
    commit = git.resolve(ref)
    return (commit, commit) if commit else None


def _web_name(repo: str, full: str) -> str:
    """The web archive's name: ``REPO-VERSION`` for a tag (``v1.2`` gives ``1.2``), else
    ``REPO-<branch or sha>`` with slashes as dashes."""
    name = full.removeprefix("refs/tags/").removeprefix("refs/heads/")
    if full.startswith("refs/tags/"):
        name = re.sub(r"^v(?=\d)", "", name)
    return f"{repo}-{name.replace('/', '-')}"


def _archive(ctx: Ctx, fmt: str) -> Any:
    world = ctx.world
    git = world.git
    found = _full_ref(ctx, ctx.args.get("ref", ""))
    if found is None:
        raise RestError(404, "Not Found")
    full, commit = found
    repo = world.repository
    short = commit[:7]
    legacy = f"{repo.owner}-{repo.name}-{short}"
    named = legacy
    if full.startswith("refs/tags/"):
        named = f"{repo.owner}-{repo.name}-{full.removeprefix('refs/tags/')}-0-g{short}"
    kind = _TYPES[fmt]
    url = ctx.request.blobs.put(archive(git, commit, fmt, f"{legacy}/"), kind, f"{named}.{fmt}")
    url += f"/legacy.{fmt}/{full}"
    if full.startswith("refs/tags/"):
        web = _web_name(repo.name, full)
        other = ctx.request.blobs.put(archive(git, commit, fmt, f"{web}/"), kind, f"{web}.{fmt}")
        url += "?alt=" + other.rsplit("/", 1)[-1]
    return ApiResponse(302, b"", {"Location": url})


@route("GET", _REPO + "/tarball/{ref}", status=302, optional_tail=True)
def _tarball(ctx: Ctx) -> Any:
    return _archive(ctx, "tar.gz")


@route("GET", _REPO + "/zipball/{ref}", status=302, optional_tail=True)
def _zipball(ctx: Ctx) -> Any:
    return _archive(ctx, "zip")
