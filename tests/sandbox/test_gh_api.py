"""``gh api`` REST paths in the sandbox."""

from __future__ import annotations

import json

from pytest_ghxbench.sandbox.dialects.gh_cli import run_gh
from pytest_ghxbench.sandbox.state import World

REPO = "repos/acme-labs/tinykv"


def gh(world: World, *argv: str, stdin: str = "") -> tuple[int, str, str, bool]:
    result = run_gh(world, argv, stdin)
    return result.exit_code, result.stdout, result.stderr, result.mutated


def test_placeholders_and_issue_comments(world: World) -> None:
    code, out, _, _ = gh(world, "api", "repos/{owner}/{repo}/issues/5/comments")
    assert code == 0
    comments = json.loads(out)
    issue = world.issue(5)
    assert issue is not None
    assert [c["id"] for c in comments] == [c.id for c in issue.comments]
    assert set(comments[0]) >= {"id", "node_id", "user", "body", "created_at", "html_url"}
    assert comments[0]["user"]["login"] == issue.comments[0].author


def test_leading_slash_query_string_and_pagination(world: World) -> None:
    out = gh(world, "api", f"/{REPO}/issues?state=all&per_page=2&page=2", "-q", "map(.number)")[1]
    # newest created first: #8 (02-25), #6 (02-24) | #7 (02-20), #4 (02-12 13:20) | ...
    assert json.loads(out) == [7, 4]
    every = gh(world, "api", f"{REPO}/issues?state=all&per_page=2", "--paginate", "-q", "length")[1]
    assert every == "9\n"


def test_pull_requests_show_in_the_issues_api(world: World) -> None:
    data = json.loads(gh(world, "api", f"{REPO}/issues/7")[1])
    assert data["pull_request"]["url"].endswith("/pulls/7") and data["state"] == "open"


def test_not_found_prints_body_and_gh_error(world: World) -> None:
    code, out, err, _ = gh(world, "api", f"{REPO}/issues/99")
    assert code == 1
    assert json.loads(out) == {
        "message": "Not Found",
        "documentation_url": "https://docs.github.com/rest",
        "status": "404",
    }
    assert err == "gh: Not Found (HTTP 404)\n"


def test_other_repository_is_not_found(world: World) -> None:
    assert gh(world, "api", "repos/octo/other/issues")[0] == 1


def test_check_run_annotations(world: World) -> None:
    out = gh(world, "api", f"{REPO}/check-runs/37800000007/annotations")[1]
    notes = json.loads(out)
    assert [(n["path"], n["start_line"], n["annotation_level"]) for n in notes] == [
        ("tests/test_compaction.py", 8, "failure"),
        (".github", 1, "failure"),
    ]


def test_actions_jobs_artifacts_and_job_log(world: World) -> None:
    jobs = json.loads(gh(world, "api", f"{REPO}/actions/runs/13500000003/jobs")[1])
    assert jobs["total_count"] == 3
    assert [j["conclusion"] for j in jobs["jobs"]] == ["success", "success", "failure"]
    artifacts = gh(
        world, "api", f"{REPO}/actions/runs/13500000003/artifacts", "-q", ".artifacts[].name"
    )
    assert artifacts[1] == "test-results-3.12\ncoverage-3.11\n"
    log = gh(world, "api", f"{REPO}/actions/jobs/37800000007/logs")[1]
    job = world.job(37800000007)
    assert job is not None and log == job.log


def test_runs_list_filtered_by_status(world: World) -> None:
    out = gh(world, "api", f"{REPO}/actions/runs?status=failure", "-q", ".workflow_runs[].id")[1]
    assert out == "13500000003\n"


def test_check_runs_of_a_branch(world: World) -> None:
    out = gh(
        world,
        "api",
        f"{REPO}/commits/fix/compaction-lock/check-runs",
        "-q",
        '.check_runs[] | select(.conclusion == "failure") | .id',
    )[1]
    assert out == "37800000007\n"


def test_reply_to_review_comment(world: World) -> None:
    code, out, _, mutated = gh(
        world, "api", "-X", "POST", f"{REPO}/pulls/7/comments/1900000003/replies", "-f", "body=Done"
    )
    assert (code, mutated) == (0, True)
    reply = json.loads(out)
    assert reply["body"] == "Done" and reply["in_reply_to_id"] == 1900000003
    found = world.review_thread("PRRT_kwDOtinykv7002")
    assert found is not None and found[1].comments[-1].body == "Done"


def test_fields_make_a_post_and_create_a_comment(world: World) -> None:
    code, out, _, mutated = gh(world, "api", f"{REPO}/issues/3/comments", "-f", "body=Seen it")
    assert (code, mutated) == (0, True)
    issue = world.issue(3)
    assert issue is not None and issue.comments[-1].body == "Seen it"
    assert json.loads(out)["id"] == issue.comments[-1].id


def test_patch_issue_state_and_typed_fields(world: World) -> None:
    code, out, _, _ = gh(
        world, "api", "-X", "PATCH", f"{REPO}/issues/3", "-f", "state=closed",
        "-f", "state_reason=not_planned", "-F", "milestone=2",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert (data["state"], data["state_reason"], data["milestone"]["number"]) == (
        "closed",
        "not_planned",
        2,
    )


def test_array_fields_and_stdin_input(world: World) -> None:
    gh(world, "api", f"{REPO}/issues/6/labels", "-f", "labels[]=bug", "-f", "labels[]=issues")
    issue = world.issue(6)
    assert issue is not None and issue.labels == ["question", "needs-triage", "bug", "issues"]
    body = json.dumps({"labels": ["question"]})
    code, _, _, _ = gh(
        world, "api", "-X", "PUT", f"{REPO}/issues/6/labels", "--input", "-", stdin=body
    )
    assert code == 0 and issue.labels == ["question"]


def test_validation_error(world: World) -> None:
    code, out, err, mutated = gh(world, "api", f"{REPO}/issues", "-f", "body=no title")
    assert (code, mutated) == (1, False)
    assert err.startswith("gh: Validation Failed (HTTP 422)")
    assert json.loads(out)["status"] == "422"


def test_sub_issue_and_blocked_by_use_issue_database_ids(world: World) -> None:
    issue_id = json.loads(gh(world, "api", f"{REPO}/issues/6")[1])["id"]
    assert gh(world, "api", f"{REPO}/issues/1/sub_issues", "-F", f"sub_issue_id={issue_id}")[0] == 0
    assert world.issue(6).parent == 1  # type: ignore[union-attr]
    blocker = json.loads(gh(world, "api", f"{REPO}/issues/4")[1])["id"]
    path = f"{REPO}/issues/6/dependencies/blocked_by"
    assert gh(world, "api", path, "-F", f"issue_id={blocker}")[0] == 0
    assert world.issue(6).blocked_by == [4]  # type: ignore[union-attr]


def test_dispatch_returns_no_content(world: World) -> None:
    code, out, _, mutated = gh(
        world, "api", f"{REPO}/actions/workflows/ci.yml/dispatches", "-f", "ref=main",
        "-f", "inputs[channel]=stable", "-i",
    )  # fmt: skip
    assert (code, mutated) == (0, True)
    assert out.startswith("HTTP/2.0 204 No Content\n")


def test_rerun_failed_jobs_and_cancel(world: World) -> None:
    assert (
        gh(world, "api", "-X", "POST", f"{REPO}/actions/runs/13500000003/rerun-failed-jobs")[0] == 0
    )
    run = world.workflow_run(13500000003)
    assert run is not None and run.run_attempt == 2
    assert gh(world, "api", "-X", "POST", f"{REPO}/actions/runs/13500000003/cancel")[0] == 0
    assert run.conclusion == "cancelled"


def test_pull_diff_with_accept_header(world: World) -> None:
    out = gh(world, "api", f"{REPO}/pulls/8", "-H", "Accept: application/vnd.github.v3.diff")[1]
    assert out.startswith("diff --git a/src/tinykv/wal.py b/src/tinykv/wal.py\n")


def test_merge_and_release_routes(world: World) -> None:
    merged = json.loads(
        gh(world, "api", "-X", "PUT", f"{REPO}/pulls/7/merge", "-f", "merge_method=squash")[1]
    )
    assert merged["merged"] is True
    release = json.loads(gh(world, "api", f"{REPO}/releases/latest")[1])
    assert release["tag_name"] == "v0.3.2"


def test_viewer(world: World) -> None:
    assert gh(world, "api", "user", "--jq", ".login")[1] == "bench-bot\n"


def test_wrongly_typed_value_is_a_validation_error(world: World) -> None:
    code, out, err, mutated = gh(
        world, "api", "-X", "PATCH", f"{REPO}/issues/3", "-F", "milestone=abc"
    )
    assert (code, mutated) == (1, False)
    assert err.startswith("gh: Validation Failed (HTTP 422)")
    assert json.loads(out)["status"] == "422"
