"""The benchmark session: activated by the plugin when ``--ghx-mode`` (or config) asks for it.

Registers the hooks that turn scenario files into items, carry rows from the process that ran
an item to the one that owns the session, and end the session with the gate.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.api import Usage
from pytest_ghxbench.attempt.backstop import BackstopTimer
from pytest_ghxbench.attempt.retry import retry_policy
from pytest_ghxbench.attempt.rows import finish_row, runner_error_data
from pytest_ghxbench.hooks.budget import (
    BUDGET_ATTR,
    BUDGET_SKIP_KEY,
    SPEND_DIR,
    Budget,
    SpendLedger,
    read_spend,
)
from pytest_ghxbench.hooks.collect import ScenarioFile, ScenarioItem, scenario_tags
from pytest_ghxbench.hooks.controller import Controller, ProgressHooks
from pytest_ghxbench.hooks.harness import HARNESS_ATTR
from pytest_ghxbench.hooks.isolation import header_lines as isolation_header
from pytest_ghxbench.hooks.isolation import isolate_session
from pytest_ghxbench.hooks.junit import attach_row_properties
from pytest_ghxbench.hooks.keys import (
    ITEMS_KEY,
    PLAN_KEY,
    RECORDER_KEY,
    SESSION_KEY,
    register_marker,
)
from pytest_ghxbench.hooks.markers import check_mark_expression
from pytest_ghxbench.hooks.progress import Progress
from pytest_ghxbench.hooks.recorder import ROW_ATTR, RowRecorder
from pytest_ghxbench.hooks.run_dir import start_run_dir
from pytest_ghxbench.hooks.session import RUN_ID_KEY, GhxSession, build_session
from pytest_ghxbench.options import Settings, describe_scenario_root
from pytest_ghxbench.runs.plan import Plan, hand_over, make_plan
from pytest_ghxbench.runs.resume import WORKER_KEY as RESUME_WORKER_KEY
from pytest_ghxbench.runs.shard import durations_from_run, weights_by_timeout
from pytest_ghxbench.scenario.loader import is_scenario_file
from pytest_ghxbench.shard_spec import ShardSpecError

HEADER_NOTES = "header_notes"
WEIGHT = "shard_weight"


def shard_weights(session: GhxSession) -> tuple[Callable[[str], float], str]:
    """How much each item weighs when the plan is split into shards, and what that is."""
    settings = session.settings
    if settings.shard is None or settings.shard_durations is None:
        timeouts = {sid: ls.scenario.timeout_ms for sid, ls in session.catalog.scenarios.items()}
        return weights_by_timeout(timeouts), "timeouts"
    try:
        return durations_from_run(settings.shard_durations), (
            f"durations of {settings.shard_durations}"
        )
    except ShardSpecError as exc:
        raise pytest.UsageError(f"ghxbench: --ghx-shard-durations: {exc}") from None


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def activate(config: pytest.Config, settings: Settings) -> None:
    session = build_session(config, settings)
    isolate_session(session)
    for mode in session.modes:
        register_marker(config, mode, f"ghxbench mode {mode}")
    for tag in scenario_tags(session):
        register_marker(config, tag, f"ghxbench scenario tag {tag!r}")
    stray = [
        e
        for e in session.catalog.errors
        if not is_scenario_file(Path(e.path), settings.scenario_root)
    ]
    if stray:
        raise pytest.UsageError("ghxbench: " + "\n".join(str(e) for e in stray))
    config.stash[SESSION_KEY] = session
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        # `pytest --ghx-mode=...` without paths runs the benchmark, not the project's tests.
        config.args = [str(settings.scenario_root)]
    retry_policy(config)  # a bad retry setting is a usage error before anything runs
    budget = Budget.of(settings)
    config.pluginmanager.register(BenchmarkHooks(config, budget), "ghxbench-benchmark")
    if config.pluginmanager.hasplugin("timeout"):
        config.pluginmanager.register(BackstopTimer(ScenarioItem), "ghxbench-backstop")
    session.extra[WEIGHT] = shard_weights(session)
    if not _is_worker(config) and not config.option.collectonly:
        if session.settings.compare is not None:  # the comparison's imports only when asked
            from pytest_ghxbench.hooks.compare_runs import find_base_run

            session.extra[HEADER_NOTES] = find_base_run(session)  # before this run is `latest`
        if session.resume is None:
            start_run_dir(config, session)
        recorder = RowRecorder(config, session)
        config.stash[RECORDER_KEY] = recorder
        progress = Progress(config, recorder, budget)
        config.pluginmanager.register(Controller(config, recorder), "ghxbench-controller")
        config.pluginmanager.register(ProgressHooks(progress), "ghxbench-progress")


def _too_few_reps(session: GhxSession) -> list[str]:
    """A warning, before anything runs, when the gate cannot compare the pair at this --reps."""
    s = session.settings
    needed = session.profile.min_samples_per_scenario_per_mode
    compared = s.baseline in session.modes and s.candidate in session.modes
    if not compared or s.reps >= needed:
        return []
    return [
        f"ghxbench: WARNING: --reps={s.reps} gives each scenario fewer than the {needed} stable "
        f"rows per mode that gate {s.gate_profile} compares ({s.candidate} vs {s.baseline}): "
        f"no scenario will be eligible and the efficiency checks will fail; use --reps={needed} "
        "or more"
    ]


def _spend_dir(config: pytest.Config) -> Path:
    """Where xdist workers share what they spent (module run.budget)."""
    return config.stash[SESSION_KEY].run_dir.path / SPEND_DIR


def _backend_description(backend: Any) -> list[str]:
    describe = getattr(backend, "describe", None) if backend is not None else None
    return [f"ghxbench: backend {describe()}"] if callable(describe) else []


class BenchmarkHooks:
    """Hooks of every process of a benchmark session (the controller and xdist workers)."""

    def __init__(self, config: pytest.Config, budget: Budget | None) -> None:
        self.config = config
        self.budget = budget
        self._ledger: SpendLedger | None = None
        self._usage: dict[str, Usage] = {}
        """xdist worker: the usage of each row made here, until its report is logged."""

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        session = config.stash.get(SESSION_KEY, None)
        if session is not None:
            session.close()

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """xdist controller: workers share the controller's run id (one transcripts folder)."""
        session = node.config.stash.get(SESSION_KEY, None)
        if session is not None:
            node.workerinput[RUN_ID_KEY] = session.run_id
            if session.resume is not None:
                node.workerinput[RESUME_WORKER_KEY] = session.resume.worker_input()

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        ghx = session.config.stash.get(SESSION_KEY, None)
        if ghx is not None and not _is_worker(session.config):
            check_mark_expression(session.config, scenario_tags(ghx))

    def pytest_report_header(self, config: pytest.Config) -> list[str] | None:
        session = config.stash.get(SESSION_KEY, None)
        if session is None:
            return None
        s = session.settings
        return [
            f"ghxbench: adapter={session.adapter.name} backend={s.backend} "
            f"modes={','.join(session.modes)} reps={s.reps} profile={s.gate_profile}"
            f"{' (required)' if s.gate_required else ''} run_id={session.run_id}",
            f"ghxbench: scenarios={describe_scenario_root(s)} results={s.results_dir} "
            f"manifest={session.manifest_source}",
            *_too_few_reps(session),
            *session.extra.get(HEADER_NOTES, []),
            *_backend_description(session.backend),
            *isolation_header(session),
        ]

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> ScenarioFile | None:
        session = parent.config.stash.get(SESSION_KEY, None)
        if session is None or not is_scenario_file(file_path, session.settings.scenario_root):
            return None
        return ScenarioFile.from_parent(parent, path=file_path)  # type: ignore[no-any-return]

    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        ghx = config.stash.get(SESSION_KEY, None)
        if ghx is None:
            return
        wanted_set = ghx.settings.scenario_set
        if wanted_set is not None:
            wanted = set(ghx.catalog.sets.get(wanted_set, ()))
            keep, drop = [], []
            for item in items:
                if isinstance(item, ScenarioItem) and item.scenario.id not in wanted:
                    drop.append(item)
                else:
                    keep.append(item)
            if drop:
                config.hook.pytest_deselected(items=drop)
                items[:] = keep
        config.stash[ITEMS_KEY] = {item.nodeid: item for item in items}

    # First, before the terminal counts the items and xdist sends them to the controller:
    # -k, -m, --deselect, --lf (a hook wrapper) and the scenario set have all deselected.
    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        ghx = session.config.stash.get(SESSION_KEY, None)
        if ghx is None:
            return
        self._narrow_to_plan(session, ghx)
        # The collected tree lives until the session ends; moving it out of the collector's
        # reach keeps each item's garbage collections from rescanning thousands of nodes.
        gc.freeze()

    def _narrow_to_plan(self, session: pytest.Session, ghx: GhxSession) -> None:
        """Record the plan (the selected scenario items) and keep only this session's part of
        it: its shard's items, or the items a resumed run still needs."""
        config = session.config
        selected = [item.nodeid for item in session.items if isinstance(item, ScenarioItem)]
        if ghx.resume is not None:
            plan = Plan.of_spec_fields(ghx.resume.spec.model_dump())
            keep = set(ghx.resume.todo)
        else:
            weight, balanced_by = ghx.extra[WEIGHT]
            plan = make_plan(selected, ghx.settings.shard, weight, balanced_by)
            keep = set(plan.share)
        drop = [i for i in session.items if isinstance(i, ScenarioItem) and i.nodeid not in keep]
        if drop:
            config.hook.pytest_deselected(items=drop)
            dropped = set(map(id, drop))
            session.items[:] = [item for item in session.items if id(item) not in dropped]
        config.stash[PLAN_KEY] = plan
        if _is_worker(config) and ghx.resume is None and ghx.run_dir.path.is_dir():
            hand_over(ghx.run_dir.path, plan)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # Frozen objects are invisible to gc.get_referrers, which other plugins rely on after
        # the run (Hypothesis checks registered PRNGs with it and warns falsely).
        gc.unfreeze()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """No new item once the run has spent its budget (a retry of a started item goes on)."""
        if self.budget is None or not isinstance(item, ScenarioItem):
            return
        if int(getattr(item, "execution_count", 1) or 1) > 1:
            return
        recorder = self.config.stash.get(RECORDER_KEY, None)
        # One process records every row itself before the next setup; an xdist worker reads
        # what every worker has written (module run.budget).
        spend = recorder.spend if recorder is not None else read_spend(_spend_dir(self.config))
        reason = self.budget.spent(spend)
        if reason is not None:
            item.stash[BUDGET_SKIP_KEY] = reason
            pytest.skip(reason)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """xdist worker: the spend of each row it produced, for the other workers to see."""
        if self.budget is None or not _is_worker(self.config):
            return
        usage = self._usage.pop(report.nodeid, None) if report.when == "call" else None
        if usage is None or str(report.outcome) == "rerun":
            return
        if self._ledger is None:
            worker = self.config.workerinput["workerid"]  # type: ignore[attr-defined]
            self._ledger = SpendLedger(_spend_dir(self.config), f"{worker}-{os.getpid()}")
        self._ledger.add(usage)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if not isinstance(item, ScenarioItem):
            return report
        if report.when == "call":  # the attempt wrote its transcript: did that fail?
            writer = item.ghx_session.extra.get("transcripts")
            failures = writer.take_failures() if writer is not None else []
            if failures:
                setattr(report, HARNESS_ATTR, failures)
        if report.when == "setup" and report.skipped:
            reason = item.stash.get(BUDGET_SKIP_KEY, None)
            if reason is not None:
                setattr(report, BUDGET_ATTR, reason)
                # shown (-rs, junitxml) at the scenario's file, not at the hook that skipped it
                # (no line: the terminal leaves it out; pytest types the line as int)
                where = (str(item.path), None, f"Skipped: {reason}")
                report.longrepr = where  # type: ignore[assignment]
            return report
        if report.when != "call" or report.skipped:
            return report
        if item.outcome is not None:
            row = item.outcome.row
            row_json = item.outcome.row_json
            item.outcome.release()  # the failure is rendered: free the adapter's frames
        else:
            # The attempt never produced an outcome: pytest-timeout's backstop or another
            # exception escaped. It is still a row, a runner error.
            excinfo = call.excinfo
            detail = f"{excinfo.typename}: {excinfo.value}" if excinfo is not None else "no outcome"
            if excinfo is not None and "Timeout" in str(excinfo.value):
                detail = (
                    f"timeout: the item exceeded its deadline and pytest-timeout stopped it "
                    f"({str(excinfo.value).splitlines()[0]})"
                )
            retries = int(getattr(item, "execution_count", 1) or 1) - 1
            session = item.ghx_session
            data = runner_error_data(
                item.identity(),
                detail,
                wall_ms=call.duration * 1000.0,
                external_retry_count=retries,
            )
            row, row_json = finish_row(data, session.redactor)
        setattr(report, ROW_ATTR, row_json)
        if self.budget is not None and _is_worker(self.config):
            self._usage[report.nodeid] = row.usage
        # junitxml writes the properties of the teardown report, copied from the item's
        attach_row_properties(item.user_properties, row)
        attach_row_properties(report.user_properties, row)
        return report
