"""The sandbox's REST API behind ``gh api``: a router of GitHub's paths over a world.

Route modules (:mod:`.gh_rest_issues`, :mod:`.gh_rest_pulls`, :mod:`.gh_rest_actions`) and
this one register handlers with :func:`route`; a handler gets a :class:`RestRequest` and
returns the response body (JSON data, or :class:`RawText` for logs and diffs). Failures are
:class:`RestError` with GitHub's status and message. Writes go through the sandbox
capabilities (:func:`call`), whose error codes map to HTTP statuses (404, 422, 409).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pytest_ghxbench.sandbox.dialects.gh_context import GhContext, capability_message
from pytest_ghxbench.sandbox.dialects.gh_rest_render import (
    label_rest,
    milestone_rest,
    release_rest,
    repo_rest,
    user_rest,
)

__all__ = [
    "RawText",
    "RestError",
    "RestRequest",
    "call",
    "dispatch",
    "or_not_found",
    "paged",
    "route",
]


class RestError(Exception):
    def __init__(self, status: int, message: str, errors: list[Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors


_Found = TypeVar("_Found")


def or_not_found(value: _Found | None) -> _Found:
    """``value``, or GitHub's 404 answer when the resource it names does not exist."""
    if value is None:
        raise RestError(404, "Not Found")
    return value


@dataclass(frozen=True)
class RawText:
    """A non-JSON response body (job logs, diffs)."""

    text: str


@dataclass
class RestRequest:
    ctx: GhContext
    method: str
    groups: tuple[str, ...]
    params: dict[str, Any]
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    paginate: bool = False

    def number(self, index: int = 0) -> int:
        return int(self.groups[index])


Handler = Callable[[RestRequest], Any]
_ROUTES: list[tuple[str, re.Pattern[str], Handler]] = []
_REPO = r"repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"


def route(method: str, path: str, *, repo: bool = True) -> Callable[[Handler], Handler]:
    """Register a handler for ``method`` and ``path`` (a regex; ``repos/{o}/{r}/`` prefixed)."""
    pattern = re.compile(f"^{_REPO}{'/' + path if path else ''}$" if repo else f"^{path}$")

    def register(handler: Handler) -> Handler:
        _ROUTES.append((method, pattern, handler))
        return handler

    return register


_STATUS = {"NOT_FOUND": 404, "VALIDATION": 422, "CONFLICT": 409, "UNSUPPORTED": 404}


def call(request: RestRequest, task: str, payload: Mapping[str, Any]) -> Any:
    """Run a capability; its failure becomes the matching HTTP error."""
    envelope = request.ctx.run(task, payload)
    if not envelope["ok"]:
        error = envelope["error"] or {}
        code = str(error.get("code"))
        message = capability_message(error)
        status = _STATUS.get(code, 422)
        if status == 422:
            raise RestError(422, "Validation Failed", [{"message": message, "code": "invalid"}])
        raise RestError(status, message if status != 404 else "Not Found")
    return envelope["data"]


def repo_input(request: RestRequest) -> dict[str, Any]:
    repo = request.ctx.world.repository
    return {"owner": repo.owner, "name": repo.name}


def paged(request: RestRequest, items: list[Any]) -> list[Any]:
    """``per_page`` (default 30, at most 100) and ``page`` (from 1), unless ``--paginate``."""
    if request.paginate:
        return items
    try:
        size = min(max(int(request.params.get("per_page", 30)), 1), 100)
        number = max(int(request.params.get("page", 1)), 1)
    except (TypeError, ValueError):
        raise RestError(422, "Validation Failed") from None
    return items[(number - 1) * size : number * size]


def dispatch(request_path: str, request: RestRequest) -> Any:
    """The response body for ``request`` at ``request_path`` (no leading slash, no query)."""
    _load_routes()
    path = request_path.strip("/")
    for method, pattern, handler in _ROUTES:
        match = pattern.match(path)
        if match is None:
            continue
        if method != request.method:
            continue
        named = match.groupdict()
        if "owner" in named:
            _check_repo(request.ctx, named["owner"], named["repo"])
        request.groups = match.groups()[len(named) :]
        try:
            return handler(request)
        except (ValueError, TypeError, KeyError, AttributeError):
            shown = {**request.params, **request.body}
            message = f"Invalid request: a value has the wrong type ({json.dumps(shown)})"
            raise RestError(422, "Validation Failed", [{"message": message}]) from None
    raise RestError(404, "Not Found")


def _check_repo(ctx: GhContext, owner: str, name: str) -> None:
    repo = ctx.world.repository
    if (owner.casefold(), name.casefold()) != (repo.owner.casefold(), repo.name.casefold()):
        raise RestError(404, "Not Found")


_LOADED = False


def _load_routes() -> None:
    global _LOADED
    if not _LOADED:
        _LOADED = True
        import pytest_ghxbench.sandbox.dialects.gh_rest_actions
        import pytest_ghxbench.sandbox.dialects.gh_rest_issues
        import pytest_ghxbench.sandbox.dialects.gh_rest_pulls  # noqa: F401


# ---------------------------------------------------------------- repository, users, releases


@route("GET", "")
def _repo(request: RestRequest) -> Any:
    return repo_rest(request.ctx.world)


@route("GET", "labels")
def _labels(request: RestRequest) -> Any:
    world = request.ctx.world
    return paged(request, [label_rest(world, lab) for lab in world.labels])


@route("GET", "labels/([^/]+)")
def _label(request: RestRequest) -> Any:
    label = or_not_found(request.ctx.world.label(request.groups[0].replace("%20", " ")))
    return label_rest(request.ctx.world, label)


@route("GET", "milestones")
def _milestones(request: RestRequest) -> Any:
    world = request.ctx.world
    state = str(request.params.get("state", "open")).upper()
    chosen = [m for m in world.milestones if state in ("ALL", m.state)]
    return paged(request, [milestone_rest(world, m) for m in chosen])


@route("GET", r"milestones/(\d+)")
def _milestone(request: RestRequest) -> Any:
    milestone = or_not_found(request.ctx.world.milestone(request.number()))
    return milestone_rest(request.ctx.world, milestone)


@route("GET", "(?:assignees|collaborators)")
def _assignees(request: RestRequest) -> Any:
    world = request.ctx.world
    return paged(request, [user_rest(world, login) for login in world.collaborators])


@route("GET", "user", repo=False)
def _viewer(request: RestRequest) -> Any:
    world = request.ctx.world
    data = user_rest(world, world.viewer) or {}
    name = next((u.name for u in world.users if u.login == world.viewer), "")
    return {**data, "name": name}


@route("GET", "users/([^/]+)", repo=False)
def _user(request: RestRequest) -> Any:
    world = request.ctx.world
    login = request.groups[0]
    if login not in {u.login for u in world.users}:
        raise RestError(404, "Not Found")
    return user_rest(world, login)


@route("GET", "rate_limit", repo=False)
def _rate_limit(request: RestRequest) -> Any:
    core = {"limit": 5000, "used": 1, "remaining": 4999, "reset": 1772366400}
    return {"resources": {"core": core, "graphql": core}, "rate": core}


def _releases_sorted(request: RestRequest) -> list[Any]:
    return sorted(request.ctx.world.releases, key=lambda r: r.created_at, reverse=True)


@route("GET", "releases")
def _releases(request: RestRequest) -> Any:
    world = request.ctx.world
    return paged(request, [release_rest(world, r) for r in _releases_sorted(request)])


@route("GET", "releases/latest")
def _latest(request: RestRequest) -> Any:
    world = request.ctx.world
    published = [r for r in world.releases if not r.draft and not r.prerelease]
    if not published:
        raise RestError(404, "Not Found")
    return release_rest(world, max(published, key=lambda r: r.published_at or ""))


@route("GET", "releases/tags/(.+)")
def _by_tag(request: RestRequest) -> Any:
    world = request.ctx.world
    found = or_not_found(
        next((r for r in world.releases if r.tag_name == request.groups[0] and not r.draft), None)
    )
    return release_rest(world, found)


@route("GET", r"releases/(\d+)")
def _release(request: RestRequest) -> Any:
    found = or_not_found(request.ctx.world.release(request.number()))
    return release_rest(request.ctx.world, found)


@route("POST", "releases")
def _create_release(request: RestRequest) -> Any:
    body = request.body
    if not body.get("tag_name"):
        raise RestError(
            422,
            "Validation Failed",
            [{"resource": "Release", "code": "missing_field", "field": "tag_name"}],
        )
    payload: dict[str, Any] = {**repo_input(request), "tagName": body["tag_name"]}
    for key, name in (
        ("name", "title"),
        ("body", "notes"),
        ("target_commitish", "targetCommitish"),
        ("prerelease", "prerelease"),
    ):
        if body.get(key) is not None:
            payload[name] = body[key]
    created = call(request, "release.create_draft", payload)
    if not body.get("draft"):
        created = call(
            request, "release.publish_draft", {**repo_input(request), "releaseId": created["id"]}
        )
    release = request.ctx.world.release(created["id"])
    assert release is not None
    return release_rest(request.ctx.world, release)


@route("PATCH", r"releases/(\d+)")
def _edit_release(request: RestRequest) -> Any:
    world = request.ctx.world
    release = or_not_found(world.release(request.number()))
    body = request.body
    base = {**repo_input(request), "releaseId": release.id}
    changes: dict[str, Any] = {}
    for key, name in (
        ("name", "title"),
        ("body", "notes"),
        ("tag_name", "tagName"),
        ("target_commitish", "targetCommitish"),
        ("prerelease", "prerelease"),
    ):
        if body.get(key) is not None:
            changes[name] = body[key]
    if body.get("draft") is False and release.draft:
        keep = {k: changes.pop(k) for k in ("title", "notes", "prerelease") if k in changes}
        if changes:
            call(request, "release.update", {**base, **changes})
        call(request, "release.publish_draft", {**base, **keep})
    elif changes or body.get("draft") is True:
        call(
            request,
            "release.update",
            {**base, **changes, **({"draft": True} if body.get("draft") else {})},
        )
    return release_rest(world, release)
