"""``ghxbench sandbox``: the sandbox's GitHub for any client, and world state files.

::

    ghxbench sandbox serve [--state FILE]       serve a world as GitHub's API on loopback
    ghxbench sandbox run [--state FILE] [--mode M] -- CMD...
                                                run CMD as an item of mode M would
    ghxbench sandbox init STATE [--seed SEED]   write a freshly seeded world to STATE

Exit status 2 when a state or seed is unusable; mistakes in the ``ghxbench sandbox`` command
line itself exit 4, like every other ``ghxbench`` usage error.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

__all__ = ["SANDBOX_USAGE", "run_sandbox"]

EXIT_OK = 0
EXIT_UNAVAILABLE = 2
EXIT_USAGE = 4

SANDBOX_USAGE = """\
usage: ghxbench sandbox serve [--state FILE] [--port N]
       ghxbench sandbox run [--state FILE] [--mode agent_direct|mcp|ghx] -- CMD...
       ghxbench sandbox init STATE [--seed SEED]

'serve' serves a world (fresh, or FILE) as GitHub's REST and GraphQL APIs and git's smart
HTTP, and prints the environment lines clients need; 'run' runs CMD in exactly the environment
a benchmark item of mode M gets (the real gh in agent_direct, a github-mcp-server launcher in
mcp, the ghx CLI in ghx), in its clone of the repository, and exits with CMD's status; with
--state the world is saved back to FILE. 'init' writes a freshly seeded world to STATE
(default seed: the one shipped with pytest-ghxbench, fixtures/sandbox-seed.yaml of its
scenario suite).
"""


def run_sandbox(
    argv: Sequence[str],
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run ``ghxbench sandbox ARGV...``; returns the exit status."""
    out = sys.stdout if stdout is None else stdout
    err = sys.stderr if stderr is None else stderr
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
    except BrokenPipeError:
        # The reader went away (`... | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())
        return 141
    err.write(
        f"ghxbench sandbox: unknown command {action!r}; expected serve, run or init\n"
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
