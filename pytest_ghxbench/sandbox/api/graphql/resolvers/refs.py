"""GraphQL types for refs (branches and tags), comparisons and branch protection, and the
repository's fields about its code: ``object``, ``ref``, ``refs``, ``defaultBranchRef``,
``languages``, its size, emptiness and the community files on its default branch.

A ``Ref`` is its full name (``refs/heads/main``); one that no longer exists resolves to null.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_ghxbench.sandbox.api.graphql.resolvers import lists
from pytest_ghxbench.sandbox.api.graphql.resolvers.code import commit_info, git_object
from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import Typed, connection, obj
from pytest_ghxbench.sandbox.git.community import (
    IssueTemplate,
    chooser_config,
    community_file,
    issue_templates,
    pull_request_templates,
)
from pytest_ghxbench.sandbox.git.diff import compare
from pytest_ghxbench.sandbox.git.languages import language_named, language_sizes
from pytest_ghxbench.sandbox.git.lookup import find_object
from pytest_ghxbench.sandbox.state import PullRequest, World

__all__ = ["find_ref_node", "ref_id", "ref_parts"]

A = dict[str, Any]
C = Context

# ---------------------------------------------------------------- refs


def ref_parts(full: str) -> tuple[str, str]:
    """``(prefix, name)`` of a full ref name: ``("refs/heads/", "fix/compaction-lock")``."""
    for prefix in ("refs/heads/", "refs/tags/"):
        if full.startswith(prefix):
            return prefix, full.removeprefix(prefix)
    head, _, name = full.rpartition("/")
    return f"{head}/", name


def ref_id(world: World, full: str) -> str:
    """A ref's node id (the one the REST API's ``git-ref`` gives it)."""
    return world.node("REF", full.removeprefix("refs/"))


def find_ref_node(world: World, node: str) -> Typed | None:
    found = next((name for name in world.git.refs() if ref_id(world, name) == node), None)
    return Typed("Ref", found) if found is not None else None


def _target(world: World, full: str) -> Typed | None:
    sha = world.git.ref(full)
    kind = world.git.object_type(sha) if sha else None
    return git_object(kind, sha) if sha and kind else None


def _compare(world: World, full: str, args: A) -> A | None:
    """``Ref.compare(headRef:)``: how far ``headRef`` (a branch, tag or commit) is ahead of
    and behind this ref, by git; null when either names no commit."""
    git = world.git
    base = git.peel(git.ref(full) or "")
    head = git.resolve(str(args["headRef"]).removeprefix("refs/heads/"))
    if base is None or head is None:
        return None
    return {"base": base, "head": head, "found": compare(git, base, head)}


def _ref_pulls(world: World, full: str, args: A) -> list[PullRequest]:
    """``Ref.associatedPullRequests``: the pull requests whose head is this branch."""
    prefix, name = ref_parts(full)
    if prefix != "refs/heads/" or args.get("headRefName") not in (None, name):
        return []
    return lists.repo_pulls(world, {**args, "headRefName": name})


def _protection(world: World, full: str) -> str | None:
    prefix, name = ref_parts(full)
    protected = prefix == "refs/heads/" and name in world.repository.protected_branches
    return name if protected else None


obj(
    "Comparison",
    id=("ID", lambda d, a, c: c.world.node("CMP", d["base"], d["head"])),
    aheadBy=("Int", lambda d, a, c: len(d["found"].ahead)),
    behindBy=("Int", lambda d, a, c: d["found"].behind),
    status=("ComparisonStatus", lambda d, a, c: d["found"].status.upper()),
    baseTarget=("GitObject", lambda d, a, c: git_object("commit", d["base"])),
    headTarget=("GitObject", lambda d, a, c: git_object("commit", d["head"])),
    commits=connection(
        "Commit",
        lambda d, a, c: [x.sha for x in d["found"].ahead],
        name="ComparisonCommitConnection",
    ),
)
obj(
    "ComparisonCommitConnection",
    authorCount=(
        "Int",
        lambda page, a, c: len({commit_info(c.world, x).author.email for x in page.items}),
    ),
)
obj(
    "Ref",
    id=("ID", lambda r, a, c: ref_id(c.world, r)),
    name=("String", lambda r, a, c: ref_parts(r)[1]),
    prefix=("String", lambda r, a, c: ref_parts(r)[0]),
    target=("GitObject", lambda r, a, c: _target(c.world, r)),
    repository=("Repository", lambda r, a, c: c.world),
    compare=("Comparison", lambda r, a, c: _compare(c.world, r, a)),
    associatedPullRequests=connection("PullRequest", lambda r, a, c: _ref_pulls(c.world, r, a)),
    branchProtectionRule=("BranchProtectionRule", lambda r, a, c: _protection(c.world, r)),
)


def _rule_fields() -> dict[str, tuple[str, Any]]:
    """A protected branch's rule: it requires an approving review and passing checks (what the
    sandbox's merges enforce), and nothing else."""
    fixed = {
        "requiresApprovingReviews": True,
        "requiresStatusChecks": True,
        "requiresStrictStatusChecks": False,
        "requiresCodeOwnerReviews": False,
        "requiresConversationResolution": False,
        "requiresLinearHistory": False,
        "requiresCommitSignatures": False,
        "dismissesStaleReviews": False,
        "isAdminEnforced": False,
        "allowsForcePushes": False,
        "allowsDeletions": False,
        "restrictsPushes": False,
        "lockBranch": False,
    }
    fields: dict[str, tuple[str, Any]] = {
        key: ("Boolean", (lambda v: lambda n, a, c: v)(value)) for key, value in fixed.items()
    }
    fields["id"] = ("ID", lambda n, a, c: c.world.node("BPR", n))
    fields["pattern"] = ("String", lambda n, a, c: n)
    fields["requiredApprovingReviewCount"] = ("Int", lambda n, a, c: 1)
    return fields


obj("BranchProtectionRule", **_rule_fields())


# ---------------------------------------------------------------- the repository's code


def _object(world: World, args: A) -> Typed | None:
    """``Repository.object(expression:|oid:)``: what a ``git rev-parse`` expression names
    (``main:README.md``, ``HEAD:src``, ``v0.3.2``, a sha); null when nothing."""
    expression = str(args.get("oid") or args.get("expression") or "")
    found = find_object(world.git, expression)
    if found is None:
        return None
    kind, sha = found
    path = expression.partition(":")[2].strip("/") if ":" in expression else ""
    return git_object(kind, sha, path)


def _ref(world: World, name: str) -> str | None:
    """``Repository.ref(qualifiedName:)``: a full name first, then a branch, then a tag."""
    refs = world.git.refs()
    for full in (name, f"refs/heads/{name}", f"refs/tags/{name}"):
        if full in refs and full.startswith("refs/"):
            return full
    return None


def _refs(world: World, args: A) -> list[str]:
    """``Repository.refs(refPrefix:)``: names under the prefix, ``query`` in the name,
    alphabetically or by the date of the commit they point at."""
    prefix = str(args["refPrefix"])
    query = str(args.get("query") or "").casefold()
    git = world.git
    found = [
        full
        for full in git.refs()
        if full.startswith(prefix) and query in ref_parts(full)[1].casefold()
    ]
    order = args.get("orderBy") or {}
    direction = order.get("direction") or args.get("direction") or "ASC"
    if order.get("field") == "TAG_COMMIT_DATE":

        def date(full: str) -> str:
            commit = git.commit(git.peel(git.ref(full) or "") or "")
            return commit.committer.date if commit else ""

        found.sort(key=lambda full: (date(full), full))
    else:
        found.sort()
    return found[::-1] if direction == "DESC" else found


def _default_branch(world: World) -> str | None:
    full = f"refs/heads/{world.repository.default_branch}"
    return full if world.git.ref(full) is not None else None


def _languages(world: World, args: A) -> list[tuple[str, int]]:
    tip = world.git.ref(f"refs/heads/{world.repository.default_branch}")
    sizes = list(language_sizes(world.git, tip).items()) if tip else []
    order = args.get("orderBy") or {}
    if order.get("direction") == "ASC":
        sizes.reverse()
    return sizes


def _default_tip(world: World) -> str | None:
    return world.git.ref(f"refs/heads/{world.repository.default_branch}")


def _disk_usage(world: World) -> int:
    """Kilobytes of the repository's objects on disk (its own and those it borrows)."""
    total = 0
    for directory in world.git.object_dirs():
        total += sum(f.stat().st_size for f in Path(directory).rglob("*") if f.is_file())
    return total // 1024


def _templates(world: World) -> list[tuple[str, str]]:
    tip = _default_tip(world)
    return pull_request_templates(world.git, tip) if tip else []


def _issue_templates(world: World) -> list[IssueTemplate]:
    tip = _default_tip(world)
    return issue_templates(world.git, tip) if tip else []


def _chooser(world: World) -> dict[str, Any]:
    tip = _default_tip(world)
    return chooser_config(world.git, tip) if tip else {}


def _contact_links(world: World) -> list[A]:
    links = _chooser(world).get("contact_links")
    return [x for x in links if isinstance(x, dict)] if isinstance(links, list) else []


def _security_policy(world: World) -> str | None:
    tip = _default_tip(world)
    path = community_file(world.git, tip, "security.md") if tip else None
    return f"{world.repository.url}/security/policy" if path else None


_LANGUAGES, _language_page = connection("Language", lambda w, a, c: _languages(w, a))
# The items are (name, bytes) pairs; the edges carry the bytes.
obj(
    "LanguageEdge",
    node=("Language", lambda pair, a, c: pair[1][0]),
    size=("Int", lambda pair, a, c: pair[1][1]),
)
obj(
    "LanguageConnection",
    nodes=("[Language]", lambda page, a, c: [name for name, _ in page.items]),
    totalSize=("Int", lambda page, a, c: sum(size for _, size in _languages(c.world, {}))),
)
obj(
    "Language",
    id=("ID", lambda n, a, c: c.world.node("LANG", n)),
    name=("String", lambda n, a, c: n),
    color=("String", lambda n, a, c: (lang := language_named(n)) and lang.color),
)
obj(
    "PullRequestTemplate",
    filename=("String", lambda t, a, c: t[0]),
    body=("String", lambda t, a, c: t[1]),
    repository=("Repository", lambda t, a, c: c.world),
)
obj(
    "IssueTemplate",
    filename=("String", lambda t, a, c: t.filename),
    name=("String", lambda t, a, c: t.name),
    about=("String", lambda t, a, c: t.about),
    title=("String", lambda t, a, c: t.title),
    body=("String", lambda t, a, c: t.body),
    labels=connection(
        "Label", lambda t, a, c: [x for x in (c.world.label(n) for n in t.labels) if x]
    ),
    assignees=connection("User", lambda t, a, c: list(t.assignees)),
)
obj(
    "RepositoryContactLink",
    name=("String", lambda d, a, c: str(d.get("name") or "")),
    url=("URI", lambda d, a, c: str(d.get("url") or "")),
    about=("String", lambda d, a, c: str(d.get("about") or "")),
)
obj(
    "Repository",
    object=("GitObject", lambda w, a, c: _object(w, a)),
    ref=("Ref", lambda w, a, c: _ref(w, str(a["qualifiedName"]))),
    refs=connection("Ref", lambda w, a, c: _refs(w, a)),
    defaultBranchRef=("Ref", lambda w, a, c: _default_branch(w)),
    languages=(_LANGUAGES, _language_page),
    isEmpty=("Boolean", lambda w, a, c: not w.git.branches()),
    diskUsage=("Int", lambda w, a, c: _disk_usage(w)),
    pullRequestTemplates=("[PullRequestTemplate]", lambda w, a, c: _templates(w)),
    issueTemplates=("[IssueTemplate]", lambda w, a, c: _issue_templates(w)),
    contactLinks=("[RepositoryContactLink]", lambda w, a, c: _contact_links(w)),
    isBlankIssuesEnabled=(
        "Boolean",
        lambda w, a, c: _chooser(w).get("blank_issues_enabled") is not False,
    ),
    securityPolicyUrl=("URI", lambda w, a, c: _security_policy(w)),
    isSecurityPolicyEnabled=("Boolean", lambda w, a, c: _security_policy(w) is not None),
    branchProtectionRules=connection(
        "BranchProtectionRule", lambda w, a, c: list(w.repository.protected_branches)
    ),
)
