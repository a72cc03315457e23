"""Checks and GitHub Actions objects in GitHub's REST shapes: check runs and annotations,
workflows, runs, jobs and artifacts."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.capabilities.actions import check_url
from pytest_ghxbench.sandbox.dialects.gh_render import pr_database_id
from pytest_ghxbench.sandbox.dialects.gh_rest_render import api_base, user_rest
from pytest_ghxbench.sandbox.state import (
    Annotation,
    Artifact,
    CheckRun,
    Job,
    Workflow,
    WorkflowRun,
    World,
)

__all__ = [
    "annotation_rest",
    "artifact_rest",
    "check_run_rest",
    "job_rest",
    "run_rest",
    "workflow_rest",
]

A = dict[str, Any]


def check_run_rest(world: World, check: CheckRun) -> A:
    base = api_base(world)
    return {
        "id": check.id,
        "name": check.name,
        "node_id": check.node_id,
        "head_sha": check.head_sha,
        "url": f"{base}/check-runs/{check.id}",
        "html_url": check_url(world, check),
        "details_url": check_url(world, check),
        "status": check.status,
        "conclusion": check.conclusion,
        "started_at": check.started_at,
        "completed_at": check.completed_at,
        "output": {
            "title": check.output_title or None,
            "summary": check.output_summary or None,
            "text": None,
            "annotations_count": len(check.annotations),
            "annotations_url": f"{base}/check-runs/{check.id}/annotations",
        },
        "app": {
            "slug": check.app,
            "name": "GitHub Actions" if check.app == "github-actions" else check.app,
        },
        "pull_requests": [
            {"number": p.number, "url": f"{base}/pulls/{p.number}"}
            for p in world.pull_requests
            if p.head_sha == check.head_sha
        ],
    }


def annotation_rest(world: World, check: CheckRun, note: Annotation) -> A:
    return {
        "path": note.path,
        "blob_href": f"{world.repository.url}/blob/{check.head_sha}/{note.path}",
        "start_line": note.start_line,
        "end_line": note.end_line,
        "start_column": None,
        "end_column": None,
        "annotation_level": note.annotation_level,
        "title": note.title or None,
        "message": note.message,
        "raw_details": note.raw_details or None,
    }


def workflow_rest(world: World, flow: Workflow) -> A:
    return {
        "id": flow.id,
        "node_id": flow.node_id,
        "name": flow.name,
        "path": flow.path,
        "state": flow.state,
        "created_at": flow.created_at,
        "updated_at": flow.updated_at,
        "url": f"{api_base(world)}/actions/workflows/{flow.id}",
        "html_url": f"{world.repository.url}/blob/{world.repository.default_branch}/{flow.path}",
        "badge_url": f"{world.repository.url}/workflows/{flow.name}/badge.svg",
    }


def run_rest(world: World, run: WorkflowRun) -> A:
    base = f"{api_base(world)}/actions/runs/{run.id}"
    flow = next((f for f in world.workflows if f.id == run.workflow_id), None)
    return {
        "id": run.id,
        "name": run.name,
        "node_id": run.node_id,
        "head_branch": run.head_branch,
        "head_sha": run.head_sha,
        "path": flow.path if flow else "",
        "display_title": run.display_title or run.name,
        "run_number": run.run_number,
        "event": run.event,
        "status": run.status,
        "conclusion": run.conclusion,
        "workflow_id": run.workflow_id,
        "url": base,
        "html_url": f"{world.repository.url}/actions/runs/{run.id}",
        "pull_requests": [
            {"id": pr_database_id(n), "number": n, "url": f"{api_base(world)}/pulls/{n}"}
            for n in run.pull_requests
        ],
        "created_at": run.created_at,
        "updated_at": run.updated_at,
        "actor": user_rest(world, run.actor),
        "run_attempt": run.run_attempt,
        "run_started_at": run.run_started_at,
        "jobs_url": f"{base}/jobs",
        "logs_url": f"{base}/logs",
        "artifacts_url": f"{base}/artifacts",
        "cancel_url": f"{base}/cancel",
        "rerun_url": f"{base}/rerun",
        "workflow_url": f"{api_base(world)}/actions/workflows/{run.workflow_id}",
    }


def job_rest(world: World, job: Job) -> A:
    run = world.workflow_run(job.run_id)
    return {
        "id": job.id,
        "run_id": job.run_id,
        "run_url": f"{api_base(world)}/actions/runs/{job.run_id}",
        "run_attempt": run.run_attempt if run else 1,
        "node_id": job.node_id,
        "head_sha": run.head_sha if run else "",
        "head_branch": run.head_branch if run else "",
        "url": f"{api_base(world)}/actions/jobs/{job.id}",
        "html_url": f"{world.repository.url}/actions/runs/{job.run_id}/job/{job.id}",
        "status": job.status,
        "conclusion": job.conclusion,
        "created_at": job.started_at,
        "started_at": job.started_at,
        "completed_at": job.completed_at,
        "name": job.name,
        "steps": [
            {"name": s.name, "status": s.status, "conclusion": s.conclusion, "number": s.number}
            for s in job.steps
        ],
        "check_run_url": f"{api_base(world)}/check-runs/{job.check_run_id or job.id}",
        "labels": ["ubuntu-latest"],
        "runner_name": job.runner_name,
        "workflow_name": run.name if run else "",
    }


def artifact_rest(world: World, artifact: Artifact) -> A:
    run = world.workflow_run(artifact.run_id)
    url = f"{api_base(world)}/actions/artifacts/{artifact.id}"
    return {
        "id": artifact.id,
        "node_id": artifact.node_id,
        "name": artifact.name,
        "size_in_bytes": artifact.size_in_bytes,
        "url": url,
        "archive_download_url": f"{url}/zip",
        "expired": artifact.expired,
        "created_at": artifact.created_at,
        "expires_at": artifact.expires_at,
        "updated_at": artifact.created_at,
        "workflow_run": {
            "id": artifact.run_id,
            "head_branch": run.head_branch if run else None,
            "head_sha": run.head_sha if run else None,
        },
    }
