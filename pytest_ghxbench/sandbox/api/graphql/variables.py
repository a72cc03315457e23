"""The operation a request names (``No operation named "X"``), and its variable values as
GitHub checks them (graphql-ruby's ``Variable $number of type Int! was provided invalid
value``, with the value and each problem in ``extensions``): worded once graphql-core, which
checks them the same way, has refused them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from graphql import (
    DocumentNode,
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLScalarType,
    GraphQLSchema,
    OperationDefinitionNode,
    VariableDefinitionNode,
    type_from_ast,
)

from pytest_ghxbench.sandbox.api.graphql.places import location_of

__all__ = ["chosen", "operations_of", "ruby_serialize", "variable_errors"]

Problem = dict[str, Any]
_INT_RANGE = range(-(2**31), 2**31)


def operations_of(document: DocumentNode) -> dict[str | None, OperationDefinitionNode]:
    """``document``'s operations by name (None: anonymous), the last of each name, as
    graphql-ruby keeps them."""
    return {
        d.name.value if d.name else None: d
        for d in document.definitions
        if isinstance(d, OperationDefinitionNode)
    }


def chosen(
    operations: Mapping[str | None, OperationDefinitionNode], name: str | None
) -> OperationDefinitionNode | dict[str, Any]:
    """The operation ``name`` picks, or GitHub's error when it picks none (or none is named
    among several). Two anonymous operations are one to pick, refused by validation."""
    if name is None and len(operations) == 1:
        return next(iter(operations.values()))
    found = operations.get(name)
    if found is not None:
        return found
    if name is None:
        return {"message": "An operation name is required"}
    return {"message": f'No operation named "{name}"'}


def variable_errors(
    schema: GraphQLSchema, operation: OperationDefinitionNode, values: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """An error for each variable of ``operation`` whose value ``values`` gives (or leaves
    out) its type refuses."""
    errors = []
    for definition in operation.variable_definitions or ():
        type_ = type_from_ast(schema, definition.type)
        name = definition.variable.name.value
        if type_ is None or (name not in values and definition.default_value is not None):
            continue
        value = values.get(name)
        problems = _problems(type_, value)  # type: ignore[arg-type]
        if problems:
            errors.append(_error(definition, str(type_), value, problems))
    return errors


def _error(
    definition: VariableDefinitionNode, type_: str, value: Any, problems: list[Problem]
) -> dict[str, Any]:
    variable = definition.variable.name.value
    message = f"Variable ${variable} of type {type_} was provided invalid value"
    located = [p for p in problems if p["path"]]
    if located:
        shown = ", ".join(f"{'.'.join(map(str, p['path']))} ({p['explanation']})" for p in located)
        message += f" for {shown}"
    return {
        "extensions": {"value": value, "problems": problems},
        "locations": [location_of(definition)],
        "message": message,
    }


def _problems(type_: GraphQLInputType, value: Any, path: tuple[Any, ...] = ()) -> list[Problem]:
    if value is None:
        if isinstance(type_, GraphQLNonNull):
            return [_problem(path, "Expected value to not be null")]
        return []
    if isinstance(type_, GraphQLNonNull):
        type_ = type_.of_type
    if isinstance(type_, GraphQLList):
        items = value if isinstance(value, list) else [value]
        inner = type_.of_type
        return [p for i, item in enumerate(items) for p in _problems(inner, item, (*path, i))]
    if isinstance(type_, GraphQLInputObjectType):
        return _object_problems(type_, value, path)
    if isinstance(type_, GraphQLEnumType):
        if isinstance(value, str) and value in type_.values:
            return []
        choices = ", ".join(type_.values)
        return [_problem(path, f"Expected {ruby_serialize(value)} to be one of: {choices}")]
    assert isinstance(type_, GraphQLScalarType)
    if _coerces(type_.name, value):
        return []
    return [_problem(path, f"Could not coerce value {ruby_serialize(value)} to {type_.name}")]


def _object_problems(
    type_: GraphQLInputObjectType, value: Any, path: tuple[Any, ...]
) -> list[Problem]:
    if not isinstance(value, dict):
        shown = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        return [_problem(path, f"Expected {shown} to be a key-value object.")]
    found = []
    for key, item in value.items():
        field = type_.fields.get(key)
        if field is None:
            found.append(_problem((*path, key), f"Field is not defined on {type_.name}"))
        else:
            found += _problems(field.type, item, (*path, key))
    for key, field in type_.fields.items():
        if key not in value and isinstance(field.type, GraphQLNonNull):
            found += _problems(field.type, None, (*path, key))
    return found


def _coerces(scalar: str, value: Any) -> bool:
    if scalar == "Int":
        return isinstance(value, int) and not isinstance(value, bool) and value in _INT_RANGE
    if scalar == "Float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if scalar == "String":
        return isinstance(value, str)
    if scalar == "Boolean":
        return isinstance(value, bool)
    if scalar == "ID":
        return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
    return True  # GitHub's own scalars (DateTime, URI ...): taken as given


def _problem(path: tuple[Any, ...], explanation: str) -> Problem:
    return {"path": list(path), "explanation": explanation}


def ruby_serialize(value: Any) -> str:
    """A JSON value as graphql-ruby shows it in messages (``{key:"value"}``, ``[1,2]``)."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{ruby_serialize(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(ruby_serialize(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)
