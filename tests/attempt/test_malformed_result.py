"""An adapter that returns a malformed ``RunResult`` (a field of the wrong type or shape) gets a
runner-error row with one line naming the field, and none of the result's content (secrets
included) reaches the row, the transcript, the terminal or the junit report."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.api import RunResult, Tokens, ToolCall
from pytest_ghxbench.attempt.rows import result_problem
from tests.plugin.support import CONFTEST, atomic, read_rows, setup_project

SECRET = "ghp_CANARY0123456789abcdefSECRET"

# An adapter whose answer and transcript carry the token, and whose result is broken as
# behaviour.json's "break" says.
MALFORMED = textwrap.dedent(
    """

    class Malformed(ScriptedAdapter):
        name = "malformed"

        def run(self, request):
            secret = os.environ["DEMO_API_TOKEN"]
            b = behaviour(request.scenario.id, request.mode)
            calls = [gb.ToolCall(name="bash", arguments={"command": "gh " + secret})
                     for _ in range(3)]
            result = gb.RunResult(
                final_text="the token is " + secret, tool_calls=calls,
                transcript={"secret": secret}, model="test/m",
            )
            broken = b["break"]
            if broken == "tool_calls_none":
                result.tool_calls = None
            elif broken == "arguments_str":
                calls[2] = gb.ToolCall(name="bash", arguments="gh auth token " + secret)
            elif broken == "session_id_int":
                result.session_id = 12345
            return result


    def pytest_ghxbench_adapters(config):
        return [Malformed()]
    """
)


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        (
            "tool_calls_none",
            "adapter returned a malformed RunResult: tool_calls must be a list or tuple of "
            "ToolCall, got NoneType",
        ),
        (
            "arguments_str",
            "adapter returned a malformed RunResult: tool_calls[2].arguments must be a "
            "mapping, got str",
        ),
        (
            "session_id_int",
            "adapter returned a malformed RunResult: session_id must be a str or None, got int",
        ),
    ],
)
def test_a_malformed_result_is_one_redacted_runner_error_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, broken: str, message: str
) -> None:
    monkeypatch.setenv("DEMO_API_TOKEN", SECRET)
    setup_project(pytester, [atomic("repo-view-001")], {"*": {"*": {"break": broken}}})
    pytester.makeconftest(CONFTEST + MALFORMED)

    result = pytester.runpytest_subprocess(
        "--ghx-mode=ghx", "--ghx-adapter=malformed", "-p", "no:cacheprovider", "--junitxml=j.xml"
    )

    result.assert_outcomes(failed=1)
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output and "INTERNALERROR" not in output
    assert len(output.splitlines()) < 60, output
    assert f"  - runner error: {message}\n" in result.stdout.str()
    (row,) = read_rows(pytester)
    assert row["error"] == {"type": "runner_error", "message": message}
    assert (row["success"], row["output_valid"]) == (False, False)
    written = [p for p in (pytester.path / ".ghxbench").rglob("*") if p.is_file()]
    assert any("transcripts" in p.parts for p in written)
    for path in [*written, pytester.path / "j.xml"]:
        assert SECRET not in path.read_text(encoding="utf-8", errors="replace"), path
    assert SECRET not in output


def _problem(**fields: Any) -> str | None:
    return result_problem(RunResult(final_text="ok", **fields))


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"tool_calls": None}, "tool_calls must be a list or tuple of ToolCall, got NoneType"),
        ({"tool_calls": iter(())}, "tool_calls must be a list or tuple of ToolCall, got "),
        (
            {"tool_calls": [ToolCall("a"), {"name": "b"}]},
            "tool_calls[1] must be a ToolCall, got dict",
        ),
        ({"tool_calls": [ToolCall(7)]}, "tool_calls[0].name must be a str, got int"),  # type: ignore[arg-type]
        (
            {"tool_calls": [ToolCall("a", ok="yes")]},  # type: ignore[arg-type]
            "tool_calls[0].ok must be a bool, got str",
        ),
        (
            {"tool_calls": [ToolCall("a", output=b"x")]},  # type: ignore[arg-type]
            "tool_calls[0].output must be a str or None, got bytes",
        ),
        ({"model": ["m"]}, "model must be a str or None, got list"),
        ({"api_calls": 2.5}, "api_calls must be a whole number or None, got float"),
        ({"internal_retry_count": None}, "internal_retry_count must be a whole number, got"),
        ({"timing_breakdown": [1.0]}, "timing_breakdown must be a mapping or None, got list"),
        ({"latency_ms": "5"}, "latency_ms must be a number or None, got str"),
        ({"cost_usd": True}, "cost_usd must be a number or None, got bool"),
    ],
)
def test_each_malformed_field_is_named(fields: dict[str, Any], expected: str) -> None:
    problem = _problem(**fields)
    assert problem is not None
    assert problem.startswith("adapter returned a malformed RunResult: " + expected), problem
    assert "\n" not in problem


def test_a_well_formed_result_has_no_problem() -> None:
    assert (
        _problem(
            tokens=Tokens(input=3),
            tool_calls=(ToolCall("bash", {"c": 1}, duration_ms=3.0),),
            cost_usd=0,
            latency_ms=12.5,
            startup_ms=0.0,
            sdk_latency_ms=11,
            session_id="s",
            model="m",
            api_calls=2,
            timing_breakdown={"tool_ms": 1.0},
        )
        is None
    )


def test_the_transcript_of_a_malformed_result_has_no_answer(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEMO_API_TOKEN", SECRET)
    setup_project(pytester, [atomic("repo-view-001")], {"*": {"*": {"break": "arguments_str"}}})
    pytester.makeconftest(CONFTEST + MALFORMED)
    pytester.runpytest_subprocess("--ghx-mode=ghx", "--ghx-adapter=malformed")
    (path,) = Path(pytester.path / ".ghxbench" / "runs").glob("run_*/transcripts/*.jsonl")
    (record,) = [json.loads(line) for line in path.read_text().splitlines()]
    assert record["failure_kind"] == "adapter_bug"
    assert record["runner_error"].startswith("adapter returned a malformed RunResult:")
    assert record["final_text"] is None and record["tool_calls"] == []
    assert record["traceback"] is None
