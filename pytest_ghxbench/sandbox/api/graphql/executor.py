"""Running one GraphQL request with graphql-core, answering as GitHub does: parse, validation
and variable errors in graphql-ruby's words (:mod:`.ruby_parse`, :mod:`.validation`,
:mod:`.variables`), resolver errors with their ``type`` (``NOT_FOUND`` ...), ``Int`` results as
large as GitHub's ids, and every supplied argument a resolver did not read recorded as a gap
(:mod:`.accounting`)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from graphql import (
    DocumentNode,
    ExecutionResult,
    GraphQLError,
    GraphQLInt,
    GraphQLLeafType,
    OperationDefinitionNode,
    execute,
    parse,
)
from graphql.execution import Executor

from pytest_ghxbench.sandbox.api.graphql.accounting import report_unread
from pytest_ghxbench.sandbox.api.graphql.binding import github_schema
from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import GraphQLError as ResolverError
from pytest_ghxbench.sandbox.api.graphql.ruby_parse import ruby_parse_error
from pytest_ghxbench.sandbox.api.graphql.unmodelled import resolve_unmodelled
from pytest_ghxbench.sandbox.api.graphql.validation import core_entry, github_validation
from pytest_ghxbench.sandbox.api.graphql.variables import (
    chosen,
    operations_of,
    variable_errors,
)
from pytest_ghxbench.sandbox.gaps import SANDBOX_FAULT, record, record_unsupported

__all__ = ["run_query"]


class _GitHubExecutor(Executor[Any]):
    @staticmethod
    def complete_leaf_value(return_type: GraphQLLeafType, result: Any) -> Any:
        # GitHub's ids (workflow runs, jobs) outgrow the 32 bits the GraphQL spec gives Int.
        if return_type is GraphQLInt and isinstance(result, int) and not isinstance(result, bool):
            return result
        return Executor.complete_leaf_value(return_type, result)


@dataclass(frozen=True)
class _Prepared:
    document: DocumentNode | None
    errors: tuple[dict[str, Any], ...]
    unworded: tuple[str, ...]
    """Rules whose errors ``errors`` gives in graphql-core's words (gaps of each request)."""
    operations: dict[str | None, OperationDefinitionNode]
    """By name, the operation a request naming it runs (the last of that name)."""
    unwatched: set[int] = field(default_factory=set)
    """:attr:`.Context.unwatched` of the requests of this query."""


@functools.lru_cache(maxsize=512)
def _prepared(query: str) -> _Prepared:
    """``query`` parsed and validated (clients repeat the same few queries)."""
    try:
        document = parse(query)
    except GraphQLError as error:
        worded = ruby_parse_error(query)
        if worded is None:
            return _Prepared(None, (core_entry(error),), ("syntax error",), {})
        return _Prepared(None, (worded,), (), {})
    errors, unworded = github_validation(github_schema(), document)
    return _Prepared(document, tuple(errors), tuple(unworded), operations_of(document))


def run_query(
    ctx: Context,
    query: str,
    variables: Mapping[str, Any] | None = None,
    operation_name: str | None = None,
) -> dict[str, Any]:
    """GitHub's response body (``data`` and/or ``errors``) for one request on ``ctx.world``."""
    prepared = _prepared(query)
    for rule in prepared.unworded:
        # gap: an error graphql-core found that the sandbox cannot word as GitHub does
        record_unsupported(f"GraphQL error wording: {rule}")
    document = prepared.document
    if document is None:
        return {"errors": list(prepared.errors)}
    operation = chosen(prepared.operations, operation_name) if prepared.operations else None
    if isinstance(operation, dict):
        return {"errors": [operation]}
    if prepared.errors or operation is None:
        return {"errors": list(prepared.errors)}
    values = dict(variables or {})
    ctx.variables, ctx.operation, ctx.unwatched = values, operation, prepared.unwatched
    result = execute(
        github_schema(),
        document,
        root_value=ctx.world,
        context_value=ctx,
        variable_values=values,
        operation_name=operation_name,
        field_resolver=resolve_unmodelled,
        executor_class=_GitHubExecutor,
    )
    assert isinstance(result, ExecutionResult)  # every resolver is synchronous
    errors = list(result.errors or ())
    if result.data is None and errors and all(e.path is None for e in errors):
        # refused before running: graphql-core found the variables' values wrong
        refused = variable_errors(github_schema(), operation, values)
        if refused:
            return {"errors": refused}
    for error in errors:
        original = error.original_error
        if original is not None and not isinstance(original, (ResolverError, GraphQLError)):
            # a bug in a resolver, never an answer of GitHub's: the server answers 500 and logs it
            where = ".".join(str(p) for p in error.path or ())
            record(SANDBOX_FAULT, f"GraphQL {where}: {type(original).__name__}")
            raise original
        if original is None and error.path is None:
            # gap: a request error of graphql-core's the checks above did not foresee
            record_unsupported("GraphQL error wording: execution")
    report_unread(ctx.fields.values())
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
