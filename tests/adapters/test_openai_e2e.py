"""End to end: `pytest --ghx-adapter=openai --ghx-mode=ghx` against a scripted endpoint."""

from __future__ import annotations

import json

import httpcore2  # noqa: F401
import openai
import pytest

from tests.adapters.test_openai_loop import (
    CANARY_KEY,
    REPO_INPUT,
    ScriptedServer,
    final,
    tool_call,
    usage,
)
from tests.paths import EXTERNAL_SCENARIOS

ANSWER = {
    "ok": True,
    "data": {"name": "tinykv", "nameWithOwner": "acme-labs/tinykv", "isPrivate": False},
    "error": None,
    "meta": {"route_used": "cli"},
}


@pytest.mark.skipif(not EXTERNAL_SCENARIOS.is_dir(), reason="shared/external is not present")
def test_openai_adapter_records_rows_with_exact_usage(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = ScriptedServer()
    server.script = [
        tool_call(f"ghx run repo.view --input '{REPO_INPUT}'", usage(900, 40, 100, 12)),
        final(json.dumps(ANSWER), usage(1400, 60, 800, 0)),
    ]
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY_KEY)
    root = pytester.path / "scenarios"
    root.mkdir()
    (root / "repo-view-001.json").write_text(
        (EXTERNAL_SCENARIOS / "repo-view-001.json").read_text()
    )
    pytester.makeconftest('pytest_plugins = ["pytest_ghxbench.adapters.openai_chat.hooks"]\n')
    pytester.makepyprojecttoml(
        '[tool.ghxbench.adapters.openai.prices."local/test-model"]\n'
        "input = 2.0\ncached_input = 1.0\noutput = 10.0\n"
    )
    # The SDK's HTTP stack imports modules and caches httpcore2's exception classes on its first
    # request. pytester drops every module first imported during this test when it ends, which
    # would leave later tests in this process with stale classes (connection errors no longer
    # recognised as such): httpcore2 is imported with this module, the first request made here.
    openai.OpenAI(base_url=server.url, api_key=CANARY_KEY, max_retries=0).models.list()
    try:
        result = pytester.runpytest(
            "--ghx-adapter=openai", "--ghx-mode=ghx", "--ghx-model=local/test-model",
            "-p", "no:cacheprovider",
        )  # fmt: skip
    finally:
        server.close()
    result.assert_outcomes(passed=1)
    results = pytester.path / ".ghxbench"
    (row,) = [
        json.loads(line)
        for path in (results / "runs").glob("run_*/rows.jsonl")
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    # input Σ(prompt - cached) = 800 + 600; output Σ(completion - reasoning) = 28 + 60
    assert row["tokens"] == {
        "input": 1400, "output": 88, "reasoning": 12, "cache_read": 900, "cache_write": 0,
        "total": 2400,
    }  # fmt: skip
    assert row["cost"] == pytest.approx((1400 * 2.0 + 900 * 1.0 + 100 * 10.0) / 1e6)
    assert row["model"]["provider_id"] == "local" and row["model"]["model_id"] == "test-model"
    assert row["api_calls"] == 2 and row["tool_calls"] == 1 and row["error"] is None
    written = "".join(p.read_text() for p in results.rglob("*") if p.is_file())
    assert CANARY_KEY not in written
    assert "acme-labs/tinykv" in "".join(
        p.read_text() for p in (results / "runs").glob("run_*/transcripts/*.jsonl")
    )
