"""GraphQL mutations on code: ``createPullRequest``, ``createRef``, ``updateRef``,
``deleteRef`` and ``createCommitOnBranch`` write the world's git repository, pull requests
follow their branches, merges and branch updates write real commits, and failures are
GitHub's errors that change nothing."""

from __future__ import annotations

import base64
import subprocess
from typing import Any

from pytest_ghxbench.sandbox.state import World
from tests.sandbox.api.test_graphql import graphql

REPO = 'repository(owner:"acme-labs",name:"tinykv")'


def git(world: World, *args: str) -> str:
    done = subprocess.run(
        ["git", "--git-dir", str(world.git.path), *args], capture_output=True, check=True
    )
    return done.stdout.decode()


def tip(world: World, branch: str) -> str:
    return git(world, "rev-parse", f"refs/heads/{branch}").strip()


def mutate(world: World, field: str, input: dict[str, Any], selection: str) -> Any:
    """Run mutation ``field`` with ``input``: its payload, or the errors."""
    kind = field[0].upper() + field[1:] + "Input!"
    answer = graphql(
        world, f"mutation($input:{kind}){{{field}(input:$input){{{selection}}}}}", {"input": input}
    )
    return answer["errors"] if "errors" in answer else answer["data"][field]


def refused(world: World, field: str, input: dict[str, Any], selection: str) -> Any:
    """The one error a refused mutation gives; the world is left as it was."""
    before, refs = world.model_dump_json(), world.git.refs()
    errors = mutate(world, field, input, selection)
    assert isinstance(errors, list) and len(errors) == 1, errors
    assert world.model_dump_json() == before and world.git.refs() == refs
    return {k: errors[0][k] for k in ("type", "message") if k in errors[0]}


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def commit_files(world: World, branch: str, files: dict[str, str | bytes], **extra: Any) -> Any:
    payload = {
        "branch": {"repositoryNameWithOwner": "acme-labs/tinykv", "branchName": branch},
        "expectedHeadOid": tip(world, branch),
        "message": {"headline": "Add files"},
        "fileChanges": {"additions": [{"path": p, "contents": b64(t)} for p, t in files.items()]},
        **extra,
    }
    return mutate(
        world,
        "createCommitOnBranch",
        payload,
        "commit{oid message author{user{login}} committer{name email}} ref{name target{oid}}",
    )


def new_branch(world: World, name: str, at: str = "main") -> Any:
    return mutate(
        world,
        "createRef",
        {
            "repositoryId": world.repository.node_id,
            "name": f"refs/heads/{name}",
            "oid": tip(world, at),
        },
        "ref{id name prefix target{oid}}",
    )


# ---------------------------------------------------------------- createCommitOnBranch


def test_commit_on_branch_adds_and_deletes_files(world: World) -> None:
    before = tip(world, "main")
    done = commit_files(
        world,
        "main",
        {"docs/faq.md": "# FAQ\n", "assets/logo.bin": b"\x89PNG\0\1"},
        message={"headline": "Add a FAQ", "body": "And a logo."},
    )
    done_delete = mutate(
        world,
        "createCommitOnBranch",
        {
            "branch": {"repositoryNameWithOwner": "acme-labs/tinykv", "branchName": "main"},
            "expectedHeadOid": tip(world, "main"),
            "message": {"headline": "Drop the licence"},
            "fileChanges": {"deletions": [{"path": "LICENSE"}]},
        },
        "commit{oid parents(first:2){nodes{oid}}}",
    )
    commit = done["commit"]
    assert commit["message"] == "Add a FAQ\n\nAnd a logo."
    assert commit["author"] == {"user": {"login": "bench-bot"}}
    assert commit["committer"] == {"name": "GitHub", "email": "noreply@github.com"}
    assert done["ref"] == {"name": "main", "target": {"oid": commit["oid"]}}
    assert git(world, "rev-parse", f"{commit['oid']}^").strip() == before
    assert git(world, "show", f"{commit['oid']}:docs/faq.md") == "# FAQ\n"
    assert done_delete["commit"]["parents"]["nodes"] == [{"oid": commit["oid"]}]
    assert tip(world, "main") == done_delete["commit"]["oid"]
    assert "LICENSE" not in git(world, "ls-tree", "--name-only", "main").split()
    blob = graphql(
        world,
        "{" + REPO + '{object(expression:"main:assets/logo.bin"){... on Blob{isBinary '
        "text byteSize}}}}",
    )["data"]["repository"]["object"]
    assert blob == {"isBinary": True, "text": None, "byteSize": 6}


def test_commit_on_a_pull_requests_branch_moves_the_pull_request(world: World) -> None:
    done = commit_files(world, "fix/compaction-lock", {"NOTES.md": "more\n"})
    pull = graphql(
        world, "{" + REPO + "{pullRequest(number:7){headRefOid commits(first:10){totalCount}}}}"
    )["data"]["repository"]["pullRequest"]
    assert pull == {"headRefOid": done["commit"]["oid"], "commits": {"totalCount": 4}}


def test_commit_on_branch_by_the_refs_id(world: World) -> None:
    ref_id = new_branch(world, "docs/faq")["ref"]["id"]
    done = mutate(
        world,
        "createCommitOnBranch",
        {
            "branch": {"id": ref_id},
            "expectedHeadOid": tip(world, "docs/faq"),
            "message": {"headline": "Add a FAQ"},
            "fileChanges": {"additions": [{"path": "FAQ.md", "contents": b64("# FAQ\n")}]},
        },
        "ref{name}",
    )
    assert done == {"ref": {"name": "docs/faq"}}


def test_commit_on_branch_refusals(world: World) -> None:
    branch = {"repositoryNameWithOwner": "acme-labs/tinykv", "branchName": "main"}
    stale = "0" * 40
    base = {"branch": branch, "expectedHeadOid": tip(world, "main"), "message": {"headline": "x"}}
    assert refused(
        world, "createCommitOnBranch", {**base, "expectedHeadOid": stale}, "ref{name}"
    ) == {
        "type": "STALE_DATA",
        "message": f'Expected branch to point to "{stale}" but it did not.  Pull and try again.',
    }
    gone = {**base, "fileChanges": {"deletions": [{"path": "nope.txt"}]}}
    assert refused(world, "createCommitOnBranch", gone, "ref{name}") == {
        "type": "UNPROCESSABLE",
        "message": "A path was requested for deletion which does not exist as of commit oid "
        f"`{tip(world, 'main')}`",
    }
    missing = {**base, "branch": {**branch, "branchName": "nope"}}
    assert refused(world, "createCommitOnBranch", missing, "ref{name}")["type"] == "NOT_FOUND"


# ---------------------------------------------------------------- refs


def test_create_update_and_delete_a_branch(world: World) -> None:
    created = new_branch(world, "feat/x")["ref"]
    assert created["name"] == "feat/x" and created["prefix"] == "refs/heads/"
    assert created["target"]["oid"] == tip(world, "main")
    later = commit_files(world, "main", {"x.txt": "x\n"})["commit"]["oid"]
    moved = mutate(world, "updateRef", {"refId": created["id"], "oid": later}, "ref{target{oid}}")
    assert moved == {"ref": {"target": {"oid": later}}} and tip(world, "feat/x") == later
    assert mutate(world, "deleteRef", {"refId": created["id"]}, "clientMutationId") == {
        "clientMutationId": None
    }
    assert "refs/heads/feat/x" not in world.git.refs()


def test_ref_refusals(world: World) -> None:
    repo_id = world.repository.node_id
    name = {"repositoryId": repo_id, "name": "refs/heads/main", "oid": tip(world, "main")}
    assert refused(world, "createRef", name, "ref{name}") == {
        "type": "UNPROCESSABLE",
        "message": 'A ref named "refs/heads/main" already exists in the repository.',
    }
    assert refused(world, "createRef", {**name, "name": "main2"}, "ref{name}")["type"] == (
        "UNPROCESSABLE"
    )
    unknown = {**name, "name": "refs/heads/y", "oid": "1" * 40}
    assert refused(world, "createRef", unknown, "ref{name}")["type"] == "NOT_FOUND"
    elsewhere = {**name, "repositoryId": "R_nope", "name": "refs/heads/y"}
    assert refused(world, "createRef", elsewhere, "ref{name}")["type"] == "NOT_FOUND"
    main_id = graphql(world, "{" + REPO + "{defaultBranchRef{id}}}")["data"]["repository"][
        "defaultBranchRef"
    ]["id"]
    older = git(world, "rev-parse", "main~2").strip()
    backwards = {"refId": main_id, "oid": older}
    assert refused(world, "updateRef", backwards, "ref{name}") == {
        "type": "UNPROCESSABLE",
        "message": "Update is not a fast forward",
    }
    assert refused(world, "deleteRef", {"refId": main_id}, "clientMutationId") == {
        "type": "UNPROCESSABLE",
        "message": "Cannot delete the default branch",
    }
    forced = mutate(world, "updateRef", {**backwards, "force": True}, "ref{target{oid}}")
    assert forced == {"ref": {"target": {"oid": older}}}


def test_deleting_a_pull_requests_branch_closes_it_and_a_tag_drafts_its_release(
    world: World,
) -> None:
    refs = graphql(
        world,
        "{" + REPO + '{b:ref(qualifiedName:"feat/wal-fsync-policy"){id} '
        't:ref(qualifiedName:"v0.3.2"){id}}}',
    )["data"]["repository"]
    mutate(world, "deleteRef", {"refId": refs["b"]["id"]}, "clientMutationId")
    mutate(world, "deleteRef", {"refId": refs["t"]["id"]}, "clientMutationId")
    pull = graphql(world, "{" + REPO + "{pullRequest(number:8){state headRef{name}}}}")
    assert pull["data"]["repository"]["pullRequest"] == {"state": "CLOSED", "headRef": None}
    release = next(r for r in world.releases if r.tag_name == "v0.3.2")
    assert release.draft and release.published_at is None


# ---------------------------------------------------------------- createPullRequest

PULL = (
    "pullRequest{number url state isDraft headRefName baseRefName headRefOid author{login} "
    "closingIssuesReferences(first:5){nodes{number}} commits(first:5){nodes{commit{oid "
    "authors(first:5){nodes{user{login}}}}}} files(first:5){nodes{path additions}}}"
)


def test_create_pull_request_from_a_new_branch_links_the_issue_it_fixes(world: World) -> None:
    new_branch(world, "docs/faq")
    sha = commit_files(world, "docs/faq", {"docs/faq.md": "# FAQ\n"})["commit"]["oid"]
    created = mutate(
        world,
        "createPullRequest",
        {
            "repositoryId": world.repository.node_id,
            "baseRefName": "main",
            "headRefName": "acme-labs:docs/faq",
            "title": "Add a FAQ",
            "body": "Fixes #6",
            "draft": True,
        },
        PULL,
    )["pullRequest"]
    assert created == {
        "number": 10,
        "url": "http://github.localhost/acme-labs/tinykv/pull/10",
        "state": "OPEN",
        "isDraft": True,
        "headRefName": "docs/faq",
        "baseRefName": "main",
        "headRefOid": sha,
        "author": {"login": "bench-bot"},
        "closingIssuesReferences": {"nodes": [{"number": 6}]},
        "commits": {
            "nodes": [
                {"commit": {"oid": sha, "authors": {"nodes": [{"user": {"login": "bench-bot"}}]}}}
            ]
        },
        "files": {"nodes": [{"path": "docs/faq.md", "additions": 1}]},
    }
    assert world.git.ref("refs/pull/10/head") == sha


def _pull_input(world: World, head: str, base: str = "main") -> dict[str, Any]:
    return {
        "repositoryId": world.repository.node_id,
        "baseRefName": base,
        "headRefName": head,
        "title": "T",
    }


def test_create_pull_request_refusals_are_githubs(world: World) -> None:
    def message(head: str, base: str = "main", **extra: Any) -> str:
        found = refused(
            world,
            "createPullRequest",
            {**_pull_input(world, head, base), **extra},
            "pullRequest{number}",
        )
        assert found["type"] == "UNPROCESSABLE"
        return str(found["message"])

    assert message("nope") == (
        "Head sha can't be blank, Base sha can't be blank, No commits between main and nope, "
        "Head ref must be a branch"
    )
    assert message("fix/compaction-lock", "nope") == (
        "Base sha can't be blank, No commits between nope and fix/compaction-lock, "
        "Base ref must be a branch"
    )
    assert message("fix/compaction-lock") == (
        "A pull request already exists for acme-labs:fix/compaction-lock."
    )
    new_branch(world, "empty")
    assert message("empty") == "No commits between main and empty"
    elsewhere = {**_pull_input(world, "empty"), "repositoryId": "R_nope"}
    assert refused(world, "createPullRequest", elsewhere, "pullRequest{number}")["type"] == (
        "NOT_FOUND"
    )


# ---------------------------------------------------------------- merges write commits


def test_merging_writes_a_merge_commit_on_the_base(world: World) -> None:
    pull_id = world.pull_request(7).node_id  # type: ignore[union-attr]
    base_before, head = tip(world, "main"), tip(world, "fix/compaction-lock")
    done = mutate(
        world,
        "mergePullRequest",
        {"pullRequestId": pull_id, "mergeMethod": "MERGE"},
        "pullRequest{state mergeCommit{oid messageHeadline parents(first:3){nodes{oid}}}}",
    )["pullRequest"]
    merge = done["mergeCommit"]
    assert done["state"] == "MERGED" and tip(world, "main") == merge["oid"]
    assert merge["parents"]["nodes"] == [{"oid": base_before}, {"oid": head}]
    assert merge["messageHeadline"] == "Merge pull request #7 from acme-labs/fix/compaction-lock"


def test_updating_a_branch_merges_the_base_into_it(world: World) -> None:
    main = commit_files(world, "main", {"CHANGELOG.md": "## next\n"})["commit"]["oid"]
    head = tip(world, "feat/wal-fsync-policy")
    pull_id = world.pull_request(8).node_id  # type: ignore[union-attr]
    done = mutate(
        world,
        "updatePullRequestBranch",
        {"pullRequestId": pull_id},
        "pullRequest{headRefOid commits(last:1){nodes{commit{parents(first:3){nodes{oid}}}}}}",
    )["pullRequest"]
    assert done["headRefOid"] == tip(world, "feat/wal-fsync-policy") != head
    parents = done["commits"]["nodes"][0]["commit"]["parents"]["nodes"]
    assert parents == [{"oid": head}, {"oid": main}]
