"""Workflow runs the sandbox starts (a dispatch, a re-run) run on the sandbox's clock.

An attempt begun at ``T`` (its ``run_started_at``) goes:

- ``T``: queued, and so are its jobs (and their check runs);
- ``T + QUEUED_SECONDS``: in progress; every job starts, its steps run one after another,
  each for ``STEP_SECONDS``;
- a job completes with its last step; the run completes with its last job (at
  ``T + QUEUED_SECONDS`` if it has none), with the worst of its latest jobs' conclusions.

What a job concludes is decided when the attempt starts, deterministically: a re-run job
repeats the conclusion (steps, log and annotations) of the job it re-runs; a dispatched run on a
commit a run of the same workflow already ran repeats that run's jobs (and uploads its
artifacts again); any other dispatched run succeeds, with the jobs its workflow file declares.

The clock is the world's: it moves one second per mutation (:meth:`World.tick`) and, while an
attempt is in flight, with the wall clock the world is given (:meth:`World.use_wall_clock`):
:func:`advance` runs before every API request. So ``gh run watch`` sees a dispatched run finish
a few seconds later, and a test drives it with a fake wall clock instead of waiting.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from pytest_ghxbench.sandbox.gaps import record_unsupported
from pytest_ghxbench.sandbox.operations.workflow_jobs import declared_jobs
from pytest_ghxbench.sandbox.state import (
    Artifact,
    CheckRun,
    Conclusion,
    Job,
    Step,
    Workflow,
    WorkflowRun,
    World,
)

__all__ = [
    "QUEUED_SECONDS",
    "STEP_SECONDS",
    "PlannedJob",
    "advance",
    "dispatch_plan",
    "finish_job",
    "replay_plan",
    "start_attempt",
]

QUEUED_SECONDS = 2
STEP_SECONDS = 1
ARTIFACT_DAYS = 90
_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


@dataclass(frozen=True)
class PlannedJob:
    name: str
    steps: tuple[tuple[str, Conclusion], ...]
    outcome: Conclusion
    replays: int | None = None
    runner_name: str = "GitHub Actions 2"


def _time(text: str) -> datetime:
    return datetime.strptime(text, _FORMAT).replace(tzinfo=timezone.utc)


def _at(start: str, seconds: int) -> str:
    return (_time(start) + timedelta(seconds=seconds)).strftime(_FORMAT)


def _result(job: Job) -> Conclusion:
    if job.status == "completed" and job.conclusion is not None:
        return job.conclusion
    return job.outcome or "success"


def replay_plan(jobs: list[Job]) -> list[PlannedJob]:
    """Jobs that repeat ``jobs``: the same names, steps and conclusions."""
    return [
        PlannedJob(
            name=job.name,
            steps=tuple(
                (s.name, s.conclusion or s.outcome or "success")
                for s in sorted(job.steps, key=lambda s: s.number)
            ),
            outcome=_result(job),
            replays=job.id,
            runner_name=job.runner_name,
        )
        for job in jobs
    ]


def dispatch_plan(world: World, flow: Workflow, head: str) -> tuple[list[PlannedJob], int | None]:
    """The jobs of a run of ``flow`` on commit ``head``, and the run it repeats (if any)."""
    from pytest_ghxbench.sandbox.operations.actions import latest_jobs

    earlier = [r for r in world.workflow_runs if r.workflow_id == flow.id and r.head_sha == head]
    if earlier:
        template = max(earlier, key=lambda r: (r.created_at, r.id))
        return replay_plan(latest_jobs(world, template.id)), template.id
    text = world.git.read(head, flow.path)
    declared = declared_jobs(text.decode("utf-8", "replace")) if text is not None else []
    # gap: a job nothing has run before succeeds, with no log and no artifacts
    record_unsupported("a workflow job never run before (it succeeds, with no log)")
    plan = [
        PlannedJob(job.name, tuple((step, "success") for step in job.steps), "success")
        for job in declared
    ]
    return plan, None


def start_attempt(world: World, run: WorkflowRun, plan: list[PlannedJob], now: str) -> list[Job]:
    """Queue ``plan``'s jobs, with their check runs, as ``run``'s current attempt begun at
    ``now``; the run is queued until :func:`advance` moves it on."""
    fresh = []
    for planned in plan:
        job_id = world.next_id()
        steps = [
            Step(number=n, name=name, status="queued", conclusion=None, outcome=outcome)
            for n, (name, outcome) in enumerate(planned.steps, start=1)
        ]
        job = Job(
            id=job_id,
            run_id=run.id,
            name=planned.name,
            node_id=world.node("CR", job_id),
            status="queued",
            conclusion=None,
            runner_name=planned.runner_name,
            steps=steps,
            check_run_id=job_id,
            run_attempt=run.run_attempt,
            outcome=planned.outcome,
            replays=planned.replays,
        )
        world.jobs.append(job)
        world.check_runs.append(
            CheckRun(
                id=job_id,
                name=planned.name,
                head_sha=run.head_sha,
                node_id=job.node_id,
                status="queued",
                conclusion=None,
                job_id=job_id,
            )
        )
        fresh.append(job)
    run.status, run.conclusion = "queued", None
    run.updated_at = run.run_started_at = now
    run.progresses = True
    return fresh


# ---------------------------------------------------------------- the clock moves them


def advance(world: World) -> None:
    """Let the wall-clock time since the last request pass (while an attempt is in flight) and
    move every in-flight attempt to where the clock now is."""
    seconds = world.wall_seconds()
    flying = [r for r in world.workflow_runs if r.progresses and r.status != "completed"]
    if not flying:
        return
    if seconds:
        world.tick(seconds)
    for run in flying:
        _progress(world, run, world.clock)


def _progress(world: World, run: WorkflowRun, now: str) -> None:
    start = _at(run.run_started_at or run.created_at, QUEUED_SECONDS)
    if now < start:
        return
    if run.status != "in_progress":
        run.status, run.updated_at = "in_progress", start
    attempt = [
        j
        for j in world.jobs
        if j.run_id == run.id and j.outcome is not None and j.run_attempt == run.run_attempt
    ]
    ends = [start]
    for job in attempt:
        done = job.status == "completed"
        ends.append(job.completed_at or start if done else _progress_job(world, job, start, now))
    if all(job.status == "completed" for job in attempt):
        _complete_run(world, run, max(ends))


def _progress_job(world: World, job: Job, start: str, now: str) -> str:
    """Move ``job`` (started at ``start``) to ``now``; the time it completes."""
    check = world.check_run(job.check_run_id) if job.check_run_id is not None else None
    if job.status == "queued":
        job.status, job.started_at = "in_progress", start
        if check is not None:
            check.status, check.started_at = "in_progress", start
    for index, step in enumerate(sorted(job.steps, key=lambda s: s.number)):
        begins = _at(start, index * STEP_SECONDS)
        ends = _at(start, (index + 1) * STEP_SECONDS)
        if now >= ends:
            step.status, step.conclusion = "completed", step.outcome or "success"
            step.started_at, step.completed_at = begins, ends
        elif now >= begins:
            step.status, step.started_at = "in_progress", begins
    end = _at(start, max(len(job.steps), 1) * STEP_SECONDS)
    if now >= end:
        finish_job(world, job, job.outcome or "success", end)
    return end


def finish_job(world: World, job: Job, conclusion: Conclusion, at: str) -> None:
    """Complete ``job`` and its check run at ``at``. A job that ends as it was planned repeats
    the log and annotations of the job it replays; steps still to run end cancelled (the one
    running) or skipped."""
    job.status, job.conclusion, job.completed_at = "completed", conclusion, at
    job.started_at = job.started_at or at
    for step in job.steps:
        if step.status != "completed":
            step.conclusion = "cancelled" if step.status == "in_progress" else "skipped"
            step.status, step.completed_at = "completed", at
            step.started_at = step.started_at or at
    check = world.check_run(job.check_run_id) if job.check_run_id is not None else None
    if check is not None:
        check.status, check.conclusion, check.completed_at = "completed", conclusion, at
        check.started_at = check.started_at or at
    template = world.job(job.replays) if job.replays is not None else None
    if template is None or conclusion != job.outcome:
        return
    job.log = template.log
    before = world.check_run(template.check_run_id) if template.check_run_id else None
    if check is not None and before is not None:
        check.output_title, check.output_summary = before.output_title, before.output_summary
        check.annotations = [note.model_copy() for note in before.annotations]


_WORST: tuple[Conclusion, ...] = ("failure", "timed_out", "cancelled", "action_required")


def run_conclusion(jobs: list[Job]) -> Conclusion:
    """A run's conclusion from its latest jobs': the worst of them, else success."""
    found = {job.conclusion for job in jobs}
    return next((c for c in _WORST if c in found), "success")


def _complete_run(world: World, run: WorkflowRun, at: str) -> None:
    from pytest_ghxbench.sandbox.operations.actions import latest_jobs

    run.status, run.updated_at, run.progresses = "completed", at, False
    run.conclusion = run_conclusion(latest_jobs(world, run.id))
    if run.replays is None:
        return
    expires = (_time(at) + timedelta(days=ARTIFACT_DAYS)).strftime(_FORMAT)
    for earlier in [a for a in world.artifacts if a.run_id == run.replays]:
        artifact_id = world.next_id()
        world.artifacts.append(
            Artifact(
                id=artifact_id,
                run_id=run.id,
                name=earlier.name,
                node_id=world.node("MDg", artifact_id),
                size_in_bytes=earlier.size_in_bytes,
                created_at=at,
                expires_at=expires,
            )
        )
