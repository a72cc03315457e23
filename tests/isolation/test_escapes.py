"""A curious agent in each mode finds no way out of its jail, and no secret reaches any output.

The agent (``escape_adapter.py``) reads the pytest process's environment and the user's gh and
netrc files, connects to this machine's services directly and through the sandbox's proxy,
asks the proxy for GitHub by address and with a trailing dot, runs the other modes' clients by
absolute path, leaves a ``setsid`` daemon behind and goes for another item's files, checkout
and world. The same agent without a jail (``--ghx-isolation=none``) gets out in most of these
ways, which shows the probes are real.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from tests.agent_clis.harness import recorded_rows
from tests.agent_clis.pr_view import PR_VIEW_SCENARIO
from tests.isolation.support import require_jail
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.timeout(300)

CANARIES = {
    "GH_TOKEN": "ghp_canary0harness0environment0token00",
    "GITHUB_PAT": "github_pat_canary0fine0grained0token0000000",
    "OPENAI_API_KEY": "sk-canary-provider-key-0123456789abcdef",
}
HOSTS_YML_TOKEN = "gho_canary0gh0hosts0yml0oauth0token000"
NETRC_TOKEN = "ghp_canary0netrc0password0token00000000"
PROBES = {
    "environ", "pytest-process", "real-home", "results-dir", "direct-loopback",
    "direct-host-ip", "direct-github-ip", "proxy-github-ip", "proxy-trailing-dot",
    "proxy-loopback", "proxy-connect-loopback", "proxy-localhost", "proxy-host-ip", "victim-read",
    "victim-checkout", "victim-token", "daemon-survived", "victim-world",
    "victim-checkout-file", "canary-service",
}  # fmt: skip


def run_escapes(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str
) -> tuple[pytest.RunResult, list[dict[str, Any]]]:
    home = pytester.path / "user-home"
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_text(
        f"github.com:\n    oauth_token: {HOSTS_YML_TOKEN}\n    user: real-user\n"
    )
    (home / ".netrc").write_text(f"machine github.com login real-user password {NETRC_TOKEN}\n")
    monkeypatch.setenv("HOME", str(home))
    for name, value in CANARIES.items():
        monkeypatch.setenv(name, value)
    report = pytester.path / "escapes.jsonl"
    monkeypatch.setenv("ESCAPE_REPORT", str(report))
    pythonpath = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    monkeypatch.setenv("PYTHONPATH", pythonpath)
    pytester.makeconftest("from tests.isolation.escape_adapter import pytest_ghxbench_adapters\n")
    (pytester.path / "scenarios").mkdir()
    (pytester.path / "scenarios" / PR_VIEW_SCENARIO.name).write_text(PR_VIEW_SCENARIO.read_text())
    # In a process of its own, whose environment holds the canaries from its start, as a CI
    # runner's pytest holds its credentials.
    result = pytester.runpytest_subprocess(
        "--ghx-adapter=escape", "--ghx-mode=agent_direct,mcp,ghx", "-p", "no:cacheprovider",
        "-p", "no:randomly", f"--junitxml={pytester.path / 'junit.xml'}", *args, "scenarios",
    )  # fmt: skip
    records = [json.loads(line) for line in report.read_text().splitlines()]
    return result, records


def everything_written(pytester: pytest.Pytester, result: pytest.RunResult) -> str:
    """Rows, transcripts, summaries, run.json, report.html, the junit file and the terminal."""
    files = [p for p in (pytester.path / ".ghxbench").rglob("*") if p.is_file()]
    files.append(pytester.path / "junit.xml")
    text = "".join(p.read_text(encoding="utf-8", errors="replace") for p in files)
    assert any(p.name == "report.html" for p in files)
    return text + result.stdout.str() + result.stderr.str()


def assert_no_secret_in(text: str) -> None:
    for secret in (*CANARIES.values(), HOSTS_YML_TOKEN, NETRC_TOKEN, "ghs_sbx_"):
        assert secret not in text, secret


def test_a_curious_agent_finds_no_way_out_of_its_jail(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_jail()
    result, records = run_escapes(pytester, monkeypatch)
    assert sorted(r["mode"] for r in records) == ["agent_direct", "ghx", "mcp"], records
    for record in records:
        assert record["finished"], record
        assert set(record["findings"]) >= PROBES, record
        foreign = [name for name in record["findings"] if name.startswith("foreign:")]
        assert len(foreign) == 2, record
        escapes = [name for name, found in record["findings"].items() if found != "contained"]
        assert escapes == [], record
        # the leaked token of the other item was refused at the item's gate, and said so
        assert any("a token of another item" in v for v in record["violations"]), record
    rows = recorded_rows(pytester.path)
    assert len(rows) == 3
    assert all(not row["success"] for row in rows)
    assert {row["error"]["type"] for row in rows} == {"mode_violation"}
    (spec,) = (pytester.path / ".ghxbench" / "runs").glob("run_*/run.json")
    assert json.loads(spec.read_text())["isolation"]["kind"] == "jail"
    assert_no_secret_in(everything_written(pytester, result))


def test_without_a_jail_the_same_agent_gets_out(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result, records = run_escapes(pytester, monkeypatch, "--ghx-isolation=none")
    # asked for, so said plainly (no warning), and recorded
    assert "ghxbench: isolation: none (--ghx-isolation=none)" in result.stdout.lines
    (spec,) = (pytester.path / ".ghxbench" / "runs").glob("run_*/run.json")
    isolation = json.loads(spec.read_text())["isolation"]
    assert isolation == {"kind": "none", "detail": "--ghx-isolation=none", "requested": "none"}
    by_mode = {r["mode"]: r for r in records}
    for record in records:
        found = {name for name, seen in record["findings"].items() if seen == "escaped"}
        assert {"environ", "real-home", "direct-loopback", "victim-read", "victim-token"} <= found
        assert "victim-world" in found and "canary-service" in found
        # the proxy's policy holds without a jail too: GitHub stays in the sandbox, and no
        # other host is reached through it
        assert not {name for name in found if name.startswith("proxy-")}, record
    # the real gh by absolute path in an mcp item runs, but its request is refused and the row
    # is a mode violation
    assert by_mode["mcp"]["findings"]["foreign:gh"] == "escaped"
    assert any("made by gh" in v for v in by_mode["mcp"]["violations"])
    rows = {row["mode"]: row for row in recorded_rows(pytester.path)}
    assert rows["mcp"]["error"]["type"] == "mode_violation"
    assert_no_secret_in(everything_written(pytester, result))
