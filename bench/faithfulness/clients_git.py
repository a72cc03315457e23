"""git (and whatever else a workflow calls, gh included): a case's step is a shell script run by
``bash -euo pipefail`` in the item's checkout with its environment."""

from __future__ import annotations

from typing import Any

from cases import Outcome, run_process

from pytest_ghxbench.sandbox.backend import SandboxSession


def run_step(step: Any, session: SandboxSession) -> Outcome:
    checkout = session.working_directory()
    return run_process(["bash", "-euo", "pipefail", "-c", step], session.env, checkout)
