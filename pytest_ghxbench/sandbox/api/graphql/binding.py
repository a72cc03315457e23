"""The executable schema: ``schema.graphql`` (GitHub's published schema) with the sandbox's
registered resolvers bound to its fields and abstract types. Fields without one are answered by
:mod:`.unmodelled`."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphql import (
    FieldNode,
    GraphQLAbstractType,
    GraphQLField,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLResolveInfo,
    GraphQLSchema,
    GraphQLUnionType,
    build_schema,
    get_named_type,
)

from pytest_ghxbench.sandbox.api.graphql.accounting import Field, handed
from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import (
    FIELD_KEY,
    PAGING,
    Paged,
    Resolver,
    Typed,
    check_pagination,
)
from pytest_ghxbench.sandbox.api.graphql.served import served_types
from pytest_ghxbench.sandbox.api.graphql.unmodelled import EMPTY, empty_member

__all__ = ["SCHEMA_FILE", "github_schema"]

SCHEMA_FILE = Path(__file__).with_name("schema.graphql")

FieldResolver = Callable[..., Any]


_BUILT: list[GraphQLSchema] = []
_BUILDING = threading.Lock()


def github_schema() -> GraphQLSchema:
    """The schema with resolvers, built once per process (by whichever thread asks first; the
    others wait for it: it takes most of a second)."""
    if not _BUILT:
        with _BUILDING:
            if not _BUILT:
                _BUILT.append(_build())
    return _BUILT[0]


def _build() -> GraphQLSchema:
    # GitHub's schema, which graphql-core would refuse for a dozen deprecated fields of
    # interfaces (scripts/gen_graphql_schema.py checks there is nothing else): taken as valid.
    text = SCHEMA_FILE.read_text(encoding="utf-8")
    schema = build_schema(text, assume_valid=True, assume_valid_sdl=True, no_location=True)
    served = served_types()
    for name, type_ in schema.type_map.items():
        if isinstance(type_, (GraphQLInterfaceType, GraphQLUnionType)):
            type_.resolve_type = _concrete_type
        elif isinstance(type_, GraphQLObjectType) and name in served:
            registered = served[name].fields
            for field_name, field in type_.fields.items():
                if field_name in registered:
                    field.resolve = _field_resolver(
                        field_name, field, registered[field_name].resolve
                    )
    return schema


def _concrete_type(
    value: Any, _info: GraphQLResolveInfo[Any], _type: GraphQLAbstractType
) -> str | None:
    return value.typename if isinstance(value, Typed) else None


def _field_resolver(name: str, field: GraphQLField, resolve: Resolver) -> FieldResolver:
    named = get_named_type(field.type).name
    is_url = named == "URI"
    is_connection = named.endswith("Connection")
    read_by_helper = PAGING if isinstance(resolve, Paged) else ()

    def resolver(parent: Any, info: GraphQLResolveInfo[Context], **args: Any) -> Any:
        if isinstance(parent, Typed):
            parent = parent.value
        if parent is EMPTY:  # under an unmodelled field: empty all the way down
            return empty_member(field.type, info.schema)
        node = info.field_nodes[0]
        watched = _watched(info, node, name, read_by_helper) if node.arguments else None
        if watched is not None:
            args = handed(args, watched)
        if is_connection:
            check_pagination(name, info, args)
        args[FIELD_KEY] = name
        # a resolver's own exception is a fault of the sandbox's (the executor answers 500 and
        # records it), never passed off as GitHub's refusal of the arguments
        value = resolve(parent, args, info.context)
        if watched is not None:
            watched.settle(args)
        if is_url and isinstance(value, str):
            return info.context.on_web(value)
        return value

    return resolver


def _watched(
    info: GraphQLResolveInfo[Context], node: FieldNode, name: str, read: tuple[str, ...]
) -> Field | None:
    """The accounting of ``node``'s arguments, while its resolvers have not read them all
    (``read``: those its resolver reads on every call)."""
    ctx = info.context
    key = id(node)
    if key in ctx.unwatched:
        return None
    found = ctx.fields.get(key)
    if found is None:
        coordinate = f"{info.parent_type.name}.{name}"
        found = Field(coordinate, node, ctx.variables, ctx.operation, FIELD_KEY, *read)
        if found.done:  # all read by construction, whatever the request: never watch it
            ctx.unwatched.add(key)
            return None
        ctx.fields[key] = found
    return None if found.done else found
