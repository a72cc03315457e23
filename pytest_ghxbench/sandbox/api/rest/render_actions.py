"""Checks and GitHub Actions objects in GitHub's REST shapes: check runs and annotations,
workflows, runs, jobs and artifacts."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.links import REPO_ID, Links, pull_id
from pytest_ghxbench.sandbox.api.rest.render_core import minimal_repository, user_json
from pytest_ghxbench.sandbox.state import (
    Annotation,
    Artifact,
    CheckRun,
    Job,
    Step,
    Workflow,
    WorkflowRun,
)

__all__ = [
    "annotation_json",
    "artifact_json",
    "check_run_json",
    "job_json",
    "run_json",
    "workflow_json",
]

A = dict[str, Any]
_CREATED = "2020-01-01T00:00:00Z"


def _app(links: Links, slug: str) -> A:
    name = "GitHub Actions" if slug == "github-actions" else slug
    return {
        "id": 15368 if slug == "github-actions" else 20_000 + sum(map(ord, slug)),
        "slug": slug,
        "node_id": f"MDM6QXBw{slug}",
        "owner": user_json(links, links.world.repository.owner),
        "name": name,
        "description": None,
        "external_url": f"{links.urls.web}/features/actions",
        "html_url": f"{links.urls.web}/apps/{slug}",
        "created_at": _CREATED,
        "updated_at": _CREATED,
        "permissions": {"checks": "write", "metadata": "read"},
        "events": [],
    }


def _pull_minimal(links: Links, number: int) -> A:
    world = links.world
    pull = world.pull_request(number)
    head = (pull.head_ref, pull.head_sha) if pull else ("", "")
    base = (pull.base_ref, pull.base_sha) if pull else ("", "")
    repo = {"id": REPO_ID, "url": links.repo_api, "name": world.repository.name}
    return {
        "id": pull_id(number),
        "number": number,
        "url": links.api(f"pulls/{number}"),
        "head": {"ref": head[0], "sha": head[1], "repo": repo},
        "base": {"ref": base[0], "sha": base[1], "repo": repo},
    }


def _job_page(links: Links, job: Job) -> str:
    return links.web(f"actions/runs/{job.run_id}/job/{job.id}")


def check_run_json(links: Links, check: CheckRun) -> A:
    world = links.world
    url = links.api(f"check-runs/{check.id}")
    job = world.job(check.job_id) if check.job_id is not None else None
    page = _job_page(links, job) if job is not None else links.web(f"runs/{check.id}")
    return {
        "id": check.id,
        "name": check.name,
        "node_id": check.node_id,
        "head_sha": check.head_sha,
        "external_id": str(check.id),
        "url": url,
        "html_url": page,
        "details_url": page,
        "status": check.status,
        "conclusion": check.conclusion,
        "started_at": check.started_at,
        "completed_at": check.completed_at,
        "output": {
            "title": check.output_title or None,
            "summary": check.output_summary or None,
            "text": None,
            "annotations_count": len(check.annotations),
            "annotations_url": f"{url}/annotations",
        },
        "check_suite": {"id": 40_000_000_000 + (job.run_id % 1_000_000 if job else 0)},
        "app": _app(links, check.app),
        "pull_requests": [
            _pull_minimal(links, p.number)
            for p in world.pull_requests
            if p.head_sha == check.head_sha
        ],
    }


def annotation_json(links: Links, check: CheckRun, note: Annotation) -> A:
    return {
        "path": note.path,
        "blob_href": links.web(f"blob/{check.head_sha}/{note.path}"),
        "start_line": note.start_line,
        "end_line": note.end_line,
        "start_column": None,
        "end_column": None,
        "annotation_level": note.annotation_level,
        "title": note.title or None,
        "message": note.message,
        "raw_details": note.raw_details or None,
    }


def workflow_json(links: Links, flow: Workflow) -> A:
    world = links.world
    return {
        "id": flow.id,
        "node_id": flow.node_id,
        "name": flow.name,
        "path": flow.path,
        "state": flow.state,
        "created_at": flow.created_at,
        "updated_at": flow.updated_at,
        "url": links.api(f"actions/workflows/{flow.id}"),
        "html_url": links.web(f"blob/{world.repository.default_branch}/{flow.path}"),
        "badge_url": links.web(f"workflows/{flow.name}/badge.svg"),
    }


def run_json(links: Links, run: WorkflowRun) -> A:
    world = links.world
    url = links.api(f"actions/runs/{run.id}")
    flow = next((f for f in world.workflows if f.id == run.workflow_id), None)
    repo = minimal_repository(links)
    actor = user_json(links, run.actor)
    return {
        "id": run.id,
        "name": run.name,
        "node_id": run.node_id,
        "check_suite_id": 40_000_000_000 + run.id % 1_000_000,
        "head_branch": run.head_branch,
        "head_sha": run.head_sha,
        "path": flow.path if flow else "",
        "display_title": run.display_title or run.name,
        "run_number": run.run_number,
        "event": run.event,
        "status": run.status,
        "conclusion": run.conclusion,
        "workflow_id": run.workflow_id,
        "url": url,
        "html_url": links.web(f"actions/runs/{run.id}"),
        "pull_requests": [_pull_minimal(links, n) for n in run.pull_requests],
        "created_at": run.created_at,
        "updated_at": run.updated_at,
        "actor": actor,
        "triggering_actor": actor,
        "run_attempt": run.run_attempt,
        "run_started_at": run.run_started_at,
        "jobs_url": f"{url}/jobs",
        "logs_url": f"{url}/logs",
        "check_suite_url": links.api(f"check-suites/{40_000_000_000 + run.id % 1_000_000}"),
        "artifacts_url": f"{url}/artifacts",
        "cancel_url": f"{url}/cancel",
        "rerun_url": f"{url}/rerun",
        "previous_attempt_url": f"{url}/attempts/{run.run_attempt - 1}"
        if run.run_attempt > 1
        else None,
        "workflow_url": links.api(f"actions/workflows/{run.workflow_id}"),
        "head_commit": {
            "id": run.head_sha,
            "tree_id": run.head_sha[::-1],
            "message": run.display_title or run.name,
            "timestamp": run.created_at,
            "author": {"name": run.actor, "email": f"{run.actor}@users.noreply.github.com"},
            "committer": {"name": "GitHub", "email": "noreply@github.com"},
        },
        "repository": repo,
        "head_repository": repo,
    }


def _step_json(job: Job, step: Step) -> A:
    done = step.status == "completed"
    return {
        "name": step.name,
        "status": step.status,
        "conclusion": step.conclusion,
        "number": step.number,
        "started_at": step.started_at or (job.started_at if done else None),
        "completed_at": (step.completed_at or job.completed_at) if done else None,
    }


def job_json(links: Links, job: Job) -> A:
    world = links.world
    run = world.workflow_run(job.run_id)
    created = job.started_at or (run.run_started_at or run.created_at if run else _CREATED)
    attempt = job.run_attempt or (run.run_attempt if run else 1)
    return {
        "id": job.id,
        "run_id": job.run_id,
        "run_url": links.api(f"actions/runs/{job.run_id}"),
        "run_attempt": attempt,
        "node_id": job.node_id,
        "head_sha": run.head_sha if run else "",
        "head_branch": run.head_branch if run else None,
        "url": links.api(f"actions/jobs/{job.id}"),
        "html_url": _job_page(links, job),
        "status": job.status,
        "conclusion": job.conclusion,
        "created_at": created,
        "started_at": job.started_at or created,
        "completed_at": job.completed_at,
        "name": job.name,
        "steps": [_step_json(job, step) for step in job.steps],
        "check_run_url": links.api(f"check-runs/{job.check_run_id or job.id}"),
        "labels": ["ubuntu-latest"],
        "runner_id": 1,
        "runner_name": job.runner_name,
        "runner_group_id": 1,
        "runner_group_name": "GitHub Actions",
        "workflow_name": run.name if run else None,
    }


def artifact_json(links: Links, artifact: Artifact) -> A:
    run = links.world.workflow_run(artifact.run_id)
    url = links.api(f"actions/artifacts/{artifact.id}")
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
            "repository_id": REPO_ID,
            "head_repository_id": REPO_ID,
            "head_branch": run.head_branch if run else None,
            "head_sha": run.head_sha if run else None,
        },
    }
