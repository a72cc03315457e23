"""``gh pr`` in the sandbox: gh's text and JSON output, world changes, gh's errors."""

from __future__ import annotations

import json

from pytest_ghxbench.sandbox.dialects.gh_cli import run_gh
from pytest_ghxbench.sandbox.state import World


def gh(world: World, *argv: str) -> tuple[int, str, str, bool]:
    result = run_gh(world, argv)
    return result.exit_code, result.stdout, result.stderr, result.mutated


def test_view_prints_gh_key_value_block_then_body(world: World) -> None:
    code, out, err, mutated = gh(world, "pr", "view", "7")
    assert (code, err, mutated) == (0, "", False)
    head, _, body = out.partition("--\n")
    fields = dict(line.split("\t", 1) for line in head.splitlines())
    assert fields["title:"] == "Release the compaction lock before writing snapshots"
    assert fields["state:"] == "OPEN"
    assert fields["labels:"] == "bug, performance"
    assert fields["reviewers:"] == (
        "dana-ops (Changes requested), hubot (Commented), lee-k (Requested)"
    )
    assert fields["milestone:"] == "v0.4.0"
    assert fields["additions:"] == "54"  # 9 + 14 + 31 in the seed's three files
    assert body.rstrip().endswith("Fixes #3")


def test_view_json_uses_gh_field_names_and_shapes(world: World) -> None:
    code, out, _, _ = gh(
        world,
        "pr",
        "view",
        "7",
        "-R",
        "acme-labs/tinykv",
        "--json",
        "number,author,isDraft,reviewDecision,files,reviewRequests,closingIssuesReferences",
    )
    assert code == 0
    data = json.loads(out)
    assert sorted(data) == [
        "author",
        "closingIssuesReferences",
        "files",
        "isDraft",
        "number",
        "reviewDecision",
        "reviewRequests",
    ]
    assert data["author"]["login"] == "mona" and data["author"]["is_bot"] is False
    assert data["reviewDecision"] == "CHANGES_REQUESTED"
    assert data["reviewRequests"] == [{"__typename": "User", "login": "lee-k"}]
    assert [f["changeType"] for f in data["files"]] == ["MODIFIED", "MODIFIED", "ADDED"]
    assert [i["number"] for i in data["closingIssuesReferences"]] == [3]
    assert out.endswith("\n") and "\n" not in out[:-1]  # compact, one line, as on a pipe


def test_view_by_url_and_branch_select_the_same_pull_request(world: World) -> None:
    by_url = gh(world, "pr", "view", "https://github.com/acme-labs/tinykv/pull/7", "--json", "id")
    by_branch = gh(world, "pr", "view", "fix/compaction-lock", "--json", "id")
    assert by_url[1] == by_branch[1] == gh(world, "pr", "view", "#7", "--json", "id")[1]


def test_unknown_json_field_lists_the_available_ones(world: World) -> None:
    code, out, err, _ = gh(world, "pr", "view", "7", "--json", "number,bogus")
    assert code == 1 and out == ""
    assert err.startswith('Unknown JSON field: "bogus"\nAvailable fields:\n  additions\n')
    assert "  statusCheckRollup\n" in err


def test_json_without_fields_prints_the_field_list(world: World) -> None:
    code, _, err, _ = gh(world, "pr", "list", "--json")
    assert code == 1
    assert err.startswith("Specify one or more comma-separated fields for `--json`:\n")


def test_jq_filters_the_exported_json(world: World) -> None:
    code, out, _, _ = gh(
        world, "pr", "list", "--state", "all", "--json", "number,state", "-q", ".[].number"
    )
    assert (code, out) == (0, "9\n8\n7\n")


def test_list_rows_are_tab_separated_without_header(world: World) -> None:
    code, out, _, _ = gh(world, "pr", "list")
    assert code == 0
    assert out.splitlines() == [
        "8\tWIP: configurable WAL fsync policy\tfeat/wal-fsync-policy\tDRAFT\t2026-02-25T15:00:00Z",
        "7\tRelease the compaction lock before writing snapshots\tfix/compaction-lock\tOPEN"
        "\t2026-02-20T09:00:00Z",
    ]


def test_list_filters_by_state_label_and_limit(world: World) -> None:
    merged = gh(world, "pr", "list", "-s", "merged", "--json", "number")[1]
    assert json.loads(merged) == [{"number": 9}]
    labelled = gh(world, "pr", "list", "--label", "enhancement", "--json", "number")[1]
    assert json.loads(labelled) == [{"number": 8}]
    limited = gh(world, "pr", "list", "--state", "all", "-L", "1", "--json", "number")[1]
    assert json.loads(limited) == [{"number": 9}]


def test_invalid_state_is_gh_flag_error(world: World) -> None:
    code, _, err, _ = gh(world, "pr", "list", "--state", "bogus")
    assert code == 1
    assert err.startswith(
        'invalid argument "bogus" for "-s, --state" flag: valid values are '
        "{open|closed|merged|all}\n\nUsage:  gh pr list [flags]"
    )


def test_missing_pull_request_is_graphql_not_found(world: World) -> None:
    code, _, err, _ = gh(world, "pr", "view", "99")
    assert code == 1
    assert err == (
        "GraphQL: Could not resolve to a PullRequest with the number of 99. "
        "(repository.pullRequest)\n"
    )


def test_other_repository_cannot_be_resolved(world: World) -> None:
    code, _, err, _ = gh(world, "pr", "view", "7", "--repo", "octo/other")
    assert code == 1
    assert "Could not resolve to a Repository with the name 'octo/other'" in err


def test_unknown_subcommand_and_flag(world: World) -> None:
    code, _, err, _ = gh(world, "pr", "foo")
    assert code == 1 and err.startswith('unknown command "foo" for "gh pr"\n')
    code, _, err, _ = gh(world, "pr", "view", "7", "--bogus")
    assert code == 1 and err.startswith("unknown flag: --bogus\n\nUsage:  gh pr view")


def test_diff_name_only_and_patch(world: World) -> None:
    assert gh(world, "pr", "diff", "7", "--name-only")[1] == (
        "src/tinykv/compaction.py\nsrc/tinykv/snapshot.py\ntests/test_compaction.py\n"
    )
    patch = gh(world, "pr", "diff", "7")[1]
    assert "diff --git a/tests/test_compaction.py b/tests/test_compaction.py\n" in patch
    assert "new file mode 100644\n" in patch and "--- /dev/null\n" in patch
    assert "\n+        merged = self._merge_sorted(segments)\n" in patch


def test_checks_rows_and_exit_status_on_failure(world: World) -> None:
    code, out, _, _ = gh(world, "pr", "checks", "7")
    assert code == 1  # a failing check: gh exits 1 without a message
    rows = [line.split("\t") for line in out.splitlines()]
    assert rows[0][:3] == ["test (3.12)", "fail", "6m20s"]
    assert {row[0]: row[1] for row in rows} == {
        "test (3.12)": "fail",
        "codecov/patch": "skipping",
        "lint": "pass",
        "test (3.11)": "pass",
    }


def test_checks_json_exits_zero_and_has_buckets(world: World) -> None:
    code, out, _, _ = gh(world, "pr", "checks", "7", "--json", "name,bucket,state,workflow")
    assert code == 0
    checks = {c["name"]: c for c in json.loads(out)}
    assert checks["test (3.12)"] == {
        "bucket": "fail",
        "name": "test (3.12)",
        "state": "FAILURE",
        "workflow": "CI",
    }


def test_checks_pending_exit_eight_after_rerun(world: World) -> None:
    assert gh(world, "run", "rerun", "13500000003", "--failed")[0] == 0
    code, out, _, _ = gh(world, "pr", "checks", "7")
    assert code == 8
    assert "test (3.12)\tpending\t0\t" in out


def test_review_approve_adds_review_by_viewer(world: World) -> None:
    code, _, err, mutated = gh(world, "pr", "review", "7", "--approve", "-b", "LGTM")
    assert (code, mutated) == (0, True)
    assert err == "✓ Approved pull request acme-labs/tinykv#7\n"
    review = world.pull_request(7).reviews[-1]  # type: ignore[union-attr]
    assert (review.author, review.state, review.body) == ("bench-bot", "APPROVED", "LGTM")


def test_review_request_changes_needs_body_and_one_mode(world: World) -> None:
    code, _, err, mutated = gh(world, "pr", "review", "7", "--request-changes")
    assert (code, mutated) == (1, False)
    assert err.startswith("body cannot be blank for request-changes review")
    code, _, err, _ = gh(world, "pr", "review", "7", "-a", "-c", "-b", "x")
    assert code == 1 and "need exactly one of" in err
    code, _, _, _ = gh(world, "pr", "review", "7", "-r", "-b", "Please fix CI")
    assert code == 0
    assert world.pull_request(7).reviews[-1].state == "CHANGES_REQUESTED"  # type: ignore[union-attr]


def test_comment_prints_url_and_appends_comment(world: World) -> None:
    code, out, _, mutated = gh(world, "pr", "comment", "7", "--body", "Rebased.")
    assert (code, mutated) == (0, True)
    comment = world.pull_request(7).comments[-1]  # type: ignore[union-attr]
    assert comment.body == "Rebased." and comment.author == "bench-bot"
    assert out == f"https://github.com/acme-labs/tinykv/pull/7#issuecomment-{comment.id}\n"


def test_edit_changes_labels_assignees_reviewers_and_title(world: World) -> None:
    code, out, _, _ = gh(
        world,
        "pr",
        "edit",
        "7",
        "--add-label",
        "documentation",
        "--remove-label",
        "performance",
        "--add-assignee",
        "aryeko",
        "--add-reviewer",
        "octocat",
        "--title",
        "New title",
    )
    assert (code, out) == (0, "https://github.com/acme-labs/tinykv/pull/7\n")
    pull = world.pull_request(7)
    assert pull is not None
    assert pull.labels == ["bug", "documentation"]
    assert pull.assignees == ["mona", "aryeko"]
    assert pull.requested_reviewers == ["lee-k", "octocat"]
    assert pull.title == "New title"


def test_edit_unknown_label_changes_nothing(world: World) -> None:
    code, _, err, mutated = gh(world, "pr", "edit", "7", "--add-label", "nope")
    assert (code, mutated) == (1, False)
    assert err == "could not add label: 'nope' not found\n"


def test_ready_marks_draft_and_reports_already_ready(world: World) -> None:
    code, _, err, _ = gh(world, "pr", "ready", "8")
    assert (
        code == 0 and err == '✓ Pull request acme-labs/tinykv#8 is marked as "ready for review"\n'
    )
    assert world.pull_request(8).is_draft is False  # type: ignore[union-attr]
    code, _, err, mutated = gh(world, "pr", "ready", "8")
    assert (code, mutated) == (0, False) and "is already" in err


def test_merge_squash_deletes_branch_and_closes_linked_issue(world: World) -> None:
    code, _, err, mutated = gh(world, "pr", "merge", "7", "--squash", "--delete-branch")
    assert (code, mutated) == (0, True)
    assert err.startswith("✓ Squashed and merged pull request acme-labs/tinykv#7 (")
    assert world.pull_request(7).state == "MERGED"  # type: ignore[union-attr]
    assert world.issue(3).state == "CLOSED"  # type: ignore[union-attr]
    assert "fix/compaction-lock" not in {b.name for b in world.repository.branches}
    code, _, err, _ = gh(world, "pr", "merge", "7", "--merge")
    assert code == 1 and err == "Pull request acme-labs/tinykv#7 was already merged\n"


def test_merge_needs_a_method_when_not_interactive(world: World) -> None:
    code, _, err, mutated = gh(world, "pr", "merge", "7")
    assert (code, mutated) == (1, False)
    assert err.startswith("--merge, --rebase, or --squash required when not running interactively")


def test_merge_of_a_draft_is_refused(world: World) -> None:
    code, _, err, _ = gh(world, "pr", "merge", "8", "--merge")
    assert code == 1 and err == "Pull request acme-labs/tinykv#8 is still a draft\n"


def test_update_branch_reports_up_to_date(world: World) -> None:
    code, _, err, _ = gh(world, "pr", "update-branch", "7")
    assert code == 0 and err.startswith("✓ PR branch")


def test_close_and_reopen(world: World) -> None:
    assert gh(world, "pr", "close", "8", "-c", "Superseded")[0] == 0
    pull = world.pull_request(8)
    assert pull is not None and pull.state == "CLOSED" and pull.comments[-1].body == "Superseded"
    assert gh(world, "pr", "reopen", "8")[0] == 0
    assert world.pull_request(8) is pull and str(pull.state) == "OPEN"


def test_help_goes_to_stdout_with_exit_zero(world: World) -> None:
    code, out, _, _ = gh(world, "pr", "checks", "--help")
    assert code == 0
    assert "USAGE\n  gh pr checks [<number> | <url> | <branch>] [flags]\n" in out
    assert "JSON FIELDS\n" in out and "bucket" in out
