"""``ghxbench report``: recompute the summary and the gate from rows files."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

from pytest_ghxbench.cli.exits import EXIT_GATE_FAILED, EXIT_OK, EXIT_USAGE, UsageError
from pytest_ghxbench.cli.report_inputs import (
    for_model,
    gate_choice,
    parse_aliases,
    report_problems,
    resolve_profile,
    row_sources,
)

if TYPE_CHECKING:
    from pytest_ghxbench.metrics.profiles import Profile
    from pytest_ghxbench.metrics.table import RowTable
    from pytest_ghxbench.records.jsonl import RunFields
    from pytest_ghxbench.records.models import GateResult, RunSummary
    from pytest_ghxbench.records.store import RunDir

__all__ = ["run_report"]


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


def _exit_status(gate: GateResult, required: bool) -> tuple[int, str]:
    if gate.evaluated and gate.passed:
        return EXIT_OK, ""
    if required:
        return EXIT_GATE_FAILED, "gate required"
    return EXIT_OK, "gate not required; pass --gate to enforce it"


def _build(
    args: argparse.Namespace,
    table: RowTable,
    run_fields: Sequence[RunFields],
    files: Sequence[Path],
    profile: Profile,
) -> RunSummary:
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
    summary: RunSummary
    status: int
    detail: str
    written: list[str]


def _pooling_warning(
    run_fields: Sequence[RunFields], table: RowTable, *, count_runs: bool = True
) -> str | None:
    """A loud line when the rows mix runs, adapters or models: one summary of all of them is
    rarely what was meant."""
    mixed = []
    for noun, values in (
        ("runs", {f.run_id for f in run_fields} if count_runs else set()),
        ("adapters", {str(f.adapter) for f in run_fields if f.adapter}),
        ("models", set(table.model_signatures)),
    ):
        if len(values) > 1:
            shown = ", ".join(sorted(values)[:4]) + (", ..." if len(values) > 4 else "")
            mixed.append(f"{len(values)} {noun} ({shown})")
    if not mixed:
        return None
    return (
        f"WARNING: pooling the rows of {'; '.join(mixed)} into one summary; "
        "name one run (a run id or --latest) to report it alone"
    )


def _refuse_overwriting_inputs(args: argparse.Namespace, files: Sequence[Path]) -> None:
    read = {file.resolve() for file in files}
    for flag, target in (("--summary-json", args.summary_json), ("--summary-md", args.summary_md)):
        if target is not None and Path(target).resolve() in read:
            raise UsageError(f"{flag} {target} is one of the rows files being read")


def _summarize(args: argparse.Namespace, err: TextIO) -> _Outcome:
    """Read, summarize, gate and write the requested files; ``UsageError`` on bad input."""
    from pytest_ghxbench.metrics.table import RowTable
    from pytest_ghxbench.records.jsonl import RowSourceError, read_row_records
    from pytest_ghxbench.render.markdown import render_markdown

    if args.resamples < 1:
        raise UsageError("--resamples must be at least 1")
    paths, runs = row_sources(args)
    args.gate_profile, args.baseline, args.candidate = gate_choice(args, runs)
    if args.baseline == args.candidate:
        raise UsageError(f"--baseline and --candidate are both {args.baseline!r}")
    aliases = parse_aliases(args.mode_alias)
    profile, expectations = resolve_profile(args.gate_profile, args.profiles_from)
    try:
        result = read_row_records(paths, mode_aliases=aliases)
    except RowSourceError as exc:
        raise UsageError(str(exc)) from None
    _refuse_overwriting_inputs(args, result.files)
    report_problems(result.problems, err)
    for repeat in result.warnings:
        print(f"ghxbench report: WARNING: {repeat}", file=err)
    if not result.records:
        where = ", ".join(str(file) for file in result.files) or ", ".join(paths)
        raise UsageError(f"no readable rows in {where}")
    table = RowTable.from_records(result.records)
    # a merged run's rows keep their shards' run ids: one sealed run, not a pool
    whole = len(runs) == 1 and len(result.files) == 1
    warning = _pooling_warning(result.run_fields, table, count_runs=not whole)
    if warning:
        print(f"ghxbench report: {warning}", file=err)
    profile = for_model(profile, expectations, table, args.profiles_from)
    summary = _build(args, table, result.run_fields, result.files, profile)
    if len(runs) == 1:
        _keep_reported_extras(runs[0], summary)
    _withhold_for_unfinished_runs(result.files, summary, err)
    _withhold_unverified(result.files, summary, err, allowed=args.allow_unverified)
    status, detail = _exit_status(summary.gate, args.gate)
    written: list[str] = []
    if args.summary_json is not None:
        document = summary.to_json_dict()
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        written.append(_write_text(args.summary_json, text, "summary JSON"))
    if args.summary_md is not None:
        markdown = render_markdown(summary)
        written.append(_write_text(args.summary_md, markdown, "summary Markdown"))
    return _Outcome(len(result.records), len(result.files), summary, status, detail, written)


def _withhold_for_unfinished_runs(files: Sequence[Path], summary: RunSummary, err: TextIO) -> None:
    """An incomplete or unfinished run never reads as a pass: the gate recomputed from its
    rows is marked failed (its checks stay as computed), after a WARNING line per run."""
    from pytest_ghxbench.records.reading import unfinished_runs

    warnings, completeness = unfinished_runs(files)
    if completeness is not None:
        summary.run["completeness"] = completeness
    for warning in warnings:
        print(f"ghxbench report: WARNING: {warning}", file=err)
    gate = summary.gate
    if warnings:
        if gate.evaluated and gate.passed:
            gate.passed = False
            gate.reason = "; ".join(warnings) + "; the checks over its rows passed"
        elif not gate.evaluated:
            gate.reason = "; ".join([gate.reason, *warnings]).lstrip("; ")


def _withhold_unverified(
    files: Sequence[Path], summary: RunSummary, err: TextIO, *, allowed: bool
) -> None:
    """Rows that are not one whole, sealed run's (module run.integrity) are reported as
    unverified, and their gate does not pass unless ``--allow-unverified`` is given."""
    from pytest_ghxbench.runs.integrity import verify_rows_files

    verification = verify_rows_files(files)
    if verification.verified:
        return
    summary.run["unverified"] = verification.problems
    for problem in verification.problems:
        print(f"ghxbench report: UNVERIFIED: {problem}", file=err)
    if allowed:
        print("ghxbench report: WARNING: unverified rows reported (--allow-unverified)", file=err)
        return
    gate = summary.gate
    if gate.evaluated and gate.passed:
        gate.passed = False
        gate.reason = (
            f"unverified: {'; '.join(verification.problems)}; the checks over the rows "
            "passed (--allow-unverified reports them anyway)"
        )


def _keep_reported_extras(run: RunDir, summary: RunSummary) -> None:
    """What the adapter reported in the session and rows do not hold (the tool surface each
    mode shows the agent) comes from the run's own summary."""
    try:
        recorded = run.read_summary()
    except ValueError:
        return
    if recorded is None:
        return
    for mode, metrics in summary.modes.items():
        surface = recorded.modes.get(mode, {}).get("tool_surface_tokens")
        if surface is not None:
            metrics["tool_surface_tokens"] = surface


def run_report(
    args: argparse.Namespace, *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Run ``ghxbench report`` with parsed ``args``; returns the exit status.

    0: done (and, with ``--gate``, the gate passed); 1: ``--gate`` and the gate failed or was
    not evaluated; 4: usage error (unknown profile, missing path, no readable rows).
    """
    from pytest_ghxbench.records.jsonl import garbage_collection_paused
    from pytest_ghxbench.render.gaps import gap_lines
    from pytest_ghxbench.render.terminal import checks_table, mode_table, verdict_line

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
    for line in gap_lines(summary):
        print(line, file=out)
    print(verdict_line(summary, outcome.status, outcome.detail), file=out)
    return outcome.status
