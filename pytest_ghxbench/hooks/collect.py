"""Scenario files as pytest collectors; one item per mode and repetition."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _pytest._code.code import TerminalRepr
from _pytest._io import TerminalWriter

from pytest_ghxbench.attempt.backstop import is_backstop_timeout
from pytest_ghxbench.attempt.failures import (
    ScenarioFailed,
    TransientFailure,
    TransientTimeout,
    failure_report,
    render_exception,
    starting_at,
)
from pytest_ghxbench.attempt.pipeline import AttemptOutcome, run_attempt
from pytest_ghxbench.attempt.retry import RERUN_PATTERN, TIMEOUT, retry_policy
from pytest_ghxbench.attempt.rows import ItemIdentity, item_name
from pytest_ghxbench.hooks.keys import SESSION_KEY
from pytest_ghxbench.hooks.session import GhxSession
from pytest_ghxbench.option_specs import KNOWN_MODES
from pytest_ghxbench.scenario.loader import ScenarioError
from pytest_ghxbench.scenario.manifest import MissingResource, bind_input, missing_resources

RESERVED_MARKERS = ("atomic", "workflow")
# pytest-timeout fires this long after the scenario's own deadline: the adapter gets the
# chance to stop cooperatively first.
BACKSTOP_GRACE_S = 2.0


class ScenarioCollectionError(Exception):
    """A scenario file that cannot become items; shown without a traceback."""


class _PlainRepr(TerminalRepr):
    def __init__(self, text: str) -> None:
        self.text = text

    def toterminal(self, tw: TerminalWriter) -> None:
        for line in self.text.splitlines():
            tw.line(line)


class ScenarioFile(pytest.File):
    def collect(self) -> Iterator[ScenarioItem]:
        session = self.config.stash[SESSION_KEY]
        errors = session.errors_for(self.path)
        if errors:
            raise ScenarioCollectionError("\n".join(str(e) for e in errors))
        loaded = session.scenario_at(self.path)
        if loaded is None:  # not a scenario the catalog knows (e.g. outside the root)
            return
        scenario = loaded.scenario
        for mode in session.modes:
            for rep in range(1, session.settings.reps + 1):
                item = ScenarioItem.from_parent(
                    self,
                    name=item_name(scenario.id, mode, rep),
                    nodeid=_parametrized_id(self, scenario.id, f"{mode}-r{rep}"),
                    scenario=scenario,
                    mode=mode,
                    rep=rep,
                )
                _mark(item, scenario, mode, self.config)
                yield item

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, (ScenarioCollectionError, ScenarioError)):
            # paths relative to the rootdir, as pytest shows them elsewhere
            text = str(excinfo.value).replace(f"{self.config.rootpath}{os.sep}", "")
            return _PlainRepr(text)
        return super().repr_failure(excinfo)


def _parametrized_id(parent: pytest.Collector, name: str, params: str) -> Any:
    """The item's node id with the mode and repetition as its parameters, the way pytest 9
    builds a parametrized function's: its cache (``--lf``, ``--ff``, ``--sw``) compares
    structured ids, and one derived from the name alone would hold ``[ghx-r1]`` inside the
    name. ``None`` (pytest 8: the id is the string, derived from the name) elsewhere."""
    parent_id = getattr(parent, "id", None)
    if parent_id is None or not hasattr(parent_id, "with_params"):
        return None
    return parent_id.child(name).with_params(params)


def reserved_markers(session: GhxSession) -> set[str]:
    """Marker names a scenario tag may not take: the item's type and the modes."""
    return {*RESERVED_MARKERS, *KNOWN_MODES, *session.adapter.modes, *session.modes}


def scenario_tags(session: GhxSession) -> list[str]:
    """The tags of the catalog's scenarios that become markers, sorted."""
    reserved = reserved_markers(session)
    tags = {tag for ls in session.catalog.scenarios.values() for tag in ls.scenario.tags}
    return sorted(tags - reserved)


def _mark(item: pytest.Item, scenario: Any, mode: str, config: pytest.Config) -> None:
    for mark in _marks(scenario, mode, config):
        item.add_marker(mark)


def _marks(scenario: Any, mode: str, config: pytest.Config) -> list[pytest.MarkDecorator]:
    """The markers of the items of ``scenario`` in ``mode``, made once per scenario and mode
    (every repetition gets the same)."""
    session: GhxSession = config.stash[SESSION_KEY]
    cache: dict[tuple[str, str], list[pytest.MarkDecorator]] = session.extra.setdefault("marks", {})
    found = cache.get((scenario.id, mode))
    if found is not None:
        return found
    marks = [getattr(pytest.mark, scenario.kind), getattr(pytest.mark, mode)]
    reserved = reserved_markers(session)
    # A tag may not contradict the item's type or mode: an atomic scenario tagged "workflow" (a
    # GitHub Actions workflow) must not be selected by `-m workflow`. Tags are registered as
    # markers when the session starts (session_plugin).
    marks += [
        getattr(pytest.mark, tag) for tag in dict.fromkeys(scenario.tags) if tag not in reserved
    ]
    plugins = config.pluginmanager
    if plugins.hasplugin("timeout"):
        timeout_s = scenario.timeout_ms / 1000.0
        marks.append(
            pytest.mark.timeout(timeout_s + BACKSTOP_GRACE_S, method="signal", func_only=True)
        )
    if plugins.hasplugin("rerunfailures"):
        reruns = retry_policy(config).max_reruns(scenario.allowed_retries)
        if reruns > 0 or getattr(config.option, "reruns", None):
            # Also set at 0 when --reruns is given, so it cannot override the policy; only
            # attempts the policy retries raise TransientFailure (module run.retry).
            marks.append(pytest.mark.flaky(reruns=reruns, only_rerun=[RERUN_PATTERN]))
    cache[(scenario.id, mode)] = marks
    return marks


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario: Any, mode: str, rep: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.mode = mode
        self.rep = rep
        self.bound_input: dict[str, Any] = {}
        self.outcome: AttemptOutcome | None = None
        self.extra_keyword_matches.update({mode, scenario.id})

    @property
    def ghx_session(self) -> GhxSession:
        return self.config.stash[SESSION_KEY]

    def identity(self) -> ItemIdentity:
        session = self.ghx_session
        return ItemIdentity(
            item_id=self.nodeid,
            run_id=session.run_id,
            scenario_id=self.scenario.id,
            scenario_set=session.scenario_set_of(self.scenario.id),
            scenario_type=self.scenario.kind,
            mode=self.mode,
            iteration=self.rep,
            adapter=session.adapter.name,
            backend=session.backend.name if session.backend is not None else None,
            git=session.git,
            default_model=session.settings.model or getattr(session.adapter, "model", None),
        )

    def setup(self) -> None:
        session = self.ghx_session
        manifest = session.manifest
        needs_manifest = self.scenario.fixture is not None and (
            self.scenario.fixture.bindings or self.scenario.fixture.requires
        )
        if not needs_manifest:
            self.bound_input = dict(self.scenario.input)
            return
        if manifest is None:
            pytest.skip(
                f"{self.scenario.id} needs fixture resources but no manifest is available "
                f"(give --fixture-manifest or use a backend that provides one)"
            )
        missing = missing_resources(self.scenario, manifest)
        if missing:
            pytest.skip(
                f"{self.scenario.id} needs resource(s) {', '.join(missing)} that the "
                f"fixture manifest ({session.manifest_source}) lacks"
            )
        try:
            self.bound_input = bind_input(self.scenario, manifest)
        except MissingResource as exc:
            pytest.skip(
                f"{self.scenario.id}: fixture manifest ({session.manifest_source}) "
                f"lacks a bound resource: {exc}"
            )

    def runtest(self) -> None:
        self.outcome = None
        attempt = int(getattr(self, "execution_count", 1) or 1)
        policy = retry_policy(self.config)
        allowed = self.scenario.allowed_retries
        try:
            self.outcome = run_attempt(
                self.ghx_session, self.identity(), self.scenario, self.bound_input, attempt=attempt
            )
        except BaseException as exc:
            if is_backstop_timeout(exc) and policy.retries(TIMEOUT, allowed, attempt):
                raise TransientTimeout(str(exc)) from exc
            raise
        if not self.outcome.passed:
            if policy.retries(self.outcome.kind, allowed, attempt):
                raise TransientFailure(self.outcome)
            raise ScenarioFailed(self.outcome)

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        redactor = self.ghx_session.redactor
        if isinstance(excinfo.value, ScenarioFailed) and self.outcome is not None:
            return failure_report(self.config, self.name, self.outcome, redactor)
        if isinstance(excinfo.value, TransientTimeout) and excinfo.value.__cause__ is not None:
            cause = excinfo.value.__cause__
            excinfo = pytest.ExceptionInfo.from_exception(cause)
        if self.outcome is None and is_backstop_timeout(excinfo.value):
            # stopped outside the adapter's run() (opening the backend, judging)
            first = str(excinfo.value).strip().splitlines()[0]
            exc_info = (excinfo.type, excinfo.value, excinfo.tb)
            rendered = render_exception(self.config, starting_at(exc_info, run_attempt.__code__))
            return redactor.text(
                f"{self.name}: runner error: timeout: pytest-timeout stopped the item "
                f"{BACKSTOP_GRACE_S:g}s after its {self.scenario.timeout_ms} ms deadline "
                f"({first})\n\n{rendered}"
            )
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        # a line number: pytest's skip reporting (a skip marker on the item) requires one
        return self.path, 0, f"ghxbench {self.name}"
