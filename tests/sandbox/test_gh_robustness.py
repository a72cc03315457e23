"""Odd command lines never crash the gh dialect: gh answers every one with output or an error.

``run_gh`` turns an unexpected ``ValueError``/``TypeError``/... into a generic "could not
handle this command" message rather than a traceback; that message must never appear, because
every bad input deserves gh's own, specific error.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_ghxbench.sandbox.dialects.gh_cli import run_gh
from pytest_ghxbench.sandbox.dialects.gh_groups import GROUPS
from pytest_ghxbench.sandbox.manifest import fresh_world

COMMANDS = [[group, command.name] for group, g in GROUPS.items() for command in g.commands]
COMMANDS.append(["api"])
TOKENS = [
    "7", "3", "99", "0", "-1", "abc", "#7", "v0.4.0", "ci.yml", "13500000003", "37800000007",
    "https://github.com/acme-labs/tinykv/pull/7", "https://github.com/acme-labs/tinykv/issues/3",
    "-R", "acme-labs/tinykv", "--repo", "other/repo", "--json", "number,title", "--json", "bogus",
    "-q", ".[0]", "--jq", ".x |", "--state", "all", "--state", "bogus", "-L", "0", "-L", "x",
    "--body", "text", "-b", "", "--title", "T", "--label", "bug", "--add-label", "nope",
    "--milestone", "v9", "--add-assignee", "@me", "--approve", "--comment", "--squash",
    "--merge", "--draft", "--draft=false", "--failed", "--log", "--log-failed", "--job",
    "--owner", "acme-labs", "--format", "json", "--id", "PVTI_x", "--field-id", "x",
    "--project-id", "PVT_x", "--text", "x", "--number", "x", "--url", "https://x/issues/1",
    "-f", "a=b", "-F", "n=abc", "-F", "x[]=1", "-X", "PATCH", "-X", "BOGUS", "--paginate",
    "graphql", "-f", "query={ viewer { login } }", "-f", "query=mutation { x }",
    "repos/{owner}/{repo}/issues/3", "repos/acme-labs/tinykv/pulls/x/comments/y/replies",
    "--yes", "--force", "--color", "zz", "-c", "--name-only", "--undo", "-d", "--", "--bogus",
]  # fmt: skip


@settings(max_examples=300, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    command=st.sampled_from(COMMANDS),
    extra=st.lists(st.sampled_from(TOKENS), max_size=6),
)
def test_no_command_line_crashes(command: list[str], extra: list[str]) -> None:
    result = run_gh(fresh_world(), [*command, *extra])
    assert "could not handle this command" not in result.stderr, (command, extra, result.stderr)
    assert result.exit_code in (0, 1, 8)
    if result.exit_code:
        assert result.stderr.strip() or result.stdout.strip()
