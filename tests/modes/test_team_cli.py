"""A team's own CLI as a declared mode, driven by the real Claude Code against a scripted model.

The CLI is ``docs/examples/team-cli/acme`` (the example docs/modes.md declares): it reads its
token, API root and repository from its own variables, which the mode's ``env`` fills with
``{token}``, ``{api_url}`` and ``{repo}``. The item holds acme and no other GitHub client: the
model's gh fails, and the sandbox would refuse gh's requests besides.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import pytest_ghxbench.sandbox.api.tls  # noqa: F401  (see tests/agent_clis/harness.py)
from tests.agent_clis.conftest import Serve
from tests.agent_clis.dialect_anthropic import SCRIPTED_MODEL, AnthropicMessages
from tests.agent_clis.harness import CANARY_KEY, agent_cli, run_pr_view, written_text
from tests.agent_clis.pr_view import GH_COMMAND
from tests.agent_clis.scripted import Action, Answer, Script, Shell, Turn, Usage
from tests.modes.declared import ACME_COMMAND, acme_mode, envelope, install_acme

pytestmark = pytest.mark.timeout(900)  # a hang guard: a busy machine takes minutes

USAGE = Usage(input=900, output=40)


def declared(binary: str, program: Path) -> str:
    return (
        "[tool.ghxbench.adapters.claude-code]\n"
        f"binary = {json.dumps(binary)}\n"
        f'model = "anthropic/{SCRIPTED_MODEL}"\n\n' + acme_mode(str(program))
    )


def script_for(command: str) -> Script:
    def script(turn: Turn) -> Action:
        if not turn.tool_results:
            return Shell(command)
        return Answer(json.dumps(envelope(turn.tool_results[-1])))

    return script


@pytest.fixture
def run_acme(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, serve_model: Serve) -> Any:
    binary = agent_cli("claude")
    install_acme(pytester.path)

    def run(command: str) -> tuple[pytest.RunResult, list[dict[str, Any]], Any]:
        model = serve_model(AnthropicMessages(), script_for(command), USAGE, 0.05)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", model.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY_KEY)
        monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")
        # the program by a path relative to the rootdir, as a team writes it in its repository
        config = declared(binary, Path("tools/acme"))
        result, rows = run_pr_view(pytester, adapter="claude-code", mode="acme", config=config)
        assert CANARY_KEY not in written_text(pytester.path)
        return result, rows, model

    return run


def _transcript_calls(root: Path) -> list[dict[str, Any]]:
    records = [
        json.loads(line)
        for path in (root / ".ghxbench" / "runs").glob("run_*/transcripts/*.jsonl")
        for line in path.read_text().splitlines()
    ]
    return [call for record in records for call in record["tool_calls"]]


def test_a_team_cli_mode_gives_passing_rows(pytester: pytest.Pytester, run_acme: Any) -> None:
    result, rows, model = run_acme(ACME_COMMAND)
    (row,) = rows
    assert row["mode"] == "acme" and row["success"] is True, result.stdout.str()[-3000:]
    assert row["api_calls"] == model.answers == 2
    assert row["tokens"]["input"] == 2 * USAGE.input
    # the agent saw the mode's instructions and only acme in its Bash rules
    first = model.exchanges[0].body
    assert "Use `acme` for every GitHub operation" in json.dumps(first.get("system"))
    (call,) = _transcript_calls(pytester.path)
    assert (call["arguments"]["command"], call["ok"]) == (ACME_COMMAND, True)
    assert '"title"' in call["output"]
    # run.json: the CLI's own version, as `acme --version` says it
    (spec,) = (pytester.path / ".ghxbench" / "runs").glob("run_*/run.json")
    interfaces = json.loads(spec.read_text())["interfaces"]
    assert interfaces["acme"] == {"kind": "cli", "client": "acme", "version": "1.4.0"}
    assert "acme: acme 1.4.0" in result.stdout.str()


def test_gh_cannot_be_reached_in_a_team_cli_mode(pytester: pytest.Pytester, run_acme: Any) -> None:
    # the control: the same script with acme passes (above); with gh, nothing answers
    _, rows, _ = run_acme(GH_COMMAND)
    row = rows[-1]
    assert row["success"] is False
    calls = _transcript_calls(pytester.path)
    assert calls and all(call["arguments"]["command"] == GH_COMMAND for call in calls)
    assert all(call["ok"] is False for call in calls)
    # refused by Claude Code's rules: only acme's commands are approved (the item's own gh
    # refuses too, and the sandbox would: tests/modes/test_declared_modes.py)
    assert all("requires approval" in (call["output"] or "") for call in calls), calls
