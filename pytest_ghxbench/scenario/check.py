"""``ghxbench check [PATHS]``: validate scenario files and sets without running anything."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from pytest_ghxbench.scenario.loader import ScenarioError, load_catalog, load_scenario_file
from pytest_ghxbench.scenario.models import Scenario
from pytest_ghxbench.scenario.sets import SETS_BASENAME, read_sets

__all__ = ["DEFAULT_ROOT", "run_check"]

DEFAULT_ROOT = Path("scenarios")


class _Tally:
    def __init__(self) -> None:
        self.scenarios: dict[str, Path] = {}
        self.sets = 0
        self.problems: list[ScenarioError] = []

    def add_scenario(self, scenario: Scenario, path: Path) -> None:
        first = self.scenarios.get(scenario.id)
        if first is not None and first != path:
            self.problems.append(
                ScenarioError(
                    path, f"duplicate scenario id {scenario.id!r} in {first} and {path}", "id"
                )
            )
            return
        self.scenarios[scenario.id] = path

    def check_directory(self, root: Path) -> None:
        catalog = load_catalog(root)
        for loaded in catalog.scenarios.values():
            self.add_scenario(loaded.scenario, loaded.path)
        self.sets += len(catalog.sets)
        self.problems.extend(catalog.errors)

    def check_sets_file(self, path: Path) -> None:
        known = load_catalog(path.parent).scenarios.keys()
        sets, problems = read_sets(path.parent, known)
        self.sets += len(sets)
        self.problems.extend(problems)

    def check_file(self, path: Path) -> None:
        try:
            self.add_scenario(load_scenario_file(path), path)
        except ScenarioError as exc:
            self.problems.extend(exc.split())


def run_check(paths: Sequence[Path], out: TextIO) -> int:
    """Validate each path (a scenario root directory or a single scenario or sets file;
    default ``scenarios``), print one ``path:line: field: message`` line per problem and a
    summary line, and return 0 when there is no problem, else 1."""
    tally = _Tally()
    for target in paths or [DEFAULT_ROOT]:
        if target.is_dir():
            tally.check_directory(target)
        elif target.is_file() and target.name.startswith(f"{SETS_BASENAME}."):
            tally.check_sets_file(target)
        elif target.is_file():
            tally.check_file(target)
        else:
            tally.problems.append(ScenarioError(target, "no such file or directory"))
    for problem in tally.problems:
        print(problem.location_line(), file=out)
    print(
        f"{_count(len(tally.scenarios), 'scenario')}, {_count(tally.sets, 'set')}, "
        f"{_count(len(tally.problems), 'problem')}",
        file=out,
    )
    return 1 if tally.problems else 0


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
