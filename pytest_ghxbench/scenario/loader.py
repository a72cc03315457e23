"""Loading scenario files and whole scenario directories, with errors that say what to fix."""

from __future__ import annotations

import difflib
import os
import typing
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from pytest_ghxbench.scenario.documents import (
    JSON_SUFFIXES,
    YAML_SUFFIXES,
    ScenarioError,
    format_field,
    read_document,
    show_value,
)
from pytest_ghxbench.scenario.models import AtomicScenario, Scenario, WorkflowScenario
from pytest_ghxbench.scenario.sets import SETS_BASENAME, read_sets

__all__ = [
    "LoadedScenario",
    "ScenarioCatalog",
    "ScenarioError",
    "is_scenario_file",
    "load_catalog",
    "load_scenario_file",
    "load_sets",
    "parse_scenario",
]

SCENARIO_SUFFIXES = YAML_SUFFIXES + JSON_SUFFIXES
_SKIPPED_DIRECTORY = "fixtures"

# Plain-language versions of pydantic's type errors (its wording says "dictionary" and the like).
_TYPE_MESSAGES = {
    "dict_type": "must be an object (a mapping of keys to values)",
    "model_type": "must be an object (a mapping of keys to values)",
    "model_attributes_type": "must be an object (a mapping of keys to values)",
    "list_type": "must be a list",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "bool_type": "must be true or false",
}


@dataclass
class LoadedScenario:
    """A scenario together with the file it came from."""

    path: Path
    scenario: Scenario


@dataclass
class ScenarioCatalog:
    """Every scenario under a root, the sets, and every problem found while loading them."""

    root: Path
    scenarios: dict[str, LoadedScenario] = field(default_factory=dict)
    sets: dict[str, list[str]] = field(default_factory=dict)
    errors: list[ScenarioError] = field(default_factory=list)

    def set_of(self, scenario_id: str) -> str | None:
        """The first set (in file order) that lists ``scenario_id``, or ``None``."""
        for name, ids in self.sets.items():
            if scenario_id in ids:
                return name
        return None


def parse_scenario(data: Any, *, path: Path, lines: Mapping[str, int] | None = None) -> Scenario:
    """Validate parsed file content as a scenario.

    Raises :class:`ScenarioError` whose ``problems`` hold every field error found, each with
    its field path, the line of that field when ``lines`` knows it, and what was expected.
    """
    lines = lines or {}
    if data is None:
        raise ScenarioError(path, "file is empty; expected a mapping of scenario fields")
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else f"a {type(data).__name__}"
        raise ScenarioError(path, f"top level must be a mapping of scenario fields, got {kind}")
    model = _model_for(data, path, lines)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = [_problem(error, model, path, lines) for error in exc.errors()]
        problems.sort(key=lambda problem: problem.line or 0)
        raise ScenarioError.combine(problems) from None


def load_scenario_file(path: Path) -> Scenario:
    """Read and validate one ``*.yaml``, ``*.yml`` or ``*.json`` scenario file."""
    return _load_with_lines(path)[0]


def is_scenario_file(path: Path, root: Path) -> bool:
    """Whether ``path`` is a scenario file of the root: YAML or JSON, not a sets file, not
    hidden, and not inside a ``fixtures`` directory."""
    try:
        relative = path.relative_to(root)
    except ValueError:
        try:  # one side may be relative or go through a symlink
            relative = path.resolve().relative_to(root.resolve())
        except ValueError:
            return False
    if path.suffix.lower() not in SCENARIO_SUFFIXES or not relative.parts:
        return False
    if path.name.startswith(f"{SETS_BASENAME}."):
        return False
    if any(part.startswith(".") for part in relative.parts):
        return False
    return _SKIPPED_DIRECTORY not in relative.parts[:-1]


def load_sets(root: Path, known_ids: Collection[str] | None = None) -> dict[str, list[str]]:
    """The sets file beside the scenarios (``scenario-sets.yaml``/``.yml``/``.json`` in
    ``root``): set name -> scenario ids. No file means no sets. Raises :class:`ScenarioError`
    for a malformed file or (with ``known_ids``) an id that does not exist."""
    sets, problems = read_sets(root, known_ids)
    if problems:
        raise ScenarioError.combine(problems)
    return sets


def load_catalog(root: Path) -> ScenarioCatalog:
    """Load every scenario under ``root`` (recursively, in sorted order) and the sets file,
    collecting all problems in ``errors`` instead of stopping at the first."""
    catalog = ScenarioCatalog(root=root)
    if not root.is_dir():
        reason = "is not a directory" if root.exists() else "does not exist"
        catalog.errors.append(ScenarioError(root, f"scenario root {reason}"))
        return catalog
    for path in _scenario_files(root):
        try:
            scenario, lines = _load_with_lines(path)
        except ScenarioError as exc:
            catalog.errors.extend(exc.split())
            continue
        first = catalog.scenarios.get(scenario.id)
        if first is not None:
            catalog.errors.append(
                ScenarioError(
                    path,
                    f"duplicate scenario id {scenario.id!r} in {first.path} and {path}",
                    field="id",
                    line=lines.get("id"),
                )
            )
            continue
        catalog.scenarios[scenario.id] = LoadedScenario(path=path, scenario=scenario)
    catalog.sets, set_problems = read_sets(root, catalog.scenarios.keys())
    catalog.errors.extend(set_problems)
    return catalog


def _scenario_files(root: Path) -> Iterator[Path]:
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(
            name
            for name in subdirectories
            if not name.startswith(".") and name != _SKIPPED_DIRECTORY
        )
        for name in sorted(files):
            path = Path(directory) / name
            if is_scenario_file(path, root):
                yield path


def _load_with_lines(path: Path) -> tuple[Scenario, dict[str, int]]:
    if path.suffix.lower() not in SCENARIO_SUFFIXES:
        raise ScenarioError(
            path, f"unsupported file type {path.suffix or '(none)'!r}; use .yaml, .yml or .json"
        )
    data, lines = read_document(path)
    return parse_scenario(data, path=path, lines=lines), lines


def _model_for(
    data: dict[str, Any], path: Path, lines: Mapping[str, int]
) -> type[AtomicScenario] | type[WorkflowScenario]:
    kind = data.get("type", "atomic")
    if kind == "atomic":
        if "type" not in data and "prompt" in data and "prompt_template" not in data:
            raise ScenarioError(
                path,
                "missing; the file has 'prompt', so it looks like a workflow scenario: "
                "add 'type: workflow'",
                field="type",
            )
        return AtomicScenario
    if kind == "workflow":
        return WorkflowScenario
    raise ScenarioError(
        path,
        f"must be 'atomic' or 'workflow' (or absent for atomic), got {show_value(kind)}",
        field="type",
        line=lines.get("type"),
    )


def _problem(
    error: ErrorDetails, model: type[BaseModel], path: Path, lines: Mapping[str, int]
) -> ScenarioError:
    loc = [part for part in error["loc"] if part != "[key]"]
    return ScenarioError(
        path,
        _describe(error, model, loc),
        field=format_field(loc) or None,
        line=_line_of(loc, lines),
    )


def _describe(error: ErrorDetails, model: type[BaseModel], loc: Sequence[str | int]) -> str:
    kind = error["type"]
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        allowed = _fields_at(model, loc[:-1])
        unknown = str(loc[-1])
        if not allowed:
            return "unknown field"
        close = difflib.get_close_matches(unknown, allowed, n=1)
        if close:
            return f"unknown field; did you mean {close[0]!r}?"
        return f"unknown field; allowed fields: {', '.join(allowed)}"
    if kind == "value_error":
        return str(error.get("ctx", {}).get("error", error["msg"]))
    message = _TYPE_MESSAGES.get(kind, error["msg"])
    if message.startswith("Input should be"):
        message = "must be" + message[len("Input should be") :]
    return f"{message}, got {show_value(error['input'])}"


def _fields_at(model: type[BaseModel], loc: Sequence[str | int]) -> list[str]:
    """Field names of the model found at ``loc`` inside ``model`` (empty if not a model)."""
    current: type[BaseModel] | None = model
    for part in loc:
        if isinstance(part, int) or current is None:
            continue
        info = current.model_fields.get(part)
        current = _model_in(info.annotation) if info is not None else None
    return list(current.model_fields) if current is not None else []


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for argument in typing.get_args(annotation):
        found = _model_in(argument)
        if found is not None:
            return found
    return None


def _line_of(loc: Sequence[str | int], lines: Mapping[str, int]) -> int | None:
    """Line of the field, else of its nearest enclosing field present in the file."""
    for end in range(len(loc), 0, -1):
        line = lines.get(format_field(loc[:end]))
        if line is not None:
            return line
    return None
