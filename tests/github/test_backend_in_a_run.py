"""The `github` backend through the plugin, against the sandbox's API server: one preflight per
session, items that act on GitHub over HTTP with the token from the backend, checkpoints
verified through the API, and the token absent from every output file."""

from __future__ import annotations

import textwrap

import pytest

from pytest_ghxbench.sandbox.api.server import SCOPES
from tests.github.conftest import ISSUE_BINDINGS, write_project
from tests.github.served import REPO, Served

CONFTEST = textwrap.dedent(
    '''
    import json, os

    import pytest_ghxbench as gb
    from pytest_ghxbench.ghx.client import GitHubClient


    class ApiAgent:
        """Does each task with the token the backend hands it, as gh would."""

        name = "api-agent"
        modes = ("agent_direct", "ghx")

        def run(self, request):
            client = GitHubClient(request.env["GH_TOKEN"], os.environ["GHXBENCH_TEST_API_URL"])
            repo = request.env["GH_REPO"]
            number = request.input["issueNumber"]
            if request.scenario.id == "comment-wf-001":
                client.rest("POST", f"/repos/{repo}/issues/{number}/comments",
                            body={"body": f"{request.mode} r{request.iteration}"})
                answer = "Commented. (auth: " + request.env["GH_TOKEN"] + ")"
                calls = [gb.ToolCall(name="bash", arguments={"command": "gh issue comment"})]
            else:
                issue = client.rest("GET", f"/repos/{repo}/issues/{number}")
                answer = json.dumps({"ok": True, "error": None, "meta": {"route_used": "cli"},
                                     "data": {"number": issue["number"], "title": issue["title"]}})
                calls = [gb.ToolCall(name="bash", arguments={"command": "gh issue view"})]
            return gb.RunResult(final_text=answer, tokens=gb.Tokens(input=100, output=10),
                                tool_calls=calls)


    def pytest_ghxbench_adapters(config):
        return [ApiAgent()]
    '''
)

ATOMIC = {
    "id": "issue-view-gh-001",
    "name": "View the fixture issue",
    "task": "issue.view",
    "input": {"owner": "OWNER", "name": "REPO", "issueNumber": 0},
    "prompt_template": "Show issue {{input_json}} of {{fixture_repo}}.",
    "timeout_ms": 600000,
    "allowed_retries": 0,
    "fixture": ISSUE_BINDINGS,
    "assertions": {
        "expected_outcome": "success",
        "required_data_fields": ["number", "title"],
        "require_tool_calls": True,
    },
    "tags": ["issue"],
}

WORKFLOW = {
    "type": "workflow",
    "id": "comment-wf-001",
    "name": "Comment on the fixture issue",
    "prompt": "Post a comment on issue #{{issueNumber}} of {{owner}}/{{name}}.",
    "expected_capabilities": ["issue.comments.create"],
    "input": {"owner": "OWNER", "name": "REPO", "issueNumber": 0},
    "timeout_ms": 600000,
    "allowed_retries": 0,
    "fixture": ISSUE_BINDINGS,
    "assertions": {
        "expected_outcome": "success",
        "checkpoints": [
            {
                "name": "comment_posted",
                "verification_task": "issue.comments.list",
                "verification_input": {"first": 50},
                "condition": "count_gte",
                "expected_value": 1,
            }
        ],
    },
    "tags": ["issue"],
}


def _project(pytester: pytest.Pytester, served: Served) -> int:
    pytester.makeconftest(CONFTEST)
    scenarios = {"issue-view-gh-001.json": ATOMIC, "comment-wf-001.json": WORKFLOW}
    return write_project(pytester, served, scenarios, adapter="api-agent")


def test_items_run_against_github_with_one_preflight_and_no_leaked_token(
    pytester: pytest.Pytester, served: Served
) -> None:
    number = _project(pytester, served)
    token = served.token
    result = pytester.runpytest("--ghx-mode=agent_direct,ghx", "--reps=2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=8)
    result.stdout.fnmatch_lines(
        [f"*ghxbench: backend github {REPO} at http://127.0.0.1:* as @bench-bot ({SCOPES})*"]
    )
    assert served.requests.count(("GET", "/user")) == 1  # preflight once, not per item
    assert served.requests.count(("GET", f"/repos/{REPO}")) == 1
    posted = served.requests.count(("POST", f"/repos/{REPO}/issues/{number}/comments"))
    assert posted == 4
    issue = served.world.issue(number)
    assert issue is not None and len(issue.comments) == 4
    outputs = [p for p in (pytester.path / ".ghxbench").rglob("*") if p.is_file()]
    assert any(p.suffix == ".jsonl" and "transcripts" in p.parts for p in outputs)
    for path in outputs:
        assert token not in path.read_text(encoding="utf-8", errors="replace"), path
    assert token not in result.stdout.str() + result.stderr.str()
    transcript = next(p for p in outputs if "transcripts" in p.parts).read_text()
    assert "Commented. (auth: [REDACTED])" in transcript


def test_a_rejected_token_is_one_usage_error_before_any_item(
    pytester: pytest.Pytester, served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(pytester, served)
    monkeypatch.setenv("GH_TOKEN", "ghp_notthetoken0123456789")
    result = pytester.runpytest("--ghx-mode=ghx", "--reps=3", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*backend 'github' unavailable: GitHub rejected the token (Bad credentials)*"]
    )
    assert served.requests == []  # the rejected token reached no world
    assert not (pytester.path / ".ghxbench" / "runs").exists()


def test_without_a_token_or_a_visible_repository_the_run_does_not_start(
    pytester: pytest.Pytester, served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(pytester, served)
    monkeypatch.delenv("GH_TOKEN")
    result = pytester.runpytest("--ghx-mode=ghx", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no GitHub token: set GH_TOKEN or GITHUB_TOKEN*"])
    monkeypatch.setenv("GH_TOKEN", served.token)
    monkeypatch.setenv("GHXBENCH_GITHUB_REPO", "acme-labs/elsewhere")
    result = pytester.runpytest("--ghx-mode=ghx", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*repository acme-labs/elsewhere not found, or not visible to @bench-bot*"]
    )


def test_the_oracle_refuses_real_github_before_any_item(
    pytester: pytest.Pytester, served: Served
) -> None:
    _project(pytester, served)
    result = pytester.runpytest("--ghx-mode=ghx", "--ghx-adapter=oracle", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*adapter 'oracle' unavailable: the oracle is the sandbox's reference agent*'github'*"]
    )
    assert served.requests == []
