"""The benchmark in pytest's own reports: junitxml (``--junitxml``), pytest-html, report logs.

* Each item's metrics become properties of its testcase (``record_property``'s mechanism: the
  item's ``user_properties``, which pytest copies into the item's reports, and which travel
  with the reports from an xdist worker). junitxml writes the properties of the teardown
  report, so they are added to the item as soon as its row exists, in the call phase.
* The verdict becomes one testcase of its own, ``ghxbench::gate``: failed, with the verdict
  line as its message, when the session's exit status is not 0 (the gate failed, the run is
  incomplete, ``--ghx-strict``...); passed otherwise. Its properties carry the verdict line,
  the exit status and the run. It is logged at session end, before junitxml writes its file,
  to the report consumers only (junitxml, pytest-html, pytest-reportlog...): not to the
  terminal's counts, not to the ``--lf``/``--sw`` caches (nothing to collect or rerun there),
  not to the session's failure count, and not to the benchmark's own recorder.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from _pytest._code.code import ReprFileLocation, TerminalRepr
from _pytest._io import TerminalWriter

from pytest_ghxbench.records.models import RunSummary
from pytest_ghxbench.records.row import Row

GATE_NODEID = "ghxbench::gate"
_GATE_LOCATION = ("ghxbench", None, "gate")

ROW_PROPERTIES = (
    "success",
    "output_valid",
    "latency_ms_wall",
    "startup_ms",
    "tokens_active",
    "tokens_total",
    "cost",
    "tool_calls",
    "api_calls",
    "error_type",
)

# Plugins that must not see the verdict's report: the terminal's counts and the short summary
# (the verdict line is printed on its own), the caches of --lf/--ff and --sw, the session's
# failure count (maxfail), the terminal progress escape codes, and the benchmark's own hooks.
_NOT_FOR_VERDICT = (
    "terminalreporter",
    "terminalprogress-plugin",
    "lfplugin",
    "stepwiseplugin",
    "session",
    "ghxbench-benchmark",
    "ghxbench-controller",
    "ghxbench-progress",
)


def _value(value: Any) -> Any:
    return str(value).lower() if isinstance(value, bool) else value


def row_properties(row: Row) -> list[tuple[str, object]]:
    """The row's metrics as ``(name, value)`` pairs, in :data:`ROW_PROPERTIES` order; a value
    the row does not have (``startup_ms``, ``error_type``) is left out."""
    values: dict[str, Any] = {
        "success": row.success,
        "output_valid": row.output_valid,
        "latency_ms_wall": row.latency_ms_wall,
        "startup_ms": row.startup_ms,
        "tokens_active": row.tokens.active,
        "tokens_total": row.tokens.total,
        "cost": row.cost,
        "tool_calls": row.tool_calls,
        "api_calls": row.api_calls,
        "error_type": row.error.type if row.error is not None else None,
    }
    return [(name, _value(values[name])) for name in ROW_PROPERTIES if values[name] is not None]


def attach_row_properties(properties: list[tuple[str, object]], row: Row) -> None:
    """Put the row's properties in ``properties`` (an item's or a report's ``user_properties``)
    in place of those of an earlier attempt of the same item."""
    properties[:] = [p for p in properties if p[0] not in ROW_PROPERTIES]
    properties.extend(row_properties(row))


class _VerdictRepr(TerminalRepr):
    """The verdict's failure: its first line is the message (``reprcrash``), the rest the
    detail (the gate's checks)."""

    def __init__(self, message: str, detail: list[str]) -> None:
        self.reprcrash = ReprFileLocation(_GATE_LOCATION[0], 0, message)
        self.lines = [message, *detail]

    def toterminal(self, tw: TerminalWriter) -> None:
        for line in self.lines:
            tw.line(line)


def verdict_reports(summary: RunSummary, exit_status: int) -> list[pytest.TestReport]:
    """The setup, call and teardown reports of the verdict's testcase."""
    from pytest_ghxbench.render.terminal import checks_table

    run = summary.run
    line = str(run.get("verdict") or f"ghxbench verdict: exit {exit_status}")
    outcome = "failed" if exit_status != 0 else "passed"
    properties: list[tuple[str, object]] = [
        ("verdict", line),
        ("exit_status", exit_status),
        ("run_id", run.get("run_id")),
        ("run_dir", run.get("run_dir")),
    ]
    budget = run.get("budget")
    if isinstance(budget, Mapping):
        properties.append(("budget_skipped_items", budget.get("skipped_items", 0)))

    def report(when: str, outcome: str, longrepr: Any = None) -> pytest.TestReport:
        return pytest.TestReport(
            GATE_NODEID,
            _GATE_LOCATION,
            {"ghxbench": 1},
            outcome,  # type: ignore[arg-type]
            longrepr,
            when,  # type: ignore[arg-type]
            user_properties=properties if when == "teardown" else (),
        )

    failure = _VerdictRepr(line, checks_table(summary)) if outcome == "failed" else None
    return [
        report("setup", "passed"),
        report("call", outcome, failure),
        report("teardown", "passed"),
    ]


def log_verdict(config: pytest.Config, summary: RunSummary, exit_status: int) -> None:
    """Log the verdict's testcase to the report consumers (see the module's docstring). Call it
    before junitxml's ``pytest_sessionfinish`` writes the file."""
    plugins = config.pluginmanager
    excluded = [p for p in (plugins.get_plugin(name) for name in _NOT_FOR_VERDICT) if p is not None]
    logreport = plugins.subset_hook_caller("pytest_runtest_logreport", excluded)
    for report in verdict_reports(summary, exit_status):
        logreport(report=report)
