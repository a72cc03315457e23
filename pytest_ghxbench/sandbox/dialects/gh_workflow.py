"""``gh workflow``: ``list``, ``view``, ``run``, ``enable`` and ``disable``. Dispatching goes
through the ``workflow_dispatch.run`` capability."""

from __future__ import annotations

import json

from pytest_ghxbench.sandbox.capabilities.actions import run_url
from pytest_ghxbench.sandbox.dialects.gh_args import Command, Flag, GhError, Parsed
from pytest_ghxbench.sandbox.dialects.gh_context import GhContext, export_json, ok, table
from pytest_ghxbench.sandbox.dialects.gh_run import run_rows
from pytest_ghxbench.sandbox.dialects.result import CliResult
from pytest_ghxbench.sandbox.state import Workflow

__all__ = ["WORKFLOW_COMMANDS", "find_workflow"]

WORKFLOW_FIELDS = ("id", "name", "path", "state")


def find_workflow(ctx: GhContext, parsed: Parsed) -> Workflow:
    ctx.check_repo(parsed)
    if not parsed.args:
        raise GhError("workflow ID, name, or filename required when not running interactively")
    key = parsed.args[0]
    flow = ctx.world.workflow(int(key) if key.isdigit() else key)
    if flow is None:
        raise GhError(f"could not find any workflows named {key}")
    return flow


def _file(flow: Workflow) -> str:
    return flow.path.rsplit("/", 1)[-1]


def _list(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    flows = [f for f in ctx.world.workflows if parsed.on("all") or f.state == "active"]
    flows = flows[: parsed.number("limit")]
    exported = export_json(
        WORKFLOW_LIST,
        parsed,
        lambda fields: [
            {k: {"id": f.id, "name": f.name, "path": f.path, "state": f.state}[k] for k in fields}
            for f in flows
        ],
    )
    if exported is not None:
        return exported
    if not flows:
        return ok(stderr="no workflows found\n")
    return ok(table([[f.name, f.state, f.id] for f in flows]))


WORKFLOW_LIST = Command(
    "workflow list",
    "list",
    "List workflows",
    _list,
    flags=(
        Flag("all", "Include disabled workflows", short="a", kind="bool"),
        Flag("limit", "Maximum number of workflows to fetch", short="L", kind="int", default=50),
    ),
    long="List workflow files, hiding disabled workflows by default.",
    max_args=0,
    json_fields=WORKFLOW_FIELDS,
)


def _view(ctx: GhContext, parsed: Parsed) -> CliResult:
    flow = find_workflow(ctx, parsed)
    if parsed.on("web"):
        raise GhError("the sandbox has no browser; drop --web to print the workflow")
    if parsed.on("yaml"):
        raise GhError("the sandbox does not store workflow files; view the workflow without --yaml")
    runs = sorted(
        (r for r in ctx.world.workflow_runs if r.workflow_id == flow.id),
        key=lambda r: (r.created_at, r.id),
        reverse=True,
    )
    lines = [
        f"{flow.name} - {_file(flow)}",
        f"ID: {flow.id}",
        "",
        f"Total runs {len(runs)}",
    ]
    text = "\n".join(lines) + "\n"
    if runs:
        text += "Recent runs\n" + run_rows(ctx.world, runs[:5])
    text += (
        f"\nTo see more runs for this workflow, try: gh run list --workflow {_file(flow)}\n"
        f"To see the YAML for this workflow, try: gh workflow view {_file(flow)} --yaml\n"
    )
    return ok(text)


WORKFLOW_VIEW = Command(
    "workflow view",
    "view [<workflow-id> | <workflow-name> | <filename>]",
    "View the summary of a workflow",
    _view,
    flags=(
        Flag(
            "ref",
            "The branch or tag name which contains the version of the workflow file you'd like "
            "to view",
            short="r",
        ),
        Flag("web", "Open workflow in the browser", short="w", kind="bool"),
        Flag("yaml", "View the workflow yaml file", short="y", kind="bool"),
    ),
    long="View the summary of a workflow.",
    max_args=1,
)


def _inputs(ctx: GhContext, parsed: Parsed) -> dict[str, object]:
    values: dict[str, object] = {}
    if parsed.on("json"):
        try:
            loaded = json.loads(ctx.stdin or "{}")
        except json.JSONDecodeError as exc:
            raise GhError(f"could not parse provided JSON: {exc}") from None
        if not isinstance(loaded, dict):
            raise GhError("could not parse provided JSON: expected an object")
        values.update(
            {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in loaded.items()}
        )
    for flag in ("raw-field", "field"):
        for pair in parsed.items(flag):
            key, eq, value = pair.partition("=")
            if not eq:
                raise GhError(f"field {pair} has invalid format: expected key=value")
            values[key] = value
    return values


def _run(ctx: GhContext, parsed: Parsed) -> CliResult:
    flow = find_workflow(ctx, parsed)
    if parsed.on("json") and (parsed.items("field") or parsed.items("raw-field")):
        raise GhError("only one of STDIN or -f/-F can be passed")
    ref = parsed.text("ref") or ctx.world.repository.default_branch
    data = ctx.call(
        "workflow_dispatch.run",
        {**ctx.repo_input(), "workflowId": _file(flow), "ref": ref, "inputs": _inputs(ctx, parsed)},
    )
    message = (
        f"✓ Created workflow_dispatch event for {_file(flow)} at {ref}\n\n"
        f"To see runs for this workflow, try: gh run list --workflow={_file(flow)}\n"
    )
    run_id = data.get("runId") if isinstance(data, dict) else None
    stdout = f"{run_url(ctx.world, run_id)}\n" if run_id else ""
    return ok(stdout, message, context=ctx)


WORKFLOW_RUN = Command(
    "workflow run",
    "run [<workflow-id> | <workflow-name>]",
    "Run a workflow by creating a workflow_dispatch event",
    _run,
    flags=(
        Flag(
            "field",
            "Add a string parameter in key=value format, respecting @ syntax",
            short="F",
            kind="array",
            metavar="key=value",
        ),
        Flag("json", "Read workflow inputs as JSON via STDIN", kind="bool"),
        Flag(
            "raw-field",
            "Add a string parameter in key=value format",
            short="f",
            kind="array",
            metavar="key=value",
        ),
        Flag(
            "ref",
            "Branch or tag name which contains the version of the workflow file you'd like to run",
            short="r",
        ),
    ),
    long="Create a workflow_dispatch event for a given workflow.\n\nThis command will trigger "
    "GitHub Actions to run a given workflow file. The given workflow file must\nsupport an "
    "on.workflow_dispatch trigger in order to be run in this way.",
    max_args=1,
)


def _toggle(enable: bool) -> Command:
    verb = "enable" if enable else "disable"

    def handler(ctx: GhContext, parsed: Parsed) -> CliResult:
        flow = find_workflow(ctx, parsed)
        wanted = "active" if enable else "disabled_manually"
        if flow.state == wanted:
            raise GhError(
                f"workflow {_file(flow)} is already {'enabled' if enable else 'disabled'}"
            )
        ctx.mutated = True
        flow.state, flow.updated_at = wanted, ctx.world.tick()  # type: ignore[assignment]
        past = "Enabled" if enable else "Disabled"
        return ok(stderr=f"✓ {past} {flow.name}\n", context=ctx)

    return Command(
        f"workflow {verb}",
        f"{verb} [<workflow-id> | <workflow-name>]",
        f"{verb.capitalize()} a workflow",
        handler,
        max_args=1,
    )


WORKFLOW_COMMANDS = (_toggle(False), _toggle(True), WORKFLOW_LIST, WORKFLOW_RUN, WORKFLOW_VIEW)
