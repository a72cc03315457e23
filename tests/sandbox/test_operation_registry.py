"""The world's operations: each named as GitHub names it (a mutation of its GraphQL schema or an
operationId of its REST description), one handler per name, and none needs ghx."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_ghxbench.sandbox.api.rest.description import github_operations, operation
from pytest_ghxbench.sandbox.operations import registry

SCHEMA = Path(registry.__file__).parents[1] / "api/graphql/schema.graphql"


def _mutations() -> set[str]:
    text = SCHEMA.read_text(encoding="utf-8")
    body = text[text.index("type Mutation {") :]
    body = body[: body.index("\n}")]
    return set(re.findall(r"^  (\w+)\(", body, flags=re.M))


def _rest_ids() -> set[str]:
    return {found.id for m, t in github_operations() if (found := operation(m, t)) is not None}


def test_every_operation_is_named_as_github_names_it() -> None:
    mutations, rest = _mutations(), _rest_ids()
    names = registry.operations()
    assert len(names) > 30
    for name in names:
        base = name.split("(", 1)[0]
        assert all(part in mutations or part in rest for part in base.split("|")), name


def test_a_name_that_is_not_githubs_would_be_caught() -> None:
    mutations, rest = _mutations(), _rest_ids()
    assert "issue.close" not in mutations | rest
    assert "closeIssue" in mutations and "actions/cancel-workflow-run" in rest


def test_a_second_handler_for_one_operation_is_refused() -> None:
    with pytest.raises(ValueError, match=r"'closeIssue' is registered twice"):
        registry.build_table(["tests.sandbox.operations_fixture.clash"])


def test_reads_are_not_writes() -> None:
    assert registry.mutates("closeIssue")
    assert not registry.mutates("actions/download-job-logs-for-workflow-run")
    assert not registry.mutates("no such operation")
