"""The seed file: the sandbox world and which of its objects the fixture manifest names.

A seed file (YAML, e.g. ``scenarios/fixtures/sandbox-seed.yaml``) has two top-level keys:
``world`` (a :class:`~pytest_ghxbench.sandbox.state.World`) and ``resources`` (a
:class:`SeedResources`: "the" issue, pull request, thread... that scenarios bind to). Node ids
left out of the seed are filled in deterministically.

The seed is parsed once per process (:func:`seeded`); every item then gets a private copy
(:func:`fresh_world`), built by validating a plain-data snapshot taken once. pydantic-core does
that faster than unpickling or ``copy.deepcopy`` and always builds new containers, so no list
or dict is shared between copies (numbers in ``docs/sandbox.md``).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError, model_validator

from pytest_ghxbench.backends import ManifestError
from pytest_ghxbench.sandbox.git import GitRepo
from pytest_ghxbench.sandbox.git.seed import CodeSeed
from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.scenario.bounded_yaml import (
    YAMLRefused,
    check_yaml_bounds,
    construct_bounded_int,
)
from pytest_ghxbench.suite import default_seed

__all__ = [
    "DEFAULT_SEED",
    "ProjectRef",
    "SeedError",
    "SeedFile",
    "SeedResources",
    "build_manifest",
    "fresh_world",
    "load_seed",
    "seeded",
]

DEFAULT_SEED = default_seed()
"""The seed shipped with the project: ``fixtures/sandbox-seed.yaml`` of the shipped suite (the
wheel's package data, or ``scenarios/`` of a checkout; see :mod:`pytest_ghxbench.suite`)."""


class _SeedLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """libyaml's loader when PyYAML was built with it (parsing the seed is most of a first
    load), with huge integers refused; aliases and depth are checked before it runs."""


_SeedLoader.add_constructor("tag:yaml.org,2002:int", construct_bounded_int)


class SeedError(ManifestError):
    """The seed file cannot be read, is not valid, or names objects it does not define."""


class ProjectRef(BaseModel):
    """The project board scenarios use, and the item, field and option they touch."""

    model_config = ConfigDict(extra="forbid")
    owner: str
    number: int
    item: str
    """Id of a project item (``PVTI_...``)."""
    field: str
    """Name of a single-select field of the project."""
    option: str
    """Name of one of that field's options."""


class SeedResources(BaseModel):
    """Which seeded objects are "the" issue, pull request, thread... of the fixture manifest."""

    model_config = ConfigDict(extra="forbid")
    issue: int
    blocker_issue: int
    parent_issue: int
    pr: int
    pr_with_reviews: int
    pr_thread: str
    """Node id of a review thread (``PRRT_...``)."""
    workflow_run: int
    workflow_job: int
    check_run: int
    release: str
    """Tag name of a release."""
    project: ProjectRef


class SeedFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    world: World
    resources: SeedResources
    code: CodeSeed | None = None
    """The repository's history (:mod:`pytest_ghxbench.sandbox.git.seed`)."""
    _commits: dict[str, str] = PrivateAttr(default_factory=dict)

    @property
    def commits(self) -> dict[str, str]:
        """Each commit label of ``code`` -> its sha."""
        return dict(self._commits)

    @model_validator(mode="after")
    def _references_exist(self) -> SeedFile:
        problems = _dangling_references(self.world, self.resources)
        if problems:
            raise ValueError("; ".join(problems))
        return self


def _dangling_references(world: World, res: SeedResources) -> list[str]:
    problems: list[str] = []

    def need(found: object, what: str) -> None:
        if found is None:
            problems.append(f"{what} is not defined in world")

    for name in ("issue", "blocker_issue", "parent_issue"):
        need(world.issue(getattr(res, name)), f"resources.{name}: issue #{getattr(res, name)}")
    for name in ("pr", "pr_with_reviews"):
        need(world.pull_request(getattr(res, name)), f"resources.{name}: PR #{getattr(res, name)}")
    need(world.review_thread(res.pr_thread), f"resources.pr_thread: thread {res.pr_thread}")
    need(world.workflow_run(res.workflow_run), f"resources.workflow_run: run {res.workflow_run}")
    need(world.job(res.workflow_job), f"resources.workflow_job: job {res.workflow_job}")
    need(world.check_run(res.check_run), f"resources.check_run: check run {res.check_run}")
    need(world.release_by_tag(res.release), f"resources.release: tag {res.release}")
    ref = res.project
    project = world.project(ref.owner, ref.number)
    need(project, f"resources.project: project {ref.owner}#{ref.number}")
    if project is not None:
        need(
            next((i for i in project.items if i.id == ref.item), None),
            f"resources.project.item: item {ref.item}",
        )
        field = next((f for f in project.fields if f.name == ref.field), None)
        need(field, f"resources.project.field: field {ref.field!r}")
        if field is not None:
            need(
                next((o for o in field.options if o.name == ref.option), None),
                f"resources.project.option: option {ref.option!r} of field {ref.field!r}",
            )
    return problems


def _assign_node_ids(world: World) -> None:
    """Fill in every node id the seed left out, from the object's natural key."""
    repo = world.repository
    repo.node_id = repo.node_id or world.node("R")
    for label in world.labels:
        label.node_id = label.node_id or world.node("LA", label.name)
    for milestone in world.milestones:
        milestone.node_id = milestone.node_id or world.node("MI", milestone.number)
    for kind in world.issue_types:
        kind.node_id = kind.node_id or world.node("IT", kind.name)
    for issue in world.issues:
        issue.node_id = issue.node_id or world.node("I", issue.number)
        for comment in issue.comments:
            comment.node_id = comment.node_id or world.node("IC", comment.id)
    for pull in world.pull_requests:
        pull.node_id = pull.node_id or world.node("PR", pull.number)
        for comment in pull.comments:
            comment.node_id = comment.node_id or world.node("IC", comment.id)
        for review in pull.reviews:
            review.node_id = review.node_id or world.node("PRR", review.id)
        for thread in pull.review_threads:
            for note in thread.comments:
                note.node_id = note.node_id or world.node("PRRC", note.id)
    for flow in world.workflows:
        flow.node_id = flow.node_id or world.node("W", flow.id)
    for run in world.workflow_runs:
        run.node_id = run.node_id or world.node("WFR", run.id)
    for job in world.jobs:
        job.node_id = job.node_id or world.node("CR", job.id)
    for artifact in world.artifacts:
        artifact.node_id = artifact.node_id or world.node("MDg", artifact.id)
    for check in world.check_runs:
        check.node_id = check.node_id or world.node("CR", check.id)
    for release in world.releases:
        release.node_id = release.node_id or world.node("RE", release.id)
    for project in world.projects:
        project.node_id = project.node_id or world.node("PVT", project.owner, project.number)


def _where(mark: yaml.Mark | None) -> str:
    return f"{mark.line + 1}:{mark.column + 1}:" if mark is not None else ""


def load_seed(path: Path) -> SeedFile:
    """Parse and validate a seed file; errors name the file and the field path."""
    try:
        text = path.read_text(encoding="utf-8")
        check_yaml_bounds(text, _SeedLoader, "sandbox seeds")
        raw = yaml.load(text, Loader=_SeedLoader)
    except (OSError, UnicodeDecodeError) as exc:
        raise SeedError(f"{path}: cannot read sandbox seed: {exc}") from exc
    except YAMLRefused as exc:
        raise SeedError(f"{path}:{_where(exc.problem_mark)} {exc.problem}") from None
    except yaml.MarkedYAMLError as exc:
        problem = exc.problem or exc.context or "not YAML"
        mark = exc.problem_mark or exc.context_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise SeedError(f"{path}: invalid YAML: {problem}{where}") from None
    except yaml.YAMLError as exc:
        raise SeedError(f"{path}: invalid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise SeedError(f"{path}: a sandbox seed must be a mapping with 'world' and 'resources'")
    return _seed_with_code(path, raw)[0]


def _invalid(path: Path, exc: ValidationError, prefix: str = "") -> SeedError:
    lines = []
    for error in exc.errors():
        parts = ([prefix] if prefix else []) + [str(part) for part in error["loc"]]
        lines.append(f"  {'.'.join(parts) or '(top level)'}: {error['msg']}")
    return SeedError(f"{path}: invalid sandbox seed:\n" + "\n".join(lines))


def _seed_with_code(path: Path, raw: dict[str, Any]) -> tuple[SeedFile, GitRepo]:
    """Validate the seed, build its repository and resolve the world's commit labels."""
    from pytest_ghxbench.sandbox.git import GitError
    from pytest_ghxbench.sandbox.history_seed import seed_history
    from pytest_ghxbench.sandbox.seed_code import (
        build_code,
        resolve_labels,
        settle,
        unknown_commits,
    )

    try:
        code = CodeSeed.model_validate(raw["code"]) if raw.get("code") is not None else None
    except ValidationError as exc:
        raise _invalid(path, exc, "code") from None
    world_data = raw.get("world")
    try:
        repo, shas = build_code(code, world_data if isinstance(world_data, dict) else {})
    except GitError as exc:
        raise SeedError(f"{path}: cannot build the seed's repository: {exc}") from None
    problems = resolve_labels(world_data, shas) if isinstance(world_data, dict) else []
    if problems:
        raise SeedError(f"{path}: invalid sandbox seed:\n" + "\n".join(f"  {p}" for p in problems))
    try:
        seed = SeedFile.model_validate(raw)
    except ValidationError as exc:
        raise _invalid(path, exc) from None
    seed.world.attach_git(repo)
    seed._commits = shas
    problems = unknown_commits(seed.world)
    if problems:
        raise SeedError(f"{path}: invalid sandbox seed:\n" + "\n".join(f"  {p}" for p in problems))
    settle(seed.world)
    _assign_node_ids(seed.world)
    seed_history(seed.world)
    return seed, repo


class _Seeded:
    """A parsed seed with its manifest, a plain-data snapshot of its world and its repository
    (which every fresh world forks)."""

    def __init__(self, seed: SeedFile) -> None:
        self.seed = seed
        self.repo = seed.world.git
        self.repo.freeze()
        self.manifest = build_manifest(seed.world, seed.resources)
        self.snapshot = seed.world.model_dump()
        # frozen, so shared by every copy as they are (pydantic takes an instance unvalidated)
        self.snapshot["events"] = list(seed.world.events)

    def fresh_world(self) -> World:
        world = World.model_validate(self.snapshot)
        world.attach_git(GitRepo.fork_of(self.repo))
        return world


@functools.lru_cache(maxsize=8)
def seeded(path: Path = DEFAULT_SEED) -> _Seeded:
    """The seed at ``path``, parsed once per process."""
    return _Seeded(load_seed(path))


def fresh_world(path: Path = DEFAULT_SEED) -> World:
    """A private copy of the seeded world: mutate it freely."""
    return seeded(path).fresh_world()


def build_manifest(world: World, resources: SeedResources) -> dict[str, Any]:
    """The fixture manifest, with the TypeScript harness's resource names (plus extras)."""
    repo = world.repository

    def issue_entry(number: int) -> dict[str, Any]:
        issue = world.issue(number)
        assert issue is not None  # checked when the seed was loaded
        return {"id": issue.node_id, "number": issue.number, "url": f"{repo.url}/issues/{number}"}

    def pr_entry(number: int) -> dict[str, Any]:
        pull = world.pull_request(number)
        assert pull is not None
        return {"id": pull.node_id, "number": pull.number, "url": f"{repo.url}/pull/{number}"}

    ref = resources.project
    project = world.project(ref.owner, ref.number)
    assert project is not None
    field = next(f for f in project.fields if f.name == ref.field)
    option = next(o for o in field.options if o.name == ref.option)
    release = world.release_by_tag(resources.release)
    assert release is not None
    job = world.job(resources.workflow_job)
    assert job is not None
    return {
        "version": 1,
        "repo": {
            "owner": repo.owner,
            "name": repo.name,
            "full_name": repo.full_name,
            "default_branch": repo.default_branch,
        },
        "resources": {
            "issue": issue_entry(resources.issue),
            "blocker_issue": issue_entry(resources.blocker_issue),
            "parent_issue": issue_entry(resources.parent_issue),
            "pr": pr_entry(resources.pr),
            "pr_with_reviews": pr_entry(resources.pr_with_reviews),
            "pr_thread": {"id": resources.pr_thread},
            "workflow_run": {"id": resources.workflow_run},
            "workflow_job": {"id": job.id, "run_id": job.run_id},
            "check_run": {"id": resources.check_run},
            "release": {"id": release.id, "tag_name": release.tag_name},
            "project": {
                "owner": project.owner,
                "number": project.number,
                "id": project.node_id,
                "item_id": ref.item,
                "field_id": field.id,
                "option_id": option.id,
            },
            "metadata": {"seed_id": "sandbox", "generated_at": world.clock, "run_id": "sandbox"},
        },
    }
