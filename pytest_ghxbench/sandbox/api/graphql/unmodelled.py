"""Fields of GitHub's schema that the sandbox does not model.

The schema is GitHub's whole published one, so a client may ask for any of its fields; those
without a registered resolver get :func:`resolve_unmodelled` (graphql-core's resolver for
fields without their own). It records an ``unmodelled_field`` gap (``PullRequest.isPinned``)
and answers null when the field is nullable, else its type's empty value (:func:`empty_value`):

=========================== ==================================================================
non-null type               empty value
=========================== ==================================================================
list                        ``[]``
``Boolean``                 ``false``
``Int``, ``Float``          ``0``
``BigInt``                  ``"0"`` (GitHub sends it as a string)
any other scalar            ``""`` (``String``, ``ID``, ``URI``, ``DateTime``, ...)
enum                        ``UNKNOWN`` where the enum has it, else ``NONE``, else its first
                            value
object                      an empty object: its list fields are ``[]`` (nullable or not),
                            its other fields their empty values in turn; so a connection is
                            ``totalCount`` 0, ``nodes`` and ``edges`` ``[]`` and a
                            ``pageInfo`` without pages
interface, union            the same, as the first of its possible types by name
=========================== ==================================================================

Fields under such an empty object are not gaps of their own: the gap is the field that made it.
An unmodelled mutation answers null with an error saying the sandbox did not perform it (a
client must not believe a write happened); it is a gap like any other field.
"""

from __future__ import annotations

from typing import Any

from graphql import (
    GraphQLAbstractType,
    GraphQLEnumType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLResolveInfo,
    GraphQLScalarType,
    GraphQLSchema,
    get_named_type,
)

from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import (
    GraphQLError,
    Typed,
    check_pagination,
)
from pytest_ghxbench.sandbox.gaps import UNMODELLED_FIELD, record

__all__ = ["EMPTY", "empty_member", "empty_value", "resolve_unmodelled"]


class _Empty:
    """The value of an object made up for an unmodelled non-null field."""

    def __repr__(self) -> str:
        return "EMPTY"


EMPTY = _Empty()
"""An object all of whose fields are their empty values (resolvers see it as their parent)."""

_SCALARS: dict[str, Any] = {"Boolean": False, "Int": 0, "Float": 0.0, "BigInt": "0"}


def empty_value(type_: GraphQLOutputType, schema: GraphQLSchema) -> Any:
    """What a field of ``type_`` answers when the sandbox does not model it (see the module)."""
    if not isinstance(type_, GraphQLNonNull):
        return None
    inner = type_.of_type
    if isinstance(inner, GraphQLList):
        return []
    if isinstance(inner, GraphQLScalarType):
        return _SCALARS.get(inner.name, "")
    if isinstance(inner, GraphQLEnumType):
        return next((v for v in ("UNKNOWN", "NONE") if v in inner.values), next(iter(inner.values)))
    if isinstance(inner, GraphQLObjectType):
        return EMPTY
    assert isinstance(inner, GraphQLAbstractType)
    first = min(t.name for t in schema.get_possible_types(inner))
    return Typed(first, EMPTY)


def empty_member(type_: GraphQLOutputType, schema: GraphQLSchema) -> Any:
    """The value of a field of ``type_`` of an empty object (:data:`EMPTY`)."""
    inner = type_.of_type if isinstance(type_, GraphQLNonNull) else type_
    return [] if isinstance(inner, GraphQLList) else empty_value(type_, schema)


def resolve_unmodelled(parent: Any, info: GraphQLResolveInfo[Any], **args: Any) -> Any:
    """The answer to a field without a resolver, recorded as a gap unless it is part of an
    empty object (whose field made the gap). GitHub's refusal of a connection without ``first``
    or ``last`` holds here too."""
    if isinstance(parent, Typed):
        parent = parent.value
    if parent is EMPTY:
        return empty_member(info.return_type, info.schema)
    if get_named_type(info.return_type).name.endswith("Connection"):
        check_pagination(info.field_name, info, args)
    record(UNMODELLED_FIELD, f"{info.parent_type.name}.{info.field_name}")
    if info.parent_type is info.schema.mutation_type:
        raise GraphQLError(
            f"The sandbox does not perform the {info.field_name} mutation; nothing was changed.",
            type="UNPROCESSABLE",
        )
    return empty_value(info.return_type, info.schema)
