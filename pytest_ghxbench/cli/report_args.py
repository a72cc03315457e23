"""The ``ghxbench report`` command line (:mod:`pytest_ghxbench.cli.report` runs it)."""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = [
    "add_profiles_from",
    "add_report_arguments",
    "add_results_argument",
    "add_row_sources",
]


def add_profiles_from(parser: argparse.ArgumentParser) -> None:
    """``--profiles-from PYPROJECT``: gate profiles from a pyproject.toml."""
    parser.add_argument(
        "--profiles-from",
        type=Path,
        metavar="PYPROJECT",
        help="add or override profiles from [tool.ghxbench.profiles] of this file",
    )


def add_row_sources(parser: argparse.ArgumentParser, purpose: str) -> None:
    """The rows a command reads: ``ROWS...``, ``--latest`` and ``--results`` (``purpose`` ends
    the ROWS help, e.g. ": the noise to plan with")."""
    parser.add_argument(
        "rows",
        nargs="*",
        metavar="ROWS",
        help="run ids (under --results), run directories, JSONL or CSV rows files, "
        f"directories of them, or glob patterns{purpose}",
    )
    parser.add_argument(
        "--latest", action="store_true", help="the latest finished run (under --results)"
    )
    add_results_argument(parser)


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the ``report`` subcommand's arguments on ``parser``."""
    add_row_sources(parser, "")
    parser.add_argument(
        "--gate", action="store_true", help="exit 1 when the gate fails or cannot be evaluated"
    )
    parser.add_argument(
        "--allow-unverified",
        action="store_true",
        help="let the gate pass on rows that are not one whole, sealed run's (a copied or "
        "hand-made rows file, a run changed after it finished, rows of several runs pooled)",
    )
    parser.add_argument(
        "--gate-profile",
        default=None,
        metavar="P",
        help="gate thresholds to apply (default: the run's own for one run, else verify_pr)",
    )
    parser.add_argument(
        "--baseline",
        default=None,
        metavar="M",
        help="baseline mode of the gate (default: the run's own for one run, else agent_direct)",
    )
    parser.add_argument(
        "--candidate",
        default=None,
        metavar="M",
        help="candidate mode of the gate (default: the run's own for one run, else ghx)",
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
    add_profiles_from(parser)
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the bootstrap confidence intervals (default: 0)",
    )
    parser.add_argument(
        "--resamples", type=int, default=10_000, help="bootstrap resamples (default: 10000)"
    )


def add_results_argument(parser: argparse.ArgumentParser) -> None:
    """``--results DIR``: where run ids and ``latest`` are looked up."""
    parser.add_argument(
        "--results",
        type=Path,
        default=Path(".ghxbench"),
        metavar="DIR",
        help="the results directory the runs are in (--ghx-results; default: .ghxbench)",
    )
