"""``ghxbench sandbox init`` and the command line's usage errors (``serve`` and ``run`` are
covered with the real clients in ``tests/sandbox/api/test_sandbox_commands.py``)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_ghxbench.cli.sandbox import SANDBOX_USAGE, run_sandbox
from pytest_ghxbench.sandbox.statefile import load_world


class Outcome:
    def __init__(self, status: int, out: io.StringIO, err: io.StringIO) -> None:
        self.status, self.out, self.err = status, out.getvalue(), err.getvalue()


def sandbox(argv: Sequence[str]) -> Outcome:
    out, err = io.StringIO(), io.StringIO()
    status = run_sandbox(argv, stdout=out, stderr=err)
    return Outcome(status, out, err)


def test_init_writes_a_fresh_seeded_world(tmp_path: Path) -> None:
    path = tmp_path / "fresh.json"
    result = sandbox(["init", str(path)])
    assert (result.status, result.out, result.err) == (0, "", "")
    assert load_world(path).repository.full_name == "acme-labs/tinykv"


def test_init_with_a_broken_seed_names_it(tmp_path: Path) -> None:
    seed = tmp_path / "seed.yaml"
    seed.write_text("world: [1]\n", encoding="utf-8")
    result = sandbox(["init", str(tmp_path / "s.json"), "--seed", str(seed)])
    assert result.status == 2 and str(seed) in result.err and "invalid sandbox seed" in result.err
    assert not (tmp_path / "s.json").exists()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["init"], "missing STATE"),
        (["init", "a.json", "b.json"], "unexpected argument 'b.json'"),
        (["init", "a.json", "--seed"], "--seed needs a path"),
        (["publish"], "unknown command 'publish'"),
        (["gh", "pr", "view"], "unknown command 'gh'; expected serve, run or init"),
        (["serve", "--port", "x"], "argument --port: invalid int value"),
        (["run", "--mode", "gql", "--", "true"], "unknown mode 'gql'"),
    ],
)
def test_sandbox_usage_errors_exit_4(argv: list[str], expected: str) -> None:
    result = sandbox(argv)
    assert result.status == 4 and expected in result.err


def test_help_and_missing_command() -> None:
    assert sandbox(["--help"]).out == SANDBOX_USAGE
    missing = sandbox([])
    assert missing.status == 4 and missing.err == SANDBOX_USAGE
