"""What the sandbox's resolvers serve: every registered type and field with the type its
resolver returns, and how that disagrees with a GraphQL schema (GitHub's published one when
generating ``schema.graphql``, the committed one in tests)."""

from __future__ import annotations

from graphql import (
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLSchema,
    GraphQLUnionType,
)

from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import AbstractDef, ObjectDef, load_types

__all__ = ["NEWER_THAN_PUBLISHED", "disagreements", "output_shape", "published", "served_types"]

NEWER_THAN_PUBLISHED: frozenset[str] = frozenset()
"""Types and fields the resolvers register that the API leaves out because GitHub's schema
lacks them. Empty: what GitHub added after the published npm schema is merged in from
``scripts/graphql_schema_newer.graphql``."""


def published(name: str, field: str | None = None) -> bool:
    """Whether registered type ``name`` (or its ``field``) belongs in the generated schema."""
    if name in NEWER_THAN_PUBLISHED:
        return False
    return field is None or f"{name}.{field}" not in NEWER_THAN_PUBLISHED


def served_types() -> dict[str, ObjectDef | AbstractDef]:
    """Type name -> its registered definition (object types, interfaces and unions), without
    those of :data:`NEWER_THAN_PUBLISHED`."""
    return {name: d for name, d in load_types().items() if published(name)}


def output_shape(type_: GraphQLOutputType) -> str:
    """``[Label]`` for ``[Label!]!``: the named type and list nesting, without nullability
    (the registry does not record nullability)."""
    if isinstance(type_, GraphQLNonNull):
        return output_shape(type_.of_type)
    if isinstance(type_, GraphQLList):
        return f"[{output_shape(type_.of_type)}]"
    assert isinstance(type_, GraphQLNamedType)
    return type_.name


def disagreements(schema: GraphQLSchema) -> list[str]:
    """Every registered type or field missing from ``schema`` or of another type there, and
    every abstract type whose registered possible types ``schema`` does not allow."""
    found: list[str] = []
    for name, definition in sorted(served_types().items()):
        target = schema.type_map.get(name)
        if isinstance(definition, ObjectDef) and not isinstance(target, GraphQLObjectType):
            found.append(f"type {name}: not an object type in the schema")
            continue
        if isinstance(definition, AbstractDef):
            if not isinstance(target, (GraphQLInterfaceType, GraphQLUnionType)):
                found.append(f"type {name}: not an interface or union in the schema")
                continue
            allowed = {t.name for t in schema.get_possible_types(target)}
            found += [
                f"type {name}: {member} is not one of its possible types"
                for member in definition.possible
                if member in served_types() and member not in allowed
            ]
            if isinstance(target, GraphQLUnionType):
                continue
        assert isinstance(target, (GraphQLObjectType, GraphQLInterfaceType))
        for field_name, field in sorted(definition.fields.items()):
            if not published(name, field_name):
                continue
            published_field = target.fields.get(field_name)
            if published_field is None:
                found.append(f"{name}.{field_name}: no such field")
            elif output_shape(published_field.type) != field.type:
                found.append(
                    f"{name}.{field_name}: served as {field.type}, "
                    f"published as {output_shape(published_field.type)}"
                )
    return found
