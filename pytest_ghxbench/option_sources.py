"""The option values as given on the command line, in the ini file and in ``[tool.ghxbench]``
(of the ``pyproject.toml``), and where each was written; :mod:`pytest_ghxbench.options`
resolves them into settings."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from pytest_ghxbench.option_specs import CONFIG_TABLES, OPTIONS

__all__ = ["COMMAND_LINE", "GivenOptions", "read_tool_table", "shown"]


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
COMMAND_LINE, _INI, _TABLE = "command line", "ini", "[tool.ghxbench]"


class GivenOptions:
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
        for source, values in ((COMMAND_LINE, self.cli), (_INI, self.ini), (_TABLE, self.table)):
            raw = values.get(key)
            if raw is not None and raw != "" and raw != []:
                self.source[key] = source
                return raw
        return None

    def where(self, key: str) -> str:
        """``--reps``, ``/p/pytest.ini: ghx_reps`` or ``/p/pyproject.toml: [tool.ghxbench]
        reps``: where the value of ``key`` was written."""
        spec = _SPECS[key]
        source = self.source.get(key, COMMAND_LINE)
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
                f"ghxbench: {self.where(key)} must be a string, got {shown(raw)}"
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
                f"ghxbench: {self.where(key)} must be a whole number >= {minimum}, got {shown(raw)}"
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
            f"ghxbench: {self.where(key)} must be true or false, got {shown(raw)}"
        )


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def shown(raw: Any) -> str:
    return (
        repr(raw)
        if isinstance(raw, str)
        else str(raw).lower()
        if isinstance(raw, bool)
        else str(raw)
    )
