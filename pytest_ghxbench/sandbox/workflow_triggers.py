"""Workflow runs GitHub starts by itself, which the sandbox does not start: a push to a branch
runs the workflows whose ``on: push`` takes that branch, and opening a pull request or pushing to
its head branch runs those whose ``on: pull_request`` takes its base branch (activity types
``opened``, ``synchronize``). The sandbox runs only what a client asks for (a dispatch, a re-run;
:mod:`~pytest_ghxbench.sandbox.operations.run_progress`), so a push or a pull request that would
have started a run on GitHub is recorded as the ``unsupported`` gap :data:`PUSH_RUNS` or
:data:`PULL_REQUEST_RUNS`: the item's numbers may then miss a run its agent would have seen.

Which workflows a push would run is read as GitHub reads it: the workflow files of the pushed
commit (the pull request's head), an active workflow's (a disabled one runs nothing), the
trigger's ``branches``/``branches-ignore`` patterns (``*``, ``**``, ``?``, ``!``) and ``types``;
a trigger with only ``tags`` runs on no branch push. ``paths`` filters are not evaluated (the
workflow counts as running).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from pytest_ghxbench.sandbox.gaps import record_unsupported
from pytest_ghxbench.sandbox.state import PullRequest, World

__all__ = ["PULL_REQUEST_RUNS", "PUSH_RUNS", "note_pull_opened", "note_ref_moves", "would_run"]

PUSH_RUNS = "workflow runs triggered by push (not started)"
PULL_REQUEST_RUNS = "workflow runs triggered by pull_request (not started)"
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


def _runs_any(world: World, commit: str, event: str, branch: str, activity: str | None) -> bool:
    git = world.git
    folder = git.entry(commit, _FOLDER)
    if folder is None or folder.type != "tree":
        return False
    for entry in git.tree(folder.sha) or []:
        if entry.type != "blob" or not entry.name.endswith((".yml", ".yaml")):
            continue
        flow = world.workflow(f"{_FOLDER}/{entry.name}")
        if flow is not None and flow.state != "active":
            continue
        text = (git.blob(entry.sha) or b"").decode("utf-8", "replace")
        if would_run(text, event, branch, activity):
            return True
    return False


def note_ref_moves(world: World) -> None:
    """Record what the branches that moved since the last call would have run on GitHub: a
    push's workflows, and the ``synchronize`` workflows of the open pull requests from them."""
    before, now = world.git.ref_moves()
    for name, sha in now.items():
        branch = name.removeprefix("refs/heads/")
        if branch == name or before.get(name) == sha:
            continue
        if _runs_any(world, sha, "push", branch, None):
            # gap: GitHub would start the push's workflow runs; the sandbox starts none
            record_unsupported(PUSH_RUNS)
        pulls = [p for p in world.pull_requests if (p.state, p.head_ref) == ("OPEN", branch)]
        bases = {p.base_ref for p in pulls}
        if any(_runs_any(world, sha, "pull_request", base, "synchronize") for base in bases):
            # gap: GitHub would run the pull request's workflows again; none start
            record_unsupported(PULL_REQUEST_RUNS)


def note_pull_opened(world: World, pull: PullRequest) -> None:
    """Record the runs opening ``pull`` would have started on GitHub."""
    if pull.head_sha and _runs_any(world, pull.head_sha, "pull_request", pull.base_ref, "opened"):
        # gap: GitHub would start the new pull request's workflow runs; the sandbox starts none
        record_unsupported(PULL_REQUEST_RUNS)
