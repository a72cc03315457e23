"""The jailed shell the oracle's and the openai loop's commands run in: one jail per item, and
nothing started in it, ``setsid`` daemons included, outlives the item."""

from __future__ import annotations

import os
import secrets
import subprocess
import time
from pathlib import Path

import pytest

from pytest_ghxbench.isolation.jail import ItemJail
from pytest_ghxbench.isolation.mounts import Mounts
from pytest_ghxbench.isolation.probe import probe
from pytest_ghxbench.isolation.shell import JailShell
from tests.isolation.support import require_jail

pytestmark = pytest.mark.timeout(120)


def running(marker: str, *, present: bool, wait_s: float) -> list[int]:
    """Processes running ``sleep MARKER``, polled up to ``wait_s`` until there are some
    (``present``) or none (a loaded machine takes a while either way)."""
    deadline = time.monotonic() + wait_s
    while True:
        done = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, text=True)
        found = [int(pid) for pid in done.stdout.split()]
        if bool(found) == present or time.monotonic() >= deadline:
            return found
        time.sleep(0.05)


@pytest.fixture
def shell(tmp_path: Path) -> JailShell:
    require_jail()
    work = tmp_path / "work"
    work.mkdir()
    mounts = Mounts()
    mounts.add([work], writable=True)
    jail = ItemJail(probe(), tmp_path, proxy_port=3128, loopback_ports=(), mounts=mounts)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(work)}
    return JailShell(jail, env, work)


def test_commands_run_one_after_another_in_the_items_jail(shell: JailShell) -> None:
    try:
        first = shell.run(["sh", "-c", "echo $$ > pid; ls /proc | grep -c '^[0-9]'"], 10)
        assert first.exit_code == 0, first
        assert int(first.stdout) < 10  # the jail's few processes, not this machine's
        second = shell.run(["sh", "-c", "cat pid; exit 3"], 10)
        assert second.exit_code == 3 and second.stdout.strip().isdigit()
        late = shell.run(["sleep", "5"], 0.2)
        assert late.timed_out and late.exit_code is None
    finally:
        shell.close()


def test_a_setsid_daemon_ends_with_the_item(shell: JailShell) -> None:
    marker = f"{secrets.randbelow(9000) + 1000}.{secrets.randbelow(900) + 100}"
    daemon = f"setsid sh -c 'exec sleep {marker}' </dev/null >/dev/null 2>&1 &"
    try:
        assert shell.run(["sh", "-c", daemon], 10).exit_code == 0
        assert running(marker, present=True, wait_s=10.0), "the daemon did not start"
    finally:
        shell.close()
    survivors = running(marker, present=False, wait_s=5.0)
    for pid in survivors:
        os.kill(pid, 9)
    assert survivors == []
