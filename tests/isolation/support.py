"""What the jail tests share: whether this machine can jail (a skip, or in CI a failure), and
stand-ins for bubblewrap that the probe is pointed at with ``GHXBENCH_BWRAP``.

Every stand-in answers ``--version`` and the probe's trial jail with the real bubblewrap, so the
session takes it for a working one; what it does to an item's jail is its point.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from pytest_ghxbench.isolation.probe import probe
from tests.paths import REPO_ROOT

__all__ = ["REQUIRE_ENV", "failing_bwrap", "require_jail", "run_shipped", "slow_bwrap"]

REQUIRE_ENV = "GHXBENCH_REQUIRE_JAIL"
"""Set to ``1`` (``.ci/run`` does) to make a missing jail fail the tests that need one."""
NAMESPACE_FAILURE = "bwrap: Creating new namespace failed: No space left on device"
"""What bubblewrap says once the user namespaces a user may own are used up."""


def require_jail() -> str:
    """The real bubblewrap's path; skip (or, with ``GHXBENCH_REQUIRE_JAIL=1``, fail) when this
    machine cannot jail."""
    found = probe()
    if found.bwrap is None or not found.jailed:
        reason = f"no jail on this machine: {found.detail}"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but {reason}")
        pytest.skip(reason)
    return found.bwrap


def _stand_in(path: Path, real: str, otherwise: str) -> Path:
    """A script that runs the real bubblewrap for ``--version`` and the probe's trial (whose
    command is ``true``), and ``otherwise`` (shell) for every other jail."""
    path.write_text(
        "#!/bin/sh\n"
        'for last in "$@"; do :; done\n'
        f'if [ "$1" = --version ] || [ "$last" = true ]; then exec {shlex.quote(real)} "$@"; fi\n'
        f"{otherwise}\n"
    )
    path.chmod(0o755)
    return path


def failing_bwrap(directory: Path, real: str) -> Path:
    """A bubblewrap that passes the probe, then fails every item's jail as bubblewrap does when
    no more user namespaces can be made."""
    return _stand_in(
        directory / "bwrap-failing", real, f"echo {shlex.quote(NAMESPACE_FAILURE)} >&2\nexit 1"
    )


def slow_bwrap(directory: Path, real: str, delay_s: float) -> Path:
    """A bubblewrap whose every jail takes ``delay_s`` longer to start."""
    return _stand_in(
        directory / "bwrap-slow", real, f'sleep {delay_s}\nexec {shlex.quote(real)} "$@"'
    )


def run_shipped(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str, modes: str
) -> pytest.RunResult:
    """The shipped ``pr-view-001`` in ``modes`` with the default agent (the oracle, which runs
    the real gh and MCP server in the item's jail), in a pytest process of its own that imports
    the package from this checkout."""
    pythonpath = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    monkeypatch.setenv("PYTHONPATH", pythonpath)
    return pytester.runpytest_subprocess(
        f"--ghx-scenarios={REPO_ROOT / 'scenarios'}", f"--ghx-mode={modes}", "--reps=1",
        "-k", "pr-view-001", "-p", "no:cacheprovider", "-p", "no:randomly", *args,
    )  # fmt: skip
