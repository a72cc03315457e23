"""Changes to a world's code for tests: commits on a branch, a base that conflicts with a pull
request, protected branches. They go through git like any writer, then pull requests are
brought in step (as after a push)."""

from __future__ import annotations

from pytest_ghxbench.sandbox.code import branch_sha, person, sync_pulls
from pytest_ghxbench.sandbox.state import World

__all__ = ["commit_on", "conflicting_main", "protect"]


def commit_on(
    world: World, branch: str, changes: dict[str, str | None], message: str = "A change"
) -> str:
    """Commit ``changes`` (path -> new text, None removes) on ``branch`` as the viewer."""
    git = world.git
    tip = branch_sha(world, branch)
    now = world.tick()
    tree = git.write_tree(tip, {p: None if t is None else t.encode() for p, t in changes.items()})
    sha = git.write_commit(tree, [tip] if tip else [], message + "\n", person(world, "mona", now))
    git.set_ref(f"refs/heads/{branch}", sha)
    sync_pulls(world)
    return sha


def conflicting_main(world: World) -> str:
    """Move main on with a change to the lines pull request #7 rewrites, so the two conflict."""
    path = "src/tinykv/compaction.py"
    text = (world.git.read(branch_sha(world, "main") or "", path) or b"").decode()
    changed = text.replace(
        "            self.store.snapshot_writer.write(merged)\n",
        "            self.store.snapshot_writer.write(merged, fsync=True)\n",
    )
    assert changed != text
    return commit_on(world, "main", {path: changed}, "Fsync snapshots")


def protect(world: World, *branches: str) -> None:
    world.repository.protected_branches = list(branches)
    sync_pulls(world)
