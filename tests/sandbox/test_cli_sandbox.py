"""``ghxbench sandbox init|ghx|gh|mcp``: state handling, exit statuses, concurrency."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import types
from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_ghxbench.cli import sandbox as cli_sandbox
from pytest_ghxbench.cli.main import main
from pytest_ghxbench.cli.sandbox import SANDBOX_USAGE, run_sandbox
from pytest_ghxbench.sandbox.dialects.ghx_cli import GHX_USAGE
from pytest_ghxbench.sandbox.dialects.result import CliResult
from pytest_ghxbench.sandbox.manifest import seeded
from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.sandbox.statefile import STATE_ENV, init_state, load_world

ISSUE_ID = seeded().manifest["resources"]["issue"]["id"]
REPO_INPUT = '{"owner":"acme-labs","name":"tinykv"}'


class Outcome:
    def __init__(self, status: int, out: io.StringIO, err: io.StringIO) -> None:
        self.status, self.out, self.err = status, out.getvalue(), err.getvalue()


class Unreadable(io.StringIO):
    def read(self, size: int | None = -1) -> str:
        raise AssertionError("stdin must not be read")


def sandbox(argv: Sequence[str], state: Path | None, stdin: io.StringIO | None = None) -> Outcome:
    out, err = io.StringIO(), io.StringIO()
    env = {} if state is None else {STATE_ENV: str(state)}
    status = run_sandbox(argv, environ=env, stdin=stdin or Unreadable(), stdout=out, stderr=err)
    return Outcome(status, out, err)


@pytest.fixture
def state(tmp_path: Path) -> Path:
    path = tmp_path / "state.json"
    init_state(path)
    return path


def comment(body: str) -> list[str]:
    payload = json.dumps({"issueId": ISSUE_ID, "body": body})
    return ["ghx", "run", "issue.comments.create", "--input", payload]


def test_init_writes_a_state_the_clis_can_use(tmp_path: Path) -> None:
    path = tmp_path / "fresh.json"
    result = sandbox(["init", str(path)], None)
    assert (result.status, result.out, result.err) == (0, "", "")
    ran = sandbox(["ghx", "run", "repo.view", "--input", REPO_INPUT], path)
    assert ran.status == 0 and json.loads(ran.out)["data"]["nameWithOwner"] == "acme-labs/tinykv"


def test_init_with_a_broken_seed_names_it(tmp_path: Path) -> None:
    seed = tmp_path / "seed.yaml"
    seed.write_text("world: [1]\n", encoding="utf-8")
    result = sandbox(["init", str(tmp_path / "s.json"), "--seed", str(seed)], None)
    assert result.status == 2 and str(seed) in result.err and "invalid sandbox seed" in result.err
    assert not (tmp_path / "s.json").exists()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["init"], "missing STATE"),
        (["init", "a.json", "b.json"], "unexpected argument 'b.json'"),
        (["init", "a.json", "--seed"], "--seed needs a path"),
        (["publish"], "unknown command 'publish'"),
        (["serve", "--port", "x"], "argument --port: invalid int value"),
        (["run", "--mode", "gql", "--", "true"], "unknown mode 'gql'"),
    ],
)
def test_sandbox_usage_errors_exit_4(argv: list[str], expected: str) -> None:
    result = sandbox(argv, None)
    assert result.status == 4 and expected in result.err


def test_help_and_missing_command() -> None:
    assert sandbox(["--help"], None).out == SANDBOX_USAGE
    missing = sandbox([], None)
    assert missing.status == 4 and missing.err == SANDBOX_USAGE


def test_mutations_persist_between_calls(state: Path) -> None:
    first = sandbox(comment("Reproduced on main."), state)
    assert first.status == 0 and json.loads(first.out)["ok"] is True
    listing = sandbox(
        ["ghx", "run", "issue.comments.list", "--input", "-"],
        state,
        io.StringIO('{"owner":"acme-labs","name":"tinykv","issueNumber":3}'),
    )
    bodies = [c["body"] for c in json.loads(listing.out)["data"]["items"]]
    assert bodies[-1] == "Reproduced on main."


def test_reads_and_failed_calls_leave_the_file_untouched(state: Path) -> None:
    inode = state.stat().st_ino  # a save replaces the file, so it would get a new inode
    assert sandbox(["ghx", "run", "repo.view", "--input", REPO_INPUT], state).status == 0
    bad = sandbox(["ghx", "run", "issue.comments.create", "--input", '{"body": 1}'], state)
    assert bad.status == 1 and json.loads(bad.out)["error"]["code"] == "VALIDATION"
    assert sandbox(["ghx", "capabilities", "list"], state).status == 0
    assert sandbox(["ghx", "run", "repo.view"], state).status == 2
    assert state.stat().st_ino == inode
    assert sandbox(comment("now it changes"), state).status == 0
    assert state.stat().st_ino != inode


def test_ghx_usage_errors_keep_exit_2_and_stderr(state: Path) -> None:
    result = sandbox(["ghx", "run", "repo.view", "--input", "{nope"], state)
    assert result.status == 2 and result.out == "" and "not valid JSON" in result.err


def test_unset_state_variable_is_a_clear_exit_2() -> None:
    for dialect in ("ghx", "gh"):
        result = sandbox([dialect, "run", "repo.view", "--input", REPO_INPUT], None)
        assert result.status == 2 and f"{STATE_ENV} is not set" in result.err
        assert "ghxbench sandbox init" in result.err


def test_missing_or_corrupt_state_is_a_clear_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "gone.json"
    result = sandbox(["ghx", "capabilities", "list"], missing)
    assert result.status == 2 and f"{STATE_ENV}={missing}: no such state file" in result.err
    assert not Path(f"{missing}.lock").exists()
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text("{", encoding="utf-8")
    result = sandbox(["ghx", "capabilities", "list"], corrupt)
    assert result.status == 2 and str(corrupt) in result.err and "invalid JSON" in result.err


def test_gh_without_its_dialect_says_so(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_sandbox, "GH_MODULE", "pytest_ghxbench.sandbox.dialects.no_such_gh")
    result = sandbox(["gh", "issue", "list"], state)
    assert result.status == 2 and result.err == "gh dialect not available yet\n"


def test_gh_runs_the_gh_dialect_with_stdin_and_saves_its_mutations(
    state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[list[str], str]] = []

    def run_gh(world: World, argv: Sequence[str], stdin: str = "") -> CliResult:
        calls.append((list(argv), stdin))
        world.viewer = "gh-user"
        return CliResult(1, "out\n", "err\n", mutated=True)

    fake = types.ModuleType("fake_gh_cli")
    fake.run_gh = run_gh  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tests.fake_gh_cli", fake)
    monkeypatch.setattr(cli_sandbox, "GH_MODULE", "tests.fake_gh_cli")
    argv = ["gh", "issue", "comment", "3", "--body-file", "-"]
    result = sandbox(argv, state, io.StringIO("from stdin"))
    assert (result.status, result.out, result.err) == (1, "out\n", "err\n")
    assert calls == [(["issue", "comment", "3", "--body-file", "-"], "from stdin")]
    assert load_world(state).viewer == "gh-user"
    sandbox(["gh", "issue", "list"], state)  # no "-": stdin is not read (Unreadable)
    assert calls[-1] == (["issue", "list"], "")


def test_mcp_needs_a_state_file(tmp_path: Path) -> None:
    # The server itself is tested end to end over stdio in test_mcp_server.py.
    unset = sandbox(["mcp"], None)
    assert unset.status == 2 and STATE_ENV in unset.err
    missing = sandbox(["mcp"], tmp_path / "absent.json")
    assert missing.status == 2 and "absent.json" in missing.err


def test_main_hands_sandbox_arguments_through_untouched(
    state: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(STATE_ENV, str(state))
    assert main(["sandbox", "ghx", "--help"]) == 0  # argparse would have taken --help
    assert capsys.readouterr().out == GHX_USAGE
    assert main(["--help"]) == 0
    assert "sandbox" in capsys.readouterr().out


WORKER = """
import io, json, os, sys, time
from pytest_ghxbench.cli.sandbox import run_sandbox
worker, count, issue_id, go = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.001)
for index in range(count):
    body = json.dumps({"issueId": issue_id, "body": f"w{worker}-{index}"})
    out, err = io.StringIO(), io.StringIO()
    argv = ["ghx", "run", "issue.comments.create", "--input", body]
    status = run_sandbox(argv, stdout=out, stderr=err)
    assert status == 0, (status, out.getvalue(), err.getvalue())
"""


def test_concurrent_mutating_processes_lose_no_update(state: Path, tmp_path: Path) -> None:
    workers, count = 4, 25
    go = tmp_path / "go"
    env = {**os.environ, STATE_ENV: str(state)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(n), str(count), ISSUE_ID, str(go)],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(workers)
    ]
    for proc in procs:  # start together, once every worker has done its imports
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    go.touch()
    assert [proc.wait(timeout=60) for proc in procs] == [0] * workers
    issue = load_world(state).issue(3)
    assert issue is not None
    added = [c for c in issue.comments if c.body.startswith("w")]
    expected = {f"w{n}-{i}" for n in range(workers) for i in range(count)}
    assert len(added) == workers * count and {c.body for c in added} == expected
    assert len({c.id for c in issue.comments}) == len(issue.comments)
    for n in range(workers):  # each worker's comments stay in its own order
        mine = [c.body for c in added if c.body.startswith(f"w{n}-")]
        assert mine == [f"w{n}-{i}" for i in range(count)]
