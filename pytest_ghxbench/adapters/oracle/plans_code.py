"""The oracle's gh plans for code: what an agent does in the item's checkout with ``git``
(reading files and history after a fetch, committing to a branch and pushing), and with gh
where the job is GitHub's (opening a pull request, commenting on a line of its diff).

The checkout is a clone whose ``origin`` is the sandbox, on the default branch. A branch of the
repository is read as ``origin/<branch>`` after ``git fetch``, so what was pushed by any route
since the clone is seen; tags and commit SHAs are read as they are named. A file is written
with a heredoc (``cat > path <<'EOF'``), as an agent with only a shell writes one.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pytest_ghxbench.adapters.oracle.executors import Shell
from pytest_ghxbench.sandbox.state import World

__all__ = ["CODE_PLANS", "write_file"]

Argv = list[str]
Step = Argv | Shell
Plan = Callable[[Mapping[str, Any], World], Sequence[Step]]

FETCH = "git fetch --quiet origin"
_LOG_FORMAT = "--format=%h %cs %an <%ae>%n    %s"


def _q(value: Any) -> str:
    return shlex.quote(str(value))


def _rev(world: World, ref: Any) -> str:
    """How the checkout names ``ref``: a branch as ``origin/<branch>`` (the default branch when
    ``ref`` is None), a tag or a commit as it is."""
    name = str(ref) if ref else world.git.default_branch
    return f"origin/{name}" if name in world.git.branches() else name


def _after(input: Mapping[str, Any], first: int) -> Argv:
    after = str(input.get("after") or "")
    return [f"--skip={int(after) * first}"] if after.isdigit() else []


def _file_get(i: Mapping[str, Any], w: World) -> list[Step]:
    spec = f"{_rev(w, i.get('ref'))}:{str(i['path']).strip('/')}"
    return [Shell(f"{FETCH} && git show {_q(spec)}")]


def _commits_list(i: Mapping[str, Any], w: World) -> list[Step]:
    first = int(i.get("first") or 30)
    argv = ["git", "log", f"--max-count={first}", *_after(i, first), _LOG_FORMAT]
    if i.get("author"):
        argv.append(f"--author={i['author']}")
    argv.append(_rev(w, i.get("ref")))
    if i.get("path"):
        argv += ["--", str(i["path"])]
    return [Shell(f"{FETCH} && {shlex.join(argv)}")]


def _commit_get(i: Mapping[str, Any], w: World) -> list[Step]:
    return [Shell(f"{FETCH} && git show --stat --format=fuller {_q(_rev(w, i['sha']))}")]


def _compare(i: Mapping[str, Any], w: World) -> list[Step]:
    span = f"{_rev(w, i['base'])}..{_rev(w, i['head'])}"
    argv = ["git", "log", "--reverse", _LOG_FORMAT, span]
    return [Shell(f"{FETCH} && {shlex.join(argv)}")]


def _branch_create(i: Mapping[str, Any], w: World) -> list[Step]:
    name = str(i["branch"]).removeprefix("refs/heads/")
    start = _rev(w, i.get("from"))
    return [
        Shell(
            f"{FETCH} && git switch --quiet -c {_q(name)} {_q(start)}"
            f" && git push --quiet -u origin {_q(name)}"
        )
    ]


def _delimiter(content: str) -> str:
    lines = set(content.splitlines())
    mark = "EOF"
    while mark in lines:
        mark += "_"
    return mark


def write_file(path: str, content: str, *, make_folder: bool = False) -> str:
    """The shell command that writes ``content`` to ``path``: a heredoc for text that ends in
    a newline, else ``printf``; ``make_folder`` first creates the file's folder."""
    folder = posixpath.dirname(path)
    prefix = f"mkdir -p {_q(folder)} && " if make_folder and folder else ""
    if content.endswith("\n"):
        mark = _delimiter(content)
        return f"{prefix}cat > {_q(path)} <<'{mark}'\n{content}{mark}"
    return f"{prefix}printf '%s' {_q(content)} > {_q(path)}"


def _file_put(i: Mapping[str, Any], w: World) -> list[Step]:
    branch = str(i["branch"]).removeprefix("refs/heads/")
    path = str(i["path"]).strip("/")
    tip = w.git.ref(f"refs/heads/{branch}")
    folder = posixpath.dirname(path)
    missing = bool(folder) and (tip is None or w.git.entry(tip, folder) is None)
    return [
        Shell(f"{FETCH} && git switch --quiet -C {_q(branch)} {_q('origin/' + branch)}"),
        Shell(write_file(path, str(i["content"]), make_folder=missing)),
        Shell(
            f"git add {_q(path)} && git commit --quiet -m {_q(i['message'])}"
            f" && git push --quiet origin {_q(branch)}"
        ),
    ]


def _repo(i: Mapping[str, Any]) -> Argv:
    return ["--repo", f"{i['owner']}/{i['name']}"]


def _pr_create(i: Mapping[str, Any], w: World) -> list[Step]:
    base = str(i.get("base") or w.repository.default_branch)
    argv = ["pr", "create", *_repo(i), "--head", str(i["head"]), "--base", base]
    argv += ["--title", str(i["title"]), "--body", str(i.get("body") or "")]
    return [[*argv, "--draft"] if i.get("draft") else argv]


def _comment_create(i: Mapping[str, Any], w: World) -> list[Step]:
    """Read the head commit (the comment names it), then comment through the REST API: gh
    has no command for a comment on a line."""
    number = str(i["prNumber"])
    pull = w.pull_request(int(i["prNumber"]))
    head = pull.head_sha if pull is not None else ""
    path = f"repos/{i['owner']}/{i['name']}/pulls/{number}/comments"
    fields = ["-f", f"body={i['body']}", "-f", f"commit_id={head}", "-f", f"path={i['path']}"]
    fields += ["-F", f"line={int(i['line'])}", "-f", f"side={i.get('side') or 'RIGHT'}"]
    return [
        ["pr", "view", number, *_repo(i), "--json", "headRefOid", "--jq", ".headRefOid"],
        ["api", path, *fields],
    ]


CODE_PLANS: Mapping[str, Plan] = {
    "repo.file.get": _file_get,
    "repo.commits.list": _commits_list,
    "repo.commit.get": _commit_get,
    "repo.commits.compare": _compare,
    "repo.branches.list": lambda i, w: [Shell("git ls-remote --heads origin")],
    "repo.branch.create": _branch_create,
    "repo.file.put": _file_put,
    "pr.create": _pr_create,
    "pr.comment.create": _comment_create,
}
"""Capability id -> the git and gh steps that perform it."""
