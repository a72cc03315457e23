"""Resolving the options (declared in :mod:`pytest_ghxbench.option_specs`) into settings.

Precedence: command line > ``[tool.pytest.ini_options]`` > ``[tool.ghxbench]`` > default.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.modes import ModeConfigError, ModeTable, declared_modes
from pytest_ghxbench.option_sources import COMMAND_LINE, GivenOptions, shown
from pytest_ghxbench.option_specs import (
    CONFIG_TABLES,
    DEFAULT_ADAPTER,
    DEFAULT_BACKEND,
    DEFAULT_BASELINE,
    DEFAULT_CANDIDATE,
    DEFAULT_POWER_EFFECT_PCT,
    DEFAULT_PROFILE,
    DEFAULT_RESULTS,
    DEFAULT_SCENARIO_ROOT,
    KNOWN_MODES,
)
from pytest_ghxbench.shard_spec import ShardSpec, ShardSpecError, parse_shard
from pytest_ghxbench.suite import shipped_suite


@dataclass(frozen=True)
class Settings:
    """Resolved options of one session."""

    modes: tuple[str, ...] | None  # None: scenario collection is off
    reps: int
    adapter: str
    backend: str
    scenario_set: str | None
    scenario_root: Path
    fixture_manifest: Path | None
    gate_profile: str
    gate_required: bool
    baseline: str
    candidate: str
    baseline_rows: str | None
    results_dir: Path
    strict: bool
    model: str | None
    gh: str | None = None
    mcp_server: str | None = None
    ghx: str | None = None
    tables: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    mode_table: ModeTable = field(default_factory=ModeTable.builtin)
    """Every mode the session knows: the built-in ones and ``[tool.ghxbench.modes]``'s; the
    programs of the selected declared modes are resolved to paths."""
    shipped_suite: bool = False
    """``scenario_root`` is the suite shipped with the package: no scenario root was configured
    and the rootdir has no ``scenarios/`` directory."""
    compare: str | None = None
    compare_fail: tuple[str, ...] = ()
    budget_usd: float | None = None
    budget_tokens: int | None = None
    power_effect: float = DEFAULT_POWER_EFFECT_PCT
    """The true reduction (percent) the verdict's power note asks about; 0: no note."""
    shard: ShardSpec | None = None
    shard_durations: Path | None = None
    """An earlier run directory whose item times balance the shards."""
    resume: Path | None = None
    """The run directory a ``--ghx-resume`` session continues."""
    isolation: str = "auto"
    """``--ghx-isolation``: auto, jail or none."""
    allow_hosts: tuple[str, ...] = ()
    """``--ghx-allow-host`` values: hosts items may reach besides GitHub and the model."""

    @property
    def enabled(self) -> bool:
        return self.modes is not None


def describe_scenario_root(settings: Settings) -> str:
    """The scenario root as the report header shows it, saying when it is the shipped suite."""
    if settings.shipped_suite:
        return (
            f"{settings.scenario_root} (the suite shipped with pytest-ghxbench: no "
            f"{DEFAULT_SCENARIO_ROOT}/ directory in the rootdir and no --ghx-scenarios)"
        )
    return str(settings.scenario_root)


def resolve_settings(config: pytest.Config, namespace: Any = None) -> Settings:
    """The session's settings; ``namespace``: read the command line from it
    (``config.known_args_namespace`` before the command line is fully parsed) instead of
    ``config.option``."""
    given = GivenOptions(config, namespace)
    if given.cli.get("mode") is not None and not str(given.cli["mode"]).strip():
        raise pytest.UsageError(
            "ghxbench: --ghx-mode is empty; give at least one mode "
            f"({', '.join(KNOWN_MODES)}, ... or 'all')"
        )

    modes_raw = given("mode")
    modes: tuple[str, ...] | None = None
    if modes_raw is not None:
        if isinstance(modes_raw, list):
            if not all(isinstance(m, str) for m in modes_raw):
                raise pytest.UsageError(
                    f"ghxbench: {given.where('mode')} must be a list of mode names, got {modes_raw}"
                )
            items = modes_raw
        else:
            items = (given.text("mode") or "").split(",")
        modes = tuple(m.strip() for m in items if str(m).strip())
        if not modes:
            raise pytest.UsageError(
                f"ghxbench: {given.where('mode')} is empty; give at least "
                f"one mode ({', '.join(KNOWN_MODES)}, ... or 'all')"
            )

    rootpath = config.rootpath
    started = _resumed_run(given, config) if modes is None else {}
    if started:
        # `pytest --ghx-resume=RUN_DIR` alone continues that run as it was started
        modes = tuple(started["modes"])
    reps = given.whole("reps", int(started.get("reps", 1)), minimum=1)
    assert reps is not None
    scenarios_raw = given.text("scenarios")
    scenario_root = Path(scenarios_raw or DEFAULT_SCENARIO_ROOT)
    shipped = scenarios_raw is None and not (rootpath / DEFAULT_SCENARIO_ROOT).is_dir()
    if shipped:
        scenario_root = shipped_suite()
    manifest = given.text("fixture_manifest")
    results = Path(given.text("results") or DEFAULT_RESULTS)
    profile = given.text("gate_profile") or started.get("gate_profile")
    tables = {name: given.table.get(name) or {} for name in CONFIG_TABLES}
    for name, content in tables.items():
        if not isinstance(content, dict):
            raise pytest.UsageError(f"ghxbench: [tool.ghxbench.{name}] must be a table")
    try:
        mode_table = declared_modes(
            tables["modes"],
            str(given.table_path or "pyproject.toml"),
            root=rootpath,
            resolve=modes or (),
        )
    except ModeConfigError as exc:
        raise pytest.UsageError(f"ghxbench: {exc}") from None

    def path(key: str) -> Path | None:
        raw = given.text(key)
        if raw is None:
            return None
        base = config.invocation_params.dir if given.source[key] == COMMAND_LINE else rootpath
        return _absolute(Path(raw), base)

    return Settings(
        modes=modes,
        reps=reps,
        adapter=given.text("adapter") or DEFAULT_ADAPTER,
        backend=given.text("backend") or DEFAULT_BACKEND,
        scenario_set=given.text("scenario_set"),
        scenario_root=(
            scenario_root if shipped else path("scenarios") or _absolute(scenario_root, rootpath)
        ),
        fixture_manifest=path("fixture_manifest") if manifest else None,
        gate_profile=profile or DEFAULT_PROFILE,
        gate_required=profile is not None,
        baseline=given.text("gate_baseline") or DEFAULT_BASELINE,
        candidate=given.text("gate_candidate") or DEFAULT_CANDIDATE,
        baseline_rows=given.text("baseline_rows"),
        results_dir=path("results") or _absolute(results, rootpath),
        strict=given.flag("strict"),
        model=given.text("model"),
        gh=given.text("gh"),
        mcp_server=given.text("mcp_server"),
        ghx=given.text("ghx"),
        tables=tables,
        mode_table=mode_table,
        shipped_suite=shipped,
        compare=given.text("compare"),
        compare_fail=_compare_rules(given, given.text("compare")),
        budget_usd=_budget_usd(given),
        budget_tokens=given.whole("budget_tokens", None, minimum=1),
        power_effect=_power_effect(given),
        shard=_shard(given),
        shard_durations=path("shard_durations"),
        resume=path("resume"),
        isolation=_isolation(given),
        allow_hosts=_allow_hosts(given),
    )


def _resumed_run(given: GivenOptions, config: pytest.Config) -> dict[str, Any]:
    """The modes, reps and required gate profile of the run ``--ghx-resume`` names (its
    ``run.json``), for a command line that gives no modes; a resume of no readable run is a
    usage error."""
    raw = given.text("resume")
    if raw is None:
        return {}
    base = config.invocation_params.dir if given.source["resume"] == COMMAND_LINE else None
    spec = _absolute(Path(raw), base or config.rootpath) / "run.json"
    try:
        started = json.loads(spec.read_text(encoding="utf-8"))
        modes, reps = started["modes"], started["reps"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise pytest.UsageError(
            f"ghxbench: --ghx-resume={raw}: cannot read the run's modes from {spec} "
            f"({type(exc).__name__}: {exc}); give --ghx-mode and --reps as the run was started"
        ) from None
    if not (isinstance(modes, list) and modes and all(isinstance(m, str) for m in modes)):
        raise pytest.UsageError(f"ghxbench: {spec}: 'modes' is not a list of mode names")
    if not isinstance(reps, int) or isinstance(reps, bool) or reps < 1:
        raise pytest.UsageError(f"ghxbench: {spec}: 'reps' is not a whole number >= 1")
    required = started.get("gate_required") is True and isinstance(started.get("gate_profile"), str)
    return {
        "modes": modes,
        "reps": reps,
        **({"gate_profile": started["gate_profile"]} if required else {}),
    }


def _isolation(given: GivenOptions) -> str:
    from pytest_ghxbench.isolation.probe import CHOICES

    value = (given.text("isolation") or "auto").strip()
    if value not in CHOICES:
        raise pytest.UsageError(
            f"ghxbench: unknown isolation {value!r} for {given.where('isolation')}; "
            f"valid: {', '.join(CHOICES)}"
        )
    return value


def _allow_hosts(given: GivenOptions) -> tuple[str, ...]:
    from pytest_ghxbench.isolation.hosts import allowed_hosts

    raw = given("allow_host")
    try:
        return allowed_hosts([] if raw is None else raw if isinstance(raw, list) else [raw])
    except ValueError as exc:
        raise pytest.UsageError(f"ghxbench: {given.where('allow_host')}: {exc}") from None


def _compare_rules(given: GivenOptions, compare: str | None) -> tuple[str, ...]:
    raw = given("compare_fail")
    if raw is None:
        return ()
    rules = tuple(str(r).strip() for r in (raw if isinstance(raw, list) else str(raw).split(",")))
    rules = tuple(r for r in rules if r)
    if rules and not compare:
        raise pytest.UsageError("ghxbench: --ghx-compare-fail needs --ghx-compare=RUN|latest")
    from pytest_ghxbench.compare import parse_fail_rule

    for rule in rules:
        try:
            parse_fail_rule(rule)
        except ValueError as exc:
            raise pytest.UsageError(f"ghxbench: {given.where('compare_fail')}: {exc}") from None
    return rules


def _budget_usd(given: GivenOptions) -> float | None:
    number = given.number("budget_usd")
    if number is not None and not number > 0:
        raise pytest.UsageError(
            f"ghxbench: {given.where('budget_usd')} must be a number > 0, "
            f"got {shown(given('budget_usd'))}"
        )
    return number


def _power_effect(given: GivenOptions) -> float:
    number = given.number("power_effect")
    if number is None:
        return DEFAULT_POWER_EFFECT_PCT
    if not 0 <= number < 100:
        raise pytest.UsageError(
            f"ghxbench: {given.where('power_effect')} must be a percentage from 0 to below "
            f"100, got {shown(given('power_effect'))}"
        )
    return number


def _shard(given: GivenOptions) -> ShardSpec | None:
    raw = given.text("shard")
    if raw is None:
        return None
    try:
        return parse_shard(raw)
    except ShardSpecError as exc:
        raise pytest.UsageError(f"ghxbench: {given.where('shard')} {exc}") from None


def _absolute(path: Path, base: Path) -> Path:
    """Command-line paths are relative to where pytest was invoked, config paths to the rootdir."""
    return path if path.is_absolute() else (base / path).resolve()


def selected_modes(config: pytest.Config) -> tuple[str, ...]:
    """The modes the session runs, with ``all`` read as every built-in mode (what a backend's
    preflight needs to know before any adapter has said which modes it drives)."""
    settings = resolve_settings(config)
    modes = settings.modes or ()
    return tuple(dict.fromkeys(settings.mode_table.names() if "all" in modes else modes))
