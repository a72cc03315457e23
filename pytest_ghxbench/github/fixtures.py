"""Fixture lifecycle on real GitHub: seed the resources scenarios bind to, check them, clean up.

``seed`` creates, in the fixture repository, everything the shipped scenarios' bindings name
that can be created through the API, labels it ``ghxbench-fixture`` and returns the manifest
(the same shape as the sandbox's):

- ``issue``, ``blocker_issue``, ``parent_issue``: three open issues;
- ``pr`` (= ``pr_with_reviews``): a branch ``ghxbench/fixture-<seed>`` with one file, an open
  pull request from it, a ``COMMENT`` review and a review thread (``pr_thread``) on the file;
- ``release``: a pre-release tagged ``v0.0.0-ghxbench-<seed>``;
- ``workflow_run``, ``workflow_job``, ``check_run``: Actions runs cannot be created through
  the API, so the most recent completed run of the repository (and its first job and check
  run) is recorded when there is one.

Projects (v2) are not seeded: they live under a user or organisation and need the ``project``
scope. Scenarios whose ``requires`` names a resource the manifest lacks are skipped with that
reason, so a partial manifest costs coverage, not failures.

``status`` checks each recorded resource still exists and is in its seeded state (mutation
scenarios close issues, resolve threads...: seed again after such a run). ``cleanup`` closes
the seeded issues and pull requests (GitHub's REST API cannot delete issues) and deletes the
fixture branch, the release and its tag.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from pytest_ghxbench.ghx.client import GitHubClient, GitHubError

__all__ = ["SEED_LABEL", "Check", "cleanup", "seed", "status"]

SEED_LABEL = "ghxbench-fixture"
_FIXTURE_FILE = "ghxbench-fixture.md"

_THREADS_QUERY = """
query PullRequestReviewThreads($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100) { nodes { id comments(first: 1) { nodes { databaseId } } } }
    }
  }
}
"""


@dataclass(frozen=True)
class Check:
    """The state of one manifest resource on GitHub."""

    resource: str
    ok: bool
    detail: str


def seed(
    client: GitHubClient,
    repo: str,
    *,
    seed_id: str | None = None,
    progress: Callable[[str], None] = lambda message: None,
) -> dict[str, Any]:
    """Create the fixtures in ``repo`` (``owner/name``) and return their manifest."""
    seed_id = seed_id or uuid.uuid4().hex[:8]
    info = client.rest("GET", f"/repos/{repo}")
    owner, name = info["owner"]["login"], info["name"]
    full_name = info.get("full_name") or f"{owner}/{name}"
    base = f"/repos/{full_name}"
    default_branch = info.get("default_branch") or "main"
    _ensure_label(client, base)
    resources: dict[str, Any] = {}

    for key, title in (
        ("issue", "the issue scenarios read and change"),
        ("blocker_issue", "an issue that blocks another"),
        ("parent_issue", "a parent for sub-issues"),
    ):
        issue = client.rest(
            "POST",
            f"{base}/issues",
            body={
                "title": f"ghxbench fixture ({seed_id}): {title}",
                "body": "Created by `ghxbench fixtures seed`; closed by `ghxbench fixtures "
                "cleanup`.",
                "labels": [SEED_LABEL],
            },
        )
        resources[key] = {
            "id": issue["node_id"],
            "number": issue["number"],
            "url": issue["html_url"],
        }
        progress(f"issue #{issue['number']} ({key})")

    branch = f"ghxbench/fixture-{seed_id}"
    head = client.rest("GET", f"{base}/git/ref/heads/{default_branch}")
    client.rest(
        "POST",
        f"{base}/git/refs",
        body={"ref": f"refs/heads/{branch}", "sha": head["object"]["sha"]},
    )
    text = f"# ghxbench fixture {seed_id}\n\nA line a review thread can point at.\n"
    written = client.rest(
        "PUT",
        f"{base}/contents/{_FIXTURE_FILE}",
        body={
            "message": f"ghxbench fixture {seed_id}",
            "content": base64.b64encode(text.encode()).decode(),
            "branch": branch,
        },
    )
    pull = client.rest(
        "POST",
        f"{base}/pulls",
        body={
            "title": f"ghxbench fixture ({seed_id}): the pull request scenarios review",
            "head": branch,
            "base": default_branch,
            "body": "Created by `ghxbench fixtures seed`.",
        },
    )
    number = pull["number"]
    client.rest("POST", f"{base}/issues/{number}/labels", body={"labels": [SEED_LABEL]})
    pr = {"id": pull["node_id"], "number": number, "url": pull["html_url"], "head_ref": branch}
    resources["pr"] = pr
    resources["pr_with_reviews"] = dict(pr)
    progress(f"pull request #{number} from {branch}")
    client.rest(
        "POST",
        f"{base}/pulls/{number}/reviews",
        body={"event": "COMMENT", "body": "ghxbench fixture review"},
    )
    comment = client.rest(
        "POST",
        f"{base}/pulls/{number}/comments",
        body={
            "body": "ghxbench fixture thread: please reword this line",
            "commit_id": written["commit"]["sha"],
            "path": _FIXTURE_FILE,
            "line": 3,
            "side": "RIGHT",
        },
    )
    thread = _thread_of(client, owner, name, number, comment.get("id"))
    if thread is not None:
        resources["pr_thread"] = {"id": thread}
        progress(f"review thread {thread}")

    tag = f"v0.0.0-ghxbench-{seed_id}"
    release = client.rest(
        "POST",
        f"{base}/releases",
        body={
            "tag_name": tag,
            "target_commitish": default_branch,
            "name": f"ghxbench fixture {seed_id}",
            "body": "Created by `ghxbench fixtures seed`.",
            "prerelease": True,
        },
    )
    resources["release"] = {"id": release["id"], "tag_name": release["tag_name"]}
    progress(f"release {tag}")

    resources.update(_latest_run(client, base))
    if "workflow_run" in resources:
        progress(f"workflow run {resources['workflow_run']['id']} (existing)")
    else:
        progress("no completed workflow run in the repository: workflow scenarios will skip")
    resources["metadata"] = {
        "seed_id": seed_id,
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "run_id": seed_id,
    }
    return {
        "version": 1,
        "repo": {
            "owner": owner,
            "name": name,
            "full_name": full_name,
            "default_branch": default_branch,
        },
        "resources": resources,
    }


def status(client: GitHubClient, manifest: Mapping[str, Any]) -> list[Check]:
    """Whether each resource of ``manifest`` still exists in its seeded state."""
    base = f"/repos/{_full_name(manifest)}"
    resources = manifest.get("resources") or {}
    checks: list[Check] = []

    def probe(key: str, path: str, judge: Callable[[Any], str | None]) -> None:
        try:
            found = client.rest("GET", path)
        except GitHubError as exc:
            detail = "not found" if exc.status == 404 else str(exc)
            checks.append(Check(key, False, detail))
            return
        problem = judge(found)
        checks.append(Check(key, problem is None, problem or "ok"))

    def open_state(found: Any) -> str | None:
        state = found.get("state")
        return None if state == "open" else f"{state} (a scenario changed it; seed again)"

    for key in ("issue", "blocker_issue", "parent_issue"):
        if key in resources:
            probe(key, f"{base}/issues/{resources[key]['number']}", open_state)
    for key in ("pr", "pr_with_reviews"):
        if key in resources:
            probe(key, f"{base}/pulls/{resources[key]['number']}", open_state)
    if "release" in resources:
        probe("release", f"{base}/releases/{resources['release']['id']}", lambda found: None)
    if "workflow_run" in resources:
        run = resources["workflow_run"]["id"]
        probe("workflow_run", f"{base}/actions/runs/{run}", lambda found: None)
    for key in ("pr_thread", "workflow_job", "check_run", "project"):
        if key not in resources:
            checks.append(Check(key, True, "not seeded: scenarios that need it are skipped"))
    return checks


def cleanup(
    client: GitHubClient,
    manifest: Mapping[str, Any],
    *,
    progress: Callable[[str], None] = lambda message: None,
) -> int:
    """Close the seeded issues and pull requests (this seed's and any earlier seed's still open
    with the label), delete the fixture branch, the release and its tag. Returns how many
    objects were changed; objects already gone are skipped."""
    base = f"/repos/{_full_name(manifest)}"
    resources = manifest.get("resources") or {}
    changed = 0
    for item in client.paginate(f"{base}/issues", {"labels": SEED_LABEL, "state": "open"}):
        number = item["number"]
        kind = "pulls" if "pull_request" in item else "issues"
        client.rest("PATCH", f"{base}/{kind}/{number}", body={"state": "closed"})
        changed += 1
        progress(f"closed {'pull request' if kind == 'pulls' else 'issue'} #{number}")
    head_ref = (resources.get("pr") or {}).get("head_ref")
    if head_ref:
        changed += _delete(
            client, f"{base}/git/refs/heads/{head_ref}", f"branch {head_ref}", progress
        )
    release = resources.get("release")
    if release:
        changed += _delete(client, f"{base}/releases/{release['id']}", "release", progress)
        tag = release.get("tag_name")
        if tag:
            changed += _delete(client, f"{base}/git/refs/tags/{tag}", f"tag {tag}", progress)
    return changed


def _delete(client: GitHubClient, path: str, what: str, progress: Callable[[str], None]) -> int:
    answer = client.request("DELETE", path, ok_statuses=(404, 422))
    if answer.status in (404, 422):
        progress(f"{what}: already gone")
        return 0
    progress(f"deleted {what}")
    return 1


def _ensure_label(client: GitHubClient, base: str) -> None:
    client.request(
        "POST",
        f"{base}/labels",
        body={"name": SEED_LABEL, "color": "5319e7", "description": "created by ghxbench"},
        ok_statuses=(422,),  # already exists
    )


def _thread_of(
    client: GitHubClient, owner: str, name: str, number: int, comment_id: Any
) -> str | None:
    data = client.graphql(_THREADS_QUERY, {"owner": owner, "name": name, "number": number})
    pull = ((data or {}).get("repository") or {}).get("pullRequest") or {}
    for node in (pull.get("reviewThreads") or {}).get("nodes") or []:
        first = ((node.get("comments") or {}).get("nodes") or [{}])[0]
        if first.get("databaseId") == comment_id:
            return str(node["id"])
    return None


def _latest_run(client: GitHubClient, base: str) -> dict[str, Any]:
    runs = client.rest("GET", f"{base}/actions/runs", params={"status": "completed", "per_page": 1})
    found = (runs or {}).get("workflow_runs") or []
    if not found:
        return {}
    run = found[0]
    resources: dict[str, Any] = {"workflow_run": {"id": run["id"]}}
    jobs = client.rest("GET", f"{base}/actions/runs/{run['id']}/jobs", params={"per_page": 1})
    job_list = (jobs or {}).get("jobs") or []
    if job_list:
        resources["workflow_job"] = {"id": job_list[0]["id"], "run_id": run["id"]}
    sha = run.get("head_sha")
    if sha:
        checks = client.rest("GET", f"{base}/commits/{sha}/check-runs", params={"per_page": 1})
        check_list = (checks or {}).get("check_runs") or []
        if check_list:
            resources["check_run"] = {"id": check_list[0]["id"]}
    return resources


def _full_name(manifest: Mapping[str, Any]) -> str:
    repo = manifest.get("repo") or {}
    full_name = repo.get("full_name") or f"{repo.get('owner')}/{repo.get('name')}"
    if not isinstance(full_name, str) or full_name.count("/") != 1 or "None" in full_name:
        raise ValueError("the manifest names no repository (repo.full_name or repo.owner/name)")
    return full_name
