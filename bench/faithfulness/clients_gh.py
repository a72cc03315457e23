"""The real gh: a case's step is gh's argv, run in the item's checkout with its environment."""

from __future__ import annotations

from typing import Any

from cases import Outcome, run_process

from pytest_ghxbench.sandbox.backend import SandboxSession


def run_step(step: Any, session: SandboxSession) -> Outcome:
    checkout = session.working_directory()
    return run_process(["gh", *step], session.env, checkout)
