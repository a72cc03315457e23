"""``ghxbench merge RUN_DIR... [--out DIR]``: one run directory from the shards of one plan,
with its summary, report and gate evaluated once (module :mod:`pytest_ghxbench.runs.merge`)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from pytest_ghxbench.cli.exits import EXIT_USAGE, UsageError
from pytest_ghxbench.cli.report_args import add_results_argument
from pytest_ghxbench.records.models import RunSummary
from pytest_ghxbench.records.store import RunDir, point_latest, runs_root, write_text_atomic

__all__ = ["add_merge_arguments", "run_merge"]


def add_merge_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "runs",
        nargs="+",
        type=Path,
        metavar="RUN_DIR",
        help="run directories of one plan (e.g. the shards of a CI matrix), or directories "
        "holding them",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="the merged run directory (new or empty; default: a new run under --results, "
        "which becomes 'latest')",
    )
    add_results_argument(parser)
    parser.add_argument(
        "--allow-unverified",
        action="store_true",
        help="take in runs whose rows are unverified (the merged run never passes)",
    )
    parser.add_argument(
        "--no-report",
        action="store_true",
        help="do not render report.html (ghxbench view renders it when first opened); for "
        "very large runs, where the page takes long",
    )


def _out_dir(args: argparse.Namespace, run_id: str) -> RunDir:
    target: Path = args.out if args.out is not None else runs_root(args.results) / run_id
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise UsageError(f"--out {target} exists and is not empty: give a new directory")
    target.mkdir(parents=True, exist_ok=True)
    return RunDir(target)


def _merge(args: argparse.Namespace, err: TextIO) -> tuple[RunSummary, int, str, RunDir]:
    from pytest_ghxbench.records.store import new_run_id
    from pytest_ghxbench.runs.merge import MergeError, merged_plan, read_sources, write_merged_rows

    try:
        sources = read_sources(args.runs)
    except MergeError as exc:
        raise UsageError(str(exc)) from None
    taken = []
    for source in sources:
        if source.problem is None or args.allow_unverified:
            taken.append(source)
            if source.problem is not None:
                print(f"ghxbench merge: UNVERIFIED (taken in): {source.problem}", file=err)
        else:
            print(
                f"ghxbench merge: WARNING: {source.label} left out: {source.problem} (resume "
                "it with pytest ... --ghx-resume, or run the shard again)",
                file=err,
            )
    out = _out_dir(args, new_run_id())
    run_id = out.run_id if args.out is not None else out.path.name
    items = write_merged_rows(taken, out) if taken else []
    if not taken:
        out.rows_path.touch()
    plan = merged_plan(sources, taken, items, run_id)
    out.write_spec(plan.spec)
    unverified = [s.problem for s in taken if s.problem is not None]
    summary, status, why = _summarize(out, plan, unverified, sources)
    return summary, status, why, out


def _summarize(
    out: RunDir, plan: Any, unverified: list[str], sources: Sequence[Any]
) -> tuple[RunSummary, int, str]:
    from pytest_ghxbench.hooks.session_end import compute_exit_status, withhold_pass
    from pytest_ghxbench.metrics.profiles import BUILTIN_PROFILES, Profile
    from pytest_ghxbench.metrics.summary import build_summary
    from pytest_ghxbench.metrics.table import RowTable
    from pytest_ghxbench.records.jsonl import read_row_records
    from pytest_ghxbench.runs.integrity import seal_summary

    spec = plan.spec
    recorded = getattr(spec, "profile", None)
    if isinstance(recorded, dict):
        profile = Profile(
            recorded["name"],
            recorded["thresholds"],
            recorded["min_samples_per_scenario_per_mode"],
            method=recorded.get("method", "point"),
        )
    else:
        profile = BUILTIN_PROFILES.get(
            spec.gate_profile or "verify_pr", BUILTIN_PROFILES["verify_pr"]
        )
    read = read_row_records([out.rows_path])
    table = RowTable.from_records(read.records)
    run_info = {
        "run_id": spec.run_id,
        "commit": spec.git.commit,
        "model": spec.model,
        "adapter": spec.adapter,
        "backend": spec.backend,
        "profile": profile.name,
        "gate_required": spec.gate_required,
        "modes": list(spec.modes),
        "reps": spec.reps,
        "scenario_set": spec.scenario_set,
        "run_dir": str(out.path),
        "rows_file": str(out.rows_path),
        "merged_from": [entry["run_id"] for entry in (spec.model_extra or {})["merged_from"]],
        "row_count": len(read.records),
    }
    summary = build_summary(
        table,
        profile=profile,
        baseline=spec.baseline or "agent_direct",
        candidate=spec.candidate or "ghx",
        run_info=run_info,
    )
    _tool_surface(summary, sources)
    summary.run["completeness"] = plan.completeness.block()
    missing = [name.rsplit("::", 1)[-1] for name in plan.completeness.missing_names()]
    if missing:
        summary.run["missing_examples"] = missing
    if plan.harness_errors:
        summary.run["harness_errors"] = plan.harness_errors
    seal_summary(summary, out.rows_path, unverified)
    blockers = "; ".join(
        note
        for note in (
            plan.completeness.note(),
            f"harness error: {len(plan.harness_errors)} in the merged runs"
            if plan.harness_errors
            else "",
            f"unverified: {'; '.join(unverified)}" if unverified else "",
        )
        if note
    )
    withheld = withhold_pass(summary.gate, blockers)
    failed = sum(1 for record in read.records if not (record.success and record.output_valid))
    status, why = compute_exit_status(
        summary.gate.model_copy(update={"passed": True}) if withheld else summary.gate,
        current=0,
        required=spec.gate_required,
        strict=bool(getattr(spec, "strict", False)),
        failed_items=failed,
        other_failures=0,
        blockers=blockers,
    )
    if withheld:
        why = why.removeprefix(blockers).removeprefix("; ")
    from pytest_ghxbench.render.terminal import verdict_line

    summary.run["exit_status"] = status
    summary.run["verdict"] = verdict_line(summary, status, why)
    return summary, status, why


def _tool_surface(summary: RunSummary, sources: Sequence[Any]) -> None:
    """What each mode shows the agent before any task, as the merged runs' summaries said."""
    for source in sources:
        if source.summary is None:
            continue
        for mode, metrics in summary.modes.items():
            surface = source.summary.modes.get(mode, {}).get("tool_surface_tokens")
            if surface is not None:
                metrics.setdefault("tool_surface_tokens", surface)


def _write_outputs(
    out: RunDir, summary: RunSummary, results: Path, *, report: bool = True
) -> list[str]:
    from pytest_ghxbench.render.html.run_report import write_run_report
    from pytest_ghxbench.render.markdown import render_markdown

    out.write_summary(summary)
    markdown = render_markdown(summary)
    write_text_atomic(out.summary_md, markdown)
    if out.path.parent.resolve() == runs_root(results).resolve():
        point_latest(results, out)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as handle:
            handle.write(markdown.rstrip("\n") + "\n\n")
    if not report:
        return ["report: not rendered (--no-report); ghxbench view renders it"]
    try:
        return [f"report: {write_run_report(out)}"]
    except Exception as exc:  # a report that cannot be made is said, and decides nothing
        return [f"report.html not written: {type(exc).__name__}: {exc}"]


def run_merge(
    args: argparse.Namespace, *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Merge; the exit status is the merged run's verdict (0 passed, 1 not), 4 on bad input."""
    from pytest_ghxbench.records.jsonl import garbage_collection_paused
    from pytest_ghxbench.render.gaps import gap_lines
    from pytest_ghxbench.render.terminal import checks_table, mode_table, verdict_line

    out = out or sys.stdout
    err = err or sys.stderr
    try:
        with garbage_collection_paused():
            summary, status, why, run = _merge(args, err)
            notes = _write_outputs(run, summary, args.results, report=not args.no_report)
    except UsageError as exc:
        print(f"ghxbench merge: error: {exc}", file=err)
        return EXIT_USAGE
    completeness = summary.run["completeness"]
    print(
        f"merged {len(summary.run['merged_from'])} run(s): {summary.run['row_count']} rows "
        f"of a plan of {completeness['expected_items']} items",
        file=out,
    )
    for line in mode_table(summary):
        print(line, file=out)
    checks = checks_table(summary)
    if checks:
        print("", file=out)
        for line in checks:
            print(line, file=out)
    print("", file=out)
    if not completeness["complete"]:
        missing = summary.run.get("missing_examples") or []
        shown = f": {', '.join(missing)}" + (
            " ..." if completeness["missing_items"] > len(missing) else ""
        )
        print(
            f"incomplete: {completeness['missing_items']} item(s) of the plan without a row "
            f"({completeness['reason']}){shown if missing else ''}; run them with the shard's "
            f"command plus --ghx-resume={run.path}",
            file=out,
        )
    print(f"run: {run.path}", file=out)
    for note in notes:
        print(note, file=out)
    for line in gap_lines(summary):
        print(line, file=out)
    verdict = verdict_line(summary, status, why)
    print(verdict, file=out)
    return status
