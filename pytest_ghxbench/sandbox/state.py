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

This module holds :class:`World`; the models it is made of live by concept in sibling modules
(``state_repo``, ``state_issues``, ``state_actions``, ``state_projects``, on the base in
``state_base``) and are importable from here too, as are the ``Literal`` aliases of their fields.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone

from pydantic import Field, PrivateAttr

from pytest_ghxbench.sandbox.git import GitRepo
from pytest_ghxbench.sandbox.state_actions import (
    Annotation,
    Artifact,
    CheckRun,
    Job,
    Step,
    Workflow,
    WorkflowRun,
)
from pytest_ghxbench.sandbox.state_actions import Conclusion as Conclusion
from pytest_ghxbench.sandbox.state_actions import RunStatus as RunStatus
from pytest_ghxbench.sandbox.state_base import StateModel, node_id
from pytest_ghxbench.sandbox.state_gists import Gist, GistFile
from pytest_ghxbench.sandbox.state_issues import (
    Comment,
    Issue,
    PullRequest,
    Review,
    ReviewComment,
    ReviewThread,
)
from pytest_ghxbench.sandbox.state_issues import IssueState as IssueState
from pytest_ghxbench.sandbox.state_issues import Mergeable as Mergeable
from pytest_ghxbench.sandbox.state_issues import MergeStateStatus as MergeStateStatus
from pytest_ghxbench.sandbox.state_issues import PullState as PullState
from pytest_ghxbench.sandbox.state_issues import ReviewState as ReviewState
from pytest_ghxbench.sandbox.state_issues import StateReason as StateReason
from pytest_ghxbench.sandbox.state_projects import (
    Project,
    ProjectField,
    ProjectItem,
    ProjectOption,
)
from pytest_ghxbench.sandbox.state_repo import (
    IssueType,
    Label,
    Milestone,
    Release,
    ReleaseAsset,
    Repository,
    Subscription,
    User,
)

__all__ = [
    "Annotation",
    "Artifact",
    "CheckRun",
    "Comment",
    "Gist",
    "GistFile",
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
    "Release",
    "ReleaseAsset",
    "Repository",
    "Review",
    "ReviewComment",
    "ReviewThread",
    "Step",
    "Subscription",
    "User",
    "Workflow",
    "WorkflowRun",
    "World",
    "node_id",
]


class World(StateModel):
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
    gists: list[Gist] = Field(default_factory=list)
    """The viewer's gists."""
    clock: str = "2026-03-01T12:00:00Z"
    """The time of the latest mutation; :meth:`tick` advances it."""
    last_id: int = 4_000_000_000
    """The latest database id handed out; :meth:`next_id` increments it."""
    _git: GitRepo | None = PrivateAttr(default=None)
    _wall: Callable[[], float] | None = PrivateAttr(default=None)
    _wall_mark: float = PrivateAttr(default=0.0)

    @property
    def git(self) -> GitRepo:
        """The repository's git repository: its commits, branches and tags. A world made
        without one (not from a seed or a state file) gets an empty repository."""
        if self._git is None:
            self._git = GitRepo.empty(self.repository.default_branch)
        return self._git

    def attach_git(self, repo: GitRepo) -> None:
        self._git = repo

    def tick(self, seconds: int = 1) -> str:
        """Advance the clock by ``seconds`` (one by default) and return the new time (ISO 8601,
        UTC)."""
        then = datetime.strptime(self.clock, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        self.clock = (then + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return self.clock

    def use_wall_clock(self, wall: Callable[[], float] | None) -> None:
        """Measure time in the world with ``wall`` too (seconds, e.g. ``time.monotonic``; tests
        pass a fake one), from now on; ``None``: time moves only with mutations."""
        self._wall = wall
        self._wall_mark = wall() if wall is not None else 0.0

    @property
    def has_wall_clock(self) -> bool:
        return self._wall is not None

    def wall_seconds(self) -> int:
        """Whole seconds of wall-clock time since the previous call (or since the wall clock was
        set); 0 without a wall clock. The fraction left over counts towards the next call."""
        if self._wall is None:
            return 0
        whole = int(self._wall() - self._wall_mark)
        if whole > 0:
            self._wall_mark += whole
        return max(whole, 0)

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

    def add_comment(self, item: Issue | PullRequest, body: str) -> Comment:
        """A new comment by the viewer at the end of ``item``'s conversation."""
        comment_id = self.next_id()
        comment = Comment(
            id=comment_id,
            node_id=self.node("IC", comment_id),
            author=self.viewer,
            body=body,
            created_at=self.tick(),
        )
        item.comments.append(comment)
        item.updated_at = comment.created_at
        return comment

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
