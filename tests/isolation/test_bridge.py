"""Each jail waits for its own network bridge before it runs its command.

An item's jailed commands (a bash tool's, one after another) each start a jail, and all of them
share the item's directory. The bridge reads socat's log to know when it listens; a log kept in
that shared directory would still hold the previous jail's "listening" line, and the command
would run before this jail's socat listens (connection refused, which a loaded machine made
likely). socat here is made slow, so a command that does not wait fails every time.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_ghxbench.isolation.jail import ItemJail
from pytest_ghxbench.isolation.mounts import Mounts
from pytest_ghxbench.isolation.probe import probe
from tests.isolation.support import require_jail

pytestmark = pytest.mark.timeout(120)

CONNECT = "import socket, sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 5)"


def test_every_jail_of_an_item_waits_for_its_own_bridge(tmp_path: Path) -> None:
    require_jail()
    real = shutil.which("socat")
    assert real is not None
    tools = tmp_path / "tools"
    tools.mkdir()
    slow = tools / "socat"
    slow.write_text(f'#!/bin/sh\nsleep 0.5\nexec {real} "$@"\n')
    slow.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    mounts = Mounts()
    mounts.add([work], writable=True)
    with socket.socket() as probe_port:
        probe_port.bind(("127.0.0.1", 0))
        port = probe_port.getsockname()[1]
    jail = ItemJail(probe(), tmp_path / "jail", proxy_port=port, loopback_ports=(), mounts=mounts)
    jail.run_dir.mkdir()
    env = {"PATH": f"{tools}:{os.environ.get('PATH', '/usr/bin:/bin')}", "HOME": str(work)}
    python = os.path.realpath(sys.executable)  # a venv's python is a link to the base one
    argv = [python, "-c", CONNECT, str(port)]
    for attempt in range(3):
        command = jail.command(argv, cwd=work, read_only=[tools, Path(sys.base_prefix)])
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, (attempt, done.stderr[-2000:])
