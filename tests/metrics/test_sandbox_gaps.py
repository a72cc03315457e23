"""The rows' ``sandbox_gaps`` (SPEC section 15) in the summary: ``modes.<mode>.sandbox_gap_items``,
``sandbox_gaps`` and ``sandbox_gap_kinds``, the same whether rows are read as models or through
the fast plain path; rows written before the field existed read as having none."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from pytest_ghxbench.metrics.profiles import BUILTIN_PROFILES
from pytest_ghxbench.metrics.summary import build_summary
from pytest_ghxbench.metrics.table import RowTable
from pytest_ghxbench.records.models import RunSummary
from pytest_ghxbench.records.row import Row, RowRecord, SandboxGap, plain_row_validator

from .factory import make_row

ROUTE = {"kind": "unserved_route", "detail": "GET /repos/{owner}/{repo}/deployments", "count": 2}
FIELD = {"kind": "unmodelled_field", "detail": "PullRequest.potentialMergeCommit", "count": 1}


def with_gaps(row: Row, *gaps: dict[str, Any]) -> Row:
    return row.model_copy(update={"sandbox_gaps": [SandboxGap(**gap) for gap in gaps]})


def rows() -> list[Row]:
    return [
        with_gaps(make_row("mcp", "a-001"), ROUTE, FIELD),
        with_gaps(make_row("mcp", "b-001"), FIELD),
        make_row("mcp", "b-001", iteration=1),
        make_row("ghx", "a-001"),
    ]


def summarize(table: RowTable | list[Row]) -> RunSummary:
    return build_summary(
        table, profile=BUILTIN_PROFILES["verify_pr"], baseline="mcp", candidate="ghx"
    )


def test_a_row_written_before_gaps_were_recorded_has_none() -> None:
    old = make_row().model_dump()
    del old["sandbox_gaps"]
    assert Row.model_validate(old).sandbox_gaps == []
    plain = plain_row_validator().validate_json(json.dumps(old))
    assert plain["sandbox_gaps"] == []


def test_the_plain_path_reads_gaps_as_the_row_does() -> None:
    row = with_gaps(make_row(), ROUTE, FIELD)
    text = row.model_dump_json()
    plain = plain_row_validator().validate_json(text)
    assert plain == Row.model_validate_json(text).model_dump()
    assert RowRecord.of_plain(plain) == RowRecord.of_row(row)
    assert RowRecord.of_row(row).sandbox_gaps == (
        ("unserved_route", "GET /repos/{owner}/{repo}/deployments", 2),
        ("unmodelled_field", "PullRequest.potentialMergeCommit", 1),
    )


@pytest.mark.parametrize("count", [0, -1, 1.5, "2"])
def test_a_gap_counts_at_least_one_request(count: Any) -> None:
    data = {**make_row().model_dump(), "sandbox_gaps": [{**ROUTE, "count": count}]}
    with pytest.raises(ValidationError):
        Row.model_validate_json(json.dumps(data), strict=True)


def test_the_summary_counts_items_with_gaps_and_their_gaps_per_mode() -> None:
    modes = summarize(rows()).modes
    assert (
        modes["mcp"]["sandbox_gap_items"],
        modes["mcp"]["sandbox_gaps"],
        modes["mcp"]["sandbox_gap_kinds"],
    ) == (2, 4, {"unmodelled_field": 2, "unserved_route": 2})
    assert (
        modes["ghx"]["sandbox_gap_items"],
        modes["ghx"]["sandbox_gaps"],
        modes["ghx"]["sandbox_gap_kinds"],
    ) == (0, 0, {})


def test_scenarios_and_the_delta_have_them_too() -> None:
    summary = summarize(rows())
    assert summary.scenarios["b-001"]["mcp"]["sandbox_gap_items"] == 1
    assert summary.scenarios["b-001"]["mcp"]["sandbox_gaps"] == 1
    assert summary.delta["sandbox_gaps"] == -4  # candidate minus baseline
    assert "sandbox_gap_kinds" not in summary.delta


def test_records_read_from_json_give_the_same_summary() -> None:
    texts = [row.model_dump_json() for row in rows()]
    records = [RowRecord.of_plain(plain_row_validator().validate_json(t)) for t in texts]
    from_records = summarize(RowTable.from_records(records))
    from_rows = summarize(rows())
    for mode in ("mcp", "ghx"):
        for key in ("sandbox_gap_items", "sandbox_gaps", "sandbox_gap_kinds"):
            assert from_records.modes[mode][key] == from_rows.modes[mode][key]
