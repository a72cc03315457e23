"""Workflows come from the repository's workflow files, as on GitHub: a file pushed to
``.github/workflows/`` on the default branch is a new workflow (named by its ``name:``, or its
path), dispatchable when its triggers include ``workflow_dispatch``, with that trigger's
inputs. The seed's workflows are its files' (matched by path); a workflow whose file goes away
stays listed, as GitHub keeps its runs.
"""

from __future__ import annotations

from typing import Any

import yaml

from pytest_ghxbench.sandbox.state import Workflow, World

__all__ = ["sync_workflows"]

_FOLDER = ".github/workflows"


def _triggers(document: dict[Any, Any]) -> Any:
    # YAML 1.1 reads a bare ``on`` key as the boolean true.
    return document.get("on", document.get(True))


def _dispatch(document: dict[Any, Any]) -> tuple[bool, list[str]]:
    """Whether the file can be dispatched, and its dispatch inputs."""
    triggers = _triggers(document)
    if triggers == "workflow_dispatch":
        return True, []
    if isinstance(triggers, list):
        return "workflow_dispatch" in triggers, []
    if isinstance(triggers, dict) and "workflow_dispatch" in triggers:
        spec = triggers["workflow_dispatch"]
        inputs = spec.get("inputs") if isinstance(spec, dict) else None
        return True, [str(k) for k in inputs] if isinstance(inputs, dict) else []
    return False, []


def sync_workflows(world: World) -> None:
    """Add a workflow for each workflow file of the default branch the world does not list."""
    git = world.git
    tip = git.ref(f"refs/heads/{world.repository.default_branch}")
    folder = git.entry(tip, _FOLDER) if tip else None
    if tip is None or folder is None or folder.type != "tree":
        return
    known = {flow.path for flow in world.workflows}
    for entry in git.tree(folder.sha) or []:
        path = f"{_FOLDER}/{entry.name}"
        if entry.type != "blob" or path in known or not entry.name.endswith((".yml", ".yaml")):
            continue
        text = (git.blob(entry.sha) or b"").decode("utf-8", "replace")
        try:
            document = yaml.safe_load(text)
        except yaml.YAMLError:
            document = None
        if not isinstance(document, dict):
            continue  # GitHub lists an invalid file only as a failed run; no workflow here
        dispatchable, inputs = _dispatch(document)
        flow_id = world.next_id()
        now = world.clock
        world.workflows.append(
            Workflow(
                id=flow_id,
                name=str(document.get("name") or path),
                path=path,
                node_id=world.node("W", flow_id),
                dispatchable=dispatchable,
                dispatch_inputs=inputs,
                created_at=now,
                updated_at=now,
            )
        )
