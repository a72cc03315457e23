"""Judging atomic answers against assertions and workflows against checkpoints."""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_ghxbench.attempt.checkpoints import judge_workflow
from pytest_ghxbench.attempt.envelope import MAX_ANSWER_CHARS
from pytest_ghxbench.attempt.judge import Judgement, judge_atomic

# --------------------------------------------------------------------------- builders

_ASSERTION_DEFAULTS: dict[str, Any] = {
    "expected_outcome": None,
    "must_succeed": None,
    "expect_valid_output": True,
    "required_fields": [],
    "required_data_fields": [],
    "required_meta_fields": [],
    "data_type": None,
    "expected_route_used": None,
    "expected_error_code": None,
    "require_tool_calls": False,
    "min_tool_calls": None,
    "max_tool_calls": None,
    "require_attempt_trace": False,
}


def atomic(**assertions: Any) -> SimpleNamespace:
    values = {**_ASSERTION_DEFAULTS, **assertions}
    if values["expected_outcome"] is not None:
        outcome = values["expected_outcome"]
    else:
        outcome = "expected_error" if values["must_succeed"] is False else "success"
    return SimpleNamespace(
        kind="atomic",
        id="pr-view-001",
        task="pr.view",
        input={"owner": "o", "name": "r", "prNumber": 7},
        assertions=SimpleNamespace(outcome=outcome, **values),
    )


def answer(**fields: Any) -> str:
    envelope = {"ok": True, "data": {}, "error": None, "meta": {}}
    envelope.update(fields)
    return "Done.\n```json\n" + json.dumps(envelope) + "\n```"


def judge(
    scenario: SimpleNamespace,
    text: str | None,
    *,
    calls: int = 1,
    mode: str = "ghx",
    **kwargs: Any,
) -> Judgement:
    return judge_atomic(scenario, mode=mode, final_text=text, tool_call_count=calls, **kwargs)


# --------------------------------------------------------------------------- atomic: basics


def test_a_correct_answer_passes_and_the_envelope_is_kept() -> None:
    judgement = judge(atomic(required_data_fields=["number"]), answer(data={"number": 7}))
    assert judgement.failures == []
    assert judgement.passed and judgement.success and judgement.output_valid
    assert judgement.envelope == {"ok": True, "data": {"number": 7}, "error": None, "meta": {}}


def test_no_final_answer_fails_both_halves() -> None:
    judgement = judge(atomic(), None)
    assert (judgement.success, judgement.output_valid, judgement.envelope) == (False, False, None)
    assert judgement.failures == ["no final answer: the agent returned None instead of text"]


def test_a_final_answer_that_is_not_text_is_no_final_answer() -> None:
    judgement = judge(atomic(), b'{"ok": true}')  # type: ignore[arg-type]
    assert judgement.failures == ["no final answer: the agent returned bytes instead of text"]
    assert not judgement.output_valid


def test_an_answer_without_json_shows_what_the_agent_said() -> None:
    judgement = judge(atomic(), "I could not\nfind that PR.")
    assert (judgement.success, judgement.output_valid) == (False, False)
    assert judgement.failures == [
        "no JSON object found in the final answer: I could not\\nfind that PR."
    ]


def test_only_the_first_max_answer_chars_are_judged() -> None:
    text = "x" * MAX_ANSWER_CHARS + answer()
    judgement = judge(atomic(), text)
    assert not judgement.output_valid
    message = judgement.failures[0]
    assert message.startswith(
        f"no JSON object found in the final answer (only its first {MAX_ANSWER_CHARS} of "
        f"{len(text)} characters are judged): xxxx"
    )
    assert message.endswith(f"… (+{len(text) - 400} more chars)")


def test_every_failing_assertion_is_reported_in_order() -> None:
    scenario = atomic(
        required_data_fields=["state"],
        data_type="object",
        required_meta_fields=["route_used"],
        expected_route_used="cli",
        require_tool_calls=True,
    )
    text = answer(ok=False, data=[], meta={}, error={"code": "X"})
    judgement = judge(scenario, text, calls=0)
    assert judgement.failures == [
        "assertions.data_type: expected data to be an object, got array []",
        "assertions.required_meta_fields: meta lacks 'route_used' (has: no fields)",
        "assertions.expected_outcome: expected success (ok true, error null), "
        'got ok=false, error={"code": "X"}',
        'assertions.expected_route_used: expected meta.route_used "cli", got no meta.route_used',
        "assertions.require_tool_calls: expected at least 1 tool call, got 0",
    ]
    assert (judgement.success, judgement.output_valid) == (False, False)


# --------------------------------------------------------------------------- envelope shape


def test_required_fields_default_to_the_four_envelope_keys() -> None:
    judgement = judge(atomic(), '{"ok": true, "data": {}, "error": null}')
    assert judgement.failures == [
        "assertions.required_fields: envelope lacks 'meta' (has: ok, data, error)"
    ]
    assert judgement.success and not judgement.output_valid


def test_required_fields_can_be_narrowed() -> None:
    judgement = judge(
        atomic(required_fields=["ok", "error", "meta"]), '{"ok": true, "error": null, "meta": {}}'
    )
    assert judgement.failures == []


@pytest.mark.parametrize(
    ("fields", "failure"),
    [
        ({"ok": "yes"}, 'envelope.ok: expected true or false, got "yes"'),
        ({"error": "boom"}, 'envelope.error: expected null or an object, got "boom"'),
        ({"meta": []}, "envelope.meta: expected an object, got []"),
    ],
)
def test_envelope_keys_must_have_their_types(fields: dict[str, Any], failure: str) -> None:
    judgement = judge(atomic(), answer(**fields))
    assert not judgement.output_valid
    assert judgement.failures[0] == failure


def test_required_data_fields_of_an_object() -> None:
    scenario = atomic(required_data_fields=["number", "state"])
    failing = judge(scenario, answer(data={"number": 1, "title": "t"}))
    assert failing.failures == [
        "assertions.required_data_fields: data lacks 'state' (has: number, title)"
    ]
    assert failing.success and not failing.output_valid
    assert judge(scenario, answer(data={"number": 1, "state": "OPEN"})).passed


def test_required_data_fields_of_every_array_element() -> None:
    scenario = atomic(required_data_fields=["number", "state"])
    good = [{"number": 1, "state": "OPEN"}, {"number": 2, "state": "CLOSED"}]
    assert judge(scenario, answer(data=good)).passed
    assert judge(scenario, answer(data=[])).passed  # nothing to check
    one_bad = judge(scenario, answer(data=[good[0], {"number": 2}]))
    assert one_bad.failures == [
        "assertions.required_data_fields: data[1] lacks 'state' (has: number)"
    ]
    two_bad = judge(scenario, answer(data=[{"number": 1}, good[0], 3]))
    assert two_bad.failures == [
        "assertions.required_data_fields: 2 of 3 items are incomplete, "
        "first: data[0] lacks 'state' (has: number)"
    ]


def test_required_data_fields_need_data_to_hold_them() -> None:
    scenario = atomic(required_data_fields=["state"], required_fields=["ok"])
    assert judge(scenario, answer(data=None)).failures == [
        "assertions.required_data_fields: expected data to be an object with 'state', got null"
    ]
    assert judge(scenario, '{"ok": true}').failures == [
        "assertions.required_data_fields: data is missing, expected an object with 'state'"
    ]


@pytest.mark.parametrize(
    ("data_type", "data", "failure"),
    [
        ("array", [1], None),
        ("object", {"a": 1}, None),
        (
            "array",
            {"a": 1},
            'assertions.data_type: expected data to be an array, got object {"a": 1}',
        ),
        (
            "object",
            "text",
            'assertions.data_type: expected data to be an object, got string "text"',
        ),
        ("object", None, "assertions.data_type: expected data to be an object, got null"),
    ],
)
def test_data_type(data_type: str, data: Any, failure: str | None) -> None:
    judgement = judge(atomic(data_type=data_type), answer(data=data))
    assert judgement.failures == ([failure] if failure else [])


def test_required_meta_fields() -> None:
    scenario = atomic(required_meta_fields=["source"])
    assert judge(scenario, answer(meta={"source": "cli"})).passed
    assert judge(scenario, answer(meta={"attempts": []})).failures == [
        "assertions.required_meta_fields: meta lacks 'source' (has: attempts)"
    ]
    assert judge(scenario, answer(meta=None)).failures == [
        "envelope.meta: expected an object, got null",
        "assertions.required_meta_fields: expected meta to be an object with 'source', got null",
    ]


def test_require_attempt_trace() -> None:
    scenario = atomic(require_attempt_trace=True)
    assert judge(scenario, answer(meta={"attempts": [{"route": "cli", "status": "ok"}]})).passed
    assert judge(scenario, answer(meta={})).failures == [
        "assertions.require_attempt_trace: expected meta.attempts to be a non-empty list, "
        "got <missing>"
    ]
    assert judge(scenario, answer(meta={"attempts": []})).failures == [
        "assertions.require_attempt_trace: expected meta.attempts to be a non-empty list, got []"
    ]


def test_without_expect_valid_output_the_shape_is_not_enforced() -> None:
    scenario = atomic(expect_valid_output=False, required_data_fields=["state"], data_type="array")
    judgement = judge(scenario, '{"ok": true, "error": null}')
    assert judgement.passed and judgement.failures == []
    nothing = judge(scenario, "no json")
    assert (nothing.success, nothing.output_valid) == (False, True)
    assert nothing.failures == ["no JSON object found in the final answer: no json"]


# --------------------------------------------------------------------------- routes are mode-scoped


ROUTED = {"required_meta_fields": ["route_used"], "expected_route_used": "cli"}


def test_route_assertions_apply_in_the_ghx_mode() -> None:
    scenario = atomic(**ROUTED)
    assert judge(scenario, answer(meta={"route_used": "cli"}), mode="ghx").passed
    wrong = judge(scenario, answer(meta={"route_used": "graphql"}), mode="ghx")
    assert wrong.failures == [
        'assertions.expected_route_used: expected meta.route_used "cli", got "graphql"'
    ]
    assert wrong.output_valid and not wrong.success
    missing = judge(scenario, answer(meta={}), mode="ghx")
    assert missing.failures == [
        "assertions.required_meta_fields: meta lacks 'route_used' (has: no fields)",
        'assertions.expected_route_used: expected meta.route_used "cli", got no meta.route_used',
    ]


@pytest.mark.parametrize("mode", ["agent_direct", "mcp"])
def test_route_assertions_do_not_apply_in_other_modes(mode: str) -> None:
    scenario = atomic(**ROUTED)
    assert judge(scenario, answer(meta={}), mode=mode).failures == []
    assert judge(scenario, answer(meta={"route_used": "graphql"}), mode=mode).passed


def test_other_required_meta_fields_apply_in_every_mode() -> None:
    scenario = atomic(required_meta_fields=["route_used", "source"])
    assert judge(scenario, answer(meta={}), mode="mcp").failures == [
        "assertions.required_meta_fields: meta lacks 'source' (has: no fields)"
    ]


def test_the_route_mode_can_be_changed() -> None:
    scenario = atomic(**ROUTED)
    assert not judge(scenario, answer(meta={}), mode="mcp", route_mode="mcp").passed
    assert judge(scenario, answer(meta={}), mode="ghx", route_mode="mcp").passed


# --------------------------------------------------------------------------- outcomes


def test_success_needs_ok_true_and_no_error() -> None:
    scenario = atomic(expected_outcome="success")
    failed = judge(scenario, answer(ok=False, error={"code": "NOT_FOUND"}))
    assert failed.failures == [
        "assertions.expected_outcome: expected success (ok true, error null), "
        'got ok=false, error={"code": "NOT_FOUND"}'
    ]
    assert failed.output_valid and not failed.success
    with_error = judge(scenario, answer(error={"code": "PARTIAL"}))
    assert with_error.failures == [
        "assertions.expected_outcome: expected success (ok true, error null), "
        'got ok=true, error={"code": "PARTIAL"}'
    ]


ERROR_EXPECTED = {"expected_outcome": "expected_error", "expected_error_code": "NOT_FOUND"}


def test_an_expected_error_with_the_right_code_passes() -> None:
    judgement = judge(
        atomic(**ERROR_EXPECTED), answer(ok=False, data=None, error={"code": "NOT_FOUND"})
    )
    assert judgement.failures == [] and judgement.passed


def test_an_expected_error_with_the_wrong_code_fails() -> None:
    judgement = judge(atomic(**ERROR_EXPECTED), answer(ok=False, error={"code": "VALIDATION"}))
    assert judgement.failures == [
        'assertions.expected_error_code: expected error.code "NOT_FOUND", got "VALIDATION"'
    ]


def test_success_when_an_error_was_expected_fails_both_outcome_assertions() -> None:
    judgement = judge(atomic(**ERROR_EXPECTED), answer())
    assert judgement.failures == [
        "assertions.expected_outcome: expected an error (ok false, error an object), "
        "got ok=true, error=null",
        'assertions.expected_error_code: expected error.code "NOT_FOUND", got no error object',
    ]


def test_legacy_must_succeed_false_expects_an_error_and_is_named_in_failures() -> None:
    scenario = atomic(must_succeed=False, expected_error_code="NOT_FOUND")
    assert judge(scenario, answer(ok=False, error={"code": "NOT_FOUND"})).passed
    assert judge(scenario, answer()).failures[0].startswith("assertions.must_succeed: ")


# --------------------------------------------------------------------------- tool calls


@pytest.mark.parametrize(
    ("assertions", "calls", "failure"),
    [
        (
            {"require_tool_calls": True},
            0,
            "assertions.require_tool_calls: expected at least 1 tool call, got 0",
        ),
        ({"require_tool_calls": True}, 1, None),
        (
            {"min_tool_calls": 1},
            0,
            "assertions.min_tool_calls: expected at least 1 tool call, got 0",
        ),
        (
            {"min_tool_calls": 2},
            1,
            "assertions.min_tool_calls: expected at least 2 tool calls, got 1",
        ),
        ({"min_tool_calls": 2}, 2, None),
        (
            {"max_tool_calls": 4},
            5,
            "assertions.max_tool_calls: expected at most 4 tool calls, got 5",
        ),
        ({"max_tool_calls": 4}, 4, None),
        (
            {"max_tool_calls": 1},
            2,
            "assertions.max_tool_calls: expected at most 1 tool call, got 2",
        ),
    ],
)
def test_tool_call_bounds(assertions: dict[str, Any], calls: int, failure: str | None) -> None:
    judgement = judge(atomic(**assertions), answer(), calls=calls)
    assert judgement.failures == ([failure] if failure else [])
    assert judgement.output_valid and judgement.success == (failure is None)


def test_tool_call_failures_are_reported_even_without_an_envelope() -> None:
    judgement = judge(atomic(require_tool_calls=True), "sorry", calls=0)
    assert judgement.failures == [
        "no JSON object found in the final answer: sorry",
        "assertions.require_tool_calls: expected at least 1 tool call, got 0",
    ]


# --------------------------------------------------------------------------- real scenario models


def test_a_real_atomic_scenario_model_is_judged() -> None:
    models = pytest.importorskip("pytest_ghxbench.scenario.models")
    scenario = models.AtomicScenario.model_validate(
        {
            "id": "pr-view-001",
            "name": "View a pull request",
            "task": "pr.view",
            "input": {"owner": "o", "name": "r", "prNumber": 1},
            "prompt_template": "Execute task {{task}} with {{input_json}}.",
            "timeout_ms": 60000,
            "allowed_retries": 0,
            "assertions": {
                "require_tool_calls": True,
                "min_tool_calls": 1,
                "max_tool_calls": 4,
                "required_fields": ["ok", "data", "error", "meta"],
                "required_data_fields": ["number", "title", "state"],
                "required_meta_fields": ["route_used"],
                "expected_route_used": "cli",
                "expected_outcome": "success",
            },
        }
    )
    good = answer(data={"number": 1, "title": "t", "state": "OPEN"}, meta={"route_used": "cli"})
    assert judge_atomic(scenario, mode="ghx", final_text=good, tool_call_count=2).passed
    direct = answer(data={"number": 1, "title": "t", "state": "OPEN"})
    assert judge_atomic(scenario, mode="agent_direct", final_text=direct, tool_call_count=2).passed
    assert judge_atomic(scenario, mode="ghx", final_text=direct, tool_call_count=5).failures == [
        "assertions.required_meta_fields: meta lacks 'route_used' (has: no fields)",
        'assertions.expected_route_used: expected meta.route_used "cli", got no meta.route_used',
        "assertions.max_tool_calls: expected at most 4 tool calls, got 5",
    ]


# --------------------------------------------------------------------------- workflow


def checkpoint(condition: str, expected_value: Any = None, **fields: Any) -> SimpleNamespace:
    values = {
        "name": "all_threads_resolved",
        "verification_task": "pr.comments.list",
        "verification_input": {},
        "verification_field": None,
        "condition": condition,
        "expected_value": expected_value,
    }
    values.update(fields)
    return SimpleNamespace(**values)


def workflow(*checkpoints: SimpleNamespace, outcome: str = "success") -> SimpleNamespace:
    return SimpleNamespace(
        kind="workflow",
        id="pr-fix-review-comments-wf-001",
        input={},
        assertions=SimpleNamespace(expected_outcome=outcome, checkpoints=list(checkpoints)),
    )


class FakeBackend:
    """Answers verification tasks with canned data and records what it was asked."""

    def __init__(self, data: Any = None, **results: Mapping[str, Any]) -> None:
        self.default = {"ok": True, "data": data, "error": None, "meta": {}}
        self.results = results
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def run_task(self, task: str, task_input: Mapping[str, Any]) -> Mapping[str, Any]:
        self.calls.append((task, dict(task_input)))
        return self.results.get(task.replace(".", "_"), self.default)


def judge_wf(
    scenario: SimpleNamespace, backend: FakeBackend | None, text: str | None = "Done."
) -> Judgement:
    return judge_workflow(
        scenario,
        bound_input={"owner": "o", "name": "r", "prNumber": 7},
        final_text=text,
        tool_call_count=3,
        run_task=backend.run_task if backend is not None else None,
    )


def test_verification_input_overlays_the_bound_input() -> None:
    backend = FakeBackend(data=[])
    cp = checkpoint("empty", verification_input={"unresolvedOnly": True, "prNumber": 8})
    judge_wf(workflow(cp), backend)
    assert backend.calls == [
        ("pr.comments.list", {"owner": "o", "name": "r", "prNumber": 8, "unresolvedOnly": True})
    ]


@pytest.mark.parametrize(
    ("condition", "expected_value", "data", "passed", "detail"),
    [
        ("empty", None, [], True, "empty"),
        ("empty", None, None, True, "nothing (null)"),
        ("empty", None, [{"id": 1}, {"id": 2}], False, "got 2 items"),
        ("empty", None, {"id": 1}, False, 'got {"id": 1}'),
        ("non_empty", None, [{"id": 1}], True, "1 item"),
        ("non_empty", None, {"id": 1}, True, 'got {"id": 1}'),
        ("non_empty", None, [], False, "got 0 items"),
        ("non_empty", None, None, False, "got nothing (null)"),
        ("count_eq", 2, [1, 2], True, "got 2 items, expected exactly 2"),
        ("count_eq", 2, [1, 2, 3], False, "got 3 items, expected exactly 2"),
        ("count_eq", 0, {"a": 1}, False, 'expected a list, got {"a": 1}'),
        ("count_gte", 2, [1, 2, 3], True, "got 3 items, expected at least 2"),
        ("count_gte", 2, [1], False, "got 1 item, expected at least 2"),
        (
            "field_equals",
            {"state": "CLOSED"},
            {"state": "CLOSED", "n": 1},
            True,
            "'state' as expected",
        ),
        (
            "field_equals",
            {"state": "CLOSED", "locked": True},
            {"state": "OPEN", "locked": 1},
            False,
            'state: expected "CLOSED", got "OPEN"; locked: expected true, got 1',
        ),
        ("field_equals", {"state": "CLOSED"}, {}, False, 'state: expected "CLOSED", got <missing>'),
        ("field_equals", {"state": "CLOSED"}, [], False, "expected an object, got []"),
        (
            "contains",
            "finally",
            "try:\n    x()\nfinally:\n",
            True,
            '"finally" found in "try:\\n    x()\\nfinally:\\n"',
        ),
        ("contains", "Finally", "finally:", False, '"Finally" not found in "finally:"'),
        (
            "contains",
            "5e1c0b2",
            [{"body": "fixed in 5e1c0b2"}],
            True,
            '"5e1c0b2" found in "{\\"body\\": \\"fixed in 5e1c0b2\\"}"',
        ),
        ("contains", "x", [], False, '"x" not found in 0 items'),
        (
            "not_contains",
            "assert not done",
            "assert done.wait(5)",
            True,
            '"assert not done" not found in "assert done.wait(5)"',
        ),
        ("not_contains", "assert", ["a", "assert b"], False, '"assert" found in "assert b"'),
        ("contains", "x", None, False, '"x" not found in null'),
    ],
)
def test_conditions(
    condition: str, expected_value: Any, data: Any, passed: bool, detail: str
) -> None:
    cp = checkpoint(condition, expected_value)
    judgement = judge_wf(workflow(cp), FakeBackend(data=data))
    assert judgement.checkpoints == [
        {"name": "all_threads_resolved", "passed": passed, "detail": detail}
    ]
    assert judgement.success is passed and judgement.output_valid
    expected_failures = (
        []
        if passed
        else [
            f"checkpoint 'all_threads_resolved' (pr.comments.list, condition {condition}): {detail}"
        ]
    )
    assert judgement.failures == expected_failures


def test_an_items_list_is_unwrapped() -> None:
    data = {"items": [{"id": 1}, {"id": 2}], "pageInfo": {"hasNextPage": False}}
    judgement = judge_wf(workflow(checkpoint("count_eq", 2)), FakeBackend(data=data))
    assert judgement.passed
    assert judgement.checkpoints[0]["detail"] == "got 2 items, expected exactly 2"


def test_verification_field_selects_part_of_the_data() -> None:
    data = {"number": 7, "labels": ["bug"], "items": []}
    labelled = checkpoint("non_empty", verification_field="labels")
    assert judge_wf(workflow(labelled), FakeBackend(data=data)).passed
    absent = checkpoint("non_empty", verification_field="assignees")
    judgement = judge_wf(workflow(absent), FakeBackend(data=data))
    assert judgement.checkpoints[0]["detail"] == "got nothing (null)"
    state = checkpoint("field_equals", {"state": "CLOSED"}, verification_field="pr")
    assert judge_wf(workflow(state), FakeBackend(data={"pr": {"state": "CLOSED"}})).passed


def test_verification_field_of_data_that_is_not_an_object_is_absent() -> None:
    cp = checkpoint("non_empty", verification_field="labels")
    assert not judge_wf(workflow(cp), FakeBackend(data=[{"labels": ["bug"]}])).passed


def test_a_verification_task_that_raises_fails_its_checkpoint_only() -> None:
    class Broken(FakeBackend):
        def run_task(self, task: str, task_input: Mapping[str, Any]) -> Mapping[str, Any]:
            if task == "pr.reviews.list":
                raise RuntimeError("backend down")
            return super().run_task(task, task_input)

    reviews = checkpoint("non_empty", name="review_submitted", verification_task="pr.reviews.list")
    judgement = judge_wf(workflow(checkpoint("empty"), reviews), Broken(data=[]))
    assert judgement.failures == [
        "checkpoint 'review_submitted' (pr.reviews.list, condition non_empty): "
        "verification task raised RuntimeError: backend down"
    ]
    assert [c["passed"] for c in judgement.checkpoints] == [True, False]
    assert not judgement.success


def test_a_verification_task_answering_ok_false_fails_with_its_error() -> None:
    failing = {"ok": False, "data": None, "error": {"code": "NOT_FOUND", "message": "no PR"}}
    backend = FakeBackend(pr_comments_list=failing)
    judgement = judge_wf(workflow(checkpoint("empty")), backend)
    assert judgement.failures == [
        "checkpoint 'all_threads_resolved' (pr.comments.list, condition empty): verification "
        'task failed: ok=false, error={"code": "NOT_FOUND", "message": "no PR"}'
    ]


def test_a_verification_task_returning_no_envelope_fails() -> None:
    backend = FakeBackend(pr_comments_list="oops")  # type: ignore[arg-type]
    judgement = judge_wf(workflow(checkpoint("empty")), backend)
    assert (
        judgement.checkpoints[0]["detail"] == "verification task returned str, expected an envelope"
    )


def test_without_a_backend_every_checkpoint_fails() -> None:
    second = checkpoint("non_empty", name="comment_added", verification_task="issue.comments.list")
    judgement = judge_wf(workflow(checkpoint("empty"), second), None)
    assert judgement.failures == [
        "checkpoint 'all_threads_resolved' (pr.comments.list, condition empty): "
        "no backend to verify checkpoints",
        "checkpoint 'comment_added' (issue.comments.list, condition non_empty): "
        "no backend to verify checkpoints",
    ]


@pytest.mark.parametrize(
    ("text", "failure"),
    [
        ("Done.", None),
        ("  \n", "no final answer: the final answer is blank (  \\n)"),
        ("", "no final answer: the final answer is blank (<empty>)"),
        (None, "no final answer: the agent returned None instead of text"),
    ],
)
def test_workflow_output_is_valid_when_the_agent_answered(
    text: str | None, failure: str | None
) -> None:
    judgement = judge_wf(workflow(checkpoint("empty")), FakeBackend(data=[]), text)
    assert judgement.output_valid is (failure is None)
    assert judgement.success  # the checkpoints still decide success
    assert judgement.failures == ([failure] if failure else [])


def test_expected_error_workflows_need_a_checkpoint_not_to_hold() -> None:
    scenario = workflow(checkpoint("empty"), outcome="expected_error")
    held = judge_wf(scenario, FakeBackend(data=[]))
    assert not held.success
    assert held.failures == [
        "assertions.expected_outcome: expected_error means the checkpoints must not all hold, "
        "but all 1 passed"
    ]
    broken = judge_wf(scenario, FakeBackend(data=[1]))
    assert broken.success and broken.failures == []
    assert broken.checkpoints == [
        {"name": "all_threads_resolved", "passed": False, "detail": "got 1 item"}
    ]


def test_a_malformed_expected_value_fails_the_checkpoint_instead_of_crashing() -> None:
    judgement = judge_wf(workflow(checkpoint("count_gte", "many")), FakeBackend(data=[1]))
    assert not judgement.success
    assert judgement.checkpoints[0]["detail"].startswith(
        "cannot test condition 'count_gte': ValueError"
    )
