"""Workflow runs GitHub starts by itself, and so does the sandbox: a push to a branch runs the
workflows whose ``on: push`` takes that branch, and opening a pull request or pushing to its head
branch runs those whose ``on: pull_request`` takes its base branch (activity types ``opened``,
``synchronize``). Each run is queued and progresses on the world's clock as a dispatched run
does (:mod:`~pytest_ghxbench.sandbox.operations.run_progress`).

Which workflows a push runs is read as GitHub reads it: the workflow files of the pushed commit
(the pull request's head), an active workflow's (a disabled one runs nothing), the trigger's
``branches``/``branches-ignore`` patterns (``*``, ``**``, ``?``, ``!``) and ``types``; a trigger
with only ``tags`` runs on no branch push. ``paths`` filters are not evaluated (the workflow
counts as running). A matching file the world lists no workflow for (one only on another branch
than the default) starts nothing: the ``unsupported`` gap :data:`PUSH_RUNS` or
:data:`PULL_REQUEST_RUNS`.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from pytest_ghxbench.sandbox.gaps import record_unsupported
from pytest_ghxbench.sandbox.state import PullRequest, Workflow, World

__all__ = ["PULL_REQUEST_RUNS", "PUSH_RUNS", "note_pull_opened", "note_ref_moves", "would_run"]

PUSH_RUNS = "workflow runs triggered by push of a workflow file not on the default branch"
PULL_REQUEST_RUNS = (
    "workflow runs triggered by pull_request of a workflow file not on the default branch"
)
_FOLDER = ".github/workflows"


def _triggers(document: Any) -> dict[str, Any]:
    # YAML 1.1 reads a bare ``on`` key as the boolean true.
    on = document.get("on", document.get(True)) if isinstance(document, dict) else None
    if isinstance(on, str):
        return {on: None}
    if isinstance(on, list):
        return {str(event): None for event in on}
    return {str(event): spec for event, spec in on.items()} if isinstance(on, dict) else {}


def _glob(pattern: str, name: str) -> bool:
    parts = re.split(r"(\*\*|\*|\?)", pattern)
    wild = {"**": ".*", "*": "[^/]*", "?": "."}
    regex = "".join(wild.get(part, re.escape(part)) for part in parts)
    return re.fullmatch(regex, name) is not None


def _matches(patterns: Any, name: str) -> bool:
    """GitHub's filter: the last pattern that matches decides (``!`` excludes)."""
    listed = [patterns] if isinstance(patterns, str) else list(patterns or [])
    found = False
    for pattern in map(str, listed):
        negated = pattern.startswith("!")
        if _glob(pattern.removeprefix("!"), name):
            found = not negated
    return found


def would_run(text: str, event: str, branch: str, activity: str | None = None) -> bool:
    """Whether the workflow file ``text`` runs on ``event`` for ``branch`` (the pushed branch,
    or a pull request's base) with activity type ``activity``."""
    try:
        triggers = _triggers(yaml.safe_load(text))
    except yaml.YAMLError:
        return False
    if event not in triggers:
        return False
    spec = triggers[event]
    if not isinstance(spec, dict):
        return True
    if activity is not None and "types" in spec and not _matches(spec["types"], activity):
        return False
    if "branches" in spec:
        return _matches(spec["branches"], branch)
    if "branches-ignore" in spec:
        return not _matches(spec["branches-ignore"], branch)
    return not (event == "push" and ("tags" in spec or "tags-ignore" in spec))


def _matching(
    world: World, commit: str, event: str, branch: str, activity: str | None
) -> list[Workflow | None]:
    """The workflows of ``commit``'s files that run on ``event`` (None for a file the world
    lists no workflow for)."""
    git = world.git
    folder = git.entry(commit, _FOLDER)
    if folder is None or folder.type != "tree":
        return []
    found: list[Workflow | None] = []
    for entry in git.tree(folder.sha) or []:
        if entry.type != "blob" or not entry.name.endswith((".yml", ".yaml")):
            continue
        flow = world.workflow(f"{_FOLDER}/{entry.name}")
        if flow is not None and flow.state != "active":
            continue
        text = (git.blob(entry.sha) or b"").decode("utf-8", "replace")
        if would_run(text, event, branch, activity):
            found.append(flow)
    return found


def _start(world: World, flows: list[Workflow | None], gap: str, **run: Any) -> None:
    from pytest_ghxbench.sandbox.operations.workflows import start_run

    for flow in flows:
        if flow is None:
            # gap: GitHub runs a workflow file it has not listed yet; the sandbox cannot
            record_unsupported(gap)
        else:
            start_run(world, flow, **run)


def note_ref_moves(world: World) -> None:
    """Start what the branches that moved since the last call run on GitHub: a push's
    workflows, and the ``synchronize`` workflows of the open pull requests from them."""
    before, now = world.git.ref_moves()
    for name, sha in now.items():
        branch = name.removeprefix("refs/heads/")
        if branch == name or before.get(name) == sha:
            continue
        commit = world.git.commit(sha)
        title = commit.title if commit is not None else branch
        flows = _matching(world, sha, "push", branch, None)
        _start(world, flows, PUSH_RUNS, event="push", branch=branch, head=sha, title=title)
        for pull in world.pull_requests:
            if (pull.state, pull.head_ref) == ("OPEN", branch):
                _pull_request_runs(world, pull, sha, "synchronize")


def _pull_request_runs(world: World, pull: PullRequest, head: str, activity: str) -> None:
    flows = _matching(world, head, "pull_request", pull.base_ref, activity)
    _start(
        world,
        flows,
        PULL_REQUEST_RUNS,
        event="pull_request",
        branch=pull.head_ref,
        head=head,
        title=pull.title,
        pulls=(pull.number,),
    )


def note_pull_opened(world: World, pull: PullRequest) -> None:
    """Start the runs opening ``pull`` starts on GitHub (its checks then pending)."""
    from pytest_ghxbench.sandbox.operations.prs import merge_state

    if pull.head_sha:
        _pull_request_runs(world, pull, pull.head_sha, "opened")
        pull.merge_state_status = merge_state(world, pull)
