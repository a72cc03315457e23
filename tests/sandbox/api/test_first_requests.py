"""The first requests a process's server answers may come at once (an agent runs tools in
parallel): the route, operation and capability tables load once, and no request sees them half
loaded. Only a fresh interpreter has not loaded them yet, so the concurrent-items test runs in
one (in this process an earlier test has long loaded them)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.paths import REPO_ROOT

pytestmark = pytest.mark.timeout(300)

TEST = "tests/sandbox/api/test_server.py::test_concurrent_items_lose_no_update_and_never_mix"


def test_concurrent_first_requests_find_every_route() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", TEST],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
