"""Release capabilities: listing and reading releases, and the draft-first release flow.

Every input also has ``owner`` and ``name`` (the repository). A release's data is id, tagName,
name, isDraft, isPrerelease, url, targetCommitish, createdAt, publishedAt (``release.get`` adds
body, author and assets).

- ``release.list`` (``first``, ``after``; newest first, drafts included) → items, pageInfo
- ``release.get`` (``tagName``) → the release with that tag: the published one, else the
  newest draft (as ``gh release view`` finds drafts too)
- ``release.create_draft`` (``tagName``, ``title``, ``notes``, ``targetCommitish`` (a branch
  or a commit sha; default the default branch), ``prerelease``) → the new draft
- ``release.update`` (``releaseId``, ``tagName``, ``title``, ``notes``, ``targetCommitish``,
  ``prerelease``, ``draft``) → the release after the change
- ``release.publish_draft`` (``releaseId``, ``title``, ``notes``, ``prerelease``) → the
  published release plus ``wasDraft``

Semantics follow GitHub's: drafts have no tag yet, so several drafts may share a tag name
(their page is ``releases/tag/untagged-...``), but a tag can belong to one published release
only. ``release.update`` edits without publishing: ``draft: false`` is refused (publish with
``release.publish_draft``), as is turning a published release back into a draft.

Errors: ``NOT_FOUND`` for an unknown repository, tag or release id; ``VALIDATION`` for an
unknown target branch or commit and ``draft: false`` in an update; ``CONFLICT`` for a tag a
published release already has, publishing a published release and un-publishing one.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from pytest_ghxbench.sandbox.capabilities.registry import (
    CapabilityError,
    capability,
    repo_schema,
    require_repo,
)
from pytest_ghxbench.sandbox.state import Release, World

__all__ = ["release_data"]

TEXT: dict[str, Any] = {"type": "string", "minLength": 1}
TAG: dict[str, Any] = {"type": "string", "minLength": 1, "description": "Tag name, e.g. v1.2.0"}
RELEASE_ID: dict[str, Any] = {"type": "integer", "minimum": 1, "description": "Release id"}
_SHA = re.compile(r"^[0-9a-f]{40}$")


def _url(world: World, release: Release) -> str:
    base = f"{world.repository.url}/releases/tag/"
    if not release.draft:
        return base + release.tag_name
    return base + "untagged-" + hashlib.sha1(str(release.id).encode()).hexdigest()[:20]


def release_data(world: World, release: Release) -> dict[str, Any]:
    """The fields every release capability returns."""
    return {
        "id": release.id,
        "tagName": release.tag_name,
        "name": release.name or None,
        "isDraft": release.draft,
        "isPrerelease": release.prerelease,
        "url": _url(world, release),
        "targetCommitish": release.target_commitish,
        "createdAt": release.created_at,
        "publishedAt": release.published_at,
    }


def _release(world: World, input: dict[str, Any]) -> Release:
    require_repo(world, input)
    release = world.release(input["releaseId"])
    if release is None:
        raise CapabilityError("NOT_FOUND", f"release {input['releaseId']} not found")
    return release


def _edit_text(release: Release, input: dict[str, Any]) -> None:
    """Apply the ``title``, ``notes`` and ``prerelease`` the input gives."""
    release.name = input.get("title", release.name)
    release.body = input.get("notes", release.body)
    release.prerelease = input.get("prerelease", release.prerelease)


def _tag_is_free(world: World, tag: str, release: Release | None = None) -> None:
    taken = next(
        (r for r in world.releases if r.tag_name == tag and not r.draft and r is not release),
        None,
    )
    if taken is not None:
        raise CapabilityError(
            "CONFLICT", f"tag_name already_exists: release {taken.id} is published with tag {tag}"
        )


def _target(world: World, commitish: str) -> str:
    if _SHA.match(commitish) or any(b.name == commitish for b in world.repository.branches):
        return commitish
    raise CapabilityError(
        "VALIDATION",
        f"input.targetCommitish: {commitish!r} is neither a branch of "
        f"{world.repository.full_name} nor a 40-character commit sha",
    )


# ---------------------------------------------------------------- reads


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
def release_create_draft(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    _tag_is_free(world, input["tagName"])
    target = _target(world, input.get("targetCommitish", world.repository.default_branch))
    release_id = world.next_id()
    release = Release(
        id=release_id,
        tag_name=input["tagName"],
        name=input.get("title", ""),
        node_id=world.node("RE", release_id),
        body=input.get("notes", ""),
        draft=True,
        prerelease=input["prerelease"],
        target_commitish=target,
        author=world.viewer,
        created_at=world.tick(),
    )
    world.releases.append(release)
    return release_data(world, release)


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
def release_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    release = _release(world, input)
    if input.get("draft") is False and release.draft:
        raise CapabilityError(
            "VALIDATION",
            "input.draft: release.update does not publish; use release.publish_draft",
        )
    if input.get("draft") is True and not release.draft:
        raise CapabilityError(
            "CONFLICT", f"release {release.id} is published; it cannot become a draft again"
        )
    if "tagName" in input and not release.draft:
        _tag_is_free(world, input["tagName"], release)
    if "targetCommitish" in input:
        release.target_commitish = _target(world, input["targetCommitish"])
    release.tag_name = input.get("tagName", release.tag_name)
    _edit_text(release, input)
    return release_data(world, release)


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
def release_publish_draft(world: World, input: dict[str, Any]) -> dict[str, Any]:
    release = _release(world, input)
    if not release.draft:
        raise CapabilityError(
            "CONFLICT", f"release {release.id} ({release.tag_name}) is already published"
        )
    _tag_is_free(world, release.tag_name, release)
    _edit_text(release, input)
    release.draft = False
    release.published_at = world.tick()
    return {**release_data(world, release), "wasDraft": True}
