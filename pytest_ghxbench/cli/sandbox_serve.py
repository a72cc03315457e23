"""``ghxbench sandbox serve`` and ``ghxbench sandbox run``: the sandbox's API for any client.

::

    ghxbench sandbox serve [--state FILE] [--port N]
    ghxbench sandbox run [--state FILE] [--mode M] -- CMD...

``serve`` serves one world (fresh from the seed, or ``--state``) until interrupted and prints
the environment lines a client needs (git's included); with ``--state`` the world is saved back
on exit. ``run`` runs CMD in exactly the environment an item of mode M gets (its HOME, its
proxy, its token, only its mode's interface) and in its checkout of the repository, and exits
with CMD's status; with ``--state`` the world is read from and saved back to FILE (the checkout
is a clone of the state's repository), otherwise it is a fresh seeded world that is thrown away.
"""

from __future__ import annotations

import argparse
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from pytest_ghxbench.option_specs import KNOWN_MODES

if TYPE_CHECKING:
    from pytest_ghxbench.modes import ModeTable
    from pytest_ghxbench.sandbox.api.server import ApiServer
    from pytest_ghxbench.sandbox.state import World

__all__ = ["run_command", "serve"]

EXIT_UNAVAILABLE = 2
EXIT_USAGE = 4
EXIT_NOT_FOUND = 127


class _Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _Usage(f"{self.prog}: {message}")


def _parser(command: str) -> _Parser:
    parser = _Parser(prog=f"ghxbench sandbox {command}", add_help=True)
    parser.add_argument("--state", type=Path, help="world to load and save back (JSON state)")
    if command == "serve":
        parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any)")
    else:
        choices = ", ".join(KNOWN_MODES)
        parser.add_argument(
            "--mode",
            default="agent_direct",
            help=f"one of {choices}, or a mode of ./pyproject.toml's [tool.ghxbench.modes]",
        )
        parser.add_argument("--gh", help="gh binary for agent_direct (default: the pinned one)")
        parser.add_argument("--mcp-server", help="MCP server command for mcp (default: pinned)")
    return parser


def _load(state: Path | None) -> World:
    from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, fresh_world
    from pytest_ghxbench.sandbox.statefile import load_world

    return fresh_world(DEFAULT_SEED) if state is None else load_world(state)


def _save(state: Path | None, world: World) -> None:
    if state is not None:
        from pytest_ghxbench.sandbox.statefile import locked_state, save_world

        with locked_state(state):
            save_world(state, world)


def serve(args: Sequence[str], out: TextIO, err: TextIO) -> int:
    """``ghxbench sandbox serve``; returns the exit status."""
    from pytest_ghxbench.sandbox.api.server import ApiServer, PortInUse
    from pytest_ghxbench.sandbox.manifest import SeedError
    from pytest_ghxbench.sandbox.statefile import StateFileError

    try:
        options = _parser("serve").parse_args(list(args))
        world = _load(options.state)
    except _Usage as exc:
        err.write(f"{exc}\n")
        return EXIT_USAGE
    except (StateFileError, SeedError) as exc:
        err.write(f"ghxbench sandbox serve: {exc}\n")
        return EXIT_UNAVAILABLE
    with tempfile.TemporaryDirectory(prefix="ghxbench-serve-") as ca_dir:
        try:
            server = ApiServer(Path(ca_dir), port=options.port)
        except PortInUse as exc:
            err.write(f"ghxbench sandbox serve: {exc}\n")
            return EXIT_UNAVAILABLE
        _serve(server, world, options.state, out)
    return 0


def _serve(server: ApiServer, world: World, state: Path | None, out: TextIO) -> None:
    from pytest_ghxbench.sandbox.item_env import (
        gh_variables,
        git_credentials,
        git_variables,
        mcp_server_variables,
        proxy_environment,
    )

    world.use_wall_clock(time.monotonic)  # workflow runs in flight move on as time passes
    token, slot = server.registry.register(world, "serve")
    # git reads configuration from the environment too: the token goes with every request to
    # the sandbox's git URLs, and nothing is written to the user's ~/.gitconfig.
    settings = list(git_credentials(token, encoded=False).items())
    git_config = {"GIT_CONFIG_COUNT": str(len(settings))}
    for index, (key, value) in enumerate(settings):
        git_config[f"GIT_CONFIG_KEY_{index}"] = key
        git_config[f"GIT_CONFIG_VALUE_{index}"] = value
    lines = {
        **proxy_environment(server.proxy_url, server.ca.bundle_file, server.ca.ca_file),
        **gh_variables(token, world.repository.full_name),
        **mcp_server_variables(token),
        **git_variables(server.ca.bundle_file),
        **git_config,
        "GITHUB_API_URL": f"{server.proxy_url}/api/v3",
        "GITHUB_GRAPHQL_URL": f"{server.proxy_url}/api/graphql",
    }
    out.write(f"# sandbox GitHub API for {world.repository.full_name} on {server.proxy_url}\n")
    out.write("# paste into a shell; Ctrl-C stops the server\n")
    for name, value in lines.items():
        out.write(f"export {name}={shlex.quote(value)}\n")
    out.flush()

    def _stop(signum: int, frame: object) -> None:
        threading.Thread(target=server.stop, daemon=True).start()

    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.close()
        with slot.held() as final:
            _save(state, final)


def run_command(args: Sequence[str], err: TextIO) -> int:
    """``ghxbench sandbox run``; returns CMD's exit status (or 2/4/127 on the harness's side)."""
    from pytest_ghxbench.adapters.process import scrubbed_env
    from pytest_ghxbench.sandbox.api.server import PortInUse
    from pytest_ghxbench.sandbox.backend import SandboxBackend, SandboxSession
    from pytest_ghxbench.sandbox.clients import ClientMissing, Clients
    from pytest_ghxbench.sandbox.git import GitError
    from pytest_ghxbench.sandbox.manifest import SeedError
    from pytest_ghxbench.sandbox.statefile import StateFileError

    words = list(args)
    command: list[str] = []
    if "--" in words:
        at = words.index("--")
        words, command = words[:at], words[at + 1 :]
    try:
        options = _parser("run").parse_args(words)
        table = _mode_table(options.mode)
        if options.mode not in table:
            raise _Usage(
                f"ghxbench sandbox run: unknown mode {options.mode!r}; expected one of "
                f"{', '.join(table.names())} (declare others in ./pyproject.toml's "
                "[tool.ghxbench.modes])"
            )
        if not command:
            raise _Usage("ghxbench sandbox run: give the command after --, e.g. -- gh pr view 7")
    except _Usage as exc:
        err.write(f"{exc}\n")
        return EXIT_USAGE
    backend = SandboxBackend(
        clients=Clients(gh=options.gh, mcp_server=options.mcp_server), modes=table
    )
    with tempfile.TemporaryDirectory(prefix="ghxbench-run-") as scratch:
        try:
            world = _load(options.state)
            session = SandboxSession(world, "sandbox-run", Path(scratch), options.mode, backend)
            env = scrubbed_env(dict(session.env))
        except (StateFileError, SeedError, ClientMissing, PortInUse, GitError) as exc:
            err.write(f"ghxbench sandbox run: {exc}\n")
            backend.close()
            return EXIT_UNAVAILABLE
        try:
            status = _child(command, env, session.checkout, err)
            _save(options.state, session.world)
        finally:
            session.close()
            backend.close()
    return status


def _mode_table(mode: str) -> ModeTable:
    """The built-in modes and those of ``./pyproject.toml`` (``mode``'s program found)."""
    from pytest_ghxbench.modes import ModeConfigError, declared_modes
    from pytest_ghxbench.option_sources import read_tool_table

    path = Path("pyproject.toml")
    try:
        table = read_tool_table(path) if path.is_file() else {}
        return declared_modes(table.get("modes"), str(path.absolute()), Path.cwd(), [mode])
    except (ValueError, ModeConfigError) as exc:
        raise _Usage(f"ghxbench sandbox run: {exc}") from None


def _child(command: list[str], env: dict[str, str], cwd: Path, err: TextIO) -> int:
    try:
        child = subprocess.Popen(command, env=env, cwd=cwd)
    except FileNotFoundError:
        err.write(f"ghxbench sandbox run: {command[0]}: command not found\n")
        return EXIT_NOT_FOUND
    except PermissionError:
        err.write(f"ghxbench sandbox run: {command[0]}: permission denied\n")
        return 126
    try:
        return child.wait()
    except KeyboardInterrupt:
        child.send_signal(signal.SIGINT)
        return child.wait()
