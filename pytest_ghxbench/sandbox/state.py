"""The sandbox's GitHub world as pydantic models.

One :class:`World` holds one repository and everything around it (issues, pull requests,
Actions, check runs, releases, Projects v2 boards). Field names are snake_case versions of
GitHub's; capabilities translate them into the camelCase names each interface uses.

Identifiers are deterministic: node ids are derived from the repository and the object's
natural key (:func:`node_id`), database ids of new objects come from :meth:`World.next_id`, and
timestamps of mutations from :meth:`World.tick`, a clock that advances one second per call. The
same seed and the same calls therefore always produce the same world.

Objects refer to each other by number (issues, pull requests, milestones), by name (labels,
issue types, users) or by id (runs, jobs, check runs); lookups by node id scan the (small)
lists, which keeps copies cheap (see :mod:`pytest_ghxbench.sandbox.manifest` for the seed).
"""

from __future__ import annotations

import base64
import hashlib
from datetime import datetime, timedelta, timezone
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Annotation",
    "Artifact",
    "Branch",
    "CheckRun",
    "Comment",
    "Issue",
    "IssueType",
    "Job",
    "Label",
    "Milestone",
    "Project",
    "ProjectField",
    "ProjectItem",
    "ProjectOption",
    "PullRequest",
    "PullRequestFile",
    "Release",
    "ReleaseAsset",
    "Repository",
    "Review",
    "ReviewComment",
    "ReviewThread",
    "Step",
    "User",
    "Workflow",
    "WorkflowRun",
    "World",
    "node_id",
]

IssueState = Literal["OPEN", "CLOSED"]
StateReason = Literal["COMPLETED", "NOT_PLANNED", "REOPENED", "DUPLICATE"]
PullState = Literal["OPEN", "CLOSED", "MERGED"]
ReviewState = Literal["APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED", "PENDING"]
RunStatus = Literal["queued", "in_progress", "completed", "waiting", "requested", "pending"]
Conclusion = Literal[
    "success", "failure", "cancelled", "skipped", "neutral", "timed_out", "action_required"
]
Mergeable = Literal["MERGEABLE", "CONFLICTING", "UNKNOWN"]
MergeStateStatus = Literal[
    "BEHIND", "BLOCKED", "CLEAN", "DIRTY", "DRAFT", "HAS_HOOKS", "UNKNOWN", "UNSTABLE"
]


def node_id(prefix: str, *key: object) -> str:
    """A GitHub-looking global node id (``I_kwDO...``), the same for the same prefix and key."""
    digest = hashlib.sha256(":".join(map(str, (prefix, *key))).encode()).digest()
    return f"{prefix}_kwDO{base64.b64encode(digest, altchars=b'-_').decode()[:14]}"


class _Model(BaseModel):
    # Seeds are hand-written: a misspelled key must be an error, not silently ignored.
    model_config = ConfigDict(extra="forbid")


class User(_Model):
    login: str
    name: str = ""
    type: Literal["User", "Organization", "Bot"] = "User"


class Branch(_Model):
    name: str
    sha: str
    protected: bool = False


class Repository(_Model):
    owner: str
    name: str
    node_id: str = ""
    description: str = ""
    homepage_url: str = ""
    default_branch: str = "main"
    visibility: Literal["PUBLIC", "PRIVATE", "INTERNAL"] = "PUBLIC"
    stargazer_count: int = 0
    fork_count: int = 0
    watcher_count: int = 0
    primary_language: str | None = None
    license: str | None = None
    topics: list[str] = Field(default_factory=list)
    has_issues_enabled: bool = True
    is_archived: bool = False
    created_at: str = "2025-01-01T00:00:00Z"
    pushed_at: str = "2025-01-01T00:00:00Z"
    branches: list[Branch] = Field(default_factory=list)

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    @property
    def url(self) -> str:
        return f"https://github.com/{self.full_name}"

    @property
    def is_private(self) -> bool:
        return self.visibility != "PUBLIC"


class Label(_Model):
    name: str
    color: str = "ededed"
    description: str = ""
    node_id: str = ""
    is_default: bool = False


class Milestone(_Model):
    number: int
    title: str
    node_id: str = ""
    description: str = ""
    state: Literal["OPEN", "CLOSED"] = "OPEN"
    due_on: str | None = None


class IssueType(_Model):
    name: str
    node_id: str = ""
    description: str = ""
    color: str = "GRAY"
    is_enabled: bool = True


class Comment(_Model):
    """A comment on an issue or on a pull request's conversation."""

    id: int
    node_id: str = ""
    author: str
    body: str
    created_at: str
    updated_at: str | None = None


class Issue(_Model):
    number: int
    title: str
    node_id: str = ""
    body: str = ""
    author: str = ""
    state: IssueState = "OPEN"
    state_reason: StateReason | None = None
    labels: list[str] = Field(default_factory=list)
    assignees: list[str] = Field(default_factory=list)
    milestone: int | None = None
    issue_type: str | None = None
    comments: list[Comment] = Field(default_factory=list)
    parent: int | None = None
    """The number of the parent issue; sub-issues are derived from it (see World.sub_issues)."""
    blocked_by: list[int] = Field(default_factory=list)
    locked: bool = False
    created_at: str = "2025-01-01T00:00:00Z"
    updated_at: str = "2025-01-01T00:00:00Z"
    closed_at: str | None = None


class PullRequestFile(_Model):
    path: str
    status: Literal["added", "modified", "removed", "renamed"] = "modified"
    additions: int = 0
    deletions: int = 0
    patch: str = ""
    previous_path: str | None = None


class Review(_Model):
    id: int
    node_id: str = ""
    author: str
    state: ReviewState
    body: str = ""
    submitted_at: str
    commit_id: str = ""


class ReviewComment(_Model):
    id: int
    node_id: str = ""
    author: str
    body: str
    created_at: str
    path: str = ""
    line: int | None = None
    diff_hunk: str = ""
    in_reply_to: int | None = None
    review_id: int | None = None


class ReviewThread(_Model):
    node_id: str
    path: str
    line: int | None = None
    start_line: int | None = None
    diff_side: Literal["LEFT", "RIGHT"] = "RIGHT"
    is_resolved: bool = False
    is_outdated: bool = False
    resolved_by: str | None = None
    comments: list[ReviewComment] = Field(default_factory=list)


class PullRequest(_Model):
    number: int
    title: str
    node_id: str = ""
    body: str = ""
    author: str = ""
    state: PullState = "OPEN"
    is_draft: bool = False
    head_ref: str
    head_sha: str
    base_ref: str = "main"
    base_sha: str = ""
    mergeable: Mergeable = "MERGEABLE"
    merge_state_status: MergeStateStatus = "CLEAN"
    labels: list[str] = Field(default_factory=list)
    assignees: list[str] = Field(default_factory=list)
    requested_reviewers: list[str] = Field(default_factory=list)
    milestone: int | None = None
    closing_issues: list[int] = Field(default_factory=list)
    """Issues this pull request closes when merged (``Fixes #n``): an issue's linked PRs."""
    files: list[PullRequestFile] = Field(default_factory=list)
    comments: list[Comment] = Field(default_factory=list)
    reviews: list[Review] = Field(default_factory=list)
    review_threads: list[ReviewThread] = Field(default_factory=list)
    commits: int = 1
    created_at: str = "2025-01-01T00:00:00Z"
    updated_at: str = "2025-01-01T00:00:00Z"
    closed_at: str | None = None
    merged_at: str | None = None
    merged_by: str | None = None
    merge_commit_sha: str | None = None


class Workflow(_Model):
    id: int
    name: str
    path: str
    node_id: str = ""
    state: Literal["active", "disabled_manually", "disabled_inactivity"] = "active"
    dispatch_inputs: list[str] = Field(default_factory=list)
    """Input names of its ``workflow_dispatch`` trigger; empty when it cannot be dispatched."""
    dispatchable: bool = False
    created_at: str = "2025-01-01T00:00:00Z"
    updated_at: str = "2025-01-01T00:00:00Z"


class Step(_Model):
    number: int
    name: str
    status: RunStatus = "completed"
    conclusion: Conclusion | None = "success"


class Job(_Model):
    id: int
    run_id: int
    name: str
    node_id: str = ""
    status: RunStatus = "completed"
    conclusion: Conclusion | None = "success"
    started_at: str | None = None
    completed_at: str | None = None
    runner_name: str = "GitHub Actions 2"
    steps: list[Step] = Field(default_factory=list)
    log: str = ""
    check_run_id: int | None = None


class Artifact(_Model):
    id: int
    run_id: int
    name: str
    node_id: str = ""
    size_in_bytes: int = 0
    expired: bool = False
    created_at: str = "2025-01-01T00:00:00Z"
    expires_at: str | None = None


class WorkflowRun(_Model):
    id: int
    workflow_id: int
    name: str
    node_id: str = ""
    display_title: str = ""
    run_number: int = 1
    run_attempt: int = 1
    event: str = "push"
    status: RunStatus = "completed"
    conclusion: Conclusion | None = "success"
    head_branch: str = "main"
    head_sha: str = ""
    actor: str = ""
    pull_requests: list[int] = Field(default_factory=list)
    created_at: str = "2025-01-01T00:00:00Z"
    updated_at: str = "2025-01-01T00:00:00Z"
    run_started_at: str | None = None


class Annotation(_Model):
    path: str
    start_line: int
    end_line: int
    annotation_level: Literal["notice", "warning", "failure"] = "failure"
    message: str
    title: str = ""
    raw_details: str = ""


class CheckRun(_Model):
    id: int
    name: str
    head_sha: str
    node_id: str = ""
    status: RunStatus = "completed"
    conclusion: Conclusion | None = "success"
    started_at: str | None = None
    completed_at: str | None = None
    app: str = "github-actions"
    output_title: str = ""
    output_summary: str = ""
    annotations: list[Annotation] = Field(default_factory=list)
    job_id: int | None = None
    """The Actions job that reported this check (None for checks from other apps)."""


class ReleaseAsset(_Model):
    id: int
    name: str
    size: int = 0
    download_count: int = 0
    content_type: str = "application/octet-stream"


class Release(_Model):
    id: int
    tag_name: str
    name: str = ""
    node_id: str = ""
    body: str = ""
    draft: bool = False
    prerelease: bool = False
    target_commitish: str = "main"
    author: str = ""
    created_at: str = "2025-01-01T00:00:00Z"
    published_at: str | None = None
    assets: list[ReleaseAsset] = Field(default_factory=list)


class ProjectOption(_Model):
    id: str
    name: str
    color: str = "GRAY"
    description: str = ""


class ProjectField(_Model):
    id: str
    name: str
    data_type: Literal[
        "TEXT", "NUMBER", "DATE", "SINGLE_SELECT", "ITERATION", "TITLE", "ASSIGNEES", "LABELS"
    ] = "TEXT"
    options: list[ProjectOption] = Field(default_factory=list)


class ProjectItem(_Model):
    id: str
    content_type: Literal["Issue", "PullRequest", "DraftIssue"] = "Issue"
    content_number: int | None = None
    """Issue or pull request number in the world's repository (None for draft issues)."""
    title: str = ""
    """Only for draft issues; issues and pull requests show their own title."""
    field_values: dict[str, str | float | None] = Field(default_factory=dict)
    """Field id → value: option id (single select), text, number or ISO date."""
    is_archived: bool = False


class Project(_Model):
    number: int
    owner: str
    owner_type: Literal["Organization", "User"] = "Organization"
    title: str
    node_id: str = ""
    short_description: str = ""
    readme: str = ""
    public: bool = False
    closed: bool = False
    created_at: str = "2025-01-01T00:00:00Z"
    updated_at: str = "2025-01-01T00:00:00Z"
    fields: list[ProjectField] = Field(default_factory=list)
    items: list[ProjectItem] = Field(default_factory=list)

    @property
    def url(self) -> str:
        kind = "orgs" if self.owner_type == "Organization" else "users"
        return f"https://github.com/{kind}/{self.owner}/projects/{self.number}"


class World(_Model):
    """Everything the sandbox knows. Mutated in place by capability handlers."""

    viewer: str
    """The authenticated user: author of everything the agent creates."""
    users: list[User] = Field(default_factory=list)
    repository: Repository
    collaborators: list[str] = Field(default_factory=list)
    """Logins that can be assigned or requested as reviewers."""
    labels: list[Label] = Field(default_factory=list)
    milestones: list[Milestone] = Field(default_factory=list)
    issue_types: list[IssueType] = Field(default_factory=list)
    issues: list[Issue] = Field(default_factory=list)
    pull_requests: list[PullRequest] = Field(default_factory=list)
    workflows: list[Workflow] = Field(default_factory=list)
    workflow_runs: list[WorkflowRun] = Field(default_factory=list)
    jobs: list[Job] = Field(default_factory=list)
    artifacts: list[Artifact] = Field(default_factory=list)
    check_runs: list[CheckRun] = Field(default_factory=list)
    releases: list[Release] = Field(default_factory=list)
    projects: list[Project] = Field(default_factory=list)
    clock: str = "2026-03-01T12:00:00Z"
    """The time of the latest mutation; :meth:`tick` advances it."""
    last_id: int = 4_000_000_000
    """The latest database id handed out; :meth:`next_id` increments it."""

    def tick(self) -> str:
        """Advance the clock by one second and return the new time (ISO 8601, UTC)."""
        then = datetime.strptime(self.clock, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        self.clock = (then + timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return self.clock

    def next_id(self) -> int:
        """A fresh database id (for comments, reviews, runs, jobs, releases...)."""
        self.last_id += 1
        return self.last_id

    def next_issue_number(self) -> int:
        """Issues and pull requests share one number sequence, as on GitHub."""
        used = [i.number for i in self.issues] + [p.number for p in self.pull_requests]
        return max(used, default=0) + 1

    def node(self, prefix: str, *key: object) -> str:
        """A node id for a new object of this world's repository."""
        return node_id(prefix, self.repository.full_name, *key)

    def issue(self, number: int) -> Issue | None:
        return next((i for i in self.issues if i.number == number), None)

    def issue_by_node_id(self, node: str) -> Issue | None:
        return next((i for i in self.issues if i.node_id == node), None)

    def pull_request(self, number: int) -> PullRequest | None:
        return next((p for p in self.pull_requests if p.number == number), None)

    def pull_request_by_node_id(self, node: str) -> PullRequest | None:
        return next((p for p in self.pull_requests if p.node_id == node), None)

    def review_thread(self, node: str) -> tuple[PullRequest, ReviewThread] | None:
        for pull in self.pull_requests:
            for thread in pull.review_threads:
                if thread.node_id == node:
                    return pull, thread
        return None

    def sub_issues(self, number: int) -> list[Issue]:
        return [i for i in self.issues if i.parent == number]

    def linked_pull_requests(self, issue_number: int) -> list[PullRequest]:
        return [p for p in self.pull_requests if issue_number in p.closing_issues]

    def label(self, name: str) -> Label | None:
        folded = name.casefold()
        return next((lab for lab in self.labels if lab.name.casefold() == folded), None)

    def milestone(self, number: int) -> Milestone | None:
        return next((m for m in self.milestones if m.number == number), None)

    def workflow(self, key: int | str) -> Workflow | None:
        """By id, file name (``ci.yml``), path or name, as ``gh workflow view`` accepts."""
        for flow in self.workflows:
            if key in (flow.id, flow.name, flow.path) or str(key) == flow.path.rsplit("/", 1)[-1]:
                return flow
        return None

    def workflow_run(self, run_id: int) -> WorkflowRun | None:
        return next((r for r in self.workflow_runs if r.id == run_id), None)

    def job(self, job_id: int) -> Job | None:
        return next((j for j in self.jobs if j.id == job_id), None)

    def check_run(self, check_run_id: int) -> CheckRun | None:
        return next((c for c in self.check_runs if c.id == check_run_id), None)

    def release_by_tag(self, tag: str) -> Release | None:
        return next((r for r in self.releases if r.tag_name == tag), None)

    def release(self, release_id: int) -> Release | None:
        return next((r for r in self.releases if r.id == release_id), None)

    def project(self, owner: str, number: int) -> Project | None:
        folded = owner.casefold()
        return next(
            (p for p in self.projects if p.number == number and p.owner.casefold() == folded),
            None,
        )

    def project_by_node_id(self, node: str) -> Project | None:
        return next((p for p in self.projects if p.node_id == node), None)
