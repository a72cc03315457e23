"""What a REST client notices beyond the schemas: Link pagination, the diff and patch media
types, log downloads by redirect (a job's text, a run's zip laid out as GitHub's), URLs on the
hosts the client used, statuses and GitHub's error bodies."""

from __future__ import annotations

import io
import json
import re
import zipfile
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from pytest_ghxbench.sandbox.api.rest import RestRouter, handle
from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiResponse, ApiUrls
from pytest_ghxbench.sandbox.state import World

ROUTER = RestRouter()

DOTCOM = ApiUrls.dotcom("http", "github.localhost")
ENTERPRISE = ApiUrls.enterprise("http", "ghe.example.test:8443")
REPO = "/repos/acme-labs/tinykv"


class Blobs:
    def __init__(self, urls: ApiUrls) -> None:
        self.urls = urls
        self.stored: dict[str, tuple[bytes, str]] = {}

    def put(self, data: bytes, content_type: str, filename: str | None = None) -> str:
        url = f"{self.urls.web}/_blobs/{len(self.stored) + 1}"
        self.stored[url] = (data, content_type)
        return url


def call(
    world: World,
    method: str,
    target: str,
    body: Any = None,
    urls: ApiUrls = DOTCOM,
    blobs: Blobs | None = None,
    **headers: str,
) -> ApiResponse:
    path, _, query = target.partition("?")
    data = json.dumps(body).encode() if body is not None else b""
    request = ApiRequest(method, path, parse_qs(query), headers, data, urls, blobs or Blobs(urls))
    return handle(ROUTER, world, request)


def links(response: ApiResponse) -> dict[str, str]:
    return {
        rel: url
        for url, rel in re.findall(r'<([^>]+)>; rel="(\w+)"', response.headers.get("Link", ""))
    }


def test_pages_follow_link_headers_to_every_issue(world: World) -> None:
    first = call(world, "GET", f"{REPO}/issues?state=all&per_page=2")
    assert set(links(first)) == {"next", "last"}
    numbers, target = [], f"{REPO}/issues?state=all&per_page=2"
    while True:
        page = call(world, "GET", target)
        numbers += [item["number"] for item in json.loads(page.body)]
        if "next" not in links(page):
            break
        url = urlsplit(links(page)["next"])
        assert f"{url.scheme}://{url.netloc}" == DOTCOM.api
        assert parse_qs(url.query)["state"] == ["all"]  # the original query is kept
        target = f"{url.path}?{url.query}"
    assert sorted(numbers) == sorted(
        [i.number for i in world.issues] + [p.number for p in world.pull_requests]
    )
    last = links(page)
    assert set(last) == {"prev", "first"}
    assert parse_qs(urlsplit(last["first"]).query)["page"] == ["1"]


def test_per_page_is_capped_at_100_and_defaults_to_30(world: World) -> None:
    assert len(json.loads(call(world, "GET", f"{REPO}/labels").body)) == min(30, len(world.labels))
    assert "Link" not in call(world, "GET", f"{REPO}/labels?per_page=500").headers


@pytest.mark.parametrize(
    "accept", ["application/vnd.github.diff", "application/vnd.github.v3.diff"]
)
def test_a_pull_request_as_a_diff(world: World, accept: str) -> None:
    response = call(world, "GET", f"{REPO}/pulls/7", accept=accept)
    assert response.status == 200
    assert response.headers["Content-Type"].startswith("application/vnd.github.diff")
    text = response.body.decode()
    # git's own diff of the branch since it left main: four files
    assert text.count("diff --git ") == 4
    assert "+++ b/src/tinykv/compaction.py" in text
    assert "+        # Writers may proceed while the snapshot is written.\n" in text


def test_a_pull_request_as_a_patch(world: World) -> None:
    response = call(world, "GET", f"{REPO}/pulls/7", accept="application/vnd.github.patch")
    text = response.body.decode()
    # git format-patch of each of the branch's three commits, oldest first
    subjects = [line for line in text.splitlines() if line.startswith("Subject: ")]
    assert subjects == [
        "Subject: [PATCH 1/3] Copy snapshot segments under per-segment read locks",
        "Subject: [PATCH 2/3] Release the store lock before writing the snapshot",
        "Subject: [PATCH 3/3] Test that a snapshot does not block writers",
    ]
    assert text.startswith("From ") and "From: Mona Lisa <mona@users.noreply.github.com>" in text


def test_a_job_log_is_a_redirect_to_its_text(world: World) -> None:
    blobs = Blobs(DOTCOM)
    response = call(world, "GET", f"{REPO}/actions/jobs/37800000007/logs", blobs=blobs)
    assert (response.status, response.body) == (302, b"")
    data, kind = blobs.stored[response.headers["Location"]]
    assert kind == "text/plain"
    assert b"AssertionError: assert not True" in data


def test_a_run_log_is_a_redirect_to_a_zip_laid_out_as_githubs(world: World) -> None:
    blobs = Blobs(DOTCOM)
    response = call(world, "GET", f"{REPO}/actions/runs/13500000003/logs", blobs=blobs)
    assert response.status == 302
    data, kind = blobs.stored[response.headers["Location"]]
    assert kind == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(data))
    names = set(archive.namelist())
    assert {"0_lint.txt", "1_test (3.11).txt", "2_test (3.12).txt"} <= names
    assert "test (3.12)/4_Run pytest.txt" in names
    assert "test (3.12)/1_Set up job.txt" in names
    failing = archive.read("test (3.12)/4_Run pytest.txt").decode()
    assert "AssertionError" in failing and "Run actions/checkout" not in failing
    whole = archive.read("2_test (3.12).txt").decode()
    assert whole == world.job(37800000007).log  # type: ignore[union-attr]


def test_logs_of_an_unknown_job_are_not_found(world: World) -> None:
    assert call(world, "GET", f"{REPO}/actions/jobs/1/logs").status == 404


def test_urls_follow_the_hosts_the_client_used(world: World) -> None:
    body = call(world, "GET", f"{REPO}/pulls/7", urls=ENTERPRISE).body.decode()
    homepage = world.repository.homepage_url  # the repository's data, not a GitHub link
    urls = [u for u in re.findall(r'"(https?://[^"]+)"', body) if u != homepage]
    assert urls and all(u.startswith((ENTERPRISE.api + "/", ENTERPRISE.web + "/")) for u in urls), [
        u for u in urls if "ghe.example.test" not in u
    ]
    assert "api.github.com" not in body
    pull = json.loads(body)
    assert pull["url"] == f"{ENTERPRISE.api}{REPO}/pulls/7"
    assert pull["html_url"] == f"{ENTERPRISE.web}/acme-labs/tinykv/pull/7"
    release = json.loads(call(world, "GET", f"{REPO}/releases/latest", urls=ENTERPRISE).body)
    assert release["upload_url"].startswith(f"{ENTERPRISE.uploads}{REPO}/releases/")


def test_not_found_is_githubs_body(world: World) -> None:
    for target in (f"{REPO}/issues/99", "/repos/octo/other/issues", f"{REPO}/nowhere"):
        response = call(world, "GET", target)
        assert response.status == 404
        body = json.loads(response.body)
        assert (body["message"], body["status"]) == ("Not Found", "404")
        assert body["documentation_url"].startswith("https://docs.github.com/")


def test_validation_failed_lists_errors(world: World) -> None:
    response = call(world, "POST", f"{REPO}/issues", {"body": "no title"})
    assert response.status == 422
    body = json.loads(response.body)
    assert body["message"] == "Validation Failed"
    assert body["errors"] == [{"resource": "Issue", "code": "missing_field", "field": "title"}]
    assert len(world.issues) == 6


def test_a_body_that_is_not_json_is_a_bad_request(world: World) -> None:
    request = ApiRequest("POST", f"{REPO}/issues", {}, {}, b"{not json", DOTCOM, Blobs(DOTCOM))
    response = handle(ROUTER, world, request)
    assert response.status == 400
    assert json.loads(response.body)["message"] == "Problems parsing JSON"


def test_creations_are_201_and_no_content_is_204(world: World) -> None:
    created = call(world, "POST", f"{REPO}/issues/3/comments", {"body": "On it"})
    assert created.status == 201 and json.loads(created.body)["body"] == "On it"
    label = call(world, "POST", f"{REPO}/labels", {"name": "urgent", "color": "#FF0000"})
    assert label.status == 201 and json.loads(label.body)["color"] == "ff0000"
    deleted = call(world, "DELETE", f"{REPO}/labels/urgent")
    assert (deleted.status, deleted.body) == (204, b"")
    assert world.label("urgent") is None
    dispatched = call(world, "POST", f"{REPO}/actions/workflows/ci.yml/dispatches", {"ref": "main"})
    assert (dispatched.status, dispatched.body) == (204, b"")
    cancelled = call(world, "POST", f"{REPO}/actions/runs/13500000003/rerun", None)
    assert cancelled.status == 201


def test_deleting_a_release_removes_it(world: World) -> None:
    response = call(world, "DELETE", f"{REPO}/releases/201000001")
    assert (response.status, response.body) == (204, b"")
    assert world.release(201000001) is None
    assert call(world, "GET", f"{REPO}/releases/tags/v0.3.2").status == 404


def test_a_merge_answers_with_the_merge_commit(world: World) -> None:
    response = call(world, "PUT", f"{REPO}/pulls/7/merge", {"merge_method": "squash"})
    body = json.loads(response.body)
    assert body["merged"] is True and re.fullmatch(r"[0-9a-f]{40}", body["sha"])
    again = call(world, "PUT", f"{REPO}/pulls/7/merge", {})
    assert again.status == 405
