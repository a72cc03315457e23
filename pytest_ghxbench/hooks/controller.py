"""The hooks of the process that owns the session (the xdist controller or the single process).

Rows arrive here as reports; at the end of the session the verdict is computed and shown. The
hooks every process runs (collection, the row on the report) are in
:mod:`pytest_ghxbench.hooks.session_plugin`.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_ghxbench.attempt.rows import parse_item_name
from pytest_ghxbench.hooks.budget import SPEND_DIR, format_usd, remove_ledgers
from pytest_ghxbench.hooks.collect import ScenarioItem
from pytest_ghxbench.hooks.junit import log_verdict
from pytest_ghxbench.hooks.keys import (
    ITEMS_KEY,
    PLAN_KEY,
    RECORDER_KEY,
    SESSION_END_KEY,
    SESSION_KEY,
)
from pytest_ghxbench.hooks.progress import Progress
from pytest_ghxbench.hooks.recorder import RowRecorder
from pytest_ghxbench.hooks.run_dir import record_plan
from pytest_ghxbench.hooks.session_end import SessionEnd, finish_session
from pytest_ghxbench.runs.plan import HANDOFF, Plan, take_over
from pytest_ghxbench.runs.resume import missing_from_selection


class Controller:
    """Hooks of the process that owns the session (the xdist controller or the single process)."""

    def __init__(self, config: pytest.Config, recorder: RowRecorder) -> None:
        self.config = config
        self.recorder = recorder
        self._plan_known = False

    @pytest.hookimpl(tryfirst=True)  # a row made here is in the report for junitxml & co.
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        item = self.config.stash.get(ITEMS_KEY, {}).get(report.nodeid)
        self.recorder.on_report(report, item)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # session.items holds this session's part of the plan (run.plan, session_plugin)
        ids = [i.nodeid for i in session.items if isinstance(i, ScenarioItem)]
        self._planned(self.config.stash.get(PLAN_KEY, None), ids)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """xdist controller: it collects nothing itself; every worker collects the same items
        and the first to finish left the plan in the run directory."""
        if self._plan_known:
            return
        ghx = self.config.stash[SESSION_KEY]
        plan = (
            Plan.of_spec_fields(ghx.resume.spec.model_dump())
            if ghx.resume is not None
            else take_over(ghx.run_dir.path)
        )
        self._planned(plan, [i for i in ids if parse_item_name(i) is not None])

    def _planned(self, plan: Plan | None, collected: list[str]) -> None:
        """The items the run must have rows for, and the plan in run.json."""
        self._plan_known = True
        ghx = self.config.stash[SESSION_KEY]
        resume = ghx.resume
        if plan is None:  # no plan handed over (a worker that could not write it)
            expected = collected
        elif resume is not None:
            expected = resume.share
            unselected = missing_from_selection(resume.todo, collected)
            self.recorder.stop.unselected = len(unselected)
        else:
            expected = list(plan.share)
            record_plan(ghx.run_dir, plan)
        self.recorder.expected_ids = expected
        # what this session runs (the progress line's total); a resumed run's rows of earlier
        # sessions count for completeness through expected_ids
        self.recorder.expected_items = len(collected) if resume is not None else len(expected)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        if error is not None:
            self.recorder.stop.crashed_workers += 1

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        # Ctrl-C, and pytest's own Interrupted (-x under xdist, errors during collection)
        self.recorder.stop.on_interrupt(str(excinfo.value))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            # a broken scenario file must not be hidden by a passing gate
            self.recorder.other_failures += 1

    # Before junitxml's pytest_sessionfinish writes its file: the verdict is a testcase there.
    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        ghx = self.config.stash[SESSION_KEY]
        self.recorder.settle_crashes()
        self.recorder.close()
        self.recorder.stop.on_session_end(session.shouldfail, session.shouldstop)
        remove_ledgers(ghx.run_dir.path / SPEND_DIR)
        (ghx.run_dir.path / HANDOFF).unlink(missing_ok=True)  # every worker wrote one
        ended = finish_session(self.config, ghx, self.recorder, int(session.exitstatus))
        self.config.stash[SESSION_END_KEY] = ended
        session.exitstatus = ended.exit_status
        log_verdict(self.config, ended.summary, ended.exit_status)

    def pytest_terminal_summary(
        self, terminalreporter: Any, exitstatus: int, config: pytest.Config
    ) -> None:
        ended = config.stash.get(SESSION_END_KEY, None)
        if ended is None:
            return
        tr = terminalreporter
        tr.section("ghxbench")
        # each section writes its own blank line before it, and nothing when it has nothing
        for section in (_tables, _failed_items, _comparison, _run_notes, _sandbox_gaps, _footer):
            section(tr, ended, config.stash[RECORDER_KEY], config)


def _write_block(tr: Any, lines: list[str], **markup: bool) -> None:
    if lines:
        tr.write_line("")
        for line in lines:
            tr.write_line(line, **markup)


def _tables(tr: Any, ended: SessionEnd, recorder: RowRecorder, config: pytest.Config) -> None:
    from pytest_ghxbench.render.terminal import checks_table, mode_table, scenario_reliability

    for line in mode_table(ended.summary):
        tr.write_line(line)
    _write_block(tr, checks_table(ended.summary))
    _write_block(tr, scenario_reliability(ended.summary))


def _failed_items(tr: Any, ended: SessionEnd, recorder: RowRecorder, config: pytest.Config) -> None:
    if recorder.failed_items:
        tr.write_line("")
        tr.write_line(f"failed items ({len(recorder.failed_items)}):")
        for nodeid, failures in recorder.failed_items.items():
            first = failures[0] if failures else "failed"
            tr.write_line(f"  {nodeid.rsplit('::', 1)[-1]}: {first[:200]}")
    for error in recorder.hook_errors:
        tr.write_line(f"hook error: {error}", red=True)
    for line in recorder.harness.lines():
        tr.write_line(line, red=True)


def _comparison(tr: Any, ended: SessionEnd, recorder: RowRecorder, config: pytest.Config) -> None:
    if ended.comparison is None:
        return
    from pytest_ghxbench.compare import format_comparison

    _write_block(tr, format_comparison(ended.comparison, only_changes=True))
    for failure in ended.comparison.failed:
        tr.write_line(f"FAIL {failure}", red=True)


def _run_notes(tr: Any, ended: SessionEnd, recorder: RowRecorder, config: pytest.Config) -> None:
    """Budget, completeness and the session's own problems."""
    budget = ended.summary.run.get("budget")
    if budget:
        tr.write_line("")
        tr.write_line(budget_line(budget), yellow=bool(budget["skipped_items"]))
    completeness = ended.completeness
    if not completeness.complete:
        names = completeness.missing_names()
        shown = [name.rsplit("::", 1)[-1] for name in names]
        more = len(completeness.missing) - len(names)
        tail = f": {', '.join(shown)}" + (f" and {more} more" if more and shown else "")
        tr.write_line(
            f"{completeness.note()}; {len(completeness.missing)} item(s) without a row"
            + (tail if shown else ""),
            yellow=True,
        )
    for problem in ended.problems:
        tr.write_line(problem)


def _sandbox_gaps(tr: Any, ended: SessionEnd, recorder: RowRecorder, config: pytest.Config) -> None:
    from pytest_ghxbench.render.gaps import gap_lines

    _write_block(tr, gap_lines(ended.summary), yellow=True)


def _footer(tr: Any, ended: SessionEnd, recorder: RowRecorder, config: pytest.Config) -> None:
    from pytest_ghxbench.render.terminal import verdict_line

    tr.write_line("")
    run = config.stash[SESSION_KEY].run_dir
    tr.write_line(f"run: {run.path} (rows.jsonl, transcripts/, summary.json, summary.md)")
    if ended.report is not None:
        tr.write_line(f"report: {ended.report}")
    power = ended.summary.run.get("power")
    if isinstance(power, dict) and power.get("line"):
        tr.write_line(str(power["line"]))
    tr.write_line(
        verdict_line(ended.summary, ended.exit_status, ended.why),
        bold=True,
        green=ended.exit_status == 0,
        red=ended.exit_status != 0,
    )


def budget_line(budget: dict[str, Any]) -> str:
    """``budget: $0.03 of $0.025, 1,200 of 5,000 active tokens spent; 5 item(s) not
    started``."""
    spent = []
    if budget.get("usd") is not None:
        spent.append(f"{format_usd(budget['spent_usd'])} of {format_usd(budget['usd'])}")
    if budget.get("tokens") is not None:
        spent.append(f"{budget['spent_tokens']:,} of {budget['tokens']:,} active tokens")
    skipped = budget.get("skipped_items", 0)
    tail = f"; {skipped} item(s) not started" if skipped else "; not exhausted"
    if budget.get("exhausted") and not skipped:
        tail = "; reached by the last item"
    return f"budget: {', '.join(spent)} spent{tail}"


class ProgressHooks:
    """The live status line (module run.progress): after the terminal reporter has written."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.progress.start()

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.progress.workers.add(str(node.gateway.id))

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logstart(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        self.progress.redraw()

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.progress.on_report(report):
            self.progress.show()

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.progress.stop()

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self.progress.unconfigure()
