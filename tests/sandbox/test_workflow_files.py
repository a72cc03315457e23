"""Workflows follow the workflow files of the default branch, as on GitHub."""

from __future__ import annotations

import base64
import json

from pytest_ghxbench.sandbox.manifest import fresh_world
from pytest_ghxbench.sandbox.state import World
from tests.sandbox.api.test_rest_conformance import call
from tests.served import run_on_world

REPO = "/repos/acme-labs/tinykv"


def put(world: World, path: str, text: str, branch: str = "main") -> None:
    body = {
        "message": f"Add {path}",
        "content": base64.b64encode(text.encode()).decode(),
        "branch": branch,
    }
    assert call(world, "PUT", f"{REPO}/contents/{path}", body).status == 201


def listed(world: World) -> dict[str, dict[str, object]]:
    envelope = run_on_world(world, "workflow.list", {"owner": "acme-labs", "name": "tinykv"})
    assert envelope["ok"], envelope
    return {flow["path"]: flow for flow in envelope["data"]["items"]}


def test_a_pushed_workflow_file_is_a_new_dispatchable_workflow() -> None:
    world = fresh_world()
    assert set(listed(world)) == {
        ".github/workflows/ci.yml",
        ".github/workflows/release.yml",
        ".github/workflows/docs.yml",
    }
    put(
        world,
        ".github/workflows/nightly.yml",
        "name: Nightly\non:\n  schedule: [{cron: '0 3 * * *'}]\n  workflow_dispatch:\n"
        "    inputs:\n      depth: {default: '1'}\njobs:\n  build:\n    runs-on: ubuntu-latest\n"
        "    steps: [{run: make}]\n",
    )
    nightly = listed(world)[".github/workflows/nightly.yml"]
    assert nightly["name"] == "Nightly" and nightly["state"] == "active"
    flow = next(f for f in world.workflows if f.name == "Nightly")
    assert (flow.dispatchable, flow.dispatch_inputs) == (True, ["depth"])
    dispatched = call(
        world,
        "POST",
        f"{REPO}/actions/workflows/nightly.yml/dispatches",
        {"ref": "main", "inputs": {"depth": "2"}},
    )
    assert dispatched.status == 204, dispatched.body


def test_files_off_the_default_branch_or_not_workflows_add_nothing() -> None:
    world = fresh_world()
    before = len(world.workflows)
    put(
        world,
        ".github/workflows/lint.yml",
        "name: Lint\non: push\njobs: {}\n",
        "feat/wal-fsync-policy",
    )
    put(world, ".github/workflows/notes.md", "not a workflow\n")
    put(world, ".github/workflows/broken.yml", "name: [unclosed\n")
    assert len(world.workflows) == before
    put(world, ".github/workflows/push-only.yaml", "on: [push, pull_request]\njobs: {}\n")
    flow = world.workflows[-1]
    assert (flow.name, flow.dispatchable) == (".github/workflows/push-only.yaml", False)
    refused = call(world, "POST", f"{REPO}/actions/workflows/{flow.id}/dispatches", {"ref": "main"})
    assert refused.status == 422
    assert "workflow_dispatch" in json.loads(refused.body)["message"]
