"""What a sandbox item's jail holds: the item's working directory (its HOME, ``bin/`` and
checkout), the session CA's certificates, its mode's client (and the runtime that client needs)
and nothing of the other modes' clients; its way out is the item's gate on the API server.

A foreign client the system has where a jail sees it (a gh in ``/usr/bin``, say) is covered by
the item's refusing script of the same name, so it fails by absolute path as it does on
``PATH``. The pinned clients live in the harness's virtualenv, which a jail never sees whole:
its ``bin/`` is empty there but for the interpreter (which ghx needs).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_ghxbench.isolation.jail import ItemJail
from pytest_ghxbench.isolation.mounts import Mounts, python_runtime, runtime_root
from pytest_ghxbench.isolation.probe import Isolation
from pytest_ghxbench.isolation.programs import program_mounts
from pytest_ghxbench.modes import ModeTable
from pytest_ghxbench.sandbox.clients import PACKAGE_ROOT, Clients
from pytest_ghxbench.sandbox.item_env import foreign_programs, mode_specs, own_programs

if TYPE_CHECKING:
    from pytest_ghxbench.sandbox.api.gate import ItemGate
    from pytest_ghxbench.sandbox.api.policy import HostPolicy
    from pytest_ghxbench.sandbox.api.registry import Slot
    from pytest_ghxbench.sandbox.api.server import ApiServer

__all__ = ["JAIL_RUN_DIR", "client_mounts", "open_item_jail"]

JAIL_RUN_DIR = ".jail"
"""The jail's own directory in the item's working directory (the gate's socket, logs)."""
_SYSTEM = tuple(Path(p) for p in ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc"))


def client_mounts(mode: str | None, clients: Clients, modes: ModeTable | None = None) -> Mounts:
    """What the jail needs to run the clients of ``mode`` (gh and ghx for no mode)."""
    table = modes or ModeTable.builtin()
    mounts = Mounts()
    for spec in mode_specs(mode, table):
        if spec.kind == "mcp":
            command = clients.server_command(spec)
            if not spec.builtin:  # a team's server: its interpreter too
                mounts.include(program_mounts(command[0]))
            mounts.add([runtime_root(word) for word in _files(command)])
            continue
        program = clients.cli_program(spec)
        if program is not None:
            if not spec.builtin:  # a team's CLI: its interpreter too
                mounts.include(program_mounts(program))
            mounts.add([runtime_root(program)])
            continue
        mounts.include(python_runtime(sys.executable, sys.base_prefix, sys.prefix))
        mounts.add([PACKAGE_ROOT / "pytest_ghxbench"])
    return mounts


def _files(command: list[str]) -> list[str]:
    """The files a server's command line names: its program, and a script or package it is
    given by path (``node /opt/srv/index.js``)."""
    found = [command[0]]
    found += [word for word in command[1:] if word.startswith("/") and os.path.exists(word)]
    return found


def _own_files(mode: str | None, table: ModeTable, clients: Clients) -> set[Path]:
    """The files the mode's own clients run (a declared mode may run GitHub's MCP server, whose
    name is another mode's)."""
    own: set[Path] = set()
    for spec in mode_specs(mode, table):
        first = clients.server_command(spec)[0] if spec.kind == "mcp" else clients.cli_program(spec)
        if first is not None:
            own.add(Path(first).resolve())
    return own


def _masks(
    mode: str | None,
    table: ModeTable,
    clients: Clients,
    bin_dir: Path,
    path: str,
    roots: Iterable[Path],
) -> dict[Path, Path]:
    """Foreign clients a jail would see (on ``path``, inside ``roots`` or the system's
    directories) -> the item's refusing script of that name."""
    visible = (*_SYSTEM, *roots)
    own = _own_files(mode, table, clients)
    masks: dict[Path, Path] = {}
    for name in sorted(foreign_programs(table) - own_programs(mode, table)):
        for directory in path.split(os.pathsep):
            candidate = Path(directory) / name
            if not directory or Path(directory) == bin_dir or not os.path.lexists(candidate):
                continue
            if candidate.resolve() in own:
                continue
            if any(candidate.is_relative_to(root) for root in visible):
                masks[candidate] = bin_dir / name
    return masks


def open_item_jail(
    *,
    isolation: Isolation,
    server: ApiServer,
    slot: Slot,
    policy: HostPolicy,
    mode: str | None,
    clients: Clients,
    workdir: Path,
    env: Mapping[str, str],
    modes: ModeTable | None = None,
) -> tuple[ItemJail, ItemGate]:
    """The item's jail and its gate (the caller closes the gate when the item ends)."""
    run_dir = workdir / JAIL_RUN_DIR
    run_dir.mkdir(exist_ok=True)
    gate = server.open_gate(slot, run_dir / "proxy.sock", policy)
    table = modes or ModeTable.builtin()
    mounts = client_mounts(mode, clients, table)
    mounts.add([workdir], writable=True)
    mounts.add([server.ca.ca_file.parent])
    roots = mounts.read_only | mounts.writable
    mounts.masks.update(_masks(mode, table, clients, workdir / "bin", env.get("PATH", ""), roots))
    jail = ItemJail(isolation, run_dir, server.port, policy.loopback_ports(), mounts)
    return jail, gate
