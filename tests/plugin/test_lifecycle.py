"""End to end through pytester: items, outcomes, rows, reruns, timeouts, faults."""

from __future__ import annotations

import json

import pytest

from tests.plugin.support import atomic, read_rows, setup_project, summary


def test_items_run_and_each_writes_one_row(pytester: pytest.Pytester) -> None:
    setup_project(
        pytester,
        [atomic("repo-view-001"), atomic("issue-view-001", "issue.view", input={"issueNumber": 7})],
    )
    result = pytester.runpytest("--ghx-mode=agent_direct,ghx", "--reps=2")
    result.assert_outcomes(passed=8)
    rows = read_rows(pytester)
    assert len(rows) == 8
    names = sorted(r["item_id"].rsplit("::", 1)[-1] for r in rows)
    assert names[0] == "issue-view-001[agent_direct-r1]"
    row = rows[0]
    for key in (
        "timestamp",
        "run_id",
        "mode",
        "scenario_id",
        "scenario_set",
        "iteration",
        "session_id",
        "success",
        "output_valid",
        "latency_ms_wall",
        "sdk_latency_ms",
        "tokens",
        "cost",
        "tool_calls",
        "api_calls",
        "internal_retry_count",
        "external_retry_count",
        "model",
        "git",
        "error",
    ):
        assert key in row, key
    assert row["tokens"]["total"] == 1100
    assert row["model"] == {"provider_id": "test", "model_id": "scripted-1", "mode": row["mode"]}
    assert row["success"] and row["output_valid"] and row["error"] is None
    assert len({r["run_id"] for r in rows}) == 1
    # Everything of the run is in its own directory, which `latest` points at.
    (run_id,) = {r["run_id"] for r in rows}
    run = pytester.path / ".ghxbench" / "runs" / run_id
    assert (pytester.path / ".ghxbench" / "runs" / "latest").resolve() == run.resolve()
    assert {p.name for p in run.iterdir()} >= {
        "run.json", "rows.jsonl", "transcripts", "summary.json", "summary.md"
    }  # fmt: skip
    spec = json.loads((run / "run.json").read_text())
    assert (spec["schema_version"], spec["run_id"], spec["adapter"]) == (1, run_id, "scripted")
    assert all(r["schema_version"] == 1 for r in rows)
    assert rows[0]["transcript"] == {"file": "transcripts/main.jsonl", "attempt": 1}
    assert summary(pytester)["modes"]["ghx"]["runs"] == 4
    assert summary(pytester)["schema_version"] == 1


def test_a_second_run_keeps_the_first(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    pytester.runpytest("--ghx-mode=ghx")
    first = json.loads((pytester.path / ".ghxbench/runs/latest/run.json").read_text())["run_id"]
    pytester.runpytest("--ghx-mode=ghx", "--reps=2")
    runs = sorted(p.name for p in (pytester.path / ".ghxbench" / "runs").glob("run_*"))
    assert len(runs) == 2 and first in runs
    assert summary(pytester)["modes"]["ghx"]["runs"] == 2  # latest is the second
    first_summary = json.loads(
        (pytester.path / ".ghxbench/runs" / first / "summary.json").read_text()
    )
    assert first_summary["modes"]["ghx"]["runs"] == 1


def test_an_unwritable_results_directory_is_one_usage_error(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    (pytester.path / "taken").write_text("a file, not a directory")
    result = pytester.runpytest("--ghx-mode=ghx", "--ghx-results=taken")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*ghxbench: cannot write results under */taken (--ghx-results): Not a directory*"]
    )
    assert "INTERNALERROR" not in result.stderr.str() + result.stdout.str()


def test_failure_message_names_the_assertion_and_shows_the_answer(
    pytester: pytest.Pytester,
) -> None:
    setup_project(
        pytester, [atomic("repo-view-001")], behaviour={"repo-view-001": {"*": {"tool_calls": 0}}}
    )
    result = pytester.runpytest("--ghx-mode=ghx")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*repo-view-001[[]ghx-r1[]] failed*", "*require_tool_calls*", "*final answer:*"]
    )
    (row,) = read_rows(pytester)
    assert row["success"] is False and row["output_valid"] is True
    assert row["error"]["type"] == "assertion_failed"


def test_adapter_exception_is_a_runner_error_row_and_the_session_goes_on(
    pytester: pytest.Pytester,
) -> None:
    setup_project(
        pytester,
        [atomic("repo-view-001"), atomic("repo-view-002")],
        behaviour={"repo-view-001": {"*": {"raise": "boom"}}},
    )
    result = pytester.runpytest("--ghx-mode=ghx")
    result.assert_outcomes(failed=1, passed=1)
    rows = {r["scenario_id"]: r for r in read_rows(pytester)}
    error = rows["repo-view-001"]["error"]
    assert error["type"] == "runner_error"
    assert "RuntimeError: boom" in error["message"]
    assert rows["repo-view-002"]["success"] is True


@pytest.mark.parametrize(
    ("answer", "raw", "problem"),
    [
        (b"bytes", True, "final_text must be a str or None, got bytes"),
        ({"ok": True}, True, "final_text must be a str or None, got dict"),
    ],
)
def test_adapter_returning_non_text_is_a_runner_error(
    pytester: pytest.Pytester, answer: object, raw: bool, problem: str
) -> None:
    pytester.makeconftest("")
    setup_project(pytester, [atomic("repo-view-001")])
    # a conftest-level adapter that returns a non-text answer
    conftest = (pytester.path / "conftest.py").read_text()
    conftest += (
        "\nclass Bad(ScriptedAdapter):\n    name = 'bad'\n"
        f"    def run(self, request):\n        return gb.RunResult(final_text={answer!r})\n"
        "def pytest_ghxbench_adapters(config):\n    return [ScriptedAdapter(), Bad()]\n"
    )
    (pytester.path / "conftest.py").write_text(conftest)
    result = pytester.runpytest("--ghx-mode=ghx", "--ghx-adapter=bad")
    result.assert_outcomes(failed=1)
    (row,) = read_rows(pytester)
    assert row["error"]["type"] == "runner_error"
    assert problem in row["error"]["message"]


def test_huge_answer_is_judged_without_blowing_up(pytester: pytest.Pytester) -> None:
    envelope = json.dumps({"ok": True, "data": {}, "error": None, "meta": {"route_used": "cli"}})
    setup_project(
        pytester,
        [atomic("repo-view-001")],
        behaviour={"repo-view-001": {"*": {"answer": envelope + " x" * 50, "repeat": 1_000_000}}},
    )
    result = pytester.runpytest_subprocess("--ghx-mode=ghx")
    result.assert_outcomes(passed=1)
    (transcript,) = list((pytester.path / ".ghxbench" / "runs").glob("run_*/transcripts/*.jsonl"))
    assert transcript.stat().st_size < 5_000_000
    record = json.loads(transcript.read_text())
    assert "truncated" in record["final_text"][-100:]


def test_missing_resource_skips_with_reason_and_writes_no_row(pytester: pytest.Pytester) -> None:
    needs = atomic("pr-view-001", fixture={"repo": "acme/demo", "requires": ["pr_with_reviews"]})
    binds = atomic("pr-view-002", fixture={"bindings": {"input.prNumber": "resources.nope.number"}})
    setup_project(pytester, [needs, binds, atomic("repo-view-001")])
    result = pytester.runpytest("--ghx-mode=ghx", "-rs")
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(["*pr_with_reviews*lacks*", "*resources.nope*"])
    assert [r["scenario_id"] for r in read_rows(pytester)] == ["repo-view-001"]


def test_bindings_fill_input_from_the_manifest(pytester: pytest.Pytester) -> None:
    scenario = atomic(
        "issue-view-001",
        "issue.view",
        input={"issueNumber": 0},
        fixture={"bindings": {"input.issueNumber": "resources.issue.number"}},
        assertions={"expected_outcome": "success", "required_data_fields": ["number", "title"]},
    )
    setup_project(pytester, [scenario])
    result = pytester.runpytest("--ghx-mode=agent_direct")
    result.assert_outcomes(passed=1)


def test_reruns_make_one_row_for_the_final_attempt(pytester: pytest.Pytester) -> None:
    setup_project(
        pytester,
        [atomic("repo-view-001", allowed_retries=2)],
        behaviour={
            "repo-view-001": {
                "*": {"report_error": "HTTP 503 Service Unavailable", "fail_attempts": 2}
            }
        },
    )
    result = pytester.runpytest("--ghx-mode=ghx")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed") == 1 and outcomes.get("rerun") == 2
    (row,) = read_rows(pytester)
    assert row["success"] is True
    assert row["external_retry_count"] == 2
    assert summary(pytester)["modes"]["ghx"]["retry_rate"] == 100.0


def test_hang_past_the_deadline_is_stopped_per_attempt_and_rerun(
    pytester: pytest.Pytester,
) -> None:
    # First attempt hangs well past timeout_ms; pytest-timeout's backstop stops it, the rerun
    # (a fresh per-attempt timer) succeeds.
    setup_project(
        pytester,
        [atomic("repo-view-001", timeout_ms=300, allowed_retries=1)],
        behaviour={"repo-view-001": {"*": {"sleep": 30, "fail_attempts": 1}}},
    )
    result = pytester.runpytest_subprocess("--ghx-mode=ghx")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed") == 1 and outcomes.get("rerun") == 1
    (row,) = read_rows(pytester)
    assert row["external_retry_count"] == 1 and row["success"] is True


def test_timeout_without_retries_is_a_timeout_runner_error(pytester: pytest.Pytester) -> None:
    setup_project(
        pytester,
        [atomic("repo-view-001", timeout_ms=200)],
        behaviour={"repo-view-001": {"*": {"sleep": 30}}},
    )
    result = pytester.runpytest_subprocess("--ghx-mode=ghx")
    result.assert_outcomes(failed=1)
    (row,) = read_rows(pytester)
    assert row["error"]["type"] == "runner_error"
    assert "timeout" in row["error"]["message"]
    assert summary(pytester)["modes"]["ghx"]["timeout_stall_rate"] == 100.0


def test_late_answer_past_the_cooperative_deadline_is_a_timeout(pytester: pytest.Pytester) -> None:
    # The adapter overruns timeout_ms but finishes before the backstop fires.
    setup_project(
        pytester,
        [atomic("repo-view-001", timeout_ms=100)],
        behaviour={"repo-view-001": {"*": {"sleep": 0.4}}},
    )
    result = pytester.runpytest("--ghx-mode=ghx")
    result.assert_outcomes(failed=1)
    (row,) = read_rows(pytester)
    assert row["error"]["type"] == "runner_error" and "timeout" in row["error"]["message"]


def test_workflow_checkpoints_run_against_the_backend(pytester: pytest.Pytester) -> None:
    workflow = {
        "type": "workflow",
        "id": "pr-fix-threads-wf-001",
        "name": "resolve threads",
        "prompt": "Resolve every thread on PR {{prNumber}}.",
        "input": {"prNumber": 1},
        "timeout_ms": 5000,
        "allowed_retries": 0,
        "assertions": {
            "expected_outcome": "success",
            "checkpoints": [
                {
                    "name": "all_resolved",
                    "verification_task": "pr.comments.list",
                    "verification_input": {"unresolvedOnly": True},
                    "condition": "empty",
                }
            ],
        },
        "tags": ["pr"],
    }
    setup_project(
        pytester,
        [workflow],
        behaviour={
            "pr-fix-threads-wf-001": {
                "ghx": {
                    "actions": [
                        ["pr.comment.resolve", {"threadId": "T1"}],
                        ["pr.comment.resolve", {"threadId": "T2"}],
                    ]
                },
                "agent_direct": {"actions": [["pr.comment.resolve", {"threadId": "T1"}]]},
            }
        },
    )
    result = pytester.runpytest("--ghx-mode=agent_direct,ghx")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*checkpoint*all_resolved*"])
    rows = {r["mode"]: r for r in read_rows(pytester)}
    assert rows["ghx"]["checkpoints"][0]["passed"] is True
    assert rows["agent_direct"]["checkpoints"][0]["passed"] is False
    assert rows["agent_direct"]["scenario_type"] == "workflow"


def test_secrets_never_reach_rows_transcripts_or_summaries(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    canary = "ghp_CANARY0123456789abcdefSECRET"
    monkeypatch.setenv("GITHUB_TOKEN", canary)
    setup_project(
        pytester,
        [atomic("repo-view-001"), atomic("repo-view-002")],
        behaviour={
            "repo-view-001": {"*": {"echo_env": "GITHUB_TOKEN"}},
            "repo-view-002": {"*": {"raise": f"auth failed for {canary}"}},
        },
    )
    result = pytester.runpytest("--ghx-mode=ghx")
    result.assert_outcomes(passed=1, failed=1)
    assert canary not in result.stdout.str()
    for path in (pytester.path / ".ghxbench").rglob("*"):
        if path.is_file():
            assert canary not in path.read_text(errors="replace"), path


def test_a_skip_marker_on_a_scenario_item_skips_it_and_the_run_stays_complete(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, [atomic("repo-view-001"), atomic("repo-view-002")])
    pytester.makeconftest(
        (pytester.path / "conftest.py").read_text()
        + "\n\ndef pytest_collection_modifyitems(items):\n"
        + "    for item in items:\n"
        + "        if 'repo-view-002' in item.name:\n"
        + "            item.add_marker(pytest.mark.skip(reason='not today'))\n"
        + "\nimport pytest\n"
    )
    result = pytester.runpytest("--ghx-mode=ghx", "--reps=2", "-rs")
    result.assert_outcomes(passed=2, skipped=2)
    assert result.ret == 0
    assert "INTERNALERROR" not in result.stdout.str()
    result.stdout.fnmatch_lines(["SKIPPED [[]2[]] scenarios/repo-view-002.json: not today"])
    assert summary(pytester)["run"]["completeness"]["complete"] is True
