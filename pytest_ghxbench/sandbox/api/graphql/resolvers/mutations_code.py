"""GraphQL mutations on code: opening a pull request (``createPullRequest``), creating, moving
and deleting refs, and committing files to a branch (``createCommitOnBranch``). They write the
world's git repository, then bring pull requests in step with the refs, as a push does; their
errors are GitHub's."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import GraphQLError
from pytest_ghxbench.sandbox.api.graphql.resolvers.mutations import done, input_of, need, register
from pytest_ghxbench.sandbox.api.graphql.resolvers.refs import find_ref_node
from pytest_ghxbench.sandbox.code import branch_sha, github_committer, person, refs_changed
from pytest_ghxbench.sandbox.errors import Refused
from pytest_ghxbench.sandbox.operations.prs import open_pull
from pytest_ghxbench.sandbox.state import World

__all__: list[str] = []

A = dict[str, Any]
C = Context
_ZERO = "0" * 40


def _repository(ctx: C, node: Any) -> World:
    world = ctx.world
    if node != world.repository.node_id:
        raise GraphQLError(
            f"Could not resolve to a node with the global id of '{node}'", type="NOT_FOUND"
        )
    return world


def _unprocessable(message: str) -> GraphQLError:
    return GraphQLError(message, type="UNPROCESSABLE")


# ---------------------------------------------------------------- pull requests


def _branch_problems(world: World, base: str, head: str, head_ref: str) -> list[str]:
    """GitHub's complaints about a pull request between branches that may not exist."""
    has_head, has_base = branch_sha(world, head) is not None, branch_sha(world, base) is not None
    if has_head and has_base:
        return []
    problems = ["Head sha can't be blank"] if not has_head else []
    problems += ["Base sha can't be blank", f"No commits between {base} and {head_ref}"]
    problems += ["Head ref must be a branch"] if not has_head else []
    return problems + (["Base ref must be a branch"] if not has_base else [])


def _create_pull(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    world = _repository(ctx, need(data, "repositoryId"))
    if data.get("headRepositoryId") not in (None, world.repository.node_id):
        _repository(ctx, data["headRepositoryId"])
    head_ref, base = str(need(data, "headRefName")), str(need(data, "baseRefName"))
    data.get("maintainerCanModify")  # no effect without forks: a same-repository head
    owner, _, branch = head_ref.rpartition(":")
    head = branch if owner.casefold() == world.repository.owner.casefold() else head_ref
    problems = _branch_problems(world, base, head, head_ref)
    if problems:
        raise _unprocessable(", ".join(problems))
    if not str(data.get("title") or "").strip():
        raise _unprocessable("Title can't be blank")
    ctx.mutated = True
    try:
        pull = open_pull(
            world,
            head=head,
            base=base,
            title=str(data["title"]),
            body=str(data.get("body") or ""),
            draft=bool(data.get("draft")),
        )
    except Refused as error:
        raise _unprocessable(error.detail) from None
    return done(data, pullRequest=pull)


# ---------------------------------------------------------------- refs


def _valid_ref_name(name: str) -> bool:
    parts = name.split("/")
    bad = ("..", "~", "^", ":", "?", "*", "[", "\\", " ", "@{")
    return (
        name.startswith("refs/")
        and len(parts) >= 3
        and all(parts)
        and not any(b in name for b in bad)
        and not name.endswith((".lock", "."))
    )


def _create_ref(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    world = _repository(ctx, need(data, "repositoryId"))
    name, oid = str(need(data, "name")), str(need(data, "oid"))
    git = world.git
    if not _valid_ref_name(name):
        raise _unprocessable(f"{name!r} is not a valid ref name.")
    if git.ref(name) is not None:
        raise _unprocessable(f'A ref named "{name}" already exists in the repository.')
    if git.object_type(oid) is None:
        raise GraphQLError(
            f"Could not resolve to a commit with the oid of '{oid}'.", type="NOT_FOUND"
        )
    ctx.mutated = True
    git.set_ref(name, oid)
    world.tick()
    refs_changed(world)
    return done(data, ref=name)


def _ref_of(ctx: C, node: Any) -> str:
    found = find_ref_node(ctx.world, str(node))
    if found is None:
        raise GraphQLError(
            f"Could not resolve to a node with the global id of '{node}'", type="NOT_FOUND"
        )
    name: str = found.value
    return name


def _update_ref(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    name = _ref_of(ctx, need(data, "refId"))
    oid = str(need(data, "oid"))
    world = ctx.world
    git = world.git
    if git.object_type(oid) is None:
        raise GraphQLError(
            f"Could not resolve to a commit with the oid of '{oid}'.", type="NOT_FOUND"
        )
    current = git.ref(name) or _ZERO
    moves_branch = name.startswith("refs/heads/") and git.commit(oid) is not None
    if moves_branch and not data.get("force") and not git.is_ancestor(current, oid):
        raise _unprocessable("Update is not a fast forward")
    ctx.mutated = True
    git.set_ref(name, oid)
    world.tick()
    refs_changed(world)
    return done(data, ref=name)


def _delete_ref(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    name = _ref_of(ctx, need(data, "refId"))
    world = ctx.world
    if name == f"refs/heads/{world.repository.default_branch}":
        raise _unprocessable("Cannot delete the default branch")
    ctx.mutated = True
    world.git.delete_ref(name)
    world.tick()
    tag = name.removeprefix("refs/tags/")
    if tag != name:  # a published release whose tag is gone is a draft again, as on GitHub
        for release in world.releases:
            if release.tag_name == tag and not release.draft:
                release.draft, release.published_at = True, None
    refs_changed(world)
    return done(data)


# ---------------------------------------------------------------- commits


def _committable_branch(ctx: C, branch: Any) -> str:
    """The full ref a ``CommittableBranch`` (a ref's id, or a repository and branch name)
    names; it must exist."""
    if not isinstance(branch, dict):
        raise GraphQLError("Argument 'branch' on InputObject is required.")
    if branch.get("id"):
        return _ref_of(ctx, branch["id"])
    world = ctx.world
    repo = str(branch.get("repositoryNameWithOwner") or "")
    if repo.casefold() != world.repository.full_name.casefold():
        raise GraphQLError(
            f"Could not resolve to a Repository with the name '{repo}'.", type="NOT_FOUND"
        )
    name = f"refs/heads/{branch.get('branchName') or ''}"
    if world.git.ref(name) is None:
        raise GraphQLError(f"Could not resolve to a Ref with the name '{name}'.", type="NOT_FOUND")
    return name


def _file_changes(world: World, tip: str, changes: Any) -> dict[str, bytes | None]:
    changes = changes or {}
    written: dict[str, bytes | None] = {}
    for deletion in changes.get("deletions") or []:
        path = str(deletion["path"]).strip("/")
        if world.git.read(tip, path) is None:
            raise _unprocessable(
                f"A path was requested for deletion which does not exist as of commit oid `{tip}`"
            )
        written[path] = None
    for addition in changes.get("additions") or []:
        try:
            data = base64.b64decode(str(addition["contents"]), validate=True)
        except (binascii.Error, ValueError):
            raise _unprocessable(f"The contents of {addition['path']} are not Base64.") from None
        written[str(addition["path"]).strip("/")] = data
    return written


def _commit_on_branch(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    world = ctx.world
    git = world.git
    name = _committable_branch(ctx, data.get("branch"))
    expected = str(need(data, "expectedHeadOid"))
    tip = git.ref(name) or _ZERO
    if tip != expected:
        raise GraphQLError(
            f'Expected branch to point to "{expected}" but it did not.  Pull and try again.',
            type="STALE_DATA",
        )
    message = data.get("message") or {}
    headline = str(message.get("headline") or "").strip()
    if not headline:
        raise _unprocessable("A commit message headline is required.")
    body = str(message.get("body") or "").strip()
    changes = _file_changes(world, tip, data.get("fileChanges"))
    ctx.mutated = True
    now = world.tick()
    tree = git.write_tree(tip, changes)
    text = f"{headline}\n\n{body}" if body else headline
    sha = git.write_commit(
        tree, [tip], text, person(world, world.viewer, now), github_committer(now)
    )
    git.set_ref(name, sha)
    refs_changed(world)
    return done(data, commit=sha, ref=name)


register("createPullRequest", _create_pull, pullRequest="PullRequest")
register("createRef", _create_ref, ref="Ref")
register("updateRef", _update_ref, ref="Ref")
register("deleteRef", _delete_ref)
register("createCommitOnBranch", _commit_on_branch, commit="Commit", ref="Ref")
