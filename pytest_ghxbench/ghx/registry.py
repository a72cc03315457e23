"""The capability registry: named GitHub operations performed over GitHub's APIs.

A capability is an id (``issue.comments.list``), a one-line description, a JSON Schema for its
input, the route it reports (``cli``, ``graphql`` or ``rest``, as the TypeScript harness's
scenarios expect) and a handler ``handler(client, input) -> data`` that makes REST or GraphQL
requests through a :class:`~pytest_ghxbench.ghx.client.GitHubClient`. The modules of
:mod:`pytest_ghxbench.ghx.capabilities` register theirs with :func:`capability`; they are
imported the first time the registry is consulted.

:func:`run_capability` validates the input, runs the handler and wraps the outcome in the result
envelope ``{"ok", "data", "error", "meta"}``. Handlers fail by raising :class:`CapabilityError`;
a :class:`~pytest_ghxbench.ghx.client.GitHubError` a handler lets through becomes the error
code its status means (404 ``NOT_FOUND``, 422 ``VALIDATION``, 401/403 ``AUTH``...).

Conventions for ``data``: objects use GitHub's GraphQL (camelCase) field names; states are
GraphQL's (``OPEN``, ``CLOSED``, ``MERGED``); lists are ``{"items": [...], "pageInfo":
{"hasNextPage", "endCursor"}}`` paged with ``first`` / ``after``; mutations return the object's
new state or a small ``{..., "updated": true}`` summary.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import jsonschema  # type: ignore[import-untyped]  # no stubs in the dev dependencies

from pytest_ghxbench.ghx.client import GitHubClient, GitHubError

__all__ = [
    "AFTER",
    "ERROR_CODES",
    "FIRST",
    "ISSUE_NUMBER",
    "NAME",
    "OWNER",
    "Capability",
    "CapabilityError",
    "all_capabilities",
    "capability",
    "get_capability",
    "input_schema",
    "repo_schema",
    "run_capability",
    "validate_input",
]

Route = Literal["cli", "graphql", "rest"]
Handler = Callable[[GitHubClient, dict[str, Any]], Any]
H = TypeVar("H", bound=Handler)

ERROR_CODES = (
    "NOT_FOUND",
    "VALIDATION",
    "CONFLICT",
    "UNSUPPORTED",
    "AUTH",
    "RATE_LIMIT",
    "NETWORK",
    "SERVER",
)
"""``NOT_FOUND``: a named object does not exist; ``VALIDATION``: the input is malformed or
names an impossible value; ``CONFLICT``: the operation contradicts the object's state (e.g.
merging a closed pull request); ``UNSUPPORTED``: no such capability; ``AUTH``: the token may
not do this; ``RATE_LIMIT``: GitHub's rate limit; ``NETWORK``: GitHub could not be reached;
``SERVER``: GitHub failed (5xx)."""

# Reusable input-schema properties.
OWNER: dict[str, Any] = {"type": "string", "minLength": 1, "description": "Repository owner"}
NAME: dict[str, Any] = {"type": "string", "minLength": 1, "description": "Repository name"}
ISSUE_NUMBER: dict[str, Any] = {"type": "integer", "minimum": 1, "description": "Issue number"}
FIRST: dict[str, Any] = {
    "type": "integer",
    "minimum": 1,
    "maximum": 100,
    "default": 30,
    "description": "Page size",
}
AFTER: dict[str, Any] = {
    "type": ["string", "null"],
    "description": "Cursor from a previous page's pageInfo.endCursor",
}


class CapabilityError(Exception):
    """A failure a handler reports; becomes the envelope's ``error``."""

    def __init__(self, code: str, message: str) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code!r}; use one of {', '.join(ERROR_CODES)}")
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Capability:
    """One registered operation. ``input_schema`` is a JSON Schema (draft 2020-12) object."""

    id: str
    description: str
    input_schema: Mapping[str, Any]
    handler: Handler
    route: Route = "cli"
    mutates: bool = False

    @property
    def properties(self) -> Mapping[str, Any]:
        props: Mapping[str, Any] = self.input_schema.get("properties", {})
        return props


_REGISTRY: dict[str, Capability] = {}
_VALIDATORS: dict[str, Any] = {}
_LOADED = False
_LOAD_LOCK = threading.RLock()


def input_schema(required: Sequence[str], **properties: Mapping[str, Any]) -> dict[str, Any]:
    """An object schema with these properties, ``required`` keys and no others allowed."""
    unknown = [key for key in required if key not in properties]
    if unknown:
        raise ValueError(f"required keys without a property schema: {unknown}")
    return {
        "type": "object",
        "required": list(required),
        "properties": {key: dict(value) for key, value in properties.items()},
        "additionalProperties": False,
    }


def repo_schema(*required: str, **properties: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`input_schema` of an operation on the repository: ``owner`` and ``name`` (both
    required) come first, then these properties; ``required`` names the others it needs."""
    return input_schema(["owner", "name", *required], owner=OWNER, name=NAME, **properties)


def capability(
    capability_id: str,
    description: str,
    schema: Mapping[str, Any],
    *,
    route: Route = "cli",
    mutates: bool = False,
) -> Callable[[H], H]:
    """Register the decorated ``handler(client, input) -> data`` as ``capability_id``."""

    def register(handler: H) -> H:
        known = _REGISTRY.get(capability_id)
        # A module imported again (pytest's in-process runs drop modules they imported) brings
        # the same handler again: that replaces it; a second handler for the id is a mistake.
        if known is not None and _origin(known.handler) != _origin(handler):
            raise ValueError(f"capability {capability_id!r} is registered twice")
        _REGISTRY[capability_id] = Capability(
            capability_id, description, schema, handler, route, mutates
        )
        return handler

    return register


def _origin(handler: Callable[..., Any]) -> tuple[str, str]:
    return handler.__module__, handler.__qualname__


def _load_builtins() -> None:
    global _LOADED
    # the flag is set once everything is loaded, under a lock: a thread that finds it set (or
    # waits for the thread loading) sees the whole table, never a part of it
    if _LOADED:
        return
    with _LOAD_LOCK:
        if _LOADED:
            return
        package = importlib.import_module("pytest_ghxbench.ghx.capabilities")
        for module in sorted(m.name for m in pkgutil.iter_modules(package.__path__)):
            if not module.startswith("_"):
                importlib.import_module(f"{package.__name__}.{module}")
        _LOADED = True


def all_capabilities() -> list[Capability]:
    """Every registered capability, sorted by id."""
    _load_builtins()
    return [_REGISTRY[key] for key in sorted(_REGISTRY)]


def get_capability(capability_id: str) -> Capability | None:
    """The capability with this id, or ``None``."""
    _load_builtins()
    return _REGISTRY.get(capability_id)


def _validator(cap: Capability) -> Any:
    validator = _VALIDATORS.get(cap.id)
    if validator is None:
        validator = jsonschema.Draft202012Validator(cap.input_schema)
        _VALIDATORS[cap.id] = validator
    return validator


def _path(error: Any) -> str:
    return "input" + "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path
    )


def validate_input(cap: Capability, raw: Mapping[str, Any], *, strict: bool) -> dict[str, Any]:
    """The input the handler gets: validated, with schema defaults filled in.

    Raises a ``VALIDATION`` :class:`CapabilityError` listing every problem (path and reason).
    Without ``strict``, keys the schema does not know are dropped instead of rejected.
    """
    if not isinstance(raw, Mapping):
        raise CapabilityError(
            "VALIDATION", f"input must be a JSON object, got {type(raw).__name__}"
        )
    props = cap.properties
    value = dict(raw) if strict else {k: v for k, v in raw.items() if k in props}
    errors = sorted(_validator(cap).iter_errors(value), key=lambda e: list(e.absolute_path))
    if errors:
        shown = "; ".join(f"{_path(e)}: {e.message}" for e in errors[:5])
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        raise CapabilityError("VALIDATION", f"invalid input for {cap.id}: {shown}{more}")
    for key, prop in props.items():
        if key not in value and "default" in prop:
            value[key] = prop["default"]
    return value


def _meta(capability_id: str | None, route: str | None, status: str, ms: float) -> dict[str, Any]:
    attempts = [] if route is None else [{"route": route, "status": status}]
    return {
        "capability_id": capability_id,
        "route_used": route,
        "attempts": attempts,
        "timings": {"total_ms": round(ms, 3)},
    }


def _failure(code: str, message: str, meta: dict[str, Any]) -> dict[str, Any]:
    return {"ok": False, "data": None, "error": {"code": code, "message": message}, "meta": meta}


_GRAPHQL_TYPES = {
    "NOT_FOUND": "NOT_FOUND",
    "FORBIDDEN": "AUTH",
    "INSUFFICIENT_SCOPES": "AUTH",
    "RATE_LIMITED": "RATE_LIMIT",
    "UNPROCESSABLE": "VALIDATION",
}


def error_code(exc: GitHubError) -> str:
    """The envelope error code of a failed request."""
    if exc.status == 0:
        return "NETWORK"
    if exc.status == 200:  # a GraphQL error, "TYPE: message" when GitHub gave a type
        return _GRAPHQL_TYPES.get(exc.message.split(":", 1)[0].strip(), "VALIDATION")
    if exc.status == 429 or (exc.status == 403 and "rate limit" in exc.message.lower()):
        return "RATE_LIMIT"
    if exc.status in (401, 403):
        return "AUTH"
    if exc.status in (404, 410):
        return "NOT_FOUND"
    if exc.status == 409:
        return "CONFLICT"
    return "SERVER" if exc.status >= 500 else "VALIDATION"


def _graphql_message(exc: GitHubError) -> str:
    kind, sep, text = exc.message.partition(":")
    if exc.status == 200 and sep and kind.strip() in _GRAPHQL_TYPES:
        return text.strip()
    return exc.message if exc.status == 200 else str(exc)


def run_capability(
    client: GitHubClient, task: str, input: Mapping[str, Any], *, strict: bool = True
) -> dict[str, Any]:
    """Perform capability ``task`` through ``client`` and return its result envelope.

    ``meta`` holds ``capability_id``, ``route_used`` (``None`` when the call never reached a
    route: unknown capability or invalid input), ``attempts`` (``[{"route", "status"}]``) and
    ``timings.total_ms``. With ``strict=False`` unknown input keys are ignored (checkpoint
    verification overlays its own keys on a scenario's whole input).
    """
    start = time.perf_counter()
    cap = get_capability(task)
    if cap is None:
        close = difflib.get_close_matches(task, sorted(_REGISTRY), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        meta = _meta(task, None, "error", 0.0)
        return _failure("UNSUPPORTED", f"unknown capability {task!r}{hint}", meta)
    try:
        value = validate_input(cap, input, strict=strict)
    except CapabilityError as exc:
        return _failure(exc.code, exc.message, _meta(cap.id, None, "error", 0.0))
    try:
        data = cap.handler(client, value)
    except CapabilityError as exc:
        elapsed = (time.perf_counter() - start) * 1000
        return _failure(exc.code, exc.message, _meta(cap.id, cap.route, "error", elapsed))
    except GitHubError as exc:
        elapsed = (time.perf_counter() - start) * 1000
        meta = _meta(cap.id, cap.route, "error", elapsed)
        return _failure(error_code(exc), _graphql_message(exc), meta)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        # An answer of a shape the handler did not expect: GitHub's (or a server's) fault to
        # report as such, never a crash of the verification or of the CLI.
        elapsed = (time.perf_counter() - start) * 1000
        meta = _meta(cap.id, cap.route, "error", elapsed)
        shown = f"unexpected answer from the API ({type(exc).__name__}: {exc})"
        return _failure("SERVER", shown, meta)
    elapsed = (time.perf_counter() - start) * 1000
    return {
        "ok": True,
        "data": data,
        "error": None,
        "meta": _meta(cap.id, cap.route, "ok", elapsed),
    }
