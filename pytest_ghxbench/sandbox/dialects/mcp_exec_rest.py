"""MCP tools about Actions, releases and Projects, in the GitHub MCP server's shapes.

Project handlers live in :mod:`.mcp_exec_projects`; the routes of all three are here.

These tools answer with GitHub's REST objects, whose field names are the snake_case forms of
the capabilities' camelCase ones (``headBranch`` -> ``head_branch``), so capability data is
renamed key by key (:func:`snake`) rather than rebuilt field by field.
"""

from __future__ import annotations

import re
from typing import Any

from pytest_ghxbench.sandbox.dialects.mcp_exec_base import (
    Routes,
    ToolCall,
    fetch_all,
    paged,
)
from pytest_ghxbench.sandbox.dialects.mcp_exec_issues import repo_input
from pytest_ghxbench.sandbox.dialects.mcp_exec_projects import (
    add_item,
    delete_item,
    empty_list,
    get_field,
    get_item,
    get_project,
    list_fields,
    list_items,
    list_projects,
    no_status_update,
    update_item,
)

__all__ = ["REST_ROUTES", "snake"]

_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def snake(value: Any) -> Any:
    """``value`` with every object key renamed from camelCase to snake_case."""
    if isinstance(value, dict):
        return {_CAMEL.sub(r"_\1", str(k)).lower(): snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snake(item) for item in value]
    return value


def _id(call: ToolCall, args: dict[str, Any], key: str) -> int:
    raw = args.get(key)
    if raw is None or not str(raw).isdigit():
        raise call.fail(f"missing required parameter: {key} (a numeric ID)")
    return int(raw)


def _listing(capability_id: str, key: str, id_field: str | None = None) -> Any:
    def read(call: ToolCall, args: dict[str, Any]) -> Any:
        input = repo_input(args)
        if id_field is not None:
            input[id_field] = _id(call, args, "resource_id")
        items = snake(fetch_all(call, capability_id, input))
        return {"total_count": len(items), key: paged(items, args)}

    return read


def list_workflow_runs(call: ToolCall, args: dict[str, Any]) -> Any:
    input = repo_input(args)
    if args.get("resource_id"):
        input["workflowId"] = args["resource_id"]
    filters = args.get("workflow_runs_filter") or {}
    input.update({k: filters[k] for k in ("branch", "event", "status") if filters.get(k)})
    runs = snake(fetch_all(call, "workflow_runs.list", input))
    return {"total_count": len(runs), "workflow_runs": paged(runs, args)}


def list_check_runs(call: ToolCall, args: dict[str, Any]) -> Any:
    ref = args.get("ref")
    pull = next(
        (p for p in call.world.pull_requests if ref in (p.head_sha, p.head_ref, str(p.number))),
        None,
    )
    if pull is None:
        raise call.fail(f"no pull request head matches ref {ref!r} (give a head SHA or branch)")
    call.run("pr.status.checks", {**call.repo, "prNumber": pull.number})
    filters = args.get("check_runs_filter") or {}
    runs = [
        {"id": run.id, "name": run.name, "status": run.status, "conclusion": run.conclusion,
         "head_sha": run.head_sha, "started_at": run.started_at,
         "completed_at": run.completed_at, "html_url": f"{call.world.repository.url}/runs/{run.id}",
         "output": {"title": run.output_title, "summary": run.output_summary,
                    "annotations_count": len(run.annotations)}}
        for run in call.world.check_runs
        if run.head_sha == pull.head_sha
        and filters.get("check_name") in (None, run.name)
        and filters.get("status") in (None, run.status)
    ]  # fmt: skip
    return {"total_count": len(runs), "check_runs": paged(runs, args)}


def _get(capability_id: str, id_field: str) -> Any:
    def read(call: ToolCall, args: dict[str, Any]) -> Any:
        key = args["resource_id"]
        value: Any = int(key) if id_field != "workflowId" and str(key).isdigit() else key
        if id_field != "workflowId" and not isinstance(value, int):
            raise call.fail(f"resource_id must be a numeric ID, got {key!r}")
        if id_field == "workflowId" and str(key).isdigit():
            value = int(key)
        return snake(call.run(capability_id, {**repo_input(args), id_field: value}))

    return read


def get_workflow_job(call: ToolCall, args: dict[str, Any]) -> Any:
    job = call.world.job(_id(call, args, "resource_id"))
    if job is None:
        raise call.fail(f"job {args['resource_id']} not found")
    call.run("workflow_run.get", {**repo_input(args), "runId": job.run_id})
    data = job.model_dump(exclude={"log"})
    data["html_url"] = f"{call.world.repository.url}/actions/runs/{job.run_id}/job/{job.id}"
    return data


def download_artifact(call: ToolCall, args: dict[str, Any]) -> Any:
    artifact_id = _id(call, args, "resource_id")
    artifact = next((a for a in call.world.artifacts if a.id == artifact_id), None)
    if artifact is None:
        raise call.fail(f"artifact {artifact_id} not found")
    call.run("workflow_run.get", {**repo_input(args), "runId": artifact.run_id})
    repo = call.world.repository
    url = f"https://api.github.com/repos/{repo.full_name}/actions/artifacts/{artifact.id}/zip"
    return {
        "download_url": url,
        "message": "Artifact is available for download",
        "note": "The download_url is temporary; download the zip promptly",
        "artifact_id": artifact.id,
    }


def run_usage(call: ToolCall, args: dict[str, Any]) -> Any:
    run_id = _id(call, args, "resource_id")
    call.run("workflow_run.get", {**repo_input(args), "runId": run_id})
    jobs = fetch_all(call, "workflow_run.jobs.list", {**repo_input(args), "runId": run_id})
    return {"billable": {}, "run_duration_ms": 0, "jobs": len(jobs)}


def run_logs_url(call: ToolCall, args: dict[str, Any]) -> Any:
    run_id = _id(call, args, "resource_id")
    call.run("workflow_run.get", {**repo_input(args), "runId": run_id})
    return {
        "logs_url": f"https://api.github.com/repos/{call.world.repository.full_name}"
        f"/actions/runs/{run_id}/logs",
        "message": "Workflow run logs are available for download",
    }


def get_check_run(call: ToolCall, args: dict[str, Any]) -> Any:
    run = call.world.check_run(_id(call, args, "resource_id"))
    if run is None:
        raise call.fail(f"check run {args['resource_id']} not found")
    call.run("check_run.annotations.list", {**repo_input(args), "checkRunId": run.id})
    return run.model_dump(exclude={"annotations"})


def run_workflow(call: ToolCall, args: dict[str, Any]) -> Any:
    if not args.get("workflow_id") or not args.get("ref"):
        raise call.fail("missing required parameter: workflow_id and ref are required")
    key = args["workflow_id"]
    input = {**repo_input(args), "workflowId": int(key) if str(key).isdigit() else key}
    call.run(
        "workflow_dispatch.run", {**input, "ref": args["ref"], "inputs": args.get("inputs") or {}}
    )
    return {"message": "Workflow run has been queued", "workflow_type": "workflow_id"}


def _run_write(capability_id: str, pr_capability: str | None, message: str) -> Any:
    def write(call: ToolCall, args: dict[str, Any]) -> Any:
        run_id = _id(call, args, "run_id")
        run = call.world.workflow_run(run_id)
        if pr_capability and run is not None and run.pull_requests:
            input = {**repo_input(args), "prNumber": run.pull_requests[0], "runId": run_id}
            call.run(pr_capability, input)
        else:
            call.run(capability_id, {**repo_input(args), "runId": run_id})
        return {"message": message, "run_id": run_id}

    return write


def delete_run_logs(call: ToolCall, args: dict[str, Any]) -> Any:
    run_id = _id(call, args, "run_id")
    call.run("workflow_run.get", {**repo_input(args), "runId": run_id})
    for job in call.world.jobs:
        if job.run_id == run_id and job.log:
            job.log = ""
            call.touched()
    return {"message": "Workflow run logs have been deleted", "run_id": run_id}


def get_job_logs(call: ToolCall, args: dict[str, Any]) -> Any:
    input = repo_input(args)
    if args.get("job_id") is not None:
        job_ids = [int(args["job_id"])]
    elif args.get("run_id") is not None and args.get("failed_only"):
        jobs = fetch_all(call, "workflow_run.jobs.list", {**input, "runId": int(args["run_id"])})
        job_ids = [j["id"] for j in jobs if j["conclusion"] == "failure"]
    else:
        raise call.fail("give job_id, or run_id with failed_only true")
    tail = int(args.get("tail_lines") or 500)
    logs = []
    for job_id in job_ids:
        analysis = call.run("workflow_job.logs.analyze", {**input, "jobId": job_id})
        entry: dict[str, Any] = {"job_id": job_id, "conclusion": analysis["conclusion"]}
        if args.get("return_content"):
            log = call.run("workflow_job.logs.get", {**input, "jobId": job_id})["log"]
            entry["logs_content"] = "\n".join(str(log).splitlines()[-tail:])
        else:
            entry["failed_steps"] = analysis["failedSteps"]
            entry["summary"] = snake(analysis["summary"])
        logs.append(entry)
    if args.get("job_id") is not None:
        return logs[0]
    return {"run_id": int(args["run_id"]), "failed_jobs": len(logs), "logs": logs}


_RELEASE_FIELDS = (
    ("name", "title"),
    ("body", "notes"),
    ("prerelease", "prerelease"),
    ("target_commitish", "targetCommitish"),
)


def _release(call: ToolCall, args: dict[str, Any], tag: str) -> Any:
    data = snake(call.run("release.get", {**repo_input(args), "tagName": tag}))
    data["html_url"] = data.pop("url")
    data["draft"], data["prerelease"] = data.pop("is_draft"), data.pop("is_prerelease")
    return data


def list_releases(call: ToolCall, args: dict[str, Any]) -> Any:
    return paged(snake(fetch_all(call, "release.list", repo_input(args))), args)


def latest_release(call: ToolCall, args: dict[str, Any]) -> Any:
    fetch_all(call, "release.list", repo_input(args))
    published = [r for r in call.world.releases if not r.draft and not r.prerelease]
    if not published:
        raise call.fail("no published release found")
    return _release(call, args, max(published, key=lambda r: r.published_at or "").tag_name)


def create_release(call: ToolCall, args: dict[str, Any]) -> Any:
    input = {**repo_input(args), "tagName": args["tag_name"]}
    for source, target in _RELEASE_FIELDS:
        if args.get(source) is not None:
            input[target] = args[source]
    data = call.run("release.create_draft", input)
    if args.get("draft") is False:
        call.run("release.publish_draft", {**repo_input(args), "releaseId": data["id"]})
    return _release(call, args, str(args["tag_name"]))


def update_release(call: ToolCall, args: dict[str, Any]) -> Any:
    release_id = int(args["release_id"])
    input: dict[str, Any] = {**repo_input(args), "releaseId": release_id}
    for source, target in (("tag_name", "tagName"), *_RELEASE_FIELDS):
        if args.get(source) is not None:
            input[target] = args[source]
    release = call.world.release(release_id)
    if args.get("draft") is False and release is not None and release.draft:
        call.run("release.publish_draft", input)
    else:
        if args.get("draft") is not None:
            input["draft"] = args["draft"]
        call.run("release.update", input)
    updated = call.world.release(release_id)
    assert updated is not None
    return _release(call, args, updated.tag_name)


REST_ROUTES: Routes = {
    ("actions_list", "list_workflows"): ("list workflows", _listing("workflow.list", "workflows")),
    ("actions_list", "list_workflow_runs"): ("list workflow runs", list_workflow_runs),
    ("actions_list", "list_workflow_jobs"): (
        "list workflow jobs",
        _listing("workflow_run.jobs.list", "jobs", "runId"),
    ),
    ("actions_list", "list_workflow_run_artifacts"): (
        "list workflow run artifacts",
        _listing("workflow_run.artifacts.list", "artifacts", "runId"),
    ),
    ("actions_list", "list_check_runs"): ("list check runs", list_check_runs),
    ("actions_list", "list_check_run_annotations"): (
        "list check run annotations",
        _listing("check_run.annotations.list", "annotations", "checkRunId"),
    ),
    ("actions_get", "get_workflow"): ("get workflow", _get("workflow.get", "workflowId")),
    ("actions_get", "get_workflow_run"): ("get workflow run", _get("workflow_run.get", "runId")),
    ("actions_get", "get_workflow_job"): ("get workflow job", get_workflow_job),
    ("actions_get", "download_workflow_run_artifact"): (
        "get artifact download URL",
        download_artifact,
    ),
    ("actions_get", "get_workflow_run_usage"): ("get workflow run usage", run_usage),
    ("actions_get", "get_workflow_run_logs_url"): ("get workflow run logs URL", run_logs_url),
    ("actions_get", "get_check_run"): ("get check run", get_check_run),
    ("actions_run_trigger", "run_workflow"): ("run workflow", run_workflow),
    ("actions_run_trigger", "rerun_workflow_run"): (
        "rerun workflow run",
        _run_write("workflow_run.rerun_all", None, "Workflow run has been queued for re-run"),
    ),
    ("actions_run_trigger", "rerun_failed_jobs"): (
        "rerun failed jobs",
        _run_write("workflow_run.rerun_failed", None, "Failed jobs have been queued for re-run"),
    ),
    ("actions_run_trigger", "cancel_workflow_run"): (
        "cancel workflow run",
        _run_write("workflow_run.cancel", None, "Workflow run has been cancelled"),
    ),
    ("actions_run_trigger", "delete_workflow_run_logs"): (
        "delete workflow run logs",
        delete_run_logs,
    ),
    ("get_job_logs", None): ("get job logs", get_job_logs),
    ("list_releases", None): ("list releases", list_releases),
    ("get_release_by_tag", None): (
        "get release",
        lambda call, args: _release(call, args, str(args["tag"])),
    ),
    ("get_latest_release", None): ("get latest release", latest_release),
    ("create_release", None): ("create release", create_release),
    ("update_release", None): ("update release", update_release),
    ("projects_list", "list_projects"): ("list projects", list_projects),
    ("projects_list", "list_project_fields"): ("list project fields", list_fields),
    ("projects_list", "list_project_items"): ("list project items", list_items),
    ("projects_list", "list_project_status_updates"): (
        "list project status updates",
        empty_list("status_updates"),
    ),
    ("projects_list", "list_project_views"): ("list project views", empty_list("views")),
    ("projects_get", "get_project"): ("get project", get_project),
    ("projects_get", "get_project_field"): ("get project field", get_field),
    ("projects_get", "get_project_item"): ("get project item", get_item),
    ("projects_get", "get_project_status_update"): ("get project status update", no_status_update),
    ("projects_write", "add_project_item"): ("add project item", add_item),
    ("projects_write", "update_project_item"): ("update project item", update_item),
    ("projects_write", "delete_project_item"): ("delete project item", delete_item),
    ("projects_write", "create_project_status_update"): (
        "create project status update",
        no_status_update,
    ),
}
