"""The ``code`` section of a sandbox seed: a repository's history, built into a real git
repository with ``git fast-import``.

```yaml
code:
  commits:                  # in order; each commit's parent is the one listed before it
    - id: initial           # a label: other commits, branches, tags and the world's sha
      author: mona          #   fields ("@initial") refer to the commit by it
      date: "2024-05-12T09:30:00Z"
      message: Initial commit
      files: {README.md: "# tinykv\\n"}     # path -> full new content; null deletes the file
    - id: merge-9
      parents: [release-032, readme-fix]    # explicit parents: [] makes a root commit
      ...
  branches: {main: bench, fix/compaction-lock: lock-3}
  tags: {v0.3.2: release-032}
```

Authors are logins of the world's users (``<login>@users.noreply.github.com``); dates are UTC, so
the same seed always gives the same shas.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pytest_ghxbench.sandbox.git.objects import Person
from pytest_ghxbench.sandbox.git.repo import GitError, GitRepo

__all__ = ["CodeSeed", "SeedCommit", "build_repository"]

_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_DATE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
_BUILD_REF = "refs/ghxbench/seed"
MAX_SEED_FILE = 1 << 20
"""Bytes: a seed describes small source files, not assets."""


class SeedCommit(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    message: str
    author: str
    """A login of the world's users."""
    date: str
    """ISO 8601 in UTC: ``2024-05-12T09:30:00Z``."""
    committer: str | None = None
    """A login; the author when left out."""
    parents: list[str] | None = None
    """Labels of the parent commits; left out: the commit listed before this one."""
    files: dict[str, str | None] = Field(default_factory=dict)
    """Path -> the file's whole new text; null removes the file."""

    @model_validator(mode="after")
    def _well_formed(self) -> SeedCommit:
        if not _LABEL.match(self.id):
            raise ValueError(f"id {self.id!r}: use letters, digits, '.', '_' and '-'")
        if not _DATE.match(self.date):
            raise ValueError(f"date {self.date!r}: expected e.g. 2024-05-12T09:30:00Z")
        for path, text in self.files.items():
            if not path or path.startswith("/") or ".." in path.split("/") or "//" in path:
                raise ValueError(f"files: {path!r} is not a relative path")
            if text is not None and len(text.encode()) > MAX_SEED_FILE:
                raise ValueError(f"files: {path} is over {MAX_SEED_FILE} bytes")
        return self


class CodeSeed(BaseModel):
    model_config = ConfigDict(extra="forbid")
    commits: list[SeedCommit] = Field(default_factory=list)
    branches: dict[str, str] = Field(default_factory=dict)
    """Branch name -> commit label."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tag name -> commit label (lightweight tags)."""

    @model_validator(mode="after")
    def _labels_resolve(self) -> CodeSeed:
        seen: set[str] = set()
        for index, commit in enumerate(self.commits):
            if commit.id in seen:
                raise ValueError(f"commits[{index}]: id {commit.id!r} is used twice")
            for parent in commit.parents or []:
                if parent not in seen:
                    raise ValueError(
                        f"commits[{index}] ({commit.id}): parent {parent!r} is not a commit "
                        "listed before it"
                    )
            seen.add(commit.id)
        for kind, refs in (("branches", self.branches), ("tags", self.tags)):
            for name, label in refs.items():
                if label not in seen:
                    raise ValueError(f"{kind}.{name}: {label!r} is not a commit id")
        return self


def _quote(path: str) -> str:
    """A path as fast-import reads it (C-style quoting where needed)."""
    if not any(c in path for c in ' "\\\n'):
        return path
    escaped = path.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _fast_import_stream(seed: CodeSeed, names: dict[str, str]) -> bytes:
    out: list[bytes] = []
    marks: dict[str, int] = {}
    previous: str | None = None
    for number, commit in enumerate(seed.commits, start=1):
        parents = commit.parents if commit.parents is not None else [previous] if previous else []
        author = Person.of_login(commit.author, names.get(commit.author, ""), commit.date)
        committer = author
        if commit.committer:
            committer = Person.of_login(
                commit.committer, names.get(commit.committer, ""), commit.date
            )
        if not parents:
            out.append(f"reset {_BUILD_REF}\n".encode())
        head = [f"commit {_BUILD_REF}", f"mark :{number}"]
        for role, who in (("author", author), ("committer", committer)):
            head.append(f"{role} {who.name} <{who.email}> {int(who.signature().time)} +0000")
        message = (commit.message.rstrip() + "\n").encode()
        out.append(("\n".join(head) + f"\ndata {len(message)}\n").encode() + message)
        if parents:
            out.append(f"from :{marks[parents[0]]}\n".encode())
            out += [f"merge :{marks[p]}\n".encode() for p in parents[1:]]
        for path, text in commit.files.items():
            if text is None:
                out.append(f"D {_quote(path)}\n".encode())
                continue
            data = text.encode()
            out.append(f"M 100644 inline {_quote(path)}\ndata {len(data)}\n".encode() + data)
            out.append(b"\n")
        out.append(b"\n")
        marks[commit.id] = number
        previous = commit.id
    for kind, refs in (("heads", seed.branches), ("tags", seed.tags)):
        for name, label in refs.items():
            out.append(f"reset refs/{kind}/{name}\nfrom :{marks[label]}\n\n".encode())
    out.append(b"done\n")
    return b"".join(out)


def build_repository(
    seed: CodeSeed, path: Path, default_branch: str, names: dict[str, str]
) -> tuple[GitRepo, dict[str, str]]:
    """Build ``seed`` as a new bare repository at ``path``; returns it and the sha of each
    commit label. ``names``: login -> display name, for authors."""
    repo = GitRepo(path, create=True, default_branch=default_branch)
    marks = path / "seed-marks"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    done = subprocess.run(
        ["git", "--git-dir", str(path), "fast-import", "--quiet", "--done",
         f"--export-marks={marks}"],
        input=_fast_import_stream(seed, names),
        capture_output=True,
        env=env,
        check=False,
    )  # fmt: skip
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError("git fast-import failed: " + (message[0] if message else "no output"))
    by_mark = {}
    for line in marks.read_text(encoding="utf-8").splitlines():
        mark, _, sha = line.partition(" ")
        by_mark[int(mark.lstrip(":"))] = sha
    marks.unlink()
    repo.delete_ref(_BUILD_REF)
    shas = {commit.id: by_mark[i] for i, commit in enumerate(seed.commits, start=1)}
    return repo, shas
