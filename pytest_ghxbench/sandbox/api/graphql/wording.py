"""graphql-core's validation errors in the words, codes and paths of graphql-ruby's (which
GitHub's GraphQL API answers): :meth:`Wording.translate` maps one error, by its message and
nodes, or answers None when it cannot. Messages, extension keys and paths follow graphql-ruby's
static validation rules (no "Did you mean" suggestions: GitHub gives none)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from graphql import (
    ArgumentNode,
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLEnumType,
    GraphQLError,
    GraphQLInputObjectType,
    GraphQLSchema,
    GraphQLUnionType,
    InlineFragmentNode,
    Node,
    ObjectFieldNode,
    ObjectValueNode,
    OperationDefinitionNode,
    ValueNode,
    VariableDefinitionNode,
    VariableNode,
)

from pytest_ghxbench.sandbox.api.graphql.places import Places, location_of, ruby_value

__all__ = [
    "ARGUMENTISH",
    "LOCATIONS",
    "Entry",
    "Translator",
    "Wording",
    "entry",
    "missing_arguments",
    "missing_arguments_message",
    "named",
    "no_selections",
    "rule",
]

Entry = dict[str, Any]
Translator = Callable[["Wording", "re.Match[str]", GraphQLError], Entry | None]
_RULES: list[tuple[re.Pattern[str], Translator]] = []
LOCATIONS = {
    "QUERY": "queries", "MUTATION": "mutations", "SUBSCRIPTION": "subscriptions",
    "FIELD": "fields", "FRAGMENT_DEFINITION": "fragment definitions",
    "FRAGMENT_SPREAD": "fragment spreads", "INLINE_FRAGMENT": "inline fragments",
    "VARIABLE_DEFINITION": "variable definitions",
}  # fmt: skip
ARGUMENTISH = (ArgumentNode, ObjectFieldNode)


def entry(message: str, nodes: list[Node], path: list[Any], extensions: dict[str, Any]) -> Entry:
    """One error as GitHub lists it (its keys in GitHub's order)."""
    return {
        "path": path,
        "extensions": extensions,
        "locations": [location_of(n) for n in nodes if n.loc is not None],
        "message": message,
    }


def rule(pattern: str) -> Callable[[Translator], Translator]:
    """Register a translation of the errors whose message ``pattern`` matches."""

    def register(translate: Translator) -> Translator:
        _RULES.append((re.compile(pattern), translate))
        return translate

    return register


def named(type_text: str) -> str:
    return type_text.strip("[]!")


class Wording:
    """Translations of one document's validation errors."""

    def __init__(self, schema: GraphQLSchema, document: DocumentNode) -> None:
        self.schema = schema
        self.document = document
        self.places = Places(schema, document)

    def translate(self, error: GraphQLError) -> Entry | None:
        """``error`` as GitHub words it, or None (also for a shape no wording foresaw: the
        caller keeps graphql-core's words and records the gap)."""
        try:
            return self._translated(error)
        except (AssertionError, LookupError, StopIteration):
            return None

    def _translated(self, error: GraphQLError) -> Entry | None:
        nodes = error.nodes or []
        if error.extensions and "code" in error.extensions:  # worded by a rule of ours
            return entry(error.message, nodes, self.places.path(nodes[0]), dict(error.extensions))
        for pattern, translate in _RULES:
            found = pattern.match(error.message)
            if found is not None:
                return translate(self, found, error)
        if nodes and isinstance(nodes[0], ValueNode) and not isinstance(nodes[0], VariableNode):
            return self.invalid_literal(nodes[0])
        return None

    def node(self, error: GraphQLError, index: int = 0) -> Node:
        assert error.nodes
        return error.nodes[index]

    def up(self, node: Node, *kinds: type[Node]) -> Node:
        found = self.places.up(node, *kinds)
        assert found is not None
        return found

    def invalid_literal(self, value: Node) -> Entry:
        """graphql-ruby's ``argumentLiteralsIncompatible``: the innermost argument (or input
        field) holding the bad value, its whole literal printed."""
        argument = self.up(value, *ARGUMENTISH)
        assert isinstance(argument, ARGUMENTISH)
        place = self.places[argument]
        name = argument.name.value
        message = (
            f"Argument '{name}' on {place.owner} '{place.owner_name}' has an invalid value "
            f"({ruby_value(argument.value)}). Expected type '{place.type}'."
        )
        holder = place.parent if place.parent is not None else argument
        extensions = {"code": "argumentLiteralsIncompatible", "typeName": place.owner}
        extensions["argumentName"] = name
        return entry(message, [holder], list(place.path), extensions)

    def operation_name(self, node: Node) -> str:
        operation = self.up(node, OperationDefinitionNode)
        assert isinstance(operation, OperationDefinitionNode)
        if operation.name:
            return operation.name.value
        return f"anonymous {operation.operation.value}"


@rule(r"Cannot query field '(?P<field>[^']+)' on type '(?P<type>[^']+)'\.")
def _undefined_field(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    field, type_name = m["field"], m["type"]
    node = w.node(error)
    if isinstance(w.schema.get_type(type_name), GraphQLUnionType):
        holder = w.places.up(w.places.parent(node) or node, FieldNode, InlineFragmentNode)
        return entry(
            f"Selections can't be made directly on unions (see selections on {type_name})",
            [holder or node],
            w.places.path(node),
            {"code": "selectionMismatch", "nodeName": type_name},
        )
    return entry(
        f"Field '{field}' doesn't exist on type '{type_name}'",
        [node],
        w.places.path(node),
        {"code": "undefinedField", "typeName": type_name, "fieldName": field},
    )


@rule(r"Unknown argument '(?P<arg>[^']+)' on (?P<kind>field|directive) '@?(?P<owner>[^']+)'\.")
def _unknown_argument(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    node = w.node(error)
    place = w.places[node]
    kind = "Field" if m["kind"] == "field" else "Directive"
    name = place.owner_name or m["owner"].rpartition(".")[2]
    return entry(
        f"{kind} '{name}' doesn't accept argument '{m['arg']}'",
        [node],
        list(place.path),
        {"code": "argumentNotAccepted", "name": name, "typeName": kind, "argumentName": m["arg"]},
    )


@rule(r"Argument '(?P<owner>[^(]+)\((?P<arg>[^:]+):\)' of type '[^']+' is required")
def _missing_argument(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    node = w.node(error)
    owner = m["owner"]
    kind, name = ("Directive", owner[1:]) if owner.startswith("@") else ("Field", "")
    if isinstance(node, FieldNode):
        name = node.name.value
    return missing_arguments(w.places.path(node), node, kind, name, m["arg"])


def missing_arguments(path: list[Any], node: Node, kind: str, name: str, missing: str) -> Entry:
    """graphql-ruby's error for a field or directive without its required ``missing``
    (graphql-core reports each argument apart: :func:`.validation.merged` joins them)."""
    return entry(
        missing_arguments_message(kind, name, missing),
        [node],
        path,
        {"code": "missingRequiredArguments", "className": kind, "name": name, "arguments": missing},
    )


def missing_arguments_message(kind: str, name: str, missing: str) -> str:
    return f"{kind} '{name}' is missing required arguments: {missing}"


@rule(r"Field '(?P<field>[^']+)' must not have a selection since type '(?P<type>[^']+)'")
def _leaf_with_selections(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    field = w.up(w.node(error), FieldNode)
    assert isinstance(field, FieldNode) and field.selection_set is not None
    leaf = named(m["type"])
    kind = "enums" if isinstance(w.schema.get_type(leaf), GraphQLEnumType) else "scalars"
    shown = ", ".join(_selection_shown(s) for s in field.selection_set.selections)
    node_name = f"field '{m['field']}'"
    return entry(
        f"Selections can't be made on {kind} ({node_name} returns {leaf} "
        f"but has selections [{shown}])",
        [field],
        w.places.path(field),
        {"code": "selectionMismatch", "nodeName": node_name, "typeName": leaf},
    )


def _selection_shown(selection: Node) -> str:
    if isinstance(selection, InlineFragmentNode):
        condition = selection.type_condition
        return f'"... on {condition.name.value if condition else ""} {{ ... }}"'
    if isinstance(selection, (FieldNode, FragmentSpreadNode)):
        return f'"{selection.name.value}"'
    return '""'


@rule(r"Field '(?P<field>[^']+)' of type '(?P<type>[^']+)' must have a selection of subfields")
def _object_without_selections(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    node = w.node(error)
    return no_selections(w.places.path(node), node, f"field '{m['field']}'", named(m["type"]))


def no_selections(path: list[Any], node: Node, node_name: str, type_name: str) -> Entry:
    """graphql-ruby's error for an object field (or an operation) selecting nothing."""
    name = node.name.value if isinstance(node, FieldNode) and node.name else ""
    if isinstance(node, OperationDefinitionNode) and node.name:
        name = node.name.value
    return entry(
        f"Field must have selections ({node_name} returns {type_name} but has no selections. "
        f"Did you mean '{name} {{ ... }}'?)",
        [node],
        path,
        {"code": "selectionMismatch", "nodeName": node_name, "typeName": type_name},
    )


@rule(r"Unknown type '(?P<type>[^']+)'\.")
def _unknown_type(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    holder = w.up(w.node(error), VariableDefinitionNode, InlineFragmentNode, FragmentDefinitionNode)
    type_name = m["type"]
    if isinstance(holder, VariableDefinitionNode):
        variable = holder.variable.name.value
        return entry(
            f"{type_name} isn't a defined input type (on ${variable})",
            [holder],
            w.places.path(holder),
            {"code": "variableRequiresValidType", "typeName": type_name, "variableName": variable},
        )
    return entry(
        f"No such type {type_name}, so it can't be a fragment condition",
        [holder],
        w.places.path(holder),
        {"code": "undefinedType", "typeName": type_name},
    )


@rule(r"Variable '\$(?P<var>[^']+)' cannot be non-input type '(?P<type>[^']+)'\.")
def _not_input_type(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    holder = w.up(w.node(error), VariableDefinitionNode)
    type_name = named(m["type"])
    return entry(
        f"{type_name} isn't a valid input type (on ${m['var']})",
        [holder],
        w.places.path(holder),
        {"code": "variableRequiresValidType", "typeName": type_name, "variableName": m["var"]},
    )


@rule(r"Fragment (?:'[^']+' )?cannot condition on non composite type '(?P<type>[^']+)'\.")
def _fragment_on_leaf(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    holder = w.up(w.node(error), InlineFragmentNode, FragmentDefinitionNode)
    return entry(
        f"Invalid fragment on type {m['type']} (must be Union, Interface or Object)",
        [holder],
        w.places.path(holder),
        {"code": "fragmentOnNonCompositeType", "typeName": m["type"]},
    )


@rule(r"Expected value of type '(?P<type>[^']+)' to include required field '(?P<field>[^']+)'")
def _missing_input_field(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry | None:
    node = w.node(error)
    holder = w.schema.get_type(m["type"])
    if not isinstance(holder, GraphQLInputObjectType) or not isinstance(node, ObjectValueNode):
        return None
    taken = str(holder.fields[m["field"]].type)
    path = [*w.places.path(node), m["field"]]
    return entry(
        f"Argument '{m['field']}' on InputObject '{m['type']}' is required. Expected type {taken}",
        [node],
        path,
        {
            "code": "missingRequiredInputObjectAttribute",
            "argumentName": m["field"],
            "argumentType": taken,
            "inputObjectType": m["type"],
        },
    )


@rule(r"Expected value of type '(?P<type>[^']+)' not to include unknown field '(?P<field>[^']+)'")
def _unknown_input_field(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    node = w.up(w.node(error), ObjectFieldNode)
    return entry(
        f"InputObject '{m['type']}' doesn't accept argument '{m['field']}'",
        [node],
        w.places.path(node),
        {
            "code": "argumentNotAccepted",
            "name": m["type"],
            "typeName": "InputObject",
            "argumentName": m["field"],
        },
    )
