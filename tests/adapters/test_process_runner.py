"""run_agent_process: streaming with arrival times, deadlines, process groups, env scrubbing."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from pytest_ghxbench.adapters.agent_process import run_agent_process
from pytest_ghxbench.adapters.process import provider_model, redact, scrubbed_env, secret_values
from tests.adapters.fakes.helpers import group_gone


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_lines_arrive_as_printed(tmp_path: Path) -> None:
    seen: list[tuple[str, float]] = []
    code = "import time; print('a', flush=True); time.sleep(0.4); print('b', flush=True)"
    outcome = run_agent_process(
        python(code),
        env=scrubbed_env({}),
        cwd=tmp_path,
        deadline=time.monotonic() + 20,
        on_line=lambda line, at: seen.append((line, at)),
    )
    assert outcome.returncode == 0 and not outcome.timed_out
    assert [line for line, _ in seen] == ["a", "b"]
    assert seen[1][1] - seen[0][1] >= 0.3


def test_a_failing_handler_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    def handler(line: str, at: float) -> None:
        if line == "bad":
            raise ValueError("cannot parse")

    outcome = run_agent_process(
        python("print('bad'); print('good')"),
        env=scrubbed_env({}),
        cwd=tmp_path,
        deadline=time.monotonic() + 20,
        on_line=handler,
    )
    assert outcome.returncode == 0
    assert outcome.problems == ["line handler failed on 'bad': ValueError: cannot parse"]


def test_timeout_kills_children_that_ignore_sigterm(tmp_path: Path) -> None:
    code = (
        "import signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print('started', flush=True)\n"
        "time.sleep(60)\n"
    )
    started = time.monotonic()
    outcome = run_agent_process(
        python(code),
        env=scrubbed_env({}),
        cwd=tmp_path,
        deadline=time.monotonic() + 1.0,
        on_line=lambda line, at: None,
    )
    assert outcome.timed_out
    assert time.monotonic() - started < 10
    assert outcome.describe_exit() == "was killed by SIGKILL"
    assert group_gone(outcome.pgid)


def test_stderr_tail_is_kept(tmp_path: Path) -> None:
    code = "import sys; sys.stderr.write('x' * 10000 + 'END'); sys.exit(3)"
    outcome = run_agent_process(
        python(code),
        env=scrubbed_env({}),
        cwd=tmp_path,
        deadline=time.monotonic() + 20,
        on_line=lambda line, at: None,
    )
    assert outcome.returncode == 3
    assert outcome.describe_exit() == "exited with status 3"
    assert outcome.stderr_tail.endswith("END") and len(outcome.stderr_tail) == 4000


def test_scrubbed_env_keeps_only_what_is_named() -> None:
    base = {"PATH": "/bin", "HOME": "/h", "GITHUB_TOKEN": "ghp_x", "ANTHROPIC_API_KEY": "k"}
    env = scrubbed_env({"GHXBENCH_SANDBOX_STATE": "/s"}, ["ANTHROPIC_API_KEY"], base=base)
    assert env == {
        "PATH": "/bin",
        "HOME": "/h",
        "ANTHROPIC_API_KEY": "k",
        "GHXBENCH_SANDBOX_STATE": "/s",
    }


def test_secrets_are_found_by_name_and_redacted() -> None:
    env = {"GH_TOKEN": "ghp_abcdef123", "OPENAI_API_KEY": "sk-12345678", "PATH": "/usr/bin"}
    secrets = secret_values(env)
    assert sorted(secrets) == ["ghp_abcdef123", "sk-12345678"]
    assert redact("a ghp_abcdef123 b /usr/bin", secrets) == "a [redacted] b /usr/bin"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("anthropic/claude-sonnet-4-5", ("anthropic", "claude-sonnet-4-5")),
        ("gpt-5", ("openai", "gpt-5")),
        (None, ("openai", None)),
    ],
)
def test_provider_model(given: str | None, expected: tuple[str, str | None]) -> None:
    assert provider_model(given, "openai") == expected
