"""The REST router: handlers bound to the operations of GitHub's published OpenAPI description.

A handler is marked with :func:`route` (method and the description's path template,
``/repos/{owner}/{repo}/pulls/{pull_number}``); :class:`RestRouter`, built when the API server
starts, collects the marks of :data:`ROUTE_MODULES`, binds each to its operation (a template
the description lacks is refused unless marked ``documented=False``) and tries them most
specific template first. A handler gets a :class:`Ctx` and returns the response body as JSON
data (``None`` for ``204 No Content``) or a complete :class:`~..types.ApiResponse`
(redirects, diffs); it fails with :class:`RestError`.

Around the handler, :func:`dispatch` checks the body's types and enums against the operation
(:mod:`.validation`), records a gap for every parameter the request carried that the handler did
not read (:mod:`.accounting`), and answers a handler's own exception as a 500 with a
``sandbox_fault`` gap.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import unquote, urlencode

from pytest_ghxbench.sandbox.api.limits import rest_problem
from pytest_ghxbench.sandbox.api.rest.accounting import TrackedBody, record_unevaluated
from pytest_ghxbench.sandbox.api.rest.description import (
    SLASHED,
    Operation,
    github_operation,
    operation,
    path_pattern,
    specificity,
)
from pytest_ghxbench.sandbox.api.rest.links import Links
from pytest_ghxbench.sandbox.api.rest.validation import body_problem
from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiResponse, ApiUrls
from pytest_ghxbench.sandbox.errors import GitHubError
from pytest_ghxbench.sandbox.gaps import SANDBOX_FAULT, UNSERVED_ROUTE, record
from pytest_ghxbench.sandbox.operations.registry import apply, mutates
from pytest_ghxbench.sandbox.state import World

__all__ = [
    "ROUTE_MODULES",
    "Ctx",
    "RestError",
    "RestRouter",
    "Route",
    "RouteError",
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
    body: TrackedBody
    """The JSON body (empty for a raw upload), noting the fields read."""
    headers: dict[str, str] = field(default_factory=dict)
    """Extra response headers (``Link``)."""
    mutated: bool = False
    read: set[str] = field(default_factory=set)
    """The query parameters the handler asked for."""

    @property
    def urls(self) -> ApiUrls:
        return self.request.urls

    @property
    def links(self) -> Links:
        """URLs and ids of the world's objects, on the hosts this request came in on."""
        return Links(self.world, self.request.urls)

    def param(self, name: str, default: str | None = None) -> str | None:
        self.read.add(name)
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
    operation: Operation | None
    """The operation of GitHub's description this route serves (None: GitHub serves the path
    though its description lacks it, as the legacy ``GET /git/refs/{ref}``)."""

    @property
    def documented(self) -> bool:
        return self.operation is not None

    @property
    def name(self) -> str:
        return f"{self.method} {self.template}"


@dataclass(frozen=True)
class _Mark:
    method: str
    template: str
    status: int | None
    raw: bool
    optional_tail: bool
    documented: bool


_MARKS = "_ghxbench_routes"


def route(
    method: str,
    template: str,
    status: int | None = None,
    *,
    raw: bool = False,
    optional_tail: bool = False,
    documented: bool = True,
) -> Callable[[Handler], Handler]:
    """Mark a handler as serving ``method`` on OpenAPI path ``template``. The router collects
    the marks when it is built, from the functions its modules hold as attributes (a handler
    a factory makes must be bound to a module-level name). ``optional_tail``: the last path
    parameter may be left out (``/contents`` for the root, ``/tarball`` for the default
    branch), which GitHub serves though its description has no such path; the handler then
    sees it as ``""``.
    ``documented=False``: GitHub serves ``template`` though its description lacks it (the
    legacy ``GET /git/refs/{ref}``); such a route is not :func:`served`, which lists the
    published operations the sandbox answers."""
    mark = _Mark(method, template, status, raw, optional_tail, documented)

    def register(handler: Handler) -> Handler:
        marks: list[_Mark] = handler.__dict__.setdefault(_MARKS, [])
        marks.append(mark)
        return handler

    return register


class RouteError(Exception):
    """A route module is wrong: a route that is not one of GitHub's operations, or served
    twice."""


def _bind(mark: _Mark, handler: Handler) -> Route:
    found = operation(mark.method, mark.template)
    where = f"{handler.__module__}.{handler.__qualname__}"
    if mark.documented and found is None:
        raise RouteError(
            f"{where}: {mark.method} {mark.template} is not an operation of GitHub's "
            "description (mark it documented=False if GitHub serves it all the same)"
        )
    if not mark.documented and found is not None:
        raise RouteError(f"{where}: {mark.method} {mark.template} is documented")
    code = mark.status if mark.status is not None else 201 if mark.method == "POST" else 200
    pattern = path_pattern(mark.template, mark.optional_tail)
    return Route(mark.method, mark.template, code, mark.raw, pattern, handler, found)


ROUTE_MODULES: tuple[str, ...] = (
    "git",
    "pull_writes",
    "timeline",
    "absent",
    "actions",
    "archives",
    "attempts",
    "branches",
    "caches",
    "checks",
    "commits",
    "contents",
    "gists",
    "gitdata",
    "issue_comments",
    "issue_order",
    "issues",
    "languages",
    "logs",
    "milestones",
    "orgs",
    "pulls",
    "reactions",
    "releases",
    "repo",
    "repo_extras",
    "reviews",
    "search",
    "search_code",
    "usage",
)
"""The modules whose handlers are routes. Of two routes of one template, the earlier module's
is tried first."""


class RestRouter:
    """Every route of ``modules`` (names in this package, or absolute), most specific template
    first."""

    def __init__(self, modules: Sequence[str] = ROUTE_MODULES) -> None:
        routes: list[Route] = []
        for name in modules:
            module = importlib.import_module(name if "." in name else f"{__package__}.{name}")
            for handler in vars(module).values():
                if callable(handler) and getattr(handler, "__module__", None) == module.__name__:
                    routes += [_bind(m, handler) for m in getattr(handler, _MARKS, ())]
        # stable: routes of one template keep the order of ROUTE_MODULES (an Unhandled case)
        routes.sort(key=lambda r: specificity(r.template))
        self.routes: tuple[Route, ...] = tuple(routes)
        self._by_method: dict[str, tuple[Route, ...]] = {
            method: tuple(r for r in routes if r.method == method)
            for method in {r.method for r in routes}
        }

    def served(self) -> list[Route]:
        """Every route of a published operation."""
        return [entry for entry in self.routes if entry.documented]

    def candidates(self, method: str) -> tuple[Route, ...]:
        if method == "HEAD":
            return self._by_method.get("HEAD", ()) + self._by_method.get("GET", ())
        return self._by_method.get(method, ())

    def routed(self, method: str, path: str) -> bool:
        return any(entry.pattern.match(path) for entry in self.candidates(method))


def served() -> list[Route]:
    """Every route of a published operation the sandbox serves."""
    return RestRouter().served()


def call(ctx: Ctx, name: str, payload: Mapping[str, Any]) -> Any:
    """Apply the world's operation ``name`` (GitHub's name for it); a refusal propagates as
    :class:`~pytest_ghxbench.sandbox.errors.GitHubError`, which :func:`dispatch` answers."""
    if mutates(name):
        ctx.mutated = True
    return apply(ctx.world, name, payload)


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


def dispatch(router: RestRouter, world: World, request: ApiRequest) -> tuple[Ctx, Any, int]:
    """Find and run the handler: the context it ran with, its result and success status."""
    path = "/" + request.path.strip("/")
    for entry in router.candidates(request.method):
        match = entry.pattern.match(path)
        if match is None:
            continue
        if _swallowed(entry, match, request.method, path):
            continue
        args = {k: unquote(v or "") for k, v in match.groupdict().items()}
        if "owner" in args and "repo" in args:
            _check_repo(world, args["owner"], args["repo"])
        body = {} if entry.raw else _json_body(request)
        too_long = rest_problem(entry.method, entry.template, body)
        if too_long is not None:
            raise RestError(422, *too_long)
        problem = body_problem(entry.operation, body) if entry.operation else None
        if problem is not None:
            raise RestError(422, problem)
        ctx = Ctx(world, request, args, TrackedBody(body))
        try:
            value = entry.handler(ctx)
        except Unhandled:
            continue
        except RestError:
            raise
        except GitHubError as refusal:
            raise RestError(refusal.status, refusal.message, refusal.errors) from None
        except Exception as exc:
            # the sandbox's own bug, never the client's: a 500 and a gap, not a 4xx that
            # would pass for GitHub's refusal
            record(SANDBOX_FAULT, f"{entry.name}: {type(exc).__name__}")
            raise
        if entry.operation is not None:
            record_unevaluated(entry.operation, request.query, ctx.read, ctx.body)
        return ctx, value, entry.status
    if request.method == "POST" and router.routed("PATCH", path):
        # GitHub takes POST for PATCH, for clients without PATCH (gh gist edit uses it)
        return dispatch(router, world, dataclasses.replace(request, method="PATCH"))
    _unserved(request.method, path)
    raise RestError(404, "Not Found")


def _swallowed(entry: Route, match: re.Match[str], method: str, path: str) -> bool:
    """Whether a parameter that may hold slashes took in the path of another of GitHub's
    operations (``/branches/{branch}`` matching ``/branches/main/protection``): that request
    is for the other operation, which this route does not serve."""
    if entry.operation is None or not any(name in SLASHED for name in match.groupdict()):
        return False
    meant = github_operation(method, path)
    if meant is None:
        return False
    template = meant.split(" ", 1)[1]
    # more segments than this route's template: the slashes were the other operation's
    return template.count("/") > entry.template.count("/")


def _unserved(method: str, path: str) -> None:
    """No route serves ``method`` on ``path``: a gap if GitHub has an operation for it."""
    found = github_operation(method, path)
    if found is not None:
        record(UNSERVED_ROUTE, found)


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
