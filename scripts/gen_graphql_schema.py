"""Write the sandbox's GraphQL schema: GitHub's published schema cut down to what the sandbox
serves.

    python scripts/gen_graphql_schema.py [PUBLISHED_SCHEMA] [--check]

PUBLISHED_SCHEMA defaults to ``schema.graphql`` of the npm package @octokit/graphql-schema under
``/tmp/npmcache`` (``npm install --prefix /tmp/npmcache @octokit/graphql-schema@15``). The
output, ``pytest_ghxbench/sandbox/api/graphql/schema.graphql``, keeps the registered types and
fields (see ``pytest_ghxbench.sandbox.api.graphql.served``) and everything they reference:
arguments with their complete input types, enums and scalars, the kept interfaces of kept types
and the kept members of kept unions, without descriptions. Nothing is written by hand: a
registered field the published schema lacks, or serves with another type, stops the script.
``--check`` writes nothing and fails when the committed file differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TypeVar

from graphql import (
    DefinitionNode,
    DirectiveNode,
    DocumentNode,
    EnumTypeDefinitionNode,
    FieldDefinitionNode,
    InputObjectTypeDefinitionNode,
    InterfaceTypeDefinitionNode,
    ListTypeNode,
    NamedTypeNode,
    Node,
    NonNullTypeNode,
    ObjectTypeDefinitionNode,
    ObjectTypeExtensionNode,
    ScalarTypeDefinitionNode,
    TypeDefinitionNode,
    TypeNode,
    UnionTypeDefinitionNode,
    build_ast_schema,
    parse,
    print_ast,
)

from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import AbstractDef
from pytest_ghxbench.sandbox.api.graphql.served import disagreements, published, served_types

PACKAGE = Path("/tmp/npmcache/node_modules/@octokit/graphql-schema")
OUTPUT = (
    Path(__file__).resolve().parent.parent / "pytest_ghxbench/sandbox/api/graphql/schema.graphql"
)
NEWER = Path(__file__).resolve().parent / "graphql_schema_newer.graphql"
BUILT_IN_SCALARS = {"String", "Int", "Float", "Boolean", "ID"}
KEPT_DIRECTIVES = {"deprecated"}


class Unservable(Exception):
    """The registry and the published schema disagree; the message lists how."""


def _named(type_node: TypeNode) -> str:
    while isinstance(type_node, (ListTypeNode, NonNullTypeNode)):
        type_node = type_node.type
    assert isinstance(type_node, NamedTypeNode)
    return type_node.name.value


_N = TypeVar("_N", bound=Node)


def _with(node: _N, **changes: Any) -> _N:
    """A copy of ``node`` (nodes are frozen) with ``changes``."""
    values = {key: getattr(node, key) for key in node.keys if key != "loc"}
    return type(node)(**{**values, **changes})


def _without_descriptions(node: _N) -> _N:
    """A copy of ``node`` with no description and only the standard directives, throughout."""
    changes: dict[str, Any] = {}
    for key in node.keys:
        value = getattr(node, key)
        if key == "description":
            changes[key] = None
        elif key == "directives" and value:
            value = [d for d in value if isinstance(d, DirectiveNode)]
            changes[key] = tuple(d for d in value if d.name.value in KEPT_DIRECTIVES)
        elif isinstance(value, Node):
            changes[key] = _without_descriptions(value)
        elif isinstance(value, (list, tuple)):
            changes[key] = tuple(_without_descriptions(v) for v in value)
    return _with(node, **changes) if changes else node


class _Cut:
    """The kept part of the published schema, grown from the registered types."""

    def __init__(self, published: dict[str, TypeDefinitionNode]) -> None:
        self.published = published
        self.served = served_types()
        self.kept: dict[str, TypeDefinitionNode] = {}
        self.problems: list[str] = []

    def keep(self, name: str, referrer: str) -> None:
        if name in self.kept or name in BUILT_IN_SCALARS:
            return
        node = self.published.get(name)
        if node is None:
            self.problems.append(f"{referrer}: no type {name} in the published schema")
            return
        composite = (ObjectTypeDefinitionNode, InterfaceTypeDefinitionNode, UnionTypeDefinitionNode)
        if isinstance(node, composite) and name not in self.served:
            self.problems.append(f"{referrer}: returns {name}, which the sandbox does not serve")
            return
        self.kept[name] = node
        if isinstance(node, (ObjectTypeDefinitionNode, InterfaceTypeDefinitionNode)):
            for field in node.fields or ():
                if self._serves(name, field.name.value):
                    self._keep_field(name, field)
        elif isinstance(node, InputObjectTypeDefinitionNode):
            for value in node.fields or ():
                self.keep(_named(value.type), f"{name}.{value.name.value}")

    def _serves(self, name: str, field: str) -> bool:
        return field in self.served[name].fields and published(name, field)

    def _implements(self, name: str, interface: str) -> bool:
        """Kept interfaces the registry says ``name`` is one of (GitHub's types implement many
        the sandbox has no use for, such as ``Reactable``)."""
        definition = self.served.get(interface)
        return isinstance(definition, AbstractDef) and name in definition.possible

    def _keep_field(self, owner: str, field: FieldDefinitionNode) -> None:
        where = f"{owner}.{field.name.value}"
        self.keep(_named(field.type), where)
        for argument in field.arguments or ():
            self.keep(_named(argument.type), f"{where}({argument.name.value}:)")

    def grow(self) -> None:
        for name in sorted(self.served):
            self.keep(name, name)

    def definitions(self) -> list[DefinitionNode]:
        """The kept definitions, cut to the kept fields, interfaces and union members."""
        cut: list[DefinitionNode] = []
        for name in sorted(self.kept):
            node = self.kept[name]
            if isinstance(node, (ObjectTypeDefinitionNode, InterfaceTypeDefinitionNode)):
                node = _with(
                    node,
                    fields=tuple(f for f in node.fields or () if self._serves(name, f.name.value)),
                    interfaces=tuple(
                        i for i in node.interfaces or () if self._implements(name, i.name.value)
                    ),
                )
                self._check_interfaces(node)
            elif isinstance(node, UnionTypeDefinitionNode):
                node = _with(
                    node, types=tuple(t for t in node.types or () if t.name.value in self.kept)
                )
                if not node.types:
                    self.problems.append(f"union {name}: none of its members is served")
            elif not isinstance(
                node,
                (EnumTypeDefinitionNode, ScalarTypeDefinitionNode, InputObjectTypeDefinitionNode),
            ):
                self.problems.append(f"{name}: unexpected kind of definition")
            cut.append(_without_descriptions(node))
        return cut

    def _check_interfaces(
        self, node: ObjectTypeDefinitionNode | InterfaceTypeDefinitionNode
    ) -> None:
        have = {f.name.value for f in node.fields or ()}
        for interface in node.interfaces or ():
            wanted = self.served[interface.name.value]
            assert isinstance(wanted, AbstractDef)
            missing = sorted({f for f in wanted.fields if published(wanted.name, f)} - have)
            if missing:
                self.problems.append(
                    f"{node.name.value} implements {interface.name.value} but does not serve "
                    + ", ".join(missing)
                )


def _package_version(schema_file: Path) -> str:
    manifest = schema_file.parent / "package.json"
    data: dict[str, Any] = json.loads(manifest.read_text()) if manifest.exists() else {}
    return f"{data.get('name', 'unknown package')} {data.get('version', '(unknown version)')}"


def _with_newer(document: DocumentNode) -> DocumentNode:
    """``document`` with :data:`NEWER` merged in: its types added, its ``extend type`` fields
    appended to the published types."""
    newer = parse(NEWER.read_text(), no_location=True)
    definitions = {
        d.name.value: d for d in document.definitions if isinstance(d, TypeDefinitionNode)
    }
    others = [d for d in document.definitions if not isinstance(d, TypeDefinitionNode)]
    for node in newer.definitions:
        if isinstance(node, ObjectTypeExtensionNode):
            base = definitions[node.name.value]
            assert isinstance(base, ObjectTypeDefinitionNode)
            known = {f.name.value for f in base.fields or ()}
            added = tuple(f for f in node.fields or () if f.name.value not in known)
            definitions[node.name.value] = _with(base, fields=(*(base.fields or ()), *added))
        elif isinstance(node, TypeDefinitionNode):
            definitions.setdefault(node.name.value, node)
    return DocumentNode(definitions=(*others, *definitions.values()))


def generate(schema_file: Path) -> str:
    """The cut schema's text; :class:`Unservable` when the registry disagrees with it."""
    document = _with_newer(parse(schema_file.read_text(), no_location=True))
    published = {d.name.value: d for d in document.definitions if isinstance(d, TypeDefinitionNode)}
    cut = _Cut(published)
    cut.grow()
    definitions = cut.definitions()
    problems = cut.problems + disagreements(build_ast_schema(document, assume_valid=True))
    if problems:
        raise Unservable("\n".join(problems))
    header = (
        f"# Generated by scripts/gen_graphql_schema.py from {schema_file.name} of "
        f"{_package_version(schema_file)}: GitHub's published schema, with the newer parts in "
        f"scripts/{NEWER.name}, cut down to the types and fields the sandbox serves. Do not "
        "edit; regenerate.\n\n"
    )
    return header + "\n\n".join(print_ast(d) for d in definitions) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("published", nargs="?", type=Path, default=PACKAGE / "schema.graphql")
    parser.add_argument("--check", action="store_true", help="only compare with the committed file")
    args = parser.parse_args(argv)
    try:
        text = generate(args.published)
    except Unservable as error:
        print(
            f"the sandbox's resolvers disagree with the published schema:\n{error}", file=sys.stderr
        )
        return 1
    if args.check:
        same = OUTPUT.exists() and OUTPUT.read_text() == text
        print("up to date" if same else f"{OUTPUT} is out of date; run {sys.argv[0]}")
        return 0 if same else 1
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
