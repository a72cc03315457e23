"""World operations on releases: the draft-first flow (create a draft, edit it, publish it)."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from pytest_ghxbench.sandbox.errors import Conflict, GitHubError, NotFound, Unprocessable
from pytest_ghxbench.sandbox.operations.registry import (
    operation,
    require_repo,
)
from pytest_ghxbench.sandbox.state import Release, World

__all__ = ["release_data"]

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
        raise NotFound(f"release {input['releaseId']} not found")
    return release


def _edit_text(release: Release, input: dict[str, Any]) -> None:
    """Apply the ``title``, ``notes`` and ``prerelease`` the input gives."""
    release.name = input.get("title", release.name)
    release.body = input.get("notes", release.body)
    release.prerelease = input.get("prerelease", release.prerelease)


def _tag_is_free(world: World, tag: str, release: Release | None = None) -> None:
    """GitHub's 422 when a published release (other than ``release``) has ``tag``; drafts
    hold no tag."""
    if any(r.tag_name == tag and not r.draft and r is not release for r in world.releases):
        raise GitHubError.validation("Release", "tag_name", "already_exists")


def _target(world: World, commitish: str) -> str:
    git = world.git
    if git.ref(f"refs/heads/{commitish}") is not None:
        return commitish
    if _SHA.match(commitish) and git.commit(commitish) is not None:
        return commitish
    raise GitHubError.validation("Release", "target_commitish", "invalid")


def create_release_tag(world: World, release: Release) -> None:
    """Publishing a release creates its tag (at the target) when the tag does not exist yet."""
    git = world.git
    name = f"refs/tags/{release.tag_name}"
    if git.ref(name) is None:
        target = git.resolve(release.target_commitish)
        if target is not None:
            git.set_ref(name, target)


# ---------------------------------------------------------------- reads


# ---------------------------------------------------------------- the draft-first flow


@operation("repos/create-release")
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
        prerelease=bool(input.get("prerelease")),
        target_commitish=target,
        author=world.viewer,
        created_at=world.tick(),
    )
    world.releases.append(release)
    return release_data(world, release)


@operation("repos/update-release")
def release_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    release = _release(world, input)
    if input.get("draft") is False and release.draft:
        raise Unprocessable(
            "release.update does not publish; use release.publish_draft",
        )
    if input.get("draft") is True and not release.draft:
        raise Conflict(f"release {release.id} is published; it cannot become a draft again")
    if "tagName" in input and not release.draft:
        _tag_is_free(world, input["tagName"], release)
    if "targetCommitish" in input:
        release.target_commitish = _target(world, input["targetCommitish"])
    release.tag_name = input.get("tagName", release.tag_name)
    _edit_text(release, input)
    return release_data(world, release)


@operation("repos/update-release(draft: false)")
def release_publish_draft(world: World, input: dict[str, Any]) -> dict[str, Any]:
    release = _release(world, input)
    if not release.draft:
        raise Conflict(f"release {release.id} ({release.tag_name}) is already published")
    _tag_is_free(world, release.tag_name, release)
    _edit_text(release, input)
    release.draft = False
    release.published_at = world.tick()
    create_release_tag(world, release)
    return {**release_data(world, release), "wasDraft": True}
