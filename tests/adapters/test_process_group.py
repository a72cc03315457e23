"""No process of an item outlives it: a CLI agent (here a fake ``claude``) and a grandchild,
both ignoring SIGTERM, are gone when the item ends, whether the adapter's deadline or
pytest-timeout's backstop stopped them; the usage the agent reported so far stays on the row."""

from __future__ import annotations

import json
import os
import shlex
import signal
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.plugin.support import CONFTEST, atomic, read_rows, setup_project

# A Claude Code stand-in that reports one response's usage, then hangs ignoring SIGTERM, with a
# child that ignores it too; it writes both pids to PIDS. A shell script, so that it has printed
# the usage long before the item's deadline (one second) however busy the machine: starting a
# Python interpreter is what a loaded machine slows down.
INIT_EVENT = {
    "type": "system", "subtype": "init", "session_id": "s-1", "model": "claude-test",
    "mcp_servers": [],
}  # fmt: skip
USAGE_EVENT = {
    "type": "assistant",
    "message": {
        "id": "m1", "model": "claude-test", "content": [{"type": "text", "text": "Looking."}],
        "usage": {"input_tokens": 1200, "output_tokens": 30, "cache_read_input_tokens": 400},
    },
}  # fmt: skip
FAKE_CLAUDE = f"""\
#!/bin/sh
trap '' TERM
sleep 120 &
echo "[$$, $!]" > {{pids}}
printf '%s\\n' '{json.dumps(INIT_EVENT)}'
printf '%s\\n' '{json.dumps(USAGE_EVENT)}'
sleep 120
"""


ADAPTER = textwrap.dedent(
    """

    from pytest_ghxbench.adapters.claude_code.adapter import ClaudeCodeAdapter


    class FakeClaude(ClaudeCodeAdapter):
        name = "fake-claude"

        def preflight(self, config):
            self.binary, self.version = str(HERE / "claude"), "fake 1.0"

        def run(self, request):
            if (HERE / "ignore-deadline").exists():  # an adapter that overruns its deadline
                request.deadline += 60
            return super().run(request)


    def pytest_ghxbench_adapters(config):
        return [FakeClaude()]
    """
)


def _alive(pid: int) -> bool:
    # A killed process whose parent is gone can stay a zombie if PID 1 does not reap it.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def _survivors(pids: list[int], within_s: float = 60.0) -> list[int]:
    end = time.monotonic() + within_s
    while any(_alive(pid) for pid in pids) and time.monotonic() < end:
        time.sleep(0.05)
    return [pid for pid in pids if _alive(pid)]


@pytest.fixture
def project(pytester: pytest.Pytester) -> Iterator[pytest.Pytester]:
    pids = pytester.path / "pids.json"
    setup_project(pytester, [atomic("repo-view-001", timeout_ms=1000)], {})
    pytester.makeconftest(CONFTEST + ADAPTER)
    fake = pytester.path / "claude"
    fake.write_text(FAKE_CLAUDE.replace("{pids}", shlex.quote(str(pids))))
    fake.chmod(0o755)
    yield pytester
    if pids.exists():  # without the fix they would outlive the test too
        for pid in json.loads(pids.read_text()):
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def _run(pytester: pytest.Pytester) -> tuple[pytest.RunResult, list[int]]:
    result = pytester.runpytest_subprocess(
        "--ghx-mode=ghx", "--ghx-adapter=fake-claude", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(failed=1)
    pids: list[int] = json.loads((pytester.path / "pids.json").read_text())
    assert len(pids) == 2
    return result, pids


def test_at_the_adapters_deadline_the_group_is_killed_and_the_usage_kept(
    project: pytest.Pytester,
) -> None:
    # The agent ignores SIGTERM, so the grace runs out; pytest-timeout's backstop (2 s after
    # the deadline, counted from before the adapter started) fires while the adapter waits.
    result, pids = _run(project)
    assert _survivors(pids) == []
    (row,) = read_rows(project)
    assert "still running at the item deadline" in row["error"]["message"]
    assert row["tokens"]["input"] == 1200 and row["tokens"]["cache_read"] == 400
    assert "pytest-timeout stopped" not in result.stdout.str()


def test_the_backstop_mid_run_kills_the_group_and_keeps_the_usage(
    project: pytest.Pytester,
) -> None:
    (project.path / "ignore-deadline").touch()
    _, pids = _run(project)
    assert _survivors(pids) == []
    (row,) = read_rows(project)
    message = row["error"]["message"]
    assert "still running when pytest-timeout's backstop stopped it" in message
    assert row["tokens"]["input"] == 1200 and row["tokens"]["output"] == 30


def test_an_interrupt_while_reading_kills_the_group(tmp_path: Path) -> None:
    # Ctrl-C (or any exception) arriving while the helper hands a line over.
    from pytest_ghxbench.adapters.agent_process import run_agent_process
    from pytest_ghxbench.adapters.process import scrubbed_env

    pids = tmp_path / "pids.json"
    fake = tmp_path / "claude"
    fake.write_text(FAKE_CLAUDE.replace("{pids}", shlex.quote(str(pids))))
    fake.chmod(0o755)

    def interrupt(line: str, at: float) -> None:
        raise KeyboardInterrupt

    try:
        with pytest.raises(KeyboardInterrupt):
            run_agent_process(
                [str(fake)],
                env=scrubbed_env({}),
                cwd=tmp_path,
                deadline=time.monotonic() + 30,
                on_line=interrupt,
            )
        assert _survivors(json.loads(pids.read_text())) == []
    finally:
        for pid in json.loads(pids.read_text()):
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
