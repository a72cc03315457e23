"""The GitHub client over real HTTP against the sandbox's API server (auth, JSON, pagination,
GraphQL), and against a scripted loopback server for what the sandbox never answers (rate
limits, bad gateways, truncated answers)."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pytest_ghxbench.ghx.client import GitHubClient, GitHubError, graphql_url
from pytest_ghxbench.sandbox.api.server import SCOPES
from tests.github.served import REPO, Served, served_world

ISSUES = f"/repos/{REPO}/issues"


@pytest.fixture
def served() -> Iterator[Served]:
    with served_world() as world:
        yield world


@pytest.fixture
def waits() -> list[float]:
    return []


@pytest.fixture
def client(served: Served, waits: list[float]) -> GitHubClient:
    return GitHubClient(served.token, served.url, timeout_s=60, sleep=waits.append)


def failure(call: Callable[[], object]) -> GitHubError:
    """The GitHubError ``call`` raises."""
    with pytest.raises(GitHubError) as caught:
        call()
    return caught.value


class Scripted:
    """A loopback server that answers the queued failures first, then ``200 {"login": ...}``;
    it records each request's ``(method, path)``."""

    def __init__(self) -> None:
        self.failures: list[tuple[int, dict[str, str]]] = []
        self.requests: list[tuple[str, str]] = []
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                scripted.requests.append((self.command, self.path))
                status, headers = scripted.failures.pop(0) if scripted.failures else (200, {})
                body = (
                    {"login": "bench-bot"}
                    if status == 200
                    else {"message": self.responses[status][0]}
                )
                data = json.dumps(body).encode()
                self.send_response(status)
                for name, value in {**headers, "Content-Length": str(len(data))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()

    def fail_next(self, count: int, status: int, headers: dict[str, str] | None = None) -> None:
        self.failures += [(status, dict(headers or {}))] * count

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@pytest.fixture
def scripted() -> Iterator[Scripted]:
    server = Scripted()
    yield server
    server.close()


@pytest.fixture
def flaky(scripted: Scripted, waits: list[float]) -> GitHubClient:
    return GitHubClient("ghp_scripted", scripted.url, timeout_s=60, sleep=waits.append)


# ---------------------------------------------------------------- auth


def test_the_token_goes_as_a_bearer_token(client: GitHubClient) -> None:
    answer = client.request("GET", "/user")
    assert (answer.status, answer.data["login"]) == (200, "bench-bot")
    assert answer.headers["X-OAuth-Scopes"] == SCOPES


def test_a_wrong_token_is_a_401_with_githubs_message(served: Served) -> None:
    wrong = GitHubClient("ghp_wrong", served.url, timeout_s=60)
    error = failure(lambda: wrong.rest("GET", "/user"))
    assert (error.status, error.message, error.method, error.path) == (
        401,
        "Bad credentials",
        "GET",
        "/user",
    )


def test_the_token_scheme_is_accepted_and_no_token_refused(served: Served) -> None:
    request = urllib.request.Request(
        served.url + "/user", headers={"Authorization": f"token {served.token}"}
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        assert answer.status == 200
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(served.url + "/user", timeout=60)
    assert refused.value.code == 401


def test_other_repositories_and_unknown_routes_are_not_found(client: GitHubClient) -> None:
    assert failure(lambda: client.rest("GET", "/repos/acme-labs/other")).status == 404
    assert failure(lambda: client.rest("GET", f"/repos/{REPO}/wikis")).status == 404


# ---------------------------------------------------------------- requests and pagination


def test_json_bodies_and_validation_details(client: GitHubClient) -> None:
    created = client.request("POST", f"/repos/{REPO}/labels", body={"name": "urgent"})
    assert (created.status, created.data["name"]) == (201, "urgent")
    again = failure(lambda: client.rest("POST", f"/repos/{REPO}/labels", body={"name": "Urgent"}))
    assert (again.status, again.message) == (422, "Validation Failed (already_exists)")


def test_ok_statuses_are_answers_not_errors(client: GitHubClient) -> None:
    answer = client.request("DELETE", f"/repos/{REPO}/git/refs/heads/gone", ok_statuses=(422,))
    assert (answer.status, answer.data["message"]) == (422, "Reference does not exist")


def _open_items(served: Served) -> list[int]:
    """Numbers of the open issues and pull requests, newest first (as GitHub lists them)."""
    world = served.world
    items = [(i.created_at, i.number) for i in world.issues if i.state == "OPEN"]
    items += [(p.created_at, p.number) for p in world.pull_requests if p.state == "OPEN"]
    return [number for _, number in sorted(items, reverse=True)]


def _add_issues(client: GitHubClient, count: int) -> None:
    for index in range(count):
        client.rest("POST", ISSUES, body={"title": f"issue {index}"})


def _pages_asked(served: Served) -> int:
    return served.requests.count(("GET", ISSUES))


def test_paginate_follows_the_next_links(client: GitHubClient, served: Served) -> None:
    _add_issues(client, 70)
    expected = _open_items(served)
    assert len(expected) > 60
    numbers = [issue["number"] for issue in client.paginate(ISSUES, {"per_page": 30})]
    assert numbers == expected
    assert _pages_asked(served) == -(-len(expected) // 30)


def test_paginate_stops_at_the_limit(client: GitHubClient, served: Served) -> None:
    _add_issues(client, 70)
    listed = list(client.paginate(ISSUES, {"per_page": 30}, limit=40))
    assert len(listed) == 40
    assert _pages_asked(served) == 2


def test_paginate_unwraps_listed_objects(client: GitHubClient, served: Served) -> None:
    run = 13500000003
    expected = [job.name for job in served.world.jobs if job.run_id == run]
    assert len(expected) == 3
    jobs = client.paginate(f"/repos/{REPO}/actions/runs/{run}/jobs", {"per_page": 2})
    assert [job["name"] for job in jobs] == expected


def test_params_apply_to_absolute_urls_too(client: GitHubClient, served: Served) -> None:
    found = client.rest("GET", f"{served.url}{ISSUES}", params={"state": "closed"})
    closed = {i.title for i in served.world.issues if i.state == "CLOSED"}
    closed |= {p.title for p in served.world.pull_requests if p.state != "OPEN"}
    assert {issue["title"] for issue in found} == closed


# ---------------------------------------------------------------- retries


def test_a_429_waits_as_long_as_retry_after_asks(
    flaky: GitHubClient, scripted: Scripted, waits: list[float]
) -> None:
    scripted.fail_next(1, 429, {"Retry-After": "7"})
    assert flaky.rest("GET", "/user")["login"] == "bench-bot"
    assert waits == [7.0]
    assert flaky.requests_made == 2


def test_an_exhausted_rate_limit_waits_until_the_reset(
    flaky: GitHubClient, scripted: Scripted, waits: list[float]
) -> None:
    reset = str(int(time.time()) + 30)
    scripted.fail_next(1, 403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset})
    flaky.rest("GET", "/user")
    assert len(waits) == 1 and 25 <= waits[0] <= 31


def test_a_429_without_hints_waits_the_minute_github_asks_for(
    flaky: GitHubClient, scripted: Scripted, waits: list[float]
) -> None:
    scripted.fail_next(1, 429)
    assert flaky.rest("GET", "/user")["login"] == "bench-bot"
    assert waits == [60.0]


def test_bad_gateways_are_retried_with_growing_waits(
    flaky: GitHubClient, scripted: Scripted, waits: list[float]
) -> None:
    scripted.fail_next(2, 502)
    assert flaky.rest("GET", "/user")["login"] == "bench-bot"
    assert waits == [1.0, 2.0]


def test_exhausted_retries_raise_with_the_last_status(
    flaky: GitHubClient, scripted: Scripted, waits: list[float]
) -> None:
    scripted.fail_next(4, 503)
    error = failure(lambda: flaky.rest("GET", "/user"))
    assert (error.status, error.message) == (503, "Service Unavailable")
    assert waits == [1.0, 2.0, 4.0]
    assert scripted.requests == [("GET", "/user")] * 4


def test_other_errors_are_not_retried(
    flaky: GitHubClient, scripted: Scripted, waits: list[float]
) -> None:
    scripted.fail_next(1, 500)
    assert failure(lambda: flaky.rest("GET", "/user")).status == 500
    assert waits == [] and len(scripted.requests) == 1


# ---------------------------------------------------------------- network and secrets


def test_an_unreachable_server_is_status_0_with_a_clear_message(served: Served) -> None:
    url = served.url
    served.stop()
    client = GitHubClient(served.token, url, timeout_s=2)
    error = failure(lambda: client.rest("GET", "/user"))
    assert error.status == 0
    assert str(error).startswith(f"GET /user: cannot reach {url}")


def test_a_truncated_answer_is_a_network_error() -> None:
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
    error = failure(lambda: GitHubClient("ghp_x" * 5, url, timeout_s=60).rest("GET", "/user"))
    listener.close()
    assert error.status == 0 and "cannot reach" in str(error)


def test_the_token_appears_in_no_repr_and_no_error(
    client: GitHubClient, served: Served, scripted: Scripted
) -> None:
    token = served.token
    assert token not in repr(client)
    errors = [
        failure(lambda: GitHubClient(token + "x", served.url).rest("GET", "/user")),
        failure(lambda: client.rest("GET", "/repos/acme-labs/other")),
        failure(lambda: client.graphql("query Nope { x }")),
    ]
    scripted.fail_next(4, 502)
    through = GitHubClient(token, scripted.url, sleep=lambda seconds: None)
    errors.append(failure(lambda: through.rest("GET", "/user")))
    served.stop()
    errors.append(failure(lambda: client.rest("GET", "/user")))
    for error in errors:
        assert token not in f"{error} {error!r} {error.args} {error.path}"


# ---------------------------------------------------------------- GraphQL


def test_graphql_answers_data(client: GitHubClient, served: Served) -> None:
    assert client.graphql("query Viewer { viewer { login } }") == {"viewer": {"login": "bench-bot"}}
    assert served.requests[-1] == ("POST", "/graphql")


def test_graphql_errors_raise(client: GitHubClient) -> None:
    unknown = failure(lambda: client.graphql("query Nope { x }"))
    assert (unknown.status, unknown.path) == (200, "/graphql")
    assert "Field 'x' doesn't exist on type 'Query'" in unknown.message
    query = (
        "query PullRequestReviewThreads($owner: String!, $name: String!, $number: Int!) {"
        " repository(owner: $owner, name: $name) { pullRequest(number: $number) {"
        " reviewThreads(first: 100) { nodes { id } } } } }"
    )
    owner, name = REPO.split("/")
    missing = failure(lambda: client.graphql(query, {"owner": owner, "name": name, "number": 99}))
    assert missing.message == "NOT_FOUND: Could not resolve to a PullRequest with the number of 99."


def test_graphql_url_of_github_and_enterprise_server() -> None:
    assert graphql_url("https://api.github.com") == "https://api.github.com/graphql"
    assert graphql_url("https://ghe.example/api/v3/") == "https://ghe.example/api/graphql"
