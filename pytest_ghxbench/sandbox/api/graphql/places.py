"""Where each node of a query document is, as graphql-ruby reports it: the ``path`` of its
validation errors (``["query Name", "repository", "issues", "first"]``), its parent node and,
for arguments and input-object fields, the type they take and whose they are."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from graphql import (
    ArgumentNode,
    BooleanValueNode,
    DirectiveNode,
    DocumentNode,
    EnumValueNode,
    FieldNode,
    FloatValueNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    ListValueNode,
    Node,
    NullValueNode,
    ObjectFieldNode,
    ObjectValueNode,
    OperationDefinitionNode,
    SourceLocation,
    StringValueNode,
    TypeInfo,
    TypeInfoVisitor,
    VariableNode,
    Visitor,
    get_named_type,
    visit,
)
from graphql.language import get_location

__all__ = ["Place", "Places", "location_of", "ruby_value"]

Segment = str | int


@dataclass(frozen=True)
class Place:
    path: tuple[Segment, ...]
    parent: Node | None
    type: str = ""
    """For an argument or input-object field: the type it takes (``[IssueState!]``)."""
    owner: str = ""
    """For an argument or input-object field: ``Field`` (of a field), ``Directive`` or
    ``InputObject`` (a field of an input object), as graphql-ruby names the parent."""
    owner_name: str = ""
    """The field's alias or name, the directive's name or the input object type's name."""


def location_of(node: Node) -> dict[str, int]:
    assert node.loc is not None
    found: SourceLocation = get_location(node.loc.source, node.loc.start)
    return {"line": found.line, "column": found.column}


class Places:
    """Every node of ``document`` (those the visitor reaches) by identity."""

    def __init__(self, schema: GraphQLSchema, document: DocumentNode) -> None:
        self._places: dict[int, Place] = {}
        self._nodes: list[Node] = []  # kept alive: their ids key the places
        info = TypeInfo(schema)
        visit(document, TypeInfoVisitor(info, _Walker(self, info)))

    def add(self, node: Node, place: Place) -> None:
        self._nodes.append(node)
        self._places[id(node)] = place

    def __getitem__(self, node: Node) -> Place:
        return self._places.get(id(node), Place((), None))

    def path(self, node: Node) -> list[Segment]:
        return list(self[node].path)

    def parent(self, node: Node) -> Node | None:
        return self[node].parent

    def up(self, node: Node, *kinds: type[Node]) -> Node | None:
        """The nearest ancestor of ``node`` (or ``node`` itself) of one of ``kinds``."""
        current: Node | None = node
        while current is not None and not isinstance(current, kinds):
            current = self.parent(current)
        return current


class _Walker(Visitor):
    def __init__(self, places: Places, info: TypeInfo) -> None:
        super().__init__()
        self.places = places
        self.info = info
        self.path: list[Segment] = []
        self.pushed: list[bool] = []

    def enter(self, node: Node, key: Any, parent: Any, _path: Any, ancestors: list[Any]) -> None:
        nodes = (a for a in (parent, *reversed(ancestors)) if isinstance(a, Node))
        owner = next(nodes, None)
        segment = _segment(node, key, parent)
        if segment is not None:
            self.path.append(segment)
        self.pushed.append(segment is not None)
        self.places.add(node, self._place(node, owner))

    def leave(self, *_args: Any) -> None:
        if self.pushed.pop():
            self.path.pop()

    def _place(self, node: Node, owner: Node | None) -> Place:
        path = tuple(self.path)
        if isinstance(node, ArgumentNode):
            argument = self.info.get_argument()
            taken = str(argument.type) if argument is not None else ""
            if isinstance(owner, DirectiveNode):
                return Place(path, owner, taken, "Directive", owner.name.value)
            name = ""
            if isinstance(owner, FieldNode):
                name = (owner.alias or owner.name).value
            return Place(path, owner, taken, "Field", name)
        if isinstance(node, ObjectFieldNode):
            taken_type = self.info.get_input_type()
            holder = self.info.get_parent_input_type()
            holder_name = get_named_type(holder).name if holder is not None else ""
            taken = str(taken_type) if taken_type is not None else ""
            return Place(path, owner, taken, "InputObject", holder_name)
        return Place(path, owner)


def _segment(node: Node, key: Any, parent: Any) -> Segment | None:
    if isinstance(node, OperationDefinitionNode):
        name = f" {node.name.value}" if node.name else ""
        return f"{node.operation.value}{name}"
    if isinstance(node, FragmentDefinitionNode):
        return f"fragment {node.name.value}"
    if isinstance(node, InlineFragmentNode):
        return f"... on {node.type_condition.name.value}" if node.type_condition else "..."
    if isinstance(node, FragmentSpreadNode):
        return f"... {node.name.value}"
    if isinstance(node, FieldNode):
        return (node.alias or node.name).value
    if isinstance(node, (ArgumentNode, ObjectFieldNode)):
        return node.name.value
    if isinstance(node, ObjectValueNode) and isinstance(key, int) and isinstance(parent, tuple):
        return key
    return None


def ruby_value(node: Node) -> str:
    """A value literal as graphql-ruby prints it (``{field: CREATED_AT, direction: ASC}``)."""
    if isinstance(node, StringValueNode):
        return json.dumps(node.value, ensure_ascii=False)
    if isinstance(node, IntValueNode):
        return str(int(node.value))
    if isinstance(node, FloatValueNode):
        return repr(float(node.value))
    if isinstance(node, BooleanValueNode):
        return "true" if node.value else "false"
    if isinstance(node, NullValueNode):
        return "null"
    if isinstance(node, EnumValueNode):
        return node.value
    if isinstance(node, VariableNode):
        return f"${node.name.value}"
    if isinstance(node, ListValueNode):
        return "[" + ", ".join(ruby_value(v) for v in node.values) + "]"
    if isinstance(node, ObjectValueNode):
        fields = ", ".join(f"{f.name.value}: {ruby_value(f.value)}" for f in node.fields)
        return "{" + fields + "}"
    return ""
