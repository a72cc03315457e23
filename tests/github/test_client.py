"""The GitHub client over real HTTP against the fake GitHub: auth, pagination, retries, errors."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator

import pytest

from pytest_ghxbench.github.client import GitHubClient, GitHubError, graphql_url
from tests.github.fake_github import FakeGitHub

TOKEN = "ghp_clientTestToken0123456789"
ISSUES = "/repos/acme/fixtures/issues"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub(token=TOKEN) as server:
        yield server


@pytest.fixture
def waits() -> list[float]:
    return []


@pytest.fixture
def client(fake: FakeGitHub, waits: list[float]) -> GitHubClient:
    return GitHubClient(TOKEN, fake.url, timeout_s=5, sleep=waits.append)


def failure(call: Callable[[], object]) -> GitHubError:
    """The GitHubError ``call`` raises."""
    with pytest.raises(GitHubError) as caught:
        call()
    return caught.value


# ---------------------------------------------------------------- auth


def test_the_token_goes_as_a_bearer_token(client: GitHubClient) -> None:
    answer = client.request("GET", "/user")
    assert (answer.status, answer.data["login"]) == (200, "bench-bot")
    assert answer.headers["X-OAuth-Scopes"] == "repo, workflow"


def test_a_wrong_token_is_a_401_with_githubs_message(fake: FakeGitHub) -> None:
    wrong = GitHubClient("ghp_wrong", fake.url, timeout_s=5)
    error = failure(lambda: wrong.rest("GET", "/user"))
    assert (error.status, error.message, error.method, error.path) == (
        401,
        "Bad credentials",
        "GET",
        "/user",
    )


def test_the_fake_accepts_the_token_scheme_and_refuses_no_token(fake: FakeGitHub) -> None:
    request = urllib.request.Request(
        fake.url + "/user", headers={"Authorization": f"token {TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=5) as answer:
        assert answer.status == 200
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(fake.url + "/user", timeout=5)
    assert refused.value.code == 401


def test_other_repositories_and_unknown_routes_are_not_found(client: GitHubClient) -> None:
    assert failure(lambda: client.rest("GET", "/repos/acme/other")).status == 404
    assert failure(lambda: client.rest("GET", "/repos/acme/fixtures/wikis")).status == 404


# ---------------------------------------------------------------- requests and pagination


def test_json_bodies_and_validation_details(client: GitHubClient) -> None:
    created = client.request("POST", "/repos/acme/fixtures/labels", body={"name": "bug"})
    assert (created.status, created.data["name"]) == (201, "bug")
    again = failure(
        lambda: client.rest("POST", "/repos/acme/fixtures/labels", body={"name": "Bug"})
    )
    assert (again.status, again.message) == (422, "Validation Failed (already_exists)")


def test_ok_statuses_are_answers_not_errors(client: GitHubClient) -> None:
    answer = client.request(
        "DELETE", "/repos/acme/fixtures/git/refs/heads/gone", ok_statuses=(422,)
    )
    assert (answer.status, answer.data["message"]) == (422, "Reference does not exist")


def test_paginate_follows_the_next_links(client: GitHubClient, fake: FakeGitHub) -> None:
    for index in range(75):
        fake.add_issue(f"issue {index}")
    numbers = [issue["number"] for issue in client.paginate(ISSUES, {"per_page": 30})]
    assert numbers == list(range(75, 0, -1))
    assert fake.requests.count(("GET", ISSUES)) == 3


def test_paginate_stops_at_the_limit(client: GitHubClient, fake: FakeGitHub) -> None:
    for index in range(75):
        fake.add_issue(f"issue {index}")
    listed = list(client.paginate(ISSUES, {"per_page": 30}, limit=40))
    assert len(listed) == 40
    assert fake.requests.count(("GET", ISSUES)) == 2


def test_paginate_unwraps_listed_objects(client: GitHubClient, fake: FakeGitHub) -> None:
    run = fake.add_workflow_run()
    for name in ("lint", "test", "build"):
        fake.add_job(run["id"], name=name)
    jobs = client.paginate(f"/repos/acme/fixtures/actions/runs/{run['id']}/jobs", {"per_page": 2})
    assert [job["name"] for job in jobs] == ["lint", "test", "build"]


# ---------------------------------------------------------------- retries


def test_a_429_waits_as_long_as_retry_after_asks(
    client: GitHubClient, fake: FakeGitHub, waits: list[float]
) -> None:
    fake.fail_next(1, 429, {"Retry-After": "7"})
    assert client.rest("GET", "/user")["login"] == "bench-bot"
    assert waits == [7.0]
    assert client.requests_made == 2


def test_an_exhausted_rate_limit_waits_until_the_reset(
    client: GitHubClient, fake: FakeGitHub, waits: list[float]
) -> None:
    reset = str(int(time.time()) + 30)
    fake.fail_next(1, 403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset})
    client.rest("GET", "/user")
    assert len(waits) == 1 and 25 <= waits[0] <= 31


def test_a_429_without_hints_waits_the_minute_github_asks_for(
    client: GitHubClient, fake: FakeGitHub, waits: list[float]
) -> None:
    fake.fail_next(1, 429)
    assert client.rest("GET", "/user")["login"] == "bench-bot"
    assert waits == [60.0]


def test_bad_gateways_are_retried_with_growing_waits(
    client: GitHubClient, fake: FakeGitHub, waits: list[float]
) -> None:
    fake.fail_next(2, 502)
    assert client.rest("GET", "/user")["login"] == "bench-bot"
    assert waits == [1.0, 2.0]


def test_exhausted_retries_raise_with_the_last_status(
    client: GitHubClient, fake: FakeGitHub, waits: list[float]
) -> None:
    fake.fail_next(4, 503)
    error = failure(lambda: client.rest("GET", "/user"))
    assert (error.status, error.message) == (503, "Service Unavailable")
    assert waits == [1.0, 2.0, 4.0]
    assert fake.requests == [("GET", "/user")] * 4


def test_other_errors_are_not_retried(
    client: GitHubClient, fake: FakeGitHub, waits: list[float]
) -> None:
    fake.fail_next(1, 500)
    assert failure(lambda: client.rest("GET", "/user")).status == 500
    assert waits == [] and len(fake.requests) == 1


# ---------------------------------------------------------------- network and secrets


def test_an_unreachable_server_is_status_0_with_a_clear_message(fake: FakeGitHub) -> None:
    url = fake.url
    fake.stop()
    error = failure(lambda: GitHubClient(TOKEN, url, timeout_s=2).rest("GET", "/user"))
    assert error.status == 0
    assert str(error).startswith(f"GET /user: cannot reach {url}")


def test_a_truncated_answer_is_a_network_error(waits: list[float]) -> None:
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def answer_half() -> None:
        connection, _ = listener.accept()
        connection.recv(65536)
        connection.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"log')
        connection.close()

    threading.Thread(target=answer_half, daemon=True).start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    error = failure(lambda: GitHubClient(TOKEN, url, timeout_s=5).rest("GET", "/user"))
    listener.close()
    assert error.status == 0 and "cannot reach" in str(error)


def test_params_apply_to_absolute_urls_too(client: GitHubClient, fake: FakeGitHub) -> None:
    fake.add_issue("open one")
    fake.add_issue("closed one", state="closed")
    found = client.rest("GET", f"{fake.url}{ISSUES}", params={"state": "closed"})
    assert [issue["title"] for issue in found] == ["closed one"]


def test_the_token_appears_in_no_repr_and_no_error(client: GitHubClient, fake: FakeGitHub) -> None:
    assert TOKEN not in repr(client)
    errors = [
        failure(lambda: GitHubClient(TOKEN + "x", fake.url).rest("GET", "/user")),
        failure(lambda: client.rest("GET", "/repos/acme/other")),
        failure(lambda: client.graphql("query Nope { x }")),
    ]
    fake.fail_next(4, 502)
    errors.append(failure(lambda: client.rest("GET", "/user")))
    fake.stop()
    errors.append(failure(lambda: client.rest("GET", "/user")))
    for error in errors:
        assert TOKEN not in f"{error} {error!r} {error.args} {error.path}"


# ---------------------------------------------------------------- GraphQL


def test_graphql_answers_data(client: GitHubClient) -> None:
    assert client.graphql("query Viewer { viewer { login } }") == {"viewer": {"login": "bench-bot"}}


def test_graphql_errors_raise(client: GitHubClient, fake: FakeGitHub) -> None:
    unknown = failure(lambda: client.graphql("query Nope { x }"))
    assert (unknown.status, unknown.path) == (200, "/graphql")
    assert "Unknown operation 'Nope'" in unknown.message
    query = (
        "query PullRequestReviewThreads($owner: String!, $name: String!, $number: Int!) {"
        " repository(owner: $owner, name: $name) { pullRequest(number: $number) {"
        " reviewThreads(first: 100) { nodes { id } } } } }"
    )
    missing = failure(
        lambda: client.graphql(query, {"owner": "acme", "name": "fixtures", "number": 9})
    )
    assert missing.message == "NOT_FOUND: Could not resolve to a PullRequest with the number of 9."
    assert fake.requests[-1] == ("POST", "/graphql")


def test_graphql_url_of_github_and_enterprise_server() -> None:
    assert graphql_url("https://api.github.com") == "https://api.github.com/graphql"
    assert graphql_url("https://ghe.example/api/v3/") == "https://ghe.example/api/graphql"
