"""``gh run``: ``list``, ``view`` (with ``--log``, ``--log-failed``, ``--job``), ``rerun``,
``cancel`` and ``watch``. Re-runs and cancels go through the ``workflow_run.*`` capabilities."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.capabilities.actions import latest_jobs, run_url
from pytest_ghxbench.sandbox.dialects.gh_args import Command, Flag, GhError, Parsed
from pytest_ghxbench.sandbox.dialects.gh_context import (
    GhContext,
    duration,
    export_json,
    fuzzy_ago,
    ok,
    pick,
    table,
)
from pytest_ghxbench.sandbox.dialects.gh_logs import job_log_lines
from pytest_ghxbench.sandbox.dialects.result import CliResult
from pytest_ghxbench.sandbox.state import Job, WorkflowRun, World

__all__ = ["RUN_COMMANDS", "RUN_FIELDS", "find_run", "run_getters", "run_rows", "workflow_name"]

RUN_FIELDS = (
    "attempt",
    "conclusion",
    "createdAt",
    "databaseId",
    "displayTitle",
    "event",
    "headBranch",
    "headSha",
    "name",
    "number",
    "startedAt",
    "status",
    "updatedAt",
    "url",
    "workflowDatabaseId",
    "workflowName",
)
_FAILED = ("failure", "cancelled", "timed_out", "startup_failure")


def workflow_name(world: World, run: WorkflowRun) -> str:
    flow = next((f for f in world.workflows if f.id == run.workflow_id), None)
    return flow.name if flow is not None else run.name


def job_json(world: World, job: Job) -> dict[str, Any]:
    return {
        "completedAt": job.completed_at or "0001-01-01T00:00:00Z",
        "conclusion": job.conclusion or "",
        "databaseId": job.id,
        "name": job.name,
        "startedAt": job.started_at or "0001-01-01T00:00:00Z",
        "status": job.status,
        "steps": [
            {
                "conclusion": step.conclusion or "",
                "name": step.name,
                "number": step.number,
                "status": step.status,
            }
            for step in job.steps
        ],
        "url": f"{run_url(world, job.run_id)}/job/{job.id}",
    }


def run_getters(world: World, run: WorkflowRun) -> dict[str, Any]:
    return {
        "attempt": lambda: run.run_attempt,
        "conclusion": lambda: run.conclusion or "",
        "createdAt": lambda: run.created_at,
        "databaseId": lambda: run.id,
        "displayTitle": lambda: run.display_title or run.name,
        "event": lambda: run.event,
        "headBranch": lambda: run.head_branch,
        "headSha": lambda: run.head_sha,
        "jobs": lambda: [job_json(world, j) for j in latest_jobs(world, run.id)],
        "name": lambda: run.name,
        "number": lambda: run.run_number,
        "startedAt": lambda: run.run_started_at or run.created_at,
        "status": lambda: run.status,
        "updatedAt": lambda: run.updated_at,
        "url": lambda: run_url(world, run.id),
        "workflowDatabaseId": lambda: run.workflow_id,
        "workflowName": lambda: workflow_name(world, run),
    }


def run_rows(world: World, runs: list[WorkflowRun]) -> str:
    """``gh run list`` rows on a pipe."""
    return table(
        [
            [
                r.status,
                r.conclusion or "",
                r.display_title or r.name,
                workflow_name(world, r),
                r.head_branch,
                r.event,
                r.id,
                duration(r.run_started_at or r.created_at, r.updated_at),
                r.created_at,
            ]
            for r in runs
        ]
    )


def find_run(ctx: GhContext, text: str) -> WorkflowRun:
    run = ctx.world.workflow_run(int(text)) if text.isdigit() else None
    if run is None:
        raise GhError(
            "failed to get run: HTTP 404: Not Found "
            f"(https://api.github.com/repos/{ctx.full_name}/actions/runs/{text})"
        )
    return run


def _list(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    world = ctx.world
    runs = sorted(world.workflow_runs, key=lambda r: (r.created_at, r.id), reverse=True)
    status = parsed.text("status")
    if parsed.text("workflow"):
        flow = world.workflow(parsed.text("workflow"))
        if flow is None:
            raise GhError(f"could not find any workflows named {parsed.text('workflow')}")
        runs = [r for r in runs if r.workflow_id == flow.id]
    runs = [
        r
        for r in runs
        if (not parsed.text("branch") or r.head_branch == parsed.text("branch"))
        and (not parsed.text("event") or r.event == parsed.text("event"))
        and (not parsed.text("commit") or r.head_sha.startswith(parsed.text("commit")))
        and (not parsed.text("user") or r.actor == parsed.text("user"))
        and (not status or status in (r.status, r.conclusion))
    ][: parsed.number("limit")]
    exported = export_json(
        RUN_LIST, parsed, lambda fields: [pick(fields, run_getters(world, r)) for r in runs]
    )
    if exported is not None:
        return exported
    if not runs:
        return ok(stderr="no runs found\n")
    return ok(run_rows(world, runs))


_STATUSES = (
    "queued",
    "completed",
    "in_progress",
    "requested",
    "waiting",
    "pending",
    "action_required",
    "cancelled",
    "failure",
    "neutral",
    "skipped",
    "stale",
    "startup_failure",
    "success",
    "timed_out",
)
RUN_LIST = Command(
    "run list",
    "list",
    "List recent workflow runs",
    _list,
    flags=(
        Flag("all", "Include disabled workflows", short="a", kind="bool"),
        Flag("branch", "Filter runs by branch", short="b"),
        Flag("commit", "Filter runs by the SHA of the commit", short="c", metavar="SHA"),
        Flag("created", "Filter runs by the date it was created", metavar="date"),
        Flag("event", "Filter runs by which event triggered the run", short="e", metavar="event"),
        Flag("limit", "Maximum number of runs to fetch", short="L", kind="int", default=20),
        Flag("status", "Filter runs by status", short="s", kind="enum", choices=_STATUSES),
        Flag("user", "Filter runs by user who triggered the run", short="u"),
        Flag("workflow", "Filter runs by workflow", short="w"),
    ),
    long="List recent workflow runs.",
    max_args=0,
    json_fields=RUN_FIELDS,
)


def symbol(status: str, conclusion: str | None) -> str:
    if status != "completed":
        return "*"
    return {"success": "✓", "skipped": "-", "cancelled": "-", "neutral": "-"}.get(
        conclusion or "", "X"
    )


def _job_lines(job: Job, with_steps: bool) -> list[str]:
    # gh prints no elapsed time for a job that started and has not finished (negative span).
    running = job.started_at is not None and job.completed_at is None
    elapsed = "" if running else f" in {duration(job.started_at, job.completed_at)}"
    lines = [f"{symbol(job.status, job.conclusion)} {job.name}{elapsed} (ID {job.id})"]
    if with_steps:
        lines += [f"  {symbol(s.status, s.conclusion)} {s.name}" for s in job.steps]
    return lines


def _annotations(world: World, jobs: list[Job]) -> list[str]:
    lines = []
    for job in jobs:
        check = world.check_run(job.check_run_id) if job.check_run_id is not None else None
        for note in check.annotations if check is not None else []:
            mark = {"failure": "X", "warning": "!"}.get(note.annotation_level, "-")
            lines += [f"{mark} {note.message}", f"{job.name}: {note.path}#{note.start_line}", ""]
    return lines


def _header(ctx: GhContext, run: WorkflowRun) -> list[str]:
    attempt = f" (Attempt #{run.run_attempt})" if run.run_attempt > 1 else ""
    pull = f" #{run.pull_requests[0]}" if run.pull_requests else ""
    return [
        "",
        f"{symbol(run.status, run.conclusion)} {run.head_branch} "
        f"{workflow_name(ctx.world, run)}{pull} · {run.id}{attempt}",
        f"Triggered via {run.event} {fuzzy_ago(ctx.now(), run.created_at)}",
        "",
    ]


def _view(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    if parsed.on("web"):
        raise GhError("the sandbox has no browser; drop --web to print the run")
    world = ctx.world
    job = None
    if parsed.text("job"):
        job = world.job(int(parsed.text("job"))) if parsed.text("job").isdigit() else None
        if job is None:
            raise GhError(
                "failed to get job: HTTP 404: Not Found (https://api.github.com/repos/"
                f"{ctx.full_name}/actions/jobs/{parsed.text('job')})"
            )
        run = find_run(ctx, str(job.run_id))
    elif parsed.args:
        run = find_run(ctx, parsed.args[0])
    else:
        raise GhError("run or job ID required when not running interactively")
    exported = export_json(RUN_VIEW, parsed, lambda fields: pick(fields, run_getters(world, run)))
    if exported is not None:
        return exported
    jobs = [job] if job is not None else latest_jobs(world, run.id)
    if parsed.on("log") or parsed.on("log-failed"):
        return _logs(ctx, run, jobs, failed_only=parsed.on("log-failed"))
    lines = _header(ctx, run)
    if job is not None:
        lines += _job_lines(job, True)
    else:
        lines.append("JOBS")
        for each in jobs:
            lines += _job_lines(each, parsed.on("verbose") or each.conclusion in _FAILED)
    notes = _annotations(world, [j for j in jobs if j.conclusion in _FAILED])
    if notes:
        lines += ["", "ANNOTATIONS", *notes]
    if job is None:
        artifacts = sorted(a.name for a in world.artifacts if a.run_id == run.id and not a.expired)
        if artifacts:
            lines += ["", "ARTIFACTS", *artifacts]
    lines.append("")
    if job is not None:
        lines.append(f"To see the full job log, try: gh run view --log --job={job.id}")
    elif run.conclusion in _FAILED:
        lines.append(f"To see what failed, try: gh run view {run.id} --log-failed")
    else:
        lines.append("For more information about a job, try: gh run view --job=<job-id>")
    lines.append(f"View this run on GitHub: {run_url(world, run.id)}")
    failed = parsed.on("exit-status") and run.conclusion in _FAILED
    return CliResult(1 if failed else 0, "\n".join(lines) + "\n", "", False)


def _logs(ctx: GhContext, run: WorkflowRun, jobs: list[Job], *, failed_only: bool) -> CliResult:
    if run.status != "completed" and all(j.status != "completed" for j in jobs):
        raise GhError(
            f"run {run.id} is still in progress; logs will be available when it is complete"
        )
    out = []
    for job in jobs:
        if failed_only and job.conclusion not in _FAILED:
            continue
        for step, line in job_log_lines(job, failed_only=failed_only):
            out.append(f"{job.name}\t{step}\t{line}\n")
    return ok("".join(out))


RUN_VIEW = Command(
    "run view",
    "view [<run-id>]",
    "View a summary of a workflow run",
    _view,
    flags=(
        Flag("attempt", "The attempt number of the workflow run", short="a", kind="int", default=0),
        Flag("exit-status", "Exit with non-zero status if run failed", kind="bool"),
        Flag("job", "View a specific job ID from a run", short="j"),
        Flag("log", "View full log for either a run or specific job", kind="bool"),
        Flag(
            "log-failed", "View the log for any failed steps in a run or specific job", kind="bool"
        ),
        Flag("verbose", "Show job steps", short="v", kind="bool"),
        Flag("web", "Open run in the browser", short="w", kind="bool"),
    ),
    long="View a summary of a workflow run.",
    max_args=1,
    json_fields=tuple(sorted((*RUN_FIELDS, "jobs"))),
)


def _rerun(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    if parsed.text("job"):
        raise GhError("re-running a single job is not supported in the sandbox; use --failed")
    if not parsed.args:
        raise GhError("`<run-id>` or `--job` required when not running interactively")
    run = find_run(ctx, parsed.args[0])
    failed = parsed.on("failed")
    task = "workflow_run.rerun_failed" if failed else "workflow_run.rerun_all"
    if run.status != "completed":
        raise GhError(f"run {run.id} cannot be rerun; it is still {run.status.replace('_', ' ')}")
    ctx.call(task, {**ctx.repo_input(), "runId": run.id})
    extra = " (failed jobs)" if failed else ""
    return ok(stderr=f"✓ Requested rerun{extra} of run {run.id}\n", context=ctx)


RUN_RERUN = Command(
    "run rerun",
    "rerun [<run-id>]",
    "Rerun a run",
    _rerun,
    flags=(
        Flag("debug", "Rerun with debug logging", short="d", kind="bool"),
        Flag("failed", "Rerun only failed jobs, including dependencies", kind="bool"),
        Flag("job", "Rerun a specific job ID from a run, including dependencies", short="j"),
    ),
    long="Rerun an entire run, only failed jobs, or a specific job from a run.",
    max_args=1,
)


def _required_run(ctx: GhContext, parsed: Parsed) -> WorkflowRun:
    """The run named by the one argument that ``cancel`` and ``watch`` cannot prompt for."""
    ctx.check_repo(parsed)
    if not parsed.args:
        raise GhError("run ID required when not running interactively")
    return find_run(ctx, parsed.args[0])


def _cancel(ctx: GhContext, parsed: Parsed) -> CliResult:
    run = _required_run(ctx, parsed)
    ctx.call("workflow_run.cancel", {**ctx.repo_input(), "runId": run.id})
    return ok(stderr=f"✓ Request to cancel workflow {run.id} submitted.\n", context=ctx)


RUN_CANCEL = Command(
    "run cancel",
    "cancel [<run-id>]",
    "Cancel a workflow run",
    _cancel,
    long="Cancel a workflow run.",
    max_args=1,
)


def _watch(ctx: GhContext, parsed: Parsed) -> CliResult:
    run = _required_run(ctx, parsed)
    if run.status != "completed":
        raise GhError(
            f"run {run.id} is {run.status.replace('_', ' ')}; the sandbox does not advance "
            "time, so watching would never end"
        )
    text = (
        f"Run {workflow_name(ctx.world, run)} ({run.id}) has already completed with "
        f"'{run.conclusion}'\n"
    )
    failed = parsed.on("exit-status") and run.conclusion in _FAILED
    return CliResult(1 if failed else 0, text, "", False)


RUN_WATCH = Command(
    "run watch",
    "watch <run-id>",
    "Watch a run until it completes, showing its progress",
    _watch,
    flags=(
        Flag("exit-status", "Exit with non-zero status if run fails", kind="bool"),
        Flag("interval", "Refresh interval in seconds", short="i", kind="int", default=3),
    ),
    max_args=1,
)

RUN_COMMANDS = (RUN_CANCEL, RUN_LIST, RUN_RERUN, RUN_VIEW, RUN_WATCH)
