"""``gh release``: ``list``, ``view``, ``create``, ``edit`` and ``delete``.

Creating and editing go through the ``release.*`` capabilities: ``create`` makes a draft and,
without ``--draft``, publishes it; ``edit --draft=false`` publishes a draft."""

from __future__ import annotations

import hashlib
from typing import Any

from pytest_ghxbench.sandbox.dialects.gh_args import Command, Flag, GhError, Parsed
from pytest_ghxbench.sandbox.dialects.gh_context import GhContext, export_json, ok, pick, table
from pytest_ghxbench.sandbox.dialects.gh_inputs import read_body
from pytest_ghxbench.sandbox.dialects.gh_render import author
from pytest_ghxbench.sandbox.dialects.result import CliResult
from pytest_ghxbench.sandbox.state import Release, World

__all__ = ["RELEASE_COMMANDS"]

LIST_FIELDS = ("createdAt", "isDraft", "isLatest", "isPrerelease", "name", "publishedAt", "tagName")
VIEW_FIELDS = (
    "apiUrl",
    "assets",
    "author",
    "body",
    "createdAt",
    "databaseId",
    "id",
    "isDraft",
    "isPrerelease",
    "name",
    "publishedAt",
    "tagName",
    "tarballUrl",
    "targetCommitish",
    "uploadUrl",
    "url",
    "zipballUrl",
)


def _newest_first(world: World) -> list[Release]:
    return sorted(world.releases, key=lambda r: r.created_at, reverse=True)


def _latest(world: World) -> Release | None:
    published = [r for r in world.releases if not r.draft and not r.prerelease]
    return max(published, key=lambda r: r.published_at or "", default=None)


def release_url(world: World, release: Release) -> str:
    base = f"{world.repository.url}/releases/tag/"
    if not release.draft:
        return base + release.tag_name
    return base + "untagged-" + hashlib.sha1(str(release.id).encode()).hexdigest()[:20]


def find_release(ctx: GhContext, tag: str) -> Release:
    """The published release with ``tag``, else the newest draft with it (as gh finds drafts)."""
    matches = [r for r in _newest_first(ctx.world) if r.tag_name == tag]
    matches.sort(key=lambda r: r.draft)
    if not matches:
        raise GhError("release not found")
    return matches[0]


def _api(world: World, release: Release) -> str:
    return f"{_repo_api(world)}/releases/{release.id}"


def _repo_api(world: World) -> str:
    return f"https://api.github.com/repos/{world.repository.full_name}"


def _getters(world: World, release: Release) -> dict[str, Any]:
    repo = world.repository
    return {
        "apiUrl": lambda: _api(world, release),
        "assets": lambda: [
            {
                "apiUrl": f"{_repo_api(world)}/releases/assets/{a.id}",
                "contentType": a.content_type,
                "createdAt": release.published_at or release.created_at,
                "downloadCount": a.download_count,
                "id": world.node("RA", a.id),
                "label": "",
                "name": a.name,
                "size": a.size,
                "state": "uploaded",
                "updatedAt": release.published_at or release.created_at,
                "url": f"{repo.url}/releases/download/{release.tag_name}/{a.name}",
            }
            for a in release.assets
        ],
        "author": lambda: author(world, release.author),
        "body": lambda: release.body,
        "createdAt": lambda: release.created_at,
        "databaseId": lambda: release.id,
        "id": lambda: release.node_id,
        "isDraft": lambda: release.draft,
        "isLatest": lambda: release is _latest(world),
        "isPrerelease": lambda: release.prerelease,
        "name": lambda: release.name,
        "publishedAt": lambda: release.published_at,
        "tagName": lambda: release.tag_name,
        "tarballUrl": lambda: (
            None if release.draft else f"{_repo_api(world)}/tarball/{release.tag_name}"
        ),
        "targetCommitish": lambda: release.target_commitish,
        "uploadUrl": lambda: (
            f"https://uploads.github.com/repos/{repo.full_name}/releases/{release.id}"
            "/assets{?name,label}"
        ),
        "url": lambda: release_url(world, release),
        "zipballUrl": lambda: (
            None if release.draft else f"{_repo_api(world)}/zipball/{release.tag_name}"
        ),
    }


def _list(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    world = ctx.world
    releases = [
        r
        for r in _newest_first(world)
        if not (parsed.on("exclude-drafts") and r.draft)
        and not (parsed.on("exclude-pre-releases") and r.prerelease)
    ]
    if parsed.text("order") == "asc":
        releases.reverse()
    releases = releases[: parsed.number("limit")]
    exported = export_json(
        RELEASE_LIST, parsed, lambda fields: [pick(fields, _getters(world, r)) for r in releases]
    )
    if exported is not None:
        return exported
    if not releases:
        raise GhError("no releases found")
    latest = _latest(world)
    rows = []
    for release in releases:
        badge = (
            "Latest"
            if release is latest
            else "Draft"
            if release.draft
            else "Pre-release"
            if release.prerelease
            else ""
        )
        when = release.published_at or release.created_at
        rows.append([release.name or release.tag_name, badge, release.tag_name, when])
    return ok(table(rows))


RELEASE_LIST = Command(
    "release list",
    "list",
    "List releases in a repository",
    _list,
    flags=(
        Flag("exclude-drafts", "Exclude draft releases", kind="bool"),
        Flag("exclude-pre-releases", "Exclude pre-releases", kind="bool"),
        Flag("limit", "Maximum number of items to fetch", short="L", kind="int", default=30),
        Flag(
            "order",
            "Order of releases returned",
            short="O",
            kind="enum",
            choices=("asc", "desc"),
            default="desc",
        ),
    ),
    max_args=0,
    json_fields=LIST_FIELDS,
)


def _view(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    if parsed.on("web"):
        raise GhError("the sandbox has no browser; drop --web to print the release")
    world = ctx.world
    if parsed.args:
        release = find_release(ctx, parsed.args[0])
    else:
        latest = _latest(world)
        if latest is None:
            raise GhError("release not found")
        release = latest
    exported = export_json(
        RELEASE_VIEW, parsed, lambda fields: pick(fields, _getters(world, release))
    )
    if exported is not None:
        return exported
    lines = [
        ("title", release.name),
        ("tag", release.tag_name),
        ("draft", str(release.draft).lower()),
        ("prerelease", str(release.prerelease).lower()),
        ("author", release.author),
        ("created", release.created_at),
        ("published", release.published_at or ""),
        ("url", release_url(world, release)),
    ] + [("asset", asset.name) for asset in release.assets]
    text = "".join(f"{key}:\t{value}\n" for key, value in lines)
    return ok(text + "--\n" + release.body.rstrip("\n") + "\n")


RELEASE_VIEW = Command(
    "release view",
    "view [<tag>]",
    "View information about a release",
    _view,
    flags=(Flag("web", "Open the release in the browser", short="w", kind="bool"),),
    long="View information about a GitHub Release.\n\nWithout an explicit tag name argument, "
    "the latest release in the project\nis shown.",
    max_args=1,
    json_fields=VIEW_FIELDS,
)


def _notes(ctx: GhContext, parsed: Parsed) -> str | None:
    return (
        read_body(ctx, parsed, "notes-file")
        if parsed.has("notes-file")
        else (parsed.text("notes") if parsed.has("notes") else None)
    )


def _create(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    if len(parsed.args) > 1:
        raise GhError("uploading release assets is not supported in the sandbox")
    if parsed.on("generate-notes") or parsed.on("notes-from-tag"):
        raise GhError("generated notes are not available in the sandbox; pass --notes")
    tag = parsed.args[0]
    payload: dict[str, Any] = {**ctx.repo_input(), "tagName": tag}
    if parsed.text("title"):
        payload["title"] = parsed.text("title")
    notes = _notes(ctx, parsed)
    if notes:
        payload["notes"] = notes
    if parsed.text("target"):
        payload["targetCommitish"] = parsed.text("target")
    if parsed.on("prerelease"):
        payload["prerelease"] = True
    data = ctx.call("release.create_draft", payload)
    if not parsed.on("draft"):
        data = ctx.call("release.publish_draft", {**ctx.repo_input(), "releaseId": data["id"]})
    return ok(f"{data['url']}\n", context=ctx)


def _release_flags(*extra: Flag) -> tuple[Flag, ...]:
    return (
        Flag(
            "discussion-category", "Start a discussion in the specified category", metavar="string"
        ),
        Flag(
            "draft", "Save the release as a draft instead of publishing it", short="d", kind="bool"
        ),
        Flag("latest", 'Mark this release as "Latest"', kind="bool"),
        Flag("notes", "Release notes", short="n"),
        Flag(
            "notes-file",
            'Read release notes from file (use "-" to read from standard input)',
            short="F",
            metavar="file",
        ),
        Flag("prerelease", "Mark the release as a prerelease", short="p", kind="bool"),
        Flag(
            "target", "Target branch or full commit SHA (default [main branch])", metavar="branch"
        ),
        Flag("title", "Release title", short="t"),
        Flag(
            "verify-tag",
            "Abort in case the git tag doesn't already exist in the remote repository",
            kind="bool",
        ),
        *extra,
    )


RELEASE_CREATE = Command(
    "release create",
    "create [<tag>] [<filename>... | <pattern>...]",
    "Create a new release",
    _create,
    flags=_release_flags(
        Flag(
            "generate-notes", "Automatically generate title and notes for the release", kind="bool"
        ),
        Flag("notes-from-tag", "Automatically generate notes from annotated tag", kind="bool"),
    ),
    long="Create a new GitHub Release for a repository.\n\nA list of asset files may be given "
    "to upload to the new release.",
    min_args=1,
    arg_error="could not create: no tag name provided",
)


def _edit(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    release = find_release(ctx, parsed.args[0])
    base = {**ctx.repo_input(), "releaseId": release.id}
    changes: dict[str, Any] = {}
    if parsed.has("title"):
        changes["title"] = parsed.text("title")
    notes = _notes(ctx, parsed)
    if notes is not None:
        changes["notes"] = notes
    if parsed.has("prerelease"):
        changes["prerelease"] = parsed.on("prerelease")
    publish = parsed.has("draft") and not parsed.on("draft") and release.draft
    if parsed.has("draft") and parsed.on("draft") and not release.draft:
        changes["draft"] = True
    if parsed.text("tag"):
        changes["tagName"] = parsed.text("tag")
    if parsed.text("target"):
        changes["targetCommitish"] = parsed.text("target")
    if not changes and not publish:
        raise GhError(
            "nothing to edit: pass --title, --notes, --draft, --prerelease, --tag or --target"
        )
    if publish:
        keep = {k: changes.pop(k) for k in ("title", "notes", "prerelease") if k in changes}
        if changes:
            ctx.call("release.update", {**base, **changes})
        data = ctx.call("release.publish_draft", {**base, **keep})
    else:
        data = ctx.call("release.update", {**base, **changes})
    return ok(f"{data['url']}\n", context=ctx)


RELEASE_EDIT = Command(
    "release edit",
    "edit <tag>",
    "Edit a release",
    _edit,
    flags=_release_flags(Flag("tag", "The name of the tag", metavar="string")),
    long="Edit a release.\n\nPublish a draft release with `--draft=false`.",
    max_args=1,
    min_args=1,
    arg_error="accepts 1 arg(s), received 0",
)


def _delete(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    release = find_release(ctx, parsed.args[0])
    if not parsed.on("yes"):
        raise GhError("--yes required when not running interactively")
    ctx.mutated = True
    ctx.world.releases.remove(release)
    ctx.world.tick()
    return ok(stderr=f"✓ Deleted release {release.tag_name}\n", context=ctx)


RELEASE_DELETE = Command(
    "release delete",
    "delete <tag>",
    "Delete a release",
    _delete,
    flags=(
        Flag("cleanup-tag", "Delete the specified tag in addition to its release", kind="bool"),
        Flag("yes", "Skip the confirmation prompt", short="y", kind="bool"),
    ),
    max_args=1,
    min_args=1,
    arg_error="accepts 1 arg(s), received 0",
)

RELEASE_COMMANDS = (RELEASE_CREATE, RELEASE_DELETE, RELEASE_EDIT, RELEASE_LIST, RELEASE_VIEW)
