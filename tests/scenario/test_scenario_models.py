"""Every validation rule of the scenario format, with the message a user sees."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_ghxbench.scenario import (
    AtomicScenario,
    ScenarioError,
    WorkflowScenario,
    load_scenario_file,
    parse_scenario,
)

Variant = Callable[[str, dict[int, str]], str]
Write = Callable[..., Path]


def _only_problem(path: Path) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        load_scenario_file(path)
    problems = caught.value.problems
    assert len(problems) == 1, str(caught.value)
    return problems[0]


def test_valid_atomic_loads_with_defaults(write: Write, variant: Variant) -> None:
    scenario = load_scenario_file(write("s.yaml", variant("atomic", {})))
    assert isinstance(scenario, AtomicScenario)
    assert scenario.kind == "atomic" and scenario.type == "atomic"
    assert scenario.task == "pr.view"
    assert scenario.input == {"owner": "OWNER", "name": "REPO", "prNumber": 0}
    assert scenario.fixture is not None and scenario.fixture.requires == ["pr"]
    assert scenario.assertions.outcome == "success"
    assert scenario.assertions.expect_valid_output is True
    assert scenario.assertions.require_attempt_trace is False
    assert scenario.tags == ["pr", "view"]


def test_valid_workflow_loads(write: Write, variant: Variant) -> None:
    scenario = load_scenario_file(write("w.yaml", variant("workflow", {})))
    assert isinstance(scenario, WorkflowScenario)
    assert scenario.kind == "workflow"
    checkpoint = scenario.assertions.checkpoints[0]
    assert (checkpoint.condition, checkpoint.expected_value) == ("count_gte", 1)
    assert checkpoint.verification_input == {"first": 10}
    assert scenario.assertions.expected_outcome == "success"
    assert scenario.oracle is not None and scenario.oracle[0].input["owner"] == "{{owner}}"


@pytest.mark.parametrize(
    ("legacy", "expected"),
    [("must_succeed: true", "success"), ("must_succeed: false", "expected_error")],
)
def test_legacy_must_succeed_sets_the_outcome(
    write: Write, variant: Variant, legacy: str, expected: str
) -> None:
    code = "  expected_error_code: NOT_FOUND" if expected == "expected_error" else "  # none"
    text = variant("atomic", {18: f"  {legacy}", 19: code})
    scenario = load_scenario_file(write("s.yaml", text))
    assert isinstance(scenario, AtomicScenario)
    assert scenario.assertions.outcome == expected


def test_outcome_defaults_to_success_without_either_field(write: Write, variant: Variant) -> None:
    scenario = load_scenario_file(write("s.yaml", variant("atomic", {18: "  # none"})))
    assert isinstance(scenario, AtomicScenario)
    assert scenario.assertions.outcome == "success"


def _problem_for(path: Path, field: str) -> ScenarioError:
    """The problem reported for ``field`` (other fields may have problems too)."""
    with pytest.raises(ScenarioError) as caught:
        load_scenario_file(path)
    matching = [p for p in caught.value.problems if p.field == field]
    assert matching, str(caught.value)
    return matching[0]


ATOMIC_CASES = [
    # (line replacements, reported line, field, message fragment)
    (
        {1: "id: PR-View-1"},
        1,
        "id",
        "kebab-case ending in -NNN, e.g. 'pr-view-001', got 'PR-View-1'",
    ),
    ({3: "task: PR View"}, 3, "task", "a capability id of dotted lower_snake_case words"),
    ({3: "task: view"}, 3, "task", "got 'view'"),
    (
        {8: 'prompt_template: "Run {{taks}}"'},
        8,
        "prompt_template",
        "unknown placeholder {{taks}}; allowed: {{task}}, {{scenario_id}}, {{input_json}}, "
        "{{fixture_repo}}",
    ),
    ({9: "timeout_ms: 0"}, 9, "timeout_ms", "must be greater than 0, got 0"),
    ({9: 'timeout_ms: "60000"'}, 9, "timeout_ms", "must be an integer, got '60000'"),
    ({10: "allowed_retries: -1"}, 10, "allowed_retries", "greater than or equal to 0, got -1"),
    ({12: "  repo: widgets"}, 12, "fixture.repo", "must be 'owner/name', got 'widgets'"),
    (
        {14: "    params.owner: repo.owner"},
        14,
        "fixture.bindings.params.owner",
        "must be a path into input such as 'input.prNumber', got 'params.owner'",
    ),
    (
        {14: "    input.owner: repo owner"},
        14,
        "fixture.bindings.input.owner",
        "must be a dotted manifest path such as 'resources.pr.number', got 'repo owner'",
    ),
    (
        {18: "  expected_outcome: sucess"},
        18,
        "assertions.expected_outcome",
        "must be 'success' or 'expected_error', got 'sucess'",
    ),
    (
        {18: "  must_succed: true"},
        18,
        "assertions.must_succed",
        "unknown field; did you mean 'must_succeed'?",
    ),
    (
        {18: "  expected_outcome: expected_error"},
        17,
        "assertions.expected_error_code",
        "required when the expected outcome is 'expected_error'",
    ),
    (
        {18: "  must_succeed: false"},
        17,
        "assertions.expected_error_code",
        "required when the expected outcome is 'expected_error'",
    ),
    (
        {19: "  must_succeed: false"},
        19,
        "assertions.must_succeed",
        "false means 'expected_error' but expected_outcome is 'success'",
    ),
    (
        {19: "  expected_error_code: NOT_FOUND"},
        19,
        "assertions.expected_error_code",
        "given ('NOT_FOUND') but the expected outcome is 'success'",
    ),
    (
        {19: "  data_type: list"},
        19,
        "assertions.data_type",
        "must be 'array' or 'object', got 'list'",
    ),
    (
        {20: "  min_tool_calls: -1"},
        20,
        "assertions.min_tool_calls",
        "greater than or equal to 0, got -1",
    ),
    (
        {21: "  max_tool_calls: 0"},
        21,
        "assertions.max_tool_calls",
        "must be >= min_tool_calls (1), got 0",
    ),
    (
        {19: "  require_tool_calls: true", 20: "  # no min", 21: "  max_tool_calls: 0"},
        21,
        "assertions.max_tool_calls",
        "must be >= 1 when require_tool_calls is true, got 0",
    ),
    (
        {19: "  expect_valid_output: yes please"},
        19,
        "assertions.expect_valid_output",
        "true or false",
    ),
    ({22: "tags: [pr, 'two words']"}, 22, "tags[1]", "a non-empty tag without spaces"),
    ({22: "tag: [pr]"}, 22, "tag", "unknown field; did you mean 'tags'?"),
    ({2: "# no name"}, None, "name", "required field is missing"),
    ({2: "name: '  '"}, 2, "name", "must not be empty"),
    (
        {4: "input: [1]", 5: "#", 6: "#", 7: "#"},
        4,
        "input",
        "must be an object (a mapping of keys to values), got [1]",
    ),
    (
        {14: "    input.owner.login: repo.owner"},
        11,
        "fixture",
        "binding target 'input.owner.login' goes through input.owner, which is not an object",
    ),
]


@pytest.mark.parametrize(("replacements", "line", "field", "fragment"), ATOMIC_CASES)
def test_atomic_rule_reports_file_line_field_and_problem(
    write: Write,
    variant: Variant,
    replacements: dict[int, str],
    line: int | None,
    field: str,
    fragment: str,
) -> None:
    path = write("scenarios/pr-view-001.yaml", variant("atomic", replacements))
    problem = _only_problem(path)
    assert (problem.path, problem.line, problem.field) == (path, line, field)
    assert fragment in problem.message
    where = f"{path}:{line}" if line is not None else str(path)
    assert str(problem).startswith(f"{where}: {field}: ")


WORKFLOW_CASES = [
    ({1: "type: workflw"}, 1, "type", "must be 'atomic' or 'workflow'"),
    ({2: "id: pr-triage-001"}, 2, "id", "kebab-case ending in -wf-NNN"),
    (
        {4: 'prompt: "Review PR #{{prNumbr}}"'},
        4,
        "prompt",
        "unknown placeholder {{prNumbr}}: placeholders must be keys of input or binding "
        "targets (input.<key>); known keys: owner, prNumber, repo",
    ),
    ({11: "expected_capabilities: [PR View]"}, 11, "expected_capabilities[0]", "capability id"),
    ({12: "timeout_ms: 1.5"}, 12, "timeout_ms", "must be an integer, got 1.5"),
    (
        {19: "      condition: nonempty"},
        19,
        "assertions.checkpoints[0].condition",
        "must be 'empty', 'non_empty', 'count_eq', 'count_gte', 'field_equals', 'contains' or "
        "'not_contains'",
    ),
    (
        {20: "      expected_value: one"},
        20,
        "assertions.checkpoints[0].expected_value",
        "condition 'count_gte' needs a non-negative integer, got 'one'",
    ),
    (
        {19: "      condition: count_eq", 20: "      verification_field: state"},
        16,
        "assertions.checkpoints[0].expected_value",
        "required for condition 'count_eq'",
    ),
    (
        {19: "      condition: field_equals", 20: "      expected_value: 3"},
        20,
        "assertions.checkpoints[0].expected_value",
        "condition 'field_equals' needs a non-empty object of field: value, got 3",
    ),
    (
        {19: "      condition: empty"},
        20,
        "assertions.checkpoints[0].expected_value",
        "not used by condition 'empty'",
    ),
    (
        {15: "  checkpoints: []", 16: "#", 17: "#", 18: "#", 19: "#", 20: "#"},
        15,
        "assertions.checkpoints",
        "at least one checkpoint is required",
    ),
    (
        {17: "      verification_tsk: pr.reviews.list"},
        17,
        "assertions.checkpoints[0].verification_tsk",
        "did you mean 'verification_task'?",
    ),
    ({24: "    inputs: {}"}, 24, "oracle[0].inputs", "did you mean 'input'?"),
]


@pytest.mark.parametrize(("replacements", "line", "field", "fragment"), WORKFLOW_CASES)
def test_workflow_rule_reports_file_line_field_and_problem(
    write: Write,
    variant: Variant,
    replacements: dict[int, str],
    line: int | None,
    field: str,
    fragment: str,
) -> None:
    path = write("scenarios/workflows/w.yaml", variant("workflow", replacements))
    problem = _problem_for(path, field)
    assert problem.line == line
    assert fragment in problem.message


def test_duplicate_checkpoint_names_are_rejected(write: Write, variant: Variant) -> None:
    text = variant("workflow", {}).replace(
        "tags: [workflow, pr]",
        "    - name: review_submitted\n"
        "      verification_task: pr.view\n"
        "      condition: non_empty\n"
        "tags: [workflow, pr]",
    )
    problem = _only_problem(write("w.yaml", text))
    assert problem.field == "assertions.checkpoints"
    assert "checkpoint name 'review_submitted' is used twice" in problem.message


def test_a_prompt_file_without_type_is_pointed_at_type_workflow(
    write: Write, variant: Variant
) -> None:
    problem = _only_problem(write("w.yaml", variant("workflow", {1: "# forgot the type"})))
    assert problem.field == "type"
    assert "add 'type: workflow'" in problem.message


def test_all_problems_of_a_file_are_reported_in_line_order(write: Write, variant: Variant) -> None:
    text = variant("atomic", {21: "  max_tool_calls: 0", 3: "task: x", 9: "timeout_ms: -1"})
    path = write("s.yaml", text)
    with pytest.raises(ScenarioError) as caught:
        load_scenario_file(path)
    assert [(p.line, p.field) for p in caught.value.problems] == [
        (3, "task"),
        (9, "timeout_ms"),
        (21, "assertions.max_tool_calls"),
    ]
    assert str(caught.value).splitlines()[2] == (
        f"{path}:21: assertions.max_tool_calls: must be >= min_tool_calls (1), got 0"
    )
    assert [str(p) for p in caught.value.split()] == str(caught.value).splitlines()


def test_json_errors_carry_the_line_of_the_field(write: Write) -> None:
    path = write(
        "s.json",
        """\
        {
          "id": "x-001",
          "name": "x",
          "task": "repo.view",
          "input": {},
          "prompt_template": "{{task}}",
          "timeout_ms": 1,
          "allowed_retries": 0,
          "assertions": {
            "min_tool_calls": 3,
            "max_tool_calls": 2
          }
        }
        """,
    )
    problem = _only_problem(path)
    assert (
        str(problem)
        == f"{path}:11: assertions.max_tool_calls: must be >= min_tool_calls (3), got 2"
    )


def test_parse_scenario_works_on_data_without_line_information() -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario({"type": "workflow"}, path=Path("inline.yaml"))
    fields = {p.field for p in caught.value.problems}
    assert {"id", "name", "prompt", "timeout_ms", "allowed_retries", "assertions"} <= fields
    assert all(p.line is None for p in caught.value.problems)
