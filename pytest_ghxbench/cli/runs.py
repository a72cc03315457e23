"""``ghxbench compare``: two run directories (``runs/<run_id>/``), scenario by scenario."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from pytest_ghxbench.cli.exits import EXIT_GATE_FAILED, EXIT_OK, EXIT_USAGE, UsageError
from pytest_ghxbench.cli.report_args import add_results_argument
from pytest_ghxbench.records.store import RunDir, RunNotFound, resolve_run

if TYPE_CHECKING:
    from pytest_ghxbench.compare import Comparison
    from pytest_ghxbench.metrics.table import RowTable

__all__ = [
    "add_compare_arguments",
    "compare_run_dirs",
    "read_run_table",
    "run_compare",
]


def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("base", metavar="RUN_A", help="the earlier run: id, directory or 'latest'")
    parser.add_argument("run", metavar="RUN_B", help="the later run: id, directory or 'latest'")
    add_results_argument(parser)
    parser.add_argument(
        "--fail",
        action="append",
        default=[],
        metavar="METRIC:PCT",
        help="exit 1 when METRIC regressed by more than PCT beyond the noise "
        "(tokens_active, latency_ms, tool_calls, cost, success_rate; repeatable)",
    )
    parser.add_argument(
        "--all", action="store_true", help="show every entry, not only changes beyond the noise"
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the comparison as JSON")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    parser.add_argument(
        "--resamples", type=int, default=10_000, help="bootstrap resamples (default: 10000)"
    )


def _resolve(results: Path, ref: str) -> RunDir:
    try:
        return resolve_run(results, ref)
    except RunNotFound as exc:
        raise UsageError(str(exc)) from None


def read_run_table(run: RunDir) -> RowTable:
    """The run's rows as a :class:`RowTable`; malformed lines are a usage error naming them."""
    from pytest_ghxbench.metrics.table import RowTable
    from pytest_ghxbench.records.jsonl import read_row_records

    result = read_row_records([run.rows_path])
    if result.problems:
        raise UsageError("; ".join(str(problem) for problem in result.problems[:3]))
    if not result.records:
        raise UsageError(f"run {run.run_id} has no rows ({run.rows_path})")
    return RowTable.from_records(result.records)


def compare_run_dirs(
    base: RunDir, run: RunDir, rules: Sequence[str], *, seed: int = 0, resamples: int = 10_000
) -> Comparison:
    """Compare two run directories' rows; a bad rule or an unreadable run is a UsageError."""
    from pytest_ghxbench.compare import compare_runs, parse_fail_rule

    try:
        parsed = [parse_fail_rule(rule) for rule in rules]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return compare_runs(
        read_run_table(base),
        read_run_table(run),
        base_run=base.run_id,
        run=run.run_id,
        seed=seed,
        resamples=resamples,
        rules=parsed,
    )


def run_compare(args: argparse.Namespace, *, out: TextIO | None = None) -> int:
    """Compare two runs; exit 1 when a ``--fail`` rule is broken, 4 on a usage error."""
    from pytest_ghxbench.compare import format_comparison

    out = out or sys.stdout
    try:
        if args.resamples < 1:
            raise UsageError("--resamples must be at least 1")
        base = _resolve(args.results, args.base)
        run = _resolve(args.results, args.run)
        comparison = compare_run_dirs(
            base, run, args.fail, seed=args.seed, resamples=args.resamples
        )
    except UsageError as exc:
        print(f"ghxbench compare: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for line in format_comparison(comparison, only_changes=not args.all):
        print(line, file=out)
    if args.json is not None:
        args.json.write_text(
            json.dumps(comparison.model_dump(mode="json"), indent=2) + "\n", encoding="utf-8"
        )
        print(f"wrote comparison JSON: {args.json}", file=out)
    for failure in comparison.failed:
        print(f"FAIL {failure}", file=out)
    return EXIT_GATE_FAILED if comparison.failed else EXIT_OK
