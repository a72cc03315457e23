"""Running one GraphQL request with graphql-core, answering as GitHub does: validation errors
with GitHub's codes and messages for unknown fields, resolver errors with their ``type``
(``NOT_FOUND`` ...), and ``Int`` results as large as GitHub's ids."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from graphql import (
    ASTValidationRule,
    DocumentNode,
    ExecutionResult,
    FieldNode,
    FieldsOnCorrectTypeRule,
    FragmentDefinitionNode,
    GraphQLError,
    GraphQLInt,
    GraphQLLeafType,
    OperationDefinitionNode,
    OverlappingFieldsCanBeMergedRule,
    ValidationRule,
    execute,
    parse,
    specified_rules,
    validate,
)
from graphql.execution import Executor

from pytest_ghxbench.sandbox.api.graphql.binding import github_schema
from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import GraphQLError as ResolverError
from pytest_ghxbench.sandbox.api.graphql.unmodelled import resolve_unmodelled

__all__ = ["run_query"]


class _KnownFields(ValidationRule):
    """graphql-core's check that every field exists, reported as GitHub reports it."""

    def enter_field(
        self, node: FieldNode, _key: Any, _parent: Any, _path: Any, ancestors: list[Any]
    ) -> None:
        parent_type = self.context.get_parent_type()
        if parent_type is None or self.context.get_field_def() is not None:
            return
        name = node.name.value
        self.report_error(
            GraphQLError(
                f"Field '{name}' doesn't exist on type '{parent_type.name}'",
                node,
                path=[*_path_of(ancestors), name],
                extensions={
                    "code": "undefinedField",
                    "typeName": parent_type.name,
                    "fieldName": name,
                },
            )
        )


def _path_of(ancestors: list[Any]) -> list[str]:
    path: list[str] = []
    for node in ancestors:
        if isinstance(node, OperationDefinitionNode):
            path.append(node.operation.value)
        elif isinstance(node, FragmentDefinitionNode):
            path.append(f"fragment {node.name.value}")
        elif isinstance(node, FieldNode):
            path.append(node.alias.value if node.alias else node.name.value)
    return path


class _MergeableFields(OverlappingFieldsCanBeMergedRule):
    """The spec's rule, less its ban on same-named leaves of different types under different
    object types (``state`` of ``... on Issue`` and ``... on PullRequest``), which GitHub
    allows and gh relies on."""

    def report_error(self, error: GraphQLError) -> None:
        if "they return conflicting types" not in error.message:
            super().report_error(error)


_REPLACED: dict[type[ASTValidationRule], type[ASTValidationRule]] = {
    FieldsOnCorrectTypeRule: _KnownFields,
    OverlappingFieldsCanBeMergedRule: _MergeableFields,
}
_RULES = tuple(_REPLACED.get(rule, rule) for rule in specified_rules)


class _GitHubExecutor(Executor[Any]):
    @staticmethod
    def complete_leaf_value(return_type: GraphQLLeafType, result: Any) -> Any:
        # GitHub's ids (workflow runs, jobs) outgrow the 32 bits the GraphQL spec gives Int.
        if return_type is GraphQLInt and isinstance(result, int) and not isinstance(result, bool):
            return result
        return Executor.complete_leaf_value(return_type, result)


@functools.lru_cache(maxsize=512)
def _prepared(query: str) -> tuple[DocumentNode | None, tuple[GraphQLError, ...]]:
    """``query`` parsed and validated (clients repeat the same few queries)."""
    try:
        document = parse(query)
    except GraphQLError as error:
        return None, (error,)
    return document, tuple(validate(github_schema(), document, _RULES))


def run_query(
    ctx: Context,
    query: str,
    variables: Mapping[str, Any] | None = None,
    operation_name: str | None = None,
) -> dict[str, Any]:
    """GitHub's response body (``data`` and/or ``errors``) for one request on ``ctx.world``."""
    document, problems = _prepared(query)
    if document is None or problems:
        return {"errors": [_entry(p) for p in problems]}
    result = execute(
        github_schema(),
        document,
        root_value=ctx.world,
        context_value=ctx,
        variable_values=dict(variables or {}),
        operation_name=operation_name,
        field_resolver=resolve_unmodelled,
        executor_class=_GitHubExecutor,
    )
    assert isinstance(result, ExecutionResult)  # every resolver is synchronous
    errors = list(result.errors or ())
    for error in errors:
        original = error.original_error
        if original is not None and not isinstance(original, (ResolverError, GraphQLError)):
            raise original  # a bug in a resolver: the server answers 500 and logs it
    response: dict[str, Any] = {}
    if result.data is not None or not errors:
        response["data"] = result.data
    if errors:
        response["errors"] = [_entry(e) for e in errors]
    return response


def _entry(error: GraphQLError) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    original = error.original_error
    if isinstance(original, ResolverError) and original.type:
        entry["type"] = original.type
    if error.path is not None:
        entry["path"] = list(error.path)
    if error.extensions:
        entry["extensions"] = dict(error.extensions)
    if error.locations:
        entry["locations"] = [{"line": loc.line, "column": loc.column} for loc in error.locations]
    entry["message"] = original.message if isinstance(original, ResolverError) else error.message
    return entry
