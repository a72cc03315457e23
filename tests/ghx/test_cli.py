"""The ghx command line in process: ``run_ghx(argv, client, stdin, repo)`` over HTTP on a
served world."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.ghx.cli import GHX_USAGE, CliResult, example_input, run_ghx
from pytest_ghxbench.ghx.registry import all_capabilities, get_capability, validate_input
from pytest_ghxbench.sandbox.manifest import seeded
from pytest_ghxbench.sandbox.state import World
from tests.ghx.conftest import client_for

REPO = {"owner": "acme-labs", "name": "tinykv"}
ISSUE_ID = seeded().manifest["resources"]["issue"]["id"]


def run(world: World, *argv: str, stdin: str = "") -> CliResult:
    return run_ghx(list(argv), lambda: client_for(world), stdin, "acme-labs/tinykv")


def output(result: CliResult) -> Any:
    assert result.stdout.endswith("\n") and result.stdout.count("\n") == 1
    return json.loads(result.stdout)


def test_run_prints_ok_and_data_only_as_one_compact_line(world: World) -> None:
    result = run(world, "run", "repo.view", "--input", json.dumps(REPO))
    assert result.exit_code == 0 and result.stderr == ""
    shown = output(result)
    assert list(shown) == ["ok", "data"]
    assert shown["ok"] is True and shown["data"]["nameWithOwner"] == "acme-labs/tinykv"
    assert result.stdout == json.dumps(shown, separators=(",", ":")) + "\n"


def test_input_equals_form_and_flags_after_or_before_the_capability(world: World) -> None:
    first = run(world, "run", "repo.view", f"--input={json.dumps(REPO)}")
    second = run(world, "run", "--input", json.dumps(REPO), "repo.view")
    assert first.exit_code == second.exit_code == 0
    assert first.stdout == second.stdout


def test_input_dash_reads_stdin(world: World) -> None:
    result = run(world, "run", "repo.view", "--input", "-", stdin=json.dumps(REPO) + "\n")
    assert result.exit_code == 0
    assert output(result)["data"]["name"] == "tinykv"


def test_mutation_changes_the_world_and_says_so(world: World) -> None:
    payload = json.dumps({"issueId": ISSUE_ID, "body": "Looking into it."})
    result = run(world, "run", "issue.comments.create", "--input", payload)
    assert result.exit_code == 0
    issue = world.issue(3)
    assert issue is not None and issue.comments[-1].body == "Looking into it."
    assert issue.comments[-1].author == world.viewer


def test_unknown_capability_is_an_unsupported_envelope_with_exit_1(world: World) -> None:
    result = run(world, "run", "repo.veiw", "--input", json.dumps(REPO))
    assert result.exit_code == 1
    shown = output(result)
    assert shown["ok"] is False and list(shown) == ["ok", "error"]
    assert shown["error"]["code"] == "UNSUPPORTED"
    assert "repo.veiw" in shown["error"]["message"] and "repo.view" in shown["error"]["message"]


def test_invalid_input_is_a_validation_envelope_with_exit_1(world: World) -> None:
    payload = json.dumps({"issueId": ISSUE_ID, "body": "x", "colour": "red"})
    result = run(world, "run", "issue.comments.create", "--input", payload)
    assert result.exit_code == 1
    error = output(result)["error"]
    assert error["code"] == "VALIDATION" and "colour" in error["message"]
    issue = world.issue(3)
    assert issue is not None and all(c.body != "x" for c in issue.comments)


def test_handler_failure_of_a_mutation_exits_1(world: World) -> None:
    payload = json.dumps({"issueId": "I_kwDOnope", "body": "x"})
    result = run(world, "run", "issue.comments.create", "--input", payload)
    assert result.exit_code == 1 and output(result)["error"]["code"] == "NOT_FOUND"


def test_verbose_prints_the_full_envelope_with_meta(world: World) -> None:
    result = run(world, "run", "repo.view", "--input", json.dumps(REPO), "--verbose")
    shown = output(result)
    assert set(shown) == {"ok", "data", "error", "meta"} and shown["error"] is None
    meta = shown["meta"]
    assert meta["capability_id"] == "repo.view" and meta["route_used"] == "cli"
    assert meta["attempts"] == [{"route": "cli", "status": "ok"}]
    assert meta["timings"]["total_ms"] >= 0


def test_verbose_error_has_no_route(world: World) -> None:
    result = run(world, "run", "--verbose", "nope.view", "--input", "{}")
    shown = output(result)
    assert result.exit_code == 1 and shown["data"] is None
    assert shown["meta"]["capability_id"] == "nope.view" and shown["meta"]["route_used"] is None


@pytest.mark.parametrize(
    ("argv", "stdin", "expected"),
    [
        (["run", "repo.view", "--input", "{owner: 1}"], "", "--input is not valid JSON"),
        (["run", "repo.view", "--input", '{"a":'], "", "line 1, column 6"),
        (["run", "repo.view", "--input", "-"], "not json", "stdin is not valid JSON"),
        (["run", "repo.view", "--input", "-"], "", "stdin is empty"),
        (["run", "repo.view"], "", "missing --input"),
        (["run", "repo.view", "--input"], "", "--input needs a value"),
        (["run", "repo.view", "--input", "{}", "--input", "{}"], "", "more than once"),
        (["run", "--input", "{}"], "", "missing capability id"),
        (["run", "repo.view", "issue.view", "--input", "{}"], "", "unexpected argument"),
        (["run", "repo.view", "--input", "{}", "--json"], "", "unknown flag '--json'"),
        (["issues"], "", "unknown command 'issues'"),
        (["capabilities"], "", "expected 'list' or 'explain <id>'"),
        (["capabilities", "show"], "", "unknown subcommand 'show'"),
        (["capabilities", "explain"], "", "exactly one capability id"),
        (["capabilities", "list", "--domain", "gists"], "", "unknown domain 'gists'"),
        (["capabilities", "list", "--all"], "", "unexpected argument '--all'"),
    ],
)
def test_usage_errors_exit_2_and_name_the_problem(
    world: World, argv: list[str], stdin: str, expected: str
) -> None:
    result = run(world, *argv, stdin=stdin)
    assert result.exit_code == 2 and result.stdout == ""
    assert expected in result.stderr


def test_help_prints_the_usage_and_exits_0(world: World) -> None:
    for argv in (["--help"], ["-h"], ["help"], ["run", "--help"], ["capabilities", "-h"]):
        result = run(world, *argv)
        assert (result.exit_code, result.stdout) == (0, GHX_USAGE), argv


def test_no_arguments_prints_the_usage_on_stderr_and_exits_2(world: World) -> None:
    assert run(world) == CliResult(2, "", GHX_USAGE)


def test_usage_is_short_and_names_every_command() -> None:
    # The usage text is read by agents: it is part of what the ghx mode costs.
    assert len(GHX_USAGE.splitlines()) <= 12 and len(GHX_USAGE) < 700
    for fragment in ("run <capability> --input", "--input -", "--verbose", "list", "explain"):
        assert fragment in GHX_USAGE


def test_capabilities_list_has_one_line_per_capability(world: World) -> None:
    result = run(world, "capabilities", "list")
    lines = result.stdout.splitlines()
    caps = all_capabilities()
    assert result.exit_code == 0 and len(lines) == len(caps) >= 30
    for line, cap in zip(lines, caps, strict=True):
        assert line.startswith(f"{cap.id}  {cap.description}")
    view = get_capability("issue.view")
    assert view is not None
    assert f"issue.view  {view.description} [owner, name, issueNumber]" in lines


def test_capabilities_list_json_and_domain(world: World) -> None:
    listed = json.loads(run(world, "capabilities", "list", "--json").stdout)
    assert [entry["capability_id"] for entry in listed] == [c.id for c in all_capabilities()]
    assert listed[0] == {
        "capability_id": all_capabilities()[0].id,
        "description": all_capabilities()[0].description,
        "required_inputs": list(all_capabilities()[0].input_schema["required"]),
    }
    repo_only = run(world, "capabilities", "list", "--domain=repo", "--json")
    ids = [entry["capability_id"] for entry in json.loads(repo_only.stdout)]
    assert ids and all(i.startswith("repo.") for i in ids) and "repo.view" in ids


def test_explain_shows_description_route_schema_and_a_runnable_example(world: World) -> None:
    result = run(world, "capabilities", "explain", "repo.view")
    explained = output(result)
    cap = get_capability("repo.view")
    assert cap is not None and result.exit_code == 0
    assert explained["capability_id"] == "repo.view"
    assert explained["description"] == cap.description and explained["route"] == "cli"
    assert explained["input_schema"] == cap.input_schema
    assert explained["example_input"] == REPO
    again = run(world, "run", "repo.view", "--input", json.dumps(explained["example_input"]))
    assert again.exit_code == 0


def test_example_inputs_have_the_required_keys_and_the_schema_types(world: World) -> None:
    update = get_capability("issue.update")  # requires issueId and (title or body)
    assert update is not None and example_input(update, "acme-labs/tinykv") == {
        "issueId": "<issueId>",
        "title": "<title>",
    }
    for cap in all_capabilities():
        example = example_input(cap, "acme-labs/tinykv")
        required = list(cap.input_schema.get("required", []))
        assert list(example)[: len(required)] == required, cap.id
        validate_input(cap, example, strict=True)  # raises on a wrong type or missing key


def test_explain_unknown_capability_exits_1_with_suggestions(world: World) -> None:
    result = run(world, "capabilities", "explain", "issue.veiw")
    assert result.exit_code == 1 and result.stdout == ""
    assert "unknown capability 'issue.veiw'" in result.stderr and "issue.view" in result.stderr


@pytest.mark.parametrize(
    ("env", "api_url", "token"),
    [
        ({"GH_TOKEN": "t1"}, "https://api.github.com", "t1"),
        ({"GITHUB_TOKEN": "t2", "GH_HOST": "github.com"}, "https://api.github.com", "t2"),
        ({"GH_TOKEN": "t3", "GH_HOST": "github.localhost"}, "http://api.github.localhost", "t3"),
        (
            {"GH_HOST": "ghe.example.com", "GH_TOKEN": "t4", "GH_ENTERPRISE_TOKEN": "t5"},
            "https://ghe.example.com/api/v3",
            "t5",
        ),
        ({"GITHUB_API_URL": "http://127.0.0.1:9/api/v3", "GH_TOKEN": "t6"}, None, "t6"),
    ],
)
def test_the_github_and_token_come_from_the_environment_as_gh_reads_them(
    env: dict[str, str], api_url: str | None, token: str
) -> None:
    from pytest_ghxbench.ghx.cli import client_from_env

    client = client_from_env(env)
    assert client.api_url == (api_url or env["GITHUB_API_URL"])
    assert client.token == token
    assert token not in repr(client)


def test_ghx_as_a_process_on_a_sandbox_item(tmp_path: Path) -> None:
    """The item's ``ghx`` (a real process) reaches the item's world through the proxy."""
    import subprocess

    from pytest_ghxbench.sandbox.backend import SandboxBackend

    backend = SandboxBackend()
    item = backend.open_session("ghx-process", tmp_path, mode="ghx")
    try:
        env = dict(item.env)
        payload = json.dumps({"issueId": ISSUE_ID, "body": "from a process"})
        done = subprocess.run(
            ["ghx", "run", "issue.comments.create", "--input", "-"],
            input=payload,
            env={**env, "LANG": "C.UTF-8"},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["ok"] is True
        issue = item.world.issue(3)
        assert issue is not None and issue.comments[-1].body == "from a process"
        assert env["GH_TOKEN"] not in done.stdout + done.stderr
    finally:
        item.close()
        backend.close()
