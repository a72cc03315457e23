"""``ghxbench sandbox``: the sandbox's CLIs as real processes, on a state file.

::

    ghxbench sandbox serve [--state FILE]       serve a world as GitHub's API on loopback
    ghxbench sandbox run [--state FILE] [--mode M] -- CMD...
                                                run CMD as an item of mode M would
    ghxbench sandbox init STATE [--seed SEED]   write a freshly seeded world to STATE
    ghxbench sandbox ghx ARGS...                the ghx CLI on $GHXBENCH_SANDBOX_STATE
    ghxbench sandbox gh ARGS...                 the gh CLI on $GHXBENCH_SANDBOX_STATE
    ghxbench sandbox mcp                        an MCP server over stdio on the same state

``gh`` and ``ghx`` hold the state's lock from loading the world to saving it, and save only
when the command mutated it. Their exit status is the dialect's (ghx: 0 ok, 1 capability
error, 2 usage error); 2 also when the state is unset, missing or unreadable, or the dialect
is not available. Mistakes in the ``ghxbench sandbox`` command line itself exit 4, like every
other ``ghxbench`` usage error. This module is the hot path of every shim call, so it imports
the sandbox only once it knows it needs it.
"""

from __future__ import annotations

import importlib
import itertools
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from pytest_ghxbench.sandbox.dialects.result import CliResult
    from pytest_ghxbench.sandbox.state import World

__all__ = ["SANDBOX_USAGE", "run_sandbox"]

EXIT_OK = 0
EXIT_UNAVAILABLE = 2
EXIT_USAGE = 4
STATE_ENV = "GHXBENCH_SANDBOX_STATE"  # same value as statefile.STATE_ENV, without its imports
GH_MODULE = "pytest_ghxbench.sandbox.dialects.gh_cli"

SANDBOX_USAGE = """\
usage: ghxbench sandbox serve [--state FILE] [--port N]
       ghxbench sandbox run [--state FILE] [--mode agent_direct|mcp|ghx] -- CMD...
       ghxbench sandbox init STATE [--seed SEED]
       ghxbench sandbox ghx ARGS...
       ghxbench sandbox gh ARGS...
       ghxbench sandbox mcp

'serve' serves a world (fresh, or FILE) as GitHub's REST and GraphQL APIs and prints the
environment lines clients need; 'run' runs CMD in exactly the environment a benchmark item of
mode M gets (the real gh in agent_direct, a github-mcp-server launcher in mcp, the ghx CLI in
ghx) and exits with CMD's status; with --state the world is saved back to FILE.
Run the sandbox's CLIs as real processes. 'init' writes a freshly seeded world to STATE
(default seed: scenarios/fixtures/sandbox-seed.yaml); 'ghx' and 'gh' run one command line on
the state file named by $GHXBENCH_SANDBOX_STATE, saving it when the command changes it.
"""

Dialect = Callable[["World", Sequence[str], str], "CliResult"]


def run_sandbox(
    argv: Sequence[str],
    *,
    environ: Mapping[str, str] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run ``ghxbench sandbox ARGV...``; returns the exit status."""
    env = os.environ if environ is None else environ
    out = sys.stdout if stdout is None else stdout
    err = sys.stderr if stderr is None else stderr
    source = sys.stdin if stdin is None else stdin
    args = list(argv)
    if not args or args[0] in ("-h", "--help", "help"):
        (out if args else err).write(SANDBOX_USAGE)
        return EXIT_OK if args else EXIT_USAGE
    action, rest = args[0], args[1:]
    try:
        if action == "serve":
            from pytest_ghxbench.cli.sandbox_serve import serve

            return serve(rest, out, err)
        if action == "run":
            from pytest_ghxbench.cli.sandbox_serve import run_command

            return run_command(rest, err)
        if action == "init":
            return _init(rest, err)
        if action in ("ghx", "gh"):
            return _run_dialect(action, rest, env, source, out, err)
        if action == "mcp":
            return _serve_mcp(rest, env, err)
    except BrokenPipeError:
        # The reader went away (`gh ... | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())
        return 141
    err.write(
        f"ghxbench sandbox: unknown command {action!r}; expected serve, run, init, ghx, gh "
        "or mcp\n"
        f"{SANDBOX_USAGE}"
    )
    return EXIT_USAGE


def _init(args: list[str], err: TextIO) -> int:
    from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, SeedError
    from pytest_ghxbench.sandbox.statefile import StateFileError, init_state

    seed = DEFAULT_SEED
    state: Path | None = None
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--seed" or arg.startswith("--seed="):
            if arg == "--seed":
                if index >= len(args):
                    err.write("ghxbench sandbox init: --seed needs a path\n")
                    return EXIT_USAGE
                seed = Path(args[index])
                index += 1
            else:
                seed = Path(arg.partition("=")[2])
        elif arg.startswith("-") or state is not None:
            err.write(f"ghxbench sandbox init: unexpected argument {arg!r}\n{SANDBOX_USAGE}")
            return EXIT_USAGE
        else:
            state = Path(arg)
    if state is None:
        err.write(f"ghxbench sandbox init: missing STATE (the file to write)\n{SANDBOX_USAGE}")
        return EXIT_USAGE
    try:
        init_state(state, seed)
    except (SeedError, StateFileError) as exc:
        err.write(f"ghxbench sandbox init: {exc}\n")
        return EXIT_UNAVAILABLE
    return EXIT_OK


def _serve_mcp(args: list[str], env: Mapping[str, str], err: TextIO) -> int:
    if args:
        err.write(f"ghxbench sandbox mcp: unexpected argument {args[0]!r}\n{SANDBOX_USAGE}")
        return EXIT_USAGE
    location = env.get(STATE_ENV, "")
    if not location or not Path(location).is_file():
        where = (
            f"{STATE_ENV}={location}: no such state file"
            if location
            else (f"{STATE_ENV} is not set")
        )
        err.write(
            f"ghxbench sandbox mcp: {where}; it must name a state file written by "
            "'ghxbench sandbox init STATE'\n"
        )
        return EXIT_UNAVAILABLE
    from pytest_ghxbench.sandbox.dialects.mcp_server import serve_stdio

    serve_stdio(Path(location))
    return EXIT_OK


def _dialect(name: str) -> Dialect | None:
    if name == "ghx":
        from pytest_ghxbench.sandbox.dialects.ghx_cli import run_ghx

        return run_ghx
    try:
        module = importlib.import_module(GH_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name != GH_MODULE:
            raise  # the module exists but one of its imports is broken: show that
        return None
    run_gh: Dialect = module.run_gh
    return run_gh


def _wants_stdin(name: str, args: Sequence[str]) -> bool:
    """Whether the command line reads stdin (reading it otherwise could block forever)."""
    if name == "ghx":
        pairs = itertools.pairwise(args)
        return "--input=-" in args or any(a == "--input" and b == "-" for a, b in pairs)
    # gh: `--body-file -`, `--input -`, `-F body=@-`, `--notes-file=-`...
    return any(a == "-" or a.endswith(("=-", "@-")) for a in args)


def _run_dialect(
    name: str,
    args: list[str],
    env: Mapping[str, str],
    source: TextIO,
    out: TextIO,
    err: TextIO,
) -> int:
    location = env.get(STATE_ENV, "")
    if not location:
        err.write(
            f"ghxbench sandbox {name}: {STATE_ENV} is not set; point it at a state file "
            "written by 'ghxbench sandbox init STATE'\n"
        )
        return EXIT_UNAVAILABLE
    dialect = _dialect(name)
    if dialect is None:
        err.write("gh dialect not available yet\n")
        return EXIT_UNAVAILABLE
    from pytest_ghxbench.sandbox.statefile import (
        StateFileError,
        load_world,
        locked_state,
        save_world,
    )

    path = Path(location)
    if not path.is_file():
        err.write(
            f"ghxbench sandbox {name}: {STATE_ENV}={path}: no such state file (create it with "
            "'ghxbench sandbox init STATE')\n"
        )
        return EXIT_UNAVAILABLE
    text = source.read() if _wants_stdin(name, args) and not source.isatty() else ""
    try:
        with locked_state(path):
            world = load_world(path)
            result = dialect(world, args, text)
            if result.mutated:
                save_world(path, world)
    except StateFileError as exc:
        err.write(f"ghxbench sandbox {name}: {STATE_ENV}={exc}\n")
        return EXIT_UNAVAILABLE
    # Printed after the lock is released: a slow reader must not stall other calls.
    out.write(result.stdout)
    out.flush()
    err.write(result.stderr)
    return result.exit_code
