"""More of :mod:`.wording`: graphql-ruby's words for errors about fragments, variables,
directives, duplicated names, operations and conflicting fields. Importing the module
registers them."""

from __future__ import annotations

import json
import re

from graphql import (
    ArgumentNode,
    DirectiveNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    ListValueNode,
    Node,
    ObjectFieldNode,
    OperationDefinitionNode,
    VariableDefinitionNode,
)

from pytest_ghxbench.sandbox.api.graphql.places import ruby_value
from pytest_ghxbench.sandbox.api.graphql.wording import (
    ARGUMENTISH,
    LOCATIONS,
    Entry,
    Translator,
    Wording,
    entry,
    named,
    rule,
)

__all__: list[str] = []


@rule(
    r"Fragment (?:'(?P<frag>[^']+)' )?cannot be spread here as objects of type "
    r"'(?P<parent>[^']+)' can never be of type '(?P<type>[^']+)'\."
)
def _impossible_spread(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    node = w.node(error)
    name = f" {m['frag']}" if m["frag"] else ""
    return entry(
        f"Fragment{name} on {m['type']} can't be spread inside {m['parent']}",
        [node],
        w.places.path(node),
        {
            "code": "cannotSpreadFragment",
            "typeName": m["type"],
            "fragmentName": name or "unknown",
            "parentName": m["parent"],
        },
    )


@rule(r"Unknown fragment '(?P<name>[^']+)'\.")
def _unknown_fragment(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    spread = w.up(w.node(error), FragmentSpreadNode)
    return entry(
        f"Fragment {m['name']} was used, but not defined",
        [spread],
        w.places.path(spread),
        {"code": "useAndDefineFragment", "fragmentName": m["name"]},
    )


@rule(r"Fragment '(?P<name>[^']+)' is never used\.")
def _unused_fragment(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    node = w.node(error)
    return entry(
        f"Fragment {m['name']} was defined, but not used",
        [node],
        w.places.path(node),
        {"code": "useAndDefineFragment", "fragmentName": m["name"]},
    )


@rule(r"Cannot spread fragment '(?P<name>[^']+)' within itself")
def _fragment_cycle(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    definition = next(
        d
        for d in w.document.definitions
        if isinstance(d, FragmentDefinitionNode) and d.name.value == m["name"]
    )
    return entry(
        f"Fragment {m['name']} contains an infinite loop",
        [definition],
        w.places.path(definition),
        {"code": "infiniteLoop", "fragmentName": m["name"]},
    )


def _duplicates(code: str, key: str, message: str, *kinds: type[Node]) -> Translator:
    """graphql-ruby's one error per duplicated name, located at every node bearing it."""

    def translate(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
        holders = [w.up(n, *kinds) for n in error.nodes or []]
        scope = w.places.parent(holders[0]) if kinds[0] in _SCOPED else None
        path = w.places.path(scope) if scope is not None else []
        return entry(message.format(name=m["name"]), holders, path, {"code": code, key: m["name"]})

    return translate


_SCOPED = (VariableDefinitionNode, ArgumentNode, ObjectFieldNode, DirectiveNode)
_DUPLICATES = (
    (r"There can be only one fragment named '(?P<name>[^']+)'\.", "fragmentNotUnique",
     "fragmentName", 'Fragment name "{name}" must be unique', FragmentDefinitionNode),
    (r"There can be only one operation named '(?P<name>[^']+)'\.", "uniquelyNamedOperations",
     "operationName", 'Operation name "{name}" must be unique', OperationDefinitionNode),
    (r"There can be only one variable named '\$(?P<name>[^']+)'\.", "variableNotUnique",
     "variableName", 'There can only be one variable named "{name}"', VariableDefinitionNode),
    (r"There can be only one argument named '(?P<name>[^']+)'\.", "argumentNotUnique", "name",
     'There can be only one argument named "{name}"', ArgumentNode),
    (r"There can be only one input field named '(?P<name>[^']+)'\.", "inputFieldNotUnique",
     "name", 'There can be only one input field named "{name}"', ObjectFieldNode),
    (r"The directive '@(?P<name>[^']+)' can only be used once at this location\.",
     "directiveNotUniqueForLocation", "directiveName",
     'The directive "{name}" can only be used once at this location.', DirectiveNode),
)  # fmt: skip
for _pattern, _code, _key, _message, _kind in _DUPLICATES:
    rule(_pattern)(_duplicates(_code, _key, _message, _kind))


@rule(r"Variable '\$(?P<var>[^']+)' is not defined")
def _undeclared_variable(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    node = w.node(error)
    return entry(
        f"Variable ${m['var']} is used by {w.operation_name(node)} but not declared",
        [node],
        w.places.path(node),
        {"code": "variableNotDefined", "variableName": m["var"]},
    )


@rule(r"Variable '\$(?P<var>[^']+)' is never used")
def _unused_variable(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    operation = w.up(w.node(error), OperationDefinitionNode)
    return entry(
        f"Variable ${m['var']} is declared by {w.operation_name(operation)} but not used",
        [operation],
        w.places.path(operation),
        {"code": "variableNotUsed", "variableName": m["var"]},
    )


@rule(r"Unknown directive '@(?P<name>[^']+)'\.")
def _unknown_directive(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    node = w.node(error)
    return entry(
        f"Directive @{m['name']} is not defined",
        [node],
        w.places.path(node),
        {"code": "undefinedDirective", "directiveName": m["name"]},
    )


@rule(r"Directive '@(?P<name>[^']+)' may not be used on (?P<where>\w+)\.")
def _misplaced_directive(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry | None:
    node = w.node(error)
    directive = w.schema.get_directive(m["name"])
    target = LOCATIONS.get(m["where"].upper())
    if directive is None or target is None:
        return None
    allowed = ", ".join(LOCATIONS.get(loc.name, "") for loc in directive.locations)
    return entry(
        f"'@{m['name']}' can't be applied to {target} (allowed: {allowed})",
        [node],
        w.places.path(node),
        {"code": "directiveCannotBeApplied", "targetName": target, "name": m["name"]},
    )


@rule(
    r"Variable '\$(?P<var>[^']+)' of type '(?P<vtype>[^']+)' used in position expecting "
    r"type '[^']+'\."
)
def _variable_mismatch(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry | None:
    definition, usage = w.node(error, 0), w.node(error, -1)
    argument = w.up(usage, *ARGUMENTISH)
    assert isinstance(argument, ARGUMENTISH) and isinstance(definition, VariableDefinitionNode)
    declared = m["vtype"]
    if definition.default_value is not None and not declared.endswith("!"):
        declared += "!"
    depth, node = 0, w.places.parent(usage)
    while isinstance(node, ListValueNode):
        declared, depth, node = f"[{declared}]!", depth + 1, w.places.parent(node)
    expected = w.places[argument].type
    if not expected:
        return None
    kind = (
        "Type mismatch"
        if named(declared) != named(expected)
        else "List dimension mismatch"
        if declared.count("[") != expected.count("[")
        else "Nullability mismatch"
    )
    name = argument.name.value
    return entry(
        f"{kind} on variable ${m['var']} and argument {name} ({declared} / {expected})",
        [argument],
        w.places.path(argument),
        {
            "code": "variableMismatch",
            "variableName": m["var"],
            "typeName": declared,
            "argumentName": name,
            "errorMessage": kind,
        },
    )


@rule(r"Fields '(?P<key>[^']+)' conflict because '(?P<a>[^']+)' and '(?P<b>[^']+)' are different")
def _field_conflict(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    conflicts = f"{m['a']} or {m['b']}"
    return entry(
        f"Field '{m['key']}' has a field conflict: {conflicts}?",
        list(error.nodes or []),
        [],
        {"code": "fieldConflict", "fieldName": m["key"], "conflicts": conflicts},
    )


@rule(r"Fields '(?P<key>[^']+)' conflict because they have differing arguments\.")
def _argument_conflict(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    fields = [n for n in error.nodes or [] if isinstance(n, FieldNode)]
    conflicts = " or ".join(
        "{"
        + ",".join(f"{a.name.value}:{_quoted(ruby_value(a.value))}" for a in f.arguments or ())
        + "}"
        for f in fields
    )
    return entry(
        f"Field '{m['key']}' has an argument conflict: {conflicts}?",
        list(fields),
        [],
        {"code": "fieldConflict", "fieldName": m["key"], "conflicts": conflicts},
    )


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


@rule(r"The (?:'[^']*' |\w+ )?definition is not executable\.")
def _type_definition(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    return entry(
        "Query cannot contain schema definitions",
        list(error.nodes or []),
        [],
        {"code": "queryContainsSchemaDefinitions"},
    )


@rule(r"The (?P<op>mutation|subscription) operation is not supported by the schema\.")
def _no_root(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    node = w.node(error)
    return entry(
        f"Schema is not configured for {m['op']}s",
        [node],
        w.places.path(node),
        {"code": f"missing{m['op'].capitalize()}Configuration"},
    )


@rule(r"This anonymous operation must be the only defined operation\.")
def _anonymous_among_many(w: Wording, m: re.Match[str], error: GraphQLError) -> Entry:
    return entry(
        "Operation name is required when multiple operations are present",
        list(error.nodes or []),
        [],
        {"code": "uniquelyNamedOperations"},
    )
