"""A broken or hanging adapter is debuggable: traceback, transcript path, the adapter's stack,
and retries only for what can be transient."""

from __future__ import annotations

import json
import textwrap
from typing import Any

import pytest

from tests.plugin.support import CONFTEST, atomic, read_rows, setup_project

# The scripted adapter, plus behaviours this module needs: "error" (a runner error the adapter
# reports), "raise_type" (the exception class to raise) and "thread" (do the work in a thread).
EXTRA = textwrap.dedent(
    """
    import builtins, threading


    class Broken(ScriptedAdapter):
        def run(self, request):
            b = behaviour(request.scenario.id, request.mode)
            key = ("broken", request.item_id)
            ATTEMPTS[key] = ATTEMPTS.get(key, 0) + 1
            failing = ATTEMPTS[key] <= b.get("fail_attempts", 10**6)
            if failing and "error" in b:
                return gb.RunResult(error=b["error"])
            if failing and "raise_type" in b:
                raise getattr(builtins, b["raise_type"])(b.get("message", "broken"))
            if failing and "thread" in b:
                worker = threading.Thread(target=agent_loop, name="adapter-worker", daemon=True)
                worker.start()
                worker.join()
            return super().run(request)


    def agent_loop():
        while True:
            wait_for_the_model()


    def wait_for_the_model():
        time.sleep(0.05)


    def parse_answer(secret):
        raise RuntimeError("cannot parse the answer from " + secret)


    class Parsing(ScriptedAdapter):
        def run(self, request):
            return parse_answer(os.environ["DEMO_API_TOKEN"])


    def pytest_ghxbench_adapters(config):
        return [Broken(), Parsing()]


    class SlowBackend(DemoBackend):
        opened = 0

        def open_session(self, item_id, workdir):
            SlowBackend.opened += 1
            if SlowBackend.opened == 1 and (HERE / "slow-backend").exists():
                time.sleep(30)
            return super().open_session(item_id, workdir)


    def pytest_ghxbench_backends(config):
        return [SlowBackend()]
    """
).replace("class Broken(ScriptedAdapter):", "class Broken(ScriptedAdapter):\n    name = 'scripted'")
EXTRA = EXTRA.replace(
    "class Parsing(ScriptedAdapter):", "class Parsing(ScriptedAdapter):\n    name = 'parsing'"
)

SECRET = "s3cr3t-value-123456"


def project(
    pytester: pytest.Pytester, scenarios: list[dict[str, Any]], behaviour: dict[str, Any]
) -> None:
    setup_project(pytester, scenarios, behaviour)
    pytester.makeconftest(CONFTEST + EXTRA)


def transcripts(pytester: pytest.Pytester) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for path in sorted((pytester.path / ".ghxbench" / "runs").glob("run_*/transcripts/*.jsonl")):
        records += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return records


@pytest.fixture
def parsing(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("DEMO_API_TOKEN", SECRET)
    # pytest does not shorten the summary's failure lines when CI is set (as .ci/run sets it)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("BUILD_NUMBER", raising=False)
    project(pytester, [atomic("repo-view-001")], {})
    return pytester


def test_adapter_exception_shows_its_traceback_redacted(parsing: pytest.Pytester) -> None:
    result = parsing.runpytest("--ghx-mode=ghx", "--ghx-adapter=parsing")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*runner error: adapter 'parsing' raised RuntimeError: cannot parse*",
            "*adapter traceback*",
            "*return parse_answer(os.environ*",
            "*def parse_answer(secret):*",
            '>*raise RuntimeError("cannot parse the answer from " + secret)',
            "E*RuntimeError: cannot parse the answer from [[]REDACTED[]]",
            "conftest.py:*: RuntimeError",
        ]
    )
    assert SECRET not in result.stdout.str()


@pytest.mark.parametrize(
    ("style", "present", "absent"),
    [
        ("short", ["conftest.py:*: in parse_answer", "E*RuntimeError*"], ["*def parse_answer*"]),
        ("native", ["Traceback (most recent call last):", '*File "*conftest.py", line *'], []),
        ("no", ["FAILED*repo-view-001*"], ["*adapter traceback*", "*conftest.py*"]),
        (
            "line",
            ["repo-view-001[[]ghx-r1[]]: runner error: adapter 'parsing' raised *(transcript: *)"],
            ["*adapter traceback*"],
        ),
    ],
)
def test_the_traceback_honours_tb(
    parsing: pytest.Pytester, style: str, present: list[str], absent: list[str]
) -> None:
    result = parsing.runpytest("--ghx-mode=ghx", "--ghx-adapter=parsing", f"--tb={style}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(present)
    for pattern in absent:
        result.stdout.no_fnmatch_line(pattern)
    assert SECRET not in result.stdout.str()


def test_transcript_keeps_the_traceback_and_a_null_answer(parsing: pytest.Pytester) -> None:
    parsing.runpytest("--ghx-mode=ghx", "--ghx-adapter=parsing")
    (record,) = transcripts(parsing)
    assert record["final_text"] is None
    assert record["failure_kind"] == "adapter_bug"
    assert record["traceback"].startswith("Traceback (most recent call last):")
    assert "in parse_answer" in record["traceback"]
    assert "RuntimeError: cannot parse the answer from [REDACTED]" in record["traceback"]
    assert SECRET not in json.dumps(record)


def test_failure_names_the_transcript_file(pytester: pytest.Pytester) -> None:
    project(pytester, [atomic("repo-view-001")], {"repo-view-001": {"*": {"tool_calls": 0}}})
    result = pytester.runpytest("--ghx-mode=ghx")
    result.assert_outcomes(failed=1)
    (path,) = (pytester.path / ".ghxbench" / "runs").glob("run_*/transcripts/*.jsonl")
    relative = path.relative_to(pytester.path).as_posix()
    result.stdout.fnmatch_lines(
        [f"*transcript: {relative} (item_id '*repo-view-001[[]ghx-r1[]]', attempt 1)"]
    )


def test_a_hang_shows_the_adapters_stack_not_the_harness_threads(
    pytester: pytest.Pytester,
) -> None:
    # The first item's row starts the row writer's thread; the second item's agent hangs in a
    # thread of its own until pytest-timeout's backstop stops the attempt.
    project(
        pytester,
        [atomic("repo-view-001"), atomic("repo-view-002", timeout_ms=300)],
        {"repo-view-002": {"*": {"thread": True}}},
    )
    result = pytester.runpytest_subprocess("--ghx-mode=ghx", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*runner error: timeout: pytest-timeout stopped the adapter after *",
            "*adapter traceback*",
            "*worker.join()*",
            "*threads of the attempt when it was stopped:*",
            "*thread 'adapter-worker' (started during the attempt)*",
            "*in agent_loop*",
            "*in wait_for_the_model*",
        ]
    )
    output = result.stdout.str() + result.stderr.str()
    assert "Stack of" not in output  # pytest-timeout's dump of every other thread
    assert "row_writer" not in output and "RowWriter" not in output
    (record,) = [r for r in transcripts(pytester) if "repo-view-002" in r["item_id"]]
    assert record["failure_kind"] == "timeout"
    assert "worker.join()" in record["traceback"]
    assert [s["thread"] for s in record["thread_stacks"]] == [
        "thread 'adapter-worker' (started during the attempt)"
    ]


def outcomes(pytester: pytest.Pytester, *args: str) -> dict[str, int]:
    return pytester.runpytest("--ghx-mode=ghx", *args).parseoutcomes()


def test_an_adapter_bug_is_not_retried(pytester: pytest.Pytester) -> None:
    project(
        pytester,
        [atomic("repo-view-001", allowed_retries=2)],
        {"repo-view-001": {"*": {"raise_type": "KeyError"}}},
    )
    result = outcomes(pytester)
    assert result.get("failed") == 1 and "rerun" not in result
    (row,) = read_rows(pytester)
    assert row["external_retry_count"] == 0


def test_a_wrong_answer_is_not_retried(pytester: pytest.Pytester) -> None:
    project(
        pytester,
        [atomic("repo-view-001", allowed_retries=2)],
        {"repo-view-001": {"*": {"tool_calls": 0}}},
    )
    result = outcomes(pytester)
    assert result.get("failed") == 1 and "rerun" not in result


@pytest.mark.parametrize(
    "error",
    [
        "API error after 3 retries: HTTP 429 RateLimitError: slow down",
        "POST /session answered HTTP 503: upstream unavailable",
        "opencode server unavailable: Connection refused",
    ],
)
def test_transient_runner_errors_are_retried_without_a_scenario_budget(
    pytester: pytest.Pytester, error: str
) -> None:
    project(
        pytester,
        [atomic("repo-view-001")],
        {"repo-view-001": {"*": {"error": error, "fail_attempts": 1}}},
    )
    result = outcomes(pytester)
    assert result.get("passed") == 1 and result.get("rerun") == 1
    (row,) = read_rows(pytester)
    assert row["success"] is True and row["external_retry_count"] == 1


def test_transient_retries_stop_at_their_budget(pytester: pytest.Pytester) -> None:
    project(
        pytester,
        [atomic("repo-view-001")],
        {"repo-view-001": {"*": {"error": "HTTP 502 Bad Gateway"}}},
    )
    result = outcomes(pytester)
    assert result.get("failed") == 1 and result.get("rerun") == 2
    (row,) = read_rows(pytester)
    assert row["external_retry_count"] == 2


def test_a_connection_error_raised_by_the_adapter_is_retried(pytester: pytest.Pytester) -> None:
    project(
        pytester,
        [atomic("repo-view-001")],
        {"repo-view-001": {"*": {"raise_type": "ConnectionResetError", "fail_attempts": 1}}},
    )
    result = outcomes(pytester)
    assert result.get("passed") == 1 and result.get("rerun") == 1


def test_a_reported_timeout_is_retried_only_within_the_scenario_budget(
    pytester: pytest.Pytester,
) -> None:
    timeout = {"error": "codex: timeout: still running at the item deadline", "fail_attempts": 5}
    project(
        pytester,
        [atomic("repo-view-001", allowed_retries=1), atomic("repo-view-002")],
        {"repo-view-001": {"*": timeout}, "repo-view-002": {"*": timeout}},
    )
    result = outcomes(pytester)
    assert result.get("failed") == 2 and result.get("rerun") == 1
    rows = {r["scenario_id"]: r for r in read_rows(pytester)}
    assert rows["repo-view-001"]["external_retry_count"] == 1
    assert rows["repo-view-002"]["external_retry_count"] == 0


def test_under_xdist_the_failure_keeps_the_traceback_and_the_adapters_stack(
    pytester: pytest.Pytester,
) -> None:
    project(
        pytester,
        [atomic("repo-view-001", timeout_ms=300), atomic("repo-view-002")],
        {
            "repo-view-001": {"*": {"thread": True}},
            "repo-view-002": {"*": {"raise_type": "ValueError", "message": "bad shape"}},
        },
    )
    result = pytester.runpytest_subprocess("--ghx-mode=ghx", "-p", "xdist", "-n", "2")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*transcript: .ghxbench/runs/run_*/transcripts/gw*.jsonl*",
            "*thread 'adapter-worker' (started during the attempt)*",
            "*in wait_for_the_model*",
        ],
        consecutive=False,
    )
    result.stdout.fnmatch_lines(["E*ValueError: bad shape"])
    assert "Stack of" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize(
    ("allowed_retries", "expected"), [(1, {"passed": 1, "rerun": 1}), (0, {"failed": 1})]
)
def test_a_hang_outside_the_adapter_is_retried_within_the_scenario_budget(
    pytester: pytest.Pytester, allowed_retries: int, expected: dict[str, int]
) -> None:
    project(
        pytester, [atomic("repo-view-001", timeout_ms=200, allowed_retries=allowed_retries)], {}
    )
    (pytester.path / "slow-backend").write_text("")
    result = pytester.runpytest_subprocess("--ghx-mode=ghx")
    assert result.parseoutcomes() == expected
    (row,) = read_rows(pytester)
    assert row["external_retry_count"] == allowed_retries
    if not allowed_retries:
        result.stdout.fnmatch_lines(
            [
                "*runner error: timeout: pytest-timeout stopped the item*",
                "*def run_attempt(*",
                "*def open_session(self, item_id, workdir):*",
                ">*time.sleep(30)",
            ]
        )
        result.stdout.no_fnmatch_line("*def from_call(*")
