"""``gh api graphql`` in the sandbox: queries, mutations and GitHub's errors."""

from __future__ import annotations

import json

from pytest_ghxbench.sandbox.dialects.gh_cli import run_gh
from pytest_ghxbench.sandbox.state import World

THREAD = "PRRT_kwDOtinykv7001"
THREADS = """
query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 50) {
        totalCount
        nodes {
          id
          isResolved
          path
          comments(first: 10) { nodes { databaseId author { login } body } }
        }
      }
    }
  }
}
"""


def fill(template: str, **values: str) -> str:
    """``template`` with each placeholder word replaced (GraphQL's braces defeat f-strings)."""
    for key, value in values.items():
        template = template.replace(key, value)
    return template


def graphql(world: World, query: str, *fields: str) -> tuple[int, dict[str, object], str, bool]:
    result = run_gh(world, ["api", "graphql", "-f", f"query={query}", *fields])
    body = json.loads(result.stdout) if result.stdout.strip() else {}
    return result.exit_code, body, result.stderr, result.mutated


def test_review_threads_with_typed_variables(world: World) -> None:
    code, body, _, mutated = graphql(
        world, THREADS, "-F", "owner={owner}", "-F", "name={repo}", "-F", "number=7"
    )
    assert (code, mutated) == (0, False)
    threads = body["data"]["repository"]["pullRequest"]["reviewThreads"]  # type: ignore[index]
    assert threads["totalCount"] == 3
    assert [(t["id"], t["isResolved"]) for t in threads["nodes"]] == [
        ("PRRT_kwDOtinykv7001", False),
        ("PRRT_kwDOtinykv7002", False),
        ("PRRT_kwDOtinykv7003", True),
    ]
    first = threads["nodes"][0]["comments"]["nodes"][0]
    assert first == {
        "databaseId": 1900000001,
        "author": {"login": "dana-ops"},
        "body": first["body"],
    }


def test_resolve_and_unresolve_mutations(world: World) -> None:
    mutation = (
        "mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) "
        "{ thread { id isResolved } } }"
    )
    code, body, _, mutated = graphql(world, mutation, "-f", f"id={THREAD}")
    assert (code, mutated) == (0, True)
    assert body == {"data": {"resolveReviewThread": {"thread": {"id": THREAD, "isResolved": True}}}}
    found = world.review_thread(THREAD)
    assert found is not None and found[1].is_resolved and found[1].resolved_by == "bench-bot"
    graphql(
        world,
        mutation.replace("resolveReviewThread", "unresolveReviewThread"),
        "-f",
        f"id={THREAD}",
    )
    assert found[1].is_resolved is False


def test_reply_to_thread(world: World) -> None:
    mutation = (
        "mutation { addPullRequestReviewThreadReply(input: {pullRequestReviewThreadId: "
        f'"{THREAD}", body: "Addressed."}}) {{ comment {{ body author {{ login }} }} }} }}'
    )
    code, body, _, _ = graphql(world, mutation)
    assert code == 0
    assert body["data"] == {
        "addPullRequestReviewThreadReply": {
            "comment": {"body": "Addressed.", "author": {"login": "bench-bot"}}
        }
    }


def test_node_lookup_and_issue_mutations_by_node_id(world: World) -> None:
    issue = world.issue(3)
    blocker = world.issue(5)
    assert issue is not None and blocker is not None
    code, body, _, _ = graphql(
        world,
        fill('{ node(id: "ID") { __typename ... on Issue { number title } } }', ID=issue.node_id),
    )
    assert body["data"] == {"node": {"__typename": "Issue", "number": 3, "title": issue.title}}
    mutation = (
        "mutation($i: ID!, $b: ID!) { removeBlockedBy(input: {issueId: $i, blockingIssueId: $b}) "
        "{ issue { blockedBy(first: 5) { totalCount } } } }"
    )
    code, body, _, mutated = graphql(
        world, mutation, "-f", f"i={issue.node_id}", "-f", f"b={blocker.node_id}"
    )
    assert (code, mutated) == (0, True)
    assert body["data"] == {"removeBlockedBy": {"issue": {"blockedBy": {"totalCount": 0}}}}
    assert issue.blocked_by == []


def test_sub_issue_mutations(world: World) -> None:
    parent, child = world.issue(1), world.issue(6)
    assert parent is not None and child is not None
    mutation = fill(
        'mutation { addSubIssue(input: {issueId: "PARENT", subIssueId: "CHILD"}) '
        "{ issue { subIssues(first: 10) { nodes { number } } } } }",
        PARENT=parent.node_id,
        CHILD=child.node_id,
    )
    code, body, _, _ = graphql(world, mutation)
    assert code == 0 and child.parent == 1
    nodes = body["data"]["addSubIssue"]["issue"]["subIssues"]["nodes"]  # type: ignore[index]
    numbers = [n["number"] for n in nodes]
    assert 6 in numbers


def test_close_issue_with_reason_and_add_comment(world: World) -> None:
    issue = world.issue(6)
    assert issue is not None
    graphql(
        world,
        fill(
            'mutation { closeIssue(input: {issueId: "ID", stateReason: NOT_PLANNED}) '
            "{ issue { state } } }",
            ID=issue.node_id,
        ),
    )
    assert (issue.state, issue.state_reason) == ("CLOSED", "NOT_PLANNED")
    code, _, _, _ = graphql(
        world,
        fill(
            'mutation { addComment(input: {subjectId: "ID", body: "Won\'t fix"}) '
            "{ commentEdge { node { body } } } }",
            ID=issue.node_id,
        ),
    )
    assert code == 0 and issue.comments[-1].body == "Won't fix"


def test_unknown_field_is_rejected_before_running(world: World) -> None:
    mutation = fill(
        'mutation { resolveReviewThread(input: {threadId: "ID"}) { thread { nope } } }', ID=THREAD
    )
    code, body, err, mutated = graphql(world, mutation)
    assert (code, mutated) == (1, False)
    assert err == "gh: Field 'nope' doesn't exist on type 'PullRequestReviewThread'\n"
    assert body["errors"][0]["extensions"]["code"] == "undefinedField"  # type: ignore[index]
    found = world.review_thread(THREAD)
    assert found is not None and found[1].is_resolved is False


def test_not_found_returns_null_data_and_error(world: World) -> None:
    code, body, err, _ = graphql(
        world,
        '{ repository(owner: "acme-labs", name: "tinykv") { pullRequest(number: 99) { id } } }',
    )
    assert code == 1
    assert body["data"] == {"repository": {"pullRequest": None}}
    assert body["errors"][0]["type"] == "NOT_FOUND"  # type: ignore[index]
    assert err == "gh: Could not resolve to a PullRequest with the number of 99.\n"


def test_connections_need_first_or_last(world: World) -> None:
    code, _, err, _ = graphql(
        world, '{ repository(owner: "acme-labs", name: "tinykv") { labels { nodes { name } } } }'
    )
    assert code == 1
    assert (
        "You must provide a `first` or `last` value to properly paginate the `labels` connection."
        in err
    )


def test_syntax_error(world: World) -> None:
    code, _, err, _ = graphql(world, "{ viewer { login }")
    assert code == 1 and err == "gh: Unexpected end of document\n"


def test_selection_rules(world: World) -> None:
    code, _, err, _ = graphql(world, "{ viewer }")
    assert code == 1 and "Field must have selections" in err
    code, _, err, _ = graphql(world, "{ viewer { login { x } } }")
    assert code == 1 and "Selections can't be made on scalars" in err


def test_paginate_follows_end_cursor(world: World) -> None:
    query = (
        'query($endCursor: String) { repository(owner: "acme-labs", name: "tinykv") '
        "{ labels(first: 4, after: $endCursor) { nodes { name } "
        "pageInfo { hasNextPage endCursor } } } }"
    )
    result = run_gh(
        world,
        [
            "api",
            "graphql",
            "--paginate",
            "-f",
            f"query={query}",
            "-q",
            ".data.repository.labels.nodes[].name",
        ],
    )
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [label.name for label in world.labels]


def test_status_check_rollup_on_head_commit(world: World) -> None:
    query = (
        '{ repository(owner: "acme-labs", name: "tinykv") { pullRequest(number: 7) { '
        "commits(last: 1) { nodes { commit { statusCheckRollup { state contexts(first: 20) "
        "{ nodes { ... on CheckRun { name conclusion } } } } } } } } } }"
    )
    code, body, _, _ = graphql(world, query)
    assert code == 0
    commit = body["data"]["repository"]["pullRequest"]["commits"]["nodes"][0]["commit"]  # type: ignore[index]
    assert commit["statusCheckRollup"]["state"] == "FAILURE"
    names = {n["name"]: n["conclusion"] for n in commit["statusCheckRollup"]["contexts"]["nodes"]}
    assert names["test (3.12)"] == "FAILURE" and names["lint"] == "SUCCESS"


def test_project_field_update_mutation(world: World) -> None:
    project = world.project("acme-labs", 1)
    assert project is not None
    mutation = fill(
        'mutation { updateProjectV2ItemFieldValue(input: {projectId: "ID", itemId: '
        '"PVTI_kwDOtinykv0002", fieldId: "PVTSSF_kwDOtinykvF0003", value: '
        '{singleSelectOptionId: "98236657"}}) { projectV2Item { id } } }',
        ID=project.node_id,
    )
    code, _, _, mutated = graphql(world, mutation)
    assert (code, mutated) == (0, True)
    item = next(i for i in project.items if i.id == "PVTI_kwDOtinykv0002")
    assert item.field_values["PVTSSF_kwDOtinykvF0003"] == "98236657"


def test_issue_types_and_viewer(world: World) -> None:
    code, body, _, _ = graphql(
        world,
        '{ viewer { login } repository(owner: "acme-labs", name: "tinykv") '
        "{ issueTypes(first: 10) { nodes { name } } } }",
    )
    assert code == 0
    assert body["data"] == {
        "viewer": {"login": "bench-bot"},
        "repository": {
            "issueTypes": {"nodes": [{"name": "Bug"}, {"name": "Feature"}, {"name": "Task"}]}
        },
    }


def test_string_for_int_variable_is_rejected_like_github(world: World) -> None:
    query = (
        'query($n: Int!) { repository(owner: "acme-labs", name: "tinykv") '
        "{ issue(number: $n) { title } } }"
    )
    code, body, err, _ = graphql(world, query, "-f", "n=3")
    assert code == 1
    assert err == "gh: Variable $n of type Int! was provided invalid value\n"
    problem = body["errors"][0]["extensions"]["problems"][0]  # type: ignore[index]
    assert problem["explanation"] == 'Could not coerce value "3" to Int'
    assert graphql(world, query, "-F", "n=3")[0] == 0


def test_missing_required_variable(world: World) -> None:
    code, _, err, _ = graphql(world, "query($n: Int!) { viewer { login } }")
    assert (code, err) == (1, "gh: Variable $n of type Int! was provided invalid value\n")


def test_argument_of_wrong_type(world: World) -> None:
    code, _, err, _ = graphql(
        world, '{ repository(owner: "acme-labs", name: "tinykv") { issue(number: "x") { id } } }'
    )
    assert code == 1
    assert err == 'gh: Argument on Field \'issue\' has an invalid value ({"number": "x"}).\n'
