"""The shipped scenario suite (``scenarios/``) against the sandbox world.

Every atomic scenario must pass when its capability is called once on a fresh world and the
envelope is judged as a ghx answer; every workflow's checkpoints must fail on the untouched
seed and all hold after its ``oracle`` plan has run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.attempt.checkpoints import judge_workflow
from pytest_ghxbench.attempt.judge import judge_atomic
from pytest_ghxbench.cli.main import main as ghxbench_main
from pytest_ghxbench.ghx.registry import get_capability, run_capability
from pytest_ghxbench.sandbox.backend import SandboxBackend
from pytest_ghxbench.scenario.loader import ScenarioCatalog, load_catalog
from pytest_ghxbench.scenario.manifest import bind_input, missing_resources
from pytest_ghxbench.scenario.models import AtomicScenario, WorkflowScenario
from tests.paths import REPO_ROOT

_BACKEND = SandboxBackend()

SCENARIOS = REPO_ROOT / "scenarios"
SCHEMA = REPO_ROOT / "pytest_ghxbench" / "scenario" / "scenario.schema.json"
RESOURCE_TAGS = {"pr", "issue", "ci", "release", "repo", "project"}
KIND_TAGS = {"read", "mutation"}
REQUIRED_SETS = {
    "default",
    "ci-verify-pr",
    "ci-verify-release",
    "pr-review-reads",
    "pr-thread-mutations",
    "issues",
    "ci-diagnostics",
    "workflows",
    "all",
}
EXACT_PLACEHOLDER = re.compile(r"^\{\{\s*([^{}]+?)\s*\}\}$")
PLACEHOLDER = re.compile(r"\{\{\s*([^{}]+?)\s*\}\}")

_CATALOG = load_catalog(SCENARIOS)
_ATOMIC = sorted(
    (s for s in (e.scenario for e in _CATALOG.scenarios.values()) if isinstance(s, AtomicScenario)),
    key=lambda s: s.id,
)
_WORKFLOWS = sorted(
    (
        s
        for s in (e.scenario for e in _CATALOG.scenarios.values())
        if isinstance(s, WorkflowScenario)
    ),
    key=lambda s: s.id,
)


@pytest.fixture(scope="module")
def catalog() -> ScenarioCatalog:
    return _CATALOG


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    return SandboxBackend().manifest()


def render(value: Any, bound: Mapping[str, Any]) -> Any:
    """An oracle step's input with ``{{key}}`` placeholders filled from the bound input.

    A string that is exactly one placeholder becomes the bound value itself (keeping its
    type); placeholders inside longer strings are replaced by the value as text.
    """
    if isinstance(value, dict):
        return {key: render(item, bound) for key, item in value.items()}
    if isinstance(value, list):
        return [render(item, bound) for item in value]
    if not isinstance(value, str):
        return value
    if exact := EXACT_PLACEHOLDER.match(value):
        return bound[exact.group(1)]

    def text(match: re.Match[str]) -> str:
        found = bound[match.group(1)]
        return found if isinstance(found, str) else json.dumps(found, separators=(",", ":"))

    return PLACEHOLDER.sub(text, value)


def test_render_keeps_the_type_of_a_lone_placeholder_and_inlines_the_others() -> None:
    bound = {"runId": 135, "owner": "acme"}
    step = {"runId": "{{runId}}", "body": "run {{runId}} of {{ owner }}", "n": [1, "{{owner}}"]}
    assert render(step, bound) == {"runId": 135, "body": "run 135 of acme", "n": [1, "acme"]}


# ---------------------------------------------------------------- the catalogue and its sets


def test_the_suite_loads_without_problems(catalog: ScenarioCatalog) -> None:
    assert [str(error) for error in catalog.errors] == []
    assert len(catalog.scenarios) >= 30
    assert len(_WORKFLOWS) >= 4


def test_ghxbench_check_accepts_the_suite(capsys: pytest.CaptureFixture[str]) -> None:
    status = ghxbench_main(["check", str(SCENARIOS)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert f"{len(_CATALOG.scenarios)} scenarios" in out and "0 problems" in out


def test_required_sets_exist_with_their_sizes(catalog: ScenarioCatalog) -> None:
    sets = catalog.sets
    assert sorted(REQUIRED_SETS - set(sets)) == []
    sizes = {name: len(sets[name]) for name in ("default", "ci-verify-pr", "ci-verify-release")}
    assert sizes == {"default": 6, "ci-verify-pr": 2, "ci-verify-release": 5}
    assert sorted(sets["all"]) == sorted(catalog.scenarios)
    assert sorted(sets["workflows"]) == [s.id for s in _WORKFLOWS]


def test_default_set_holds_only_atomic_reads(catalog: ScenarioCatalog) -> None:
    for scenario_id in catalog.sets["default"]:
        scenario = catalog.scenarios[scenario_id].scenario
        assert isinstance(scenario, AtomicScenario), scenario_id
        assert "read" in scenario.tags and "mutation" not in scenario.tags, scenario_id


def test_every_scenario_is_listed_in_a_set_besides_all(catalog: ScenarioCatalog) -> None:
    listed = {sid for name, ids in catalog.sets.items() if name != "all" for sid in ids}
    assert sorted(set(catalog.scenarios) - listed) == []


@pytest.mark.parametrize("loaded", list(_CATALOG.scenarios.values()), ids=lambda e: e.scenario.id)
def test_file_is_named_by_its_id_and_points_its_editor_at_the_schema(loaded: Any) -> None:
    path: Path = loaded.path
    assert path.stem == loaded.scenario.id
    first_line = path.read_text(encoding="utf-8").splitlines()[0]
    match = re.fullmatch(r"# yaml-language-server: \$schema=(\S+)", first_line)
    assert match, f"{path}: first line is {first_line!r}"
    assert (path.parent / match.group(1)).resolve() == SCHEMA.resolve()


@pytest.mark.parametrize("loaded", list(_CATALOG.scenarios.values()), ids=lambda e: e.scenario.id)
def test_tags_name_a_resource_and_a_kind(loaded: Any) -> None:
    tags = set(loaded.scenario.tags)
    assert tags & RESOURCE_TAGS, f"{loaded.scenario.id}: no resource tag in {sorted(tags)}"
    assert len(tags & KIND_TAGS) == 1, f"{loaded.scenario.id}: read or mutation, got {tags}"
    if isinstance(loaded.scenario, WorkflowScenario):
        assert "workflow" in tags


@pytest.mark.parametrize("loaded", list(_CATALOG.scenarios.values()), ids=lambda e: e.scenario.id)
def test_every_capability_used_exists_and_every_mode_can_reach_it(loaded: Any) -> None:
    scenario = loaded.scenario
    if isinstance(scenario, AtomicScenario):
        tasks = {scenario.task}
    else:
        tasks = {step.task for step in scenario.oracle or []}
        tasks |= {cp.verification_task for cp in scenario.assertions.checkpoints}
        tasks |= set(scenario.expected_capabilities)
    for task in sorted(tasks):
        capability = get_capability(task)
        assert capability is not None, f"{scenario.id}: unknown capability {task}"
        if isinstance(scenario, AtomicScenario):
            assert ("mutation" in scenario.tags) == capability.mutates, scenario.id


# ---------------------------------------------------------------- atomic scenarios


def _answer(scenario: AtomicScenario, manifest: Mapping[str, Any]) -> dict[str, Any]:
    assert missing_resources(scenario, manifest) == []
    bound = bind_input(scenario, manifest)
    assert json.dumps(bound).find("PLACEHOLDER") == -1
    session = _BACKEND.open_session(scenario.id, Path("."))
    try:
        return run_capability(session.client(), scenario.task, bound, strict=True)
    finally:
        session.close()


@pytest.mark.parametrize("scenario", _ATOMIC, ids=lambda s: s.id)
def test_atomic_scenario_passes_with_one_call_on_a_fresh_world(
    scenario: AtomicScenario, manifest: dict[str, Any]
) -> None:
    envelope = _answer(scenario, manifest)
    for mode in ("ghx", "agent_direct"):
        verdict = judge_atomic(
            scenario, mode=mode, final_text=json.dumps(envelope), tool_call_count=1
        )
        assert verdict.success and verdict.output_valid, (mode, verdict.failures, envelope)


@pytest.mark.parametrize(
    "scenario", [s for s in _ATOMIC if s.assertions.outcome == "success"], ids=lambda s: s.id
)
def test_atomic_assertions_reject_an_answer_without_the_data(
    scenario: AtomicScenario, manifest: dict[str, Any]
) -> None:
    envelope = _answer(scenario, manifest)
    assert scenario.assertions.required_data_fields, f"{scenario.id} demands no data fields"
    hollow = {**envelope, "data": {}}
    verdict = judge_atomic(scenario, mode="ghx", final_text=json.dumps(hollow), tool_call_count=1)
    assert not verdict.output_valid
    assert any("required_data_fields" in failure for failure in verdict.failures)


@pytest.mark.parametrize("scenario", _ATOMIC, ids=lambda s: s.id)
def test_atomic_tool_call_bounds_are_realistic(scenario: AtomicScenario) -> None:
    assertions = scenario.assertions
    assert assertions.require_tool_calls and assertions.min_tool_calls == 1
    assert assertions.max_tool_calls is not None and 2 <= assertions.max_tool_calls <= 6
    verdict = judge_atomic(scenario, mode="ghx", final_text="{}", tool_call_count=0)
    assert not verdict.success


def test_a_wrong_route_fails_only_in_the_ghx_mode(manifest: dict[str, Any]) -> None:
    scenario = _CATALOG.scenarios["issue-comments-list-001"].scenario
    assert isinstance(scenario, AtomicScenario)
    envelope = _answer(scenario, manifest)
    envelope["meta"]["route_used"] = "cli"
    text = json.dumps(envelope)
    assert not judge_atomic(scenario, mode="ghx", final_text=text, tool_call_count=1).success
    assert judge_atomic(scenario, mode="mcp", final_text=text, tool_call_count=1).passed


# ---------------------------------------------------------------- workflow scenarios


def _session(scenario: WorkflowScenario) -> Any:
    return _BACKEND.open_session(scenario.id, Path("."))


def _checkpoints(scenario: WorkflowScenario, bound: dict[str, Any], session: Any) -> Any:
    return judge_workflow(
        scenario, bound_input=bound, final_text="done", tool_call_count=0, run_task=session.run_task
    )


@pytest.mark.parametrize("scenario", _WORKFLOWS, ids=lambda s: s.id)
def test_every_checkpoint_fails_on_the_untouched_seed(
    scenario: WorkflowScenario, manifest: dict[str, Any]
) -> None:
    bound = bind_input(scenario, manifest)
    verdict = _checkpoints(scenario, bound, _session(scenario))
    assert not verdict.success
    assert [c["name"] for c in verdict.checkpoints if c["passed"]] == []


@pytest.mark.parametrize("scenario", _WORKFLOWS, ids=lambda s: s.id)
def test_the_oracle_plan_makes_every_checkpoint_pass(
    scenario: WorkflowScenario, manifest: dict[str, Any]
) -> None:
    assert missing_resources(scenario, manifest) == []
    bound = bind_input(scenario, manifest)
    session = _session(scenario)
    assert scenario.oracle, f"{scenario.id} has no oracle plan"
    for step in scenario.oracle:
        envelope = run_capability(
            session.client(), step.task, render(step.input, bound), strict=True
        )
        assert envelope["ok"], (step.task, envelope["error"])
    verdict = _checkpoints(scenario, bound, session)
    assert verdict.passed, verdict.failures


@pytest.mark.parametrize("scenario", _WORKFLOWS, ids=lambda s: s.id)
def test_oracle_uses_the_capabilities_the_scenario_expects(scenario: WorkflowScenario) -> None:
    planned = [step.task for step in scenario.oracle or []]
    assert sorted(set(planned)) == sorted(set(scenario.expected_capabilities))
    keys = set(scenario.input) | {
        target.split(".")[1] for target in (scenario.fixture.bindings if scenario.fixture else {})
    }
    used = {
        name
        for step in scenario.oracle or []
        for name in PLACEHOLDER.findall(json.dumps(step.input))
    }
    assert used <= keys, f"{scenario.id}: oracle placeholders {sorted(used - keys)} are not input"


def test_resolving_only_one_thread_leaves_the_fix_workflow_failing(
    manifest: dict[str, Any],
) -> None:
    scenario = _CATALOG.scenarios["pr-fix-review-comments-wf-001"].scenario
    assert isinstance(scenario, WorkflowScenario)
    bound = bind_input(scenario, manifest)
    session = _session(scenario)
    session.run_task("pr.comment.resolve", {"threadId": bound["threadId"]})
    verdict = _checkpoints(scenario, bound, session)
    assert not verdict.success
    assert "got 1 item" in verdict.checkpoints[0]["detail"]


def test_triage_that_replaces_the_labels_fails_its_checkpoint(manifest: dict[str, Any]) -> None:
    scenario = _CATALOG.scenarios["issue-triage-wf-001"].scenario
    assert isinstance(scenario, WorkflowScenario)
    bound = bind_input(scenario, manifest)
    session = _session(scenario)
    session.run_task(
        "issue.labels.update", {"issueId": bound["issueId"], "labels": ["help wanted"]}
    )
    session.run_task("issue.comments.create", {"issueId": bound["issueId"], "body": "triaged"})
    verdict = _checkpoints(scenario, bound, session)
    assert [c["passed"] for c in verdict.checkpoints] == [False, True]


def test_starting_a_new_run_does_not_satisfy_the_rerun_checkpoint(
    manifest: dict[str, Any],
) -> None:
    scenario = _CATALOG.scenarios["ci-rerun-failed-jobs-wf-001"].scenario
    assert isinstance(scenario, WorkflowScenario)
    bound = bind_input(scenario, manifest)
    session = _session(scenario)
    dispatched = session.run_task(
        "workflow_dispatch.run",
        {**bound, "workflowId": "ci.yml", "ref": "fix/compaction-lock", "inputs": {}},
    )
    assert dispatched["ok"]
    assert not _checkpoints(scenario, bound, session).success
