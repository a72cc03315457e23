"""The MCP tool catalogue: valid schemas, the GitHub MCP server's names, every capability reachable.

Surface size, as compact JSON of ``tools_list_payload()``: 8,803 tokens (o200k_base) and 8,541
(cl100k_base) for 31 tools; ``test_surface_size_matches_the_documented_count`` keeps the module
docstring's numbers true and prints them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest

from pytest_ghxbench.sandbox.dialects import mcp_tools
from pytest_ghxbench.sandbox.dialects.mcp_tools import (
    CAPABILITY_FOR_TOOL,
    TOOLS,
    TOOLS_BY_NAME,
    load_catalogue,
    routes_for_capability,
    tools_list_payload,
)
from pytest_ghxbench.tokens import count_json
from tests.paths import EXTERNAL_SCENARIOS

# Capabilities the GitHub MCP server has no tool for, with the reason.
UNREACHABLE = {
    "issue.delete": "the server has no tool that deletes an issue",
}

# The tools issue 3 names, spelled as the server spells them.
REQUIRED_TOOLS = {
    "pull_request_read", "list_pull_requests", "pull_request_review_write",
    "add_reply_to_pull_request_comment", "issue_read", "issue_write", "list_issues",
    "add_issue_comment", "sub_issue_write", "actions_list", "actions_get",
    "actions_run_trigger", "get_job_logs", "list_label", "list_releases", "get_latest_release",
    "get_release_by_tag", "search_issues", "get_me", "update_pull_request",
    "merge_pull_request", "update_pull_request_branch", "projects_list", "projects_get",
    "projects_write",
}  # fmt: skip


def scenario_capabilities() -> set[str]:
    """Every capability the external scenarios use: atomic tasks and workflow expectations."""
    found: set[str] = set()
    for path in [*EXTERNAL_SCENARIOS.glob("*.json"), *EXTERNAL_SCENARIOS.glob("workflows/*.json")]:
        document = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(document, dict) and isinstance(document.get("task"), str):
            found.add(document["task"])
        if isinstance(document, dict):
            found.update(document.get("expected_capabilities", []))
    return found


needs_external = pytest.mark.skipif(
    not EXTERNAL_SCENARIOS.is_dir(), reason="shared/external is not beside the checkout"
)


def object_schemas(schema: dict[str, Any], where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object schema in ``schema`` with its path, the schema itself first."""
    if schema.get("type") == "object":
        yield where, schema
    for name, child in schema.get("properties", {}).items():
        yield from object_schemas(child, f"{where}.{name}")
    if isinstance(schema.get("items"), dict):
        yield from object_schemas(schema["items"], f"{where}[]")


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_input_schema_is_valid_json_schema(tool: mcp_tools.ToolSpec) -> None:
    jsonschema.Draft202012Validator.check_schema(tool.input_schema)
    jsonschema.Draft7Validator.check_schema(tool.input_schema)


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_required_parameters_are_declared(tool: mcp_tools.ToolSpec) -> None:
    for where, schema in object_schemas(tool.input_schema, tool.name):
        missing = set(schema.get("required", [])) - set(schema.get("properties", {}))
        assert not missing, f"{where}: required but not declared: {sorted(missing)}"


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_every_parameter_is_described(tool: mcp_tools.ToolSpec) -> None:
    # The descriptions are what an agent reads; the real server describes every parameter.
    for name, parameter in tool.input_schema["properties"].items():
        assert parameter.get("description", "").strip(), f"{tool.name}.{name} has no description"
    assert len(tool.description) >= 50, f"{tool.name}: description too thin to be realistic"
    assert tool.annotations.get("title")


def test_names_are_unique_and_indexed() -> None:
    names = [tool.name for tool in TOOLS]
    assert len(names) == len(set(names)) == len(TOOLS_BY_NAME) == 31
    assert all(TOOLS_BY_NAME[tool.name] is tool for tool in TOOLS)


def test_the_issue_s_tools_are_there_by_their_server_names() -> None:
    assert set(TOOLS_BY_NAME) >= REQUIRED_TOOLS


def test_method_enums_follow_the_server() -> None:
    assert TOOLS_BY_NAME["pull_request_read"].methods == (
        "get", "get_diff", "get_status", "get_files", "get_commits",
        "get_review_comments", "get_reviews", "get_comments", "get_check_runs",
    )  # fmt: skip
    assert TOOLS_BY_NAME["pull_request_review_write"].methods == (
        "create", "submit_pending", "delete_pending", "resolve_thread", "unresolve_thread",
    )  # fmt: skip
    assert TOOLS_BY_NAME["issue_write"].methods == ("create", "update")
    assert TOOLS_BY_NAME["actions_run_trigger"].methods == (
        "run_workflow", "rerun_workflow_run", "rerun_failed_jobs", "cancel_workflow_run",
        "delete_workflow_run_logs",
    )  # fmt: skip
    assert TOOLS_BY_NAME["get_job_logs"].methods == ()


def test_parameter_names_follow_the_server_s_mixed_casing() -> None:
    # The server mixes camelCase and snake_case; agents trained on it expect exactly this.
    assert "pullNumber" in TOOLS_BY_NAME["pull_request_read"].input_schema["properties"]
    assert "issue_number" in TOOLS_BY_NAME["issue_read"].input_schema["properties"]
    assert (
        "commentId" in TOOLS_BY_NAME["add_reply_to_pull_request_comment"].input_schema["properties"]
    )
    assert "threadId" in TOOLS_BY_NAME["pull_request_review_write"].input_schema["properties"]


def test_read_only_hints_match_what_the_tools_do() -> None:
    writers = {tool.name for tool in TOOLS if not tool.read_only}
    assert writers == {
        "issue_write", "add_issue_comment", "sub_issue_write", "issue_dependency_write",
        "update_pull_request", "merge_pull_request", "update_pull_request_branch",
        "pull_request_review_write", "add_reply_to_pull_request_comment",
        "actions_run_trigger", "create_release", "update_release", "projects_write",
    }  # fmt: skip


def test_arguments_validate_against_the_schemas() -> None:
    read = jsonschema.Draft202012Validator(TOOLS_BY_NAME["pull_request_read"].input_schema)
    good = {"method": "get", "owner": "acme-labs", "repo": "tinykv", "pullNumber": 7}
    assert read.is_valid(good)
    assert not read.is_valid({**good, "method": "get_everything"})
    missing = {key: value for key, value in good.items() if key != "pullNumber"}
    assert [error.message for error in read.iter_errors(missing)] == [
        "'pullNumber' is a required property"
    ]


class TestPayload:
    def test_entries_are_what_tools_list_returns(self) -> None:
        payload = tools_list_payload()
        assert [entry["name"] for entry in payload] == [tool.name for tool in TOOLS]
        for entry in payload:
            assert set(entry) == {"name", "description", "inputSchema", "annotations"}
        json.dumps(payload)

    def test_the_catalogue_file_is_that_payload(self) -> None:
        document = json.loads(mcp_tools.CATALOGUE_PATH.read_text(encoding="utf-8"))
        assert document == {"tools": tools_list_payload()}

    def test_each_call_hands_out_a_fresh_copy(self) -> None:
        first = tools_list_payload()
        first[0]["inputSchema"]["properties"]["injected"] = {"type": "string"}
        first[0]["annotations"]["readOnlyHint"] = "changed"
        second = tools_list_payload()
        assert "injected" not in second[0]["inputSchema"]["properties"]
        assert "injected" not in TOOLS[0].input_schema["properties"]
        assert second[0]["annotations"]["readOnlyHint"] is True

    def test_surface_size_matches_the_documented_count(
        self, record_property: Callable[[str, object], None]
    ) -> None:
        o200k = count_json(tools_list_payload(), "o200k_base")
        cl100k = count_json(tools_list_payload(), "cl100k_base")
        record_property("mcp_tools_list_tokens_o200k_base", o200k)
        record_property("mcp_tools_list_tokens_cl100k_base", cl100k)
        print(f"MCP tools/list surface: {o200k} tokens o200k_base, {cl100k} cl100k_base")
        documented = re.findall(
            r"([\d,]+)\s+tokens in ``o200k_base`` and ([\d,]+)\s+in", mcp_tools.__doc__ or ""
        )
        assert documented == [(f"{o200k:,}", f"{cl100k:,}")]
        # What makes the mcp mode expensive: thousands of tokens before the first call.
        assert 5_000 < o200k < 15_000


class TestCapabilityMapping:
    def test_routes_name_real_tools_and_methods(self) -> None:
        for name, method in CAPABILITY_FOR_TOOL:
            tool = TOOLS_BY_NAME.get(name)
            assert tool is not None, f"mapping names unknown tool {name!r}"
            if tool.methods:
                assert method in tool.methods, f"{name}: unknown method {method!r}"
            else:
                assert method is None, f"{name} takes no method, mapping says {method!r}"

    def test_every_route_is_mapped(self) -> None:
        routes = {(tool.name, method) for tool in TOOLS for method in tool.methods or (None,)}
        assert routes == set(CAPABILITY_FOR_TOOL)

    @needs_external
    def test_mapped_ids_are_scenario_capabilities(self) -> None:
        known = scenario_capabilities()
        mapped = {capability for served in CAPABILITY_FOR_TOOL.values() for capability in served}
        assert mapped - known == set()

    @needs_external
    def test_every_scenario_capability_is_reachable(self) -> None:
        unreachable = {task for task in scenario_capabilities() if not routes_for_capability(task)}
        assert unreachable == set(UNREACHABLE)
        assert len(scenario_capabilities()) == 66

    def test_direct_routes_come_first(self) -> None:
        assert routes_for_capability("pr.view") == (("pull_request_read", "get"),)
        assert routes_for_capability("issue.parent.set")[0] == ("sub_issue_write", "add")
        assert routes_for_capability("release.get")[0] == ("get_release_by_tag", None)
        assert routes_for_capability("issue.list") == (
            ("list_issues", None),
            ("search_issues", None),
        )
        assert routes_for_capability("no.such.capability") == ()


class TestLoadingErrors:
    def write(self, tmp_path: Path, text: str) -> Path:
        path = tmp_path / "tools.json"
        path.write_text(text, encoding="utf-8")
        return path

    def test_invalid_json_names_file_and_line(self, tmp_path: Path) -> None:
        path = self.write(tmp_path, '{\n  "tools": [\n    {,\n  ]\n}')
        with pytest.raises(ValueError, match=r"tools\.json: line 3: not valid JSON"):
            load_catalogue(path)

    def test_missing_tools_array(self, tmp_path: Path) -> None:
        with pytest.raises(ValueError, match="expected an object with a 'tools' array"):
            load_catalogue(self.write(tmp_path, '{"tool": []}'))

    def test_bad_entry_names_its_index_and_field(self, tmp_path: Path) -> None:
        entry = {"name": "get_me", "description": "", "inputSchema": {"type": "object"}}
        with pytest.raises(ValueError, match=r"tools\[0\] \(get_me\): 'description'"):
            load_catalogue(self.write(tmp_path, json.dumps({"tools": [entry]})))

    def test_schema_must_be_an_object_schema(self, tmp_path: Path) -> None:
        entry = {"name": "get_me", "description": "Who am I.", "inputSchema": {"type": "array"}}
        with pytest.raises(ValueError, match=r"tools\[0\] \(get_me\): 'inputSchema' must be"):
            load_catalogue(self.write(tmp_path, json.dumps({"tools": [entry]})))

    def test_duplicate_tool_is_rejected(self, tmp_path: Path) -> None:
        entry = {"name": "get_me", "description": "Who am I.", "inputSchema": {"type": "object"}}
        with pytest.raises(ValueError, match="tool 'get_me' is listed twice"):
            load_catalogue(self.write(tmp_path, json.dumps({"tools": [entry, entry]})))
