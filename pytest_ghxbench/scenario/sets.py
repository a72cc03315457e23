"""Scenario sets: ``scenario-sets.yaml`` (or ``.yml``/``.json``) maps set name -> scenario ids."""

from __future__ import annotations

import difflib
from collections.abc import Collection
from pathlib import Path

from pytest_ghxbench.scenario.documents import (
    JSON_SUFFIXES,
    YAML_SUFFIXES,
    ScenarioError,
    format_field,
    read_document,
)

__all__ = ["SETS_BASENAME", "find_sets_files", "read_sets"]

SETS_BASENAME = "scenario-sets"


def find_sets_files(root: Path) -> list[Path]:
    """The sets files present directly in ``root`` (normally zero or one)."""
    candidates = [root / f"{SETS_BASENAME}{suffix}" for suffix in YAML_SUFFIXES + JSON_SUFFIXES]
    return [path for path in candidates if path.is_file()]


def read_sets(
    root: Path, known_ids: Collection[str] | None = None
) -> tuple[dict[str, list[str]], list[ScenarioError]]:
    """Read the sets file of ``root``, returning the sets and every problem found.

    A set keeps its valid ids even when some of its entries are wrong, so one bad entry does
    not hide the rest. With ``known_ids``, an id that is not among them is a problem.
    """
    files = find_sets_files(root)
    if not files:
        return {}, []
    path = files[0]
    problems: list[ScenarioError] = []
    if len(files) > 1:
        others = " and ".join(str(other) for other in files[1:])
        problems.append(ScenarioError(path, f"more than one sets file ({others} too); keep one"))
    try:
        data, lines = read_document(path)
    except ScenarioError as exc:
        return {}, problems + exc.split()
    if data is None:
        return {}, problems
    if not isinstance(data, dict):
        problems.append(
            ScenarioError(path, "top level must be a mapping of set name -> list of scenario ids")
        )
        return {}, problems

    sets: dict[str, list[str]] = {}
    for name, ids in data.items():
        line = lines.get(format_field([str(name)]))
        if not isinstance(name, str) or not name.strip():
            problems.append(
                ScenarioError(path, f"set name must be a non-empty string, got {name!r}", line=line)
            )
            continue
        if not isinstance(ids, list):
            problems.append(
                ScenarioError(
                    path,
                    f"set {name!r} must be a list of scenario ids, got {type(ids).__name__}",
                    field=name,
                    line=line,
                )
            )
            continue
        sets[name] = []
        for index, scenario_id in enumerate(ids):
            where = format_field([name, index])
            problem = _entry_problem(name, scenario_id, sets[name], known_ids)
            if problem is None:
                sets[name].append(scenario_id)
            else:
                problems.append(
                    ScenarioError(path, problem, field=where, line=lines.get(where, line))
                )
    return sets, problems


def _entry_problem(
    set_name: str, scenario_id: object, accepted: list[str], known_ids: Collection[str] | None
) -> str | None:
    if not isinstance(scenario_id, str):
        return f"set {set_name!r}: entries must be scenario ids (strings), got {scenario_id!r}"
    if scenario_id in accepted:
        return f"set {set_name!r} lists {scenario_id!r} twice"
    if known_ids is not None and scenario_id not in known_ids:
        message = f"set {set_name!r} lists unknown scenario id {scenario_id!r}"
        close = difflib.get_close_matches(scenario_id, list(known_ids), n=1, cutoff=0.8)
        return message + (f"; did you mean {close[0]!r}?" if close else "")
    return None
