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
    # The child prints "b" only once the harness has handed "a" to the handler: lines held
    # back until the child exits would never let it (and the deadline would stop it).
    seen: list[tuple[str, float]] = []
    handed = tmp_path / "a-arrived"
    code = (
        "import os, time\n"
        "print('a', time.monotonic(), flush=True)\n"
        f"while not os.path.exists({str(handed)!r}): time.sleep(0.01)\n"
        "print('b', time.monotonic(), flush=True)\n"
    )

    def on_line(line: str, at: float) -> None:
        seen.append((line, at))
        handed.touch()

    outcome = run_agent_process(
        python(code),
        env=scrubbed_env({}),
        cwd=tmp_path,
        deadline=time.monotonic() + 600,
        on_line=on_line,
    )
    assert outcome.returncode == 0 and not outcome.timed_out
    assert [line.split()[0] for line, _ in seen] == ["a", "b"]
    # Each line's arrival time is read off the clock the child printed with (monotonic), no
    # earlier than its printing, and "a" arrived before "b" was printed.
    (a, a_at), (b, b_at) = seen
    a_printed, b_printed = float(a.split()[1]), float(b.split()[1])
    assert a_printed <= a_at <= b_printed <= b_at


def test_a_failing_handler_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    def handler(line: str, at: float) -> None:
        if line == "bad":
            raise ValueError("cannot parse")

    outcome = run_agent_process(
        python("print('bad'); print('good')"),
        env=scrubbed_env({}),
        cwd=tmp_path,
        deadline=time.monotonic() + 300,
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
    outcome = run_agent_process(
        python(code),
        env=scrubbed_env({}),
        cwd=tmp_path,
        deadline=time.monotonic() + 1.0,
        on_line=lambda line, at: None,
    )
    assert outcome.timed_out
    # Killed, not waited for: the child would otherwise have exited by itself (status 0).
    assert outcome.describe_exit() == "was killed by SIGKILL"
    assert group_gone(outcome.pgid)


def test_stderr_tail_is_kept(tmp_path: Path) -> None:
    code = "import sys; sys.stderr.write('x' * 10000 + 'END'); sys.exit(3)"
    outcome = run_agent_process(
        python(code),
        env=scrubbed_env({}),
        cwd=tmp_path,
        deadline=time.monotonic() + 300,
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
