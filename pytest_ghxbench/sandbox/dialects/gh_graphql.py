"""The sandbox's GraphQL endpoint (``gh api graphql``): validation and execution of queries
and mutations against the types of :mod:`.gh_graphql_schema`.

A query is validated before anything runs (unknown fields, selections on scalars, missing
selections, unknown fragment types), so a mistyped mutation changes nothing, and the errors
read like GitHub's. Connections follow GitHub's rules: ``first``/``last`` up to 100, and one
of them is required when ``nodes`` or ``edges`` are selected.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
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
from pytest_ghxbench.sandbox.dialects.gh_graphql_schema import (
    FIELD_KEY,
    SCHEMA,
    AbstractDef,
    FieldDef,
    GraphQLError,
    Typed,
    load_types,
)

__all__ = ["execute"]

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
            except (ValueError, TypeError, KeyError):
                given = {k: v for k, v in args.items() if k != FIELD_KEY}
                problem = GraphQLError(
                    f"Argument on Field '{selection.name}' has an invalid value "
                    f"({json.dumps(given)}).",
                    type="INVALID_ARGUMENT",
                )
                self.errors.append(_error_entry(problem, here, selection))
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


_SCALAR_CHECKS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "Int": ("Int", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    "Float": ("Float", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)),
    "String": ("String", lambda v: isinstance(v, str)),
    "ID": ("ID", lambda v: isinstance(v, (str, int)) and not isinstance(v, bool)),
    "Boolean": ("Boolean", lambda v: isinstance(v, bool)),
}


def _variable_problem(type_text: str, value: Any) -> str | None:
    """Why ``value`` does not fit variable type ``type_text`` (scalars only), or ``None``."""
    if value is None:
        return "Expected value to not be null" if type_text.endswith("!") else None
    check = _SCALAR_CHECKS.get(type_text.rstrip("!"))
    if check is None or check[1](value):
        return None
    return f"Could not coerce value {json.dumps(value)} to {check[0]}"


def _coerce_variables(
    operation: Operation, given: Mapping[str, Any]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The operation's variable values; GitHub's error for each one missing or mistyped (gh's
    ``-f`` sends strings, ``-F`` sends numbers and booleans as such)."""
    values: dict[str, Any] = {}
    errors = []
    for name, (type_text, default) in operation.variables.items():
        value = given.get(name, default)
        problem = _variable_problem(type_text, value)
        if problem is not None:
            errors.append(
                {
                    "extensions": {
                        "value": value,
                        "problems": [{"path": [], "explanation": problem}],
                    },
                    "locations": [{"line": 1, "column": 1}],
                    "message": f"Variable ${name} of type {type_text} was provided invalid value",
                }
            )
        values[name] = value
    return values, errors


def execute(
    ctx: GhContext,
    query: str,
    variables: Mapping[str, Any],
    operation_name: str | None = None,
) -> dict[str, Any]:
    """The GraphQL response (``{"data": ...}`` and/or ``{"errors": [...]}``) for ``query``."""
    load_types()
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
