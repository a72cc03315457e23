"""The resolver registry of the sandbox's GraphQL API: object and abstract types, their fields
and resolvers, and GitHub-style connections (:mod:`..binding` binds them to the generated
schema, :mod:`..executor` runs queries).

Types are registered by :mod:`.types` and its sibling modules: each object type maps
field names to a :class:`FieldDef` (the GraphQL return type, which must agree with GitHub's
schema, and a resolver ``(parent, arguments, context) -> value``, the context being a
:class:`~.context.Context`). Abstract types (interfaces and unions) list their possible types,
and resolvers return :class:`Typed` values for them so graphql-core can pick the concrete type.
"""

from __future__ import annotations

import base64
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from graphql import FieldNode, GraphQLResolveInfo

from pytest_ghxbench.sandbox.api.graphql.accounting import mark_read
from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context

__all__ = [
    "FIELD_KEY",
    "PAGING",
    "SCHEMA",
    "AbstractDef",
    "FieldDef",
    "GraphQLError",
    "ObjectDef",
    "Page",
    "Paged",
    "Resolver",
    "Typed",
    "abstract",
    "check_pagination",
    "connection",
    "load_types",
    "obj",
]

Resolver = Callable[[Any, dict[str, Any], Context], Any]
FIELD_KEY = "__field__"
"""Resolvers find the queried field's name under this key of their arguments (for messages)."""


class GraphQLError(Exception):
    """An error for the response's ``errors`` list (``type`` is e.g. ``NOT_FOUND``)."""

    def __init__(self, message: str, *, type: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.type = type


@dataclass(frozen=True)
class FieldDef:
    type: str
    resolve: Resolver


@dataclass
class ObjectDef:
    name: str
    fields: dict[str, FieldDef]


@dataclass
class AbstractDef:
    name: str
    fields: dict[str, FieldDef]
    possible: tuple[str, ...]


SCHEMA: dict[str, ObjectDef | AbstractDef] = {}

_TYPE_MODULES = (
    "types",
    "repo",
    "refs",
    "mutations",
    "mutations_pr",
    "mutations_code",
    "review_writes",
    "details",
    "search",
    "absent",
    "gists",
    "timeline",
)
"""Modules that register types when imported, in order (types before the mutations)."""


_LOADED = False


def load_types() -> dict[str, ObjectDef | AbstractDef]:
    """:data:`SCHEMA` with every type registered. The modules are imported once: importing one
    again (after something dropped it from ``sys.modules``, as pytester's in-process runs do)
    would register its types a second time."""
    global _LOADED
    if not _LOADED:
        for module in _TYPE_MODULES:
            importlib.import_module(f"{__package__}.{module}")
        _LOADED = True
    return SCHEMA


@dataclass(frozen=True)
class Typed:
    """A value of an abstract type, tagged with its concrete type name."""

    typename: str
    value: Any


def obj(name: str, /, **fields: tuple[str, Resolver]) -> ObjectDef:
    """Register (or extend) object type ``name``."""
    existing = SCHEMA.get(name)
    definition = existing if isinstance(existing, ObjectDef) else ObjectDef(name, {})
    definition.fields.update({key: FieldDef(t, r) for key, (t, r) in fields.items()})
    SCHEMA[name] = definition
    return definition


def abstract(name: str, possible: Sequence[str], /, **fields: tuple[str, Resolver]) -> None:
    """Register interface or union ``name``; its own fields resolve via the concrete type."""
    SCHEMA[name] = AbstractDef(
        name, {key: FieldDef(t, r) for key, (t, r) in fields.items()}, tuple(possible)
    )


# ---------------------------------------------------------------- connections


def _cursor(offset: int) -> str:
    return base64.b64encode(f"cursor:v2:{offset}".encode()).decode()


def _offset(cursor: Any, name: str) -> int:
    try:
        text = base64.b64decode(str(cursor).encode(), validate=True).decode()
        prefix, _, number = text.rpartition(":")
        if prefix == "cursor:v2":
            return int(number)
    except (ValueError, UnicodeDecodeError):
        pass
    raise GraphQLError(f"`{cursor}` does not appear to be a valid cursor.")


def check_pagination(name: str, info: GraphQLResolveInfo[Any], args: dict[str, Any]) -> None:
    """GitHub refuses a connection's ``nodes`` or ``edges`` without ``first`` or ``last``."""
    mark_read(args, _BOUNDS)
    if dict.get(args, "first") is not None or dict.get(args, "last") is not None:
        return
    for node in info.field_nodes:
        selections = node.selection_set.selections if node.selection_set else ()
        if any(isinstance(s, FieldNode) and s.name.value in ("nodes", "edges") for s in selections):
            raise GraphQLError(
                f"You must provide a `first` or `last` value to properly paginate the "
                f"`{name}` connection.",
                type="MISSING_PAGINATION_BOUNDARIES",
            )


@dataclass
class Page:
    """One page of a connection (``first``/``after`` or ``last``/``before``)."""

    items: list[Any]
    start: int
    total: int
    has_next: bool
    has_previous: bool


_BOUNDS = ("first", "last")
PAGING = ("first", "last", "after", "before")
"""The arguments of a page of a connection."""


def _page(items: list[Any], args: dict[str, Any], name: str) -> Page:
    first, last, after, before = (dict.get(args, key) for key in PAGING)
    for key, value in (("first", first), ("last", last)):
        if value is not None and not 0 <= int(value) <= 100:
            raise GraphQLError(
                f"Requesting {value} records on the `{name}` connection exceeds the `{key}` "
                "limit of 100 records.",
                type="EXCESSIVE_PAGINATION",
            )
    start, end = 0, len(items)
    if after is not None:
        start = _offset(after, name) + 1
    if before is not None:
        end = min(end, _offset(before, name))
    if first is not None:
        end = min(end, start + int(first))
    if last is not None:
        start = max(start, end - int(last))
    return Page(items[start:end], start, len(items), end < len(items), start > 0)


def connection(
    item_type: str,
    items: Callable[[Any, dict[str, Any], Context], list[Any]],
    name: str | None = None,
) -> tuple[str, Resolver]:
    """A ``<Item>Connection`` field (or one of connection type ``name``, such as
    ``CommitHistoryConnection``) whose items come from ``items(parent, args, context)``."""
    name = name or f"{item_type}Connection"
    if name not in SCHEMA:
        edge = f"{item_type}Edge"
        obj(
            edge,
            node=(item_type, lambda pair, a, c: pair[1]),
            cursor=("String", lambda pair, a, c: _cursor(pair[0])),
        )
        obj(
            name,
            nodes=(f"[{item_type}]", lambda page, a, c: list(page.items)),
            edges=(
                f"[{edge}]",
                lambda page, a, c: [(page.start + i, x) for i, x in enumerate(page.items)],
            ),
            totalCount=("Int", lambda page, a, c: page.total),
            pageInfo=("PageInfo", lambda page, a, c: page),
        )
    return name, Paged(items)


class Paged:
    """The resolver of a :func:`connection`: a page of its items. It reads the arguments of
    :data:`PAGING` on every call (so a query that gives a connection no others needs no
    accounting of them: see :mod:`..accounting`)."""

    __slots__ = ("items",)

    def __init__(self, items: Callable[[Any, dict[str, Any], Context], list[Any]]) -> None:
        self.items = items

    def __call__(self, parent: Any, args: dict[str, Any], ctx: Context) -> Page:
        mark_read(args, PAGING)
        return _page(self.items(parent, args, ctx), args, str(dict.get(args, FIELD_KEY, "")))


obj(
    "PageInfo",
    hasNextPage=("Boolean", lambda p, a, c: p.has_next),
    hasPreviousPage=("Boolean", lambda p, a, c: p.has_previous),
    endCursor=("String", lambda p, a, c: _cursor(p.start + len(p.items) - 1) if p.items else None),
    startCursor=("String", lambda p, a, c: _cursor(p.start) if p.items else None),
)
