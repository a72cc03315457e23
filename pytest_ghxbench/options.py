"""Resolving the options (declared in :mod:`pytest_ghxbench.option_specs`) into settings.

Precedence: command line > ``[tool.pytest.ini_options]`` > ``[tool.ghxbench]`` > default.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.shard_spec import ShardSpec, ShardSpecError, parse_shard
from pytest_ghxbench.suite import shipped_suite

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

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
    OPTIONS,
)


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


def _pyproject_path(config: pytest.Config) -> Path | None:
    candidates = []
    if config.inipath is not None and config.inipath.name == "pyproject.toml":
        candidates.append(config.inipath)
    candidates.append(config.rootpath / "pyproject.toml")
    return next((path for path in candidates if path.is_file()), None)


def read_tool_table(path: Path) -> dict[str, Any]:
    """The ``[tool.ghxbench]`` table of the ``pyproject.toml`` at ``path`` (``{}`` without one),
    top-level keys with ``-`` read as ``_``; ``ValueError`` naming the file when it cannot be
    read or the table is not one."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from exc
    table = data.get("tool", {}).get("ghxbench", {})
    if not isinstance(table, dict):
        raise ValueError(f"{path}: [tool.ghxbench] must be a table")
    return {str(k).replace("-", "_"): v for k, v in table.items()}


_SPECS = {spec.key: spec for spec in OPTIONS}
_COMMAND_LINE, _INI, _TABLE = "command line", "ini", "[tool.ghxbench]"


class _Given:
    """The option values as given on the command line, in the ini file and in
    ``[tool.ghxbench]``, and which of them each resolved value came from, so a bad value is
    refused naming the flag, or the file and key, it was written as."""

    def __init__(self, config: pytest.Config, namespace: Any = None) -> None:
        self.table_path = _pyproject_path(config)
        try:
            table = read_tool_table(self.table_path) if self.table_path is not None else {}
        except ValueError as exc:
            raise pytest.UsageError(f"ghxbench: {exc}") from exc
        valid = set(_SPECS) | set(CONFIG_TABLES)
        unknown = sorted(set(table) - valid)
        if unknown:
            raise pytest.UsageError(
                f"ghxbench: {self.table_path}: unknown key(s) in [tool.ghxbench]: "
                f"{', '.join(unknown)}; valid keys: {', '.join(sorted(valid))}"
            )
        self.table = table
        self.ini_path = config.inipath
        if namespace is None:
            self.cli = {key: config.getoption(spec.dest) for key, spec in _SPECS.items()}
        else:
            self.cli = {key: getattr(namespace, spec.dest, None) for key, spec in _SPECS.items()}
        self.ini: dict[str, Any] = {}
        for key, spec in _SPECS.items():
            try:
                self.ini[key] = config.getini(spec.ini)
            except ValueError:  # pragma: no cover - unknown ini key cannot happen
                self.ini[key] = None
        self.source: dict[str, str] = {}

    def __call__(self, key: str) -> Any:
        for source, values in ((_COMMAND_LINE, self.cli), (_INI, self.ini), (_TABLE, self.table)):
            raw = values.get(key)
            if raw is not None and raw != "" and raw != []:
                self.source[key] = source
                return raw
        return None

    def where(self, key: str) -> str:
        """``--reps``, ``/p/pytest.ini: ghx_reps`` or ``/p/pyproject.toml: [tool.ghxbench]
        reps``: where the value of ``key`` was written."""
        spec = _SPECS[key]
        source = self.source.get(key, _COMMAND_LINE)
        if source == _INI:
            return f"{self.ini_path}: {spec.ini}"
        if source == _TABLE:
            return f"{self.table_path}: [tool.ghxbench] {key}"
        return spec.flag

    def text(self, key: str) -> str | None:
        raw = self(key)
        if raw is None:
            return None
        if isinstance(raw, (dict, list, bool)):
            raise pytest.UsageError(
                f"ghxbench: {self.where(key)} must be a string, got {_shown(raw)}"
            )
        return str(raw)

    def whole(self, key: str, default: int | None, *, minimum: int) -> int | None:
        """A whole number >= ``minimum``: an integer, or text of one (never 3.5 read as 3)."""
        raw = self(key)
        if raw is None:
            return default
        number: int | None = None
        if isinstance(raw, int) and not isinstance(raw, bool):
            number = raw
        elif isinstance(raw, str) and raw.strip().lstrip("+-").isdigit():
            number = int(raw)
        if number is None or number < minimum:
            raise pytest.UsageError(
                f"ghxbench: {self.where(key)} must be a whole number >= {minimum}, "
                f"got {_shown(raw)}"
            )
        return number

    def number(self, key: str) -> float | None:
        """A finite number (int, float or the text of one), or None when not given."""
        raw = self(key)
        if raw is None:
            return None
        number = math.nan
        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
            number = float(raw)
        elif isinstance(raw, str):
            try:
                number = float(raw)
            except ValueError:
                number = math.nan
        return number if math.isfinite(number) else math.nan

    def flag(self, key: str) -> bool:
        raw = self(key)
        if raw is None or isinstance(raw, bool):
            return bool(raw)
        text = str(raw).strip().lower()
        if isinstance(raw, str) and text in _TRUE | _FALSE:
            return text in _TRUE
        raise pytest.UsageError(
            f"ghxbench: {self.where(key)} must be true or false, got {_shown(raw)}"
        )


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def _shown(raw: Any) -> str:
    return (
        repr(raw)
        if isinstance(raw, str)
        else str(raw).lower()
        if isinstance(raw, bool)
        else str(raw)
    )


def resolve_settings(config: pytest.Config, namespace: Any = None) -> Settings:
    """The session's settings; ``namespace``: read the command line from it
    (``config.known_args_namespace`` before the command line is fully parsed) instead of
    ``config.option``."""
    given = _Given(config, namespace)
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

    def path(key: str) -> Path | None:
        raw = given.text(key)
        if raw is None:
            return None
        base = config.invocation_params.dir if given.source[key] == _COMMAND_LINE else rootpath
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


def _resumed_run(given: _Given, config: pytest.Config) -> dict[str, Any]:
    """The modes, reps and required gate profile of the run ``--ghx-resume`` names (its
    ``run.json``), for a command line that gives no modes; a resume of no readable run is a
    usage error."""
    raw = given.text("resume")
    if raw is None:
        return {}
    base = config.invocation_params.dir if given.source["resume"] == _COMMAND_LINE else None
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


def _isolation(given: _Given) -> str:
    from pytest_ghxbench.isolation.probe import CHOICES

    value = (given.text("isolation") or "auto").strip()
    if value not in CHOICES:
        raise pytest.UsageError(
            f"ghxbench: unknown isolation {value!r} for {given.where('isolation')}; "
            f"valid: {', '.join(CHOICES)}"
        )
    return value


def _allow_hosts(given: _Given) -> tuple[str, ...]:
    from pytest_ghxbench.isolation.hosts import allowed_hosts

    raw = given("allow_host")
    try:
        return allowed_hosts([] if raw is None else raw if isinstance(raw, list) else [raw])
    except ValueError as exc:
        raise pytest.UsageError(f"ghxbench: {given.where('allow_host')}: {exc}") from None


def _compare_rules(given: _Given, compare: str | None) -> tuple[str, ...]:
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


def _budget_usd(given: _Given) -> float | None:
    number = given.number("budget_usd")
    if number is not None and not number > 0:
        raise pytest.UsageError(
            f"ghxbench: {given.where('budget_usd')} must be a number > 0, "
            f"got {_shown(given('budget_usd'))}"
        )
    return number


def _power_effect(given: _Given) -> float:
    number = given.number("power_effect")
    if number is None:
        return DEFAULT_POWER_EFFECT_PCT
    if not 0 <= number < 100:
        raise pytest.UsageError(
            f"ghxbench: {given.where('power_effect')} must be a percentage from 0 to below "
            f"100, got {_shown(given('power_effect'))}"
        )
    return number


def _shard(given: _Given) -> ShardSpec | None:
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
    modes = resolve_settings(config).modes or ()
    return tuple(dict.fromkeys(KNOWN_MODES if "all" in modes else modes))
