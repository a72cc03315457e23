"""The ``ghxbench`` command line (also ``python -m pytest_ghxbench``)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from pytest_ghxbench.cli.exits import EXIT_USAGE
from pytest_ghxbench.cli.merge import add_merge_arguments, run_merge
from pytest_ghxbench.cli.power import add_power_arguments, run_power
from pytest_ghxbench.cli.report import run_report
from pytest_ghxbench.cli.report_args import add_report_arguments
from pytest_ghxbench.cli.runs import add_compare_arguments, run_compare
from pytest_ghxbench.cli.view import add_view_arguments, run_view

__all__ = ["EXIT_NOT_IMPLEMENTED", "build_parser", "main"]

EXIT_NOT_IMPLEMENTED = 2
_FIXTURE_ACTIONS = ("seed", "status", "cleanup")


class _ArgumentError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are usage errors (exit 4) instead of exiting with 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise _ArgumentError(f"{self.prog}: error: {message}")


def build_parser() -> argparse.ArgumentParser:
    """The full ``ghxbench`` argument parser with its subcommands."""
    parser = _Parser(
        prog="ghxbench",
        description="Benchmark reports, scenario checks and fixture lifecycle for pytest-ghxbench.",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {_version()}", help="show the version"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    report = commands.add_parser(
        "report",
        help="recompute the summary and gate from rows files",
        description="Recompute the per-mode summary and the dual gate from JSONL or CSV rows "
        "(this plugin's or the TypeScript ghx harness's).",
    )
    add_report_arguments(report)

    view = commands.add_parser(
        "view",
        help="serve a run on loopback and open its report, transcripts included",
        description="Serve a run directory on 127.0.0.1 and open its report.html in a browser "
        "(rendering the report if it is missing); the report's item links show each item's "
        "transcript, read through this server. Serves until Ctrl-C. With --print, only print "
        "the report's path.",
    )
    add_view_arguments(view)

    compare = commands.add_parser(
        "compare",
        help="compare two runs' per-scenario medians, beyond the noise",
        description="Compare each scenario x mode's medians (active tokens, latency, tool calls, "
        "cost) and success rate between two runs, with bootstrap intervals.",
    )
    add_compare_arguments(compare)

    merge = commands.add_parser(
        "merge",
        help="merge the runs of one plan (the shards of a CI matrix) into one run and gate it",
        description="Merge run directories of the same plan (e.g. the --ghx-shard runs of a CI "
        "matrix) into one run directory with rows, transcripts, plan, summary and report, and "
        "evaluate the gate once: exit 0 when it passes, 1 when it fails or the merged run is "
        "incomplete or unverified, 4 when the runs cannot be merged.",
    )
    add_merge_arguments(merge)

    power = commands.add_parser(
        "power",
        help="how often the gate would pass at the rows' noise, and the reps it needs",
        description="Simulate runs at the noise observed in the rows (per scenario and mode) "
        "through the gate: the chance it passes at the observed effect (or --effect), at no "
        "effect, and the repetitions per scenario that reach the target power.",
    )
    add_power_arguments(power)

    check = commands.add_parser(
        "check",
        help="validate scenario files and scenario sets",
        description="Validate scenario files and scenario sets; exit 1 on any problem.",
    )
    check.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATHS",
        help="scenario files or directories (default: scenarios/, else the suite shipped with "
        "pytest-ghxbench)",
    )

    fixtures = commands.add_parser(
        "fixtures",
        help="seed, inspect or clean up a backend's fixtures",
        description="Fixture lifecycle of a backend.",
    )
    fixtures.add_argument("action", choices=_FIXTURE_ACTIONS)
    fixtures.add_argument(
        "--ghx-backend",
        "--backend",
        dest="backend",
        default="sandbox",
        metavar="NAME",
        help="backend whose fixtures to manage (default: sandbox)",
    )
    fixtures.add_argument(
        "--fixture-manifest", type=Path, metavar="PATH", help="manifest of the seeded resources"
    )
    fixtures.add_argument(
        "--out", type=Path, metavar="PATH", help="where `seed` writes the manifest"
    )
    fixtures.add_argument(
        "--repo",
        metavar="OWNER/NAME",
        help="github backend: the fixture repository (default: [tool.ghxbench.backends.github]"
        " repo, or the manifest's)",
    )
    fixtures.add_argument(
        "--api-url",
        metavar="URL",
        help="github backend: REST API base URL (default: GITHUB_API_URL or api.github.com)",
    )

    # Listed for --help only: main() hands `sandbox ...` to cli.sandbox before parsing, so
    # the command line after `sandbox run --` reaches the command untouched.
    sandbox = commands.add_parser(
        "sandbox",
        help="serve the sandbox's GitHub to any client; run a command as an item would",
        description="Serve the sandbox's world as GitHub's API, run a command in an item's "
        "environment, or write a world state file.",
        add_help=False,
    )
    sandbox.add_argument("arguments", nargs=argparse.REMAINDER, metavar="ARGS")
    return parser


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("pytest-ghxbench")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from an uninstalled tree
        return "unknown"


def _default_scenarios() -> Path:
    """``scenarios/`` of the current directory, else the suite shipped with the package (as
    ``pytest --ghx-mode=...`` chooses)."""
    local = Path("scenarios")
    if local.is_dir():
        return local
    from pytest_ghxbench.suite import shipped_suite

    return shipped_suite()


def _run_check(args: argparse.Namespace) -> int:
    from pytest_ghxbench.scenario.check import run_check

    paths: list[Path] = list(args.paths) or [_default_scenarios()]
    status: int = run_check(paths, sys.stdout)
    return status


def _run_fixtures(args: argparse.Namespace) -> int:
    from pytest_ghxbench.cli.fixtures import run_fixtures

    return run_fixtures(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``ghxbench`` command line; returns the exit status (4 on usage errors)."""
    arguments = list(argv) if argv is not None else sys.argv[1:]
    if arguments[:1] == ["sandbox"]:
        from pytest_ghxbench.cli.sandbox import run_sandbox

        return run_sandbox(arguments[1:])
    parser = build_parser()
    try:
        args = parser.parse_args(arguments)
    except _ArgumentError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help and --version exit through argparse
        return exc.code if isinstance(exc.code, int) else 0
    try:
        if args.command == "report":
            return run_report(args)
        if args.command == "check":
            return _run_check(args)
        if args.command == "view":
            return run_view(args)
        if args.command == "compare":
            return run_compare(args)
        if args.command == "power":
            return run_power(args)
        if args.command == "merge":
            return run_merge(args)
        return _run_fixtures(args)
    except BrokenPipeError:
        # The reader went away (e.g. `ghxbench report ... | head`): stop quietly, as Unix
        # tools do, and keep Python from complaining again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
