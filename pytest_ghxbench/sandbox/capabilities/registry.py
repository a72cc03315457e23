"""The capability registry: named GitHub operations over a sandbox :class:`World`.

A capability is an id (``issue.comments.list``), a one-line description, a JSON Schema for its
input, the route it reports (``cli`` or ``graphql``, as the TypeScript harness's scenarios
expect) and a handler ``handler(world, input) -> data`` that reads or mutates the world.
Modules in this package register theirs with the :func:`capability` decorator; every module of
the package is imported the first time the registry is consulted, so adding a capability is
adding a function to a module (or a new module) here.

:func:`run_capability` validates the input, runs the handler and wraps the outcome in the
result envelope ``{"ok", "data", "error", "meta"}``. Handlers signal failures by raising
:class:`CapabilityError` with one of the codes in :data:`ERROR_CODES`.

Conventions for ``data`` (so every dialect can rely on them): objects use GitHub's camelCase
field names; lists are ``{"items": [...], "pageInfo": {"hasNextPage", "endCursor"}}`` paged
with ``first`` / ``after`` (:func:`page`); mutations return the object's new state or a small
``{..., "updated": true}`` summary; ``data`` never shares containers with the world.
"""

from __future__ import annotations

import base64
import difflib
import importlib
import pkgutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import jsonschema  # type: ignore[import-untyped]  # no stubs in the dev dependencies

from pytest_ghxbench.sandbox.state import World

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
    "page",
    "repo_schema",
    "require_collaborators",
    "require_repo",
    "run_capability",
]

Route = Literal["cli", "graphql", "rest"]
Handler = Callable[[World, dict[str, Any]], Any]
H = TypeVar("H", bound=Handler)

ERROR_CODES = ("NOT_FOUND", "VALIDATION", "CONFLICT", "UNSUPPORTED")
"""``NOT_FOUND``: a named object does not exist; ``VALIDATION``: the input is malformed or
names an impossible value; ``CONFLICT``: the operation contradicts the object's state (e.g.
merging a closed pull request); ``UNSUPPORTED``: no such capability."""

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
    """Register the decorated ``handler(world, input) -> data`` as ``capability_id``."""

    def register(handler: H) -> H:
        if capability_id in _REGISTRY:
            raise ValueError(f"capability {capability_id!r} is registered twice")
        # The schemas are checked against the JSON Schema metaschema by the test suite, not
        # here: checking all of them costs about 130 ms at every start.
        _REGISTRY[capability_id] = Capability(
            capability_id, description, schema, handler, route, mutates
        )
        return handler

    return register


def _load_builtins() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    package = __name__.rsplit(".", 1)[0]
    path = importlib.import_module(package).__path__
    for module in sorted(m.name for m in pkgutil.iter_modules(path)):
        if module != "registry" and not module.startswith("_"):
            importlib.import_module(f"{package}.{module}")


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


def run_capability(
    world: World, task: str, input: Mapping[str, Any], *, strict: bool = True
) -> dict[str, Any]:
    """Run capability ``task`` on ``world`` and return its result envelope.

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
        data = cap.handler(world, value)
    except CapabilityError as exc:
        elapsed = (time.perf_counter() - start) * 1000
        return _failure(exc.code, exc.message, _meta(cap.id, cap.route, "error", elapsed))
    elapsed = (time.perf_counter() - start) * 1000
    return {
        "ok": True,
        "data": data,
        "error": None,
        "meta": _meta(cap.id, cap.route, "ok", elapsed),
    }


# ---------------------------------------------------------------- helpers for handlers


def require_repo(world: World, input: Mapping[str, Any]) -> None:
    """Fail like GitHub when ``owner``/``name`` do not name the world's repository."""
    repo = world.repository
    owner, name = input.get("owner"), input.get("name")
    if owner is None and name is None:
        return
    if (
        str(owner).casefold() != repo.owner.casefold()
        or str(name).casefold() != repo.name.casefold()
    ):
        raise CapabilityError(
            "NOT_FOUND", f"Could not resolve to a Repository with the name '{owner}/{name}'."
        )


def require_collaborators(world: World, logins: Sequence[str], field: str = "") -> None:
    """``VALIDATION`` for the first login that is not a collaborator (it cannot be assigned);
    ``field`` (e.g. ``input.add``) prefixes the message."""
    for login in logins:
        if login not in world.collaborators:
            prefix = f"{field}: " if field else ""
            raise CapabilityError(
                "VALIDATION",
                f"{prefix}'{login}' cannot be assigned: not a collaborator of "
                f"{world.repository.full_name}",
            )


def _cursor(offset: int) -> str:
    return base64.b64encode(f"cursor:v2:{offset}".encode()).decode()


def _offset(cursor: str) -> int:
    try:
        text = base64.b64decode(cursor.encode(), validate=True).decode()
        prefix, _, number = text.rpartition(":")
        if prefix != "cursor:v2":
            raise ValueError(text)
        return int(number)
    except (ValueError, UnicodeDecodeError):
        raise CapabilityError(
            "VALIDATION", f"input.after: {cursor!r} is not a valid cursor"
        ) from None


T = TypeVar("T")


def page(
    items: Sequence[T], input: Mapping[str, Any], render: Callable[[T], Any]
) -> dict[str, Any]:
    """One page of ``items`` (``input["first"]`` after ``input["after"]``), each rendered.

    Cursors are opaque strings; ``endCursor`` is ``None`` for an empty page.
    """
    first = int(input.get("first") or FIRST["default"])
    after = input.get("after")
    start = _offset(after) + 1 if after else 0
    chunk = items[start : start + first]
    end = start + len(chunk)
    return {
        "items": [render(item) for item in chunk],
        "pageInfo": {
            "hasNextPage": end < len(items),
            "endCursor": _cursor(end - 1) if chunk else None,
        },
    }
