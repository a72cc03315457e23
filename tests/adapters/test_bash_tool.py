"""The bash tool runs exactly one command of the mode's binary, and nothing a shell would."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pytest_ghxbench.adapters.bash_tool import BashTool, CommandRefused, parse_command, scrubbed_env

FAKE_GH = """#!/bin/sh
if [ "$1" = "sleep" ]; then sleep 5; fi
if [ "$1" = "big" ]; then
  i=0; while [ $i -lt 300 ]; do echo 0123456789; i=$((i+1)); done; exit 0
fi
if [ "$1" = "env" ]; then env; exit 0; fi
if [ "$1" = "fail" ]; then echo oops >&2; exit 3; fi
for a in "$@"; do echo "[$a]"; done
"""

# Each entry would, in a shell, run something other than one gh command.
INJECTIONS = [
    "gh issue list; touch PWNED",
    "gh issue list && touch PWNED",
    "gh issue list || touch PWNED",
    "gh issue list | sh",
    "gh issue list & touch PWNED",
    "gh issue list > PWNED",
    "gh issue list < /etc/passwd",
    "gh issue view $(touch PWNED)",
    'gh issue view "$(touch PWNED)"',
    "gh issue view `touch PWNED`",
    'gh issue view "`touch PWNED`"',
    "gh issue view ${HOME}",
    "gh issue view $OPENAI_API_KEY",
    "gh issue list\ntouch PWNED",
    "gh issue list\rtouch PWNED",
    "(gh issue list)",
    "/bin/sh -c 'touch PWNED'",
    "sh -c 'touch PWNED'",
    "../bin/gh issue list",
    "./gh issue list",
    "/usr/bin/gh issue list",
    "touch PWNED",
    "env gh issue list",
    "gh --exec 'touch PWNED'",
    "gh --exec=sh",
    "gh alias set x '!touch PWNED'",
    "gh extension exec evil",
    "gh auth token",
    "gh config set editor 'touch PWNED'",
    "gh issue create --body-file ../../etc/passwd",
    "gh issue create --body-file=../secret",
    "gh api repos/x -F body=@../secret",
    "gh issue list 'unterminated",
    "",
    "   ",
]


@pytest.fixture
def tool(tmp_path: Path) -> BashTool:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(FAKE_GH)
    gh.chmod(gh.stat().st_mode | stat.S_IEXEC)
    env = scrubbed_env({"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin"})
    return BashTool("gh", env, cwd=tmp_path, timeout_s=60, max_output_chars=500)


@pytest.mark.parametrize("command", INJECTIONS)
def test_injection_is_refused_and_nothing_runs(
    tool: BashTool, tmp_path: Path, command: str
) -> None:
    outcome = tool.run(command)
    assert outcome.refused and not outcome.ok
    assert outcome.output.startswith("refused:")
    assert not (tmp_path / "PWNED").exists()


def test_quoted_metacharacters_are_passed_literally(tool: BashTool) -> None:
    outcome = tool.run("gh issue comment 3 --body 'a | b; c && `d` $(e)'")
    assert outcome.ok and not outcome.refused
    assert outcome.output.splitlines() == [
        "[issue]",
        "[comment]",
        "[3]",
        "[--body]",
        "[a | b; c && `d` $(e)]",
    ]


def test_double_quoted_text_keeps_spaces(tool: BashTool) -> None:
    outcome = tool.run('gh issue create --title "Fix the build" --body "line one"')
    assert "[Fix the build]" in outcome.output.splitlines()


def test_failure_shows_stderr_and_exit_status(tool: BashTool) -> None:
    outcome = tool.run("gh fail")
    assert not outcome.ok and outcome.exit_code == 3
    assert outcome.output == "[stderr]\noops\n[exit status 3]"


def test_long_output_is_truncated_with_a_marker(tool: BashTool) -> None:
    outcome = tool.run("gh big")
    assert outcome.truncated and outcome.ok
    # 300 lines of 11 characters = 3300, minus the trailing newline = 3299; 500 are kept
    assert outcome.output.endswith("[output truncated: 2799 more characters]")


def test_slow_command_times_out(tool: BashTool) -> None:
    outcome = tool.run("gh sleep", timeout_s=0.3)
    assert outcome.timed_out and not outcome.ok
    assert "timed out after 0.3 s" in outcome.output
    assert outcome.duration_ms >= 300  # it ran until its timeout (the command sleeps 5 s)


def test_environment_is_scrubbed(tool: BashTool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak-123456")
    tool.env = scrubbed_env({"PATH": tool.env["PATH"], "GHXBENCH_SANDBOX_STATE": "/x"})
    output = tool.run("gh env").output
    assert "sk-should-not-leak" not in output and "OPENAI_API_KEY" not in output
    assert "GHXBENCH_SANDBOX_STATE=/x" in output and "GH_PROMPT_DISABLED=1" in output


def test_missing_binary_is_reported(tmp_path: Path) -> None:
    outcome = BashTool("ghx", {"PATH": str(tmp_path)}).run("ghx capabilities list")
    assert not outcome.ok and "not installed" in outcome.output


def test_other_mode_binary_is_refused() -> None:
    with pytest.raises(CommandRefused, match="only `ghx` can be run"):
        parse_command("gh issue list", "ghx")
