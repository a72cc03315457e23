"""What git's own commands make of a sandbox repository: a standalone copy (a state file's),
``git format-patch`` (a commit's or a compare's ``.patch``) and ``git archive`` (tarballs and
zipballs)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from pytest_ghxbench.sandbox.git.repo import BARE_CONFIG, GitError, GitRepo

__all__ = ["archive", "format_patch", "standalone_copy"]


def standalone_copy(repo: GitRepo, target: Path) -> None:
    """A standalone copy (every object and ref, no alternates) at ``target``."""
    done = subprocess.run(
        ["git", "clone", "--quiet", "--mirror", "--no-local", str(repo.path), str(target)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise GitError(done.stderr.decode("utf-8", "replace").strip())
    (target / "config").write_text(BARE_CONFIG, encoding="utf-8")


def format_patch(repo: GitRepo, base: str | None, head: str) -> str:
    """``git format-patch --stdout`` of the commits of ``head`` not in ``base``."""
    span = f"{base}..{head}" if base else "--root"
    argv = ["git", "--git-dir", str(repo.path), "format-patch", "--stdout", "--no-signature"]
    done = subprocess.run(
        [*argv, span, *([head] if not base else [])], capture_output=True, check=False
    )
    if done.returncode != 0:
        raise GitError(done.stderr.decode("utf-8", "replace").strip())
    return done.stdout.decode("utf-8", "replace")


def archive(repo: GitRepo, commit: str, fmt: str, prefix: str) -> bytes:
    """``git archive`` of ``commit`` as ``tar.gz`` or ``zip``, every path under ``prefix``."""
    done = subprocess.run(
        ["git", "--git-dir", str(repo.path), "archive", f"--format={fmt}",
         f"--prefix={prefix}", commit],
        capture_output=True,
        check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise GitError(done.stderr.decode("utf-8", "replace").strip())
    return done.stdout
