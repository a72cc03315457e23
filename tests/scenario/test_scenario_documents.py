"""File-level problems: encodings, syntax errors, duplicate keys, the wrong top level."""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_ghxbench.scenario import (
    AtomicScenario,
    MissingResource,
    ScenarioError,
    load_scenario_file,
    render_prompt,
)

Write = Callable[..., Path]


def _error(path: Path) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        load_scenario_file(path)
    return caught.value


def test_non_utf8_names_the_byte_and_offset(write: Write) -> None:
    path = write("x.json", b'{\n  "id": "a\xff"\n}\n')
    error = _error(path)
    assert str(error) == f"{path}: not UTF-8 (invalid byte 0xff at offset 12, line 2)"


def test_a_utf8_bom_is_accepted(write: Write, variant: Callable[..., str]) -> None:
    path = write("x.yaml", b"\xef\xbb\xbf" + variant("atomic", {}).encode())
    assert load_scenario_file(path).id == "pr-view-001"


def test_yaml_syntax_error_shows_line_and_column(write: Write) -> None:
    path = write("x.yaml", "id: a-001\nname: x\n  task: pr.view\n")
    error = _error(path)
    assert (error.line, error.column) == (3, 7)
    assert str(error) == f"{path}:3:7: YAML syntax error: mapping values are not allowed here"


def test_unclosed_yaml_flow_list_points_back_to_its_start(write: Write) -> None:
    error = _error(write("x.yaml", "id: a-001\ntags: [a, b\n"))
    assert error.message.startswith("YAML syntax error: expected ',' or ']'")
    assert "started on line 2" in error.message


def test_json_syntax_error_shows_line_and_column(write: Write) -> None:
    path = write("x.json", '{\n  "id": "a-001",\n  "name": "x",\n}\n')
    error = _error(path)
    assert str(error) == (
        f"{path}:4:1: JSON syntax error: Expecting property name enclosed in double quotes"
    )


def test_json_nan_is_not_json(write: Write) -> None:
    error = _error(write("x.json", '{"timeout_ms": NaN}'))
    assert (error.line, error.column) == (1, 16)
    assert error.message == "JSON refused: NaN is not a finite JSON number"


@pytest.mark.parametrize(
    ("name", "text", "line", "first_line"),
    [
        ("x.yaml", "id: a-001\nname: x\nid: b-001\n", 3, 1),
        ("x.json", '{\n  "id": "a-001",\n  "name": "x",\n  "id": "b-001"\n}\n', 4, 2),
    ],
)
def test_duplicate_keys_are_rejected_with_both_lines(
    write: Write, name: str, text: str, line: int, first_line: int
) -> None:
    error = _error(write(name, text))
    assert error.line == line
    assert error.message == f"duplicate key 'id' (first defined on line {first_line})"


def test_duplicate_keys_are_found_in_nested_mappings(write: Write) -> None:
    error = _error(write("x.yaml", "assertions:\n  min_tool_calls: 1\n  min_tool_calls: 2\n"))
    assert (error.line, error.message) == (
        3,
        "duplicate key 'min_tool_calls' (first defined on line 2)",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "file is empty; expected a mapping of scenario fields"),
        ("- id: a-001\n", "top level must be a mapping of scenario fields, got a list"),
        ("just words\n", "top level must be a mapping of scenario fields, got a str"),
    ],
)
def test_top_level_must_be_a_mapping(write: Write, text: str, message: str) -> None:
    path = write("x.yaml", text)
    assert str(_error(path)) == f"{path}: {message}"


def test_unreadable_and_unsupported_files(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    assert str(_error(missing)).startswith(f"{missing}: cannot read file: ")
    text_file = tmp_path / "notes.txt"
    text_file.write_text("id: a\n")
    assert "unsupported file type '.txt'; use .yaml, .yml or .json" in str(_error(text_file))


def test_yaml_tags_for_python_objects_are_refused(write: Write) -> None:
    error = _error(write("x.yaml", "id: !!python/object/apply:os.system ['true']\n"))
    assert error.message.startswith("YAML syntax error:")
    assert error.line == 1


def test_unquoted_yaml_dates_stay_text_so_input_renders_as_json(
    write: Write, variant: Callable[..., str]
) -> None:
    text = variant("atomic", {7: "  since: 2024-05-01"})
    scenario = load_scenario_file(write("x.yaml", text))
    assert isinstance(scenario, AtomicScenario)
    assert scenario.input["since"] == "2024-05-01"
    prompt = render_prompt(scenario, scenario.input, "ghx", "acme/widgets")
    assert json.dumps(scenario.input, separators=(",", ":")) in prompt


def test_errors_survive_pickling(write: Write, variant: Callable[..., str]) -> None:
    path = write("x.yaml", variant("atomic", {3: "task: x", 9: "timeout_ms: 0"}))
    error = _error(path)
    copy = pickle.loads(pickle.dumps(error))
    assert str(copy) == str(error)
    assert [(p.field, p.line) for p in copy.problems] == [("task", 3), ("timeout_ms", 9)]
    missing = MissingResource("resources.pr.number", "resources has no key 'pr'", binding="input.n")
    assert str(pickle.loads(pickle.dumps(missing))) == str(missing)
