"""Release capabilities: listing and reading releases, and the draft-first release flow.

Every input also has ``owner`` and ``name`` (the repository). A release's data is id, tagName,
name, isDraft, isPrerelease, url, targetCommitish, createdAt, publishedAt (``release.get`` adds
body, author and assets).

- ``release.list`` (``first``, ``after``; newest first, drafts included) → items, pageInfo
- ``release.get`` (``tagName``) → the release with that tag: the published one, else the
  newest draft (as ``gh release view`` finds drafts too; GitHub's by-tag lookup does not)
- ``release.create_draft`` (``tagName``, ``title``, ``notes``, ``targetCommitish`` (a branch
  or a commit sha; default the default branch), ``prerelease``) → the new draft
- ``release.update`` (``releaseId``, ``tagName``, ``title``, ``notes``, ``targetCommitish``,
  ``prerelease``, ``draft``) → the release after the change
- ``release.publish_draft`` (``releaseId``, ``title``, ``notes``, ``prerelease``) → the
  published release plus ``wasDraft``

Drafts have no tag yet, so several drafts may share a tag name, but a tag can belong to one
published release only; that and the draft state are checked here before writing, so the
codes do not depend on how GitHub words its 422s. ``release.update`` edits without publishing:
``draft: false`` is refused (publish with ``release.publish_draft``), as is turning a published
release back into a draft.

Errors: ``NOT_FOUND`` for an unknown repository, tag or release id; ``VALIDATION`` for an
unknown target branch or commit and ``draft: false`` in an update; ``CONFLICT`` for a tag a
published release already has, publishing a published release and un-publishing one.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.ghx.capabilities.shapes import login, repo_path, rest_page
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import AFTER, FIRST, CapabilityError, capability, repo_schema

__all__ = ["release_data"]

TEXT: dict[str, Any] = {"type": "string", "minLength": 1}
TAG: dict[str, Any] = {"type": "string", "minLength": 1, "description": "Tag name, e.g. v1.2.0"}
RELEASE_ID: dict[str, Any] = {"type": "integer", "minimum": 1, "description": "Release id"}
_MAX_RELEASES = 500
# input key -> REST field of a release write
_WRITES = (
    ("title", "name"),
    ("notes", "body"),
    ("tagName", "tag_name"),
    ("targetCommitish", "target_commitish"),
    ("prerelease", "prerelease"),
)


def release_data(release: Mapping[str, Any]) -> dict[str, Any]:
    """The fields every release capability returns, from a REST release."""
    return {
        "id": release["id"],
        "tagName": release["tag_name"],
        "name": release.get("name") or None,
        "isDraft": bool(release.get("draft")),
        "isPrerelease": bool(release.get("prerelease")),
        "url": release.get("html_url"),
        "targetCommitish": release.get("target_commitish"),
        "createdAt": release.get("created_at"),
        "publishedAt": release.get("published_at"),
    }


def _published_with_tag(
    client: GitHubClient, input: Mapping[str, Any], tag: str
) -> dict[str, Any] | None:
    quoted = urllib.parse.quote(tag, safe="/")
    try:
        found: dict[str, Any] = client.rest("GET", f"{repo_path(input)}/releases/tags/{quoted}")
    except GitHubError as exc:
        if exc.status != 404:
            raise
        return None
    return found if not found.get("draft") else None


def _tag_is_free(
    client: GitHubClient, input: Mapping[str, Any], tag: str, release_id: int | None = None
) -> None:
    taken = _published_with_tag(client, input, tag)
    if taken is not None and taken["id"] != release_id:
        raise CapabilityError(
            "CONFLICT",
            f"tag_name already_exists: release {taken['id']} is published with tag {tag}",
        )


def _release(client: GitHubClient, input: Mapping[str, Any]) -> dict[str, Any]:
    path = f"{repo_path(input)}/releases/{input['releaseId']}"
    try:
        found: dict[str, Any] = client.rest("GET", path)
    except GitHubError as exc:
        if exc.status != 404:
            raise
        raise CapabilityError("NOT_FOUND", f"release {input['releaseId']} not found") from None
    return found


def _write(client: GitHubClient, method: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    try:
        written: dict[str, Any] = client.rest(method, path, body=body)
    except GitHubError as exc:
        # a tag taken meanwhile: GitHub says so with a 422 "already_exists"
        if exc.status == 422 and "already_exists" in exc.message:
            raise CapabilityError("CONFLICT", exc.message) from None
        raise
    return written


# ---------------------------------------------------------------- reads


@capability(
    "release.list",
    "List releases, newest first (drafts included).",
    repo_schema(first=FIRST, after=AFTER),
)
def release_list(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return rest_page(client, f"{repo_path(input)}/releases", input, release_data)


@capability(
    "release.get",
    "Get the release with a tag name (its notes, author and assets too).",
    repo_schema("tagName", tagName=TAG),
)
def release_get(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    tag = input["tagName"]
    release = _published_with_tag(client, input, tag)
    if release is None:
        listed = client.paginate(f"{repo_path(input)}/releases", limit=_MAX_RELEASES)
        release = next((r for r in listed if r.get("tag_name") == tag), None)
    if release is None:
        raise CapabilityError("NOT_FOUND", f"release not found: no release has the tag {tag}")
    return {
        **release_data(release),
        "body": release.get("body") or "",
        "author": login(release.get("author")),
        "assets": [
            {
                "name": asset["name"],
                "size": asset.get("size"),
                "downloadCount": asset.get("download_count"),
                "contentType": asset.get("content_type"),
            }
            for asset in release.get("assets") or []
        ],
    }


# ---------------------------------------------------------------- the draft-first flow


@capability(
    "release.create_draft",
    "Create a draft release for a tag (the tag is created when the release is published).",
    repo_schema(
        "tagName",
        tagName=TAG,
        title=TEXT,
        notes=TEXT,
        targetCommitish=TEXT,
        prerelease={"type": "boolean", "default": False},
    ),
    mutates=True,
)
def release_create_draft(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    _tag_is_free(client, input, input["tagName"])
    body = {field: input[key] for key, field in _WRITES if key in input}
    created = _write(client, "POST", f"{repo_path(input)}/releases", {**body, "draft": True})
    return release_data(created)


@capability(
    "release.update",
    "Edit a release's tag, title, notes, target or prerelease flag without publishing it.",
    repo_schema(
        "releaseId",
        releaseId=RELEASE_ID,
        tagName=TAG,
        title=TEXT,
        notes=TEXT,
        targetCommitish=TEXT,
        prerelease={"type": "boolean"},
        draft={"type": "boolean", "description": "Only true: publish with release.publish_draft"},
    ),
    mutates=True,
)
def release_update(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    release = _release(client, input)
    is_draft = bool(release.get("draft"))
    if input.get("draft") is False and is_draft:
        raise CapabilityError(
            "VALIDATION",
            "input.draft: release.update does not publish; use release.publish_draft",
        )
    if input.get("draft") is True and not is_draft:
        raise CapabilityError(
            "CONFLICT", f"release {release['id']} is published; it cannot become a draft again"
        )
    if "tagName" in input and not is_draft:
        _tag_is_free(client, input, input["tagName"], release["id"])
    body = {field: input[key] for key, field in _WRITES if key in input}
    if not body:
        return release_data(release)
    path = f"{repo_path(input)}/releases/{release['id']}"
    return release_data(_write(client, "PATCH", path, body))


@capability(
    "release.publish_draft",
    "Publish a draft release (creating its tag), optionally setting title, notes, prerelease.",
    repo_schema(
        "releaseId",
        releaseId=RELEASE_ID,
        title=TEXT,
        notes=TEXT,
        prerelease={"type": "boolean"},
    ),
    mutates=True,
)
def release_publish_draft(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    release = _release(client, input)
    if not release.get("draft"):
        raise CapabilityError(
            "CONFLICT", f"release {release['id']} ({release['tag_name']}) is already published"
        )
    _tag_is_free(client, input, release["tag_name"], release["id"])
    body = {field: input[key] for key, field in _WRITES if key in input}
    path = f"{repo_path(input)}/releases/{release['id']}"
    published = _write(client, "PATCH", path, {**body, "draft": False})
    return {**release_data(published), "wasDraft": True}
