"""The sandbox's GraphQL endpoint (``gh api graphql``): a schema-driven executor.

Types are registered in :data:`SCHEMA` by :mod:`.gh_graphql_types` and
:mod:`.gh_graphql_mutations`: each object type maps field names to a :class:`FieldDef` (the
GraphQL return type and a resolver ``(parent, arguments, context) -> value``). A field whose
type names an object type is resolved further with the query's sub-selection; any other type
name is a scalar or enum. Abstract types (interfaces and unions) list their possible types,
and their resolvers return :class:`Typed` values so fragments can pick the concrete type.

A query is validated before anything runs (unknown fields, selections on scalars, missing
selections, unknown fragment types), so a mistyped mutation changes nothing, and the errors
read like GitHub's. Connections follow GitHub's rules: ``first``/``last`` up to 100, and one
of them is required when ``nodes`` or ``edges`` are selected.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_ghxbench.sandbox.dialects.gh_context import GhContext
from pytest_ghxbench.sandbox.dialects.gh_graphql_parse import (
    EnumValue,
    Field,
    FragmentSpread,
    GraphQLSyntaxError,
    InlineFragment,
    Operation,
    Selection,
    Variable,
    parse_document,
)

__all__ = [
    "FIELD_KEY",
    "SCHEMA",
    "AbstractDef",
    "FieldDef",
    "GraphQLError",
    "ObjectDef",
    "Page",
    "Typed",
    "connection",
    "execute",
    "obj",
]

Resolver = Callable[[Any, dict[str, Any], GhContext], Any]
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


@dataclass
class Page:
    """One page of a connection (``first``/``after`` or ``last``/``before``)."""

    items: list[Any]
    start: int
    total: int
    has_next: bool
    has_previous: bool


def _page(items: list[Any], args: Mapping[str, Any], name: str) -> Page:
    first, last = args.get("first"), args.get("last")
    for key, value in (("first", first), ("last", last)):
        if value is not None and not 0 <= int(value) <= 100:
            raise GraphQLError(
                f"Requesting {value} records on the `{name}` connection exceeds the `{key}` "
                "limit of 100 records."
            )
    start, end = 0, len(items)
    if args.get("after") is not None:
        start = _offset(args["after"], name) + 1
    if args.get("before") is not None:
        end = min(end, _offset(args["before"], name))
    if first is not None:
        end = min(end, start + int(first))
    if last is not None:
        start = max(start, end - int(last))
    return Page(items[start:end], start, len(items), end < len(items), start > 0)


def connection(
    item_type: str, items: Callable[[Any, dict[str, Any], GhContext], list[Any]]
) -> tuple[str, Resolver]:
    """A ``<Item>Connection`` field whose items come from ``items(parent, args, context)``."""
    name = f"{item_type}Connection"
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
    return name, lambda parent, args, ctx: _page(
        items(parent, args, ctx), args, str(args.get(FIELD_KEY, ""))
    )


obj(
    "PageInfo",
    hasNextPage=("Boolean", lambda p, a, c: p.has_next),
    hasPreviousPage=("Boolean", lambda p, a, c: p.has_previous),
    endCursor=("String", lambda p, a, c: _cursor(p.start + len(p.items) - 1) if p.items else None),
    startCursor=("String", lambda p, a, c: _cursor(p.start) if p.items else None),
)


# ---------------------------------------------------------------- validation


@dataclass
class _Problem:
    message: str
    path: list[str]
    line: int
    column: int
    extensions: dict[str, Any] = field(default_factory=dict)


def _base(type_text: str) -> str:
    return type_text.strip("[]!")


def _fields_of(type_name: str) -> dict[str, FieldDef]:
    definition = SCHEMA[type_name]
    return definition.fields


def _validate(
    selections: list[Selection],
    type_name: str,
    fragments: Mapping[str, InlineFragment],
    path: list[str],
    problems: list[_Problem],
) -> None:
    for selection in selections:
        if isinstance(selection, FragmentSpread):
            fragment = fragments.get(selection.name)
            if fragment is None:
                problems.append(
                    _Problem(
                        f"Fragment {selection.name} was used, but not defined",
                        path,
                        selection.line,
                        selection.column,
                    )
                )
                continue
            selection = fragment
        if isinstance(selection, InlineFragment):
            condition = selection.type_condition or type_name
            if condition not in SCHEMA:
                problems.append(
                    _Problem(
                        f"No such type {condition}, so it can't be a fragment condition",
                        path,
                        1,
                        1,
                    )
                )
                continue
            _validate(selection.selections, condition, fragments, path, problems)
            continue
        here = [*path, selection.key]
        if selection.name == "__typename":
            continue
        known = _fields_of(type_name)
        if selection.name not in known:
            problems.append(
                _Problem(
                    f"Field '{selection.name}' doesn't exist on type '{type_name}'",
                    here,
                    selection.line,
                    selection.column,
                    {"code": "undefinedField", "typeName": type_name, "fieldName": selection.name},
                )
            )
            continue
        returns = _base(known[selection.name].type)
        if returns in SCHEMA and not selection.selections:
            problems.append(
                _Problem(
                    f"Field must have selections (field '{selection.name}' returns {returns} but "
                    f"has no selections. Did you mean '{selection.name} {{ ... }}'?)",
                    here,
                    selection.line,
                    selection.column,
                    {"code": "selectionMismatch", "nodeName": f"field '{selection.name}'"},
                )
            )
        elif returns not in SCHEMA and selection.selections:
            problems.append(
                _Problem(
                    f"Selections can't be made on scalars (field '{selection.name}' returns "
                    f"{returns} but has selections [{', '.join(_names(selection.selections))}])",
                    here,
                    selection.line,
                    selection.column,
                    {"code": "selectionMismatch", "nodeName": f"field '{selection.name}'"},
                )
            )
        elif returns in SCHEMA:
            _validate(selection.selections, returns, fragments, here, problems)


def _names(selections: list[Selection]) -> list[str]:
    return [s.key for s in selections if isinstance(s, Field)]


# ---------------------------------------------------------------- execution


class _Run:
    def __init__(
        self,
        ctx: GhContext,
        fragments: Mapping[str, InlineFragment],
        variables: Mapping[str, Any],
    ) -> None:
        self.ctx = ctx
        self.fragments = fragments
        self.variables = variables
        self.errors: list[dict[str, Any]] = []

    def value(self, raw: Any) -> Any:
        if isinstance(raw, Variable):
            return self.variables.get(raw.name)
        if isinstance(raw, EnumValue):
            return raw.name
        if isinstance(raw, list):
            return [self.value(item) for item in raw]
        if isinstance(raw, dict):
            return {key: self.value(item) for key, item in raw.items()}
        return raw

    def included(self, directives: list[tuple[str, dict[str, Any]]]) -> bool:
        for name, args in directives:
            condition = bool(self.value(args.get("if")))
            if (name == "skip" and condition) or (name == "include" and not condition):
                return False
        return True

    def flatten(self, selections: list[Selection], concrete: str) -> list[Field]:
        found: list[Field] = []
        for selection in selections:
            if isinstance(selection, Field):
                if self.included(selection.directives):
                    found.append(selection)
                continue
            if isinstance(selection, FragmentSpread):
                fragment = self.fragments[selection.name]
                directives = selection.directives
            else:
                fragment, directives = selection, selection.directives
            if not self.included(directives):
                continue
            condition = fragment.type_condition
            if condition is None or _applies(condition, concrete):
                found += self.flatten(fragment.selections, concrete)
        return found

    def object(
        self, value: Any, type_name: str, selections: list[Selection], path: list[Any]
    ) -> Any:
        if value is None:
            return None
        if isinstance(value, Typed):
            type_name, value = value.typename, value.value
        result: dict[str, Any] = {}
        for selection in self.flatten(selections, type_name):
            key = selection.key
            if selection.name == "__typename":
                result[key] = type_name
                continue
            definition = _fields_of(type_name).get(selection.name)
            if definition is None:
                abstract_def = SCHEMA[type_name]
                definition = abstract_def.fields[selection.name]
            args = {k: self.value(v) for k, v in selection.arguments.items()}
            args[FIELD_KEY] = selection.name
            here = [*path, key]
            try:
                _check_pagination(definition.type, selection, args)
                resolved = definition.resolve(value, args, self.ctx)
            except GraphQLError as error:
                self.errors.append(_error_entry(error, here, selection))
                result[key] = None
                continue
            result[key] = self.complete(resolved, definition.type, selection, here)
        return result

    def complete(self, value: Any, type_text: str, selection: Field, path: list[Any]) -> Any:
        base = _base(type_text)
        if value is None:
            return None
        if type_text.startswith("["):
            return [
                self.complete(item, base, selection, [*path, index])
                for index, item in enumerate(value)
            ]
        if base in SCHEMA:
            return self.object(value, base, selection.selections, path)
        return value


def _applies(condition: str, concrete: str) -> bool:
    if condition == concrete:
        return True
    definition = SCHEMA.get(condition)
    return isinstance(definition, AbstractDef) and concrete in definition.possible


def _check_pagination(type_text: str, selection: Field, args: Mapping[str, Any]) -> None:
    if not type_text.endswith("Connection"):
        return
    wants_items = any(
        isinstance(s, Field) and s.name in ("nodes", "edges") for s in selection.selections
    )
    if wants_items and args.get("first") is None and args.get("last") is None:
        raise GraphQLError(
            f"You must provide a `first` or `last` value to properly paginate the "
            f"`{selection.name}` connection.",
            type="MISSING_PAGINATION_BOUNDARIES",
        )


def _error_entry(error: GraphQLError, path: list[Any], selection: Field) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    if error.type:
        entry["type"] = error.type
    entry["path"] = path
    entry["locations"] = [{"line": selection.line, "column": selection.column}]
    entry["message"] = error.message
    return entry


def _coerce_variables(
    operation: Operation, given: Mapping[str, Any]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    values: dict[str, Any] = {}
    errors = []
    for name, (type_text, default) in operation.variables.items():
        if name in given:
            value = given[name]
            if (
                _base(type_text) in ("Int",)
                and isinstance(value, str)
                and value.lstrip("-").isdigit()
            ):
                value = int(value)
            values[name] = value
        elif default is not None:
            values[name] = default
        elif type_text.endswith("!"):
            errors.append(
                {
                    "extensions": {
                        "value": None,
                        "problems": [{"path": [], "explanation": "Expected value to not be null"}],
                    },
                    "locations": [{"line": 1, "column": 1}],
                    "message": f"Variable ${name} of type {type_text} was provided invalid value",
                }
            )
    return values, errors


def execute(
    ctx: GhContext,
    query: str,
    variables: Mapping[str, Any],
    operation_name: str | None = None,
) -> dict[str, Any]:
    """The GraphQL response (``{"data": ...}`` and/or ``{"errors": [...]}``) for ``query``."""
    _load_types()
    try:
        document = parse_document(query)
    except GraphQLSyntaxError as error:
        return {
            "errors": [
                {
                    "message": error.message,
                    "locations": [{"line": error.line, "column": error.column}],
                }
            ]
        }
    operations = document.operations
    if operation_name is not None:
        operations = [op for op in operations if op.name == operation_name]
    if len(operations) != 1:
        message = (
            f'No operation named "{operation_name}"'
            if operation_name
            else "An operation name is required when the document has several operations"
        )
        return {"errors": [{"message": message}]}
    operation = operations[0]
    root = "Mutation" if operation.kind == "mutation" else "Query"
    if operation.kind == "subscription":
        return {"errors": [{"message": "Subscriptions are not supported"}]}
    problems: list[_Problem] = []
    _validate(operation.selections, root, document.fragments, [operation.kind], problems)
    if problems:
        return {
            "errors": [
                {
                    "path": p.path,
                    **({"extensions": p.extensions} if p.extensions else {}),
                    "locations": [{"line": p.line, "column": p.column}],
                    "message": p.message,
                }
                for p in problems
            ]
        }
    values, variable_errors = _coerce_variables(operation, variables)
    if variable_errors:
        return {"errors": variable_errors}
    run = _Run(ctx, document.fragments, values)
    data = run.object(ctx.world, root, operation.selections, [])
    response: dict[str, Any] = {"data": data}
    if run.errors:
        response["errors"] = run.errors
    return response


_LOADED = False


def _load_types() -> None:
    global _LOADED
    if not _LOADED:
        _LOADED = True
        import pytest_ghxbench.sandbox.dialects.gh_graphql_mutations
        import pytest_ghxbench.sandbox.dialects.gh_graphql_types  # noqa: F401
