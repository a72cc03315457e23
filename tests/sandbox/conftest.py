"""Fixtures for the sandbox tests: the external scenarios and a fresh world per test."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.attempt.judge import Judgement, judge_atomic
from pytest_ghxbench.ghx.registry import get_capability
from pytest_ghxbench.sandbox.manifest import fresh_world, seeded
from pytest_ghxbench.sandbox.state import Issue, PullRequest, World
from pytest_ghxbench.scenario.loader import load_catalog
from pytest_ghxbench.scenario.manifest import bind_input
from pytest_ghxbench.scenario.models import AtomicScenario, Scenario, WorkflowScenario
from tests.paths import EXTERNAL_SCENARIOS
from tests.served import run_on_world as run_capability

OWNER, NAME = "acme-labs", "tinykv"
REPO = {"owner": OWNER, "name": NAME}


@pytest.fixture
def world() -> World:
    return fresh_world()


@pytest.fixture(scope="session")
def manifest() -> dict[str, Any]:
    return seeded().manifest


def external_scenarios() -> list[Scenario]:
    """The TypeScript harness's 70 scenarios (empty when shared/ is not beside the checkout)."""
    if not EXTERNAL_SCENARIOS.is_dir():
        return []
    catalog = load_catalog(Path(EXTERNAL_SCENARIOS))
    assert not catalog.errors, catalog.errors
    return sorted((loaded.scenario for loaded in catalog.scenarios.values()), key=lambda s: s.id)


def external_atomic(*prefixes: str) -> list[AtomicScenario]:
    """External atomic scenarios whose task starts with one of ``prefixes``."""
    return [
        s
        for s in external_scenarios()
        if isinstance(s, AtomicScenario) and s.task.startswith(prefixes)
    ]


def external_workflow(scenario_id: str) -> WorkflowScenario:
    found = [s for s in external_scenarios() if s.id == scenario_id]
    assert found and isinstance(found[0], WorkflowScenario), scenario_id
    return found[0]


needs_external = pytest.mark.skipif(
    not EXTERNAL_SCENARIOS.is_dir(), reason="shared/external is not beside the checkout"
)


def run_scenario(
    scenario: AtomicScenario, world: World | None = None
) -> tuple[dict[str, Any], Judgement]:
    """Run the scenario's task on its bound input and judge the envelope as a ghx answer."""
    bound = bind_input(scenario, seeded().manifest)
    envelope = run_capability(world or fresh_world(), scenario.task, bound)
    judgement = judge_atomic(
        scenario, mode="ghx", final_text=json.dumps(envelope), tool_call_count=1
    )
    return envelope, judgement


def is_registered(task: str) -> bool:
    return get_capability(task) is not None


def ok(world: World, task: str, input: Mapping[str, Any]) -> Any:
    """The data of a capability call that must succeed."""
    envelope = run_capability(world, task, input)
    assert envelope["ok"], envelope["error"]
    json.dumps(envelope)  # always serialisable
    return envelope["data"]


def error(world: World, task: str, input: Mapping[str, Any]) -> dict[str, str]:
    """The error of a capability call that must fail."""
    envelope = run_capability(world, task, input)
    assert not envelope["ok"] and envelope["data"] is None, envelope
    error: dict[str, str] = envelope["error"]
    return error


def issue(world: World, number: int) -> Issue:
    found = world.issue(number)
    assert found is not None, f"no issue #{number}"
    return found


def pull(world: World, number: int) -> PullRequest:
    found = world.pull_request(number)
    assert found is not None, f"no PR #{number}"
    return found
