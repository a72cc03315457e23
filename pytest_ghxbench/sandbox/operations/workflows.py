"""World operations on workflows: dispatching a run (``workflow_dispatch.run``), and the
lookup of a workflow by id, file name or name.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.operations.registry import (
    CapabilityError,
    operation,
    require_repo,
)
from pytest_ghxbench.sandbox.operations.run_progress import dispatch_plan, start_attempt
from pytest_ghxbench.sandbox.state import Workflow, WorkflowRun, World

__all__ = ["find_workflow"]


def find_workflow(world: World, key: int | str) -> Workflow:
    """The workflow with this id, file name, path or name, or ``NOT_FOUND``."""
    flow = world.workflow(key)
    if flow is None and isinstance(key, str) and key.isdigit():
        flow = world.workflow(int(key))
    if flow is None:
        raise CapabilityError("NOT_FOUND", f"could not find any workflows named {key}")
    return flow


@operation("workflow_dispatch.run")
def dispatch_workflow(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    flow = find_workflow(world, input["workflowId"])
    if flow.state != "active":
        raise CapabilityError(
            "CONFLICT", f"Cannot trigger a 'workflow_dispatch' on a disabled workflow ({flow.path})"
        )
    if not flow.dispatchable:
        raise CapabilityError(
            "CONFLICT", f"Workflow does not have 'workflow_dispatch' trigger ({flow.path})"
        )
    ref = input["ref"].removeprefix("refs/heads/")
    head = world.git.ref(f"refs/heads/{ref}")
    if head is None:
        raise CapabilityError("NOT_FOUND", f"No ref found for: {input['ref']}")
    unexpected = sorted(set(input.get("inputs") or {}) - set(flow.dispatch_inputs))
    if unexpected:
        declared = ", ".join(flow.dispatch_inputs) or "none"
        raise CapabilityError(
            "VALIDATION",
            f"input.inputs: unexpected inputs provided: {unexpected} ({flow.path} declares: "
            f"{declared})",
        )
    now = world.tick()
    numbers = [r.run_number for r in world.workflow_runs if r.workflow_id == flow.id]
    run = WorkflowRun(
        id=world.next_id(),
        workflow_id=flow.id,
        name=flow.name,
        display_title=flow.name,
        run_number=max(numbers, default=0) + 1,
        event="workflow_dispatch",
        status="queued",
        conclusion=None,
        head_branch=ref,
        head_sha=head,
        actor=world.viewer,
        created_at=now,
        updated_at=now,
    )
    run.node_id = world.node("WFR", run.id)
    plan, run.replays = dispatch_plan(world, flow, head)
    world.workflow_runs.append(run)
    start_attempt(world, run, plan, now)
    return {
        "workflowId": str(input["workflowId"]),
        "ref": input["ref"],
        "dispatched": True,
        "runId": run.id,
    }
