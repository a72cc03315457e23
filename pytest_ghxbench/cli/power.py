"""``ghxbench power``: how often a gate profile would pass at the noise of some rows."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import TYPE_CHECKING, TextIO

from pytest_ghxbench.cli.exits import EXIT_OK, EXIT_USAGE, UsageError
from pytest_ghxbench.cli.report_args import add_profiles_from, add_row_sources
from pytest_ghxbench.cli.report_inputs import (
    for_model,
    gate_choice,
    parse_aliases,
    report_problems,
    resolve_profile,
    row_sources,
)

if TYPE_CHECKING:
    from pytest_ghxbench.metrics.power import PowerEstimate

__all__ = ["add_power_arguments", "run_power"]


def add_power_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the ``power`` subcommand's arguments on ``parser``."""
    add_row_sources(parser, ": the noise to plan with")
    parser.add_argument(
        "--profile",
        "--gate-profile",
        dest="gate_profile",
        default=None,
        metavar="P",
        help="gate profile to simulate (default: the run's own for one run, else verify_pr)",
    )
    parser.add_argument(
        "--effect",
        type=float,
        default=None,
        metavar="PCT",
        help="true reduction of active tokens, latency, tool calls and cost, in percent "
        "(default: the reductions the rows show, per metric)",
    )
    parser.add_argument(
        "--target-power",
        type=float,
        default=0.8,
        metavar="P",
        help="pass probability the reps search aims at (default: 0.8)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: profile, effect_pct, pass_probability, "
        "false_pass_probability, reps_needed (null: more than 50)",
    )
    parser.add_argument("--baseline", default=None, metavar="M", help="baseline mode")
    parser.add_argument("--candidate", default=None, metavar="M", help="candidate mode")
    parser.add_argument(
        "--mode-alias", action="append", default=[], metavar="OLD=NEW", help="rename a mode"
    )
    add_profiles_from(parser)
    parser.add_argument(
        "--trials",
        type=int,
        default=200,
        help="simulated runs per probability (default: 200; the standard error is printed)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulation (default: 0)")


def _validate(args: argparse.Namespace) -> None:
    if args.effect is not None and not (math.isfinite(args.effect) and args.effect < 100):
        raise UsageError(f"--effect must be a finite percentage below 100, got {args.effect}")
    if not 0 < args.target_power < 1:
        raise UsageError(f"--target-power must be between 0 and 1, got {args.target_power}")
    if args.trials < 1:
        raise UsageError(f"--trials must be at least 1, got {args.trials}")


def _estimate(args: argparse.Namespace, err: TextIO) -> tuple[PowerEstimate, int, int]:
    from pytest_ghxbench.metrics.power import estimate_power
    from pytest_ghxbench.metrics.table import RowTable
    from pytest_ghxbench.records.jsonl import RowSourceError, read_row_records

    _validate(args)
    paths, runs = row_sources(args)
    args.gate_profile, args.baseline, args.candidate = gate_choice(args, runs)
    if args.baseline == args.candidate:
        raise UsageError(f"--baseline and --candidate are both {args.baseline!r}")
    profile, expectations = resolve_profile(args.gate_profile, args.profiles_from)
    try:
        result = read_row_records(paths, mode_aliases=parse_aliases(args.mode_alias))
    except RowSourceError as exc:
        raise UsageError(str(exc)) from None
    report_problems(result.problems, err)
    table = RowTable.from_records(result.records)
    for role, mode in (("baseline", args.baseline), ("candidate", args.candidate)):
        if table.mode(mode).runs == 0:
            raise UsageError(f"no rows of the {role} mode {mode!r} to take the noise from")
    profile = for_model(profile, expectations, table, args.profiles_from)
    estimate = estimate_power(
        table,
        profile,
        baseline=args.baseline,
        candidate=args.candidate,
        effect_pct=args.effect,
        target_power=args.target_power,
        trials=args.trials,
        seed=args.seed,
    )
    return estimate, len(result.records), len(result.files)


def _effect_text(effect: float | dict[str, float]) -> str:
    if isinstance(effect, dict):
        shown = ", ".join(f"{metric} {value:.1f}%" for metric, value in effect.items())
        return f"as observed ({shown})"
    return f"{effect:g}% on every metric"


def _text(estimate: PowerEstimate, row_count: int, file_count: int) -> list[str]:
    from pytest_ghxbench.metrics.power import MAX_REPS

    reps = (
        str(estimate.reps_needed) if estimate.reps_needed is not None else f"more than {MAX_REPS}"
    )
    return [
        f"{row_count} rows from {file_count} file(s); {estimate.design_reps} reps per "
        "scenario and mode",
        f"profile: {estimate.profile}; true reduction: {_effect_text(estimate.effect_pct)}",
        f"pass probability:        {estimate.pass_probability:.1%}",
        f"false pass probability:  {estimate.false_pass_probability:.1%} (no effect)",
        f"reps needed for {estimate.target_power:.0%}:    {reps} per scenario and mode",
        f"Monte-Carlo error: {estimate.trials} simulated runs per probability "
        f"(standard error at most {estimate.monte_carlo_se:.1%}); {estimate.resamples} bootstrap "
        f"resamples per run; the reps search judges each count on up to "
        f"{estimate.search_trials} runs, stopping once its 95% interval is clear of the target",
    ]


def run_power(
    args: argparse.Namespace, *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Run ``ghxbench power`` with parsed ``args``; 0 when done, 4 on a usage error."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        estimate, row_count, file_count = _estimate(args, err)
    except UsageError as exc:
        print(f"ghxbench power: error: {exc}", file=err)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(estimate.to_json_dict()), file=out)
    else:
        for line in _text(estimate, row_count, file_count):
            print(line, file=out)
    return EXIT_OK
