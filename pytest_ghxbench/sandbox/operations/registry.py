"""The world's operations, registered by capability id, and how the API performs them.

An operation is ``handler(world, input) -> data`` registered with :func:`operation` under the id
of the ghx capability it implements on the world (``issue.close``). :func:`perform` validates the
input against that capability's schema (one schema for the client and the server), runs the
handler and answers ``{"ok", "data", "error"}``; handlers fail by raising
:class:`~pytest_ghxbench.ghx.registry.CapabilityError`, which the API turns into GitHub's error
answers. Every module of this package is imported the first time an operation is looked up.
"""

from __future__ import annotations

import base64
import importlib
import pkgutil
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from pytest_ghxbench.ghx.registry import FIRST, CapabilityError, get_capability, validate_input
from pytest_ghxbench.sandbox.state import World

__all__ = [
    "CapabilityError",
    "mutates",
    "operation",
    "page",
    "perform",
    "require_collaborators",
    "require_repo",
]

Handler = Callable[[World, dict[str, Any]], Any]
H = TypeVar("H", bound=Handler)

_OPERATIONS: dict[str, Handler] = {}
_LOADED = False
_LOAD_LOCK = threading.RLock()


def operation(capability_id: str) -> Callable[[H], H]:
    """Register the decorated ``handler(world, input) -> data`` for ``capability_id``."""

    def register(handler: H) -> H:
        known = _OPERATIONS.get(capability_id)
        # the same handler again is its module imported anew (a test run in process drops the
        # modules it imported, while this table lives on); another handler is a clash
        if known is not None and _where(known) != _where(handler):
            raise ValueError(f"operation {capability_id!r} is registered twice")
        _OPERATIONS[capability_id] = handler
        return handler

    return register


def _where(handler: Handler) -> tuple[str, str]:
    return handler.__module__, handler.__qualname__


def _load() -> None:
    global _LOADED
    # the flag is set once everything is loaded, under a lock: a thread that finds it set (or
    # waits for the thread loading) sees the whole table, never a part of it
    if _LOADED:
        return
    with _LOAD_LOCK:
        if _LOADED:
            return
        package = __name__.rsplit(".", 1)[0]
        path = importlib.import_module(package).__path__
        for module in sorted(m.name for m in pkgutil.iter_modules(path)):
            if module != "registry" and not module.startswith("_"):
                importlib.import_module(f"{package}.{module}")
        _LOADED = True


def operations() -> list[str]:
    """The ids of every registered operation, sorted."""
    _load()
    return sorted(_OPERATIONS)


def mutates(capability_id: str) -> bool:
    """Whether performing ``capability_id`` may change the world."""
    cap = get_capability(capability_id)
    return cap is not None and cap.mutates


def perform(world: World, capability_id: str, input: Mapping[str, Any]) -> dict[str, Any]:
    """``{"ok", "data", "error"}`` of the operation for ``capability_id`` on ``world``."""
    _load()
    handler = _OPERATIONS.get(capability_id)
    cap = get_capability(capability_id)
    if handler is None or cap is None:
        # A programming error of the API's handlers, never an agent's input.
        raise KeyError(f"the sandbox has no operation {capability_id!r}")
    try:
        data = handler(world, validate_input(cap, input, strict=True))
    except CapabilityError as exc:
        return {"ok": False, "data": None, "error": {"code": exc.code, "message": exc.message}}
    return {"ok": True, "data": data, "error": None}


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
