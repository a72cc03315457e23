"""Write the sandbox's GraphQL schema: GitHub's whole published schema.

    python scripts/gen_graphql_schema.py [PUBLISHED_SCHEMA] [--check]

PUBLISHED_SCHEMA defaults to ``schema.graphql`` of the npm package @octokit/graphql-schema under
``/tmp/npmcache`` (``npm install --prefix /tmp/npmcache @octokit/graphql-schema@15``). The
output, ``pytest_ghxbench/sandbox/api/graphql/schema.graphql``, is every type, field, argument
and enum value of it, with what GitHub added since (``scripts/graphql_schema_newer.graphql``)
merged in, sorted by name, without descriptions and with only the ``@deprecated`` directive.
A field the published schema defines twice (it does) is kept once. Nothing is written by hand:
a field the sandbox's resolvers register that the published schema lacks, or serves with
another type, stops the script, and so does any problem graphql-core finds in the schema beyond
the ones GitHub's own schema has (implementations deprecated where their interface is not).
``--check`` writes nothing and fails when the committed file differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TypeVar

from graphql import (
    DirectiveNode,
    DocumentNode,
    FieldDefinitionNode,
    InputObjectTypeDefinitionNode,
    InputValueDefinitionNode,
    InterfaceTypeDefinitionNode,
    Node,
    ObjectTypeDefinitionNode,
    ObjectTypeExtensionNode,
    TypeDefinitionNode,
    build_ast_schema,
    parse,
    print_ast,
    validate_schema,
)

from pytest_ghxbench.sandbox.api.graphql.served import disagreements

PACKAGE = Path("/tmp/npmcache/node_modules/@octokit/graphql-schema")
OUTPUT = (
    Path(__file__).resolve().parent.parent / "pytest_ghxbench/sandbox/api/graphql/schema.graphql"
)
NEWER = Path(__file__).resolve().parent / "graphql_schema_newer.graphql"
KEPT_DIRECTIVES = {"deprecated"}
GITHUBS_OWN_PROBLEM = "is not deprecated, so implementation field"
"""graphql-core refuses a deprecated field whose interface's field is not deprecated; GitHub's
schema has a dozen (``PullRequest.databaseId`` of ``Reactable``). GitHub serves them, and so
does the sandbox: the schema is built with ``assume_valid``."""

Fields = tuple[FieldDefinitionNode, ...] | tuple[InputValueDefinitionNode, ...]


class Unservable(Exception):
    """The registry and the published schema disagree; the message lists how."""


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


def _once(node: TypeDefinitionNode) -> TypeDefinitionNode:
    """``node`` with each field defined once (the first definition)."""
    kinds = (ObjectTypeDefinitionNode, InterfaceTypeDefinitionNode, InputObjectTypeDefinitionNode)
    if not isinstance(node, kinds) or not node.fields:
        return node
    seen: set[str] = set()
    fields: list[Any] = []
    for field in node.fields:
        if field.name.value not in seen:
            seen.add(field.name.value)
            fields.append(field)
    return _with(node, fields=tuple(fields)) if len(fields) < len(node.fields) else node


def _package_version(schema_file: Path) -> str:
    manifest = schema_file.parent / "package.json"
    data: dict[str, Any] = json.loads(manifest.read_text()) if manifest.exists() else {}
    return f"{data.get('name', 'unknown package')} {data.get('version', '(unknown version)')}"


def _types_with_newer(document: DocumentNode) -> dict[str, TypeDefinitionNode]:
    """The type definitions of ``document`` with :data:`NEWER` merged in: its types added, its
    ``extend type`` fields appended to the published types."""
    newer = parse(NEWER.read_text(), no_location=True)
    definitions = {
        d.name.value: _once(d) for d in document.definitions if isinstance(d, TypeDefinitionNode)
    }
    for node in newer.definitions:
        if isinstance(node, ObjectTypeExtensionNode):
            base = definitions[node.name.value]
            assert isinstance(base, ObjectTypeDefinitionNode)
            known = {f.name.value for f in base.fields or ()}
            added = tuple(f for f in node.fields or () if f.name.value not in known)
            definitions[node.name.value] = _with(base, fields=(*(base.fields or ()), *added))
        elif isinstance(node, TypeDefinitionNode):
            definitions.setdefault(node.name.value, node)
    return definitions


def generate(schema_file: Path) -> str:
    """The schema's text; :class:`Unservable` when the registry disagrees with it."""
    types = _types_with_newer(parse(schema_file.read_text(), no_location=True))
    definitions = [_without_descriptions(types[name]) for name in sorted(types)]
    document = DocumentNode(definitions=tuple(definitions))
    schema = build_ast_schema(document)
    problems = [e.message for e in validate_schema(schema) if GITHUBS_OWN_PROBLEM not in e.message]
    problems += disagreements(schema)
    if problems:
        raise Unservable("\n".join(problems))
    header = (
        f"# Generated by scripts/gen_graphql_schema.py from {schema_file.name} of "
        f"{_package_version(schema_file)}: GitHub's published schema, with the newer parts in "
        f"scripts/{NEWER.name}. Do not edit; regenerate.\n\n"
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
