"""``gh issue`` in the sandbox."""

from __future__ import annotations

import json

from pytest_ghxbench.sandbox.dialects.gh_cli import run_gh
from pytest_ghxbench.sandbox.state import World


def gh(world: World, *argv: str) -> tuple[int, str, str, bool]:
    result = run_gh(world, argv)
    return result.exit_code, result.stdout, result.stderr, result.mutated


def test_view_prints_gh_key_value_block(world: World) -> None:
    code, out, _, _ = gh(world, "issue", "view", "3")
    assert code == 0
    head, _, body = out.partition("--\n")
    issue = world.issue(3)
    assert issue is not None
    assert head.splitlines() == [
        f"title:\t{issue.title}",
        "state:\tOPEN",
        "author:\tdana-ops",
        "labels:\tbug, performance",
        f"comments:\t{len(issue.comments)}",
        "assignees:\tmona",
        "projects:\ttinykv roadmap",
        "milestone:\tv0.4.0",
        "number:\t3",
    ]
    assert body == issue.body.rstrip("\n") + "\n"


def test_view_json_fields(world: World) -> None:
    out = gh(
        world,
        "issue",
        "view",
        "3",
        "--json",
        "number,state,stateReason,milestone,labels,closedByPullRequestsReferences",
    )[1]
    data = json.loads(out)
    assert data["state"] == "OPEN" and data["stateReason"] == ""
    assert data["milestone"]["title"] == "v0.4.0"
    assert [label["name"] for label in data["labels"]] == ["bug", "performance"]
    assert [p["number"] for p in data["closedByPullRequestsReferences"]] == [7]


def test_view_comments_in_raw_format(world: World) -> None:
    out = gh(world, "issue", "view", "5", "--comments")[1]
    issue = world.issue(5)
    assert issue is not None and issue.comments
    first = issue.comments[0]
    assert out.startswith(f"author:\t{first.author}\nassociation:\t")
    assert out.count("\n--\n") == 2 * len(issue.comments)


def test_list_rows_number_state_title_labels_updated(world: World) -> None:
    code, out, _, _ = gh(world, "issue", "list", "--label", "question")
    assert code == 0
    assert out == "6\tOPEN\tIs Windows supported?\tneeds-triage, question\t2026-02-24T19:11:00Z\n"


def test_list_state_and_limit(world: World) -> None:
    closed = json.loads(gh(world, "issue", "list", "-s", "closed", "--json", "number")[1])
    assert closed == [{"number": 2}]
    numbers = json.loads(gh(world, "issue", "list", "--json", "number", "-L", "2")[1])
    assert numbers == [{"number": 6}, {"number": 5}]
    mine = json.loads(gh(world, "issue", "list", "--assignee", "mona", "--json", "number")[1])
    assert mine == [{"number": 3}, {"number": 1}]


def test_missing_issue(world: World) -> None:
    code, _, err, _ = gh(world, "issue", "view", "42")
    assert code == 1
    assert err == (
        "GraphQL: Could not resolve to an issue or pull request with the number of 42. "
        "(repository.issue)\n"
    )


def test_create_prints_url_and_adds_issue(world: World) -> None:
    code, out, _, mutated = gh(
        world, "issue", "create", "-t", "Flaky test", "-b", "Seen twice", "-l", "bug",
        "-a", "@me", "--milestone", "v0.5.0",
    )  # fmt: skip
    assert (code, mutated) == (0, True)
    number = max(i.number for i in world.issues)
    assert number == 10  # issues and pull requests share numbers 1..9
    assert out == f"https://github.com/acme-labs/tinykv/issues/{number}\n"
    issue = world.issue(number)
    assert issue is not None
    assert (issue.title, issue.body, issue.labels, issue.assignees, issue.milestone) == (
        "Flaky test",
        "Seen twice",
        ["bug"],
        ["bench-bot"],
        2,
    )


def test_create_without_body_is_refused(world: World) -> None:
    code, _, err, mutated = gh(world, "issue", "create", "--title", "x")
    assert (code, mutated) == (1, False)
    assert err.startswith("must provide `--title` and `--body` when not running interactively")


def test_edit_labels_assignees_milestone_title_body(world: World) -> None:
    code, out, _, _ = gh(
        world, "issue", "edit", "3", "--add-label", "issues", "--remove-label", "performance",
        "--add-assignee", "octocat", "--milestone", "v0.5.0", "-t", "New", "-b", "Body",
    )  # fmt: skip
    assert (code, out) == (0, "https://github.com/acme-labs/tinykv/issues/3\n")
    issue = world.issue(3)
    assert issue is not None
    assert issue.labels == ["bug", "issues"]
    assert issue.assignees == ["mona", "octocat"]
    assert (issue.milestone, issue.title, issue.body) == (2, "New", "Body")


def test_edit_remove_milestone_and_several_issues(world: World) -> None:
    out = gh(world, "issue", "edit", "4", "5", "--remove-milestone")[1]
    assert out.splitlines() == [
        "https://github.com/acme-labs/tinykv/issues/4",
        "https://github.com/acme-labs/tinykv/issues/5",
    ]
    assert world.issue(4).milestone is None and world.issue(5).milestone is None  # type: ignore[union-attr]


def test_edit_without_changes_is_flag_error(world: World) -> None:
    code, _, err, _ = gh(world, "issue", "edit", "3")
    assert code == 1
    assert err.startswith("field to edit flag required when not running interactively\n\nUsage:")


def test_close_with_reason_and_comment_then_reopen(world: World) -> None:
    code, _, err, mutated = gh(world, "issue", "close", "3", "-r", "not planned", "-c", "dup")
    assert (code, mutated) == (0, True)
    issue = world.issue(3)
    assert issue is not None
    assert err == f"✓ Closed issue acme-labs/tinykv#3 ({issue.title})\n"
    assert (issue.state, issue.state_reason, issue.comments[-1].body) == (
        "CLOSED",
        "NOT_PLANNED",
        "dup",
    )
    code, _, err, mutated = gh(world, "issue", "close", "3")
    assert (code, mutated) == (0, False) and "is already closed" in err
    assert gh(world, "issue", "reopen", "3")[0] == 0
    assert issue.state == "OPEN"


def test_comment_from_stdin_body_file(world: World) -> None:
    result = run_gh(world, ["issue", "comment", "6", "--body-file", "-"], stdin="From stdin")
    assert result.exit_code == 0
    issue = world.issue(6)
    assert issue is not None and issue.comments[-1].body == "From stdin"
    assert result.stdout.startswith("https://github.com/acme-labs/tinykv/issues/6#issuecomment-")


def test_delete_needs_yes(world: World) -> None:
    code, _, err, mutated = gh(world, "issue", "delete", "6")
    assert (code, mutated) == (1, False)
    assert err.startswith("--yes required when not running interactively")
    code, _, err, mutated = gh(world, "issue", "delete", "6", "--yes")
    assert (code, mutated) == (0, True)
    assert world.issue(6) is None
    assert err == "✓ Deleted issue acme-labs/tinykv#6 (Is Windows supported?).\n"
