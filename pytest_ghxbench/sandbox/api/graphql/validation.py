"""Validating a query as GitHub's GraphQL API does, and answering its errors in GitHub's words.

graphql-core checks the document with the spec's rules (less those GitHub does not apply, plus
graphql-ruby's refusal of empty selections); :mod:`.wording` words each error as graphql-ruby
does. An error it cannot word is answered in graphql-core's words and named, with the rule
that found it, in the ``unsupported`` gaps the caller records
(``GraphQL error wording: NoFragmentCyclesRule``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from graphql import (
    ASTValidationRule,
    DocumentNode,
    FieldNode,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    OverlappingFieldsCanBeMergedRule,
    ValidationRule,
    get_named_type,
    specified_rules,
    validate,
)

# Imported for its side effect: it registers the wording of more errors.
from pytest_ghxbench.sandbox.api.graphql import wording_refs  # noqa: F401
from pytest_ghxbench.sandbox.api.graphql.places import Places
from pytest_ghxbench.sandbox.api.graphql.wording import (
    Entry,
    Wording,
    missing_arguments_message,
    no_selections,
)

__all__ = ["RULES", "core_entry", "github_validation", "merged"]


class _MergeableFields(OverlappingFieldsCanBeMergedRule):
    """The spec's rule, less its ban on same-named leaves of different types under different
    object types (``state`` of ``... on Issue`` and ``... on PullRequest``), which GitHub
    allows and gh relies on."""

    def report_error(self, error: GraphQLError) -> None:
        if "they return conflicting types" not in error.message:
            super().report_error(error)


class _SelectionsRequired(ValidationRule):
    """graphql-ruby's refusal of an empty selection (``{ viewer {} }``), which graphql-core
    parses and lets through."""

    def enter_field(self, node: FieldNode, *_args: Any) -> None:
        if node.selection_set is not None and not node.selection_set.selections:
            type_ = self.context.get_type()
            if type_ is not None:
                self._refuse(node, f"field '{node.name.value}'", get_named_type(type_).name)

    def enter_operation_definition(self, node: OperationDefinitionNode, *_args: Any) -> None:
        if not node.selection_set.selections:
            root = self.context.schema.get_root_type(node.operation)
            name = f"{node.operation.value} '{node.name.value}'" if node.name else None
            self._refuse(
                node, name or f"anonymous {node.operation.value}", root.name if root else ""
            )

    def _refuse(self, node: FieldNode | OperationDefinitionNode, name: str, type_name: str) -> None:
        worded = no_selections([], node, name, type_name)
        self.report_error(GraphQLError(worded["message"], node, extensions=worded["extensions"]))


_LEFT_OUT = frozenset(
    (
        # @defer and @stream are not GitHub's (KnownDirectivesRule refuses them)
        "DeferStreamDirectiveOnRootField",
        "DeferStreamDirectiveOnValidOperationsRule",
        "DeferStreamDirectiveLabel",
        "StreamDirectiveOnListField",
    )
)
_REPLACED: dict[type[ASTValidationRule], type[ASTValidationRule]] = {
    OverlappingFieldsCanBeMergedRule: _MergeableFields,
}
RULES: tuple[type[ASTValidationRule], ...] = (
    *(_REPLACED.get(r, r) for r in specified_rules if r.__name__ not in _LEFT_OUT),
    _SelectionsRequired,
)
_EMPTY = re.compile(r"\{(?:[\s,]|#[^\n]*)*\}")
"""Braces with nothing between: only a query that has some can select nothing."""


def core_entry(error: GraphQLError) -> Entry:
    """An error in graphql-core's own words."""
    found: Entry = {}
    if error.locations:
        found["locations"] = [{"line": loc.line, "column": loc.column} for loc in error.locations]
    found["message"] = error.message
    return found


def github_validation(
    schema: GraphQLSchema, document: DocumentNode
) -> tuple[list[Entry], list[str]]:
    """``document``'s validation errors as GitHub words them, and the rules of those it
    answers in graphql-core's words."""
    empty = document.loc is not None and _EMPTY.search(document.loc.source.body)
    errors = validate(schema, document, RULES if empty else RULES[:-1])
    if not errors:
        return [], []
    wording = Wording(schema, document)
    worded = [(error, wording.translate(error)) for error in errors]
    stops = _stops(worded)
    entries: list[Entry] = []
    unworded: list[str] = []
    for error, item in worded:
        if _beyond(wording.places, error, item, stops):
            continue
        if item is None:
            entries.append(core_entry(error))
            unworded.append(_rule_of(schema, document, error))
        else:
            entries.append(item)
    entries.sort(key=lambda e: (e.get("extensions") or {}).get("code") in _AT_THE_END)
    return merged(entries), unworded


_STOPPING = frozenset(("undefinedField", "argumentNotAccepted", "selectionMismatch"))
"""Errors after which graphql-ruby checks nothing inside the node (the field, the argument,
the selection) they are about."""
_AT_THE_END = frozenset(
    ("variableNotUsed", "variableNotDefined", "useAndDefineFragment", "infiniteLoop",
     "fragmentNotUnique", "uniquelyNamedOperations")
)  # fmt: skip
"""Errors graphql-ruby finds once the whole document is visited, so lists after the others."""


def _stops(worded: list[tuple[GraphQLError, Entry | None]]) -> dict[int, bool]:
    """The nodes of stopping errors: by id, whether errors on the node itself stop too (a
    field whose selections are wrong is checked no further, not even its arguments)."""
    found: dict[int, bool] = {}
    for error, item in worded:
        code = (item or {}).get("extensions", {}).get("code")
        if code in _STOPPING and error.nodes:
            found[id(error.nodes[0])] = code == "selectionMismatch"
    return found


def _beyond(
    places: Places, error: GraphQLError, item: Entry | None, stops: dict[int, bool]
) -> bool:
    """Whether graphql-ruby would not have found ``error``: it lies inside (or, for some,
    on) a node an earlier error stopped the checks at."""
    if not error.nodes or not stops:
        return False
    node = error.nodes[0]
    code = (item or {}).get("extensions", {}).get("code")
    if stops.get(id(node)) and code not in _STOPPING:
        return True
    parent = places.parent(node)
    while parent is not None:
        if id(parent) in stops:
            return True
        parent = places.parent(parent)
    return False


def merged(entries: Sequence[Entry]) -> list[Entry]:
    """One error where graphql-ruby reports one and graphql-core several: the same message
    at the same path (its locations joined), a field's missing arguments (listed together)."""
    found: dict[tuple[Any, ...], Entry] = {}
    for item in entries:
        extensions = item.get("extensions") or {}
        if extensions.get("code") == "missingRequiredArguments":
            key: tuple[Any, ...] = ("args", str(item["path"]), str(item["locations"]))
            if key in found:
                first = found[key]
                joined = f"{first['extensions']['arguments']}, {extensions['arguments']}"
                found[key] = _with_arguments(first, joined)
                continue
        else:
            key = (item["message"], str(item.get("path")))
            if key in found:
                locations = found[key].setdefault("locations", [])
                locations += [loc for loc in item.get("locations", []) if loc not in locations]
                continue
        found[key] = dict(item)
    return list(found.values())


def _with_arguments(item: Entry, arguments: str) -> Entry:
    extensions = item["extensions"] | {"arguments": arguments}
    message = missing_arguments_message(extensions["className"], extensions["name"], arguments)
    return item | {"extensions": extensions, "message": message}


def _rule_of(schema: GraphQLSchema, document: DocumentNode, error: GraphQLError) -> str:
    """The name of graphql-core's rule that reported ``error`` (checked one rule at a time:
    this runs only for an error no wording covers)."""
    for rule in RULES:
        if any(e.message == error.message for e in validate(schema, document, [rule])):
            core = next(r for r in rule.__mro__ if r.__module__.startswith("graphql."))
            return core.__name__ if core is not ValidationRule else rule.__name__
    return "unknown rule"
