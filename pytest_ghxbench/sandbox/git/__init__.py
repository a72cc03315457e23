"""The sandbox's repositories as real git repositories: built from the seed (:mod:`.seed`),
forked per item and read and written in process (:mod:`.repo`), diffed (:mod:`.diff`)."""

from pytest_ghxbench.sandbox.git.objects import (
    CommitInfo,
    FileChange,
    Person,
    TreeEntry,
    login_of_email,
)
from pytest_ghxbench.sandbox.git.repo import GitError, GitRepo, scratch_root

__all__ = [
    "CommitInfo",
    "FileChange",
    "GitError",
    "GitRepo",
    "Person",
    "TreeEntry",
    "login_of_email",
    "scratch_root",
]
