"""Resolving the options (declared in :mod:`pytest_ghxbench.option_specs`) into settings.

Precedence: command line > ``[tool.pytest.ini_options]`` > ``[tool.ghxbench]`` > default.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

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


def _pyproject_table(config: pytest.Config) -> dict[str, Any]:
    candidates = []
    if config.inipath is not None and config.inipath.name == "pyproject.toml":
        candidates.append(config.inipath)
    candidates.append(config.rootpath / "pyproject.toml")
    for path in candidates:
        if not path.is_file():
            continue
        try:
            return read_tool_table(path)
        except ValueError as exc:
            raise pytest.UsageError(f"ghxbench: {exc}") from exc
    return {}


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


def _raw_values(
    config: pytest.Config, namespace: Any = None
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The option values as given by the command line, the ini file, and [tool.ghxbench].

    ``namespace``: read the command line from it (``config.known_args_namespace`` before the
    command line is fully parsed) instead of ``config.option``."""
    table = _pyproject_table(config)
    valid = {spec.key for spec in OPTIONS} | set(CONFIG_TABLES)
    unknown = sorted(set(table) - valid)
    if unknown:
        raise pytest.UsageError(
            f"ghxbench: unknown key(s) in [tool.ghxbench]: {', '.join(unknown)}; "
            f"valid keys: {', '.join(sorted(valid))}"
        )
    if namespace is None:
        cli = {spec.key: config.getoption(spec.dest) for spec in OPTIONS}
    else:
        cli = {spec.key: getattr(namespace, spec.dest, None) for spec in OPTIONS}
    ini: dict[str, Any] = {}
    for spec in OPTIONS:
        try:
            ini[spec.key] = config.getini(spec.ini)
        except ValueError:  # pragma: no cover - unknown ini key cannot happen
            ini[spec.key] = None
    return cli, ini, table


def resolve_settings(config: pytest.Config, namespace: Any = None) -> Settings:
    """The session's settings; ``namespace`` as for :func:`_raw_values`."""
    cli, ini, table = _raw_values(config, namespace)
    given_by: dict[str, str] = {}
    if cli.get("mode") is not None and not str(cli["mode"]).strip():
        raise pytest.UsageError(
            "ghxbench: --ghx-mode is empty; give at least one mode "
            f"({', '.join(KNOWN_MODES)}, ... or 'all')"
        )

    def value(key: str) -> Any:
        for source, values in (("command line", cli), ("ini", ini), ("[tool.ghxbench]", table)):
            raw = values.get(key)
            if raw is not None and raw != "":
                given_by[key] = source
                return raw
        return None

    modes_raw = value("mode")
    modes: tuple[str, ...] | None = None
    if modes_raw is not None:
        items = modes_raw if isinstance(modes_raw, list) else str(modes_raw).split(",")
        modes = tuple(m.strip() for m in items if str(m).strip())
        if not modes:
            where = {"ini": "ghx_mode", "[tool.ghxbench]": "[tool.ghxbench] mode"}
            raise pytest.UsageError(
                f"ghxbench: {where.get(given_by['mode'], '--ghx-mode')} is empty; give at least "
                f"one mode ({', '.join(KNOWN_MODES)}, ... or 'all')"
            )

    reps_raw = value("reps")
    try:
        reps = int(reps_raw) if reps_raw is not None else 1
    except (TypeError, ValueError):
        raise pytest.UsageError(
            f"ghxbench: --reps must be a whole number >= 1, got {reps_raw!r}"
        ) from None
    if reps < 1:
        raise pytest.UsageError(f"ghxbench: --reps must be a whole number >= 1, got {reps}")

    rootpath = config.rootpath
    scenarios_raw = value("scenarios")
    scenario_root = Path(scenarios_raw or DEFAULT_SCENARIO_ROOT)
    shipped = scenarios_raw is None and not (rootpath / DEFAULT_SCENARIO_ROOT).is_dir()
    if shipped:
        scenario_root = shipped_suite()
    manifest = value("fixture_manifest")
    results = Path(value("results") or DEFAULT_RESULTS)
    profile = value("gate_profile")
    strict = value("strict")
    tables = {name: table.get(name) or {} for name in CONFIG_TABLES}
    for name, content in tables.items():
        if not isinstance(content, dict):
            raise pytest.UsageError(f"ghxbench: [tool.ghxbench.{name}] must be a table")
    return Settings(
        modes=modes,
        reps=reps,
        adapter=str(value("adapter") or DEFAULT_ADAPTER),
        backend=str(value("backend") or DEFAULT_BACKEND),
        scenario_set=str(value("scenario_set")) if value("scenario_set") else None,
        scenario_root=_absolute(
            scenario_root, config.invocation_params.dir, rootpath, "scenarios", given_by
        ),
        fixture_manifest=(
            _absolute(
                Path(manifest), config.invocation_params.dir, rootpath, "fixture_manifest", given_by
            )
            if manifest
            else None
        ),
        gate_profile=str(profile or DEFAULT_PROFILE),
        gate_required=profile is not None,
        baseline=str(value("gate_baseline") or DEFAULT_BASELINE),
        candidate=str(value("gate_candidate") or DEFAULT_CANDIDATE),
        baseline_rows=str(value("baseline_rows")) if value("baseline_rows") else None,
        results_dir=_absolute(results, config.invocation_params.dir, rootpath, "results", given_by),
        strict=_as_bool(strict),
        model=str(value("model")) if value("model") else None,
        gh=str(value("gh")) if value("gh") else None,
        mcp_server=str(value("mcp_server")) if value("mcp_server") else None,
        ghx=str(value("ghx")) if value("ghx") else None,
        tables=tables,
        shipped_suite=shipped,
        compare=str(value("compare")) if value("compare") else None,
        compare_fail=_compare_rules(value("compare_fail"), value("compare")),
        budget_usd=_budget(value("budget_usd"), "--ghx-budget-usd", float),
        budget_tokens=_budget(value("budget_tokens"), "--ghx-budget-tokens", int),
        power_effect=_power_effect(value("power_effect")),
    )


def _compare_rules(raw: Any, compare: Any) -> tuple[str, ...]:
    if raw is None:
        return ()
    rules = tuple(r.strip() for r in (raw if isinstance(raw, list) else str(raw).split(",")))
    rules = tuple(r for r in rules if r)
    if rules and not compare:
        raise pytest.UsageError("ghxbench: --ghx-compare-fail needs --ghx-compare=RUN|latest")
    from pytest_ghxbench.compare import parse_fail_rule

    for rule in rules:
        try:
            parse_fail_rule(rule)
        except ValueError as exc:
            raise pytest.UsageError(f"ghxbench: --ghx-compare-fail: {exc}") from None
    return rules


def _budget(raw: Any, flag: str, kind: type[float] | type[int]) -> Any:
    if raw is None:
        return None
    try:
        number = kind(raw)
    except (TypeError, ValueError):
        number = None
    if number is None or not math.isfinite(number) or number <= 0:
        what = "a whole number" if kind is int else "a number"
        raise pytest.UsageError(f"ghxbench: {flag} must be {what} > 0, got {raw!r}")
    return number


def _power_effect(raw: Any) -> float:
    if raw is None:
        return DEFAULT_POWER_EFFECT_PCT
    try:
        number = float(raw)
    except (TypeError, ValueError):
        number = math.nan
    if not 0 <= number < 100:
        raise pytest.UsageError(
            f"ghxbench: --ghx-power-effect must be a percentage from 0 to below 100, got {raw!r}"
        )
    return number


def _absolute(
    path: Path, invocation_dir: Path, rootpath: Path, key: str, given_by: Mapping[str, str]
) -> Path:
    """Command-line paths are relative to where pytest was invoked, config paths to the rootdir."""
    if path.is_absolute():
        return path
    base = invocation_dir if given_by.get(key) == "command line" else rootpath
    return (base / path).resolve()


def _as_bool(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    if raw is None:
        return False
    return str(raw).strip().lower() in {"1", "true", "yes", "on"}


def selected_modes(config: pytest.Config) -> tuple[str, ...]:
    """The modes the session runs, with ``all`` read as every built-in mode (what a backend's
    preflight needs to know before any adapter has said which modes it drives)."""
    modes = resolve_settings(config).modes or ()
    return tuple(dict.fromkeys(KNOWN_MODES if "all" in modes else modes))
