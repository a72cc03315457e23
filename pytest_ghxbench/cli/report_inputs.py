"""What ``ghxbench report`` and ``ghxbench power`` read: the rows (files, run directories, run
ids or ``--latest``), the gate profile with its model expectations, baseline and candidate, and
mode aliases; and how the malformed lines skipped while reading are reported."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from pytest_ghxbench.cli.exits import UsageError

if TYPE_CHECKING:
    from pytest_ghxbench.metrics.profiles import Profile
    from pytest_ghxbench.metrics.table import RowTable
    from pytest_ghxbench.records.importers import ReadProblem
    from pytest_ghxbench.records.store import RunDir

__all__ = [
    "for_model",
    "gate_choice",
    "parse_aliases",
    "report_problems",
    "resolve_profile",
    "row_sources",
]


def parse_aliases(pairs: Iterable[str]) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for pair in pairs:
        old, equals, new = pair.partition("=")
        if not equals or not old.strip() or not new.strip():
            raise UsageError(f"--mode-alias expects OLD=NEW, got {pair!r}")
        aliases[old.strip()] = new.strip()
    return aliases


def _load_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]
    try:
        with path.open("rb") as handle:
            loaded: dict[str, Any] = tomllib.load(handle)
            return loaded
    except FileNotFoundError:
        raise UsageError(f"--profiles-from: no such file: {path}") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"--profiles-from: cannot read {path}: {exc}") from None


def resolve_profile(
    name: str, profiles_from: Path | None
) -> tuple[Profile, Mapping[str, Any] | None]:
    """The named profile and the model expectations table of ``profiles_from`` (if any)."""
    from pytest_ghxbench.metrics.profiles import BUILTIN_PROFILES, ProfileError, build_profiles

    profiles: Mapping[str, Profile] = BUILTIN_PROFILES
    expectations: Mapping[str, Any] | None = None
    if profiles_from is not None:
        config = _load_toml(profiles_from).get("tool", {}).get("ghxbench", {})
        table = config.get("profiles", {})
        expectations = config.get("expectations")
        if not isinstance(table, Mapping):
            raise UsageError(f"{profiles_from}: [tool.ghxbench.profiles] must be a table")
        try:
            profiles = build_profiles(overrides=table)
        except ProfileError as exc:
            raise UsageError(f"{profiles_from}: {exc}") from None
    if name not in profiles:
        valid = ", ".join(sorted(profiles))
        raise UsageError(f"unknown gate profile {name!r}; valid profiles: {valid}")
    return profiles[name], expectations


def for_model(
    profile: Profile, expectations: Mapping[str, Any] | None, table: RowTable, source: Any
) -> Profile:
    """Apply the expectations table for the rows' model (only when all rows share one)."""
    from pytest_ghxbench.metrics.profiles import ProfileError, apply_model_expectations

    models = table.model_signatures
    model = models[0] if len(models) == 1 else None
    try:
        return apply_model_expectations(profile, expectations, model)
    except ProfileError as exc:
        raise UsageError(f"{source}: {exc}") from None


def report_problems(problems: Sequence[ReadProblem], err: TextIO) -> None:
    for problem in problems:
        print(str(problem), file=err)
    if problems:
        files = len({problem.path for problem in problems})
        lines = "line" if len(problems) == 1 else "lines"
        noun = "file" if files == 1 else "files"
        print(f"{len(problems)} malformed {lines} skipped in {files} {noun}", file=err)


def row_sources(args: argparse.Namespace) -> tuple[list[str], list[RunDir]]:
    """The paths to read, and the run directories among them (named by id, path or --latest)."""
    from pytest_ghxbench.records.store import LATEST, RunDir, RunNotFound, resolve_run

    refs = [*args.rows, *([LATEST] if args.latest else [])]
    if not refs:
        raise UsageError("give rows files, run ids or --latest")
    paths: list[str] = []
    runs: list[RunDir] = []
    for ref in refs:
        path = Path(ref)
        if path.is_dir() and (path / "rows.jsonl").is_file():
            runs.append(RunDir(path))
            paths.append(str(path / "rows.jsonl"))
        elif path.exists() or set(ref) & set("*?["):
            paths.append(ref)
        else:
            try:
                run = resolve_run(args.results, ref)
            except RunNotFound as exc:
                if ref == LATEST:
                    raise UsageError(str(exc)) from None
                if path.suffix or len(path.parts) > 1:
                    raise UsageError(f"no such file or directory: {ref}") from None
                raise UsageError(f"no such file, directory or run id: {ref} ({exc})") from None
            runs.append(run)
            paths.append(str(run.rows_path))
    return paths, runs


def gate_choice(args: argparse.Namespace, runs: Sequence[RunDir]) -> tuple[str, str, str]:
    """Profile, baseline and candidate: as given, else the one run's own, else the defaults."""
    spec = None
    if len(runs) == 1:
        try:
            spec = runs[0].read_spec()
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    return (
        args.gate_profile or (spec and spec.gate_profile) or "verify_pr",
        args.baseline or (spec and spec.baseline) or "agent_direct",
        args.candidate or (spec and spec.candidate) or "ghx",
    )
