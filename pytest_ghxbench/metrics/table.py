"""Rows as numpy columns grouped by mode and scenario (:class:`RowTable`), built once and shared
by the gate, the summary, the comparison and the power planner, so a run of 100,000 rows is
aggregated in well under a second.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from pytest_ghxbench.metrics.row import RUNNER_ERROR, Row, RowRecord, is_timeout_stall_message
from pytest_ghxbench.metrics.stats import FloatArray, rate_percent

__all__ = ["BoolArray", "GroupColumns", "RowTable", "reliability_rates"]

BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class GroupColumns:
    """The measurements of one group of rows (a mode, or one scenario in a mode) as arrays."""

    success: BoolArray
    output_valid: BoolArray
    runner_error: BoolArray
    timeout_stall: BoolArray
    retried: BoolArray
    latency_ms: FloatArray
    tokens_total: FloatArray
    tokens_active: FloatArray
    tool_calls: FloatArray
    cost_usd: FloatArray
    model_signatures: tuple[str, ...]
    scenario_count: int
    sandbox_gaps: FloatArray
    """Each row's count of sandbox gaps (the requests that met one, per gap)."""
    sandbox_gap_kinds: dict[str, int]
    """The group's sandbox gaps per kind (only kinds it has)."""

    @property
    def runs(self) -> int:
        return len(self.success)

    @cached_property
    def stable(self) -> BoolArray:
        """Rows that count toward efficiency: success, valid output, no runner error."""
        return np.asarray(self.success & self.output_valid & ~self.runner_error)

    def stable_values(self, attribute: str) -> FloatArray:
        column: FloatArray = getattr(self, attribute)
        return column[self.stable]


class RowTable:
    """Rows as numpy columns, grouped by mode and by (mode, scenario) on demand."""

    def __init__(self, rows: Iterable[Row]) -> None:
        self._load([RowRecord.of_row(row) for row in rows])

    @classmethod
    def from_records(cls, records: Sequence[RowRecord]) -> RowTable:
        """The table of rows already reduced to records (e.g. straight from JSON text)."""
        table = cls.__new__(cls)
        table._load(records)
        return table

    def _load(self, records: Sequence[RowRecord]) -> None:
        count = len(records)
        # One transposition, then one C-level pass per column.
        (
            modes_column,
            scenarios_column,
            providers,
            model_ids,
            success,
            output_valid,
            external_retries,
            error_types,
            error_messages,
            tokens_total,
            tokens_cache_read,
            latency_ms,
            tool_calls,
            cost_usd,
            sandbox_gaps,
        ) = zip(*records, strict=True) if count else ((),) * len(RowRecord._fields)
        modes: dict[str, int] = {}
        scenarios: dict[str, int] = {}
        signatures: dict[tuple[str, str], int] = {}

        def codes(values: Iterable[Any], index: dict[Any, int]) -> npt.NDArray[np.int64]:
            return np.fromiter(
                (index.setdefault(value, len(index)) for value in values), np.int64, count
            )

        def column(values: Iterable[Any], dtype: Any) -> Any:
            return np.fromiter(values, dtype=dtype, count=count)

        self._mode_codes = codes(modes_column, modes)
        self._scenario_codes = codes(scenarios_column, scenarios)
        self._signature_codes = codes(zip(providers, model_ids, strict=True), signatures)
        self._success = column(success, bool)
        self._output_valid = column(output_valid, bool)
        self._retried = column((retries > 0 for retries in external_retries), bool)
        self._runner_error = np.zeros(count, dtype=bool)
        self._timeout_stall = np.zeros(count, dtype=bool)
        for index, error_type in enumerate(error_types):
            if error_type == RUNNER_ERROR:
                self._runner_error[index] = True
                self._timeout_stall[index] = is_timeout_stall_message(error_messages[index])
        self._tokens_total = column(tokens_total, float)
        self._tokens_active = self._tokens_total - column(tokens_cache_read, float)
        self._latency_ms = column(latency_ms, float)
        self._tool_calls = column(tool_calls, float)
        self._cost_usd = column(cost_usd, float)
        self._gap_entries: Sequence[tuple[tuple[str, str, int], ...]] = sandbox_gaps
        self._sandbox_gaps = column((sum(g[2] for g in gaps) for gaps in sandbox_gaps), float)
        self._modes = modes
        self._scenario_names = list(scenarios)
        self._signature_names = [f"{provider}/{model}" for provider, model in signatures]
        self._mode_groups: dict[str, GroupColumns] = {}
        self._scenario_groups: dict[str, dict[str, GroupColumns]] = {}

    @property
    def model_signatures(self) -> list[str]:
        """The distinct ``provider/model`` signatures of the rows, in order of first appearance."""
        return list(self._signature_names)

    @property
    def modes(self) -> list[str]:
        """Modes in order of first appearance."""
        return list(self._modes)

    def __len__(self) -> int:
        return len(self._mode_codes)

    def all_rows(self) -> GroupColumns:
        """Every row of the table, whatever its mode."""
        return self._columns(np.arange(len(self), dtype=np.int64))

    def mode(self, mode: str) -> GroupColumns:
        """All rows of ``mode`` (empty columns when the mode has none)."""
        if mode not in self._mode_groups:
            code = self._modes.get(mode, -1)
            self._mode_groups[mode] = self._columns(np.flatnonzero(self._mode_codes == code))
        return self._mode_groups[mode]

    def scenarios(self, mode: str) -> dict[str, GroupColumns]:
        """The rows of ``mode`` per scenario id, sorted by id."""
        if mode not in self._scenario_groups:
            indices = np.flatnonzero(self._mode_codes == self._modes.get(mode, -1))
            codes = self._scenario_codes[indices]
            order = np.argsort(codes, kind="stable")
            sorted_codes = codes[order]
            starts = np.flatnonzero(np.diff(sorted_codes, prepend=-1))
            ends = [*starts[1:].tolist(), len(sorted_codes)] if len(starts) else []
            groups = {
                self._scenario_names[int(sorted_codes[start])]: self._columns(
                    indices[order[start:end]]
                )
                for start, end in zip(starts.tolist(), ends, strict=True)
            }
            self._scenario_groups[mode] = dict(sorted(groups.items()))
        return self._scenario_groups[mode]

    def _columns(self, indices: npt.NDArray[np.int64]) -> GroupColumns:
        signature_codes = np.unique(self._signature_codes[indices])
        gaps = self._sandbox_gaps[indices]
        kinds: dict[str, int] = {}
        for index in indices[np.flatnonzero(gaps)].tolist():
            for kind, _, gap_count in self._gap_entries[index]:
                kinds[kind] = kinds.get(kind, 0) + gap_count
        return GroupColumns(
            success=self._success[indices],
            output_valid=self._output_valid[indices],
            runner_error=self._runner_error[indices],
            timeout_stall=self._timeout_stall[indices],
            retried=self._retried[indices],
            latency_ms=self._latency_ms[indices],
            tokens_total=self._tokens_total[indices],
            tokens_active=self._tokens_active[indices],
            tool_calls=self._tool_calls[indices],
            cost_usd=self._cost_usd[indices],
            model_signatures=tuple(sorted(self._signature_names[c] for c in signature_codes)),
            scenario_count=len(np.unique(self._scenario_codes[indices])),
            sandbox_gaps=gaps,
            sandbox_gap_kinds=dict(sorted(kinds.items())),
        )


def reliability_rates(group: GroupColumns) -> dict[str, float | None]:
    """The five reliability rates of a group, in percent over all its rows."""
    return {
        "success_rate": rate_percent(group.success),
        "output_validity_rate": rate_percent(group.output_valid),
        "runner_failure_rate": rate_percent(group.runner_error),
        "timeout_stall_rate": rate_percent(group.timeout_stall),
        "retry_rate": rate_percent(group.retried),
    }
