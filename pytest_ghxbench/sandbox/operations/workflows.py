"""World operations on workflows: dispatching a run (``workflow_dispatch.run``), and the
lookup of a workflow by id, file name or name.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from pytest_ghxbench.sandbox.errors import GitHubError, NotFound
from pytest_ghxbench.sandbox.operations.registry import (
    operation,
    require_repo,
)
from pytest_ghxbench.sandbox.operations.run_progress import dispatch_plan, start_attempt
from pytest_ghxbench.sandbox.state import Workflow, WorkflowRun, World

__all__ = ["find_workflow", "start_run"]


def find_workflow(world: World, key: int | str) -> Workflow:
    """The workflow with this id, file name, path or name, or ``NOT_FOUND``."""
    flow = world.workflow(key)
    if flow is None and isinstance(key, str) and key.isdigit():
        flow = world.workflow(int(key))
    if flow is None:
        raise NotFound(f"could not find any workflows named {key}")
    return flow


def _dispatch_spec(world: World, flow: Workflow, head: str) -> tuple[bool, dict[str, Any]]:
    """Whether ``flow`` can be dispatched at commit ``head`` and its inputs there (name: spec),
    read from its file at that commit as GitHub does; the world's record of the workflow when
    the commit has no readable file."""
    text = world.git.read(head, flow.path)
    try:
        document = yaml.safe_load(text.decode("utf-8", "replace")) if text is not None else None
    except yaml.YAMLError:
        document = None
    if not isinstance(document, dict):
        return flow.dispatchable, {name: {} for name in flow.dispatch_inputs}
    # YAML 1.1 reads a bare ``on`` key as the boolean true
    triggers = document.get("on", document.get(True))
    if isinstance(triggers, str):
        return triggers == "workflow_dispatch", {}
    if isinstance(triggers, list):
        return "workflow_dispatch" in triggers, {}
    if not isinstance(triggers, dict) or "workflow_dispatch" not in triggers:
        return False, {}
    spec = triggers["workflow_dispatch"]
    inputs = spec.get("inputs") if isinstance(spec, dict) else None
    if not isinstance(inputs, dict):
        return True, {}
    return True, {str(k): v if isinstance(v, dict) else {} for k, v in inputs.items()}


def _head(world: World, ref: str) -> tuple[str, str]:
    """The branch or tag ``ref`` names (``main``, ``refs/heads/main``, ``v1.0``,
    ``refs/tags/v1.0``) and its commit; GitHub's 422 when it names none."""
    git = world.git
    full_names = [ref] if ref.startswith("refs/") else [f"refs/heads/{ref}", f"refs/tags/{ref}"]
    for full in full_names:
        found = git.ref(full) if full.startswith(("refs/heads/", "refs/tags/")) else None
        sha = git.peel(found) if found is not None else None
        if sha is not None:
            return full.split("/", 2)[2], sha
    raise GitHubError(422, f"No ref found for: {ref}")


def _check_inputs(given: dict[str, Any], declared: dict[str, Any]) -> None:
    unexpected = sorted(set(given) - set(declared))
    if unexpected:
        raise GitHubError(422, f"Unexpected inputs provided: {json.dumps(unexpected)}")
    for name, spec in declared.items():
        if spec.get("required") is True and name not in given and spec.get("default") is None:
            raise GitHubError(422, f"Required input '{name}' not provided")


def start_run(
    world: World,
    flow: Workflow,
    event: str,
    branch: str,
    head: str,
    title: str,
    pulls: tuple[int, ...] = (),
) -> WorkflowRun:
    """A new run of ``flow`` on commit ``head`` of ``branch``, started by ``event`` now (queued;
    it then progresses on the world's clock, :mod:`.run_progress`)."""
    now = world.tick()
    numbers = [r.run_number for r in world.workflow_runs if r.workflow_id == flow.id]
    run = WorkflowRun(
        id=world.next_id(),
        workflow_id=flow.id,
        name=flow.name,
        display_title=title,
        run_number=max(numbers, default=0) + 1,
        event=event,
        status="queued",
        conclusion=None,
        head_branch=branch,
        head_sha=head,
        actor=world.viewer,
        pull_requests=list(pulls),
        created_at=now,
        updated_at=now,
    )
    run.node_id = world.node("WFR", run.id)
    plan, run.replays = dispatch_plan(world, flow, head)
    world.workflow_runs.append(run)
    start_attempt(world, run, plan, now)
    return run


@operation("actions/create-workflow-dispatch")
def dispatch_workflow(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    flow = find_workflow(world, input["workflowId"])
    if flow.state != "active":
        raise GitHubError(422, "Cannot trigger a 'workflow_dispatch' on a disabled workflow")
    ref, head = _head(world, input["ref"])
    dispatchable, declared = _dispatch_spec(world, flow, head)
    if not dispatchable:
        raise GitHubError(422, "Workflow does not have 'workflow_dispatch' trigger")
    _check_inputs(dict(input.get("inputs") or {}), declared)
    run = start_run(world, flow, "workflow_dispatch", ref, head, flow.name)
    return {
        "workflowId": str(input["workflowId"]),
        "ref": input["ref"],
        "dispatched": True,
        "runId": run.id,
    }
