"""A token an agent came across (in a file it read, in a variable of any name) and put in its
answer, its tool calls or its error reaches no output: rows, transcripts, summaries, report.html,
the junit file and the terminal all show ``[REDACTED]`` in its place."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.attempt.test_redact import TOKEN_SHAPED
from tests.plugin.support import atomic, read_rows, setup_project

ANSWERED = " ".join(f"{kind}={token}" for kind, token in TOKEN_SHAPED.items())


def test_token_shaped_values_reach_no_output(pytester: pytest.Pytester) -> None:
    answer = {"ok": True, "data": {"found": ANSWERED}, "error": None, "meta": {}}
    behaviour: dict[str, Any] = {
        "repo-view-001": {"*": {"answer": answer}},
        "repo-view-002": {"*": {"report_error": f"HTTP 401 with {ANSWERED}"}},
    }
    setup_project(pytester, [atomic("repo-view-001"), atomic("repo-view-002")], behaviour)
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest(
        "--ghx-mode=agent_direct", "-p", "no:cacheprovider", f"--junitxml={junit}", "-rA"
    )
    rows = {row["scenario_id"]: row for row in read_rows(pytester)}
    assert rows["repo-view-002"]["error"]["type"] == "runner_error"
    assert "[REDACTED]" in rows["repo-view-002"]["error"]["message"]
    assert "[REDACTED]" in result.stdout.str()  # the runner error's line on the terminal
    written = [p for p in (pytester.path / ".ghxbench").rglob("*") if p.is_file()]
    assert {"rows.jsonl", "report.html", "summary.json"} <= {p.name for p in written}
    transcripts = [p for p in written if p.parent.name == "transcripts"]
    assert "[REDACTED]" in "".join(p.read_text() for p in transcripts)
    outputs = [p.read_text(errors="replace") for p in (*written, junit)]
    everything = "".join(outputs) + result.stdout.str() + result.stderr.str()
    for kind, token in TOKEN_SHAPED.items():
        assert token not in everything, kind
        assert json.dumps(token)[1:-1] not in everything, kind
