"""mcp mode on the github backend: the openai adapter (real SDK, scripted endpoint) talks over
stdio to the MCP server the backend names, started through the backend's launcher so that the
server, not any command line, receives the token."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.adapters.test_openai_loop import CANARY_KEY, ScriptedServer, final, mcp_call, usage
from tests.github.conftest import ISSUE_BINDINGS, write_project
from tests.github.served import NAME, OWNER, REPO, Served

SERVER = Path(__file__).parent / "mcp_issue_server.py"
SCENARIO = {
    "id": "issue-view-mcp-001",
    "name": "View the fixture issue",
    "task": "issue.view",
    "input": {"owner": "OWNER", "name": "REPO", "issueNumber": 0},
    "prompt_template": "Show issue {{input_json}}.",
    "timeout_ms": 60000,
    "allowed_retries": 0,
    "fixture": ISSUE_BINDINGS,
    "assertions": {"expected_outcome": "success", "required_data_fields": ["number", "title"]},
}


def _project(pytester: pytest.Pytester, served: Served, mcp_command: str) -> int:
    return write_project(
        pytester,
        served,
        {"issue.json": SCENARIO},
        adapter="openai",
        backend_table=f"mcp_command = {json.dumps(mcp_command)}\n",
    )


def test_the_mcp_server_gets_the_token_through_the_backend_launcher(
    pytester: pytest.Pytester, served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    number = _project(pytester, served, f"{sys.executable} {SERVER} {served.url}")
    llm = ScriptedServer()
    arguments = {"owner": OWNER, "repo": NAME, "issue_number": number}
    answer = {"ok": True, "data": {"number": number, "title": "Crash on start"}, "error": None,
              "meta": {}}  # fmt: skip
    llm.script = [
        mcp_call("issue_read", arguments, usage(300, 20, 0, 0)),
        final(json.dumps(answer), usage(400, 30, 0, 0)),
    ]
    monkeypatch.setenv("OPENAI_BASE_URL", llm.url)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY_KEY)
    try:
        result = pytester.runpytest_subprocess(
            "--ghx-mode=mcp", "--ghx-model=local/test-model", "-p", "no:cacheprovider"
        )
    finally:
        llm.close()
    result.assert_outcomes(passed=1)
    # the server read the issue with the token (the sandbox answers 401 without it)
    assert ("GET", f"/repos/{REPO}/issues/{number}") in served.requests
    tool_names = [t["function"]["name"] for t in llm.requests[0]["body"]["tools"]]
    assert tool_names == ["issue_read"]
    tool_result = llm.requests[1]["body"]["messages"][-1]
    assert tool_result["role"] == "tool" and "Crash on start" in tool_result["content"]
    written = [p for p in (pytester.path / ".ghxbench").rglob("*") if p.is_file()]
    for path in written:
        text = path.read_text(encoding="utf-8", errors="replace")
        assert served.token not in text and CANARY_KEY not in text, path


def test_mcp_mode_without_the_server_binary_stops_in_preflight(
    pytester: pytest.Pytester, served: Served
) -> None:
    _project(pytester, served, "no-such-github-mcp-server stdio")
    pytester.makeconftest(
        "import pytest_ghxbench as gb\n\n"
        "class Noop:\n"
        "    name = 'noop'\n"
        "    modes = ('agent_direct', 'mcp')\n\n"
        "    def run(self, request):\n"
        "        return gb.RunResult(final_text='{}')\n\n"
        "def pytest_ghxbench_adapters(config):\n"
        "    return [Noop()]\n"
    )
    result = pytester.runpytest("--ghx-mode=mcp", "--ghx-adapter=noop", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*mode mcp on the github backend runs 'no-such-github-mcp-server stdio'*not on PATH*"]
    )
    # agent_direct alone does not need the server
    result = pytester.runpytest(
        "--ghx-mode=agent_direct", "--ghx-adapter=noop", "--co", "-p", "no:cacheprovider"
    )
    assert result.ret == 0
