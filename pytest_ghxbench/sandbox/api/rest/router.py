"""The REST router: handlers registered under GitHub's OpenAPI path templates.

A handler gets a :class:`Ctx` and returns the response body as JSON data (``None`` for
``204 No Content``) or a complete :class:`~..types.ApiResponse` (redirects, diffs). Failures
are :class:`RestError`. The templates are those of GitHub's published OpenAPI description
(``/repos/{owner}/{repo}/pulls/{pull_number}``), so the routes served map one to one onto the
operations whose schemas the conformance tests check (:func:`served`).
"""

from __future__ import annotations

import dataclasses
import importlib
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import unquote, urlencode

from pytest_ghxbench.sandbox.api.limits import rest_problem
from pytest_ghxbench.sandbox.api.rest.links import Links
from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiResponse, ApiUrls
from pytest_ghxbench.sandbox.gaps import UNSERVED_ROUTE, record
from pytest_ghxbench.sandbox.operations.registry import mutates, perform
from pytest_ghxbench.sandbox.state import World

__all__ = [
    "SLASHED",
    "Ctx",
    "RestError",
    "Route",
    "Unhandled",
    "call",
    "dispatch",
    "missing_field",
    "or_not_found",
    "paged",
    "route",
    "served",
]


class RestError(Exception):
    def __init__(self, status: int, message: str, errors: list[Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors


class Unhandled(Exception):
    """Raised by a handler, before it changes anything, to leave the request to the next route
    of the same method and template: a module can serve one more case of another's route."""


def missing_field(resource: str, name: str) -> RestError:
    return RestError(
        422, "Validation Failed", [{"resource": resource, "code": "missing_field", "field": name}]
    )


_Found = TypeVar("_Found")


def or_not_found(value: _Found | None) -> _Found:
    """``value``, or GitHub's 404 when the resource it names does not exist."""
    if value is None:
        raise RestError(404, "Not Found")
    return value


@dataclass
class Ctx:
    """One request as a handler sees it."""

    world: World
    request: ApiRequest
    args: dict[str, str]
    """Path parameters by their OpenAPI names, percent-decoded."""
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    """Extra response headers (``Link``)."""
    mutated: bool = False

    @property
    def urls(self) -> ApiUrls:
        return self.request.urls

    @property
    def links(self) -> Links:
        """URLs and ids of the world's objects, on the hosts this request came in on."""
        return Links(self.world, self.request.urls)

    def param(self, name: str, default: str | None = None) -> str | None:
        return self.request.param(name, default)

    def number(self, name: str) -> int:
        text = self.args[name]
        if not text.isdigit():
            raise RestError(404, "Not Found")
        return int(text)

    @property
    def accept(self) -> str:
        return self.request.headers.get("accept", "")


Handler = Callable[[Ctx], Any]


@dataclass(frozen=True)
class Route:
    method: str
    template: str
    """GitHub's OpenAPI path, e.g. ``/repos/{owner}/{repo}/issues/{issue_number}``."""
    status: int
    """The status of a successful answer with a body (a ``None`` body is always 204)."""
    raw: bool
    """The request body is data (an upload), not JSON."""
    pattern: re.Pattern[str]
    handler: Handler
    documented: bool = True
    """GitHub's OpenAPI description has the operation (some it serves are left out of it)."""


_ROUTES: list[Route] = []


SLASHED = ("ref", "tag", "path", "basehead", "dir", "tree_sha", "branch")
"""Parameters that may hold slashes (heads/main, release/1.0, src/a.py, fix/lock)."""


def _compile(template: str, optional_tail: bool) -> re.Pattern[str]:
    def group(match: re.Match[str]) -> str:
        name = match.group(1)
        body = ".+" if name in SLASHED else "[^/]+"
        return f"(?P<{name}>{body})"

    pattern = re.sub(r"\{(\w+)\}", group, template)
    if optional_tail:
        head, _, tail = pattern.rpartition("/")
        pattern = f"{head}(?:/{tail})?"
    return re.compile("^" + pattern + "$")


def route(
    method: str,
    template: str,
    status: int | None = None,
    *,
    raw: bool = False,
    optional_tail: bool = False,
    documented: bool = True,
) -> Callable[[Handler], Handler]:
    """Register a handler for ``method`` and OpenAPI path ``template``. ``optional_tail``: the
    last path parameter may be left out (``/contents`` for the root, ``/tarball`` for the
    default branch), which GitHub serves though its description has no such path; the handler
    then sees it as ``""``. ``documented=False``: GitHub serves ``template`` though its
    description lacks it (the legacy ``GET /git/refs/{ref}``); such a route is not
    :func:`served`, which lists the published operations the sandbox answers."""
    code = status if status is not None else 201 if method == "POST" else 200

    def register(handler: Handler) -> Handler:
        compiled = _compile(template, optional_tail)
        _ROUTES.append(Route(method, template, code, raw, compiled, handler, documented))
        return handler

    return register


def served() -> list[Route]:
    """Every registered route of a published operation (the route modules imported)."""
    _load()
    return [entry for entry in _ROUTES if entry.documented]


_STATUS = {"NOT_FOUND": 404, "VALIDATION": 422, "CONFLICT": 409, "UNSUPPORTED": 422}


def call(ctx: Ctx, task: str, payload: Mapping[str, Any]) -> Any:
    """Perform the world's operation for capability ``task``; its failure becomes the matching
    HTTP error."""
    if mutates(task):
        ctx.mutated = True
    envelope = perform(ctx.world, task, payload)
    if envelope["ok"]:
        return envelope["data"]
    error = envelope["error"] or {}
    message = re.sub(r"^input(?:\.\w+)*: ", "", str(error.get("message", "")))
    status = _STATUS.get(str(error.get("code")), 422)
    if status == 404:
        raise RestError(404, "Not Found")
    if status == 422:
        raise RestError(422, "Validation Failed", [{"message": message, "code": "invalid"}])
    raise RestError(status, message)


def repo_input(ctx: Ctx) -> dict[str, Any]:
    repo = ctx.world.repository
    return {"owner": repo.owner, "name": repo.name}


_Item = TypeVar("_Item")


def paged(ctx: Ctx, items: list[_Item]) -> list[_Item]:
    """One page of ``items`` by ``per_page`` (default 30, at most 100) and ``page``, with
    GitHub's ``Link`` header (prev, next, last, first) on the request's API root."""
    try:
        size = min(max(int(ctx.param("per_page") or 30), 1), 100)
        number = max(int(ctx.param("page") or 1), 1)
    except ValueError:
        raise RestError(422, "Validation Failed") from None
    last = max((len(items) + size - 1) // size, 1)
    links = []
    if number > 1:
        links.append((min(number - 1, last), "prev"))
    if number < last:
        links += [(number + 1, "next"), (last, "last")]
    if number > 1:
        links.append((1, "first"))
    if links:
        ctx.headers["Link"] = ", ".join(f'<{_page_url(ctx, n)}>; rel="{rel}"' for n, rel in links)
    return items[(number - 1) * size : number * size]


def _page_url(ctx: Ctx, number: int) -> str:
    query = [(k, v) for k, values in ctx.request.query.items() if k != "page" for v in values]
    query.append(("page", str(number)))
    return f"{ctx.urls.api}{ctx.request.path}?{urlencode(query)}"


def dispatch(world: World, request: ApiRequest) -> tuple[Ctx, Any, int]:
    """Find and run the handler: the context it ran with, its result and success status."""
    _load()
    path = "/" + request.path.strip("/")
    for entry in _ROUTES:
        match = entry.pattern.match(path)
        if match is None:
            continue
        if entry.method != request.method and (request.method, entry.method) != ("HEAD", "GET"):
            continue
        args = {k: unquote(v or "") for k, v in match.groupdict().items()}
        if "owner" in args and "repo" in args:
            _check_repo(world, args["owner"], args["repo"])
        ctx = Ctx(world, request, args, {} if entry.raw else _json_body(request))
        too_long = rest_problem(entry.method, entry.template, ctx.body)
        if too_long is not None:
            raise RestError(422, *too_long)
        try:
            return ctx, entry.handler(ctx), entry.status
        except Unhandled:
            continue
        except (ValueError, TypeError, KeyError, AttributeError):
            raise RestError(
                422, "Validation Failed", [{"message": "a value has the wrong type"}]
            ) from None
    if request.method == "POST" and _routed("PATCH", path):
        # GitHub takes POST for PATCH, for clients without PATCH (gh gist edit uses it)
        return dispatch(world, dataclasses.replace(request, method="PATCH"))
    _unserved(request.method, path)
    raise RestError(404, "Not Found")


def _routed(method: str, path: str) -> bool:
    return any(entry.method == method and entry.pattern.match(path) for entry in _ROUTES)


def _unserved(method: str, path: str) -> None:
    """No route serves ``method`` on ``path``: a gap if GitHub has an operation for it."""
    from pytest_ghxbench.sandbox.api.rest.published import github_operation

    operation = github_operation(method, path)
    if operation is not None:
        record(UNSERVED_ROUTE, operation)


def _json_body(request: ApiRequest) -> dict[str, Any]:
    if request.method in ("GET", "HEAD"):
        return {}
    try:
        body = request.json_body()
    except ValueError:
        raise RestError(400, "Problems parsing JSON") from None
    if body is not None and not isinstance(body, dict):
        raise RestError(400, "Problems parsing JSON")
    return body or {}


def _check_repo(world: World, owner: str, name: str) -> None:
    repo = world.repository
    if (owner.casefold(), name.casefold()) != (repo.owner.casefold(), repo.name.casefold()):
        raise RestError(404, "Not Found")


def respond(ctx: Ctx, value: Any, status: int) -> ApiResponse:
    if isinstance(value, ApiResponse):
        value.headers.update(ctx.headers)
        return value
    if value is None:
        return ApiResponse(204, b"", dict(ctx.headers))
    return ApiResponse.json(value, status, ctx.headers)


_LOADED = False
_LOAD_LOCK = threading.RLock()


def _load() -> None:
    global _LOADED
    # the flag is set once everything is loaded, under a lock: a thread that finds it set (or
    # waits for the thread loading) sees the whole table, never a part of it
    if _LOADED:
        return
    with _LOAD_LOCK:
        if _LOADED:
            return
        # first: some of their routes serve cases of other modules' routes (Unhandled), or
        # paths another module's template would take (/issues/events for /issues/{number})
        for first in ("git", "pull_writes", "timeline"):
            importlib.import_module(f"{__package__}.{first}")
        from pytest_ghxbench.sandbox.api.rest import (  # noqa: F401
            absent,
            actions,
            archives,
            attempts,
            branches,
            caches,
            checks,
            commits,
            contents,
            gists,
            gitdata,
            issue_order,
            issues,
            languages,
            logs,
            pulls,
            releases,
            repo,
            repo_extras,
            reviews,
            search,
            search_code,
            usage,
        )

        _LOADED = True
