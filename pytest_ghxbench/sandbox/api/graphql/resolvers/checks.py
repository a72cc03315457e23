"""GraphQL types for a commit's checks: status check rollups, check runs, check suites and
annotations (the workflow run and workflow behind an Actions check). Commits are in
:mod:`.code`."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import Typed, abstract, connection, obj
from pytest_ghxbench.sandbox.operations.actions import check_bucket, check_url
from pytest_ghxbench.sandbox.state import CheckRun

__all__: list[str] = []

C = Context


obj(
    "Workflow",
    name=("String", lambda n, a, c: n),
)
obj(
    "WorkflowRun",
    databaseId=("Int", lambda r, a, c: r.id),
    runNumber=("Int", lambda r, a, c: r.run_number),
    event=("String", lambda r, a, c: r.event),
    url=("URI", lambda r, a, c: f"{c.world.repository.url}/actions/runs/{r.id}"),
    workflow=(
        "Workflow",
        lambda r, a, c: next((f.name for f in c.world.workflows if f.id == r.workflow_id), r.name),
    ),
)
obj(
    "App",
    name=("String", lambda n, a, c: n),
    slug=("String", lambda n, a, c: n),
)


def _suite_run(check: CheckRun, c: C) -> Any:
    job = c.world.job(check.job_id) if check.job_id is not None else None
    return c.world.workflow_run(job.run_id) if job is not None else None


obj(
    "CheckSuite",
    app=("App", lambda ch, a, c: ch.app),
    workflowRun=("WorkflowRun", lambda ch, a, c: _suite_run(ch, c)),
)
obj(
    "CheckAnnotationPosition", line=("Int", lambda n, a, c: n), column=("Int", lambda n, a, c: None)
)
obj(
    "CheckAnnotationSpan",
    start=("CheckAnnotationPosition", lambda n, a, c: n.start_line),
    end=("CheckAnnotationPosition", lambda n, a, c: n.end_line),
)
obj(
    "CheckAnnotation",
    path=("String", lambda n, a, c: n.path),
    message=("String", lambda n, a, c: n.message),
    title=("String", lambda n, a, c: n.title or None),
    rawDetails=("String", lambda n, a, c: n.raw_details or None),
    annotationLevel=("CheckAnnotationLevel", lambda n, a, c: n.annotation_level.upper()),
    location=("CheckAnnotationSpan", lambda n, a, c: n),
)
obj(
    "CheckRun",
    id=("ID", lambda ch, a, c: ch.node_id),
    databaseId=("Int", lambda ch, a, c: ch.id),
    name=("String", lambda ch, a, c: ch.name),
    status=("CheckStatusState", lambda ch, a, c: ch.status.upper()),
    conclusion=("CheckConclusionState", lambda ch, a, c: (ch.conclusion or "").upper() or None),
    startedAt=("DateTime", lambda ch, a, c: ch.started_at),
    completedAt=("DateTime", lambda ch, a, c: ch.completed_at),
    detailsUrl=("URI", lambda ch, a, c: check_url(c.world, ch)),
    url=("URI", lambda ch, a, c: check_url(c.world, ch)),
    title=("String", lambda ch, a, c: ch.output_title or None),
    summary=("String", lambda ch, a, c: ch.output_summary or None),
    isRequired=("Boolean", lambda ch, a, c: _required(a, c)),
    checkSuite=("CheckSuite", lambda ch, a, c: ch),
    annotations=connection("CheckAnnotation", lambda ch, a, c: list(ch.annotations)),
)
abstract("StatusCheckRollupContext", ("CheckRun", "StatusContext"))


def _required(args: dict[str, Any], ctx: Context) -> bool:
    """Whether the pull request the arguments name must pass this check to merge: in the
    world, every check of a pull request into a protected branch is required."""
    world = ctx.world
    number, node = args.get("pullRequestNumber"), args.get("pullRequestId")
    pull = world.pull_request(int(number)) if number is not None else None
    if pull is None and node is not None:
        pull = world.pull_request_by_node_id(str(node))
    return pull is not None and pull.base_ref in world.repository.protected_branches


def _rollup_state(checks: list[CheckRun]) -> str:
    buckets = {check_bucket(ch) if ch.status == "completed" else "pending" for ch in checks}
    if buckets & {"fail", "cancel"}:
        return "FAILURE"
    if "pending" in buckets:
        return "PENDING"
    return "SUCCESS"


obj(
    "StatusCheckRollup",
    state=("StatusState", lambda checks, a, c: _rollup_state(checks)),
    contexts=connection(
        "StatusCheckRollupContext", lambda checks, a, c: [Typed("CheckRun", ch) for ch in checks]
    ),
)
