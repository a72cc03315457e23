"""GitHub Actions and checks: workflows, their runs, jobs and artifacts, and check runs."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from pytest_ghxbench.sandbox.state_base import StateModel

__all__ = [
    "Annotation",
    "Artifact",
    "CheckRun",
    "Conclusion",
    "Job",
    "RunStatus",
    "Step",
    "Workflow",
    "WorkflowRun",
]

RunStatus = Literal["queued", "in_progress", "completed", "waiting", "requested", "pending"]
Conclusion = Literal[
    "success", "failure", "cancelled", "skipped", "neutral", "timed_out", "action_required"
]


class Workflow(StateModel):
    id: int
    name: str
    path: str
    node_id: str = ""
    state: Literal["active", "disabled_manually", "disabled_inactivity"] = "active"
    dispatch_inputs: list[str] = Field(default_factory=list)
    """Input names of its ``workflow_dispatch`` trigger; empty when it cannot be dispatched."""
    dispatchable: bool = False
    created_at: str = "2025-01-01T00:00:00Z"
    updated_at: str = "2025-01-01T00:00:00Z"


class Step(StateModel):
    number: int
    name: str
    status: RunStatus = "completed"
    conclusion: Conclusion | None = "success"
    started_at: str | None = None
    completed_at: str | None = None
    """Both ``None``: the step's times are its job's (seeded steps)."""
    outcome: Conclusion | None = None
    """The conclusion a step the sandbox runs reaches when it completes (see ``Job.outcome``)."""


class Job(StateModel):
    id: int
    run_id: int
    name: str
    node_id: str = ""
    status: RunStatus = "completed"
    conclusion: Conclusion | None = "success"
    started_at: str | None = None
    completed_at: str | None = None
    runner_name: str = "GitHub Actions 2"
    steps: list[Step] = Field(default_factory=list)
    log: str = ""
    check_run_id: int | None = None
    run_attempt: int | None = None
    """The run attempt the job belongs to; ``None`` for seeded jobs (their run's first)."""
    outcome: Conclusion | None = None
    """Set on a job the sandbox runs (a dispatch or a re-run): the conclusion it reaches once its
    steps are done (:mod:`pytest_ghxbench.sandbox.operations.run_progress`). ``None`` for seeded
    jobs, which keep the status the seed gives them."""
    replays: int | None = None
    """The job whose result this one repeats (its log and annotations), when it has one: the
    job it re-runs, or the same job of a run on the same commit."""


class Artifact(StateModel):
    id: int
    run_id: int
    name: str
    node_id: str = ""
    size_in_bytes: int = 0
    expired: bool = False
    created_at: str = "2025-01-01T00:00:00Z"
    expires_at: str | None = None


class WorkflowRun(StateModel):
    id: int
    workflow_id: int
    name: str
    node_id: str = ""
    display_title: str = ""
    run_number: int = 1
    run_attempt: int = 1
    event: str = "push"
    status: RunStatus = "completed"
    conclusion: Conclusion | None = "success"
    head_branch: str = "main"
    head_sha: str = ""
    actor: str = ""
    pull_requests: list[int] = Field(default_factory=list)
    created_at: str = "2025-01-01T00:00:00Z"
    updated_at: str = "2025-01-01T00:00:00Z"
    run_started_at: str | None = None
    progresses: bool = False
    """The sandbox runs the current attempt (a dispatch or a re-run): it goes queued, in progress
    and completed on the sandbox's clock. Seeded runs keep the status the seed gives them."""
    replays: int | None = None
    """The run on the same commit whose artifacts this one uploads again when it completes."""


class Annotation(StateModel):
    path: str
    start_line: int
    end_line: int
    annotation_level: Literal["notice", "warning", "failure"] = "failure"
    message: str
    title: str = ""
    raw_details: str = ""


class CheckRun(StateModel):
    id: int
    name: str
    head_sha: str
    node_id: str = ""
    status: RunStatus = "completed"
    conclusion: Conclusion | None = "success"
    started_at: str | None = None
    completed_at: str | None = None
    app: str = "github-actions"
    output_title: str = ""
    output_summary: str = ""
    annotations: list[Annotation] = Field(default_factory=list)
    job_id: int | None = None
    """The Actions job that reported this check (None for checks from other apps)."""
