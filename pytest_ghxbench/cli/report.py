"""``ghxbench report``: recompute the summary and the gate from rows files."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

if TYPE_CHECKING:
    from pytest_ghxbench.metrics.gate import RowTable
    from pytest_ghxbench.metrics.profiles import Profile
    from pytest_ghxbench.report.importers import ReadProblem
    from pytest_ghxbench.report.jsonl import RunFields

__all__ = ["UsageError", "add_report_arguments", "run_report"]

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_USAGE = 4


class UsageError(Exception):
    """A problem with the command line or its inputs; exits 4 with the message."""


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the ``report`` subcommand's arguments on ``parser``."""
    parser.add_argument(
        "rows",
        nargs="+",
        metavar="ROWS",
        help="JSONL or CSV rows files, directories of them, or glob patterns",
    )
    parser.add_argument(
        "--gate", action="store_true", help="exit 1 when the gate fails or cannot be evaluated"
    )
    parser.add_argument(
        "--gate-profile",
        default="verify_pr",
        metavar="P",
        help="gate thresholds to apply (default: verify_pr)",
    )
    parser.add_argument(
        "--baseline",
        default="agent_direct",
        metavar="M",
        help="baseline mode of the gate (default: agent_direct)",
    )
    parser.add_argument(
        "--candidate", default="ghx", metavar="M", help="candidate mode of the gate (default: ghx)"
    )
    parser.add_argument(
        "--summary-json", type=Path, metavar="PATH", help="write the summary as JSON to PATH"
    )
    parser.add_argument(
        "--summary-md", type=Path, metavar="PATH", help="write the summary as Markdown to PATH"
    )
    parser.add_argument(
        "--mode-alias",
        action="append",
        default=[],
        metavar="OLD=NEW",
        help="rename a mode while reading (repeatable; baseline=agent_direct and "
        "ghx_router=ghx are applied by default)",
    )
    parser.add_argument(
        "--profiles-from",
        type=Path,
        metavar="PYPROJECT",
        help="add or override profiles from [tool.ghxbench.profiles] of this file",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the bootstrap confidence intervals (default: 0)",
    )
    parser.add_argument(
        "--resamples", type=int, default=10_000, help="bootstrap resamples (default: 10000)"
    )


def _parse_aliases(pairs: Iterable[str]) -> dict[str, str]:
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


def _resolve_profile(
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


def _for_model(
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


def _single_or_list(values: Iterable[Any]) -> Any:
    distinct = sorted({str(value) for value in values if value not in (None, "")})
    if not distinct:
        return None
    return distinct[0] if len(distinct) == 1 else distinct


def _run_info(
    run_fields: Sequence[RunFields], table: RowTable, files: Sequence[Path], profile: str
) -> dict[str, Any]:
    run_ids, commits, adapters, backends = (
        zip(*run_fields, strict=True) if run_fields else ((), (), (), ())
    )
    return {
        "commit": _single_or_list(commits),
        "model": _single_or_list(table.model_signatures),
        "adapter": _single_or_list(adapters),
        "backend": _single_or_list(backends),
        "profile": profile,
        "run_ids": _single_or_list(run_ids),
        "source_files": [str(file) for file in files],
    }


def _write_text(path: Path, text: str, what: str) -> str:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write the {what} to {path}: {exc.strerror or exc}") from None
    return f"wrote {what}: {path}"


def _exit_status(gate: Mapping[str, Any], required: bool) -> tuple[int, str]:
    if gate.get("evaluated") and gate.get("passed"):
        return EXIT_OK, ""
    if required:
        return EXIT_GATE_FAILED, "gate required"
    return EXIT_OK, "gate not required; pass --gate to enforce it"


def _report_problems(problems: Sequence[ReadProblem], err: TextIO) -> None:
    for problem in problems:
        print(str(problem), file=err)
    if problems:
        files = len({problem.path for problem in problems})
        lines = "line" if len(problems) == 1 else "lines"
        noun = "file" if files == 1 else "files"
        print(f"{len(problems)} malformed {lines} skipped in {files} {noun}", file=err)


def _build(
    args: argparse.Namespace,
    table: RowTable,
    run_fields: Sequence[RunFields],
    files: Sequence[Path],
    profile: Profile,
) -> dict[str, Any]:
    from pytest_ghxbench.metrics.summary import build_summary

    return build_summary(
        table,
        profile=profile,
        baseline=args.baseline,
        candidate=args.candidate,
        run_info=_run_info(run_fields, table, files, profile.name),
        seed=args.seed,
        resamples=args.resamples,
    )


class _Outcome(NamedTuple):
    row_count: int
    file_count: int
    summary: dict[str, Any]
    status: int
    detail: str
    written: list[str]


def _summarize(args: argparse.Namespace, err: TextIO) -> _Outcome:
    """Read, summarize, gate and write the requested files; ``UsageError`` on bad input."""
    from pytest_ghxbench.metrics.gate import RowTable
    from pytest_ghxbench.report.jsonl import RowSourceError, read_row_records
    from pytest_ghxbench.report.markdown import render_markdown

    if args.resamples < 1:
        raise UsageError("--resamples must be at least 1")
    if args.baseline == args.candidate:
        raise UsageError(f"--baseline and --candidate are both {args.baseline!r}")
    aliases = _parse_aliases(args.mode_alias)
    profile, expectations = _resolve_profile(args.gate_profile, args.profiles_from)
    try:
        result = read_row_records(args.rows, mode_aliases=aliases)
    except RowSourceError as exc:
        raise UsageError(str(exc)) from None
    _report_problems(result.problems, err)
    if not result.records:
        where = ", ".join(str(file) for file in result.files) or ", ".join(args.rows)
        raise UsageError(f"no readable rows in {where}")
    table = RowTable.from_records(result.records)
    profile = _for_model(profile, expectations, table, args.profiles_from)
    summary = _build(args, table, result.run_fields, result.files, profile)
    gate = summary.get("gate") if isinstance(summary.get("gate"), Mapping) else {}
    status, detail = _exit_status(gate or {}, args.gate)
    written: list[str] = []
    if args.summary_json is not None:
        text = json.dumps(summary, indent=2, ensure_ascii=False, default=str) + "\n"
        written.append(_write_text(args.summary_json, text, "summary JSON"))
    if args.summary_md is not None:
        markdown = render_markdown(summary)
        written.append(_write_text(args.summary_md, markdown, "summary Markdown"))
    return _Outcome(len(result.records), len(result.files), summary, status, detail, written)


def run_report(
    args: argparse.Namespace, *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Run ``ghxbench report`` with parsed ``args``; returns the exit status.

    0: done (and, with ``--gate``, the gate passed); 1: ``--gate`` and the gate failed or was
    not evaluated; 4: usage error (unknown profile, missing path, no readable rows).
    """
    from pytest_ghxbench.report.jsonl import garbage_collection_paused
    from pytest_ghxbench.report.terminal import checks_table, mode_table, verdict_line

    out = out or sys.stdout
    err = err or sys.stderr
    try:
        # The rows live until the report is done; the collector would only rescan them.
        with garbage_collection_paused():
            outcome = _summarize(args, err)
    except UsageError as exc:
        print(f"ghxbench report: error: {exc}", file=err)
        return EXIT_USAGE

    summary = outcome.summary
    print(f"{outcome.row_count} rows from {outcome.file_count} file(s)", file=out)
    for line in mode_table(summary):
        print(line, file=out)
    checks = checks_table(summary)
    if checks:
        print("", file=out)
        for line in checks:
            print(line, file=out)
    print("", file=out)
    for line in outcome.written:
        print(line, file=out)
    print(verdict_line(summary, outcome.status, outcome.detail), file=out)
    return outcome.status
