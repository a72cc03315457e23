"""Controller-side row handling: one row per item, published through the hook and the JSONL file."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ghxbench.api import Usage
from pytest_ghxbench.attempt.rows import (
    ItemIdentity,
    finish_row,
    parse_item_name,
    runner_error_data,
)
from pytest_ghxbench.attempt.transcripts import describe_error
from pytest_ghxbench.hooks.budget import BUDGET_ATTR
from pytest_ghxbench.hooks.harness import HARNESS_ATTR, HarnessErrors
from pytest_ghxbench.hooks.junit import attach_row_properties
from pytest_ghxbench.hooks.session import GhxSession
from pytest_ghxbench.records.jsonl import RowWriter
from pytest_ghxbench.records.models import ItemRecord
from pytest_ghxbench.records.row import Row
from pytest_ghxbench.runs.completeness import Completeness, StopReasons

ROW_ATTR = "ghxbench_row"


class RowRecorder:
    """Receives final rows as reports arrive (in the controller or the single process)."""

    def __init__(self, config: pytest.Config, session: GhxSession) -> None:
        self.config = config
        self.session = session
        self.rows: dict[str, Row] = {}
        self.failed_items: dict[str, list[str]] = {}
        self.other_failures = 0
        self.hook_errors: list[str] = []
        self.spend = Usage()
        """What the recorded rows cost (``cost``, active tokens)."""
        self.budget_skipped: set[str] = set()
        """Items that did not start because the run had spent its budget."""
        self.expected_items: int | None = None
        """How many benchmark items this session runs, once collection has said."""
        self.expected_ids: list[str] | None = None
        """The node ids the run must have rows for (its share of the plan)."""
        self.skipped: set[str] = set()
        """Items skipped on purpose (a skip mark, ``pytest.skip``): no row, not missing."""
        self.reruns: dict[str, int] = {}
        """Reruns each item had, counted from pytest-rerunfailures' ``rerun`` reports."""
        self.stop = StopReasons()
        self.harness = HarnessErrors()
        """Rows and transcript records the harness failed to write (module run.harness)."""
        self._crash_reruns: dict[str, pytest.TestReport] = {}
        """Items whose worker crashed and that were put back for a rerun not yet reported."""
        self._writer: RowWriter | None = None
        self.earlier: dict[str, Row] = dict(session.resume.earlier) if session.resume else {}
        """A resumed run's rows from before this session, by item (this session's replace
        them)."""

    def all_rows(self) -> list[Row]:
        """The run's rows: those of earlier sessions (a resumed run) not run again, then this
        session's."""
        earlier = [row for item, row in self.earlier.items() if item not in self.rows]
        return [*earlier, *self.rows.values()]

    def failed_count(self) -> int:
        """Items of the run whose row is a failure (earlier sessions' included)."""
        earlier = sum(
            1
            for item, row in self.earlier.items()
            if item not in self.rows and not (row.success and row.output_valid)
        )
        return earlier + len(self.failed_items)

    @property
    def path(self) -> Path:
        return self.session.rows_path

    def record(self, nodeid: str, row: Row, row_json: str, item: pytest.Item | None) -> None:
        replaced = self.rows.get(nodeid)
        self.rows[nodeid] = row
        if replaced is None:
            self.spend += row.usage
        else:  # the item's last report wins; so does its spend
            self.spend = sum((r.usage for r in self.rows.values()), Usage())
        try:
            if self._writer is None:
                self._writer = RowWriter(self.path)
            self._writer.write_json_line(row_json)
        except OSError as exc:
            # The row still counts (it is in memory); the file lacks it, and the session says so.
            self.harness.add("row", str(self.path), describe_error(exc))
        try:
            self.config.hook.pytest_ghxbench_row(row=row, item=item)
        except Exception as exc:
            # A broken row hook must not lose the run: the row is already on disk.
            self.hook_errors.append(f"pytest_ghxbench_row raised {type(exc).__name__}: {exc}")

    def on_report(self, report: pytest.TestReport, item: pytest.Item | None) -> None:
        self.harness.add_all(getattr(report, HARNESS_ATTR, None) or ())
        payload: str | None = getattr(report, ROW_ATTR, None)
        if str(report.outcome) == "rerun":  # set by pytest-rerunfailures
            # one per attempt that is retried, a crashed worker's included (when="???")
            self.reruns[report.nodeid] = self.reruns.get(report.nodeid, 0) + 1
            if str(report.when) == "???":
                self._crash_reruns[report.nodeid] = report
            return
        self._crash_reruns.pop(report.nodeid, None)
        if getattr(report, BUDGET_ATTR, None):
            self.budget_skipped.add(report.nodeid)
            return
        if report.skipped and payload is None:
            if parse_item_name(report.nodeid) is not None:
                self.skipped.add(report.nodeid)
            return
        if payload is not None:
            outcome = getattr(item, "outcome", None)
            if outcome is not None and outcome.row_json is payload:
                row = outcome.row  # same process: the item's own row, no need to parse it again
            else:
                row = ItemRecord.model_validate_json(payload)
            self.record(report.nodeid, row, payload, item)
            if not (row.success and row.output_valid):
                self.failed_items[report.nodeid] = _reasons(row)
            return
        if report.failed and str(report.when) == "???":  # xdist: the worker died
            self._crashed_worker(report)
        elif report.failed and parse_item_name(report.nodeid) is None:
            self.other_failures += 1

    def settle_crashes(self) -> None:
        """Rows for items whose worker crashed and whose rerun never ran: xdist stopped
        replacing crashed workers (``--max-worker-restart``) or the run ended first."""
        for nodeid, report in list(self._crash_reruns.items()):
            if nodeid not in self.rows:
                self.reruns[nodeid] -= 1  # the rerun it was given never happened
                self._crashed_worker(report, "; its rerun never started")
        self._crash_reruns.clear()

    def _crashed_worker(self, report: pytest.TestReport, note: str = "") -> None:
        """xdist reports an item whose worker died with when='???' and no row: make one."""
        parsed = parse_item_name(report.nodeid)
        if parsed is None:
            self.other_failures += 1
            return
        if report.nodeid in self.rows:  # a second report of the same crash (--dist loadscope)
            return
        scenario_id, mode, rep = parsed
        session = self.session
        loaded = session.catalog.scenarios.get(scenario_id)
        identity = ItemIdentity(
            item_id=report.nodeid,
            run_id=session.run_id,
            scenario_id=scenario_id,
            scenario_set=session.scenario_set_of(scenario_id),
            scenario_type=loaded.scenario.kind if loaded is not None else "unknown",
            mode=mode,
            iteration=rep,
            adapter=session.adapter.name,
            backend=session.backend.name if session.backend is not None else None,
            git=session.git,
            default_model=session.settings.model,
        )
        crash = str(report.longrepr or "").strip().splitlines()
        detail = crash[-1] if crash else "no detail"
        message = f"worker crashed while running the item (the agent process died): {detail}{note}"
        data = runner_error_data(
            identity,
            message,
            wall_ms=report.duration * 1000.0,
            external_retry_count=self.reruns.get(report.nodeid, 0),
        )
        row, row_json = finish_row(data, session.redactor)
        self.record(report.nodeid, row, row_json, None)
        self.failed_items[report.nodeid] = [message]
        attach_row_properties(report.user_properties, row)

    def completeness(self) -> Completeness:
        return Completeness.of(
            expected=self.expected_ids,
            expected_count=self.expected_items,
            rows=[*self.rows, *self.earlier],
            skipped=self.skipped,
            budget_skipped=self.budget_skipped,
            why=self.stop,
        )

    def close(self) -> None:
        if self._writer is not None:
            writer, self._writer = self._writer, None
            try:
                writer.close()
            except OSError as exc:  # the rows were written; making them durable failed
                self.harness.add("rows file sync", str(self.path), describe_error(exc))


def _reasons(row: ItemRecord) -> list[str]:
    """Why an item failed, first reason first: its judge's failures (the first failed
    assertion or checkpoint), else its error."""
    found = [str(f) for f in row.failures]
    if not found and row.error is not None:
        found = [f"{row.error.type}: {row.error.message}"]
    return found
