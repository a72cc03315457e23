"""Each CLI runtime adapter, run by the plugin, with a runtime that prints its API key
everywhere it can (stream lines, stderr, tool output, the final answer): the key's value must
appear in no file the run writes and nowhere in the terminal output. (The openai adapter's
equivalent is in test_openai_e2e.py.)"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.adapters.fakes.helpers import FAKES

FAKE_OPENCODE = Path(__file__).parent / "fakes_opencode" / "opencode"
SCENARIO = textwrap.dedent(
    """
    id: repo-view-001
    name: Describe the fixture repository
    task: repo.view
    input: {owner: OWNER, name: REPO}
    prompt_template: "Describe {{fixture_repo}} ({{task}} {{input_json}})."
    timeout_ms: 600000
    allowed_retries: 0
    fixture:
      bindings: {input.owner: repo.owner, input.name: repo.name}
    assertions:
      expected_outcome: success
      required_data_fields: [nameWithOwner]
    tags: [repo]
    """
)


def _answer(key: str) -> str:
    return json.dumps(
        {
            "ok": True,
            "data": {"nameWithOwner": "acme-labs/tinykv", "note": f"key={key}"},
            "error": None,
            "meta": {"route_used": "cli"},
        }
    )


def _claude(key: str) -> dict[str, Any]:
    use = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": f"gh auth {key}"}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": f"token: {key}"}
    final = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": _answer(key),
        "session_id": "s",
        "num_turns": 2,
        "duration_ms": 10,
        "total_cost_usd": 0.001,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    return {
        "steps": [
            {"event": {"type": "system", "subtype": "init", "session_id": "s", "model": "m"}},
            {"line": f"debug: using {key}"},
            {"stderr": f"warning: key {key} is visible"},
            {"event": {"type": "assistant", "message": {"role": "assistant", "content": [use]}}},
            {"event": {"type": "user", "message": {"role": "user", "content": [result]}}},
            {"event": final},
        ]
    }


def _codex(key: str) -> dict[str, Any]:
    item = {
        "id": "c1",
        "type": "command_execution",
        "command": f"gh api -H {key}",
        "aggregated_output": f"echo {key}",
        "exit_code": 0,
        "status": "completed",
    }
    message = {"id": "m1", "type": "agent_message", "text": _answer(key)}
    usage = {"input_tokens": 10, "cached_input_tokens": 0, "output_tokens": 5}
    return {
        "steps": [
            {"event": {"type": "thread.started", "thread_id": "th"}},
            {"line": f"not json {key}"},
            {"stderr": key},
            {"event": {"type": "item.completed", "item": item}},
            {"event": {"type": "item.completed", "item": message}},
            {"event": {"type": "turn.completed", "usage": usage}},
        ]
    }


def _opencode(key: str) -> dict[str, Any]:
    assistant = {
        "info": {
            "role": "assistant",
            "providerID": "anthropic",
            "modelID": "m",
            "tokens": {"input": 10, "output": 5, "reasoning": 0, "cache": {"read": 0, "write": 0}},
            "cost": 0.001,
            "time": {"created": 1, "completed": 2},
        },
        "parts": [
            {"type": "reasoning", "text": f"the key is {key}", "time": {"start": 1, "end": 1}},
            {
                "type": "tool",
                "tool": "bash",
                "state": {
                    "status": "completed",
                    "input": {"command": f"echo {key}"},
                    "output": key,
                    "time": {"start": 1, "end": 2},
                },
            },
            {"type": "text", "text": _answer(key)},
        ],
    }
    user = {"info": {"role": "user"}, "parts": [{"type": "text", "text": "go"}]}
    return {
        "version": "1.0.0",
        "providers": ["anthropic"],
        "sessions": [{"behavior": "ok", "messages": [user, assistant]}],
    }


RUNTIMES = {
    # adapter: (credential variable, script builder, fake program, env names of the script)
    "claude-code": ("ANTHROPIC_API_KEY", _claude, FAKES / "fake_agent.py", "GHXBENCH_FAKE_SCRIPT"),
    "codex": ("OPENAI_API_KEY", _codex, FAKES / "fake_agent.py", "GHXBENCH_FAKE_SCRIPT"),
    "opencode": ("ANTHROPIC_API_KEY", _opencode, FAKE_OPENCODE, "FAKE_OPENCODE_SCRIPT"),
}


@pytest.mark.parametrize("adapter", sorted(RUNTIMES))
def test_the_runtime_key_is_in_no_output(
    adapter: str, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    variable, build, program, script_env = RUNTIMES[adapter]
    key = f"sk-CANARY-{adapter}-0123456789abcdef"
    monkeypatch.setenv(variable, key)
    script = pytester.path / "runtime-script.json"
    script.write_text(json.dumps(build(key)))
    # The wrapper is the "binary": it knows its script, as a real runtime knows its config.
    wrapper = pytester.path / "bin" / adapter
    wrapper.parent.mkdir()
    wrapper.write_text(
        f"#!/bin/sh\n{script_env}={script} FAKE_OPENCODE_LOG={pytester.path}/oc.jsonl "
        f'GHXBENCH_FAKE_PYTHON={sys.executable} exec {sys.executable} {program} "$@"\n'
    )
    wrapper.chmod(0o755)
    (pytester.path / "scenarios").mkdir()
    (pytester.path / "scenarios" / "repo-view-001.yaml").write_text(SCENARIO)
    model = '\nmodel = "anthropic/m"' if adapter == "opencode" else ""
    pytester.makepyprojecttoml(
        f'[tool.ghxbench]\nadapter = "{adapter}"\n\n'
        f'[tool.ghxbench.adapters.{adapter}]\nbinary = "{wrapper}"{model}\n'
    )
    # Unjailed: the fake runtimes run from this test tree, which no jail mounts (the jailed
    # runtimes' own canary checks are tests/isolation/test_redaction.py's).
    result = pytester.runpytest_subprocess(
        "--ghx-mode=ghx", "--ghx-isolation=none", "-p", "no:cacheprovider", "-rA"
    )
    written = [p for p in (pytester.path / ".ghxbench").rglob("*") if p.is_file()]
    rows = [p for p in written if p.name == "rows.jsonl"]
    assert rows and json.loads(rows[0].read_text().splitlines()[0])["adapter"] == adapter
    assert any("transcripts" in p.parts for p in written)
    for path in written:
        assert key not in path.read_text(encoding="utf-8", errors="replace"), path
    assert key not in result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=1)
