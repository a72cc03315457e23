"""Workflow capabilities: listing, getting and dispatching the repository's workflows.

Every input also has ``owner`` and ``name`` (the repository).

- ``workflow.list`` (``first``, ``after``) → items{id, name, path, state, url}, pageInfo
- ``workflow.get`` (``workflowId``: id, file name ``ci.yml``, path or name) → id, name, path,
  state, url (the workflow file's page)
- ``workflow_dispatch.run`` (``workflowId``, ``ref`` (a branch), ``inputs``) → workflowId, ref,
  dispatched, runId

GitHub's REST API finds a workflow by id or file name only; paths and names are matched here
against the listed workflows. A dispatch asks for the run's details (``return_run_details``);
from a server that answers ``204`` only, ``runId`` is the newest ``workflow_dispatch`` run of
the workflow on the branch afterwards.

Errors: ``NOT_FOUND`` for an unknown repository, workflow or ref; ``VALIDATION`` for inputs the
workflow does not declare; ``CONFLICT`` for dispatching a disabled workflow or one without a
``workflow_dispatch`` trigger.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.ghx.capabilities.shapes import repo_path, rest_page
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import AFTER, FIRST, CapabilityError, capability, repo_schema

__all__ = ["WORKFLOW_ID", "find_workflow", "workflow_names"]

WORKFLOW_ID: dict[str, Any] = {
    "type": ["string", "integer"],
    "minLength": 1,
    "minimum": 1,
    "description": "Workflow id, file name (ci.yml), path or name",
}
_MAX_WORKFLOWS = 500


def _matches(flow: Mapping[str, Any], key: int | str) -> bool:
    path = str(flow.get("path") or "")
    return key in (flow.get("id"), flow.get("name"), path) or str(key) == path.rsplit("/", 1)[-1]


def _workflows(client: GitHubClient, input: Mapping[str, Any]) -> list[dict[str, Any]]:
    path = f"{repo_path(input)}/actions/workflows"
    return list(client.paginate(path, limit=_MAX_WORKFLOWS))


def find_workflow(client: GitHubClient, input: Mapping[str, Any], key: int | str) -> dict[str, Any]:
    """The REST workflow with this id, file name, path or name (the first listed that matches,
    as ``gh workflow view`` picks), or ``NOT_FOUND``."""
    flows = _workflows(client, input)
    found = next((f for f in flows if _matches(f, key)), None)
    if found is None and isinstance(key, str) and key.isdigit():
        found = next((f for f in flows if _matches(f, int(key))), None)
    if found is None:
        raise CapabilityError("NOT_FOUND", f"could not find any workflows named {key}")
    return found


def workflow_names(client: GitHubClient, input: Mapping[str, Any]) -> dict[int, str]:
    """Workflow names by id (a run's ``name`` may differ from its workflow's)."""
    return {int(f["id"]): str(f["name"]) for f in _workflows(client, input)}


def _render(flow: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": flow["id"],
        "name": flow["name"],
        "path": flow["path"],
        "state": flow["state"],
        "url": flow.get("html_url"),
    }


@capability(
    "workflow.list",
    "List the repository's workflows.",
    repo_schema(first=FIRST, after=AFTER),
)
def list_workflows(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    path = f"{repo_path(input)}/actions/workflows"
    return rest_page(client, path, input, _render, wrapped="workflows")


@capability(
    "workflow.get",
    "Get one workflow by id, file name (ci.yml), path or name.",
    repo_schema("workflowId", workflowId=WORKFLOW_ID),
)
def get_workflow(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return _render(find_workflow(client, input, input["workflowId"]))


def _dispatch_refusal(exc: GitHubError) -> CapabilityError | None:
    """GitHub answers 422 for a disabled workflow or one without the trigger: a conflict with
    the workflow's state, not bad input."""
    text = exc.message.lower()
    if exc.status in (409, 422) and ("disabled" in text or "trigger" in text):
        return CapabilityError("CONFLICT", exc.message)
    if exc.status == 422 and "no ref found" in text:
        return CapabilityError("NOT_FOUND", exc.message)
    return None


def _dispatch(client: GitHubClient, path: str, body: dict[str, Any]) -> Any:
    """POST the dispatch; again without ``return_run_details`` if the server does not know it
    (GitHub Enterprise Server releases before February 2026)."""
    try:
        return client.request("POST", path, body=body).data
    except GitHubError as exc:
        if "return_run_details" in body and "return_run_details" in exc.message:
            plain = {k: v for k, v in body.items() if k != "return_run_details"}
            return _dispatch(client, path, plain)
        refusal = _dispatch_refusal(exc)
        if refusal is not None:
            raise refusal from None
        raise


@capability(
    "workflow_dispatch.run",
    "Trigger a workflow_dispatch run of a workflow on a branch, with its inputs.",
    repo_schema(
        "workflowId",
        "ref",
        workflowId=WORKFLOW_ID,
        ref={"type": "string", "minLength": 1, "description": "Branch to run on"},
        inputs={
            "type": "object",
            "additionalProperties": {"type": ["string", "number", "boolean"]},
            "description": "Values of the workflow's dispatch inputs",
        },
    ),
    mutates=True,
)
def dispatch_workflow(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    flow = find_workflow(client, input, input["workflowId"])
    if flow["state"] != "active":
        raise CapabilityError(
            "CONFLICT",
            f"Cannot trigger a 'workflow_dispatch' on a disabled workflow ({flow['path']})",
        )
    flow_path = f"{repo_path(input)}/actions/workflows/{flow['id']}"
    body: dict[str, Any] = {"ref": input["ref"], "return_run_details": True}
    if input.get("inputs"):
        body["inputs"] = input["inputs"]
    answer = _dispatch(client, f"{flow_path}/dispatches", body)
    run_id = answer.get("workflow_run_id") if isinstance(answer, dict) else None
    if run_id is None:  # a server that answers 204 only: the newest dispatched run
        branch = input["ref"].removeprefix("refs/heads/")
        params = {"event": "workflow_dispatch", "branch": branch, "per_page": 1}
        runs = client.rest("GET", f"{flow_path}/runs", params=params)
        newest = (runs.get("workflow_runs") or [{}])[0] if isinstance(runs, dict) else {}
        run_id = newest.get("id")
    return {
        "workflowId": str(input["workflowId"]),
        "ref": input["ref"],
        "dispatched": True,
        "runId": run_id,
    }
